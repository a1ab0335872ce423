#include "replay/scenario.h"
#include "geo/boundary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (rl-scenario-error-quark, rl_scenario_error)

gboolean
rl_reason_from_string (const char *text, RlReason *out)
{
  for (guint i = 0; i <= RL_REASON_LAST; i++)
    if (g_strcmp0 (text, rl_reason_to_string ((RlReason) i)) == 0)
      {
        *out = (RlReason) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
rl_state_from_string (const char *text, RlState *out)
{
  for (guint i = 0; i <= RL_STATE_CONFLICT; i++)
    if (g_strcmp0 (text, rl_state_to_string ((RlState) i)) == 0)
      {
        *out = (RlState) i;
        return TRUE;
      }
  return FALSE;
}

typedef struct {
  const char *name;
  guint line;
  GError **error;
} Where;

static gboolean fail (const Where *w, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (const Where *w, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (w->error, RL_SCENARIO_ERROR, 0, "%s:%u: %s", w->name, w->line, msg);
  return FALSE;
}

/* "90", "1.5", "10s", "2m", "1h" → µs */
static gboolean
parse_offset (const char *text, gint64 *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  double mul = 1;

  if (end == text || !isfinite (v) || v < 0)
    return FALSE;
  if (*end == 's')
    end++;
  else if (*end == 'm')
    mul = 60, end++;
  else if (*end == 'h')
    mul = 3600, end++;
  if (*end != '\0' || v * mul > 1e9)
    return FALSE;
  *out = (gint64) llround (v * mul * RL_USEC_PER_SEC);
  return TRUE;
}

static gboolean
parse_double (const char *text, double lo, double hi, double *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0' || !isfinite (v) || v < lo || v > hi)
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
parse_bssid (const char *text, guint8 out[6])
{
  unsigned v[6];
  char tail;

  if (sscanf (text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
    return FALSE;
  for (int i = 0; i < 6; i++)
    out[i] = (guint8) v[i];
  return TRUE;
}

/* key=value options after the positional words */
static const char *
opt (char **words, const char *key)
{
  gsize n = strlen (key);

  for (guint i = 0; words[i] != NULL; i++)
    if (strncmp (words[i], key, n) == 0 && words[i][n] == '=')
      return words[i] + n + 1;
  return NULL;
}

static gboolean
parse_countries (const char *text, RlEvidence *ev)
{
  g_auto (GStrv) parts = NULL;

  if (strcmp (text, "sea") == 0)
    return TRUE;
  parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      RlCountry c;
      if (!rl_country_parse (parts[i], &c) || c == RL_COUNTRY_WORLD)
        return FALSE;
      rl_evidence_add_country (ev, c);
    }
  return ev->n_countries > 0;
}

static gboolean
parse_gps (const Where *w, char **words, gint64 t, const RlScenarioContext *ctx, RlEvidence *ev)
{
  const RlConfig *cfg = ctx->config;
  double lat, lon, error_m = 10, border = -1;
  const char *s;
  char list[96], cc[3];

  if (words[0] == NULL || words[1] == NULL || !parse_double (words[0], -90, 90, &lat) ||
      !parse_double (words[1], -180, 180, &lon))
    return fail (w, "gps: expected LAT LON in degrees (-90..90, -180..180)");
  if ((s = opt (words, "error")) && !parse_double (s, 0, 1e6, &error_m))
    return fail (w, "gps: error=%s: expected metres", s);
  if ((s = opt (words, "border")) && !parse_double (s, 0, 1e8, &border))
    return fail (w, "gps: border=%s: expected metres", s);
  rl_evidence_init (ev, RL_SOURCE_GPS, "gps", t, rl_expiry_after (t, cfg->policy.max_age_s[RL_SOURCE_GPS]));
  ev->gps.lat = lat;
  ev->gps.lon = lon;
  ev->gps.error_m = error_m;
  ev->gps.border_m = border;
  if ((s = opt (words, "countries")) != NULL)
    {
      if (!parse_countries (s, ev))
        return fail (w, "gps: countries=%s: expected CC[,CC…] or sea", s);
    }
  else if (ctx->lookup != NULL)
    {
      RlCountry c = RL_COUNTRY_NONE, neighbour = RL_COUNTRY_NONE;
      if (!ctx->lookup (ctx->lookup_data, lat, lon, &c, &border, &neighbour))
        return fail (w, "gps: no boundary index to look up %.5f %.5f; give countries=", lat, lon);
      ev->gps.border_m = border;
      rl_evidence_add_country (ev, c);
      if (c != RL_COUNTRY_NONE && neighbour != RL_COUNTRY_NONE && border <= error_m + cfg->gps_border_margin_m)
        rl_evidence_add_country (ev, neighbour);
    }
  else
    return fail (w, "gps: countries= is needed when no boundary index is loaded");
  g_snprintf (ev->detail, sizeof ev->detail, "GPS fix %.5f%c %.5f%c ±%.0f m (%s)", fabs (lat), lat >= 0 ? 'N' : 'S',
              fabs (lon), lon >= 0 ? 'E' : 'W', error_m, rl_evidence_countries_to_string (ev, list, sizeof list));
  if (border >= 0 && ev->n_countries > 1)
    g_snprintf (ev->detail + strlen (ev->detail), sizeof ev->detail - strlen (ev->detail),
                ", %.0f m from the %s border", border, rl_country_to_string (ev->countries[1], cc));
  return TRUE;
}

static gboolean
parse_beacon (const Where *w, char **words, gint64 t, const RlConfig *cfg, RlEvidence *ev)
{
  guint8 bssid[6];
  RlCountry c;
  const char *s;
  g_autofree char *key = NULL;

  if (words[0] == NULL || !parse_bssid (words[0], bssid))
    return fail (w, "beacon: expected a BSSID like 3c:84:6a:01:02:03");
  if (words[1] == NULL || !rl_country_parse (words[1], &c) || c == RL_COUNTRY_WORLD)
    return fail (w, "beacon: expected the advertised country (two letters) after the BSSID");
  key = g_strdup_printf ("beacon:%s", words[0]);
  rl_evidence_init (ev, RL_SOURCE_BEACON, key, t, rl_expiry_after (t, cfg->policy.max_age_s[RL_SOURCE_BEACON]));
  memcpy (ev->beacon.bssid, bssid, 6);
  rl_evidence_add_country (ev, c);
  ev->beacon.environment = ' ';
  if ((s = opt (words, "ssid")) != NULL)
    {
      /* as the beacon source shows SSIDs heard on the air: printable ASCII,
       * anything else '?' (reports are UTF-8 and a cut must not split a character) */
      gsize n;
      for (n = 0; s[n] != '\0' && n < sizeof ev->beacon.ssid - 1; n++)
        ev->beacon.ssid[n] = g_ascii_isprint (s[n]) ? s[n] : '?';
      ev->beacon.ssid[n] = '\0';
    }
  if ((s = opt (words, "signal")) != NULL)
    {
      double dbm;
      if (!parse_double (s, -150, 30, &dbm))
        return fail (w, "beacon: signal=%s: expected dBm", s);
      ev->beacon.signal_mbm = (gint32) (dbm * 100);
    }
  g_snprintf (ev->detail, sizeof ev->detail, "AP %s '%s' IE '%s'", words[0], ev->beacon.ssid, words[1]);
  return TRUE;
}

static gboolean
parse_event (const Where *w, char **words, gint64 t, const RlScenarioContext *ctx, RlReplay *replay)
{
  const char *what = words[0];
  RlEvidence ev;

  if (what == NULL)
    return fail (w, "expected an event after the time");
  if (strcmp (what, "gps") == 0)
    {
      if (!parse_gps (w, words + 1, t, ctx, &ev))
        return FALSE;
      rl_replay_add_evidence (replay, &ev);
    }
  else if (strcmp (what, "beacon") == 0)
    {
      if (!parse_beacon (w, words + 1, t, ctx->config, &ev))
        return FALSE;
      rl_replay_add_evidence (replay, &ev);
    }
  else if (strcmp (what, "timezone") == 0)
    {
      if (words[1] == NULL)
        return fail (w, "timezone: expected a zone name like Europe/Berlin");
      if (ctx->tzmap == NULL)
        return fail (w, "timezone: the tzdata tables could not be read");
      if (rl_tzmap_evidence (ctx->tzmap, words[1], t,
                             rl_expiry_after (t, ctx->config->policy.max_age_s[RL_SOURCE_TIMEZONE]), &ev))
        rl_replay_add_evidence (replay, &ev);
      else
        rl_replay_add_withdraw (replay, t, "timezone");   /* UTC & co. name no country */
    }
  else if (strcmp (what, "override") == 0)
    {
      RlCountry c;
      if (g_strcmp0 (words[1], "clear") == 0)
        rl_replay_add_withdraw (replay, t, "override");
      else if (words[1] != NULL && rl_country_parse (words[1], &c))
        {
          rl_evidence_init (&ev, RL_SOURCE_OVERRIDE, "override", t,
                            rl_expiry_after (t, ctx->config->policy.max_age_s[RL_SOURCE_OVERRIDE]));
          rl_evidence_add_country (&ev, c);
          g_snprintf (ev.detail, sizeof ev.detail, "override %s", words[1]);
          rl_replay_add_evidence (replay, &ev);
        }
      else
        return fail (w, "override: expected two letters, 00 or clear");
    }
  else if (strcmp (what, "remove") == 0)
    {
      RlSourceKind kind;
      if (words[1] != NULL && strcmp (words[1], "beacon") == 0 && words[2] != NULL)
        {
          g_autofree char *key = g_strdup_printf ("beacon:%s", words[2]);
          rl_replay_add_withdraw (replay, t, key);
        }
      else if (words[1] != NULL && rl_source_kind_from_string (words[1], &kind))
        rl_replay_add_withdraw_kind (replay, t, kind);
      else
        return fail (w, "remove: expected 'beacon BSSID' or a source (beacons, gps, timezone, override)");
    }
  else if (strcmp (what, "resume") == 0)
    rl_replay_add_resume (replay, t);
  else if (strcmp (what, "check") == 0)
    rl_replay_add_tick (replay, t);
  else
    return fail (w, "unknown event '%s': expected gps, beacon, timezone, override, remove, resume or check", what);
  return TRUE;
}

static gboolean
parse_expect (const Where *w, char **words, gint64 t, GArray *expects)
{
  RlScenarioExpect e = { .time = t, .line = w->line };

  if (words[0] == NULL || !rl_country_parse (words[0], &e.country))
    return fail (w, "expect: expected a country (two letters or 00)");
  if (words[1] == NULL || !rl_state_from_string (words[1], &e.state))
    return fail (w, "expect: expected a state (world, tentative, decided, override, conflict)");
  if (words[2] != NULL)
    {
      if (!rl_reason_from_string (words[2], &e.reason))
        return fail (w, "expect: unknown reason '%s'", words[2]);
      e.has_reason = TRUE;
    }
  g_array_append_val (expects, e);
  return TRUE;
}

gboolean
rl_scenario_parse (const char *text, const char *name, const RlScenarioContext *ctx,
                   RlReplay *replay, GArray *expects, gboolean *settle, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GDateTime) start_dt = g_date_time_new_utc (2026, 1, 1, 0, 0, 0);
  gint64 start = g_date_time_to_unix (start_dt) * RL_USEC_PER_SEC;
  gboolean seen_event = FALSE;
  Where w = { name, 0, error };

  *settle = TRUE;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      g_auto (GStrv) words = NULL;
      gint64 off;

      w.line = i + 1;
      if (line[0] == '\0' || line[0] == '#')
        continue;
      words = g_strsplit_set (line, " \t", -1);
      /* collapse runs of blanks */
      {
        guint k = 0;
        for (guint j = 0; words[j] != NULL; j++)
          if (words[j][0] != '\0')
            words[k++] = words[j];
          else
            g_free (words[j]);
        words[k] = NULL;
      }
      if (strcmp (words[0], "start") == 0)
        {
          g_autoptr (GDateTime) dt = words[1] ? g_date_time_new_from_iso8601 (words[1], NULL) : NULL;
          if (dt == NULL || seen_event)
            return fail (&w, "start: expected one ISO 8601 time with zone (2026-05-01T10:00:00Z) before any event");
          start = g_date_time_to_unix (dt) * RL_USEC_PER_SEC;
        }
      else if (strcmp (words[0], "at") == 0)
        {
          if (words[1] == NULL || !parse_offset (words[1], &off))
            return fail (&w, "at: expected seconds from the start (90, 1.5, 10s, 2m, 1h)");
          seen_event = TRUE;
          if (!parse_event (&w, words + 2, start + off, ctx, replay))
            return FALSE;
        }
      else if (strcmp (words[0], "expect") == 0)
        {
          if (!parse_expect (&w, words + 1, RL_NEVER, expects))
            return FALSE;
        }
      else if (strcmp (words[0], "expect-at") == 0)
        {
          if (words[1] == NULL || !parse_offset (words[1], &off))
            return fail (&w, "expect-at: expected seconds from the start");
          rl_replay_add_tick (replay, start + off);
          if (!parse_expect (&w, words + 2, start + off, expects))
            return FALSE;
        }
      else if (strcmp (words[0], "end") == 0)
        {
          if (words[1] == NULL || !parse_offset (words[1], &off))
            return fail (&w, "end: expected seconds from the start");
          rl_replay_add_tick (replay, start + off);
          *settle = FALSE;
        }
      else
        return fail (&w, "unknown line '%s': expected start, at, expect, expect-at or end", words[0]);
    }
  return TRUE;
}

/* The decision in force at @time, from the timeline. */
static const RlTimelineEntry *
entry_at (const GArray *tl, gint64 time)
{
  const RlTimelineEntry *found = NULL;

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (time != RL_NEVER && e->time > time)
        break;
      found = e;
    }
  return found;
}

guint
rl_scenario_check (const RlReplay *replay, const GArray *expects, GString *report)
{
  guint failed = 0;
  char a[3], b[3];

  for (guint i = 0; i < expects->len; i++)
    {
      const RlScenarioExpect *x = &g_array_index (expects, RlScenarioExpect, i);
      const RlTimelineEntry *e = entry_at (rl_replay_timeline (replay), x->time);
      const RlDecision *fin = rl_replay_final (replay);
      RlCountry country = x->time == RL_NEVER ? fin->country : (e ? e->country : RL_COUNTRY_WORLD);
      RlState state = x->time == RL_NEVER ? fin->state : (e ? e->state : RL_STATE_WORLD);
      RlReason reason = x->time == RL_NEVER ? fin->reason : (e ? e->reason : RL_REASON_NO_EVIDENCE);
      gboolean ok = country == x->country && state == x->state && (!x->has_reason || reason == x->reason);

      if (!ok)
        failed++;
      g_string_append_printf (report, "%s line %u: expected %s %s%s%s, got %s %s %s\n", ok ? "ok  " : "FAIL",
                              x->line, rl_country_to_string (x->country, a), rl_state_to_string (x->state),
                              x->has_reason ? " " : "", x->has_reason ? rl_reason_to_string (x->reason) : "",
                              rl_country_to_string (country, b), rl_state_to_string (state), rl_reason_to_string (reason));
    }
  return failed;
}

gboolean
rl_scenario_boundary_lookup (gpointer data, double lat, double lon, RlCountry *country, double *border_m,
                             RlCountry *neighbour)
{
  RlBoundaryResult r;

  if (data == NULL || !rl_boundary_lookup (data, lat, lon, &r))
    return FALSE;
  *country = r.country;
  *border_m = r.border_m;
  *neighbour = r.neighbour;
  return TRUE;
}
