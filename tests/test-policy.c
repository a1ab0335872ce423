/* The voting engine: the 14 required scenarios of DESIGN §4 (the shipped
 * data/scenarios files, run through the replay engine and checked here
 * against the design's table), and properties over random evidence. */
#include <string.h>
#include <glib.h>

#include "core/policy.h"
#include "core/config.h"
#include "core/regdb.h"
#include "replay/replay.h"
#include "replay/scenario.h"
#include "geo/tzmap.h"
#include "rl-test-config.h"

typedef struct {
  const char *file;
  const char *country;
  RlState state;
  RlReason reason;
  const char *explanation_has;   /* NULL: nothing more */
} Case;

static const Case cases[] = {
  { "01-nothing.scn", "00", RL_STATE_WORLD, RL_REASON_NO_EVIDENCE, NULL },
  { "02-timezone-only.scn", "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY, "timezone" },
  { "03-one-ap.scn", "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS, "1 access point" },
  { "04-three-aps-timezone.scn", "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT, "3 access points from 3 operators" },
  { "05-gps-timezone.scn", "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT, "GPS fix" },
  { "06-five-de-one-us.scn", "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT, "Dissent: AP 00:14:6c:66:77:06" },
  { "07-gps-fr-beacons-us.scn", "00", RL_STATE_CONFLICT, RL_REASON_CONFLICT, "disagree" },
  { "08-border-de-ch.scn", "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT, "near its border" },
  { "09-de-to-nl.scn", "NL", RL_STATE_DECIDED, RL_REASON_AGREEMENT, NULL },
  { "10-expiry.scn", "00", RL_STATE_WORLD, RL_REASON_NO_EVIDENCE, NULL },
  { "11-at-sea.scn", "00", RL_STATE_WORLD, RL_REASON_AT_SEA, "outside every country's waters" },
  { "12-override.scn", "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT, NULL },
  { "13-resume.scn", "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT, NULL },
  { "14-not-in-regdb.scn", "00", RL_STATE_WORLD, RL_REASON_NOT_IN_REGDB, "no rules for it" },
  { "15-territory.scn", "FI", RL_STATE_DECIDED, RL_REASON_AGREEMENT, "AX uses the rules of FI" },
};

static RlRegulatory *regulatory;
static RlTzMap *tzmap;

static RlReplay *
run_scenario (const char *file, GArray *expects)
{
  g_autofree char *path = g_build_filename (RL_SOURCE_DATADIR, "scenarios", file, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlScenarioContext ctx = { config, tzmap, NULL, NULL };
  RlReplay *replay = rl_replay_new (config, regulatory);
  gboolean settle;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (rl_scenario_parse (text, path, &ctx, replay, expects, &settle, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, settle);
  return replay;
}

static void
test_scenario (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (RlReplay) replay = run_scenario (c->file, expects);
  const RlDecision *d = rl_replay_final (replay);
  g_autoptr (GString) report = g_string_new (NULL);
  char cc[3];

  g_assert_cmpstr (rl_country_to_string (d->country, cc), ==, c->country);
  g_assert_cmpstr (rl_state_to_string (d->state), ==, rl_state_to_string (c->state));
  g_assert_cmpstr (rl_reason_to_string (d->reason), ==, rl_reason_to_string (c->reason));
  if (c->explanation_has != NULL && strstr (d->explanation, c->explanation_has) == NULL)
    g_error ("%s: explanation lacks '%s': %s", c->file, c->explanation_has, d->explanation);
  /* the file's own intermediate expectations (hold-down, support lost, …) */
  if (rl_scenario_check (replay, expects, report) != 0)
    g_error ("%s:\n%s", c->file, report->str);
}

/* Scenario 9's key property in detail: 00 at once, NL only after hold_down. */
static void
test_hold_down_timing (void)
{
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (RlReplay) replay = run_scenario ("09-de-to-nl.scn", expects);
  const GArray *tl = rl_replay_timeline (replay);
  gint64 left_de = 0, entered_nl = 0;
  char cc[3];

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (left_de == 0 && i > 0 && g_array_index (tl, RlTimelineEntry, i - 1).country == RL_COUNTRY ('D', 'E'))
        {
          g_assert_cmpstr (rl_country_to_string (e->country, cc), ==, "00");
          left_de = e->time;
        }
      if (e->country == RL_COUNTRY ('N', 'L') && entered_nl == 0)
        entered_nl = e->time;
    }
  g_assert_cmpint (left_de, >, 0);
  g_assert_cmpint (entered_nl - left_de, ==, 30 * RL_USEC_PER_SEC);
}

/* ---- properties over random evidence ------------------------------------ */

static const RlCountry pool[] = {
  RL_COUNTRY ('D', 'E'), RL_COUNTRY ('F', 'R'), RL_COUNTRY ('N', 'L'),
  RL_COUNTRY ('C', 'H'), RL_COUNTRY ('U', 'S'), RL_COUNTRY ('X', 'K'),
};

static RlCountry
pick (GRand *rand)
{
  return pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))];
}

static GArray *
random_evidence (GRand *rand, gint64 now)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  guint n_ap = (guint) g_rand_int_range (rand, 0, 9);
  RlEvidence ev;

  for (guint i = 0; i < n_ap; i++)
    {
      g_autofree char *key = g_strdup_printf ("beacon:%u", i);
      rl_evidence_init (&ev, RL_SOURCE_BEACON, key, now - 10, now + 1000);
      /* a few OUIs and SSIDs so that grouping has work to do */
      ev.beacon.bssid[0] = (guint8) (g_rand_int_range (rand, 0, 4) * 4);
      ev.beacon.bssid[4] = (guint8) g_rand_int_range (rand, 0, 3);
      ev.beacon.bssid[5] = (guint8) i;
      g_snprintf (ev.beacon.ssid, sizeof ev.beacon.ssid, "net%d", g_rand_int_range (rand, 0, 4));
      rl_evidence_add_country (&ev, pick (rand));
      g_array_append_val (a, ev);
    }
  if (g_rand_boolean (rand))
    {
      rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", now - 5, now + 1000);
      ev.gps.error_m = g_rand_double_range (rand, 1, 400);
      guint n = (guint) g_rand_int_range (rand, 0, 3);
      for (guint i = 0; i < n; i++)
        rl_evidence_add_country (&ev, pick (rand));
      g_array_append_val (a, ev);
    }
  if (g_rand_boolean (rand))
    {
      rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", now - 100, RL_NEVER);
      rl_evidence_add_country (&ev, pick (rand));
      rl_evidence_add_country (&ev, pick (rand));
      g_array_append_val (a, ev);
    }
  return a;
}

static RlCountry
regmap_no_xk (RlCountry c, gpointer data)
{
  return c == RL_COUNTRY ('X', 'K') ? RL_COUNTRY_NONE : c;
}

static void
test_properties (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261203);
  RlPolicyParams params;
  const gint64 now = G_GINT64_CONSTANT (1780000000) * RL_USEC_PER_SEC;
  guint decided = 0;

  rl_policy_params_init (&params);
  params.hold_down_s = 0;
  for (guint round = 0; round < 5000; round++)
    {
      g_autoptr (GArray) ev = random_evidence (rand, now);
      g_autoptr (RlDecision) a = rl_policy_decide (&params, regmap_no_xk, NULL, NULL,
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, now);
      g_autoptr (RlDecision) b = rl_policy_decide (&params, regmap_no_xk, NULL, NULL,
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, now);

      /* same input, same output */
      g_assert_cmpuint (a->country, ==, b->country);
      g_assert_cmpint (a->state, ==, b->state);
      g_assert_cmpstr (a->explanation, ==, b->explanation);

      /* any order of the evidence, same output */
      for (guint i = ev->len; i > 1; i--)
        {
          guint j = (guint) g_rand_int_range (rand, 0, (gint32) i);
          RlEvidence tmp = g_array_index (ev, RlEvidence, i - 1);
          g_array_index (ev, RlEvidence, i - 1) = g_array_index (ev, RlEvidence, j);
          g_array_index (ev, RlEvidence, j) = tmp;
        }
      g_autoptr (RlDecision) c = rl_policy_decide (&params, regmap_no_xk, NULL, NULL,
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, now);
      g_assert_cmpuint (a->country, ==, c->country);
      g_assert_cmpint (a->state, ==, c->state);
      g_assert_cmpint (a->reason, ==, c->reason);
      g_assert_cmpfloat_with_epsilon (a->confidence, c->confidence, 1e-12);

      /* 00, or a country with two agreeing witnesses, one besides the timezone */
      if (a->country == RL_COUNTRY_WORLD)
        continue;
      decided++;
      g_assert_cmpint (a->state, ==, RL_STATE_DECIDED);
      g_assert_cmpuint (a->country, !=, RL_COUNTRY ('X', 'K'));
      gboolean found = FALSE;
      for (guint i = 0; i < a->candidates->len; i++)
        {
          const RlCandidate *cand = &g_array_index (a->candidates, RlCandidate, i);
          if (cand->country != a->country)
            continue;
          found = TRUE;
          g_assert_cmpuint (cand->witnesses, >=, 2);
          g_assert_cmpuint (cand->witnesses - (cand->timezone ? 1 : 0), >=, 1);
          g_assert_cmpfloat (cand->confidence, >=, params.confidence_threshold - 1e-9);
        }
      g_assert_true (found);
    }
  /* the generator must reach decisions too, or the property says nothing */
  g_assert_cmpuint (decided, >, 100);
}

/* A flood of beacons from one operator cannot outvote the rest. */
static void
test_flood_one_operator (void)
{
  RlPolicyParams params;
  const gint64 now = G_GINT64_CONSTANT (1780000000) * RL_USEC_PER_SEC;
  g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence e;

  rl_policy_params_init (&params);
  params.hold_down_s = 0;
  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *key = g_strdup_printf ("beacon:rogue%u", i);
      rl_evidence_init (&e, RL_SOURCE_BEACON, key, now, now + 1000);
      e.beacon.bssid[0] = 0x00; e.beacon.bssid[1] = 0x11; e.beacon.bssid[2] = 0x22;
      e.beacon.bssid[3] = (guint8) (i >> 8); e.beacon.bssid[4] = (guint8) i; e.beacon.bssid[5] = 1;
      g_snprintf (e.beacon.ssid, sizeof e.beacon.ssid, "rogue%u", i);
      rl_evidence_add_country (&e, RL_COUNTRY ('U', 'S'));
      g_array_append_val (ev, e);
    }
  const guint8 ouis[][3] = { { 0x3c, 0x84, 0x6a }, { 0x00, 0x1f, 0x3f }, { 0x88, 0x71, 0xb1 }, { 0x50, 0xc7, 0xbf }, { 0xe0, 0x28, 0x6d } };
  for (guint i = 0; i < G_N_ELEMENTS (ouis); i++)
    {
      g_autofree char *key = g_strdup_printf ("beacon:real%u", i);
      rl_evidence_init (&e, RL_SOURCE_BEACON, key, now, now + 1000);
      memcpy (e.beacon.bssid, ouis[i], 3);
      e.beacon.bssid[5] = (guint8) i;
      g_snprintf (e.beacon.ssid, sizeof e.beacon.ssid, "home%u", i);
      rl_evidence_add_country (&e, RL_COUNTRY ('D', 'E'));
      g_array_append_val (ev, e);
    }
  rl_evidence_init (&e, RL_SOURCE_TIMEZONE, "timezone", now, RL_NEVER);
  rl_evidence_add_country (&e, RL_COUNTRY ('D', 'E'));
  g_array_append_val (ev, e);

  g_autoptr (RlDecision) d = rl_policy_decide (&params, NULL, NULL, NULL, (RlEvidence *) (gpointer) ev->data, ev->len, now);
  char cc[3];
  /* the flood gives US at most beacon_max_aps_per_operator votes: DE keeps
   * its two-thirds share, and the timezone confirms */
  g_assert_cmpstr (rl_country_to_string (d->country, cc), ==, "DE");
  g_assert_cmpuint (d->state, ==, RL_STATE_DECIDED);
}

/* Found by fuzz-scenario: an ssid= with bytes that are not UTF-8 went into
 * the evidence text and the explanation, and the JSON report was no longer
 * JSON.  SSIDs are shown as the beacon source shows them: printable ASCII,
 * '?' for anything else; more than the 32 bytes of a beacon is an error. */
static void
test_scenario_ssid_bytes (void)
{
  static const char text[] =
    "at 0 beacon 3c:84:6a:01:00:01 DE ssid=Tele\xef\xef\xef\xef-\xff\n"
    "at 0 beacon 00:1f:3f:02:00:02 DE ssid=Caf\xc3\xa9-01234567890123456789012345\n";
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlScenarioContext ctx = { config, tzmap, NULL, NULL };
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (GError) error = NULL;
  gboolean settle;

  rl_replay_set_keep_evidence (replay, TRUE);
  g_assert_true (rl_scenario_parse (text, "ssid.scn", &ctx, replay, expects, &settle, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, settle);
  g_autofree char *json = rl_replay_format (replay, "json", NULL);
  g_assert_true (g_utf8_validate (json, -1, NULL));
  g_assert_nonnull (strstr (json, "'Tele\?\?\?\?-\?'"));
  /* ('\?' keeps "??-" from being read as a trigraph) 32 bytes: the two bytes of the e-acute are two '?', nothing is split */
  g_assert_nonnull (strstr (json, "'Caf\?\?-01234567890123456789012345'"));

  /* longer than a beacon can carry: refused, never cut (a cut SSID once
   * merged two networks) */
  g_autoptr (RlReplay) replay2 = rl_replay_new (config, regulatory);
  g_assert_false (rl_scenario_parse ("at 0 beacon 00:1f:3f:02:00:02 DE ssid=Caf\xc3\xa9-012345678901234567890123456\n",
                                     "ssid.scn", &ctx, replay2, expects, &settle, &error));
  g_assert_error (error, RL_SCENARIO_ERROR, 0);
  g_assert_nonnull (strstr (error->message, "ssid.scn:1: beacon: ssid is 33 bytes"));
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
      g_printerr ("test-policy: %s — is wireless-regdb installed?\n", error->message);
      return 1;
    }
  tzmap = rl_tzmap_new (NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/policy/scenario/%.*s", (int) (strlen (cases[i].file) - 4), cases[i].file);
      g_test_add_data_func (name, &cases[i], test_scenario);
    }
  g_test_add_func ("/policy/hold-down-timing", test_hold_down_timing);
  g_test_add_func ("/policy/properties", test_properties);
  g_test_add_func ("/policy/flood-one-operator", test_flood_one_operator);
  g_test_add_func ("/policy/scenario-ssid-bytes", test_scenario_ssid_bytes);
  int ret = g_test_run ();
  rl_regulatory_free (regulatory);
  rl_tzmap_free (tzmap);
  return ret;
}
