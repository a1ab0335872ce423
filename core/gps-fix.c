#include "core/gps-fix.h"

#include <math.h>
#include "core/enum-names.h"

void
rl_gps_fix_init (RlGpsFix *fix)
{
  fix->time = 0;
  fix->day = 0;
  fix->flags = 0;
  fix->lat = fix->lon = NAN;
  fix->mode = 0;
  fix->eph = fix->epx = fix->epy = fix->hdop = NAN;
  fix->altitude_m = fix->speed_mps = NAN;
}

void
rl_gps_fix_init_lost (RlGpsFix *fix, gint64 time, gint32 day, guint32 flags)
{
  rl_gps_fix_init (fix);
  fix->time = time;
  fix->day = day;
  fix->flags = flags | RL_GPS_FIX_LOST;
  fix->mode = 1;
}

RlGpsReject
rl_gps_fix_judge (const RlGpsFix *fix)
{
  if (!rl_gps_fix_is_lost (fix) && fix->lat == 0.0 && fix->lon == 0.0)
    return RL_GPS_REJECT_NULL_ISLAND;
  return RL_GPS_N_REJECTS;
}

static const char *const reject_names[RL_GPS_N_REJECTS] = {
  [RL_GPS_REJECT_BAD_CHECKSUM] = "bad_checksum",
  [RL_GPS_REJECT_TRUNCATED] = "truncated",
  [RL_GPS_REJECT_MALFORMED] = "malformed",
  [RL_GPS_REJECT_NO_FIX] = "no_fix",
  [RL_GPS_REJECT_NO_TIME] = "no_time",
  [RL_GPS_REJECT_BAD_VALUE] = "bad_value",
  [RL_GPS_REJECT_TIME_BACKWARDS] = "time_backwards",
  [RL_GPS_REJECT_NULL_ISLAND] = "null_island",
};

const char *
rl_gps_reject_to_string (RlGpsReject reason)
{
  return RL_ENUM_NAME (reject_names, reason, "?");
}

static const char *const reject_words[RL_GPS_N_REJECTS] = {
  [RL_GPS_REJECT_BAD_CHECKSUM] = "bad checksum",
  [RL_GPS_REJECT_TRUNCATED] = "cut short",
  [RL_GPS_REJECT_MALFORMED] = "malformed",
  [RL_GPS_REJECT_NO_FIX] = "the receiver says it has no fix",
  [RL_GPS_REJECT_NO_TIME] = "a position without a time",
  [RL_GPS_REJECT_BAD_VALUE] = "an impossible value",
  [RL_GPS_REJECT_TIME_BACKWARDS] = "earlier than the fix before it",
  [RL_GPS_REJECT_NULL_ISLAND] = "at exactly 0N 0E, a placeholder",
};

void
rl_gps_parse_stats_reject (RlGpsParseStats *stats, RlGpsReject why, guint64 line, const char *text)
{
  g_return_if_fail (why < RL_GPS_N_REJECTS);
  stats->rejected[why]++;
  if (stats->first_reject_why == NULL)
    {
      stats->first_reject_line = line;
      stats->first_reject_why = text != NULL ? text : RL_ENUM_NAME (reject_words, why, "rejected");
    }
}

guint64
rl_gps_parse_stats_rejected_total (const RlGpsParseStats *stats)
{
  guint64 n = 0;

  for (guint i = 0; i < RL_GPS_N_REJECTS; i++)
    n += stats->rejected[i];
  return n;
}

gint64
rl_gps_fix_absolute_time (const RlGpsFix *fix, gint64 base_day_us)
{
  if (fix->flags & RL_GPS_FIX_HAS_DATE)
    return fix->time;
  return base_day_us + (gint64) fix->day * 86400 * G_USEC_PER_SEC + fix->time;
}

gboolean
rl_gps_civil_to_us (int year, int month, int day, gint64 *out)
{
  static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  gboolean leap;
  gint64 days;
  int y;

  if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1)
    return FALSE;
  leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > mdays[month - 1] + (month == 2 && leap ? 1 : 0))
    return FALSE;

  /* Whole years, then whole months of this year: a loop is plenty fast for
   * one RMC per second of log and cannot be got wrong. */
  days = 0;
  for (y = 1970; y < year; y++)
    days += ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? 366 : 365;
  for (int m = 1; m < month; m++)
    days += mdays[m - 1] + (m == 2 && leap ? 1 : 0);
  days += day - 1;
  *out = days * 86400 * G_USEC_PER_SEC;
  return TRUE;
}
