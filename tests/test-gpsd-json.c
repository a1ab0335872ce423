/* gpsd JSON reader: a log captured with gpspipe -w from gpsd 3.22, and damaged lines. */
#include <math.h>
#include "readers/gpsd-json.h"
#include "readers/gpspipe-time.h"
#include "tests/gps-test-util.h"

static GArray *
parse (const char *data, gsize len, RlGpsParseStats *stats)
{
  GArray *fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  rl_gpsd_json_parse (data, len, fixes, stats);
  return fixes;
}

static void
test_captured (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("mt3339.gpsd.jsonl", &len);
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (data, len, &stats);
  const RlGpsFix *f;

  g_assert_cmpuint (stats.records, ==, 39);
  g_assert_cmpuint (fixes->len, ==, 28);
  /* VERSION, DEVICES, WATCH, DEVICE ×2 and the SKY reports */
  g_assert_cmpuint (stats.ignored, ==, 11);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 0);
  f = &g_array_index (fixes, RlGpsFix, 0);
  /* gpsd 3.22 dated this 2015 log by its GPS week-rollover rule: 2034 */
  g_assert_cmpint (f->time, ==, utc_us (2034, 11, 27, 20, 26, 42));
  g_assert_cmpint (f->mode, ==, 2);
  g_assert_true (isnan (f->eph));
  f = &g_array_index (fixes, RlGpsFix, 1);
  g_assert_cmpint (f->mode, ==, 3);
  g_assert_cmpfloat_with_epsilon (f->eph, 3.99, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->epx, 1.919, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->epy, 2.470, 1e-9);
  /* HDOP from the SKY report before it */
  g_assert_cmpfloat_with_epsilon (f->hdop, 0.84, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->lat, 44.068841667, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->lon, -121.314191667, 1e-9);
}

/* gpsd up to 3.3 wrote TPV "time" as seconds since the epoch.  Such
 * reports were rejected as "a position without a time"; now the time is
 * read, to the µs, and a number that is no time from 1970 to 9999 is a
 * counted bad value that says so. */
static void
test_numeric_time (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("gpsd-2.96-numeric-time.gpsd.jsonl", &len);
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (data, len, &stats);
  const char *bad =
    "{\"class\":\"TPV\",\"mode\":3,\"time\":-1.5,\"lat\":38.9,\"lon\":-77.3}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":0,\"lat\":38.9,\"lon\":-77.3}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":1e308,\"lat\":38.9,\"lon\":-77.3}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":253402300800,\"lat\":38.9,\"lon\":-77.3}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":NaN,\"lat\":38.9,\"lon\":-77.3}\n"
    "{\"class\":\"TPV\",\"mode\":1,\"time\":1253334490}\n";
  RlGpsParseStats bad_stats;
  g_autoptr (GArray) bad_fixes = parse (bad, strlen (bad), &bad_stats);

  g_assert_cmpuint (fixes->len, ==, 5);
  g_assert_cmpuint (stats.ignored, ==, 1);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 0);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).time, ==, utc_us (2009, 9, 19, 4, 28, 0) + 119000);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 4).time, ==, utc_us (2009, 9, 19, 4, 28, 4) + 119000);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 0).epx, 750.0, 1e-9);

  /* a lost fix with a numeric time is an event; the rest are counted */
  g_assert_cmpuint (bad_fixes->len, ==, 1);
  g_assert_true (rl_gps_fix_is_lost (&g_array_index (bad_fixes, RlGpsFix, 0)));
  g_assert_cmpuint (bad_stats.rejected[RL_GPS_REJECT_BAD_VALUE], ==, 4);
  g_assert_cmpuint (bad_stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 1);
  g_assert_cmpuint (bad_stats.rejected[RL_GPS_REJECT_NO_TIME], ==, 0);
  g_assert_cmpuint (bad_stats.first_reject_line, ==, 1);
  g_assert_cmpstr (bad_stats.first_reject_why, ==, "a numeric \"time\" (gpsd up to 3.3) not from 1970 to 9999");
}

static void
test_bad_lines (void)
{
  const char *log =
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-01T10:00:00.000Z\",\"lat\":48.5,\"lon\":7.7,\"eph\":6.0}\n"
    "not json at all\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-01T10:00:01.000Z\",\"lat\":48.5,\n"
    "{\"class\":\"TPV\",\"mode\":1,\"time\":\"2024-06-01T10:00:02.000Z\"}\n"
    "{\"class\":\"TPV\",\"mode\":2,\"lat\":48.5,\"lon\":7.7}\n"
    "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2024-06-01T10:00:03.000Z\",\"lat\":91.0,\"lon\":7.7}\n"
    "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2024-06-01T09:59:00.000Z\",\"lat\":48.5,\"lon\":7.7}\n"
    "{\"mode\":2}\n"
    "{\"class\":{\"TPV\":1},\"time\":[1],\"mode\":\"3\"}\n"
    /* cut off and glued to the next report (hangs libgps 3.22's gps_unpack) */
    "{\"class\":\"SKY\",\"hdop\":0.98,\"satellites\":[{\"PRN\":9,\"used\":tr{\"class\":\"VERSION\",\"release\":\"3.22\"}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":{\"a\":1},\"lat\":\"48\",\"lon\":7.7}\n"
    "\r\n"
    "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2024-06-01T10:00:04.000Z\",\"lat\":-33.9,\"lon\":151.2}";
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (log, strlen (log), &stats);

  /* mode 1 with a time is a fix-lost event */
  g_assert_cmpuint (fixes->len, ==, 3);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).time, ==, utc_us (2024, 6, 1, 10, 0, 0));
  g_assert_true (rl_gps_fix_is_lost (&g_array_index (fixes, RlGpsFix, 1)));
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 1).time, ==, utc_us (2024, 6, 1, 10, 0, 2));
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 2).lat, -33.9, 1e-9);
  g_assert_cmpuint (stats.fix_lost, ==, 1);
  g_assert_cmpuint (stats.records, ==, 12);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 4);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_TRUNCATED], ==, 1);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 0);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_NO_TIME], ==, 2);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_BAD_VALUE], ==, 1);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_TIME_BACKWARDS], ==, 1);
  /* for the replay's note: where the first one is, and why */
  g_assert_cmpuint (stats.first_reject_line, ==, 2);
  g_assert_cmpstr (stats.first_reject_why, ==, "the line does not start with '{'");
}

/* gpsd 3.22 on a flight: altMSL and speed (m/s); an older gpsd's "alt";
 * a TPV without any error field; then mode 1 (the fix is lost). */
static void
test_altitude_speed_lost (void)
{
  const char *log =
    "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":3,\"time\":\"2024-06-15T10:15:00.000Z\","
    "\"ept\":0.005,\"lat\":50.052050,\"lon\":8.576117,\"altHAE\":10715.500,\"altMSL\":10668.000,"
    "\"epx\":4.1,\"epy\":5.2,\"epv\":11.0,\"track\":95.3,\"speed\":236.111,\"climb\":0.0}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-15T10:15:01.000Z\",\"lat\":50.05200,\"lon\":8.5800,"
    "\"alt\":10670.0,\"speed\":236.0}\n"
    "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2024-06-15T10:15:02.000Z\",\"lat\":50.05195,\"lon\":8.5833}\n"
    "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":1,\"time\":\"2024-06-15T10:15:03.000Z\"}\n"
    "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":1}\n";
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (log, strlen (log), &stats);
  const RlGpsFix *f;

  g_assert_cmpuint (fixes->len, ==, 4);
  f = &g_array_index (fixes, RlGpsFix, 0);
  g_assert_cmpfloat_with_epsilon (f->altitude_m, 10668.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->speed_mps, 236.111, 1e-9);
  f = &g_array_index (fixes, RlGpsFix, 1);
  g_assert_cmpfloat_with_epsilon (f->altitude_m, 10670.0, 1e-9);
  f = &g_array_index (fixes, RlGpsFix, 2);
  /* 2D: no altitude; nothing about the error either */
  g_assert_true (isnan (f->altitude_m) && isnan (f->speed_mps));
  g_assert_true (isnan (f->eph) && isnan (f->epx) && isnan (f->hdop));
  f = &g_array_index (fixes, RlGpsFix, 3);
  g_assert_true (rl_gps_fix_is_lost (f));
  g_assert_cmpint (f->time, ==, utc_us (2024, 6, 15, 10, 15, 3));
  g_assert_cmpuint (stats.fix_lost, ==, 1);
  /* mode 1 without a time says when nothing: rejected as before */
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 1);
}

/* gpsd's "status": a position it did not measure (5 dead reckoning, 7
 * time only: surveyed in or typed, 8 simulated) is no fix but the word
 * that the fix is lost; DGPS (2), RTK (3) and GNSS with dead reckoning
 * (6) are fixes. */
static void
test_status (void)
{
  const char *log =
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-15T10:15:00.000Z\",\"lat\":50.0520,\"lon\":8.5761,\"eph\":5.0}\n"
    "{\"class\":\"TPV\",\"status\":2,\"mode\":3,\"time\":\"2024-06-15T10:15:01.000Z\",\"lat\":50.0520,\"lon\":8.5762}\n"
    "{\"class\":\"TPV\",\"status\":5,\"mode\":3,\"time\":\"2024-06-15T10:15:02.000Z\",\"lat\":50.0520,\"lon\":8.5763}\n"
    "{\"class\":\"TPV\",\"status\":6,\"mode\":3,\"time\":\"2024-06-15T10:15:03.000Z\",\"lat\":50.0520,\"lon\":8.5764}\n"
    "{\"class\":\"TPV\",\"status\":8,\"mode\":3,\"time\":\"2024-06-15T10:15:04.000Z\",\"lat\":48.8566,\"lon\":2.3522}\n"
    "{\"class\":\"TPV\",\"status\":7,\"mode\":2,\"time\":\"2024-06-15T10:15:05.000Z\",\"lat\":48.8566,\"lon\":2.3522}\n"
    "{\"class\":\"TPV\",\"status\":3,\"mode\":3,\"time\":\"2024-06-15T10:15:06.000Z\",\"lat\":50.0520,\"lon\":8.5765}\n";
  static const gboolean lost[] = { FALSE, FALSE, TRUE, FALSE, TRUE, TRUE, FALSE };
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (log, strlen (log), &stats);

  g_assert_cmpuint (fixes->len, ==, G_N_ELEMENTS (lost));
  for (guint i = 0; i < fixes->len; i++)
    {
      const RlGpsFix *f = &g_array_index (fixes, RlGpsFix, i);
      g_assert_true (rl_gps_fix_is_lost (f) == lost[i]);
      g_assert_true (isnan (f->lat) == lost[i]);
    }
  g_assert_cmpuint (stats.fix_lost, ==, 3);
}

static void
test_sniff (void)
{
  gsize len;
  g_autofree char *json = read_fixture ("mt3339.gpsd.jsonl", &len);
  g_autofree char *nmea = read_fixture ("mt3339.log", NULL);

  g_assert_true (rl_gpsd_json_sniff (json, len));
  g_assert_false (rl_gpsd_json_sniff (nmea, strlen (nmea)));
  g_assert_false (rl_gpsd_json_sniff ("{}", 2));
}

/* `gpspipe -r` copies gpsd's socket as it is: its banner (VERSION, and
 * the DEVICES and WATCH answers) comes before the NMEA.  Sniffing the
 * first line called such a log gpsd JSON, and it gave no fix; now the
 * first line past the banner decides, and the banner alone is gpsd's. */
static void
test_sniff_past_banner (void)
{
  gsize len;
  g_autofree char *raw = read_fixture ("gpspipe-r.nmea", &len);
  const char *banner = "{\"class\":\"VERSION\",\"release\":\"3.25\"}\n"
                       "# gpspipe -w\n"
                       "{\"class\":\"DEVICES\",\"devices\":[]}\n"
                       "{\"class\":\"WATCH\",\"enable\":true}\n"
                       "{\"class\":\"DEVICE\",\"path\":\"/dev/ttyACM0\",\"activated\":0}\n";
  g_autofree char *with_tpv = g_strconcat (banner, "{\"class\":\"TPV\",\"mode\":1}\n", NULL);
  g_autofree char *with_nmea = g_strconcat (banner, "$GPGGA,,,,,,0,,,,,,,,*66\n", NULL);

  g_assert_false (rl_gpsd_json_sniff (raw, len));
  /* the three banner lines, up to the first '$' */
  g_assert_cmpuint (rl_gpsd_json_banner_length (raw, len), ==, 474);
  g_assert_cmpint (raw[474], ==, '$');
  g_assert_true (rl_gpsd_json_sniff (banner, strlen (banner)));
  g_assert_cmpuint (rl_gpsd_json_banner_length (banner, strlen (banner)), ==, strlen (banner));
  g_assert_true (rl_gpsd_json_sniff (with_tpv, strlen (with_tpv)));
  g_assert_false (rl_gpsd_json_sniff (with_nmea, strlen (with_nmea)));
  /* a class name that only begins like a banner's is a report */
  g_assert_cmpuint (rl_gpsd_json_banner_length ("{\"class\":\"VERSIONS\"}\n", 21), ==, 0);
}

/* A log saved by an editor that writes a UTF-8 byte order mark, with a
 * note written on top: recognised as gpsd JSON, the BOM passed over and
 * the '#' lines counted as comments, not rejected as malformed records. */
static void
test_bom_and_comments (void)
{
  const char *log =
    "\xef\xbb\xbf# gpspipe -w, Budapest, 2024-09-03\n"
    "\n"
    "  # receiver on the dashboard\n"
    "{\"class\":\"WATCH\",\"enable\":true,\"json\":true}\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-09-03T06:15:00.000Z\",\"lat\":47.4979,\"lon\":19.0402}\n"
    "# moved to the back seat\n"
    "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-09-03T06:15:01.000Z\",\"lat\":47.4979,\"lon\":19.0403}\n";
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (log, strlen (log), &stats);

  g_assert_true (rl_gpsd_json_sniff (log, strlen (log)));
  g_assert_cmpuint (fixes->len, ==, 2);
  g_assert_cmpuint (stats.records, ==, 3);
  g_assert_cmpuint (stats.ignored, ==, 1);
  g_assert_cmpuint (stats.comments, ==, 3);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 0);
  /* comments alone, or before NMEA, are no gpsd log */
  {
    const char *comments = "# nothing yet\n", *nmea = "\xef\xbb\xbf# log\n$GPGGA,,,,,,0,,,,,,,,*66\n";
    g_assert_false (rl_gpsd_json_sniff (comments, strlen (comments)));
    g_assert_false (rl_gpsd_json_sniff (nmea, strlen (nmea)));
  }
}

/* gpsd's ERROR reports are kept (the first few, made printable) for the
 * replay to show: they say why a log has no fix. */
static void
test_error_reports (void)
{
  g_autoptr (GString) log = g_string_new ("{\"class\":\"VERSION\",\"release\":\"3.25\"}\n"
                                          "{\"class\":\"ERROR\",\"message\":\"Can't open /dev/ttyUSB0: "
                                          "Permission denied\"}\n"
                                          "{\"class\":\"ERROR\",\"message\":\"\\u001b[2Jgone\"}\n"
                                          "{\"class\":\"ERROR\"}\n");
  g_autoptr (RlGpsdJsonReader) r = NULL;
  RlGpsFix fix;
  guint64 line = 0;
  const char *text;

  for (guint i = 0; i < 3; i++)
    g_string_append_printf (log, "{\"class\":\"ERROR\",\"message\":\"%0300d\"}\n", i);
  r = rl_gpsd_json_reader_new (log->str, log->len);
  while (rl_gpsd_json_reader_next (r, &fix))
    g_assert_not_reached ();
  g_assert_cmpuint (rl_gpsd_json_reader_n_errors (r), ==, 6);
  g_assert_cmpuint (rl_gpsd_json_reader_stats (r)->ignored, ==, 7);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (rl_gpsd_json_reader_stats (r)), ==, 0);
  text = rl_gpsd_json_reader_error (r, 0, &line);
  g_assert_cmpstr (text, ==, "Can't open /dev/ttyUSB0: Permission denied");
  g_assert_cmpuint (line, ==, 2);
  /* an escape sequence is not passed on to a terminal */
  g_assert_cmpstr (rl_gpsd_json_reader_error (r, 1, &line), ==, "?[2Jgone");
  g_assert_cmpuint (line, ==, 3);
  g_assert_cmpstr (rl_gpsd_json_reader_error (r, 2, &line), ==, "(no message)");
  g_assert_null (rl_gpsd_json_reader_error (r, 3, &line));
  /* and a long message is cut */
  rl_gpsd_json_reader_free (g_steal_pointer (&r));
  g_string_printf (log, "{\"class\":\"ERROR\",\"message\":\"%0300d\"}\n", 7);
  r = rl_gpsd_json_reader_new (log->str, log->len);
  while (rl_gpsd_json_reader_next (r, &fix))
    g_assert_not_reached ();
  text = rl_gpsd_json_reader_error (r, 0, NULL);
  g_assert_nonnull (text);
  g_assert_cmpuint (strlen (text), ==, 160 + 3);
  g_assert_true (g_str_has_suffix (text, "..."));
}

/* `gpspipe -t -w` writes its time before each line (gpsd 3.22's
 * gpspipe: strftime "%F %T", then ": "; -u adds the µs, -uu the seconds
 * since 1970, -Z a 'T' and a 'Z').  Such a log was "not NMEA 0183, gpsd
 * JSON or GPX" and, forced, every line was rejected; now the time is taken
 * off, counted, and the report read. */
static void
test_gpspipe_time (void)
{
  static const struct {
    const char *prefix;
    gsize len;   /* 0: not gpspipe's */
  } cases[] = {
    { "2025-10-04 10:59:59: ", 21 },                       /* -t */
    { "2025-10-04 10:59:59.123456: ", 28 },                /* -u */
    { "2025-10-04 10:59:59 1759575599.123456: ", 39 },     /* -uu */
    { "2025-10-04T10:59:59: ", 21 },                       /* -Z */
    { "2025-10-04T10:59:59.12345Z: ", 28 },                /* -Zu, its last digit a 'Z' */
    { "2025-10-04T10:59:59Z 1759575599.123456: ", 40 },    /* -Zuu */
    { "10:59:59: ", 0 },
    { "2025-10-04 10:59:59 ", 0 },
    { "2025-10-04 10:59:59.1234567: ", 0 },
    { "2025-10-04 10:59:59 1759575599: ", 0 },
    { "2025-10-4 10:59:59: ", 0 },
    { "Sat Oct  4 10:59:59 2025: ", 0 },                   /* -T of one's own */
  };
  gsize len;
  g_autofree char *data = read_fixture ("gpspipe-t.gpsd.jsonl", &len);
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse (data, len, &stats);
  gsize banner_end = 0;

  g_assert_true (rl_gpsd_json_sniff (data, len));
  g_assert_cmpuint (fixes->len, ==, 5);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).time, ==, utc_us (2025, 10, 4, 9, 0, 0));
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 0).lat, 47.5476, 1e-9);
  /* HDOP from the SKY report before it */
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 1).hdop, 0.98, 1e-9);
  g_assert_cmpuint (stats.timestamped, ==, 13);
  g_assert_cmpuint (stats.ignored, ==, 8);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 0);
  /* gpsd's banner after the time is still only the banner: its three
   * lines, up to the first TPV's */
  for (guint lines = 0; lines < 3; banner_end++)
    if (data[banner_end] == '\n')
      lines++;
  g_assert_cmpuint (rl_gpsd_json_banner_length (data, len), ==, banner_end);
  g_assert_true (g_str_has_prefix (data + banner_end, "2025-10-04 09:00:00: {\"class\":\"TPV\""));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = g_strconcat (cases[i].prefix, "{\"class\":\"TPV\",\"mode\":3,"
                                           "\"time\":\"2025-10-04T09:00:00.000Z\",\"lat\":47.5476,\"lon\":7.5896}\n", NULL);
      RlGpsParseStats one;
      g_autoptr (GArray) got = parse (line, strlen (line), &one);

      g_test_message ("prefix '%s'", cases[i].prefix);
      g_assert_cmpuint (rl_gpspipe_time_length (line, strlen (line)), ==, cases[i].len);
      g_assert_cmpint (rl_gpsd_json_sniff (line, strlen (line)), ==, cases[i].len > 0);
      g_assert_cmpuint (got->len, ==, cases[i].len > 0 ? 1 : 0);
      g_assert_cmpuint (one.timestamped, ==, cases[i].len > 0 ? 1 : 0);
      if (cases[i].len == 0)
        g_assert_cmpstr (one.first_reject_why, ==, "the line does not start with '{'");
    }
}

static void
test_prefixes (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("mt3339.gpsd.jsonl", &len);

  for (gsize n = 0; n <= len; n += 13)
    {
      RlGpsParseStats stats;
      g_autoptr (GArray) fixes = parse (data, n, &stats);
      g_assert_cmpuint (fixes->len, <=, 28);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpsd-json/captured", test_captured);
  g_test_add_func ("/gpsd-json/bad-lines", test_bad_lines);
  g_test_add_func ("/gpsd-json/numeric-time", test_numeric_time);
  g_test_add_func ("/gpsd-json/sniff", test_sniff);
  g_test_add_func ("/gpsd-json/sniff-past-banner", test_sniff_past_banner);
  g_test_add_func ("/gpsd-json/status", test_status);
  g_test_add_func ("/gpsd-json/altitude-speed-lost", test_altitude_speed_lost);
  g_test_add_func ("/gpsd-json/prefixes", test_prefixes);
  g_test_add_func ("/gpsd-json/gpspipe-time", test_gpspipe_time);
  g_test_add_func ("/gpsd-json/bom-and-comments", test_bom_and_comments);
  g_test_add_func ("/gpsd-json/error-reports", test_error_reports);
  return g_test_run ();
}
