/* One trip, three ways: as a scenario file, and as a scan log (JSON lines
 * with the raw elements) plus an NMEA log.  The scenario language promises
 * to read evidence as the live sources and the log replays do; here the
 * same observations must give the same evidence items and the same
 * decision timeline, change for change. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "rl-test-config.h"
#include "replay/scenario.h"
#include "replay/replay-gps.h"
#include "replay/replay-scans.h"
#include "readers/nmea.h"
#include "readers/scanlog.h"
#include "readers/nl80211-scan.h"
#include "tests/gps-test-util.h"

static RlRegulatory *regulatory;

/* 2026-05-01T10:00:00Z */
#define START_TEXT "2026-05-01T10:00:00Z"

/* The Rhine at Kehl as a straight border: FR west of 7.8017°E, DE east. */
static gboolean
rhine_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  if (!(fabs (lat) <= 90 && fabs (lon) <= 180))
    return FALSE;
  out->country = lon < 7.8017 ? RL_COUNTRY ('F', 'R') : RL_COUNTRY ('D', 'E');
  out->neighbour = lon < 7.8017 ? RL_COUNTRY ('D', 'E') : RL_COUNTRY ('F', 'R');
  out->border_m = fabs (lon - 7.8017) * 111320.0 * cos (lat * G_PI / 180);
  return TRUE;
}

/* The same place as a scenario's lookup. */
static gboolean
rhine_point (gpointer data, double lat, double lon, RlCountry *country, double *border_m, RlCountry *neighbour)
{
  RlBoundaryResult r;

  if (!rhine_lookup (NULL, lat, lon, &r))
    return FALSE;
  *country = r.country;
  *border_m = r.border_m;
  *neighbour = r.neighbour;
  return TRUE;
}

typedef struct {
  const char *bssid, *cc;  /* the two bytes of the country string as sent */
  char env;
  const char *ssid;
  guint channel, freq;
  int dbm;
} Ap;

/* Strasbourg: Free, Orange, SFR; one router that sends "XX", one that
 * sends lower case, one indoor.  Kehl: AVM, Telekom, Vodafone (one
 * non-country environment), a hotel network with blanks and quotes. */
static const Ap fr_aps[] = {
  { "f4:ca:e5:10:00:01", "FR", ' ', "Freebox-5C2A71", 6, 2437, -61 },
  { "a0:1b:29:20:00:02", "FR", 'I', "Livebox-83F0", 44, 5220, -70 },
  { "e0:b9:e5:30:00:03", "fr", ' ', "SFR_A8B0", 11, 2462, -74 },
  { "00:14:6c:31:00:04", "XX", ' ', "NETGEAR42", 1, 2412, -83 },
};
static const Ap de_aps[] = {
  { "3c:a6:2f:40:00:01", "DE", ' ', "FRITZ!Box 7530 XK", 1, 2412, -58 },
  { "00:1f:3f:50:00:02", "DE", 'O', "Telekom-4F2C21", 36, 5180, -66 },
  { "88:71:b1:60:00:03", "de", ' ', "Vodafone-B7E9", 11, 2462, -71 },
  { "9c:c9:eb:61:00:04", "DE", 'X', "Netgear-Mesh", 6, 2437, -80 },
  { "00:0b:86:62:00:05", "DE", ' ', "Hotel \"Rhein\" Guest", 48, 5240, -69 },
};

typedef struct {
  int t;                  /* seconds from the start */
  double lat, lon;
  double hdop, alt_m, speed_kmh;
} Fix;

/* The drive over the Europabrücke, then parked in Kehl. */
static const Fix fixes[] = {
  { 13, 48 + 34.9080 / 60, 7 + 45.0540 / 60, 0.9, 142, 30 },
  { 45, 48 + 34.5600 / 60, 7 + 46.2000 / 60, 1.1, 141, 42 },
  { 75, 48 + 34.2960 / 60, 7 + 47.4120 / 60, 1.0, 140, 48 },
  { 91, 48 + 34.1880 / 60, 7 + 48.1200 / 60, 2.5, 146, 35 },
  { 103, 48 + 34.1580 / 60, 7 + 48.7860 / 60, 1.2, 139, 20 },
  { 121, 48 + 33.9600 / 60, 7 + 49.1520 / 60, 0.8, 139, 12 },
  { 151, 48 + 33.9300 / 60, 7 + 49.3800 / 60, 0.8, 139, 0 },
};

/* Scans: the French APs every minute until the bridge, the German ones
 * from the far bank on; the parked car scans on for twenty minutes. */
static gboolean
heard (guint i, int t, gboolean french)
{
  if (french)
    return t >= 10 && t <= 90 && (t - 10) % 40 == 0 && !(i == 2 && t == 10);
  return t >= 101 && t <= 1500 && (t - 101) % 60 == 0 && !(i == 4 && t < 161);
}

static char *
quoted (const char *s)
{
  GString *q = g_string_new ("\"");

  for (; *s != '\0'; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c (q, '\\');
      g_string_append_c (q, *s);
    }
  g_string_append_c (q, '"');
  return g_string_free (q, FALSE);
}

static void
nmea_coord (GString *out, double deg, gboolean lat)
{
  int d = (int) deg;
  double min = (deg - d) * 60;

  g_string_append_printf (out, lat ? "%02d%07.4f,%c" : "%03d%07.4f,%c", d, min, lat ? 'N' : 'E');
}

typedef struct {
  GString *scenario, *scanlog, *nmea;
} Trip;

static void
add_beacon (Trip *trip, int t, const Ap *ap)
{
  guint8 bssid[6], ies[64];
  gsize n = 0, ssid_len = strlen (ap->ssid);
  g_autofree char *q = quoted (ap->ssid);
  g_autofree char *line = NULL;

  /* the scenario line, with the channel or frequency and the environment byte */
  g_string_append_printf (trip->scenario, "at %d beacon %s %s ssid=%s signal=%d env=0x%02x %s%u\n", t, ap->bssid,
                          ap->cc, q, ap->dbm, (guint) (guint8) ap->env, ap->channel % 2 ? "channel=" : "freq=",
                          ap->channel % 2 ? ap->channel : ap->freq);
  /* the scan log line: the elements as the AP sent them */
  g_assert_true (rl_bssid_parse (ap->bssid, bssid));
  ies[n++] = 0;
  ies[n++] = (guint8) ssid_len;
  memcpy (ies + n, ap->ssid, ssid_len);
  n += ssid_len;
  {
    const guint8 country[] = { 7, 6, (guint8) ap->cc[0], (guint8) ap->cc[1], (guint8) ap->env, 1, 13, 20 };
    memcpy (ies + n, country, sizeof country);
    n += sizeof country;
  }
  line = rl_scanlog_format (utc_us (2026, 5, 1, 10, 0, 0) + (gint64) t * G_USEC_PER_SEC, "wlan0", bssid, ap->freq,
                            TRUE, ap->dbm * 100, ap->ssid, ies, n);
  g_string_append_printf (trip->scanlog, "%s\n", line);
}

static void
add_fix (Trip *trip, const Fix *f)
{
  g_autoptr (GString) body = g_string_new (NULL);
  char hms[16];
  g_autofree char *rmc = NULL, *gga = NULL;

  g_snprintf (hms, sizeof hms, "10%02d%02d.00", f->t / 60, f->t % 60);
  g_string_append_printf (body, "GPRMC,%s,A,", hms);
  nmea_coord (body, f->lat, TRUE);
  g_string_append_c (body, ',');
  nmea_coord (body, f->lon, FALSE);
  g_string_append_printf (body, ",%.3f,90.0,010526,,,A", f->speed_kmh / 1.852);
  rmc = nmea_sentence (body->str);
  g_string_truncate (body, 0);
  g_string_append_printf (body, "GPGGA,%s,", hms);
  nmea_coord (body, f->lat, TRUE);
  g_string_append_c (body, ',');
  nmea_coord (body, f->lon, FALSE);
  g_string_append_printf (body, ",1,09,%.1f,%.1f,M,48.0,M,,", f->hdop, f->alt_m);
  gga = nmea_sentence (body->str);
  g_string_append (trip->nmea, rmc);
  g_string_append (trip->nmea, gga);

  /* the scenario writes the very degrees the log says (to the last bit) */
  {
    g_autoptr (GArray) parsed = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
    g_autofree char *epoch = g_strconcat (rmc, gga, NULL);
    RlGpsParseStats stats;
    const RlGpsFix *fix;

    rl_nmea_parse (epoch, strlen (epoch), parsed, &stats);
    g_assert_cmpuint (parsed->len, ==, 1);
    fix = &g_array_index (parsed, RlGpsFix, 0);
    g_string_append_printf (trip->scenario, "at %d gps %.17g %.17g hdop=%.1f alt=%.1f speed=%.3f\n", f->t, fix->lat,
                            fix->lon, f->hdop, f->alt_m, f->speed_kmh);
  }
}

/* The modem (cell records, issue 13): on an international network (901,
 * no country) in Strasbourg, on Telekom (262-01) in Kehl, then out of
 * service.  Both readers map the codes with the fixture table. */
static void
add_cell (Trip *trip, int t)
{
  gint64 at = utc_us (2026, 5, 1, 10, 0, 0) + (gint64) t * G_USEC_PER_SEC;
  g_autofree char *line = NULL;

  if (t == 300)
    line = rl_scanlog_format_cell (at, "0", TRUE, 901, "18");
  else if (t == 1000)
    line = rl_scanlog_format_cell (at, "0", TRUE, 262, "01");
  else if (t == 1400)
    line = rl_scanlog_format_cell (at, "0", FALSE, 0, NULL);
  else
    return;
  g_string_append_printf (trip->scanlog, "%s\n", line);
  g_string_append_printf (trip->scenario, "at %d cell %s\n", t,
                          t == 300 ? "901-18" : t == 1000 ? "262-01" : "lost");
}

static void
build_trip (Trip *trip)
{
  guint next_fix = 0;

  trip->scenario = g_string_new ("start " START_TEXT "\n");
  trip->scanlog = g_string_new (NULL);
  trip->nmea = g_string_new (NULL);
  for (int t = 0; t <= 1500; t++)
    {
      guint bands = 0;
      for (guint i = 0; i < G_N_ELEMENTS (fr_aps); i++)
        if (heard (i, t, TRUE))
          {
            add_beacon (trip, t, &fr_aps[i]);
            bands |= rl_band_from_freq (fr_aps[i].freq);
          }
      for (guint i = 0; i < G_N_ELEMENTS (de_aps); i++)
        if (heard (i, t, FALSE))
          {
            add_beacon (trip, t, &de_aps[i]);
            bands |= rl_band_from_freq (de_aps[i].freq);
          }
      /* each second with sightings is one scan in the scan log: the
       * scenario says so, with the bands it heard */
      if (bands != 0)
        g_string_append_printf (trip->scenario, "at %d scan band=%s%s%s\n", t,
                                bands & RL_BAND_2GHZ ? "2.4" : "",
                                (bands & RL_BAND_2GHZ) && (bands & RL_BAND_5GHZ) ? "," : "",
                                bands & RL_BAND_5GHZ ? "5" : "");
      if (next_fix < G_N_ELEMENTS (fixes) && fixes[next_fix].t == t)
        add_fix (trip, &fixes[next_fix++]);
      add_cell (trip, t);
    }
}

static JsonNode *
report (RlReplay *replay)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = rl_replay_format (replay, "json", &error);

  g_assert_no_error (error);
  return json_from_string (json, &error);
}

static RlReplay *
run_scenario (const RlConfig *config, const char *text)
{
  RlScenarioContext ctx = { config, NULL, rhine_point, NULL };
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (GError) error = NULL;
  RlReplay *replay = rl_replay_new (config, regulatory);
  gboolean settle;

  rl_replay_set_keep_evidence (replay, TRUE);
  if (!rl_scenario_parse (text, "trip.scn", &ctx, replay, expects, &settle, &error))
    g_error ("%s\n%s", error->message, text);
  g_assert_true (settle);
  rl_replay_run (replay, settle);
  return replay;
}

static RlReplay *
run_logs (const RlConfig *config, const Trip *trip)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  RlGpsEvidenceParams params;
  RlReplay *replay = rl_replay_new (config, regulatory);
  int fd = g_file_open_tmp ("regloc-scans-XXXXXX.jsonl", &path, &error);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, trip->scanlog->str, (gssize) trip->scanlog->len, &error));
  close (fd);
  rl_replay_set_keep_evidence (replay, TRUE);
  rl_gps_evidence_params_init (&params, config, rhine_lookup, NULL);
  g_assert_true (rl_replay_load_gps_data (replay, "trip.nmea", trip->nmea->str, trip->nmea->len, "nmea", NULL,
                                          &params, config->policy.gps_max_error_m, &error));
  g_assert_no_error (error);
  g_assert_true (rl_replay_load_scan_file (replay, path, config, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, TRUE);
  g_unlink (path);
  return replay;
}

static gint64
counter (JsonNode *rep, const char *name)
{
  JsonObject *counters = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (rep), "summary"), "counters");

  return json_object_has_member (counters, name) ? json_object_get_int_member (counters, name) : 0;
}

/* One evidence item as text, numbers left out: they are compared apart. */
static char *
item_text (JsonObject *item)
{
  g_autoptr (JsonNode) copy = json_node_new (JSON_NODE_OBJECT);
  g_autoptr (JsonObject) words = json_object_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (GList) names = json_object_get_members (item);

  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *v = json_object_get_member (item, l->data);
      if (json_node_get_value_type (v) != G_TYPE_DOUBLE && json_node_get_value_type (v) != G_TYPE_INT64)
        json_object_set_member (words, l->data, json_node_copy (v));
    }
  json_node_set_object (copy, words);
  json_generator_set_root (gen, copy);
  return json_generator_to_data (gen, NULL);
}

/* The evidence items of both runs, in the order the engine applied them:
 * every word (key, time, countries, the detail with SSID, IE, frequency,
 * signal, position, radius, border) the same, every number the same to
 * 1e-9 (a position written in degrees and one read from NMEA minutes may
 * differ in the last bit, as may a speed in km/h and one in knots). */
static void
assert_same_evidence (JsonNode *rep_s, JsonNode *rep_l)
{
  JsonArray *a = json_object_get_array_member (json_node_get_object (rep_s), "evidence");
  JsonArray *b = json_object_get_array_member (json_node_get_object (rep_l), "evidence");

  for (guint i = 0; i < MAX (json_array_get_length (a), json_array_get_length (b)); i++)
    {
      JsonObject *x, *y;
      g_autoptr (GList) names = NULL;
      g_autofree char *tx = NULL, *ty = NULL;

      if (i >= json_array_get_length (a) || i >= json_array_get_length (b))
        g_error ("evidence items: %u from the scenario, %u from the logs", json_array_get_length (a),
                 json_array_get_length (b));
      x = json_array_get_object_element (a, i);
      y = json_array_get_object_element (b, i);
      tx = item_text (x);
      ty = item_text (y);
      if (strcmp (tx, ty) != 0)
        g_error ("evidence item %u differs:\n  scenario: %s\n  logs:     %s", i, tx, ty);
      names = json_object_get_members (x);
      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *v = json_object_get_member (x, l->data), *w = json_object_get_member (y, l->data);
          double dv, dw;
          if (json_node_get_value_type (v) != G_TYPE_DOUBLE && json_node_get_value_type (v) != G_TYPE_INT64)
            continue;
          g_assert_nonnull (w);
          dv = json_node_get_double (v);
          dw = json_node_get_double (w);
          if (!(fabs (dv - dw) <= 1e-9 * MAX (1.0, fabs (dv))))
            g_error ("evidence item %u (%s): %s is %.17g from the scenario, %.17g from the logs", i, tx,
                     (const char *) l->data, dv, dw);
        }
      g_assert_cmpuint (json_object_get_size (x), ==, json_object_get_size (y));
    }
  g_assert_cmpuint (json_array_get_length (a), >, 0);
}

static char *
timeline_text (const RlReplay *replay)
{
  const GArray *tl = rl_replay_timeline (replay);
  GString *out = g_string_new (NULL);
  char a[3], b[3];

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      g_string_append_printf (out, "%" G_GINT64_FORMAT " %s %s %s cand=%s conf=%.6f %s\n", e->time,
                              rl_country_to_string (e->country, a), rl_state_to_string (e->state),
                              rl_reason_to_string (e->reason), rl_country_to_string (e->candidate, b), e->confidence,
                              e->summary);
    }
  return g_string_free (out, FALSE);
}

/* Line by line, so a difference shows as the one line that differs. */
static void
assert_same_lines (const char *what, const char *a, const char *b)
{
  g_auto (GStrv) la = g_strsplit (a, "\n", -1);
  g_auto (GStrv) lb = g_strsplit (b, "\n", -1);

  for (guint i = 0; la[i] != NULL || lb[i] != NULL; i++)
    if (la[i] == NULL || lb[i] == NULL || strcmp (la[i], lb[i]) != 0)
      g_error ("%s differ at line %u:\n  scenario: %s\n  logs:     %s", what, i + 1, la[i] ? la[i] : "(end)",
               lb[i] ? lb[i] : "(end)");
}

static void
test_same_timeline (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  Trip trip;
  g_free (config->cell_providers);
  config->cell_providers = g_test_build_filename (G_TEST_DIST, "data", "mcc", "serviceproviders.xml", NULL);
  build_trip (&trip);
  g_autoptr (RlReplay) from_scenario = run_scenario (config, trip.scenario->str);
  g_autoptr (RlReplay) from_logs = run_logs (config, &trip);
  g_autoptr (JsonNode) rep_s = report (from_scenario);
  g_autoptr (JsonNode) rep_l = report (from_logs);
  g_autofree char *tl_s = timeline_text (from_scenario);
  g_autofree char *tl_l = timeline_text (from_logs);
  const GArray *tl = rl_replay_timeline (from_scenario);
  gboolean fr = FALSE, de = FALSE;

  if (g_test_verbose ())
    g_printerr ("%s\n%s\n", trip.scenario->str, tl_s);
  /* what was refused, refused alike: XX, and the non-country environment */
  g_assert_cmpint (counter (rep_s, "scenario.skipped.not_a_country"), >, 0);
  g_assert_cmpint (counter (rep_s, "scenario.skipped.not_a_country"), ==,
                   counter (rep_l, "scans.skipped.not_a_country"));
  g_assert_cmpint (counter (rep_s, "scenario.skipped.non_country_environment"), >, 0);
  g_assert_cmpint (counter (rep_s, "scenario.skipped.non_country_environment"), ==,
                   counter (rep_l, "scans.skipped.non_country_environment"));
  assert_same_evidence (rep_s, rep_l);
  /* and the same decisions at the same instants */
  assert_same_lines ("timelines", tl_s, tl_l);

  /* the trip is no empty comparison: FR decided in Strasbourg, DE in Kehl */
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      fr |= e->country == RL_COUNTRY ('F', 'R') && e->state == RL_STATE_DECIDED;
      de |= fr && e->country == RL_COUNTRY ('D', 'E') && e->state == RL_STATE_DECIDED;
    }
  g_assert_true (fr);
  g_assert_true (de);
  /* the cell records were read alike: three each, one of them DE */
  g_assert_cmpint (counter (rep_l, "scans.cells"), ==, 3);
  {
    g_autofree char *evidence = json_to_string (rep_s, FALSE);
    g_assert_nonnull (strstr (evidence, "mobile network 262-01"));
  }

  g_string_free (trip.scenario, TRUE);
  g_string_free (trip.scanlog, TRUE);
  g_string_free (trip.nmea, TRUE);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const char *regdb = g_getenv ("REGLOC_TEST_REGDB");

  g_test_init (&argc, &argv, NULL);
  regulatory = rl_regulatory_load (regdb ? regdb : RL_REGDB_DEFAULT_PATH, NULL, &error);
  if (error != NULL)
    {
      g_printerr ("test-scenario-equivalence: %s — is wireless-regdb installed?\n", error->message);
      return 1;
    }
  g_test_add_func ("/scenario/same-as-logs", test_same_timeline);
  return g_test_run ();
}
