/* NMEA 0183 reader: real receiver logs and captured/damaged sentences. */
#include <math.h>
#include "readers/nmea.h"
#include "tests/gps-test-util.h"

typedef struct {
  GArray *fixes;
  RlGpsParseStats stats;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->fixes, g_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

static void
parse (Result *r, const char *data, gsize len)
{
  r->fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  rl_nmea_parse (data, len, r->fixes, &r->stats);
}

/* Joins sentences given as bodies (checksummed here); a body starting with
 * '!' is written verbatim without the '!'. */
static char *
build_log (const char *const *bodies)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; bodies[i]; i++)
    {
      if (bodies[i][0] == '!')
        g_string_append (s, bodies[i] + 1);
      else
        {
          g_autofree char *line = nmea_sentence (bodies[i]);
          g_string_append (s, line);
        }
    }
  return g_string_free (s, FALSE);
}

static void
parse_bodies (Result *r, const char *const *bodies)
{
  g_autofree char *log = build_log (bodies);
  parse (r, log, strlen (log));
}

static const RlGpsFix *
fix_at (const Result *r, guint i)
{
  g_assert_cmpuint (i, <, r->fixes->len);
  return &g_array_index (r->fixes, RlGpsFix, i);
}

/* A receiver in an airliner's cabin window after takeoff from Frankfurt:
 * GGA altitude above mean sea level, RMC speed in knots; then an epoch with
 * VTG (km/h only, as some receivers fill it) and a GGA without HDOP. */
static void
test_altitude_speed (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GPGGA,101500.00,5003.123,N,00834.567,E,1,10,0.9,10668.0,M,47.5,M,,",
    "GPRMC,101500.00,A,5003.123,N,00834.567,E,459.0,095.3,150624,,,A",
    "GPGGA,101501.00,5003.120,N,00834.800,E,1,10,,-12.5,M,47.5,M,,",
    "GPVTG,095.3,T,,M,,N,850.0,K,A",
    "GPGGA,101502.00,5003.118,N,00835.030,E,1,10,1.1,,M,47.5,M,,",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->altitude_m, 10668.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->speed_mps, 459.0 * 1852 / 3600, 1e-6);
  g_assert_true (fix_at (&r, 0)->flags & RL_GPS_FIX_HAS_DATE);
  /* below sea level is a real altitude (the Dead Sea shore) */
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 1)->altitude_m, -12.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 1)->speed_mps, 850.0 / 3.6, 1e-6);
  g_assert_true (isnan (fix_at (&r, 1)->hdop));
  g_assert_true (isnan (fix_at (&r, 1)->eph) && isnan (fix_at (&r, 1)->epx));
  g_assert_true (isnan (fix_at (&r, 2)->altitude_m));
  g_assert_true (isnan (fix_at (&r, 2)->speed_mps));
}

/* A fix, then the receiver loses it (a tunnel): RMC V and GGA quality 0 of
 * one epoch make one fix-lost event; then the fix comes back. */
static void
test_fix_lost (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GPRMC,081500.00,A,5046.400,N,00605.100,E,27.0,270.0,020324,,,A",
    "GPGGA,081500.00,5046.400,N,00605.100,E,1,09,1.0,180.0,M,47.0,M,,",
    "GPRMC,081501.00,V,,,,,,,020324,,,N",
    "GPGGA,081501.00,,,,,0,00,99.99,,,,,,",
    "GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99",
    "GPRMC,081530.00,A,5046.600,N,00603.100,E,27.0,270.0,020324,,,A",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 3);
  g_assert_false (rl_gps_fix_is_lost (fix_at (&r, 0)));
  g_assert_true (rl_gps_fix_is_lost (fix_at (&r, 1)));
  g_assert_cmpint (fix_at (&r, 1)->mode, ==, 1);
  g_assert_true (isnan (fix_at (&r, 1)->lat));
  g_assert_true (fix_at (&r, 1)->flags & RL_GPS_FIX_HAS_DATE);
  g_assert_cmpint (fix_at (&r, 1)->time, ==, fix_at (&r, 0)->time + G_USEC_PER_SEC);
  g_assert_false (rl_gps_fix_is_lost (fix_at (&r, 2)));
  g_assert_cmpuint (r.stats.fix_lost, ==, 1);
  g_assert_cmpuint (r.stats.fixes, ==, 3);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 0);
}

static void
test_sample_mt3339 (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("mt3339.log", &len);
  const RlGpsFix *f;

  parse (&r, data, len);
  /* 30 epochs of GGA + GSA + RMC (+ ZDA, GSV ignored) */
  g_assert_cmpuint (r.fixes->len, ==, 30);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
  g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_FROM_FILE);
  f = fix_at (&r, 0);
  g_assert_true (f->flags & RL_GPS_FIX_HAS_DATE);
  g_assert_cmpint (f->time, ==, utc_us (2015, 4, 13, 20, 26, 40));
  g_assert_cmpfloat_with_epsilon (f->lat, 44.0 + 4.1306 / 60, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->lon, -(121.0 + 18.8515 / 60), 1e-9);
  g_assert_cmpint (f->mode, ==, 3);
  g_assert_cmpfloat_with_epsilon (f->hdop, 0.98, 1e-9);
  f = fix_at (&r, 29);
  g_assert_cmpint (f->time, ==, utc_us (2015, 4, 13, 20, 27, 9));
}

static void
test_sample_ublox (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("ublox-8.log", &len);

  parse (&r, data, len);
  /* Binary UBX output before the first sentence, and a last RMC cut short. */
  g_assert_cmpuint (r.stats.noise_bytes, >, 100);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TRUNCATED], ==, 1);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_BAD_CHECKSUM], ==, 0);
  g_assert_cmpuint (r.fixes->len, ==, 72);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2017, 1, 10, 0, 9, 41));
  g_assert_cmpint (fix_at (&r, 71)->time, ==, utc_us (2017, 1, 10, 0, 10, 52));
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lat, 44.0 + 4.13387 / 60, 1e-9);
}

static void
test_sample_quectel (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("quectel-eg25-g-2.log", &len);

  parse (&r, data, len);
  /* GP GGA, GN GNS, GP RMC per epoch; $PQ… proprietary ignored */
  g_assert_cmpuint (r.fixes->len, ==, 3);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lat, 60.022279983, 1e-6);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lon, 30.236150133, 1e-6);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2022, 9, 20, 5, 13, 47));
}

/* A survey receiver (GGA with RTK quality, GST, ZDA, HDT and its own
 * $PSSN; no RMC) across midnight: each ZDA dates the GGA of its time, so
 * the log is dated, and the day after midnight is the ZDA's.  Before, ZDA
 * was ignored and the log had a time of day only ("no date in the file"). */
static void
test_sample_gga_zda (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("gga-zda-midnight.nmea", &len);

  parse (&r, data, len);
  g_assert_cmpuint (r.fixes->len, ==, 6);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
  g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_FROM_FILE);
  /* the ZDA that came before the receiver knew the time, HDT, $PSSN */
  g_assert_cmpuint (r.stats.ignored, ==, 13);
  for (guint i = 0; i < 6; i++)
    {
      g_assert_true (fix_at (&r, i)->flags & RL_GPS_FIX_HAS_DATE);
      g_assert_false (fix_at (&r, i)->flags & RL_GPS_FIX_DATE_INFERRED);
    }
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2024, 4, 22, 23, 59, 57));
  g_assert_cmpint (fix_at (&r, 2)->time, ==, utc_us (2024, 4, 22, 23, 59, 59));
  g_assert_cmpint (fix_at (&r, 3)->time, ==, utc_us (2024, 4, 23, 0, 0, 0));
  g_assert_cmpint (fix_at (&r, 5)->time, ==, utc_us (2024, 4, 23, 0, 0, 2));
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lat, 45.764, 1e-9);
  /* GST's error of the same epoch */
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->epx, 0.010, 1e-9);
}

/* ZDA dates as carefully as RMC: a ZDA stamped apart from the GGAs still
 * dates them; one behind them is skipped as saying nothing new; bad day,
 * month or year fields are counted by reason, and the GGA of that time is
 * still a fix (without a date). */
static void
test_zda (void)
{
  {
    g_auto (Result) r = { 0 };
    const char *log[] = {
      "GPZDA,101459.00,14,06,2024,00,00",
      "GPGGA,101500.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPGGA,101501.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPZDA,101500.50,14,06,2024,00,00",
      "GPGGA,101502.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      NULL,
    };
    parse_bodies (&r, log);
    g_assert_cmpuint (r.fixes->len, ==, 3);
    g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
    g_assert_cmpuint (r.stats.ignored, ==, 1);
    g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_PARTIAL);
    g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2024, 6, 14, 10, 15, 0));
    g_assert_cmpint (fix_at (&r, 2)->time, ==, utc_us (2024, 6, 14, 10, 15, 2));
  }
  {
    g_auto (Result) r = { 0 };
    const char *log[] = {
      "GPGGA,101500.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPZDA,101500.00,14,13,2024,00,00",
      "GPGGA,101501.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPZDA,101501.00,14,6,2024,00,00",
      "GPGGA,101502.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPZDA,101502.00,14,06,24,00,00",
      "GPGGA,101503.00,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPZDA,1015,14,06,2024,00,00",
      "GPZDA,101503.00,14,06",
      "GPZDA,101503.00,30,02,2024,00,00",
      "GPZDA,101503.00,01,01,1969,00,00",
      NULL,
    };
    parse_bodies (&r, log);
    g_assert_cmpuint (r.fixes->len, ==, 4);
    g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_NONE);
    g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_BAD_VALUE], ==, 3);
    g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 4);
    g_assert_cmpuint (r.stats.first_reject_line, ==, 2);
    g_assert_false (fix_at (&r, 3)->flags & RL_GPS_FIX_HAS_DATE);
  }
}

static void
test_gga_only_time_of_day (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GPGGA,101500.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    "GPGGA,101501.00,4833.001,N,00745.001,E,1,08,1.2,150.0,M,48.0,M,,",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 2);
  g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_NONE);
  g_assert_false (fix_at (&r, 0)->flags & RL_GPS_FIX_HAS_DATE);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, (gint64) (10 * 3600 + 15 * 60) * G_USEC_PER_SEC);
  g_assert_cmpint (fix_at (&r, 0)->day, ==, 0);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lat, 48.55, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lon, 7.75, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 1)->hdop, 1.2, 1e-9);
  g_assert_cmpint (rl_gps_fix_absolute_time (fix_at (&r, 1), utc_us (2024, 5, 1, 0, 0, 0)), ==,
                   utc_us (2024, 5, 1, 10, 15, 1));
}

static void
test_day_rollover (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GNGGA,235958.00,4833.000,N,00745.000,E,1,08,1.0,150.0,M,48.0,M,,",
    "GNGGA,235959.00,4833.000,N,00745.000,E,1,08,1.0,150.0,M,48.0,M,,",
    "GNGGA,000000.00,4833.000,N,00745.000,E,1,08,1.0,150.0,M,48.0,M,,",
    /* RMC on the new day dates every epoch, those before it too */
    "GNRMC,000001.00,A,4833.000,N,00745.000,E,0.0,,010324,,,A",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 4);
  g_assert_cmpint (r.stats.date_source, ==, RL_GPS_DATE_PARTIAL);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2024, 2, 29, 23, 59, 58));
  g_assert_true (fix_at (&r, 0)->flags & RL_GPS_FIX_DATE_INFERRED);
  g_assert_cmpint (fix_at (&r, 2)->time, ==, utc_us (2024, 3, 1, 0, 0, 0));
  g_assert_cmpint (fix_at (&r, 3)->time, ==, utc_us (2024, 3, 1, 0, 0, 1));
  g_assert_false (fix_at (&r, 3)->flags & RL_GPS_FIX_DATE_INFERRED);
}

/* u-blox across the leap second of 2016-12-31: 23:59:59, 23:59:60,
 * 00:00:00 of 2017-01-01, 00:00:01.  23:59:60 was read as the next day's
 * 00:00:00, and the true 00:00:00 epoch was then rejected as "earlier
 * than the fix before it".  Now the leap second is the last millisecond
 * of its day, and every epoch is kept in order; so with GGA alone, where
 * the day is counted from the rollover. */
static void
test_leap_second (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("leap-second-2016.nmea", &len);

  parse (&r, data, len);
  g_assert_cmpuint (r.fixes->len, ==, 4);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2016, 12, 31, 23, 59, 59));
  g_assert_cmpint (fix_at (&r, 1)->time, ==, utc_us (2016, 12, 31, 23, 59, 59) + 999000);
  g_assert_cmpint (fix_at (&r, 2)->time, ==, utc_us (2017, 1, 1, 0, 0, 0));
  g_assert_cmpint (fix_at (&r, 3)->time, ==, utc_us (2017, 1, 1, 0, 0, 1));
  {
    g_auto (Result) g = { 0 };
    const char *log[] = {
      "GNGGA,235959.00,4025.008,N,00342.228,W,1,08,1.0,650.0,M,50.0,M,,",
      "GNGGA,235960.00,4025.008,N,00342.228,W,1,08,1.0,650.0,M,50.0,M,,",
      "GNGGA,235960.50,4025.008,N,00342.228,W,1,08,1.0,650.0,M,50.0,M,,",
      "GNGGA,000000.00,4025.008,N,00342.228,W,1,08,1.0,650.0,M,50.0,M,,",
      NULL,
    };
    parse_bodies (&g, log);
    g_assert_cmpuint (g.fixes->len, ==, 4);
    g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&g.stats), ==, 0);
    g_assert_cmpint (fix_at (&g, 2)->day, ==, 0);
    g_assert_cmpint (fix_at (&g, 2)->time, >, fix_at (&g, 1)->time);
    g_assert_cmpint (fix_at (&g, 2)->time, <, G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC);
    g_assert_cmpint (fix_at (&g, 3)->day, ==, 1);
    g_assert_cmpint (fix_at (&g, 3)->time, ==, 0);
  }
}

static void
test_time_backwards (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
    "GPRMC,120005,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
    "GPRMC,120011,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
    /* a date from the day before: backwards too */
    "GPRMC,120012,A,5130.000,N,00007.000,W,0.0,0.0,140624,,",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 2);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TIME_BACKWARDS], ==, 2);
  g_assert_cmpint (fix_at (&r, 1)->time, ==, utc_us (2024, 6, 15, 12, 0, 11));
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 1)->lon, -(7.0 / 60), 1e-9);
}

/* Where the first rejected record is, and why, for the replay to say: a
 * sentence with a time after its checksum on a line that is no GnssLogger
 * record, a damaged sentence, and an epoch rejected only when the next
 * one comes. */
static void
test_first_reject (void)
{
  {
    g_auto (Result) r = { 0 };
    g_autofree char *rmc = nmea_sentence ("GNRMC,023000.00,A,3352.12800,S,15112.55800,E,0.5,90.0,201123,,,A");
    g_autofree char *log = g_strdup_printf ("# a logger of its own\n"
                                            "\n"
                                            "%.*s,1700447400120\n", (int) strlen (rmc) - 2, rmc);
    parse (&r, log, strlen (log));
    g_assert_cmpuint (r.fixes->len, ==, 0);
    g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 1);
    g_assert_cmpuint (r.stats.first_reject_line, ==, 3);
    g_assert_cmpstr (r.stats.first_reject_why, ==, "text after the checksum");
  }
  {
    g_auto (Result) r = { 0 };
    const char *log[] = {
      "GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
      "!$GPRMC,120011,A,5130.000,N,00007.000,W,0.0,0.0,150624,,*00\r\n",
      "!$GPRMC,120012,A,5130.000,N,00007.000,W,0.0,0.0,150624,,*7G\r\n",
      NULL,
    };
    parse_bodies (&r, log);
    g_assert_cmpuint (r.stats.first_reject_line, ==, 2);
    g_assert_cmpstr (r.stats.first_reject_why, ==, "bad checksum");
  }
  {
    g_auto (Result) r = { 0 };
    const char *log[] = {
      "GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
      "GPGGA,120005,5130.000,N,00007.000,W,1,08,1.0,35.0,M,47.0,M,,",
      "GPRMC,120005,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
      "GPRMC,120011,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
      NULL,
    };
    parse_bodies (&r, log);
    /* the epoch that went back began on line 2 */
    g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TIME_BACKWARDS], ==, 1);
    g_assert_cmpuint (r.stats.first_reject_line, ==, 2);
    g_assert_cmpstr (r.stats.first_reject_why, ==, "earlier than the fix before it");
  }
}

/* Android's GnssLogger export: each sentence in an "NMEA,<sentence>,<unix
 * ms>" record, between Raw, Status, Fix and sensor records.  The time
 * after the checksum made every sentence "text after the checksum" (86 %
 * of the fixes of a drive lost; the sentences whose own CR LF put the time
 * on the next line got through).  Now every sentence is read and counted,
 * the other records are ignored records, and nothing is noise. */
static void
test_gnsslogger (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *data = read_fixture ("gnsslogger-v3.txt", &len);

  parse (&r, data, len);
  g_assert_cmpuint (r.fixes->len, ==, 5);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2024, 5, 18, 9, 0, 0));
  g_assert_cmpint (fix_at (&r, 4)->time, ==, utc_us (2024, 5, 18, 9, 0, 4));
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lat, 48.5745, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->lon, 7.82, 1e-9);
  g_assert_cmpuint (r.stats.gnsslogger, ==, 15);
  /* Raw, Status, Fix, OrientationDeg: five of each */
  g_assert_cmpuint (r.stats.ignored, ==, 20);
  g_assert_cmpuint (r.stats.comments, ==, 15);
  g_assert_cmpuint (r.stats.noise_bytes, ==, 0);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);

  /* what follows the checksum must be the record's time: digits to the
   * line end; anything else is still text after the checksum */
  {
    g_auto (Result) bad = { 0 };
    g_autofree char *rmc = nmea_sentence ("GNRMC,023000.00,A,3352.12800,S,15112.55800,E,0.5,90.0,201123,,,A");
    g_autofree char *log = g_strdup_printf ("NMEA,%.*s,1700447400120x\n"
                                            "NMEA,%.*s,\n"
                                            "NMEA,%.*s;1700447400120\n",
                                            (int) strlen (rmc) - 2, rmc, (int) strlen (rmc) - 2, rmc,
                                            (int) strlen (rmc) - 2, rmc);
    parse (&bad, log, strlen (log));
    g_assert_cmpuint (bad.fixes->len, ==, 0);
    g_assert_cmpuint (bad.stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 3);
    g_assert_cmpstr (bad.stats.first_reject_why, ==, "text after the checksum");
  }
  /* a line of digits after a comma that follows no GnssLogger sentence is noise */
  {
    g_auto (Result) stray = { 0 };
    const char *log = ",1700447400120\n";
    parse (&stray, log, strlen (log));
    g_assert_cmpuint (stray.stats.noise_bytes, ==, 14);
  }
}

/* Lines starting with '#' (a logger's header, a note someone added) are
 * comments, counted apart from noise and never rejected sentences, and a
 * UTF-8 byte order mark (the log saved by an editor on Windows) is no
 * noise either; before, the mark and a comment after it on line 1 were
 * 15 noise bytes. */
static void
test_comments_and_bom (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "!\xef\xbb\xbf# logged by gpsbabel, 2024-06-15\n",
    "GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
    "!  # at the station\r\n",
    "GPRMC,120011,A,5130.000,N,00007.000,W,0.0,0.0,150624,,",
    "!#",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 2);
  g_assert_cmpint (fix_at (&r, 0)->time, ==, utc_us (2024, 6, 15, 12, 0, 10));
  g_assert_cmpuint (r.stats.comments, ==, 3);
  g_assert_cmpuint (r.stats.noise_bytes, ==, 0);
  g_assert_cmpuint (r.stats.records, ==, 2);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
  /* a byte order mark alone before the first sentence */
  {
    g_auto (Result) b = { 0 };
    const char *bom[] = { "!\xef\xbb\xbf", "GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,", NULL };

    parse_bodies (&b, bom);
    g_assert_cmpuint (b.fixes->len, ==, 1);
    g_assert_cmpuint (b.stats.noise_bytes, ==, 0);
    g_assert_cmpuint (b.stats.comments, ==, 0);
  }
  /* a '#' after a sentence on its line is noise, as any other byte there */
  {
    g_auto (Result) n = { 0 };
    const char *mid[] = { "!$GPRMC,120010,A,5130.000,N,00007.000,W,0.0,0.0,150624,,*1D #x\r\n", NULL };

    parse_bodies (&n, mid);
    g_assert_cmpuint (n.stats.comments, ==, 0);
  }
}

static void
test_bad_sentences (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    /* checksum of a different sentence */
    "!$GPGGA,101500.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,*00\r\n",
    /* cut short, no checksum */
    "!$GPGGA,101501.00,4833.000,N,00745\r\n",
    /* latitude 91° */
    "GPGGA,101502.00,9100.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    /* 61 minutes of arc */
    "GPGGA,101503.00,4861.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    /* 25 o'clock */
    "GPGGA,251504.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    /* 31st of February */
    "GPRMC,101505,A,4833.000,N,00745.000,E,0.0,0.0,310224,,",
    /* letters where digits go */
    "GPGGA,101506.00,48x3.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    /* too few fields */
    "GPGGA,101507.00,4833.000,N",
    /* quality 0: no fix */
    "GPGGA,101508.00,,,,,0,00,99.9,,M,,M,,",
    /* status V */
    "GPRMC,101509,V,,,,,,,150624,,,N",
    /* GNS: no constellation has a fix */
    "GNGNS,101510.00,4833.000,N,00745.000,E,NNN,00,,,,,,V",
    /* the one good sentence */
    "GPGGA,101511.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    NULL,
  };

  parse_bodies (&r, log);
  /* the three "no fix" sentences are fix-lost events, then the one fix */
  g_assert_cmpuint (r.fixes->len, ==, 4);
  for (guint i = 0; i < 3; i++)
    g_assert_true (rl_gps_fix_is_lost (fix_at (&r, i)));
  /* dated by the RMC of 101509 (a neighbouring epoch) */
  g_assert_cmpint (fix_at (&r, 0)->time % (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC), ==, (gint64) (10 * 3600 + 15 * 60 + 8) * G_USEC_PER_SEC);
  g_assert_false (rl_gps_fix_is_lost (fix_at (&r, 3)));
  g_assert_cmpint (fix_at (&r, 3)->time % (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC), ==, (gint64) (10 * 3600 + 15 * 60 + 11) * G_USEC_PER_SEC);
  g_assert_cmpuint (r.stats.fix_lost, ==, 3);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_BAD_CHECKSUM], ==, 1);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TRUNCATED], ==, 1);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_BAD_VALUE], ==, 4);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 2);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 0);
  g_assert_cmpuint (r.stats.records, ==, 12);
}

static void
test_noise_between_sentences (void)
{
  g_auto (Result) r = { 0 };
  g_autofree char *a = nmea_sentence ("GAGGA,101500.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,");
  g_autofree char *b = nmea_sentence ("GBGGA,101501.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,");
  g_autofree char *c = nmea_sentence ("GLGGA,101502.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,");
  GString *s = g_string_new (NULL);
  static const char ubx[] = { (char) 0xb5, 0x62, 0x01, 0x07, 0x5c, 0x00, '$', (char) 0xff, 0x00, 0x24 };
  g_autofree char *log = NULL;
  gsize len;

  g_string_append_len (s, ubx, sizeof ubx);
  g_string_append (s, a);
  g_string_append_len (s, ubx, sizeof ubx);
  /* noise glued to the front of a sentence on the same line */
  g_string_append (s, b);
  /* a sentence interrupted by binary noise, then a good one */
  g_string_append_len (s, c, 20);
  g_string_append_len (s, ubx, sizeof ubx);
  g_string_append (s, c);
  len = s->len;
  log = g_string_free (s, FALSE);

  parse (&r, log, len);
  g_assert_cmpuint (r.fixes->len, ==, 3);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TRUNCATED], ==, 1);
  g_assert_cmpuint (r.stats.noise_bytes, >=, 3 * sizeof ubx - 6);
}

/* gpsd JSON lines among the NMEA (`gpspipe -r` writes gpsd's banner first
 * and a DEVICE report when a receiver comes or goes) are valid reports,
 * not ours: counted as ignored, not as noise bytes; a '{' line that is
 * not gpsd's stays noise. */
static void
test_gpsd_lines_among_nmea (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "!{\"class\":\"VERSION\",\"release\":\"3.17\",\"proto_major\":3}\n",
    "GNRMC,162000.00,A,4812.49200,N,01622.42800,E,0.012,,050624,,,A,V",
    "!{\"class\":\"DEVICE\",\"path\":\"/dev/ttyACM0\",\"activated\":0}\r\n",
    "GNRMC,162001.00,A,4812.49200,N,01622.42860,E,0.012,,050624,,,A,V",
    "!{\"cls\"}\n",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 2);
  g_assert_cmpuint (r.stats.ignored, ==, 2);
  g_assert_cmpuint (r.stats.records, ==, 4);
  g_assert_cmpuint (r.stats.noise_bytes, ==, 7);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
}

/* `gpspipe -t -r` writes its time before each line it copies (gpsd's
 * banner and the receiver's sentences): taken off and counted, not noise. */
static void
test_gpspipe_time (void)
{
  g_auto (Result) r = { 0 };
  gsize len;
  g_autofree char *raw = read_fixture ("gpspipe-r.nmea", &len);
  g_auto (GStrv) lines = g_strsplit (raw, "\n", -1);
  g_autoptr (GString) log = g_string_new (NULL);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      {
        g_string_append_printf (log, "2024-06-05 16:20:%02u.%06u: %s\n", i / 6, 1000 * i, lines[i]);
        n++;
      }
  parse (&r, log->str, log->len);
  g_assert_cmpuint (r.fixes->len, ==, 5);
  g_assert_cmpuint (r.stats.timestamped, ==, n);
  /* gpsd's VERSION, DEVICES and WATCH */
  g_assert_cmpuint (r.stats.ignored, ==, 3);
  g_assert_cmpuint (r.stats.noise_bytes, ==, 0);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
}

static void
test_accuracy_sentences (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "GPGGA,101500.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,",
    "GNGSA,A,3,01,02,03,04,,,,,,,,,2.0,0.9,1.8",
    "GPGST,101500.00,1.2,3.0,2.0,45.0,2.5,1.5,4.0",
    "GPGLL,4833.100,N,00745.100,E,101501.00,A,A",
    /* GSA says no fix for this epoch */
    "GPGLL,4833.200,N,00745.200,E,101502.00,A,A",
    "GPGSA,A,1,,,,,,,,,,,,,,,",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 3);
  g_assert_cmpint (fix_at (&r, 0)->mode, ==, 3);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->hdop, 0.9, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->epy, 2.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (fix_at (&r, 0)->epx, 1.5, 1e-9);
  g_assert_true (isnan (fix_at (&r, 1)->hdop));
  g_assert_cmpint (fix_at (&r, 1)->mode, ==, 2);
  /* GSA mode 1: the fix was lost at 10:15:02 */
  g_assert_true (rl_gps_fix_is_lost (fix_at (&r, 2)));
  g_assert_cmpuint (r.stats.fix_lost, ==, 1);
  g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 0);
}

static void
test_every_byte_damaged (void)
{
  /* One control byte, '$', '*' or high byte at each position of a good
   * sentence: never a fix with other numbers, always counted. */
  g_autofree char *good = nmea_sentence ("GNGGA,101500.00,4833.12345,N,00745.54321,E,1,08,1.2,150.0,M,48.0,M,,");
  const char bad_bytes[] = { 0x01, '$', '*', (char) 0x9b, 0x7f, '\n' };
  gsize len = strlen (good) - 2;   /* without CR LF */

  for (gsize pos = 1; pos < len; pos++)
    for (guint b = 0; b < G_N_ELEMENTS (bad_bytes); b++)
      {
        g_auto (Result) r = { 0 };
        g_autofree char *copy = g_strdup (good);

        if (copy[pos] == bad_bytes[b])
          continue;   /* the '*' itself */
        copy[pos] = bad_bytes[b];
        parse (&r, copy, strlen (good));
        if (r.fixes->len == 1)
          {
            /* only possible when the damage hit the checksum digits in a way
             * that still reads as the right sum: impossible here */
            g_error ("damaged byte %u at %" G_GSIZE_FORMAT " gave a fix", (guint) (guchar) bad_bytes[b], pos);
          }
        /* a damaged address makes the rest noise; anything else is a counted reject */
        if (rl_gps_parse_stats_rejected_total (&r.stats) == 0 && r.stats.noise_bytes == 0)
          g_error ("damaged byte %u at %" G_GSIZE_FORMAT " went uncounted", (guint) (guchar) bad_bytes[b], pos);
      }
}

static void
test_sniff (void)
{
  gsize len;
  g_autofree char *ublox = read_fixture ("ublox-8.log", &len);
  g_autofree char *gpx = read_fixture ("cerknicko-jezero.gpx", NULL);

  g_assert_true (rl_nmea_sniff (ublox, len));
  g_assert_false (rl_nmea_sniff (gpx, strlen (gpx)));
  g_assert_false (rl_nmea_sniff ("", 0));
  g_assert_false (rl_nmea_sniff ("$GPGGA,1", 8));
  {
    /* whole lines of sentences without checksums are NMEA (each is then
     * rejected); one such line, or one cut off, is not enough */
    const char *bare = "$GPGGA,101500.00,4833.000,N,00745.000,E,1,08,1.2,150.0,M,48.0,M,,\r\n"
                       "$GPRMC,101500.00,A,4833.000,N,00745.000,E,0.0,0.0,180524,,,A\r\n"
                       "$GPGSA,A,3,09,11,12,15,24,28,30,31,,,,,1.6,1.0,1.3\r\n";
    g_auto (Result) r = { 0 };
    g_assert_true (rl_nmea_sniff (bare, strlen (bare)));
    g_assert_false (rl_nmea_sniff (bare, strlen (bare) - 1));
    g_assert_false (rl_nmea_sniff (strchr (bare, '\n') + 1, strlen (strchr (bare, '\n') + 1)));
    parse (&r, bare, strlen (bare));
    g_assert_cmpuint (r.fixes->len, ==, 0);
    g_assert_cmpuint (r.stats.rejected[RL_GPS_REJECT_TRUNCATED], ==, 3);
  }
}

/* RMC and GLL say by their mode letter whether the position is a fix: a
 * simulator (S), a position typed in (M) or dead reckoning (E) is none;
 * differential (D) and RTK (R) are. */
static void
test_mode_indicator (void)
{
  static const struct {
    const char *body;
    gboolean fix;
  } cases[] = {
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,A", TRUE },
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,D", TRUE },
    { "GNRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,R,V", TRUE },
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,", TRUE },
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,S", FALSE },
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,M", FALSE },
    { "GPRMC,081500.00,A,5046.400,N,00605.100,E,0.0,0.0,020324,,,E", FALSE },
    { "GPGLL,5046.400,N,00605.100,E,081500.00,A,S", FALSE },
    { "GPGLL,5046.400,N,00605.100,E,081500.00,A,D", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Result) r = { 0 };
      const char *log[] = { cases[i].body, NULL };

      g_test_message ("%s", cases[i].body);
      parse_bodies (&r, log);
      g_assert_cmpuint (r.fixes->len, ==, 1);
      g_assert_true (rl_gps_fix_is_lost (fix_at (&r, 0)) != cases[i].fix);
      g_assert_true (isnan (fix_at (&r, 0)->lat) != cases[i].fix);
    }
}

/* Proprietary sentences of any length (u-blox PUBX, MediaTek PMTK001,
 * Garmin PGRME) are sentences we do not read, not noise. */
static void
test_proprietary (void)
{
  g_auto (Result) r = { 0 };
  const char *log[] = {
    "PUBX,00,101500.00,4833.00000,N,00745.00000,E,150.0,G3,2.1,2.0,0.007,77.52,0.007,,0.92,1.19,0.77,9,0,0",
    "PMTK001,314,3",
    "PGRME,15.0,M,45.0,M,25.0,M",
    "GPRMC,101500.00,A,4833.000,N,00745.000,E,0.0,0.0,180524,,,A",
    NULL,
  };

  parse_bodies (&r, log);
  g_assert_cmpuint (r.fixes->len, ==, 1);
  g_assert_cmpuint (r.stats.ignored, ==, 3);
  g_assert_cmpuint (r.stats.noise_bytes, ==, 0);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&r.stats), ==, 0);
}

static void
test_garbage_never_crashes (void)
{
  /* Every prefix of a real log and a stream of random bytes: all counted, no fix invented. */
  gsize len;
  g_autofree char *data = read_fixture ("quectel-eg25-g-2.log", &len);
  g_autoptr (GRand) rand = g_rand_new_with_seed (4);
  g_autofree char *noise = g_malloc (65536);

  for (gsize n = 0; n <= len; n += 7)
    {
      g_auto (Result) r = { 0 };
      parse (&r, data, n);
      g_assert_cmpuint (r.fixes->len, <=, 3);
    }
  for (gsize i = 0; i < 65536; i++)
    noise[i] = "$GPGA,0123456789.*NSEW\r\n"[g_rand_int_range (rand, 0, 24)];
  {
    g_auto (Result) r = { 0 };
    parse (&r, noise, 65536);
    g_assert_cmpuint (r.fixes->len, ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nmea/sample/mt3339", test_sample_mt3339);
  g_test_add_func ("/nmea/sample/ublox-8", test_sample_ublox);
  g_test_add_func ("/nmea/sample/quectel-eg25-g", test_sample_quectel);
  g_test_add_func ("/nmea/sample/gga-zda-midnight", test_sample_gga_zda);
  g_test_add_func ("/nmea/zda", test_zda);
  g_test_add_func ("/nmea/gga-only", test_gga_only_time_of_day);
  g_test_add_func ("/nmea/day-rollover", test_day_rollover);
  g_test_add_func ("/nmea/time-backwards", test_time_backwards);
  g_test_add_func ("/nmea/leap-second", test_leap_second);
  g_test_add_func ("/nmea/bad-sentences", test_bad_sentences);
  g_test_add_func ("/nmea/first-reject", test_first_reject);
  g_test_add_func ("/nmea/gnsslogger", test_gnsslogger);
  g_test_add_func ("/nmea/altitude-speed", test_altitude_speed);
  g_test_add_func ("/nmea/fix-lost", test_fix_lost);
  g_test_add_func ("/nmea/noise", test_noise_between_sentences);
  g_test_add_func ("/nmea/gpsd-lines", test_gpsd_lines_among_nmea);
  g_test_add_func ("/nmea/gpspipe-time", test_gpspipe_time);
  g_test_add_func ("/nmea/accuracy", test_accuracy_sentences);
  g_test_add_func ("/nmea/every-byte-damaged", test_every_byte_damaged);
  g_test_add_func ("/nmea/sniff", test_sniff);
  g_test_add_func ("/nmea/comments-and-bom", test_comments_and_bom);
  g_test_add_func ("/nmea/proprietary", test_proprietary);
  g_test_add_func ("/nmea/mode-indicator", test_mode_indicator);
  g_test_add_func ("/nmea/garbage", test_garbage_never_crashes);
  return g_test_run ();
}
