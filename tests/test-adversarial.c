/* Adversarial evidence (SECURITY.md, README "Limits"): a beacon flood, a
 * single strong rogue AP, a GPS jumping between continents, a timezone
 * changing every second.  The decision must not follow a minority or a
 * single device, and memory must stay bounded by the documented caps.
 *
 * Beacons go the way the daemon takes them: a scan entry with real IEs →
 * the beacon source's BSS table → the evidence set (capped like the
 * daemon's) → the policy.  Long timelines run through the replay engine.
 * CPU is bounded by construction: 100k inputs must finish under the test
 * timeout (no timing assertion, which a loaded machine could break). */
#include <string.h>
#include <glib.h>

#include "core/policy.h"
#include "core/evidence-set.h"
#include "core/config.h"
#include "core/regdb.h"
#include "replay/replay.h"
#include "daemon/sources/bss-table.h"

#define SEC RL_USEC_PER_SEC
#define T0 (G_GINT64_CONSTANT (1767225600) * SEC)
#define DE RL_COUNTRY ('D', 'E')
#define US RL_COUNTRY ('U', 'S')
#define AU RL_COUNTRY ('A', 'U')
#define WORLD RL_COUNTRY_WORLD

static RlRegulatory *regulatory;

/* ---- the beacon path: scan entry → BSS table → evidence set → policy ---- */

typedef struct {
  RlSource source;
  RlConfig *config;
  RlEvidenceSet *set;
  RlBssTable *table;
  RlDecision *decision;
  guint max_set;          /* most beacon items the set ever held */
} Radio;

static void
on_put (RlSource *s, const RlEvidence *ev, gpointer user_data)
{
  Radio *r = user_data;

  rl_evidence_set_put (r->set, ev);
  r->max_set = MAX (r->max_set, rl_evidence_set_count_kind (r->set, RL_SOURCE_BEACON));
}

static void
on_withdraw (RlSource *s, const char *key, gpointer user_data)
{
  Radio *r = user_data;

  rl_evidence_set_remove (r->set, key);
}

static const RlSourceOps beacon_ops = { .name = "beacons", .kind = RL_SOURCE_BEACON };

static void
radio_init (Radio *r)
{
  RlSourceSink sink = { on_put, on_withdraw, NULL, r };

  memset (r, 0, sizeof *r);
  r->config = rl_config_new_default ();
  /* as the daemon sizes it (daemon/daemon.c) */
  r->set = rl_evidence_set_new (MAX (r->config->beacons_max_bss, 16));
  r->table = rl_bss_table_new (&r->source, r->config->policy.max_age_s[RL_SOURCE_BEACON],
                               r->config->beacons_max_bss);
  r->decision = rl_decision_new_initial ();
  rl_source_init (&r->source, &beacon_ops, &sink);
}

static void
radio_clear (Radio *r)
{
  rl_bss_table_free (r->table);
  rl_evidence_set_free (r->set);
  rl_decision_free (r->decision);
  rl_config_free (r->config);
}

static void
put_timezone (RlEvidenceSet *set, RlCountry country, gint64 at)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", at, RL_NEVER);
  rl_evidence_add_country (&ev, country);
  ev.strength = 1.0;
  g_strlcpy (ev.detail, country == DE ? "Europe/Berlin" : "other", sizeof ev.detail);
  rl_evidence_set_put (set, &ev);
}

static void
put_gps (RlEvidenceSet *set, RlCountry country, gint64 at, guint max_age_s)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", at, rl_expiry_after (at, max_age_s));
  rl_evidence_add_country (&ev, country);
  ev.strength = 1.0;
  ev.gps.lat = country == DE ? 51.16 : -25.0;
  ev.gps.lon = country == DE ? 10.45 : 134.0;
  ev.gps.error_m = 8;
  ev.gps.border_m = 150000;
  rl_evidence_set_put (set, &ev);
}

/* One heard access point: an SSID element and a Country element, as the
 * kernel hands them over in NL80211_BSS_INFORMATION_ELEMENTS. */
typedef struct {
  guint8 bssid[6];
  guint8 ies[2 + 32 + 8];
  gsize ies_len;
  gint32 signal_mbm;
} Ap;

static void
ap_init (Ap *ap, const guint8 bssid[6], const char *ssid, RlCountry country, gint32 dbm)
{
  gsize n = strlen (ssid);
  guint8 *p = ap->ies;

  g_assert_cmpuint (n, <=, 32);
  memcpy (ap->bssid, bssid, 6);
  *p++ = 0;
  *p++ = (guint8) n;
  memcpy (p, ssid, n);
  p += n;
  *p++ = 7;                  /* Country: "CC ", channels 1–13 at 20 dBm */
  *p++ = 6;
  *p++ = (guint8) (country >> 8);
  *p++ = (guint8) (country & 0xff);
  *p++ = ' ';
  *p++ = 1;
  *p++ = 13;
  *p++ = 20;
  ap->ies_len = (gsize) (p - ap->ies);
  ap->signal_mbm = dbm * 100;
}

static void
radio_hear (Radio *r, const Ap *ap, gint64 now, guint32 seen_ms_ago)
{
  RlScanBss b = { 0 };
  gint64 seen;

  memcpy (b.bssid, ap->bssid, 6);
  b.freq_mhz = 2437;
  b.has_signal = TRUE;
  b.signal_mbm = ap->signal_mbm;
  b.seen_ms_ago = seen_ms_ago;
  b.ies = ap->ies;
  b.ies_len = ap->ies_len;
  rl_bss_table_observe (r->table, &b, now, &seen);
}

static void
radio_decide (Radio *r, gint64 now)
{
  gsize n;
  const RlEvidence *items;
  RlDecision *d;

  rl_evidence_set_expire (r->set, now);
  items = rl_evidence_set_items (r->set, &n);
  d = rl_policy_decide (&r->config->policy, NULL, NULL, r->decision, items, n, NULL, now);
  rl_decision_free (r->decision);
  r->decision = d;
}

/* Ten real German APs: four operators (OUIs), distinct devices and SSIDs;
 * three, three, two and two APs. */
static void
real_de_aps (Ap aps[10])
{
  static const guint8 ouis[4][3] = { { 0x00, 0x1a, 0x4f }, { 0x3c, 0x84, 0x6a }, { 0x98, 0x9b, 0xcb }, { 0xf0, 0x9f, 0xc2 } };

  for (guint i = 0; i < 10; i++)
    {
      guint op = i < 3 ? 0 : i < 6 ? 1 : i < 8 ? 2 : 3;
      guint8 bssid[6] = { ouis[op][0], ouis[op][1], ouis[op][2], 0x10, (guint8) (0x20 + i), 0x01 };
      g_autofree char *ssid = g_strdup_printf ("net-%u-%u", op, i);
      ap_init (&aps[i], bssid, ssid, DE, -70 - (gint32) i);
    }
}

static void
assert_bounds (const Radio *r)
{
  guint cap = r->config->beacons_max_bss;

  g_assert_cmpuint (rl_bss_table_size (r->table), <=, cap);
  g_assert_cmpuint (rl_bss_table_n_with_country (r->table), <=, rl_bss_table_size (r->table));
  g_assert_cmpuint (rl_evidence_set_count_kind (r->set, RL_SOURCE_BEACON), <=, cap);
  g_assert_cmpuint (r->max_set, <=, cap);
}

/* 5000 BSSIDs of one OUI, louder than every real AP and heard later in
 * each scan, say US; ten real APs of four operators and the timezone say
 * DE.  One operator gives US at most two votes: DE is decided, and the
 * real APs stay in the capped tables (the flood evicts only itself). */
static void
flood (gboolean locally_administered)
{
  Radio r;
  Ap real[10];
  const guint n_flood = 5000;
  g_autofree Ap *fake = g_new0 (Ap, n_flood);
  char cc[3];

  radio_init (&r);
  real_de_aps (real);
  for (guint i = 0; i < n_flood; i++)
    {
      guint8 bssid[6] = { 0x00, 0x0e, 0x8e, (guint8) (i >> 8), (guint8) i, 0x00 };
      g_autofree char *ssid = g_strdup_printf ("free-%u", i);
      if (locally_administered)
        {
          /* made-up addresses, random-looking, each with its own SSID */
          guint32 h = g_int_hash (&i) * 2654435761u;
          bssid[0] = 0x02 | (guint8) ((h >> 24) & 0xfc);
          bssid[1] = (guint8) (h >> 16);
          bssid[2] = (guint8) (h >> 8);
        }
      ap_init (&fake[i], bssid, ssid, US, -20);
    }
  put_timezone (r.set, DE, T0);

  /* A scan every 10 s for 5 minutes. */
  for (gint64 now = T0; now <= T0 + 300 * SEC; now += 10 * SEC)
    {
      for (guint i = 0; i < 10; i++)
        radio_hear (&r, &real[i], now, 3000);
      for (guint i = 0; i < n_flood; i++)
        radio_hear (&r, &fake[i], now, 100);
      radio_decide (&r, now);
      assert_bounds (&r);
      g_assert_cmpuint (r.decision->country, !=, US);
      g_assert_cmpuint (r.decision->candidate, !=, US);
    }

  /* Every real AP is still remembered. */
  g_assert_cmpuint (rl_evidence_set_count_kind (r.set, RL_SOURCE_BEACON), ==, r.config->beacons_max_bss);
  for (guint i = 0; i < 10; i++)
    {
      char text[18], key[48];
      gsize n;
      const RlEvidence *items = rl_evidence_set_items (r.set, &n);
      gboolean found = FALSE;
      rl_bssid_to_string (real[i].bssid, text);
      g_snprintf (key, sizeof key, "beacon:%s", text);
      for (gsize k = 0; k < n; k++)
        found |= strcmp (items[k].key, key) == 0;
      if (!found)
        g_error ("the flood evicted the real AP %s", text);
    }

  /* One OUI gives US at most two votes; made-up (locally administered)
   * addresses with no globally administered sibling are together one
   * operator with one vote and never a witness (docs/policy.md): either
   * way DE keeps its share and is decided. */
  g_assert_cmpstr (rl_country_to_string (r.decision->country, cc), ==, "DE");
  g_assert_cmpint (r.decision->state, ==, RL_STATE_DECIDED);
  radio_clear (&r);
}

static void
test_oui_flood (void)
{
  flood (FALSE);
}

static void
test_locally_administered_flood (void)
{
  flood (TRUE);
}

/* The policy alone, with no cap in front of it: the per-operator vote cap
 * is what keeps 5000 BSSIDs of one OUI at two votes. */
static void
test_oui_flood_policy_only (void)
{
  RlPolicyParams params;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  g_autoptr (RlDecision) first = NULL;
  g_autoptr (RlDecision) d = NULL;
  Ap real[10];
  RlEvidence ev;

  rl_policy_params_init (&params);
  real_de_aps (real);
  for (guint i = 0; i < 10 + 5000; i++)
    {
      Ap fake;
      const Ap *ap = &real[MIN (i, 9u)];
      if (i >= 10)
        {
          guint k = i - 10;
          guint8 bssid[6] = { 0x00, 0x0e, 0x8e, (guint8) (k >> 8), (guint8) k, 0x00 };
          g_autofree char *ssid = g_strdup_printf ("free-%u", k);
          ap_init (&fake, bssid, ssid, US, -20);
          ap = &fake;
        }
      g_assert_cmpint (rl_beacon_evidence_build (&ev, ap->bssid, ap->signal_mbm, 2437, ap->ies, ap->ies_len,
                                                 NULL, 0, T0, 900), ==, RL_COUNTRY_IE_OK);
      g_array_append_val (items, ev);
    }
  rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", T0, RL_NEVER);
  rl_evidence_add_country (&ev, DE);
  g_array_append_val (items, ev);

  first = rl_policy_decide (&params, NULL, NULL, NULL, (RlEvidence *) (gpointer) items->data, items->len, NULL, T0);
  g_assert_cmpint (first->state, ==, RL_STATE_TENTATIVE);
  g_assert_cmpuint (first->candidate, ==, DE);
  d = rl_policy_decide (&params, NULL, NULL, first, (RlEvidence *) (gpointer) items->data, items->len, NULL,
                        T0 + 30 * SEC);
  g_assert_cmpuint (d->country, ==, DE);
  g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
  for (guint i = 0; i < d->candidates->len; i++)
    {
      const RlCandidate *c = &g_array_index (d->candidates, RlCandidate, i);
      if (c->country == US)
        {
          g_assert_cmpuint (c->beacon_aps, ==, params.beacon_max_aps_per_operator);
          g_assert_cmpuint (c->beacon_operators, ==, 1);
        }
    }
}

/* One rogue AP, louder than all others, naming another country: a decided
 * DE never moves, not even for an instant; alone it decides nothing. */
static void
test_single_strong_rogue (void)
{
  Radio r;
  Ap real[10], rogue;
  const guint8 rogue_bssid[6] = { 0x00, 0x0e, 0x8e, 0xaa, 0xbb, 0xcc };
  guint changes = 0;
  RlCountry last = WORLD;

  radio_init (&r);
  real_de_aps (real);
  ap_init (&rogue, rogue_bssid, "airport-free", US, -15);
  put_timezone (r.set, DE, T0);
  for (gint64 now = T0; now <= T0 + 900 * SEC; now += 10 * SEC)
    {
      /* five real APs (three operators) are heard; the rogue from 2 min on */
      for (guint i = 0; i < 10; i += 2)
        radio_hear (&r, &real[i], now, 500);
      if (now >= T0 + 120 * SEC)
        radio_hear (&r, &rogue, now, 10);
      radio_decide (&r, now);
      if (r.decision->country != last)
        changes++;
      last = r.decision->country;
      if (now >= T0 + 30 * SEC)
        g_assert_cmpuint (r.decision->country, ==, DE);
    }
  g_assert_cmpuint (changes, ==, 1);   /* 00 → DE, once */
  g_assert_nonnull (strstr (r.decision->explanation, "00:0e:8e:aa:bb:cc"));   /* shown as dissent */
  radio_clear (&r);

  /* The rogue alone, with a timezone agreeing with it: one AP is no witness. */
  radio_init (&r);
  put_timezone (r.set, US, T0);
  for (gint64 now = T0; now <= T0 + 600 * SEC; now += 10 * SEC)
    {
      radio_hear (&r, &rogue, now, 10);
      radio_decide (&r, now);
      g_assert_cmpuint (r.decision->country, ==, WORLD);
    }
  radio_clear (&r);
}

/* ---- long timelines through the replay engine ---------------------------- */

static RlEvidence
gps_item (RlCountry country, gint64 at)
{
  g_autoptr (RlEvidenceSet) one = rl_evidence_set_new (0);
  gsize n;

  put_gps (one, country, at, 600);
  return *rl_evidence_set_items (one, &n);
}

static RlEvidence
tz_item (RlCountry country, gint64 at)
{
  g_autoptr (RlEvidenceSet) one = rl_evidence_set_new (0);
  gsize n;

  put_timezone (one, country, at);
  return *rl_evidence_set_items (one, &n);
}

static RlEvidence
beacon_item (guint i, RlCountry country, gint64 at)
{
  Ap real[10];
  RlEvidence ev;

  real_de_aps (real);
  g_assert_cmpint (rl_beacon_evidence_build (&ev, real[i].bssid, real[i].signal_mbm, 2437, real[i].ies,
                                             real[i].ies_len, NULL, 0, at, 900), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpuint (ev.countries[0], ==, country);
  return ev;
}

/* Country changes in a replay timeline; also fails on any country in @never. */
static guint
country_changes (const RlReplay *replay, RlCountry never)
{
  const GArray *tl = rl_replay_timeline (replay);
  RlCountry last = WORLD;
  guint changes = 0;
  char cc[3];

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (never != RL_COUNTRY_NONE && e->country == never)
        g_error ("decided %s at +%" G_GINT64_FORMAT " s: %s", rl_country_to_string (e->country, cc),
                 (e->time - T0) / SEC, e->summary);
      if (e->country != last)
        changes++;
      last = e->country;
    }
  return changes;
}

/* A GPS (spoofed, or broken) jumping between Germany and Australia every
 * second for an hour, the timezone saying Europe/Berlin: agreement never
 * holds for hold_down, so regloc never leaves 00 — it decides neither the
 * GPS's country of the moment nor the other. */
static void
test_gps_jumping_continents (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  RlEvidence ev;

  ev = tz_item (DE, T0);
  rl_replay_add_evidence (replay, &ev);
  for (guint s = 0; s < 3600; s++)
    {
      ev = gps_item (s % 2 ? AU : DE, T0 + s * SEC);
      rl_replay_add_evidence (replay, &ev);
    }
  rl_replay_run (replay, TRUE);
  g_assert_cmpuint (country_changes (replay, RL_COUNTRY_NONE), ==, 0);
  g_assert_cmpuint (rl_replay_final (replay)->country, ==, WORLD);
}

/* Decided DE on a steady GPS, then the GPS starts jumping to Australia
 * every other second for an hour, then settles on DE again: 00 at the
 * first jump (a strong fix elsewhere), no country while it jumps, DE again
 * only hold_down after it settles.  Three changes in all. */
static void
test_gps_jumping_after_a_decision (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  const GArray *tl;
  RlEvidence ev;
  gint64 jumps_from = T0 + 600 * SEC, jumps_until = jumps_from + 3600 * SEC;

  ev = tz_item (DE, T0);
  rl_replay_add_evidence (replay, &ev);
  for (gint64 t = T0; t < jumps_until + 600 * SEC; t += SEC)
    {
      gboolean jumping = t >= jumps_from && t < jumps_until;
      ev = gps_item (jumping && ((t - T0) / SEC) % 2 ? AU : DE, t);
      rl_replay_add_evidence (replay, &ev);
    }
  rl_replay_run (replay, TRUE);
  g_assert_cmpuint (country_changes (replay, AU), ==, 3);
  tl = rl_replay_timeline (replay);
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (e->time > jumps_from && e->time < jumps_until + 30 * SEC)
        g_assert_cmpuint (e->country, ==, WORLD);
    }
  g_assert_cmpuint (rl_replay_final (replay)->country, ==, DE);
}

/* The timezone changing every second for an hour (DE, AU, DE, …).  Alone it
 * never decides.  With a beacon consensus of two witnesses for DE, DE is
 * decided once and never left: the timezone confirms, it cannot unseat. */
static void
test_timezone_every_second (void)
{
  for (guint with_beacons = 0; with_beacons < 2; with_beacons++)
    {
      g_autoptr (RlConfig) config = rl_config_new_default ();
      g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
      RlEvidence ev;

      for (guint s = 0; s < 3600; s++)
        {
          ev = tz_item (s % 2 ? AU : DE, T0 + s * SEC);
          rl_replay_add_evidence (replay, &ev);
          /* five APs of four operators, heard every minute */
          if (with_beacons && s % 60 == 0)
            for (guint i = 0; i < 10; i += 2)
              {
                ev = beacon_item (i, DE, T0 + s * SEC);
                rl_replay_add_evidence (replay, &ev);
              }
        }
      rl_replay_run (replay, TRUE);
      g_assert_cmpuint (country_changes (replay, AU), ==, with_beacons ? 1 : 0);
      g_assert_cmpuint (rl_replay_final (replay)->country, ==, with_beacons ? DE : WORLD);
    }
}

/* ---- memory bounds ------------------------------------------------------- */

/* 100 000 distinct BSSIDs (one OUI, made-up addresses, many OUIs), 100 000
 * GPS fixes and 100 000 timezone readings: the BSS table and the evidence
 * set never exceed their caps, the GPS and the timezone are one item each,
 * and a decision every 1000 inputs stays on bounded work. */
static void
test_bounded_under_100k_inputs (void)
{
  Radio r;
  const guint n = 100000;
  GRand *rand = g_rand_new_with_seed (42);
  gsize n_items;

  radio_init (&r);
  for (guint i = 0; i < n; i++)
    {
      gint64 now = T0 + (gint64) (i / 1000) * SEC;
      guint8 bssid[6];
      Ap ap;
      guint32 x = g_rand_int (rand);

      switch (i % 3)
        {
        case 0:   /* one OUI */
          memcpy (bssid, (guint8[]) { 0x00, 0x0e, 0x8e, (guint8) (i >> 16), (guint8) (i >> 8), (guint8) i }, 6);
          break;
        case 1:   /* made-up */
          memcpy (bssid, (guint8[]) { (guint8) (0x02 | (x & 0xfc)), (guint8) (x >> 8), (guint8) (x >> 16),
                                      (guint8) (i >> 16), (guint8) (i >> 8), (guint8) i }, 6);
          break;
        default:  /* any OUI */
          memcpy (bssid, (guint8[]) { (guint8) (x & 0xfc), (guint8) (x >> 8), (guint8) (x >> 16),
                                      (guint8) (i >> 16), (guint8) (i >> 8), (guint8) i }, 6);
          break;
        }
      ap_init (&ap, bssid, "x", i % 2 ? US : DE, -50);
      radio_hear (&r, &ap, now, 0);
      put_gps (r.set, i % 2 ? AU : DE, now, 600);
      put_timezone (r.set, i % 2 ? AU : DE, now);
      if (i % 1000 == 999)
        {
          radio_decide (&r, now);
          assert_bounds (&r);
          g_assert_cmpuint (r.decision->candidates->len, <=, 4);
        }
    }
  assert_bounds (&r);
  g_assert_cmpuint (rl_bss_table_size (r.table), ==, r.config->beacons_max_bss);
  g_assert_cmpuint (rl_evidence_set_count_kind (r.set, RL_SOURCE_GPS), ==, 1);
  g_assert_cmpuint (rl_evidence_set_count_kind (r.set, RL_SOURCE_TIMEZONE), ==, 1);
  rl_evidence_set_items (r.set, &n_items);
  g_assert_cmpuint (n_items, <=, r.config->beacons_max_bss + 2);
  g_rand_free (rand);
  radio_clear (&r);
}

/* The evidence set on its own (the replay engine's, fed by scan logs with
 * no BSS table in front): at its cap a one-OUI flood evicts itself. */
static void
test_evidence_set_cap_keeps_other_operators (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (64);
  Ap real[10];
  RlEvidence ev;

  real_de_aps (real);
  for (guint i = 0; i < 10; i++)
    {
      g_assert_cmpint (rl_beacon_evidence_build (&ev, real[i].bssid, 0, 2437, real[i].ies, real[i].ies_len,
                                                 NULL, 0, T0, 900), ==, RL_COUNTRY_IE_OK);
      rl_evidence_set_put (set, &ev);
    }
  for (guint i = 0; i < 20000; i++)
    {
      Ap fake;
      guint8 bssid[6] = { 0x00, 0x0e, 0x8e, (guint8) (i >> 16), (guint8) (i >> 8), (guint8) i };
      ap_init (&fake, bssid, "flood", US, -20);
      g_assert_cmpint (rl_beacon_evidence_build (&ev, fake.bssid, 0, 2437, fake.ies, fake.ies_len,
                                                 NULL, 0, T0 + (gint64) (i + 1) * SEC, 900), ==, RL_COUNTRY_IE_OK);
      rl_evidence_set_put (set, &ev);
      g_assert_cmpuint (rl_evidence_set_count_kind (set, RL_SOURCE_BEACON), <=, 64);
    }
  g_assert_cmpuint (rl_evidence_set_count_kind (set, RL_SOURCE_BEACON), ==, 64);
  {
    gsize n;
    const RlEvidence *items = rl_evidence_set_items (set, &n);
    guint de = 0;
    for (gsize k = 0; k < n; k++)
      de += items[k].countries[0] == DE;
    g_assert_cmpuint (de, ==, 10);
  }
  /* Other kinds keep plain oldest-first eviction: the newest GPS stays. */
  {
    g_autoptr (RlEvidenceSet) gps = rl_evidence_set_new (1);
    RlEvidence a = gps_item (DE, T0), b = gps_item (AU, T0 + SEC);
    g_strlcpy (b.key, "gps2", sizeof b.key);
    rl_evidence_set_put (gps, &a);
    rl_evidence_set_put (gps, &b);
    gsize n;
    const RlEvidence *items = rl_evidence_set_items (gps, &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpstr (items[0].key, ==, "gps2");
  }
}

int
main (int argc, char **argv)
{
  const char *regdb = g_getenv ("REGLOC_TEST_REGDB");
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  /* The replay engine maps countries through the regulatory database. */
  regulatory = rl_regulatory_load (regdb ? regdb : RL_REGDB_DEFAULT_PATH, NULL, &error);
  if (error != NULL)
    {
      g_printerr ("test-adversarial: %s — is wireless-regdb installed?\n", error->message);
      return 1;
    }
  g_test_add_func ("/adversarial/oui-flood", test_oui_flood);
  g_test_add_func ("/adversarial/locally-administered-flood", test_locally_administered_flood);
  g_test_add_func ("/adversarial/oui-flood-policy-only", test_oui_flood_policy_only);
  g_test_add_func ("/adversarial/single-strong-rogue", test_single_strong_rogue);
  g_test_add_func ("/adversarial/gps-jumping-continents", test_gps_jumping_continents);
  g_test_add_func ("/adversarial/gps-jumping-after-a-decision", test_gps_jumping_after_a_decision);
  g_test_add_func ("/adversarial/timezone-every-second", test_timezone_every_second);
  g_test_add_func ("/adversarial/bounded-under-100k-inputs", test_bounded_under_100k_inputs);
  g_test_add_func ("/adversarial/evidence-set-cap", test_evidence_set_cap_keeps_other_operators);
  status = g_test_run ();
  rl_regulatory_free (regulatory);
  return status;
}
