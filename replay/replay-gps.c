#include "replay/replay-gps.h"

#include <math.h>
#include <string.h>
#include "readers/nmea.h"
#include "readers/gpsd-json.h"
#include "readers/gpx.h"

G_DEFINE_QUARK (rl-replay-gps-error-quark, rl_replay_gps_error)

/* Logs with a time of day and no date anywhere are counted from this day
 * unless --date says otherwise; the summary says so. */
#define ARBITRARY_YEAR 2000

const char *
rl_gps_detect_format (const char *data, gsize len)
{
  if (rl_gpx_sniff (data, len))
    return "gpx";
  if (rl_gpsd_json_sniff (data, len))
    return "gpsd";
  if (rl_nmea_sniff (data, len))
    return "nmea";
  return NULL;
}

static gboolean
parse_date_arg (const char *date, gint64 *out, GError **error)
{
  int y, m, d;
  char tail;

  if (sscanf (date, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || strlen (date) != 10 ||
      !rl_gps_civil_to_us (y, m, d, out))
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE,
                   "'%s' is not a date (expected YYYY-MM-DD, from 1970 on)", date);
      return FALSE;
    }
  return TRUE;
}

static void
count_stats (RlReplay *replay, const char *format, const RlGpsParseStats *stats)
{
  char name[64];

  g_snprintf (name, sizeof name, "%s.records", format);
  rl_replay_count (replay, name, stats->records);
  g_snprintf (name, sizeof name, "%s.ignored", format);
  rl_replay_count (replay, name, stats->ignored);
  if (stats->noise_bytes > 0)
    {
      g_snprintf (name, sizeof name, "%s.noise_bytes", format);
      rl_replay_count (replay, name, stats->noise_bytes);
    }
  for (guint i = 0; i < RL_GPS_N_REJECTS; i++)
    if (stats->rejected[i] > 0)
      {
        g_snprintf (name, sizeof name, "gps.rejected.%s", rl_gps_reject_to_string (i));
        rl_replay_count (replay, name, stats->rejected[i]);
      }
}

static gboolean
parse_any (const char *name, const char *format, const char *data, gsize len,
           GArray *fixes, RlGpsParseStats *stats, GError **error)
{
  if (g_strcmp0 (format, "nmea") == 0)
    rl_nmea_parse (data, len, fixes, stats);
  else if (g_strcmp0 (format, "gpsd") == 0)
    rl_gpsd_json_parse (data, len, fixes, stats);
  else if (g_strcmp0 (format, "gpx") == 0)
    {
      g_autoptr (GError) local = NULL;
      if (!rl_gpx_parse (data, len, fixes, stats, &local))
        {
          g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT, "%s: %s", name, local->message);
          return FALSE;
        }
    }
  else
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT,
                   "%s: unknown GPS format '%s' (use nmea, gpsd or gpx)", name, format);
      return FALSE;
    }
  return TRUE;
}

/* Picks the day that time-of-day-only fixes count from, and says which. */
static gboolean
choose_base_day (RlReplay *replay, const char *name, const RlGpsParseStats *stats,
                 const char *date, gint64 *base, GError **error)
{
  *base = 0;
  switch (stats->date_source)
    {
    case RL_GPS_DATE_FROM_FILE:
    case RL_GPS_DATE_PARTIAL:
      if (date != NULL)
        rl_replay_note (replay, "%s: --date %s ignored: the file carries its own date", name, date);
      rl_replay_note (replay, "%s: date taken from the file%s", name,
                      stats->date_source == RL_GPS_DATE_PARTIAL ? " (some epochs from a neighbouring RMC)" : "");
      return TRUE;
    case RL_GPS_DATE_NONE:
    default:
      if (stats->fixes == 0)
        return TRUE;
      if (date != NULL)
        {
          if (!parse_date_arg (date, base, error))
            return FALSE;
          rl_replay_note (replay, "%s: no date in the file; date taken from --date %s", name, date);
        }
      else
        {
          rl_gps_civil_to_us (ARBITRARY_YEAR, 1, 1, base);
          rl_replay_note (replay, "%s: no date in the file (time of day only); counting from an "
                          "arbitrary day, %d-01-01 (give --date YYYY-MM-DD)", name, ARBITRARY_YEAR);
        }
      return TRUE;
    }
}

gboolean
rl_replay_load_gps_data (RlReplay *replay, const char *name, const char *data, gsize len,
                         const char *format, const char *date,
                         const RlGpsEvidenceParams *params, double max_error_m,
                         GError **error)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;
  guint64 used = 0, inaccurate = 0, outside = 0;
  RlGpsLookupCache cache = { 0 };
  gint64 base;

  if (format == NULL)
    {
      format = rl_gps_detect_format (data, len);
      if (format == NULL)
        {
          g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT,
                       "%s: unknown format: not NMEA 0183, gpsd JSON or GPX (force one with --gps-format)",
                       name);
          return FALSE;
        }
    }
  if (!parse_any (name, format, data, len, fixes, &stats, error))
    return FALSE;
  if (!choose_base_day (replay, name, &stats, date, &base, error))
    return FALSE;

  for (guint i = 0; i < fixes->len; i++)
    {
      const RlGpsFix *fix = &g_array_index (fixes, RlGpsFix, i);
      RlEvidence ev;
      gboolean assumed;

      if (rl_gps_fix_is_lost (fix))
        {
          /* the receiver said it lost its fix: its last position stops counting now */
          rl_replay_add_withdraw (replay, rl_gps_fix_absolute_time (fix, base), "gps");
          continue;
        }

      if (!rl_gps_evidence_from_fix_cached (params, &cache, fix, rl_gps_fix_absolute_time (fix, base), &ev))
        {
          outside++;
          continue;
        }
      /* Still pushed: a newer fix replaces the older one even when it is too
       * coarse to be a witness; the policy judges the radius. */
      if (rl_gps_fix_error_m (fix, params->uere_m, params->unknown_error_m, &assumed) > max_error_m)
        inaccurate++;
      else
        used++;
      rl_replay_add_evidence (replay, &ev);
    }

  count_stats (replay, format, &stats);
  if (stats.fix_lost > 0)
    rl_replay_count (replay, "gps.fix_lost", stats.fix_lost);
  rl_replay_count (replay, "gps.fixes_used", used);
  if (inaccurate > 0)
    rl_replay_count (replay, "gps.fixes_too_inaccurate", inaccurate);
  if (outside > 0)
    rl_replay_count (replay, "gps.rejected.lookup_failed", outside);
  rl_replay_note (replay, "%s: %s, %" G_GUINT64_FORMAT " records, %" G_GUINT64_FORMAT " fixes, %"
                  G_GUINT64_FORMAT " rejected", name, format, stats.records, stats.fixes,
                  rl_gps_parse_stats_rejected_total (&stats));
  return TRUE;
}
