/* GPX reader: real GPX 1.0 and 1.1 files and broken documents. */
#include <math.h>
#include "readers/gpx.h"
#include "tests/gps-test-util.h"

static GArray *
parse_ok (const char *data, gsize len, RlGpsParseStats *stats)
{
  GArray *fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  g_autoptr (GError) error = NULL;

  g_assert_true (rl_gpx_parse (data, len, fixes, stats, &error));
  g_assert_no_error (error);
  return fixes;
}

static void
test_gpx11_track (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("around-visnjan-with-car.gpx", &len);
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse_ok (data, len, &stats);
  const RlGpsFix *f = &g_array_index (fixes, RlGpsFix, 0);

  /* 104 trkpt; Garmin extensions in the namespace are skipped */
  g_assert_cmpuint (fixes->len, ==, 104);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 0);
  g_assert_cmpint (f->time, ==, utc_us (2020, 12, 18, 6, 15, 50));
  g_assert_cmpfloat_with_epsilon (f->lat, 45.2735188510, 1e-9);
  g_assert_cmpfloat_with_epsilon (f->lon, 13.7142099626, 1e-9);
  g_assert_true (isnan (f->hdop));
}

static void
test_gpx10_waypoints_and_track (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("cerknicko-jezero.gpx", &len);
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse_ok (data, len, &stats);

  /* 7 wpt (the lake's sights, one dated like the track's start) and 296
   * trkpt: only where the receiver went are fixes */
  g_assert_cmpuint (stats.records, ==, 303);
  g_assert_cmpuint (stats.planned, ==, 7);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_NO_TIME], ==, 0);
  g_assert_cmpuint (fixes->len, ==, 296);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).time, ==, utc_us (2010, 8, 5, 14, 23, 59));
  /* the first track point, not the waypoint of the same time */
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 0).lat, 45.772175035, 1e-9);
}

static void
test_points_and_values (void)
{
  const char *doc =
    "<?xml version=\"1.0\"?>\n"
    "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
    "<wpt lat=\"-33.86\" lon=\"151.21\"><time>2024-06-01T09:00:00Z</time><name>Home</name></wpt>"
    "<rte><rtept lat=\"48.60\" lon=\"7.70\"><time>2024-06-01T09:30:00Z</time></rtept></rte>"
    "<trk><trkseg>"
    "<trkpt lat=\"48.58\" lon=\"7.75\"><time>2024-06-01T10:00:00Z</time><hdop>1.5</hdop><fix>3d</fix></trkpt>"
    "<trkpt lat=\"91\" lon=\"7.75\"><time>2024-06-01T10:00:01Z</time></trkpt>"
    "<trkpt lat=\"north\" lon=\"7.75\"><time>2024-06-01T10:00:02Z</time></trkpt>"
    "<trkpt lon=\"7.75\"><time>2024-06-01T10:00:03Z</time></trkpt>"
    "<trkpt lat=\"48.58\" lon=\"7.75\"><time>yesterday</time></trkpt>"
    "<trkpt lat=\"48.58\" lon=\"7.75\"><time>2024-06-01T10:00:05Z</time><fix>none</fix></trkpt>"
    "<trkpt lat=\"48.58\" lon=\"7.76\"><time>2024-06-01T12:00:00+02:00</time>"
    "<extensions><trkpt lat=\"1\" lon=\"1\"><time>2024-06-01T10:00:00Z</time></trkpt></extensions></trkpt>"
    "</trkseg></trk>"
    "</gpx>";
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse_ok (doc, strlen (doc), &stats);

  g_assert_cmpuint (fixes->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 0).hdop, 1.5, 1e-9);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).mode, ==, 3);
  /* <fix>none</fix> at a time: the receiver lost its fix */
  g_assert_true (rl_gps_fix_is_lost (&g_array_index (fixes, RlGpsFix, 1)));
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 1).time, ==, utc_us (2024, 6, 1, 10, 0, 5));
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 2).time, ==, utc_us (2024, 6, 1, 10, 0, 0));
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_BAD_VALUE], ==, 2);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 2);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_NO_FIX], ==, 0);
  g_assert_cmpuint (stats.fix_lost, ==, 1);
  /* the waypoint and the route point were counted, never placed */
  g_assert_cmpuint (stats.planned, ==, 2);
  g_assert_cmpuint (stats.records, ==, 9);
}

/* Where the first rejected point is, and why, for the replay to say, as
 * the NMEA and gpsd readers do: the line of its <trkpt> start tag (where
 * the tag ends, when it runs over several lines). */
static void
test_first_reject (void)
{
  const char *doc =
    "<?xml version=\"1.0\"?>\n"
    "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
    "<trk><trkseg>\n"
    "<trkpt lat=\"48.58\" lon=\"7.75\"><time>2024-06-01T10:00:00Z</time></trkpt>\n"
    "<trkpt lat=\"48.58\"\n"
    "       lon=\"7.75\">\n"
    "  <time>yesterday</time>\n"
    "</trkpt>\n"
    "<trkpt lat=\"91\" lon=\"7.75\"><time>2024-06-01T10:00:02Z</time></trkpt>\n"
    "</trkseg></trk>\n"
    "</gpx>\n";
  const struct {
    const char *point;
    const char *why;
  } cases[] = {
    { "<trkpt lat=\"48.58\" lon=\"7.75\"/>", "a position without a time" },
    { "<trkpt lat=\"48.58\"><time>2024-06-01T10:00:01Z</time></trkpt>", "no lat and lon attributes that are numbers" },
    { "<trkpt lat=\"48.58\" lon=\"east\"><time>2024-06-01T10:00:01Z</time></trkpt>",
      "no lat and lon attributes that are numbers" },
    { "<trkpt lat=\"48.58\" lon=\"181\"><time>2024-06-01T10:00:01Z</time></trkpt>",
      "a latitude beyond 90 or a longitude beyond 180 degrees" },
    { "<trkpt lat=\"48.58\" lon=\"7.75\"><fix>none</fix></trkpt>", "the receiver says it has no fix" },
  };
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse_ok (doc, strlen (doc), &stats);

  /* the point whose start tag runs over lines 5 and 6 (libxml2 says
   * where it ends; its <time> is on line 7) */
  g_assert_cmpuint (fixes->len, ==, 1);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 2);
  g_assert_cmpuint (stats.first_reject_line, ==, 6);
  g_assert_cmpstr (stats.first_reject_why, ==, "a <time> that is not an ISO 8601 time from 1970 on");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *one = g_strdup_printf ("<gpx version=\"1.1\">\n<trk>\n<trkseg>\n%s\n</trkseg></trk></gpx>\n",
                                              cases[i].point);
      g_autoptr (GArray) none = parse_ok (one, strlen (one), &stats);

      g_assert_cmpuint (none->len, ==, 0);
      g_assert_cmpuint (stats.first_reject_line, ==, 4);
      g_assert_cmpstr (stats.first_reject_why, ==, cases[i].why);
    }
}

/* libxml2 keeps an element's line in 16 bits: past line 65534 a rejected
 * point is named without a line rather than at a wrong one. */
static void
test_first_reject_past_65534 (void)
{
  g_autoptr (GString) doc = g_string_new ("<gpx version=\"1.1\">\n<trk><trkseg>\n");
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = NULL;

  for (guint i = 0; i < 66000; i++)
    g_string_append_printf (doc, "<trkpt lat=\"%s\" lon=\"7.75\"><time>2024-06-01T%02u:%02u:%02uZ</time></trkpt>\n",
                            i == 65800 ? "95" : "48.58", i / 3600, i / 60 % 60, i % 60);
  g_string_append (doc, "</trkseg></trk></gpx>\n");
  fixes = parse_ok (doc->str, doc->len, &stats);
  g_assert_cmpuint (fixes->len, ==, 65999);
  g_assert_cmpuint (rl_gps_parse_stats_rejected_total (&stats), ==, 1);
  g_assert_cmpuint (stats.first_reject_line, ==, 0);
  g_assert_nonnull (stats.first_reject_why);
}

/* GPX 1.1 (no <speed>: derived from consecutive points), GPX 1.0 <speed>,
 * <ele>, <pdop> standing in for a missing <hdop>. */
static void
test_ele_speed (void)
{
  const char *doc =
    "<?xml version=\"1.0\"?>\n"
    "<gpx version=\"1.1\" creator=\"OsmAnd\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
    "<trkpt lat=\"50.7760\" lon=\"6.0850\"><ele>173.2</ele><time>2024-03-02T08:15:00Z</time></trkpt>"
    "<trkpt lat=\"50.7760\" lon=\"6.0864\"><ele>174.0</ele><time>2024-03-02T08:15:04Z</time><pdop>2.4</pdop></trkpt>"
    "<trkpt lat=\"50.7760\" lon=\"6.0878\"><time>2024-03-02T08:25:04Z</time></trkpt>"
    "</trkseg></trk></gpx>";
  const char *doc10 =
    "<?xml version=\"1.0\"?>\n"
    "<gpx version=\"1.0\" xmlns=\"http://www.topografix.com/GPX/1/0\"><trk><trkseg>"
    "<trkpt lat=\"50.0520\" lon=\"8.5761\"><ele>10668</ele><time>2024-06-15T10:15:00Z</time><speed>236.1</speed></trkpt>"
    "</trkseg></trk></gpx>";
  RlGpsParseStats stats;
  g_autoptr (GArray) fixes = parse_ok (doc, strlen (doc), &stats);
  g_autoptr (GArray) fixes10 = NULL;

  g_assert_cmpuint (fixes->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 0).altitude_m, 173.2, 1e-9);
  g_assert_true (isnan (g_array_index (fixes, RlGpsFix, 0).speed_mps));
  /* 0.0014° of longitude at 50.776° N is 98.6 m, in 4 s */
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 1).speed_mps, 98.6 / 4, 0.3);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 1).hdop, 2.4, 1e-9);
  /* ten minutes after the point before: no speed from that */
  g_assert_true (isnan (g_array_index (fixes, RlGpsFix, 2).speed_mps));
  g_assert_true (isnan (g_array_index (fixes, RlGpsFix, 2).hdop));
  g_assert_true (isnan (g_array_index (fixes, RlGpsFix, 2).altitude_m));

  fixes10 = parse_ok (doc10, strlen (doc10), &stats);
  g_assert_cmpuint (fixes10->len, ==, 1);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes10, RlGpsFix, 0).speed_mps, 236.1, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes10, RlGpsFix, 0).altitude_m, 10668, 1e-9);
}

static void
test_not_gpx (void)
{
  const char *bad[] = {
    "this is not XML",
    "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">",
    "<?xml version=\"1.0\"?><kml><Placemark/></kml>",
    "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
      g_autoptr (GError) error = NULL;
      RlGpsParseStats stats;

      g_assert_false (rl_gpx_parse (bad[i], strlen (bad[i]), fixes, &stats, &error));
      int expected = (i == 2) ? (int) RL_GPX_ERROR_NOT_GPX : (int) RL_GPX_ERROR_NOT_XML;

      g_assert_error (error, RL_GPX_ERROR, expected);
      g_assert_cmpuint (fixes->len, ==, 0);
    }
}

static void
test_sniff (void)
{
  g_autofree char *gpx = read_fixture ("around-visnjan-with-car.gpx", NULL);
  g_autofree char *nmea = read_fixture ("mt3339.log", NULL);

  g_assert_true (rl_gpx_sniff (gpx, strlen (gpx)));
  g_assert_false (rl_gpx_sniff (nmea, strlen (nmea)));
  /* a namespace prefix on the root element */
  {
    const char *prefixed = "<?xml version=\"1.0\"?>\n<g:gpx xmlns:g=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\">";
    g_assert_true (rl_gpx_sniff (prefixed, strlen (prefixed)));
  }
  g_assert_false (rl_gpx_sniff ("<?xml version=\"1.0\"?><gpxdata>", 31));
  g_assert_false (rl_gpx_sniff ("<?xml version=\"1.0\"?><kml:kml>", 30));
}

/* A GPX saved by Windows Notepad as "Unicode": UTF-16 LE with its byte
 * order mark.  --gps-format gpx read it, but sniffing looked for "<gpx" in
 * bytes that are "<\0g\0p\0x\0" and called it "not GPX"; now the mark is
 * recognised (little and big endian) and the document sniffed as text. */
static void
test_sniff_utf16 (void)
{
  gsize len, be_len;
  g_autofree char *le = read_fixture ("utf16-notepad.gpx", &len);
  g_autofree char *be = g_malloc (len);
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  g_autoptr (GError) error = NULL;
  RlGpsParseStats stats;
  g_autofree char *kml = NULL, *marked = NULL;

  g_assert_true (rl_gpx_sniff (le, len));
  g_assert_true (rl_gpx_parse (le, len, fixes, &stats, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fixes->len, ==, 5);
  g_assert_cmpint (g_array_index (fixes, RlGpsFix, 0).time, ==, utc_us (2024, 7, 6, 12, 41, 0));
  g_assert_cmpfloat_with_epsilon (g_array_index (fixes, RlGpsFix, 4).lon, 12.6146, 1e-9);
  /* the same in big endian */
  for (be_len = 0; be_len + 1 < len; be_len += 2)
    be[be_len] = le[be_len + 1], be[be_len + 1] = le[be_len];
  g_assert_true (rl_gpx_sniff (be, be_len));
  /* UTF-16 that is no GPX, and the mark alone */
  kml = g_convert ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><kml>", -1, "UTF-16LE", "UTF-8", NULL, &be_len, NULL);
  g_assert_nonnull (kml);
  marked = g_malloc (be_len + 2);
  memcpy (marked, "\xff\xfe", 2);
  memcpy (marked + 2, kml, be_len);
  g_assert_false (rl_gpx_sniff (marked, be_len + 2));
  g_assert_false (rl_gpx_sniff ("\xff\xfe", 2));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpx/1.1-track", test_gpx11_track);
  g_test_add_func ("/gpx/1.0-waypoints-track", test_gpx10_waypoints_and_track);
  g_test_add_func ("/gpx/points-and-values", test_points_and_values);
  g_test_add_func ("/gpx/first-reject", test_first_reject);
  g_test_add_func ("/gpx/first-reject-past-65534", test_first_reject_past_65534);
  g_test_add_func ("/gpx/not-gpx", test_not_gpx);
  g_test_add_func ("/gpx/ele-speed", test_ele_speed);
  g_test_add_func ("/gpx/sniff", test_sniff);
  g_test_add_func ("/gpx/sniff-utf16", test_sniff_utf16);
  return g_test_run ();
}
