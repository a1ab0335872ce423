/* GPS files through the replay engine: the sample trip, dates, merging,
 * errors, and every real receiver log without a crash. */
#include <math.h>
#include <glib/gstdio.h>
#include "rl-test-config.h"
#include "replay/replay-gps.h"
#include "replay/replay-scans.h"
#include "tests/gps-test-util.h"

static RlRegulatory *regulatory;

/* The Rhine at Kehl as a straight border: FR west of 7.8017°E, DE east;
 * south of 30°N is open sea. */
static gboolean
rhine_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  if (!(fabs (lat) <= 90 && fabs (lon) <= 180))
    return FALSE;
  if (lat < 30)
    {
      out->country = out->neighbour = RL_COUNTRY_NONE;
      out->border_m = -1;
      return TRUE;
    }
  out->country = lon < 7.8017 ? RL_COUNTRY ('F', 'R') : RL_COUNTRY ('D', 'E');
  out->neighbour = lon < 7.8017 ? RL_COUNTRY ('D', 'E') : RL_COUNTRY ('F', 'R');
  out->border_m = fabs (lon - 7.8017) * 111320.0 * cos (lat * G_PI / 180);
  return TRUE;
}

static void
params_for (RlGpsEvidenceParams *p, const RlConfig *config)
{
  rl_gps_evidence_params_init (p, config, rhine_lookup, NULL);
}

static void
add_timezone (RlReplay *replay, gint64 at, const char *countries)
{
  g_auto (GStrv) ccs = g_strsplit (countries, ",", -1);
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", at, RL_NEVER);
  for (guint i = 0; ccs[i]; i++)
    {
      RlCountry c;
      g_assert_true (rl_country_parse (ccs[i], &c));
      rl_evidence_add_country (&ev, c);
    }
  g_strlcpy (ev.detail, "timezone Europe/Berlin", sizeof ev.detail);
  rl_replay_add_evidence (replay, &ev);
}

static char *
format_text (RlReplay *replay)
{
  g_autoptr (GError) error = NULL;
  char *text = rl_replay_format (replay, "text", &error);

  g_assert_no_error (error);
  return text;
}

static void
test_sample_trip (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autofree char *path = g_build_filename (RL_SOURCE_DATADIR, "samples", "trip-de-fr.nmea", NULL);
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  RlGpsEvidenceParams params;
  const GArray *timeline;
  gsize len;
  guint de_at = G_MAXUINT, back_to_00 = G_MAXUINT;
  char cc[3];

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, "trip-de-fr.nmea", data, len, NULL, NULL,
                                          &params, config->policy.gps_max_error_m, &error));
  g_assert_no_error (error);
  /* GPS + the timezone of a German laptop: DE in Kehl; across the Rhine the
   * timezone cannot confirm FR, so the decision falls back to 00. */
  add_timezone (replay, utc_us (2024, 5, 18, 9, 0, 0), "DE,DK,NO,SE,SJ");
  rl_replay_run (replay, TRUE);

  timeline = rl_replay_timeline (replay);
  for (guint i = 0; i < timeline->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (timeline, RlTimelineEntry, i);
      if (de_at == G_MAXUINT && e->country == RL_COUNTRY ('D', 'E'))
        de_at = i;
      else if (de_at != G_MAXUINT && back_to_00 == G_MAXUINT && e->country == RL_COUNTRY_WORLD)
        back_to_00 = i;
    }
  g_assert_cmpuint (de_at, !=, G_MAXUINT);
  g_assert_cmpuint (back_to_00, !=, G_MAXUINT);
  {
    const RlTimelineEntry *de = &g_array_index (timeline, RlTimelineEntry, de_at);
    const RlTimelineEntry *out = &g_array_index (timeline, RlTimelineEntry, back_to_00);

    /* parked 90 s in Kehl: DE once the hold-down has passed */
    g_assert_cmpint (de->time, ==, utc_us (2024, 5, 18, 9, 0, 30));
    g_assert_cmpint (de->state, ==, RL_STATE_DECIDED);
    /* leaves DE as soon as the fix's error circle plus the border margin
     * reaches FR, still on the Kehl bank: an ambiguous fix confirms, never
     * decides (docs/policy.md), and the timezone alone cannot hold DE */
    g_assert_true (out->has_position);
    g_assert_cmpfloat (out->lon, >, 7.8017);
    g_assert_cmpfloat (out->lon, <, 7.806);
    g_assert_cmpint (out->reason, ==, RL_REASON_SUPPORT_LOST);
  }
  g_assert_cmpstr (rl_country_to_string (rl_replay_final (replay)->country, cc), ==, "00");

  text = format_text (replay);
  g_assert_nonnull (strstr (text, "gps.fixes_used: 993"));
  g_assert_nonnull (strstr (text, "gps.rejected.bad_checksum: 1"));
  g_assert_nonnull (strstr (text, "date taken from the file"));
}

/* Parked in Kehl with a fix, then into an underground car park: the
 * receiver says RMC V / GGA quality 0.  The fix is withdrawn at that
 * instant, not ten minutes later when it would have aged out. */
static void
test_fix_lost (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GString) log = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  RlGpsEvidenceParams params;
  const RlDecision *final;
  const char *bodies[] = {
    "GPRMC,090000.00,A,4834.5000,N,00749.2000,E,0.1,0.0,180524,,,A",
    "GPGGA,090000.00,4834.5000,N,00749.2000,E,1,09,0.9,139.0,M,48.0,M,,",
    "GPRMC,090100.00,A,4834.5001,N,00749.2001,E,0.1,0.0,180524,,,A",
    "GPGGA,090100.00,4834.5001,N,00749.2001,E,1,09,0.9,139.0,M,48.0,M,,",
    "GPRMC,090130.00,V,,,,,,,180524,,,N",
    "GPGGA,090130.00,,,,,0,00,99.99,,,,,,",
    NULL,
  };

  for (guint i = 0; bodies[i] != NULL; i++)
    {
      g_autofree char *line = nmea_sentence (bodies[i]);
      g_string_append (log, line);
    }
  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, "garage.nmea", log->str, log->len, "nmea", NULL,
                                          &params, config->policy.gps_max_error_m, &error));
  g_assert_no_error (error);
  add_timezone (replay, utc_us (2024, 5, 18, 9, 0, 0), "DE,DK,NO,SE,SJ");
  rl_replay_run (replay, TRUE);

  final = rl_replay_final (replay);
  /* GPS + timezone decided DE; the lost fix takes DE's deciding witness away */
  g_assert_cmpint (final->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpint (final->reason, ==, RL_REASON_SUPPORT_LOST);
  g_assert_cmpint (final->changed_at, ==, utc_us (2024, 5, 18, 9, 1, 30));
  text = format_text (replay);
  g_assert_nonnull (strstr (text, "gps.fix_lost: 1"));
  g_assert_nonnull (strstr (text, "gps.fixes_used: 2"));
  /* the epoch without a fix is not called a fix in the summary */
  g_assert_nonnull (strstr (text, "garage.nmea: nmea, 6 records, 2 fixes, 1 epoch with no fix, 0 rejected"));
  /* fixes a minute apart are no gap; a recording without Wi-Fi has no
   * scans to miss, and the clock is silent between its changes */
  g_assert_nonnull (strstr (text, "  gaps:      none over 1m00s between GPS fixes\n"));
}

/* The summary's gaps are counted per kind of input: a van's receiver loses
 * the sky for three minutes in a tunnel, while the laptop scans every two
 * minutes and then sleeps for twenty. Scans two minutes apart are the
 * usual rhythm (NetworkManager's), not gaps; the tunnel and the sleep are. */
static void
test_gaps_per_kind (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GString) log = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL, *json = NULL;
  RlGpsEvidenceParams params;
  const guint fix_seconds[] = { 0, 1, 2, 3, 183, 184, 185, 186, 187 };
  const guint scan_minutes[] = { 0, 2, 4, 6, 26, 28 };

  for (guint i = 0; i < G_N_ELEMENTS (fix_seconds); i++)
    {
      guint s = fix_seconds[i];
      g_autofree char *body = g_strdup_printf ("GPRMC,09%02u%02u.00,A,4834.5000,N,00749.2000,E,0.1,0.0,180524,,,A",
                                               s / 60, s % 60);
      g_autofree char *line = nmea_sentence (body);
      g_string_append (log, line);
    }
  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, "tunnel.nmea", log->str, log->len, "nmea", NULL,
                                          &params, config->policy.gps_max_error_m, &error));
  g_assert_no_error (error);
  add_timezone (replay, utc_us (2024, 5, 18, 9, 0, 0), "DE,DK,NO,SE,SJ");
  for (guint i = 0; i < G_N_ELEMENTS (scan_minutes); i++)
    {
      gint64 at = utc_us (2024, 5, 18, 9, scan_minutes[i], 30);
      rl_replay_add_scan (replay, at - 3 * G_USEC_PER_SEC, at, RL_BANDS_ANY, 0);
    }
  rl_replay_run (replay, TRUE);

  text = format_text (replay);
  g_assert_nonnull (strstr (text, "  gaps:      1 over 1m00s between GPS fixes (longest 3m00s); "
                                  "1 over 5m00s between scans (longest 20m00s)\n"));
  json = rl_replay_format (replay, "json", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "\"gps_gaps\" : 1"));
  g_assert_nonnull (strstr (json, "\"scan_gaps\" : 1"));
  g_assert_nonnull (strstr (json, "\"longest_gap_s\" : 1200"));
}

/* The sample trip through the real boundary index: Germany, then the Rhine
 * crossing, where the decision leaves DE (GPS + timezone of a German laptop). */
static void
test_sample_trip_real_index (void)
{
  const char *index_path = g_getenv ("REGLOC_BOUNDARY_INDEX");
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autofree char *path = g_build_filename (RL_SOURCE_DATADIR, "samples", "trip-de-fr.nmea", NULL);
  g_autoptr (RlBoundaryIndex) index = NULL;
  g_autoptr (GError) error = NULL;
  const GArray *timeline;
  gboolean saw_de = FALSE, left_de = FALSE;

  if (index_path == NULL)
    {
      g_test_skip ("REGLOC_BOUNDARY_INDEX not set: the build's boundary index is needed");
      return;
    }
  index = rl_boundary_index_open (index_path, &error);
  g_assert_no_error (error);
  g_assert_true (rl_replay_load_gps_file (replay, path, NULL, NULL, config, index, &error));
  g_assert_no_error (error);
  add_timezone (replay, utc_us (2024, 5, 18, 9, 0, 0), "DE,DK,NO,SE,SJ");
  rl_replay_run (replay, TRUE);
  timeline = rl_replay_timeline (replay);
  for (guint i = 0; i < timeline->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (timeline, RlTimelineEntry, i);
      if (e->country == RL_COUNTRY ('D', 'E') && e->state == RL_STATE_DECIDED)
        {
          g_assert_cmpint (e->time, ==, utc_us (2024, 5, 18, 9, 0, 30));
          saw_de = TRUE;
        }
      else if (saw_de && !left_de && e->country == RL_COUNTRY_WORLD)
        {
          /* the OSM border runs mid-river near 7.8017°E; the GPS names both
           * countries within error + 100 m of it, and such an ambiguous fix
           * cannot hold DE (docs/policy.md): DE is left just east of it */
          left_de = TRUE;
          g_assert_true (e->has_position);
          g_assert_cmpfloat (e->lon, >, 7.8017);
          g_assert_cmpfloat (e->lon, <, 7.806);
        }
    }
  g_assert_true (saw_de);
  g_assert_true (left_de);
}

static const char *const gga_log =
  "$GPGGA,235958.00,4833.000,N,00749.000,E,1,08,1.0,150.0,M,48.0,M,,*6B\r\n"
  "$GPGGA,235959.00,4833.000,N,00749.000,E,1,08,1.0,150.0,M,48.0,M,,*6A\r\n"
  "$GPGGA,000000.00,4833.000,N,00749.000,E,1,08,1.0,150.0,M,48.0,M,,*6B\r\n";

/* The summary's span line names the first and last evidence instants. */
static void
assert_span (RlReplay *replay, const char *span)
{
  g_autofree char *text = NULL;

  rl_replay_run (replay, FALSE);
  text = format_text (replay);
  if (strstr (text, span) == NULL)
    g_error ("expected \"%s\" in:\n%s", span, text);
}

static void
test_time_of_day_only (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlGpsEvidenceParams params;

  params_for (&params, config);
  {
    g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
    g_autoptr (GError) error = NULL;
    g_autofree char *text = NULL;

    g_assert_true (rl_replay_load_gps_data (replay, "gga.nmea", gga_log, strlen (gga_log), NULL,
                                            "2023-12-31", &params, 250, &error));
    g_assert_no_error (error);
    /* the last fix is past midnight: the next day */
    assert_span (replay, "2023-12-31T23:59:58Z .. 2024-01-01T00:00:00Z");
    text = format_text (replay);
    g_assert_nonnull (strstr (text, "date taken from --date 2023-12-31"));
  }
  {
    g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
    g_autoptr (GError) error = NULL;
    g_autofree char *text = NULL;

    g_assert_true (rl_replay_load_gps_data (replay, "gga.nmea", gga_log, strlen (gga_log), NULL,
                                            NULL, &params, 250, &error));
    assert_span (replay, "2000-01-01T23:59:58Z .. 2000-01-02T00:00:00Z");
    text = format_text (replay);
    g_assert_nonnull (strstr (text, "arbitrary day"));
  }
  {
    g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
    g_autoptr (GError) error = NULL;

    g_assert_false (rl_replay_load_gps_data (replay, "gga.nmea", gga_log, strlen (gga_log), NULL,
                                             "31.12.2023", &params, 250, &error));
    g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE);
  }
}

static void
test_errors (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  RlGpsEvidenceParams params;
  const char *text = "hello, this is a shopping list\nmilk\n";

  params_for (&params, config);
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (rl_replay_load_gps_data (replay, "list.txt", text, strlen (text), NULL, NULL,
                                             &params, 250, &error));
    g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "list.txt"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (rl_replay_load_gps_data (replay, "gga.nmea", gga_log, strlen (gga_log), "gpx", NULL,
                                             &params, 250, &error));
    g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT);
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (rl_replay_load_gps_data (replay, "gga.nmea", gga_log, strlen (gga_log), "kml", NULL,
                                             &params, 250, &error));
    g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT);
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (rl_replay_load_gps_file (replay, "/nonexistent/trip.nmea", NULL, NULL, config,
                                             NULL, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  }
  {
    /* a forced format reads what detection would not: GGA after 5 kB of noise */
    g_autoptr (GError) error = NULL;
    g_autoptr (GString) s = g_string_new (NULL);
    for (guint i = 0; i < 5000; i++)
      g_string_append_c (s, (char) (0x80 | (i & 0x7f)));
    g_string_append (s, gga_log);
    g_assert_null (rl_gps_detect_format (s->str, s->len));
    g_assert_true (rl_replay_load_gps_data (replay, "noisy.nmea", s->str, s->len, "nmea", "2024-01-01",
                                            &params, 250, &error));
    g_assert_no_error (error);
  }
}

static void
test_detect_and_merge (void)
{
  static const char *const files[] = {
    "ublox-8.log", "mt3339.log", "quectel-eg25-g-2.log", "mt3339.gpsd.jsonl",
    "cerknicko-jezero.gpx", "around-visnjan-with-car.gpx",
  };
  static const char *const formats[] = { "nmea", "nmea", "nmea", "gpsd", "gpx", "gpx" };
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autofree char *text = NULL;
  RlGpsEvidenceParams params;
  const GArray *timeline;

  params_for (&params, config);
  /* every real log in one replay: detected, read, merged by time, no crash */
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      gsize len;
      g_autofree char *data = read_fixture (files[i], &len);
      g_autoptr (GError) error = NULL;

      g_assert_cmpstr (rl_gps_detect_format (data, len), ==, formats[i]);
      g_assert_true (rl_replay_load_gps_data (replay, files[i], data, len, NULL, NULL, &params,
                                              config->policy.gps_max_error_m, &error));
      g_assert_no_error (error);
    }
  rl_replay_run (replay, TRUE);
  timeline = rl_replay_timeline (replay);
  for (guint i = 1; i < timeline->len; i++)
    g_assert_cmpint (g_array_index (timeline, RlTimelineEntry, i - 1).time, <=,
                     g_array_index (timeline, RlTimelineEntry, i).time);
  text = format_text (replay);
  /* 72 + 30 + 3 NMEA, 28 gpsd, 296 + 104 GPX (Cerknica's 7 waypoints are
   * places, counted and said, not fixes) */
  g_assert_nonnull (strstr (text, "gps.fixes_used: 533"));
  g_assert_nonnull (strstr (text, "gpx.planned_points: 7"));
  g_assert_nonnull (strstr (text, "7 waypoints or route points (<wpt>, <rtept>) not read as positions"));
  g_assert_null (strstr (text, "gps.rejected.no_time"));
  g_assert_nonnull (strstr (text, "gps.rejected.truncated: 1"));
}

/* Real logs whose clock is broken replay in file order with a note,
 * instead of giving one fix (or none). */
static void
test_broken_clock (void)
{
  static const struct {
    const char *file, *date, *span, *note;
    guint fixes;
  } cases[] = {
    /* every sentence stamped 1980-01-06 00:00:00: the receiver never got the time */
    { "frozen-clock.nmea", NULL, "1980-01-06T00:00:00Z .. 1980-01-06T00:00:19Z",
      "every fix carries the same time (1980-01-06 00:00:00): replayed in file order from 1980-01-06 00:00:00", 20 },
    /* a signed 32-bit time counted down past its minimum: 1901-12-13 */
    { "clock-underflow.gpsd.jsonl", NULL, "2000-01-01T00:00:00Z .. 2000-01-01T00:00:14Z",
      "the times are before 1970 (first -2147483648 s from the epoch", 15 },
    { "clock-underflow.gpsd.jsonl", "2024-06-01", "2024-06-01T00:00:00Z .. 2024-06-01T00:00:14Z",
      "replayed in file order from 2024-06-01 00:00:00", 15 },
    /* points without time, the document's metadata has one */
    { "no-point-times.gpx", NULL, "2024-06-01T10:00:00Z .. 2024-06-01T10:00:11Z",
      "the points carry no time: replayed in file order from the document's metadata time, 2024-06-01 10:00:00", 12 },
  };
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlGpsEvidenceParams params;

  params_for (&params, config);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
      g_autoptr (GError) error = NULL;
      g_autofree char *text = NULL, *used = g_strdup_printf ("gps.fixes_used: %u\n", cases[i].fixes);
      gsize len;
      g_autofree char *data = read_fixture (cases[i].file, &len);
      const GArray *timeline;

      g_test_message ("%s", cases[i].file);
      g_assert_true (rl_replay_load_gps_data (replay, cases[i].file, data, len, NULL, cases[i].date, &params,
                                              config->policy.gps_max_error_m, &error));
      g_assert_no_error (error);
      assert_span (replay, cases[i].span);
      text = format_text (replay);
      g_assert_nonnull (strstr (text, cases[i].note));
      g_assert_nonnull (strstr (text, used));
      /* the positions are used: FR at the start (west of the Rhine) or DE (east) */
      timeline = rl_replay_timeline (replay);
      g_assert_cmpuint (timeline->len, >=, 1);
      g_assert_true (g_array_index (timeline, RlTimelineEntry, timeline->len - 1).has_position);
    }
}

/* A sound clock with one step back is no broken clock: that fix alone is
 * rejected, as before. */
/* The text report of one GPS log given in memory (its format detected),
 * replayed with the default policy. */
static char *
replay_log_text (const char *name, const GString *log, const char *date)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GError) error = NULL;
  RlGpsEvidenceParams params;

  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, name, log->str, log->len, NULL, date, &params, 250, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, FALSE);
  return format_text (replay);
}

static void
test_sound_clock_not_file_order (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new (NULL);

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *body = g_strdup_printf ("GPGGA,1200%02u.00,4834.470,N,00747.430,E,1,08,1.0,150.0,M,48.0,M,,",
                                               i == 3 ? 1 : i);
      g_autofree char *line = nmea_sentence (body);
      g_string_append (log, line);
    }
  text = replay_log_text ("repeat.nmea", log, "2024-01-01");
  g_assert_null (strstr (text, "file order"));
  g_assert_nonnull (strstr (text, "gps.fixes_used: 4\n"));
  g_assert_nonnull (strstr (text, "gps.rejected.time_backwards: 1\n"));
}

/* A GPX file whose points are a second or two out of order (an app that
 * appended a segment, tracks merged) is put in order, not cut: before,
 * every point after the first was dropped as 'more than 60 s out of time
 * order', while gps.fixes_used counted them. */
static void
test_gpx_out_of_order (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new ("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" "
                                          "xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n");
  static const guint secs[] = { 2, 0, 1, 3 };

  for (guint i = 0; i < G_N_ELEMENTS (secs); i++)
    g_string_append_printf (log, "<trkpt lat=\"41.902782\" lon=\"12.4963%02u\"><time>2024-07-01T09:00:%02uZ</time>"
                            "</trkpt>\n", 66 + 2 * i, secs[i]);
  g_string_append (log, "</trkseg></trk></gpx>\n");
  text = replay_log_text ("rome.gpx", log, NULL);
  g_assert_null (strstr (text, "out of time order"));
  g_assert_null (strstr (text, "merge.late_dropped"));
  g_assert_nonnull (strstr (text, "gps.fixes_used: 4\n"));
  /* the first decision row is the earliest point's */
  g_assert_nonnull (strstr (text, "\n2024-07-01T09:00:00Z"));
}

/* A log written without checksums is read as NMEA, and the replay says
 * why it gave no fix instead of calling the file an unknown format. */
static void
test_no_checksums (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new (NULL);

  for (guint i = 0; i < 5; i++)
    g_string_append_printf (log, "$GPRMC,1200%02u.00,A,4834.470,N,00747.430,E,0.0,0.0,180524,,,A\r\n", i);
  g_assert_cmpstr (rl_gps_detect_format (log->str, log->len), ==, "nmea");
  text = replay_log_text ("bare.nmea", log, NULL);
  g_assert_nonnull (strstr (text, "bare.nmea: no sentence ends in a checksum"));
  g_assert_nonnull (strstr (text, "gps.fixes_used: 0\n"));
}

/* A `gpspipe -r` log: gpsd's JSON banner, then the receiver's NMEA.  It
 * was sniffed as gpsd JSON from its first line and gave 0 fixes (exit 0);
 * now it is NMEA and the banner lines are counted as ignored. */
static void
test_gpspipe_raw (void)
{
  gsize len;
  g_autofree char *data = read_fixture ("gpspipe-r.nmea", &len);
  g_autoptr (GString) log = NULL;
  g_autofree char *text = NULL;

  g_assert_cmpstr (rl_gps_detect_format (data, len), ==, "nmea");
  log = g_string_new_len (data, (gssize) len);
  text = replay_log_text ("gpspipe-r.nmea", log, NULL);
  g_assert_nonnull (strstr (text, "gps.fixes_used: 5\n"));
  g_assert_nonnull (strstr (text, "nmea.ignored: 3\n"));
  g_assert_nonnull (strstr (text, "span:      2024-06-05T16:20:00Z .. 2024-06-05T16:20:04Z"));
  g_assert_null (strstr (text, "nmea.noise_bytes"));
  g_assert_null (strstr (text, "gps.rejected"));
}

/* A gpsd log with a UTF-8 byte order mark and a comment on top (saved by
 * an editor, annotated by hand) was refused as an unknown format. */
static void
test_gpsd_bom_comment (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new ("\xef\xbb\xbf# Kehl, 2024-05-18\n"
                                          "{\"class\":\"WATCH\",\"enable\":true,\"json\":true}\n");

  for (guint i = 0; i < 3; i++)
    g_string_append_printf (log, "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-05-18T09:00:%02u.000Z\","
                            "\"lat\":48.5745,\"lon\":7.82}\n", i);
  g_assert_cmpstr (rl_gps_detect_format (log->str, log->len), ==, "gpsd");
  text = replay_log_text ("kehl.json", log, NULL);
  g_assert_nonnull (strstr (text, "gps.fixes_used: 3\n"));
  g_assert_nonnull (strstr (text, "gpsd.comment_lines: 1\n"));
  g_assert_null (strstr (text, "gps.rejected"));
}

/* The same for an NMEA log: the mark and the comments are neither noise
 * nor rejected sentences; the comments are counted. */
static void
test_nmea_bom_comment (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new ("\xef\xbb\xbf# Kehl, 2024-05-18\n");

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *body = g_strdup_printf ("GPRMC,0900%02u.00,A,4834.470,N,00747.430,E,0.0,0.0,180524,,,A", i);
      g_autofree char *line = nmea_sentence (body);
      g_string_append (log, line);
      g_string_append (log, "# parked\n");
    }
  g_assert_cmpstr (rl_gps_detect_format (log->str, log->len), ==, "nmea");
  text = replay_log_text ("kehl.nmea", log, NULL);
  g_assert_nonnull (strstr (text, "gps.fixes_used: 3\n"));
  g_assert_nonnull (strstr (text, "nmea.comment_lines: 4\n"));
  g_assert_null (strstr (text, "nmea.noise_bytes"));
  g_assert_null (strstr (text, "gps.rejected"));
}

/* A file of records that give no fix says where the first one is and
 * why, not only how many were rejected: a logger that writes a time after
 * each sentence's checksum; gpspipe -T with a time format of one's own
 * before each gpsd report. */
static void
test_first_reject_named (void)
{
  g_autoptr (GString) stamped = g_string_new ("# stamped by a logger\n");
  g_autoptr (GString) gpspipe = g_string_new (NULL);
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  RlGpsEvidenceParams params;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *body = g_strdup_printf ("GPRMC,0900%02u.00,A,4834.470,N,00747.430,E,0.0,0.0,180524,,,A", i);
      g_autofree char *line = nmea_sentence (body);
      g_string_append_printf (stamped, "%.*s,%u\n", (int) strlen (line) - 2, line, 1716022800 + i);
      g_string_append_printf (gpspipe, "18.05.2024 09:00:%02u: {\"class\":\"TPV\",\"mode\":3,"
                              "\"time\":\"2024-05-18T09:00:%02u.000Z\",\"lat\":48.5745,\"lon\":7.82}\n", i, i);
    }
  text = replay_log_text ("stamped.nmea", stamped, NULL);
  g_assert_nonnull (strstr (text, "stamped.nmea:2: rejected: text after the checksum (the first of 3)"));
  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, "gpspipe-t.json", gpspipe->str, gpspipe->len, "gpsd", NULL,
                                          &params, 250, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, FALSE);
  g_free (text);
  text = format_text (replay);
  g_assert_nonnull (strstr (text, "gpspipe-t.json:1: rejected: the line does not start with '{' (the first of 3)"));
}

/* The text of a replay of the fixture @fixture under the name @name, its
 * format detected as @format. */
static char *
replay_fixture_text (const char *fixture, const char *format, const char *name)
{
  gsize len;
  g_autofree char *data = read_fixture (fixture, &len);
  g_autoptr (GString) log = g_string_new_len (data, (gssize) len);

  g_assert_cmpstr (rl_gps_detect_format (log->str, log->len), ==, format);
  return replay_log_text (name, log, NULL);
}

/* Android's GnssLogger export is an NMEA log: its "NMEA,<sentence>,<ms>"
 * records give their fixes (they were rejected as "text after the
 * checksum"), counted; its Fix, Raw and Status records are ignored. */
static void
test_gnsslogger (void)
{
  g_autofree char *text = replay_fixture_text ("gnsslogger-v3.txt", "nmea", "gnss_log_2024_05_18_11_00_00.txt");

  g_assert_nonnull (strstr (text, "gps.fixes_used: 5\n"));
  g_assert_nonnull (strstr (text, "nmea.gnsslogger_records: 15\n"));
  g_assert_nonnull (strstr (text, "nmea.ignored: 20\n"));
  g_assert_nonnull (strstr (text, "span:      2024-05-18T09:00:00Z .. 2024-05-18T09:00:04Z"));
  g_assert_null (strstr (text, "nmea.noise_bytes"));
  g_assert_null (strstr (text, "gps.rejected"));
}

/* `gpspipe -t -w`: the time gpspipe writes before each line.  Such a log
 * was "unknown format", and forced to gpsd, every line was rejected; now
 * it is gpsd JSON, the times taken off and counted. */
static void
test_gpspipe_time (void)
{
  g_autofree char *text = replay_fixture_text ("gpspipe-t.gpsd.jsonl", "gpsd", "basel.gpspipe-t");

  g_assert_nonnull (strstr (text, "gps.fixes_used: 5\n"));
  g_assert_nonnull (strstr (text, "gpsd.gpspipe_time_lines: 13\n"));
  g_assert_nonnull (strstr (text, "span:      2025-10-04T09:00:00Z .. 2025-10-04T09:00:04Z"));
  g_assert_null (strstr (text, "gps.rejected"));
}

/* A GPX file in UTF-16 (Windows Notepad's "Unicode") was "unknown
 * format: not NMEA 0183, gpsd JSON or GPX" unless --gps-format gpx said
 * so; its byte order mark now tells. */
static void
test_gpx_utf16 (void)
{
  g_autofree char *text = replay_fixture_text ("utf16-notepad.gpx", "gpx", "ferry.gpx");

  g_assert_nonnull (strstr (text, "gps.fixes_used: 5\n"));
  g_assert_nonnull (strstr (text, "span:      2024-07-06T12:41:00Z .. 2024-07-06T12:41:40Z"));
}

/* The same for GPX: the line of the first rejected <trkpt>. */
static void
test_first_reject_named_gpx (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) gpx = g_string_new ("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg>\n");

  g_string_append (gpx, "<trkpt lat=\"48.5745\" lon=\"7.82\"><time>2024-05-18T09:00:00Z</time></trkpt>\n"
                        "<trkpt lat=\"48.5745\" lon=\"7.82\"></trkpt>\n"
                        "<trkpt lat=\"95\" lon=\"7.82\"><time>2024-05-18T09:00:02Z</time></trkpt>\n"
                        "</trkseg></trk></gpx>\n");
  text = replay_log_text ("walk.gpx", gpx, NULL);
  g_assert_nonnull (strstr (text, "walk.gpx:5: rejected: a position without a time (the first of 2)"));
}

/* gpsd's own ERROR reports say why a log has no fix: the first few are
 * notes with their lines, the rest counted. */
static void
test_gpsd_error_reports (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) log = g_string_new ("{\"class\":\"VERSION\",\"release\":\"3.25\"}\n");

  for (guint i = 0; i < 5; i++)
    g_string_append (log, "{\"class\":\"ERROR\",\"message\":\"Can't open /dev/ttyUSB0: Permission denied\"}\n");
  text = replay_log_text ("denied.json", log, NULL);
  g_assert_nonnull (strstr (text, "denied.json:2: gpsd reported an error: Can't open /dev/ttyUSB0: Permission denied\n"));
  g_assert_nonnull (strstr (text, "denied.json:4: gpsd reported an error: "));
  g_assert_null (strstr (text, "denied.json:5: gpsd reported"));
  g_assert_nonnull (strstr (text, "denied.json: 2 more gpsd ERROR reports"));
  g_assert_nonnull (strstr (text, "gpsd.error_reports: 5\n"));
}

/* Ten seconds at Kehl from 09:00:00 as RMC (dated @ddmmyy) or, with
 * @ddmmyy NULL, as GGA alone (a time of day, no date). */
static GString *
kehl_log (const char *ddmmyy)
{
  GString *log = g_string_new (NULL);

  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *body = ddmmyy != NULL
        ? g_strdup_printf ("GPRMC,0900%02u.00,A,4834.470,N,00747.430,E,0.0,0.0,%s,,,A", i, ddmmyy)
        : g_strdup_printf ("GPGGA,0900%02u.00,4834.470,N,00747.430,E,1,08,1.0,150.0,M,48.0,M,,", i);
      g_autofree char *line = nmea_sentence (body);
      g_string_append (log, line);
    }
  return log;
}

/* kehl_log (NULL) with a ZDA after each GGA, dated "dd,mm,yyyy": what
 * survey receivers and gpsd's own NMEA send instead of RMC. */
static GString *
kehl_log_zda (const char *dd_mm_yyyy)
{
  GString *log = g_string_new (NULL);

  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *gga = g_strdup_printf ("GPGGA,0900%02u.00,4834.470,N,00747.430,E,1,08,1.0,150.0,M,48.0,M,,", i);
      g_autofree char *zda = g_strdup_printf ("GPZDA,0900%02u.00,%s,00,00", i, dd_mm_yyyy);
      g_autofree char *l1 = nmea_sentence (gga);
      g_autofree char *l2 = nmea_sentence (zda);
      g_string_append (log, l1);
      g_string_append (log, l2);
    }
  return log;
}

/* @log beside the scan log at @scans (NULL: the sample trip's, 2024-05-18
 * 09:00:05 to 09:16:25), as `regloc replay --gps --scans` places them:
 * the text, or NULL with @error when the inputs cannot be placed. */
static char *
replay_with_scans (const char *name, const GString *log, const char *date, const char *scans, GError **error)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autofree char *sample = g_build_filename (RL_SOURCE_DATADIR, "samples", "trip-de-fr.scans.jsonl", NULL);
  RlGpsEvidenceParams params;

  params_for (&params, config);
  g_assert_true (rl_replay_load_gps_data (replay, name, log->str, log->len, NULL, date, &params, 250, NULL));
  g_assert_true (rl_replay_load_scan_file (replay, scans != NULL ? scans : sample, config, NULL));
  if (!rl_replay_align_inputs (replay, error))
    return NULL;
  rl_replay_run (replay, FALSE);
  return format_text (replay);
}

/* A receiver whose firmware missed the GPS week rollover (2019-04-06)
 * dates its fixes 1024 weeks early: 2004-10-02 for 2024-05-18.  Beside
 * scans of 2024 they were replayed 19.6 years before them and never met;
 * now they are moved on 1024 weeks, with a note.  A log dated years
 * before the scans but not by 1024 weeks is a different trip: replayed as
 * dated, with a note. */
static void
test_week_rollover (void)
{
  g_autoptr (GString) rolled = kehl_log ("021004");
  g_autoptr (GString) old = kehl_log ("180510");
  g_autoptr (GString) now = kehl_log ("180524");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = replay_with_scans ("old-receiver.nmea", rolled, NULL, NULL, &error);
  g_autofree char *other = NULL, *same = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "old-receiver.nmea: dated from 2004-10-02 09:00:00, 1024 weeks (7168 days) before "
                                  "the other inputs: a receiver's GPS week-number rollover; every fix moved on 1024 "
                                  "weeks, the first to 2024-05-18 09:00:00"));
  g_assert_nonnull (strstr (text, "gps.week_rollover_moved: 10\n"));
  g_assert_nonnull (strstr (text, "span:      2024-05-18T09:00:00Z .. 2024-05-18T09:16:25Z"));
  g_assert_null (strstr (text, "2004-10-02T"));

  other = replay_with_scans ("2010.nmea", old, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (other, "2010.nmea: dated from 2010-05-18 09:00:00, more than a year before the other "
                                   "inputs (from 2024-05-18 09:00:05), and not 1024 weeks before them"));
  g_assert_null (strstr (other, "week_rollover_moved"));
  g_assert_nonnull (strstr (other, "span:      2010-05-18T09:00:00Z"));

  same = replay_with_scans ("now.nmea", now, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (same, "before the other inputs"));
  g_assert_null (strstr (same, "week_rollover_moved"));
}

/* A log with a time of day only (GGA) beside dated scans was counted from
 * 2000-01-01, 24 years before the scans: it now takes the day that puts it
 * nearest them, and refuses when two days put it about as near (--date
 * says which). */
static void
test_undated_with_scans (void)
{
  g_autoptr (GString) gga = kehl_log (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("regloc-scans-XXXXXX", NULL);
  g_autofree char *two_days = g_build_filename (dir, "two-days.jsonl", NULL);
  g_autofree char *sample = g_build_filename (RL_SOURCE_DATADIR, "samples", "trip-de-fr.scans.jsonl", NULL);
  g_autofree char *scans = NULL, *text = NULL, *refused = NULL, *dated = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *next_day = NULL, *both = NULL;

  text = replay_with_scans ("gga.nmea", gga, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "gga.nmea: no date in the file (time of day only); date taken from the other "
                                  "inputs (2024-05-18 09:00:05 .. 2024-05-18 09:16:25): 2024-05-18, the day that "
                                  "puts its first fix (09:00:00) nearest them"));
  g_assert_nonnull (strstr (text, "span:      2024-05-18T09:00:00Z .. 2024-05-18T09:16:25Z"));
  g_assert_null (strstr (text, "2000-01-01"));

  /* the same scans and one more line a day later */
  g_assert_true (g_file_get_contents (sample, &scans, NULL, NULL));
  lines = g_strsplit (scans, "\n", 2);
  next_day = g_strdup (lines[0]);
  memcpy (strstr (next_day, "2024-05-18T"), "2024-05-19T", 11);
  both = g_strconcat (scans, next_day, "\n", NULL);
  g_assert_true (g_file_set_contents (two_days, both, -1, NULL));
  refused = replay_with_scans ("gga.nmea", gga, NULL, two_days, &error);
  g_assert_null (refused);
  g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE);
  g_assert_nonnull (strstr (error->message, "gga.nmea: no date in the file (time of day only), and its first fix would "
                                            "lie about as near the other inputs (2024-05-18 09:00:05 .. 2024-05-19 "
                                            "09:00:05) at 2024-05-19 09:00:00 as at 2024-05-18 09:00:00"));
  g_assert_nonnull (strstr (error->message, "give --date YYYY-MM-DD"));
  g_clear_error (&error);

  dated = replay_with_scans ("gga.nmea", gga, "2024-05-19", two_days, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (dated, "gga.nmea: no date in the file; date taken from --date 2024-05-19"));

  /* GGA with ZDA is dated by the file: neither moved to the scans' day
   * nor refused beside inputs of two days */
  {
    g_autoptr (GString) zda = kehl_log_zda ("22,04,2024");
    g_autofree char *own = replay_with_scans ("zda.nmea", zda, NULL, NULL, &error);
    g_autofree char *beside_two = NULL;

    g_assert_no_error (error);
    g_assert_nonnull (strstr (own, "zda.nmea: date taken from the file\n"));
    g_assert_null (strstr (own, "no date in the file"));
    g_assert_nonnull (strstr (own, "span:      2024-04-22T09:00:00Z .. "));
    beside_two = replay_with_scans ("zda.nmea", zda, NULL, two_days, &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (beside_two, "zda.nmea: date taken from the file\n"));
  }
  g_unlink (two_days);
  g_rmdir (dir);
}

/* @lines of the sample trip's scans (09:00:05 on) moved to 00:00:05 on
 * @day ("2024-05-19"), written to @path. */
static void
write_scans_after_midnight (const char *path, const char *day, guint lines)
{
  g_autofree char *sample = g_build_filename (RL_SOURCE_DATADIR, "samples", "trip-de-fr.scans.jsonl", NULL);
  g_autofree char *scans = NULL;
  g_auto (GStrv) all = NULL;
  g_autoptr (GString) out = g_string_new (NULL);

  g_assert_true (g_file_get_contents (sample, &scans, NULL, NULL));
  all = g_strsplit (scans, "\n", -1);
  for (guint i = 0; i < lines && all[i] != NULL; i++)
    {
      char *t = strstr (all[i], "2024-05-18T09:");
      g_assert_nonnull (t);
      memcpy (t, day, 10);
      memcpy (t + 10, "T00:", 4);
      g_string_append_printf (out, "%s\n", all[i]);
    }
  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
}

/* A GGA-only log from 23:59:50 to 00:00:09 beside scans from 00:00:05 on
 * took the scans' day and landed a day late, 23:59:50 of the scans' day;
 * it now goes on the day before, which puts it beside them, and the note
 * says so.  Inputs that span more than two days leave the day unclear. */
static void
test_undated_near_midnight (void)
{
  g_autoptr (GString) gga = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("regloc-scans-XXXXXX", NULL);
  g_autofree char *after = g_build_filename (dir, "after-midnight.jsonl", NULL);
  g_autofree char *days = g_build_filename (dir, "three-days.jsonl", NULL);
  g_autofree char *text = NULL, *refused = NULL, *scans = NULL, *more = NULL;

  for (guint i = 0; i < 20; i++)
    {
      guint s = (86400 - 10 + i) % 86400;
      g_autofree char *body = g_strdup_printf ("GPGGA,%02u%02u%02u.00,4834.470,N,00747.430,E,1,08,1.0,150.0,M,48.0,M,,",
                                               s / 3600, s / 60 % 60, s % 60);
      g_autofree char *line = nmea_sentence (body);
      g_string_append (gga, line);
    }
  write_scans_after_midnight (after, "2024-05-19", 18);
  text = replay_with_scans ("gga.nmea", gga, NULL, after, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "span:      2024-05-18T23:59:50Z .. "));
  g_assert_null (strstr (text, "2024-05-20"));
  g_assert_nonnull (strstr (text, "gga.nmea: no date in the file (time of day only); date taken from the other "
                                  "inputs (2024-05-19 00:00:05 .. 2024-05-19 00:00:"));
  g_assert_nonnull (strstr (text, "): 2024-05-18, the day that puts its first fix (23:59:50) nearest them"));

  /* the same scans and one more line three days later */
  g_assert_true (g_file_get_contents (after, &scans, NULL, NULL));
  more = g_strconcat (scans, "{\"time\": \"2024-05-22T00:00:00Z\", \"bssid\": \"00:11:22:33:44:55\", \"ies\": \"\"}\n",
                      NULL);
  g_assert_true (g_file_set_contents (days, more, -1, NULL));
  refused = replay_with_scans ("gga.nmea", gga, NULL, days, &error);
  g_assert_null (refused);
  g_assert_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE);
  g_assert_nonnull (strstr (error->message, "gga.nmea: no date in the file (time of day only), and the other inputs "
                                            "span more than two days (2024-05-19 00:00:05 .. 2024-05-22 00:00:00)"));
  g_unlink (after);
  g_unlink (days);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const char *regdb = g_getenv ("REGLOC_TEST_REGDB");
  int ret;

  g_test_init (&argc, &argv, NULL);
  regulatory = rl_regulatory_load (regdb ? regdb : RL_REGDB_DEFAULT_PATH, NULL, &error);
  if (error != NULL)
    {
      g_printerr ("test-replay-gps: %s — is wireless-regdb installed?\n", error->message);
      return 1;
    }
  g_test_add_func ("/replay-gps/sample-trip", test_sample_trip);
  g_test_add_func ("/replay-gps/sample-trip-real-index", test_sample_trip_real_index);
  g_test_add_func ("/replay-gps/time-of-day-only", test_time_of_day_only);
  g_test_add_func ("/replay-gps/errors", test_errors);
  g_test_add_func ("/replay-gps/fix-lost", test_fix_lost);
  g_test_add_func ("/replay-gps/gaps-per-kind", test_gaps_per_kind);
  g_test_add_func ("/replay-gps/detect-and-merge", test_detect_and_merge);
  g_test_add_func ("/replay-gps/broken-clock", test_broken_clock);
  g_test_add_func ("/replay-gps/sound-clock", test_sound_clock_not_file_order);
  g_test_add_func ("/replay-gps/no-checksums", test_no_checksums);
  g_test_add_func ("/replay-gps/gpx-out-of-order", test_gpx_out_of_order);
  g_test_add_func ("/replay-gps/gpsd-bom-comment", test_gpsd_bom_comment);
  g_test_add_func ("/replay-gps/gpspipe-raw", test_gpspipe_raw);
  g_test_add_func ("/replay-gps/gnsslogger", test_gnsslogger);
  g_test_add_func ("/replay-gps/gpspipe-time", test_gpspipe_time);
  g_test_add_func ("/replay-gps/gpx-utf16", test_gpx_utf16);
  g_test_add_func ("/replay-gps/nmea-bom-comment", test_nmea_bom_comment);
  g_test_add_func ("/replay-gps/first-reject-named", test_first_reject_named);
  g_test_add_func ("/replay-gps/first-reject-named-gpx", test_first_reject_named_gpx);
  g_test_add_func ("/replay-gps/gpsd-error-reports", test_gpsd_error_reports);
  g_test_add_func ("/replay-gps/week-rollover", test_week_rollover);
  g_test_add_func ("/replay-gps/undated-with-scans", test_undated_with_scans);
  g_test_add_func ("/replay-gps/undated-near-midnight", test_undated_near_midnight);
  ret = g_test_run ();
  rl_regulatory_free (regulatory);
  return ret;
}
