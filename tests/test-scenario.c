/* The scenario language (docs/scenario-format.md): quoting, beacon lines
 * read by the Country element parser, GPS lines by the fix → evidence code,
 * and the checks expect / expect-at / expect-within / expect-never. */
#include <math.h>
#include <string.h>
#include "rl-test-config.h"
#include "geo/boundary.h"
#include "geo/tzmap.h"
#include "replay/scenario.h"

static RlRegulatory *regulatory;
static RlTzMap *tzmap;   /* the test tables of tests/data/tz */

/* Every point is in DE, 5 km from FR; west of 0° it is FR.  North of 70°
 * it is NO with no border within the lookup's exact range, as the real
 * lookup answers far inland (RL_BOUNDARY_EXACT_M, no neighbour). */
static gboolean
fake_point (gpointer data, double lat, double lon, RlCountry *country, double *border_m, RlCountry *neighbour)
{
  *country = lon < 0 ? RL_COUNTRY ('F', 'R') : RL_COUNTRY ('D', 'E');
  *neighbour = lon < 0 ? RL_COUNTRY ('D', 'E') : RL_COUNTRY ('F', 'R');
  *border_m = 5000;
  if (lat > 70)
    {
      *country = RL_COUNTRY ('N', 'O');
      *neighbour = RL_COUNTRY_NONE;
      *border_m = RL_BOUNDARY_EXACT_M;
    }
  return TRUE;
}

typedef struct {
  RlConfig *config;
  RlReplay *replay;
  GArray *expects;
  GError *error;
  gboolean settle;
} Run;

static gboolean
parse (Run *r, const char *text)
{
  RlScenarioContext ctx;

  r->config = rl_config_new_default ();
  ctx = (RlScenarioContext) { r->config, tzmap, fake_point, NULL };
  r->replay = rl_replay_new (r->config, regulatory);
  r->expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  rl_replay_set_keep_evidence (r->replay, TRUE);
  return rl_scenario_parse (text, "t.scn", &ctx, r->replay, r->expects, &r->settle, &r->error);
}

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->replay, rl_replay_free);
  g_clear_pointer (&r->expects, g_array_unref);
  g_clear_pointer (&r->config, rl_config_free);
  g_clear_error (&r->error);
}

/* The parse must fail with @message in the error. */
static void
assert_refused (const char *text, const char *message)
{
  Run r = { 0 };

  if (parse (&r, text))
    g_error ("accepted: %s", text);
  g_assert_error (r.error, RL_SCENARIO_ERROR, 0);
  if (strstr (r.error->message, message) == NULL)
    g_error ("'%s' lacks '%s'", r.error->message, message);
  run_clear (&r);
}

/* Parses and runs @text; returns the JSON report. */
static char *
run_json (const char *text)
{
  Run r = { 0 };
  g_autoptr (GError) error = NULL;
  char *json;

  if (!parse (&r, text))
    g_error ("%s", r.error->message);
  rl_replay_run (r.replay, r.settle);
  json = rl_replay_format (r.replay, "json", &error);
  g_assert_no_error (error);
  run_clear (&r);
  return json;
}

/* Parses, runs and checks @text; returns the number of failed checks and
 * the report in @report. */
static guint
run_check (const char *text, GString *report)
{
  Run r = { 0 };
  guint failed;

  if (!parse (&r, text))
    g_error ("%s", r.error->message);
  rl_replay_run (r.replay, r.settle);
  failed = rl_scenario_check (r.replay, r.expects, report);
  run_clear (&r);
  return failed;
}

static void
test_quoting (void)
{
  g_autofree char *json = run_json ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=\"Hotel Guest WiFi\"\n"
                                    "at 0 beacon 44:4e:6d:01:00:02 DE ssid=\"say \\\"hi\\\" \\\\o/\"\n"
                                    "at 0 beacon 44:4e:6d:01:00:03 DE ssid=FRITZ!Box-7590\n"
                                    "at 0 beacon 44:4e:6d:01:00:04 DE ssid=Guest\" \"Net\n"
                                    "at 0 beacon 44:4e:6d:01:00:05 DE ssid=\"\"\n");

  g_assert_nonnull (strstr (json, "ESS 'Hotel Guest WiFi'"));
  g_assert_nonnull (strstr (json, "ESS 'say \\\"hi\\\" \\\\o/'"));
  g_assert_nonnull (strstr (json, "ESS 'FRITZ!Box-7590'"));
  g_assert_nonnull (strstr (json, "ESS 'Guest Net'"));
  g_assert_nonnull (strstr (json, "ESS ''"));

  /* an SSID with blanks and no quotes is never cut to its first word */
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=Hotel Guest WiFi\n",
                  "t.scn:1: beacon: unexpected 'Guest' after ssid=Hotel (a value with blanks must be quoted");
  assert_refused ("# comment\nat 0 beacon 44:4e:6d:01:00:01 DE ssid=\"Hotel Guest\n", "t.scn:2: a quoted value is not closed");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=\"a\\nb\"\n", "only \\\" and \\\\ are escapes");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=\"0123456789012345678901234567890123\"\n",
                  "ssid is 34 bytes; a beacon carries at most 32");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=a ssid=b\n", "ssid= given twice");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE colour=red\n", "unexpected 'colour=red' (options: ssid=, signal=");
  assert_refused ("at 0 timezone Europe/Berlin now\n", "timezone: unexpected 'now'");
  assert_refused ("at 0 check please\n", "check: unexpected 'please'");
  /* a replay ends at its last event: an end before it would be ignored */
  assert_refused ("at 0 timezone Europe/Berlin\nat 90 check\nend 60\n", "t.scn:3: end 60: before the event of line 2");
  assert_refused ("at 0 timezone Europe/Berlin\nend 60\nat 90 check\n", "t.scn:3: at 90: after the end line");
}

/* What the parser does with the country string, the scenario does too. */
static void
test_country_string (void)
{
  g_autofree char *json = run_json ("at 0 beacon 44:4e:6d:01:00:01 de ssid=lower\n"
                                    "at 0 beacon 44:4e:6d:01:00:02 XX ssid=unknown\n"
                                    "at 0 beacon 44:4e:6d:01:00:03 xx ssid=unknown-lower\n"
                                    "at 0 beacon 44:4e:6d:01:00:04 00 ssid=world\n"
                                    "at 0 beacon 44:4e:6d:01:00:05 D1 ssid=digit\n"
                                    "at 0 beacon 44:4e:6d:01:00:06 \"D \" ssid=blank\n"
                                    "at 0 beacon 44:4e:6d:01:00:07 DE env=X ssid=non-country\n"
                                    "at 0 beacon 44:4e:6d:01:00:08 DE env=non-country ssid=non-country-word\n"
                                    "at 0 beacon 44:4e:6d:01:00:09 DE env=x ssid=lower-x\n"
                                    "at 0 beacon 44:4e:6d:01:00:0a DE env=0x04 ssid=table4\n"
                                    "at 0 beacon 44:4e:6d:01:00:0b DE env=indoor ssid=indoor\n"
                                    "at 0 beacon 44:4e:6d:01:00:0c EU ssid=eu\n");

  /* lower case is upper-cased; 'x' is no non-country marker (only 'X' is) */
  g_assert_nonnull (strstr (json, "\"countries\" : [\n        \"DE\"\n      ],\n      \"strength\" : 1.0,\n"
                                  "      \"detail\" : \"AP 44:4e:6d:01:00:01, ESS 'lower', IE 'de '"));
  g_assert_nonnull (strstr (json, "IE 'DE\\\\x78'"));
  g_assert_nonnull (strstr (json, "IE 'DE\\\\x04'"));
  g_assert_nonnull (strstr (json, "IE 'DEI'"));
  g_assert_nonnull (strstr (json, "IE 'EU '"));
  /* XX, xx, 00, D1, "D ": no vote, counted; env X twice */
  g_assert_nonnull (strstr (json, "\"scenario.skipped.not_a_country\" : 5"));
  g_assert_nonnull (strstr (json, "\"scenario.skipped.non_country_environment\" : 2"));
  g_assert_null (strstr (json, "ESS 'unknown'"));
  g_assert_null (strstr (json, "ESS 'world'"));
  g_assert_nonnull (strstr (json, "t.scn:2: AP 44:4e:6d:01:00:02: country string 'XX' (any) is no country"));

  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DEU\n", "two characters of the advertised country string");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 ssid=x\n", "two characters of the advertised country string");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE env=Q1\n", "env=Q1: expected");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE env=0x100\n", "env=0x100: expected");
  assert_refused ("at 0 beacon 44:4e:6d:01 DE\n", "expected a BSSID");
}

/* A zone that names no country (UTC) withdraws the item in silence; a
 * name that is no zone at all (a typo) does too, counted and noted. */
static void
test_timezone_unknown (void)
{
  g_autofree char *json = run_json ("at 0 timezone Europe/Berlinn\n"
                                    "at 1 timezone UTC\n"
                                    "at 2 timezone Europe/Berlin\n");

  g_assert_nonnull (strstr (json, "\"scenario.timezone.unknown_zone\" : 1"));
  g_assert_nonnull (strstr (json, "t.scn:1: timezone Europe/Berlinn is no zone of the installed tzdata (a typo?)"));
  g_assert_null (strstr (json, "timezone UTC is"));
  g_assert_nonnull (strstr (json, "Europe/Berlin"));
}

/* An AP that stops sending a usable country loses its vote (live BSS table):
 * DE is down to the fix, kept for support_grace (docs/policy.md rule 8),
 * then 00. */
static void
test_country_string_withdraws (void)
{
  g_autoptr (GString) report = g_string_new (NULL);

  g_assert_cmpuint (run_check ("at 0 beacon 44:4e:6d:01:00:01 DE\n"
                               "at 0 beacon 00:1f:3f:02:00:02 DE\n"
                               "at 0 gps 50.1 8.6 error=5\n"
                               "at 1m beacon 44:4e:6d:01:00:01 XX\n"
                               "at 1m beacon 00:1f:3f:02:00:02 XX\n"
                               "expect-at 50 DE decided agreement\n"
                               "expect-at 1m DE decided support-waning\n"
                               "expect-at 3m 00 world support-lost\n", report), ==, 0);
}

/* The live BSS table's window: a sighting within 5 s of the last one of
 * the same BSS is the same observation, whatever it says. */
static void
test_repeat_window (void)
{
  g_autofree char *json = run_json ("at 0 beacon 44:4e:6d:01:00:01 DE ssid=first\n"
                                    "at 4.9 beacon 44:4e:6d:01:00:01 XX ssid=same-frame\n"
                                    "at 5 beacon 44:4e:6d:01:00:01 DE ssid=second\n"
                                    "at 6 remove beacon 44:4e:6d:01:00:01\n"
                                    "at 7 beacon 44:4e:6d:01:00:01 DE ssid=after-removal\n"
                                    "at 8 remove beacons\n"
                                    "at 9 beacon 44:4e:6d:01:00:01 DE ssid=after-removing-all\n"
                                    "at 10 beacon 44:4e:6d:01:00:01 DE ssid=merged\n");

  g_assert_nonnull (strstr (json, "ESS 'first'"));
  g_assert_null (strstr (json, "same-frame"));
  g_assert_nonnull (strstr (json, "ESS 'second'"));
  g_assert_nonnull (strstr (json, "ESS 'after-removal'"));
  g_assert_nonnull (strstr (json, "ESS 'after-removing-all'"));
  g_assert_null (strstr (json, "ESS 'merged'"));
  g_assert_nonnull (strstr (json, "\"scenario.repeats_merged\" : 2"));
  g_assert_null (strstr (json, "scenario.skipped"));
}

static void
test_radio (void)
{
  g_autofree char *json = run_json ("at 0 beacon 44:4e:6d:01:00:01 DE channel=6\n"
                                    "at 0 beacon 44:4e:6d:01:00:02 DE channel=14\n"
                                    "at 0 beacon 44:4e:6d:01:00:03 DE channel=36\n"
                                    "at 0 beacon 44:4e:6d:01:00:04 DE channel=149 band=5\n"
                                    "at 0 beacon 44:4e:6d:01:00:05 DE channel=37 band=6\n"
                                    "at 0 beacon 44:4e:6d:01:00:06 DE channel=2 band=6\n"
                                    "at 0 beacon 44:4e:6d:01:00:07 DE freq=5500\n"
                                    "at 0 beacon 44:4e:6d:01:00:08 DE freq=2412 channel=1 band=2.4\n"
                                    "at 0 beacon 44:4e:6d:01:00:09 DE signal=-67.5\n");

  g_assert_nonnull (strstr (json, "01:00:01, ESS '', IE 'DE ', 2437 MHz"));
  g_assert_nonnull (strstr (json, "01:00:02, ESS '', IE 'DE ', 2484 MHz"));
  g_assert_nonnull (strstr (json, "01:00:03, ESS '', IE 'DE ', 5180 MHz"));
  g_assert_nonnull (strstr (json, "01:00:04, ESS '', IE 'DE ', 5745 MHz"));
  g_assert_nonnull (strstr (json, "01:00:05, ESS '', IE 'DE ', 6135 MHz"));
  g_assert_nonnull (strstr (json, "01:00:06, ESS '', IE 'DE ', 5935 MHz"));
  g_assert_nonnull (strstr (json, "01:00:07, ESS '', IE 'DE ', 5500 MHz"));
  g_assert_nonnull (strstr (json, "01:00:08, ESS '', IE 'DE ', 2412 MHz"));
  g_assert_nonnull (strstr (json, "01:00:09, ESS '', IE 'DE ', 0 MHz, -68 dBm"));

  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE band=5\n", "band= needs channel=");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE channel=6 freq=2412\n", "channel=6 is 2437 MHz, not freq=2412");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE channel=200\n", "say which band");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE channel=14 band=6\n", "the 6 GHz band has no channel 14");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE freq=2412 band=5\n", "freq=2412 is not in the 5 GHz band");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE freq=900\n", "freq=900: expected MHz");
  assert_refused ("at 0 beacon 44:4e:6d:01:00:01 DE band=60 channel=1\n", "band=60: expected 2.4, 5 or 6");
}

static void
test_gps (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autofree char *json = run_json ("at 0 gps 50.1 8.6 error=7 alt=120 speed=50\n"
                                    "at 1 gps 50.1 8.6 hdop=1.5\n"
                                    "at 2 gps 50.1 8.6\n"
                                    "at 3 gps 50.1 8.6 countries=DE,CH border=40 error=30\n"
                                    "at 4 gps 50.1 -1.5 error=20\n"
                                    "at 5 gps 38.7 -9.95 countries=sea\n"
                                    "at 6 gps 70.66 23.68 error=9\n");
  char want[64];

  g_assert_nonnull (strstr (json, "GPS fix 50.10N 8.60E ±7 m, 5.0 km from FR border"));
  /* no error: HDOP × UERE, never the ±10 m of a good fix */
  g_snprintf (want, sizeof want, "GPS fix 50.10N 8.60E ±%.0f m,", 1.5 * config->gps_uere_m);
  g_assert_nonnull (strstr (json, want));
  /* no error and no HDOP: no estimate is invented; the fix → evidence code
   * makes its assumption for a fix of unknown accuracy and says so */
  g_assert_nonnull (strstr (json, " m (accuracy unknown)"));
  /* that assumption is [gps] unknown_error, not a ten-metre fix */
  g_snprintf (want, sizeof want, "GPS fix 50.10N 8.60E ±%.0f m (accuracy unknown)", config->gps_unknown_error_m);
  g_assert_nonnull (strstr (json, want));
  g_assert_nonnull (strstr (json, "\"countries\" : [\n        \"DE\",\n        \"CH\"\n      ]"));
  g_assert_nonnull (strstr (json, "40 m from CH border"));
  g_assert_nonnull (strstr (json, "GPS fix 50.10N 1.50W ±20 m, 5.0 km from DE border"));
  g_assert_nonnull (strstr (json, "GPS fix 38.70N 9.95W ±"));
  /* no border within the exact range: a bound, never "5.0 km from the nearest border" */
  g_assert_nonnull (strstr (json, "GPS fix 70.66N 23.68E ±9 m, more than 5.0 km from any border"));
  g_assert_null (strstr (json, "from the nearest border"));

  assert_refused ("at 0 gps 50.1\n", "gps: expected LAT LON");
  /* a wiphy or driver name that is no printable ASCII (a fuzz finding: it reached the JSON report) */
  assert_refused ("at 0 driver FR radio=phy\xff\xff\n", "radio=: expected a wiphy name");
  assert_refused ("at 0 driver FR name=iwl\x01wifi\n", "name=: expected a driver name");
  assert_refused ("at 0 gps 91 8\n", "gps: expected LAT LON");
  assert_refused ("at 0 gps 50.1 8.6 hdop=0\n", "hdop=0: expected a dilution above 0");
  assert_refused ("at 0 gps 50.1 8.6 speed=-3\n", "speed=-3: expected km/h");
  assert_refused ("at 0 gps 50.1 8.6 alt=high\n", "alt=high: expected metres");
  assert_refused ("at 0 gps 50.1 8.6 border=30\n", "border= only goes with countries=");
  assert_refused ("at 0 gps 50.1 8.6 countries=00\n", "countries=00: expected");
  assert_refused ("at 0 gps lost now\n", "gps lost: unexpected 'now'");
}

/* gps lost withdraws the fix at once instead of after max_age: DE is down
 * to the routers' one witness (support-waning, docs/policy.md rule 8), then
 * 00 when the grace ends. */
static void
test_gps_lost (void)
{
  g_autoptr (GString) report = g_string_new (NULL);
  const char *scn = "at 0 gps 50.1 8.6 error=5\n"
                    "at 0 beacon 44:4e:6d:01:00:01 DE\n"
                    "at 0 beacon 00:1f:3f:02:00:02 DE\n"
                    "at 0 beacon 88:71:b1:03:00:03 DE\n"
                    "at 2m gps lost\n"
                    "end 5m\n"
                    "expect-at 1m DE decided agreement\n"
                    "expect-at 2m DE decided support-waning\n"
                    "expect-at 4m 00 world support-lost\n"
                    "expect 00\n";

  g_assert_cmpuint (run_check (scn, report), ==, 0);
}

/* "scan": what was listed since the previous scan line is what it heard;
 * APs on its bands listed only before are gone, others stay. */
static void
test_scan (void)
{
  g_autoptr (GString) report = g_string_new (NULL);
  /* six German APs of six operators, three on 2.4 and three on 5 GHz, decide DE */
  const char *head = "at 0 beacon 44:4e:6d:01:00:01 DE channel=1\n"
                     "at 0 beacon 00:1f:3f:02:00:02 DE channel=6\n"
                     "at 0 beacon 50:c7:bf:05:00:05 DE channel=11\n"
                     "at 1 beacon 88:71:b1:03:00:03 DE channel=36\n"
                     "at 1 beacon 3c:a6:2f:04:00:04 DE channel=44\n"
                     "at 1 beacon 00:24:01:06:00:06 DE channel=48\n"
                     "at 2 scan\n"
                     "expect-at 1m DE decided\n";
  /* a 2.4 GHz scan hears one of them: the other two 2.4 GHz APs go, the
   * 5 GHz ones stay (four APs of four operators still decide DE) */
  g_autofree char *partial = g_strconcat (head,
                                          "at 2m beacon 44:4e:6d:01:00:01 DE channel=1\n"
                                          "at 121 scan band=2.4\n"
                                          "expect 00 any\n", NULL);
  g_autofree char *partial_ok = g_strconcat (head,
                                             "at 2m beacon 44:4e:6d:01:00:01 DE channel=1\n"
                                             "at 121 scan band=2.4\n"
                                             "expect-never 00 world support-lost\n"
                                             "expect DE decided\n", NULL);
  /* a scan of every band that hears nothing of them: all four go */
  g_autofree char *all = g_strconcat (head, "at 3m beacon f4:ca:e5:10:00:01 FR channel=11\n"
                                      "at 3m scan\n"
                                      "expect-at 3m 00 world support-lost\n", NULL);
  /* without channels the APs' band is unknown: only a scan of every band covers them */
  const char *nochannel = "at 0 beacon 44:4e:6d:01:00:01 DE\n"
                          "at 0 beacon 00:1f:3f:02:00:02 DE\n"
                          "at 0 beacon 88:71:b1:03:00:03 DE\n"
                          "at 0 beacon 3c:a6:2f:04:00:04 DE\n"
                          "at 0 scan\n"
                          "at 2m scan band=2.4,5,6\n"
                          "expect-at 3m DE decided\n"
                          "at 4m scan\n"
                          "expect-at 4m 00\n";

  g_assert_cmpuint (run_check (partial, report), ==, 1);
  g_string_truncate (report, 0);
  g_assert_cmpuint (run_check (partial_ok, report), ==, 0);
  g_string_truncate (report, 0);
  g_assert_cmpuint (run_check (all, report), ==, 0);
  g_string_truncate (report, 0);
  g_assert_cmpuint (run_check (nochannel, report), ==, 0);
  assert_refused ("at 0 scan band=2.4,7\n", "scan: band=2.4,7");
  assert_refused ("at 0 scan 2.4\n", "scan: unexpected '2.4'");
}

/* A scan's results and its end are one delivery: beacon lines spread over
 * the seconds before a scan line are decided on at that line, all of them
 * together, as the daemon decides once after a scan dump.  Here the second
 * scan hears four French routers and none of the German ones (heard by one
 * scan: withdrawn at once).  Decided piecemeal, the first French lines
 * beside the German APs the scan was about to withdraw made a moment of
 * support waning and one of `00` that no machine sees. */
#define FOUR_DE_AT_0 "at 0 beacon 44:4e:6d:01:00:01 DE channel=1\n" \
                     "at 0 beacon 00:1f:3f:02:00:02 DE channel=6\n" \
                     "at 0 beacon 88:71:b1:03:00:03 DE channel=11\n" \
                     "at 0 beacon 3c:a6:2f:04:00:04 DE channel=1\n"
#define FOUR_FR_FROM_57 "at 57 beacon f4:ca:e5:10:00:01 FR channel=6\n" \
                        "at 58 beacon a0:1b:29:11:00:02 FR channel=11\n" \
                        "at 59 beacon e0:b9:e5:12:00:03 FR channel=1\n" \
                        "at 60 beacon 00:24:01:13:00:04 FR channel=6\n"
static void
test_scan_dump_spread (void)
{
  g_autoptr (GString) report = g_string_new (NULL);
  const char *scn = FOUR_DE_AT_0 "at 1 scan band=2.4\n"
                    FOUR_FR_FROM_57 "at 61 scan band=2.4\n"
                    "expect-at 50 DE decided\n"
                    "expect-never DE decided support-waning\n"
                    "expect-never 00 world support-lost\n"
                    "expect-at 61 00 tentative support-lost\n"
                    "expect-within 92 FR decided\n"
                    "end 3m\n";
  /* a capture's frames are no scan's results: without scan lines each
   * instant is decided on as it comes (support waning at 58 s, when the
   * second French router makes dissent) */
  g_autofree char *frames = run_json (FOUR_DE_AT_0 FOUR_FR_FROM_57 "end 2m\n");

  g_assert_cmpuint (run_check (scn, report), ==, 0);
  g_assert_nonnull (strstr (frames, "\"time\" : \"2026-01-01T00:00:58Z\",\n      \"country\" : \"DE\",\n      "
                                    "\"state\" : \"decided\",\n      \"confidence\" : 0.69999999999999996,\n      "
                                    "\"reason\" : \"support-waning\""));
}

static void
test_checks (void)
{
  g_autoptr (GString) report = g_string_new (NULL);
  /* DE tentative at 0, decided at 30 (hold-down), 00 at 2m when the GPS
   * names FR, FR decided at 2m30 */
  const char *scn = "at 0 gps 50.1 8.6 error=5\n"
                    "at 0 beacon 44:4e:6d:01:00:01 DE\n"
                    "at 0 beacon 00:1f:3f:02:00:02 DE\n"
                    "at 0 beacon 88:71:b1:03:00:03 DE\n"
                    "at 2m remove beacons\n"
                    "at 2m gps 48.8 -2.3 error=5\n"
                    "at 2m beacon f4:ca:e5:01:00:01 FR\n"
                    "at 2m beacon a0:1b:29:02:00:02 FR\n"
                    "at 2m beacon e0:b9:e5:03:00:03 FR\n"
                    "expect-within 30 DE decided\n"               /* 10: ok */
                    "expect-within 29 DE decided\n"               /* 11: FAIL */
                    "expect-within 1m DE\n"                       /* 12: ok */
                    "expect-within 0 00 tentative hold-down\n"    /* 13: ok (at 0) */
                    "expect-within 0 00 world\n"                  /* 14: FAIL (replaced at 0) */
                    "expect-never US\n"                           /* 15: ok */
                    "expect-never FR\n"                           /* 16: FAIL at 150 */
                    "expect-never 00 conflict\n"                  /* 17: ok */
                    "expect-at 2m 00\n"                           /* 18: ok */
                    "expect-at 2m 00 any support-lost\n"          /* 19: ok */
                    "expect-at 2m 00 world\n"                     /* 20: FAIL, it is tentative */
                    "expect FR\n"                                 /* 21: ok */
                    "expect FR any agreement\n"                   /* 22: ok */
                    "expect 00\n"                                 /* 23: FAIL */
                    "expect-within 10m US decided\n";             /* 24: FAIL, never */

  g_assert_cmpuint (run_check (scn, report), ==, 6);
  if (g_test_verbose ())
    g_printerr ("%s", report->str);
  g_assert_nonnull (strstr (report->str, "ok   line 10: expected DE decided within 30s: from 30s\n"));
  g_assert_nonnull (strstr (report->str, "FAIL line 11: expected DE decided within 29s, got 00 tentative hold-down "
                                         "at 29s (reached only at 30s)\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 12: expected DE within 60s: from 30s\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 13: expected 00 tentative hold-down within 0s: from 0s\n"));
  g_assert_nonnull (strstr (report->str, "FAIL line 14: expected 00 world within 0s, got 00 tentative hold-down at 0s"));
  g_assert_nonnull (strstr (report->str, "ok   line 15: expected never US\n"));
  g_assert_nonnull (strstr (report->str, "FAIL line 16: expected never FR, got FR decided agreement at 150s\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 17: expected never 00 conflict\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 18: expected 00 at 120s, got 00 tentative"));
  g_assert_nonnull (strstr (report->str, "ok   line 19: expected 00 any support-lost at 120s"));
  g_assert_nonnull (strstr (report->str, "FAIL line 20: expected 00 world at 120s, got 00 tentative support-lost\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 21: expected FR, got FR decided agreement\n"));
  g_assert_nonnull (strstr (report->str, "ok   line 22: expected FR any agreement"));
  g_assert_nonnull (strstr (report->str, "FAIL line 23: expected 00, got FR decided agreement\n"));
  g_assert_nonnull (strstr (report->str, "FAIL line 24: expected US decided within 600s, got FR decided agreement at "
                                         "600s (never reached)\n"));

  assert_refused ("expect DE maybe\n", "expect: expected a state (world, tentative, decided, override, conflict or any), "
                                       "not 'maybe'");
  assert_refused ("expect-within DE decided\n", "expect-within: expected seconds from the start");
  assert_refused ("expect-never\n", "expect-never: expected a country");
  assert_refused ("expect DE decided agreement extra\n", "expect: unexpected 'extra'");
  assert_refused ("expect-sometime 5 DE\n", "unknown line 'expect-sometime'");
}

/* The implicit 00 before anything happened is a decision in force too. */
static void
test_checks_before_evidence (void)
{
  g_autoptr (GString) report = g_string_new (NULL);

  g_assert_cmpuint (run_check ("at 10 beacon 44:4e:6d:01:00:01 DE\n"
                               "expect-within 5 00 world no-evidence\n"
                               "expect-at 5 00 world no-evidence\n"
                               "expect-never 00 world no-evidence\n", report), ==, 1);
  g_assert_nonnull (strstr (report->str, "FAIL line 4: expected never 00 world no-evidence, got 00 world no-evidence "
                                         "at 0s\n"));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const char *regdb = g_getenv ("REGLOC_TEST_REGDB");

  g_test_init (&argc, &argv, NULL);
  {
    g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "tz", NULL);
    tzmap = rl_tzmap_new (dir, &error);
    g_assert_no_error (error);
  }
  regulatory = rl_regulatory_load (regdb ? regdb : RL_REGDB_DEFAULT_PATH, NULL, &error);
  if (error != NULL)
    {
      g_printerr ("test-scenario: %s — is wireless-regdb installed?\n", error->message);
      return 1;
    }
  g_test_add_func ("/scenario/quoting", test_quoting);
  g_test_add_func ("/scenario/timezone-unknown", test_timezone_unknown);
  g_test_add_func ("/scenario/country-string", test_country_string);
  g_test_add_func ("/scenario/country-string-withdraws", test_country_string_withdraws);
  g_test_add_func ("/scenario/repeat-window", test_repeat_window);
  g_test_add_func ("/scenario/radio", test_radio);
  g_test_add_func ("/scenario/gps", test_gps);
  g_test_add_func ("/scenario/gps-lost", test_gps_lost);
  g_test_add_func ("/scenario/scan", test_scan);
  g_test_add_func ("/scenario/scan-dump-spread", test_scan_dump_spread);
  g_test_add_func ("/scenario/checks", test_checks);
  g_test_add_func ("/scenario/checks-before-evidence", test_checks_before_evidence);
  return g_test_run ();
}
