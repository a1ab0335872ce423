/* The rules of a country against 00, channel by channel (core/regrules.h).
 * A channel follows the first rule its whole width fits in, as the kernel's
 * freq_reg_info does. */
#include "core/regrules.h"

#include <math.h>

typedef enum {
  CH_ABSENT,
  CH_NO_IR,        /* listen only: no beacons, no probes, no access point */
  CH_DFS_NO_IR,
  CH_DFS,          /* radar detection (CAC) before sending */
  CH_USABLE,
} ChState;

typedef struct {
  ChState state;
  guint8 limits;   /* RL_RULE_NO_OUTDOOR | RL_RULE_NO_OFDM */
  guint16 eirp_mbm;
} Channel;

typedef struct {
  const char *name;
  guint first, last, step;
  guint32 base_khz, spacing_khz, width_khz;
} Band;

/* Segments of the channel plan: a run of channels never spans a gap
 * (5 GHz 68-96 are not in it: few devices know them). */
static const Band bands[] = {
  { "2.4 GHz", 1, 13, 1, 2407000, 5000, 20000 },
  { "2.4 GHz", 14, 14, 1, 2414000, 5000, 20000 },     /* 2484 MHz */
  { "5 GHz", 36, 64, 4, 5000000, 5000, 20000 },
  { "5 GHz", 100, 144, 4, 5000000, 5000, 20000 },
  { "5 GHz", 149, 177, 4, 5000000, 5000, 20000 },
  { "6 GHz", 1, 233, 4, 5950000, 5000, 20000 },
  { "60 GHz", 1, 6, 1, 56160000, 2160000, 2160000 },
};

static guint32
center_khz (const Band *band, guint ch)
{
  return band->base_khz + ch * band->spacing_khz;
}

/* The first rule the channel's whole width fits in. */
static const RlRegRule *
find_rule (const RlRegDomain *d, guint32 center, guint32 width)
{
  for (guint i = 0; d != NULL && i < d->n_rules; i++)
    {
      const RlRegRule *r = &d->rules[i];
      if (r->start_khz > center - width / 2 || r->end_khz < center + width / 2)
        continue;
      if (r->max_bw_khz < width && !(r->flags & RL_RULE_AUTO_BW))
        continue;
      return r;
    }
  return NULL;
}

/* Two adjacent rules (one ends where the other starts) that together hold
 * the channel; FALSE when there are none. */
static gboolean
find_adjacent (const RlRegDomain *d, guint32 center, guint32 width, const RlRegRule **r1, const RlRegRule **r2)
{
  for (guint i = 0; d != NULL && i < d->n_rules; i++)
    for (guint j = 0; j < d->n_rules; j++)
      {
        const RlRegRule *a = &d->rules[i], *b = &d->rules[j];
        if (a->end_khz == b->start_khz && a->start_khz <= center - width / 2 && b->end_khz >= center + width / 2 &&
            MIN (a->max_bw_khz, b->max_bw_khz) >= width)
          {
            *r1 = a;
            *r2 = b;
            return TRUE;
          }
      }
  return FALSE;
}

/* A channel that fits no rule but straddles two adjacent ones (US channel
 * 169 across 5850 MHz) takes both rules' flags and the lower power, as the
 * kernel joins adjacent rules. */
static Channel
channel_in (const RlRegDomain *d, guint32 center, guint32 width)
{
  Channel c = { CH_ABSENT, 0, 0 };
  const RlRegRule *r = find_rule (d, center, width), *r2 = NULL;
  guint8 flags;

  if (r == NULL && !find_adjacent (d, center, width, &r, &r2))
    return c;
  flags = r->flags | (r2 ? r2->flags : 0);
  gboolean dfs = (flags & RL_RULE_DFS) != 0, no_ir = (flags & RL_RULE_NO_IR) != 0;
  c.state = dfs ? (no_ir ? CH_DFS_NO_IR : CH_DFS) : (no_ir ? CH_NO_IR : CH_USABLE);
  c.limits = flags & (RL_RULE_NO_OUTDOOR | RL_RULE_NO_OFDM);
  c.eirp_mbm = r2 ? MIN (r->max_eirp_mbm, r2->max_eirp_mbm) : r->max_eirp_mbm;
  return c;
}

double
rl_reg_mbm_to_mw (guint mbm)
{
  return pow (10.0, mbm / 1000.0);
}

char *
rl_reg_format_power (guint mbm)
{
  double mw = rl_reg_mbm_to_mw (mbm);

  return g_strdup_printf ("%g dBm (%.*f mW)", mbm / 100.0, mw < 10 ? 1 : 0, mw);
}

static void
append_state (GString *s, Channel c)
{
  static const char *const words[] = {
    [CH_ABSENT] = "not allowed",
    [CH_NO_IR] = "passive (NO-IR)",
    [CH_DFS_NO_IR] = "passive (NO-IR) with DFS",
    [CH_DFS] = "usable with DFS",
    [CH_USABLE] = "usable",
  };

  g_string_append (s, words[c.state]);
  if (c.state != CH_ABSENT && (c.limits & RL_RULE_NO_OUTDOOR))
    g_string_append (s, " indoors only");
  if (c.state != CH_ABSENT && (c.limits & RL_RULE_NO_OFDM))
    g_string_append (s, " without OFDM (802.11b only)");
}

static gboolean
same (Channel a, Channel b)
{
  return a.state == b.state && a.limits == b.limits && a.eirp_mbm == b.eirp_mbm;
}

/* One sentence for channels @from..@to (@n of them) of @band. */
static char *
describe_run (const Band *band, guint from, guint to, guint n, Channel w, Channel c)
{
  GString *s = g_string_new (NULL);
  gboolean one = n == 1;

  g_string_append_printf (s, "%s channel%s %u", band->name, one ? "" : "s", from);
  if (!one)
    g_string_append_printf (s, "-%u", to);
  if (c.state == w.state && c.limits == w.limits)
    g_string_append (s, one ? " stays " : " stay ");
  else if (c.state == CH_ABSENT)
    g_string_append (s, one ? " is " : " are ");
  else
    g_string_append (s, one ? " becomes " : " become ");
  append_state (s, c);
  if (c.state != w.state || c.limits != w.limits)
    {
      g_string_append (s, " (00: ");
      append_state (s, w);
      g_string_append (s, ")");
    }
  if (c.state != CH_ABSENT && c.eirp_mbm != w.eirp_mbm)
    {
      g_autofree char *cp = rl_reg_format_power (c.eirp_mbm), *wp = rl_reg_format_power (w.eirp_mbm);
      if (w.state == CH_ABSENT)
        g_string_append_printf (s, "; max EIRP %s", cp);
      else
        g_string_append_printf (s, "; max EIRP %s from %s to %s", c.eirp_mbm > w.eirp_mbm ? "rises" : "falls", wp, cp);
    }
  g_string_append_c (s, '.');
  return g_string_free (s, FALSE);
}

/* Worth a sentence: a difference, or a channel that stays passive or under DFS. */
static gboolean
notable (Channel w, Channel c)
{
  if (c.state == CH_ABSENT && w.state == CH_ABSENT)
    return FALSE;
  return !same (w, c) || c.state == CH_NO_IR || c.state == CH_DFS_NO_IR || c.state == CH_DFS;
}

/* Adds the band's sentences to @out; TRUE when a channel differs from 00. */
static gboolean
compare_band (const Band *band, const RlRegDomain *country, const RlRegDomain *world, GPtrArray *out)
{
  gboolean differs = FALSE;
  guint run_from = 0, run_to = 0, n = 0;
  Channel rw = { 0 }, rc = { 0 };

  for (guint ch = band->first; ch <= band->last + band->step; ch += band->step)
    {
      gboolean end = ch > band->last;
      guint32 center = end ? 0 : center_khz (band, ch);
      Channel w = end ? rw : channel_in (world, center, band->width_khz);
      Channel c = end ? rc : channel_in (country, center, band->width_khz);

      if (!end && n > 0 && same (w, rw) && same (c, rc))
        {
          run_to = ch;
          n++;
          continue;
        }
      if (n > 0 && notable (rw, rc))
        g_ptr_array_add (out, describe_run (band, run_from, run_to, n, rw, rc));
      differs |= n > 0 && !same (rw, rc);
      run_from = run_to = ch;
      rw = w;
      rc = c;
      n = 1;
    }
  return differs;
}

GPtrArray *
rl_reg_domain_changes (const RlRegDomain *country, const RlRegDomain *world)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  gboolean differs = FALSE;

  if (country != NULL && country->country == RL_COUNTRY_WORLD)
    {
      g_ptr_array_add (out, g_strdup ("These are the world rules (00) themselves."));
      return out;
    }
  for (gsize b = 0; b < G_N_ELEMENTS (bands); b++)
    differs |= compare_band (&bands[b], country, world, out);
  if (!differs)
    g_ptr_array_insert (out, 0, g_strdup ("Same channels and power limits as 00."));
  return out;
}
