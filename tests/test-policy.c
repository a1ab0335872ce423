/* The voting engine: the 14 required scenarios of the design (data/scenarios/01–14) (the shipped
 * data/scenarios files, run through the replay engine and checked here
 * against the design's table), and properties over random evidence. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "core/policy.h"
#include "core/config.h"
#include "core/regdb.h"
#include "core/vendor.h"
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
  { "11-at-sea.scn", "00", RL_STATE_WORLD, RL_REASON_AT_SEA, "the world domain 00 applies at sea" },
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
  RL_COUNTRY ('E', 'U'),
};

static RlCountry
pick (GRand *rand)
{
  return pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))];
}

/* a place: what a fix or a timezone names (never EU) */
static RlCountry
pick_place (GRand *rand)
{
  return pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool) - 1)];
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
      /* a few OUIs and SSIDs so that grouping has work to do; some
       * locally administered (siblings of the others, or not) */
      ev.beacon.bssid[0] = (guint8) (g_rand_int_range (rand, 0, 4) * 4);
      if (g_rand_int_range (rand, 0, 4) == 0)
        ev.beacon.bssid[0] |= 0x02;
      ev.beacon.bssid[4] = (guint8) g_rand_int_range (rand, 0, 3);
      ev.beacon.bssid[5] = (guint8) (g_rand_int_range (rand, 0, 2) ? i : 16 + i);
      ev.beacon.freq_mhz = (guint32[]) { 2412, 2437, 2462, 5180, 5500 }[g_rand_int_range (rand, 0, 5)];
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
        rl_evidence_add_country (&ev, pick_place (rand));
      g_array_append_val (a, ev);
    }
  if (g_rand_boolean (rand))
    {
      rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", now - 100, RL_NEVER);
      rl_evidence_add_country (&ev, pick_place (rand));
      rl_evidence_add_country (&ev, pick_place (rand));
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
  params.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
  for (guint round = 0; round < 5000; round++)
    {
      g_autoptr (GArray) ev = random_evidence (rand, now);
      g_autoptr (RlDecision) a = rl_policy_decide (&params, regmap_no_xk, NULL, NULL,
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, NULL, now);
      g_autoptr (RlDecision) b = rl_policy_decide (&params, regmap_no_xk, NULL, NULL,
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, NULL, now);

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
                                                   (RlEvidence *) (gpointer) ev->data, ev->len, NULL, now);
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
          /* a deciding witness: not only the timezone, an ambiguous fix, EU */
          g_assert_cmpuint (cand->deciding, >=, 1);
          g_assert_cmpuint (cand->deciding, <=, cand->witnesses - (cand->timezone ? 1 : 0) - (cand->eu ? 1 : 0) -
                                                (cand->gps_ambiguous ? 1 : 0));
          g_assert_cmpfloat (cand->confidence, >=, params.confidence_threshold - 1e-9);
        }
      g_assert_true (found);
      g_assert_cmpuint (a->country, !=, RL_COUNTRY ('E', 'U'));
      /* never a tie settled by the code: no other candidate with the same support */
      for (guint i = 0; i < a->candidates->len; i++)
        {
          const RlCandidate *o = &g_array_index (a->candidates, RlCandidate, i);
          if (o->country != a->country)
            g_assert_false (o->deciding >= 1 && o->witnesses >= 2 && fabs (o->confidence - a->confidence) < 1e-9);
        }
    }
  /* the generator must reach decisions too, or the property says nothing */
  g_assert_cmpuint (decided, >, 100);
}

/* ---- the rules of docs/policy.md, one by one ------------------------------ */

#define NOW (G_GINT64_CONSTANT (1780000000) * RL_USEC_PER_SEC)
#define CC(s) RL_COUNTRY ((s)[0], (s)[1])

static void
add_ap (GArray *a, const char *bssid, const char *cc, const char *ssid, guint32 mhz)
{
  RlEvidence ev;
  guint8 b[6];
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);

  g_assert_cmpint (sscanf (bssid, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]), ==, 6);
  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, NOW - RL_USEC_PER_SEC, NOW + 900 * RL_USEC_PER_SEC);
  memcpy (ev.beacon.bssid, b, 6);
  g_strlcpy (ev.beacon.ssid, ssid, sizeof ev.beacon.ssid);
  ev.beacon.freq_mhz = mhz;
  ev.strength = 1.0;
  rl_evidence_add_country (&ev, CC (cc));
  g_array_append_val (a, ev);
}

/* @ccs: "DE" or "CH,DE" */
static void
add_gps (GArray *a, const char *ccs, double error_m)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", NOW - RL_USEC_PER_SEC, NOW + 600 * RL_USEC_PER_SEC);
  ev.strength = 1.0;
  ev.gps.error_m = error_m;
  for (const char *p = ccs; p[0] && p[1]; p += p[2] ? 3 : 2)
    rl_evidence_add_country (&ev, CC (p));
  g_array_append_val (a, ev);
}

static void
add_zone (GArray *a, const char *ccs)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_TIMEZONE, "timezone", NOW - 100 * RL_USEC_PER_SEC, RL_NEVER);
  ev.strength = 1.0;
  for (const char *p = ccs; p[0] && p[1]; p += p[2] ? 3 : 2)
    rl_evidence_add_country (&ev, CC (p));
  g_array_append_val (a, ev);
}

/* a modem's network naming @ccs ("DE"; "GG,JE") */
static void
add_cell (GArray *a, const char *ccs)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_CELL, "cell:0", NOW - RL_USEC_PER_SEC, RL_NEVER);
  ev.strength = 1.0;
  for (const char *p = ccs; p[0] && p[1]; p += p[2] ? 3 : 2)
    rl_evidence_add_country (&ev, CC (p));
  g_array_append_val (a, ev);
}

/* @air: what the last scan heard besides the items, or NULL */
static RlDecision *
decide_in_air (GArray *a, const RlDecision *previous, const RlPolicyAir *air, gint64 now)
{
  RlPolicyParams params;

  rl_policy_params_init (&params);
  params.hold_down_s = 0;
  params.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
  return rl_policy_decide (&params, rl_regulatory_map, regulatory, previous, (RlEvidence *) (gpointer) a->data, a->len,
                           air, now);
}

static RlDecision *
decide_at (GArray *a, const RlDecision *previous, gint64 now)
{
  return decide_in_air (a, previous, NULL, now);
}

/* the last scan's loudest access point sending no country at @silent_dbm */
static RlDecision *
decide_beside_silent (GArray *a, int silent_dbm)
{
  RlPolicyAir air = { .silent_mbm = silent_dbm * 100 };

  return decide_in_air (a, NULL, &air, NOW);
}

static const RlCandidate *
candidate (const RlDecision *d, const char *cc)
{
  for (guint i = 0; i < d->candidates->len; i++)
    if (g_array_index (d->candidates, RlCandidate, i).country == CC (cc))
      return &g_array_index (d->candidates, RlCandidate, i);
  return NULL;
}

static void
assert_decision (const RlDecision *d, const char *cc, RlState state, RlReason reason)
{
  char got[3];

  if (strcmp (rl_country_to_string (d->country, got), cc) != 0 || d->state != state || d->reason != reason)
    g_error ("expected %s %s %s, got %s %s %s: %s", cc, rl_state_to_string (state), rl_reason_to_string (reason),
             got, rl_state_to_string (d->state), rl_reason_to_string (d->reason), d->explanation);
}

/* Rule 1: a fix whose circle covers two countries decides neither; the
 * timezone cannot lift one of them; equal support is a tie, never the
 * smaller code; with a beacon witness the fix confirms. */
static void
test_ambiguous_gps (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_gps (a, "CH,DE", 40);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIE);
    g_assert_true (candidate (d, "CH")->gps_ambiguous);
    g_assert_cmpuint (candidate (d, "CH")->deciding, ==, 0);
  }
  add_zone (a, "DE,DK,NO,SE,SJ");         /* Europe/Berlin */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_BELOW_THRESHOLD);
    g_assert_cmpuint (candidate (d, "DE")->witnesses, ==, 2);
  }
  g_array_set_size (a, 1);
  add_zone (a, "CH,DE,LI");               /* Europe/Zurich: both again */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIE);
  }
  add_ap (a, "00:0d:b9:01:00:01", "CH", "Swisscom-Box", 2412);
  add_ap (a, "4c:5e:0c:02:00:02", "CH", "Sunrise-Home", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpuint (candidate (d, "CH")->deciding, ==, 1);
    g_assert_nonnull (strstr (d->explanation, "its error circle covers other countries too, so it confirms, never decides"));
  }
  /* the border 60 m away, outside the ±40 m circle but within the 100 m
   * margin: still no deciding fix, and no longer one that reaches DE */
  g_array_index (a, RlEvidence, 0).gps.border_m = 60;
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_false (candidate (d, "DE")->gps);
    g_assert_null (strstr (d->explanation, "covers other countries"));
    g_assert_nonnull (strstr (d->explanation, "within the border margin of its error circle, so it confirms, never decides"));
  }
}

static void
set_signal (GArray *a, guint from, int dbm)
{
  for (guint i = from; i < a->len; i++)
    g_array_index (a, RlEvidence, i).beacon.signal_mbm = dbm * 100;
}

/* Faint access points form no witness; the timezone confirms a country
 * only access points name only when it is the zone's own. */
/* A timezone that lists several countries names the zone's own country
 * first (zone.tab): with nothing else, the reasons speak of that one, not
 * of whichever code sorts first (America/Toronto lists CA and BS). */
static void
test_zone_own_country (void)
{
  static const struct { const char *zone; const char *own; const char *other; } zones[] = {
    { "CA,BS", "CA", "BS" },          /* America/Toronto */
    { "SK,CZ", "SK", "CZ" },          /* Europe/Bratislava */
    { "VA,IT,SM", "VA", "IT" },       /* Europe/Vatican */
  };

  for (guint i = 0; i < G_N_ELEMENTS (zones); i++)
    {
      g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
      g_autofree char *line = g_strdup_printf ("The most support has %s, ", zones[i].own);
      char cc[3];

      add_zone (a, zones[i].zone);
      g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
      assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
      /* the tie stays a tie: equal support, and no decision */
      g_assert_cmpfloat (candidate (d, zones[i].own)->confidence, ==, candidate (d, zones[i].other)->confidence);
      g_assert_cmpstr (rl_country_to_string (g_array_index (d->candidates, RlCandidate, 0).country, cc), ==, zones[i].own);
      g_assert_nonnull (strstr (d->explanation, line));
    }
}

/* St Helier: the cell's 234-50 names GG and JE (both use GB's rules), the
 * access points GB, the fix JE.  The reasons name the fix's place, not the
 * first of the cell's; with no fix they name no territory. */
static void
test_territory_named_by_fix (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence cell;

  add_ap (a, "24:a4:3c:51:0e:20", "GB", "Cafe-Esplanade", 2437);
  add_ap (a, "c8:0e:14:77:21:b0", "GB", "JT-Fibre-21B0", 2412);
  add_ap (a, "00:1e:58:31:aa:04", "GB", "Sure-AA04", 2462);
  rl_evidence_init (&cell, RL_SOURCE_CELL, "cell:0", NOW - RL_USEC_PER_SEC, RL_NEVER);
  rl_evidence_add_country (&cell, RL_COUNTRY ('G', 'G'));
  rl_evidence_add_country (&cell, RL_COUNTRY ('J', 'E'));
  g_array_append_val (a, cell);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "GB", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_null (strstr (d->explanation, "uses the rules of"));
  }
  add_gps (a, "JE", 10);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "GB", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_nonnull (strstr (d->explanation, "JE uses the rules of GB"));
  }
}

/* Rule 2c: a clock confirms a country only a modem's network names when
 * it is the zone's own.  Kreuzlingen, no GPS, no access points: the modem
 * on Telekom's Konstanz mast, the clock on Europe/Zurich (CH; it lists DE
 * for Büsingen and LI): 00, never DE.  On Swisscom the same clock is CH's
 * own: CH.  With a German clock, the Telekom network is confirmed. */
static void
test_zone_confirms_own_country_for_cell (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_cell (a, "DE");
  add_zone (a, "CH,DE,LI");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_false (candidate (d, "DE")->timezone);
    g_assert_nonnull (strstr (d->explanation, "does not confirm DE: it is not the zone's own country, and no GPS fix names it"));
  }
  g_array_index (a, RlEvidence, 0).countries[0] = RL_COUNTRY ('C', 'H');
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  g_array_index (a, RlEvidence, 0).countries[0] = RL_COUNTRY ('D', 'E');
  g_array_set_size (a, 1);
  add_zone (a, "DE,DK,NO,SE,SJ");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* Rule 2c: a Turkish firm's office in Erbil, no GPS.  Three routers brought
 * from Turkey (three operators: the share, one witness), the Istanbul clock
 * (TR's own zone), the modem on Korek (IQ, which touches TR: no conflict)
 * and a Korek MiFi.  Beside a modem on another country's network that an
 * access point names too, the clock does not confirm the access points:
 * 00 (before: TR).  Without the modem, TR; with the mast but no Iraqi
 * router (a Kerkrade household on a German SIM), TR as well. */
static void
test_zone_not_beside_foreign_mast (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "5c:f4:ab:3e:0a:10", "TR", "OfisNet-5G", 2437);
  add_ap (a, "ac:84:c6:d0:c0:10", "TR", "Saha-Deco", 2412);
  add_ap (a, "d4:62:ea:6f:2b:70", "TR", "TurkTelekom_ZT6F2B", 2437);
  add_zone (a, "TR");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "TR", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  add_cell (a, "IQ");
  g_strlcpy (g_array_index (a, RlEvidence, a->len - 1).cell.network, "418-40",
             sizeof g_array_index (a, RlEvidence, a->len - 1).cell.network);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "TR", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  add_ap (a, "84:46:fe:1c:9a:00", "IQ", "KOREK-4G-1C9A", 2462);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_false (candidate (d, "TR")->timezone);
    g_assert_nonnull (strstr (d->explanation, "does not confirm TR: a modem is on mobile network 418-40 of IQ, whose "
                                              "access points are heard here too: the clock says where its owner lives, "
                                              "not where the access points are"));
  }
}

/* Rule 2c with a network the provider list does not carry: a Swedish
 * family's cottage in Eckerö (Åland), their Huawei router and the next
 * cottage's Deco both bought in Sweden, the Stockholm clock, the modem
 * roaming on Ålcom (244-14: Finland's code, a network the list leaves out).
 * Without a Finnish router heard, SE (as with a listed network: a mast
 * alone does not); with the neighbour's Ålcom box saying FI, the clock no
 * longer confirms SE: 00 (before: SE for 2 h 51 min of 3 h). */
static void
test_zone_not_beside_unlisted_network (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence cell;

  add_ap (a, "30:fb:b8:70:3a:10", "SE", "Tele2_4G_3A10", 2437);
  add_ap (a, "54:a7:03:c2:11:58", "SE", "Stugan-Deco", 2412);
  add_zone (a, "SE");
  rl_evidence_init (&cell, RL_SOURCE_CELL, "cell:0", NOW - RL_USEC_PER_SEC, RL_NEVER);
  cell.strength = 1.0;
  cell.cell.unlisted = TRUE;
  cell.cell.n_near = 1;
  cell.cell.near[0] = CC ("FI");
  rl_country_set_add (&cell.cell.listed, CC ("FI"));
  rl_country_set_add (&cell.cell.listed, CC ("SE"));
  g_strlcpy (cell.cell.network, "244-14", sizeof cell.cell.network);
  g_array_append_val (a, cell);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "SE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_nonnull (strstr (d->explanation, "a modem on mobile network 244-14 (which the provider list does not carry) "
                                              "names no country"));
  }
  add_ap (a, "5c:f4:ab:61:a1:80", "FI", "Alcom-61A180", 2462);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_false (candidate (d, "SE")->timezone);
    g_assert_nonnull (strstr (d->explanation, "does not confirm SE: a modem is on mobile network 244-14, which the "
                                              "provider list does not carry, of a code listed for FI, whose access "
                                              "points are heard here too"));
  }
}

/* An access point heard at a signal, for add_heard (). */
typedef struct {
  const char *bssid, *cc, *ssid;
  guint32 mhz;
  int dbm;
} HeardAp;

static void
add_heard (GArray *a, const HeardAp *aps, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      add_ap (a, aps[i].bssid, aps[i].cc, aps[i].ssid, aps[i].mhz);
      set_signal (a, a->len - 1, aps[i].dbm);
    }
}

/* The reasons for 00 where a country with only confirming witnesses leads
 * by confidence: an office in Woodlands (SG) across the strait from Johor
 * Bahru, three Singapore operators' routers (the share, one witness), a
 * commuter's Kuala Lumpur clock and Maxis SIM on a Johor mast (both
 * confirm only).  MY has the most support, SG the witness that may decide:
 * the text says so rather than call MY the best candidate. */
static void
test_world_leader_only_confirms (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const HeardAp woodlands[] = {
    { "a0:04:60:2b:17:c0", "SG", "SINGTEL-17C0", 2437, -58 },
    { "c8:3a:35:5d:0e:12", "SG", "StarHub-0E12", 2412, -66 },
    { "48:8f:5a:71:aa:30", "SG", "MyRepublic-AA30", 2462, -70 },
  };

  add_heard (a, woodlands, G_N_ELEMENTS (woodlands));
  add_zone (a, "MY");                      /* Asia/Kuala_Lumpur */
  add_cell (a, "MY");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_BELOW_THRESHOLD);
    g_assert_cmpuint (candidate (d, "MY")->deciding, ==, 0);
    g_assert_nonnull (strstr (d->explanation, "The most support has MY, with 2 witnesses (confidence 0.82), none of "
                                              "which may decide"));
    g_assert_nonnull (strstr (d->explanation, "SG has 1 witness that may decide, 1 in all (confidence 0.70)."));
    g_assert_null (strstr (d->explanation, "best candidate"));
  }
}

/* Rule 12, the cell's country heard faintly: a German family's flat in
 * Strasbourg's Deux Rives, 500 m from the Rhine.  Their FRITZ!Box and
 * GigaCube on the shelf (DE), three French neighbours' boxes heard well,
 * two Kehl routers across the river heard faintly (DE), the Berlin clock,
 * the SIM on Vodafone DE.  DE has four votes to FR's three, but two are
 * faint: across the line, where the mast may be too.  Counting the votes
 * heard well, the French neighbours are as many: the SIM only confirms,
 * 00 (before: DE decided).  In Kehl, the family's box and two German
 * neighbours beside two French routers heard faintly, the SIM decides. */
static void
test_cell_beside_faint_own_votes (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const HeardAp deux_rives[] = {
    { "98:9b:cb:71:20:a0", "DE", "FRITZ!Box 7590 KH", 2437, -40 },
    { "e0:19:54:88:31:02", "DE", "GigaCube-3102", 2462, -47 },
    { "f8:08:4f:19:66:21", "FR", "Livebox-6621", 2412, -64 },
    { "f4:ca:e5:72:40:11", "FR", "Freebox-724011", 2437, -70 },
    { "2c:08:23:30:71:99", "FR", "SFR_7199", 2462, -75 },
    { "e8:1b:69:44:19:70", "DE", "Telekom-441970", 2412, -86 },
    { "34:2c:c4:20:11:cd", "DE", "Vodafone-11CD", 2437, -89 },
  };
  static const HeardAp kehl[] = {
    { "98:9b:cb:71:20:a0", "DE", "FRITZ!Box 7590 KH", 2437, -40 },
    { "e8:1b:69:44:19:70", "DE", "Telekom-441970", 2412, -62 },
    { "34:2c:c4:20:11:cd", "DE", "Vodafone-11CD", 2437, -68 },
    { "f8:08:4f:19:66:21", "FR", "Livebox-6621", 2412, -80 },
    { "f4:ca:e5:72:40:11", "FR", "Freebox-724011", 2437, -84 },
  };

  add_heard (a, deux_rives, G_N_ELEMENTS (deux_rives));
  add_cell (a, "DE");
  add_zone (a, "DE,DK,NO,SE,SJ");          /* Europe/Berlin */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpstr (rl_country_to_string (d->country, (char[3]) { 0 }), ==, "00");
    g_assert_nonnull (strstr (d->explanation, "but access points here say FR"));
  }
  g_array_set_size (a, 0);
  add_heard (a, kehl, G_N_ELEMENTS (kehl));
  add_cell (a, "DE");
  add_zone (a, "DE,DK,NO,SE,SJ");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  /* the German neighbours behind thick walls, faint as the French routers
   * across the river: faint against faint, all votes count, and the SIM
   * still decides */
  g_array_index (a, RlEvidence, 1).beacon.signal_mbm = -8000;
  g_array_index (a, RlEvidence, 2).beacon.signal_mbm = -8400;
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_false (candidate (d, "FR")->heard_well);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* Rule 12: a Ciudad Juárez house without GPS.  Four retail routers on US
 * factory defaults hold the share (one witness) beside the Telmex and
 * Totalplay boxes; the clock is the Juárez zone (MX's own); the modem
 * roams on AT&T's El Paso mast.  The US network is the mast across the
 * border, not a second witness: 00.  With one Mexican box, US. */
static void
test_cell_beside_neighbour_locals (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const char *const us[] = { "d0:37:45:55:66:70", "38:94:ed:77:88:90", "14:91:82:99:aa:b0",
                                    "04:92:26:bb:cc:d0" };

  add_cell (a, "US");
  add_zone (a, "MX");
  for (guint i = 0; i < G_N_ELEMENTS (us); i++)
    add_ap (a, us[i], "US", "Home", 2412 + 5 * i);
  add_ap (a, "08:60:83:33:44:50", "MX", "Totalplay-7C1D", 2412);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "US", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  add_ap (a, "30:fb:b8:11:22:30", "MX", "INFINITUM1A2B", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_cmpuint (candidate (d, "US")->witnesses, ==, 1);
    g_assert_nonnull (strstr (d->explanation, "access points of two operators say MX, whose own timezone the clock is"));
  }
}

/* Rule 12 at sea: a cruise ship 30 km south of the Isle of Wight, beyond
 * the UK's 12-mile line; the modem still on Vodafone UK's mast on the
 * island, the clock Europe/London.  The modem and the clock made GB; a
 * clean fix at sea rules the mast out as a fix across a border does. */
static void
test_cell_beside_fix_at_sea (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_cell (a, "GB");
  add_zone (a, "GB,GG,IM,JE");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "GB", RL_STATE_DECIDED, RL_REASON_AGREEMENT);   /* in port */
  }
  add_gps (a, "", 5);                      /* no country: at sea */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_AT_SEA);
    g_assert_nonnull (strstr (d->explanation, "the GPS fix lies at sea, beyond every country's waters"));
  }
  /* a fix too rough to trust says nothing */
  g_array_set_size (a, 2);
  add_gps (a, "", 2000);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "GB", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* Rule 12, a lean on the ground: a flat in Baarle-Nassau (NL), where the
 * Belgian enclaves' houses stand a street away.  The KPN box on the shelf
 * and a Ziggo box name NL; three Belgian routers through the walls name
 * BE, one vote more but not the share.  A Belgian visitor's SIM on a
 * Proximus mast and the Brussels clock made BE; the loudest router is the
 * building's, and the SIM only confirms: 00.  In Herzogenrath, with the
 * family's own German box loudest, the same count keeps DE. */
static void
test_cell_beside_loudest_router (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const HeardAp baarle[] = {
    { "4c:1b:86:77:10:e8", "NL", "KPN7710E8", 2412, -52 },
    { "54:67:51:02:9e:a0", "NL", "Ziggo029EA", 2462, -80 },
    { "e8:ad:a6:51:c3:30", "BE", "Proximus-Home-C330", 2462, -71 },
    { "a4:91:b1:0d:77:e0", "BE", "telenet-0D77E", 2412, -76 },
    { "d8:7d:7f:66:10:48", "BE", "Orange-66104", 2437, -79 },
  };
  /* Herzogenrath: the family's Telekom box loudest, their SIM on Telekom */
  static const HeardAp herzogenrath[] = {
    { "e8:1b:69:20:11:c0", "DE", "Telekom-11C0", 2412, -45 },
    { "14:c0:3e:44:70:2d", "DE", "Vodafone-702D", 2462, -70 },
    { "98:9b:cb:61:09:a4", "DE", "FRITZ!Box 7530 RK", 2437, -74 },
    { "4c:1b:86:77:10:e8", "NL", "KPN7710E8", 2412, -78 },
    { "54:67:51:02:9e:a0", "NL", "Ziggo029EA", 2462, -81 },
  };

  add_heard (a, baarle, G_N_ELEMENTS (baarle));
  add_cell (a, "BE");
  add_zone (a, "BE,LU,NL");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpstr (rl_country_to_string (d->country, (char[3]) { 0 }), ==, "00");
    g_assert_nonnull (strstr (d->explanation, "but access points here say NL"));
  }
  g_array_set_size (a, 0);
  add_heard (a, herzogenrath, G_N_ELEMENTS (herzogenrath));
  add_cell (a, "DE");
  add_zone (a, "DE,DK,NO,SE,SJ");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

static void
test_faint_and_zone (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "bc:30:d9:5e:20:4a", "CH", "Swisscom-Box-204A", 2437);
  set_signal (a, 0, -50);
  add_ap (a, "e8:1b:69:20:11:c0", "DE", "Telekom-11C0", 2412);
  add_ap (a, "14:c0:3e:44:70:2d", "DE", "Vodafone-702D", 2462);
  add_ap (a, "98:9b:cb:61:09:a4", "DE", "FRITZ!Box 7530 RK", 2437);
  set_signal (a, 1, -81);
  add_zone (a, "DE,DK,NO,SE,SJ");          /* Europe/Berlin: DE's own zone */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
    g_assert_cmpuint (candidate (d, "DE")->beacon_aps, ==, 3);
    g_assert_cmpuint (candidate (d, "DE")->deciding, ==, 0);
    /* the line does not read as if no German router were heard */
    g_assert_cmpstr (d->summary, ==, "only the timezone points to DE; its access points make no witness");
  }
  set_signal (a, 1, -62);                  /* heard well: a witness, and the zone is DE's */
  set_signal (a, 0, -70);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  g_array_set_size (a, 4);
  add_zone (a, "CH,DE,LI");                /* Europe/Zurich lists DE, but is CH's */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_false (candidate (d, "DE")->timezone);
    g_assert_nonnull (strstr (d->explanation, "not the zone's own country"));
  }
}

/* Rule 4b's hysteresis: a café in Kerkrade (NL) on the Nieuwstraat, whose
 * middle is the German border.  Its own box came from the other side of
 * the street (a Telekom router, DE, -50 dBm on the counter: the faint line
 * is at -80); three Dutch routers in the flats behind; the modem on KPN;
 * a German visitor's Berlin clock.  Scan after scan the Dutch routers'
 * signals wander around the line; whether they are heard well changes
 * only where they leave a band of 5 dB around it. */
static void
test_faint_hysteresis (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (RlDecision) d = NULL;
  /* the loudest Dutch router's signal per scan, and whether NL is then
   * heard well: each decision is made with the one before */
  static const struct { int dbm; gboolean well; } scans[] = {
    { -79, TRUE },   /* first heard just above the line: heard well */
    { -82, TRUE },   /* below the line, but within the band: still */
    { -83, FALSE },  /* below the band: faint */
    { -79, FALSE },  /* above the line, within the band: still faint */
    { -78, FALSE },
    { -77, TRUE },   /* above the band: heard well again */
  };

  add_ap (a, "e8:1b:69:20:11:c0", "DE", "Telekom-11C0", 2412);
  set_signal (a, 0, -50);
  add_ap (a, "e8:ad:a6:73:0c:18", "NL", "KPN730C18", 2437);
  add_ap (a, "44:e1:37:a2:5e:90", "NL", "Ziggo2741169", 2462);
  add_ap (a, "0c:8e:29:55:31:a2", "NL", "Odido-31A2", 2412);
  add_cell (a, "NL");
  add_zone (a, "DE,DK,NO,SE,SJ");
  for (guint i = 0; i < G_N_ELEMENTS (scans); i++)
    {
      RlDecision *next;

      set_signal (a, 1, scans[i].dbm);
      set_signal (a, 2, scans[i].dbm - 3);
      set_signal (a, 3, scans[i].dbm - 5);
      next = decide_at (a, d, NOW + i * 30 * RL_USEC_PER_SEC);
      g_clear_pointer (&d, rl_decision_free);
      d = next;
      if (candidate (d, "NL")->heard_well != scans[i].well)
        g_error ("scan %u at %d dBm: NL heard %s", i, scans[i].dbm, scans[i].well ? "faintly" : "well");
      /* heard well, the Dutch routers and the mast are two witnesses for
       * NL; heard faintly, the mast is alone */
      g_assert_cmpstr (rl_country_to_string (d->country, (char[3]) { 0 }), ==, scans[i].well ? "NL" : "00");
    }
  /* a decision made without the one before has no band: the line itself */
  set_signal (a, 1, -79);
  {
    g_autoptr (RlDecision) fresh = decide_at (a, NULL, NOW);
    g_assert_true (candidate (fresh, "NL")->heard_well);
  }
  set_signal (a, 1, -81);
  set_signal (a, 2, -84);
  set_signal (a, 3, -86);
  {
    g_autoptr (RlDecision) fresh = decide_at (a, NULL, NOW);
    g_assert_false (candidate (fresh, "NL")->heard_well);
  }
}

/* Rule 4b, the loudest router sends no country: a flat in Valga (EE) on
 * the Latvian line, its own router on the desk sending no Country element,
 * an Elisa box next door, three Latvian routers across the street heard
 * faintly, the modem roaming on LMT's mast in Valka. */
static void
test_faint_beside_silent_router (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "f8:08:4f:31:0e:20", "EE", "Elisa-0E20", 2437);
  set_signal (a, 0, -64);
  add_ap (a, "30:fb:b8:52:6a:11", "LV", "Tet-6A11", 2412);
  add_ap (a, "08:60:83:19:c4:07", "LV", "LMT-C407", 2462);
  add_ap (a, "d0:37:45:8e:21:5c", "LV", "Bite-215C", 2437);
  set_signal (a, 1, -81);
  add_cell (a, "LV");
  add_zone (a, "EE");                      /* Europe/Tallinn */
  {
    /* without the silent router the Latvian routers are heard well
     * beside the Elisa box: with LMT's mast, two witnesses */
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "LV", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  {
    g_autoptr (RlDecision) d = decide_beside_silent (a, -41);
    g_assert_cmpstr (rl_country_to_string (d->country, (char[3]) { 0 }), ==, "00");
    g_assert_cmpuint (candidate (d, "LV")->deciding, ==, 1);   /* the mast alone */
    g_assert_nonnull (strstr (d->explanation, "all heard faintly beside an access point at -41 dBm that sends no country"));
  }
  {
    /* quieter than the Elisa box: the box is the reference, as before */
    g_autoptr (RlDecision) d = decide_beside_silent (a, -70);
    assert_decision (d, "LV", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  /* Without the Elisa box and the mast: the Estonian clock alone still
   * names a country that touches LV, across the street */
  g_array_remove_index (a, 0);
  g_array_set_size (a, 3);
  add_zone (a, "EE");
  {
    g_autoptr (RlDecision) d = decide_beside_silent (a, -41);
    g_assert_nonnull (strstr (d->explanation, "all heard faintly beside an access point"));
  }
  /* An American's laptop in a Latvian village: a clock from far away is a
   * traveller's, and the neighbours' routers stay heard well */
  g_array_set_size (a, 3);
  add_zone (a, "US");                      /* America/New_York */
  add_cell (a, "LV");
  {
    g_autoptr (RlDecision) d = decide_beside_silent (a, -41);
    assert_decision (d, "LV", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  g_array_set_size (a, 3);
  add_zone (a, "LV");                      /* Europe/Riga: nothing names another country */
  {
    g_autoptr (RlDecision) d = decide_beside_silent (a, -41);
    assert_decision (d, "LV", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* Beside a clean fix, a 2:2 split by operators confirms the fix's country;
 * beside a fix whose circle does not reach a country, that country's
 * routers make one witness at most and the fix does not confirm it. */
static void
test_plurality_and_circle (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_gps (a, "CH", 30);
  add_ap (a, "00:0b:86:40:10:01", "CH", "GVA-FREE-WIFI", 2412);
  add_ap (a, "bc:30:d9:40:10:02", "CH", "Swisscom", 2437);
  add_ap (a, "00:3a:7d:40:10:03", "FR", "AF-Lounge", 2462);
  add_ap (a, "f8:08:4f:40:10:04", "FR", "Livebox-1004", 5180);
  add_zone (a, "FR,MC");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpuint (candidate (d, "CH")->witnesses, ==, 2);
  }
  /* one more FR: FR outvotes CH, no plurality; but two Swiss operators
   * stand beside the fix (rule 10): the French APs it contradicts do not
   * vote */
  add_ap (a, "00:1f:9f:40:10:05", "FR", "SFR_1005", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpuint (d->suspects->len, ==, 3);
  }
  /* without Swisscom the fix stays alone: no plurality, 00 */
  g_array_remove_index (a, 2);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
  }

  /* a ±12 m fix 71 m inside BE names NL within the margin only */
  g_autoptr (GArray) b = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  add_gps (b, "BE,NL", 12);
  g_array_index (b, RlEvidence, 0).gps.border_m = 71;
  add_ap (b, "e4:c3:2a:50:00:01", "NL", "KPN-0001", 2412);
  add_ap (b, "34:2c:c4:50:00:02", "NL", "Ziggo-0002", 2437);
  add_ap (b, "20:e8:82:50:00:03", "NL", "Odido-0003", 2462);
  add_ap (b, "c0:06:c3:50:00:04", "NL", "DELTA-0004", 5180);
  add_zone (b, "NL");
  {
    g_autoptr (RlDecision) d = decide_at (b, NULL, NOW);
    const RlCandidate *nl = candidate (d, "NL");
    g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
    g_assert_false (nl->gps);
    g_assert_cmpuint (nl->deciding, ==, 1);   /* dissent of the fix: one beacon witness */
  }
  /* the border inside the circle: the fix confirms NL */
  g_array_index (b, RlEvidence, 0).gps.border_m = 10;
  {
    g_autoptr (RlDecision) d = decide_at (b, NULL, NOW);
    assert_decision (d, "NL", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* Rule 2: LA siblings are one device; LA addresses without a sibling are
 * one operator with one vote and never a witness on their own. */
static void
test_locally_administered (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const char *const hotel[] = {   /* one AP, five SSIDs, set to IT */
    "3c:a6:2f:11:22:30", "3e:a6:2f:11:22:30", "3a:a6:2f:11:22:30", "3c:a6:2f:11:22:31", "3e:a6:2f:11:22:35",
  };
  static const char *const ssid[] = { "Hotel Alpenhof", "Hotel Alpenhof Guest", "Alpenhof Staff", "Alpenhof IoT", "Alpenhof Spa" };

  for (guint i = 0; i < G_N_ELEMENTS (hotel); i++)
    add_ap (a, hotel[i], "IT", ssid[i], 2437);
  add_zone (a, "AT");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *it = candidate (d, "IT");
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
    g_assert_cmpuint (it->beacon_bssids, ==, 5);
    g_assert_cmpuint (it->beacon_devices, ==, 1);
    g_assert_cmpuint (it->beacon_aps, ==, 1);
    g_assert_cmpuint (it->beacon_operators, ==, 1);
    g_assert_nonnull (strstr (d->explanation, "5 BSSIDs in 1 group (one vote per device or network) from 1 operator say IT"));
  }
  /* eight travellers' hotspots: made-up addresses, US and GB */
  g_array_set_size (a, 0);
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *b = g_strdup_printf ("%02x:%02x:9e:%02x:41:%02x", 0x02 | (0x10 * i), 0x30 + i, 0x11 * i, i);
      add_ap (a, b, i < 5 ? "US" : "GB", i < 5 ? "iPhone" : "Galaxy S23", 2412 + 5 * i);
      g_array_index (a, RlEvidence, a->len - 1).beacon.ssid[0] = (char) ('A' + i);
    }
  add_zone (a, "US");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *us = candidate (d, "US");
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
    g_assert_cmpuint (us->beacon_aps, ==, 1);
    g_assert_cmpuint (us->beacon_operators, ==, 1);
    g_assert_cmpuint (us->witnesses, ==, 1);
    g_assert_null (candidate (d, "GB"));
    g_assert_nonnull (strstr (d->explanation, "8 locally administered access points without a sibling"));
  }
}

/* Rule 4: the phone-hotspot pool neither makes nor breaks a witness.  A
 * Swiss family's flat in Avoriaz: four French operators' boxes, the
 * family's own travel router and one of their phones' hotspots (both CH),
 * the clock on Europe/Zurich.  The phone goes where its owner goes; its
 * pooled vote was the second vote of dissent that kept France to one
 * witness. */
static void
test_pool_breaks_no_witness (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "a4:3e:51:10:20:30", "FR", "Livebox-2030", 2412);
  add_ap (a, "00:24:d4:51:62:73", "FR", "freebox_ABCDEF", 2437);
  add_ap (a, "e8:ad:a6:40:50:60", "FR", "SFR_5060", 2462);
  add_ap (a, "34:27:92:71:82:93", "FR", "Bbox-718293", 5180);
  add_ap (a, "94:83:c4:21:5e:a0", "CH", "GL-MT3000-5ea", 2437);
  add_ap (a, "ae:44:19:2b:70:08", "CH", "iPhone de Lea", 2462);
  add_zone (a, "CH,DE,LI");
  g_strlcpy (g_array_index (a, RlEvidence, a->len - 1).detail, "Europe/Zurich",
             sizeof g_array_index (a, RlEvidence, a->len - 1).detail);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *fr = candidate (d, "FR");
    const RlCandidate *ch = candidate (d, "CH");
    assert_decision (d, "FR", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpuint (fr->witnesses, ==, 2);
    g_assert_cmpuint (ch->beacon_aps, ==, 2);       /* the router and the pool: shown */
    g_assert_nonnull (strstr (d->explanation, "neither makes nor breaks a witness"));
    /* the travel router is dissent; the phone's hotspot is said apart, as
     * the pool, not listed as dissent beside it */
    g_assert_nonnull (strstr (d->explanation, "Dissent: beacon:94:83:c4:21:5e:a0 says CH."));
    g_assert_null (strstr (d->explanation, "ae:44:19:2b:70:08"));
    /* the clock names CH, DE and LI, not FR: said, though it never decides */
    g_assert_nonnull (strstr (d->explanation, "The timezone Europe/Zurich"));
    g_assert_nonnull (strstr (d->explanation, "names another country."));
  }
  /* a second travel router of another vendor is dissent: one witness */
  add_ap (a, "c4:ad:34:5e:6f:70", "CH", "Swisscom-Box", 2412);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    /* the pool is no operator in the words either */
    g_assert_nonnull (strstr (d->explanation, "3 access points from 2 operators say CH"));
  }
}

/* Rule 5: one operator's large network yields to a clean fix naming only
 * another country.  An ÖBB Railjet in the Deutsches Eck: the train's eight
 * Cisco APs say AT, the fix lies 5 km inside Germany, the clock is Vienna's.
 * Before, two strong witnesses disagreed: a conflict until rule 4c marked
 * the network as riding along, 17 min. */
static void
test_network_yields_to_fix (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 chan[] = { 2412, 2437, 2462, 5180, 5240, 5500 };

  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *b = g_strdup_printf ("00:3a:7d:5e:%02x:01", 0x10 + i);
      add_ap (a, b, "AT", "OEBB", chan[i % G_N_ELEMENTS (chan)]);
    }
  add_zone (a, "AT");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_true (candidate (d, "AT")->beacon_network);
  }
  add_gps (a, "DE", 8);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *at = candidate (d, "AT");
    g_assert_false (d->in_conflict);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_false (at->beacon_network);
    g_assert_cmpuint (at->deciding, ==, 0);
    g_assert_nonnull (strstr (d->explanation, "yields to the GPS fix"));
  }
  /* two roadside routers of German operators: the fix's second witness */
  add_ap (a, "3c:a6:2f:61:00:01", "DE", "FRITZ!Box 7530 RT", 2412);
  add_ap (a, "00:1f:3f:62:00:02", "DE", "Vodafone-6200", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
}

/* The texts: a decision on the modem's network and the clock alone (an
 * LTE router's, or a laptop on a boat on Lake Titicaca hearing no access
 * point) says that nothing places the machine; with a router of the
 * country beside them it does not. */
static void
test_cell_and_clock_said (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_cell (a, "PE");
  add_zone (a, "PE");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "PE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_nonnull (strstr (d->explanation, "Nothing here places the machine: the modem's network and the clock say "
                                              "where its owner lives"));
  }
  add_ap (a, "c8:ea:f8:40:6a:30", "PE", "CLARO-6A30", 2437);
  add_ap (a, "44:d7:91:6e:9c:80", "PE", "MOVISTAR_9C80", 2412);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "PE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_null (strstr (d->explanation, "Nothing here places the machine"));
  }
}

/* The texts: where a country has the votes for a witness but not the
 * share, the count says why.  A Warsaw block: nine Polish boxes of three
 * makers (six votes after the cap of two per operator) and four imported
 * routers of four makers. */
static void
test_share_short_said (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const HeardAp block[] = {
    { "f8:08:4f:11:20:00", "PL", "Orange_Swiatlowod_A3F2", 2412, -45 },
    { "f8:08:4f:3a:71:10", "PL", "Orange_Swiatlowod_1B2C", 2437, -66 },
    { "f8:08:4f:52:09:40", "PL", "Orange_Swiatlowod_4F07", 2462, -74 },
    { "b4:f2:67:20:11:a0", "PL", "UPC4719023", 2412, -62 },
    { "b4:f2:67:4e:c2:30", "PL", "UPC4719054", 2437, -71 },
    { "b4:f2:67:7b:05:d0", "PL", "UPC4719085", 2462, -74 },
    { "d0:37:45:01:aa:10", "PL", "TP-Link_5E10", 2437, -67 },
    { "d0:37:45:19:3c:20", "PL", "TP-Link_6147", 2412, -70 },
    { "d0:37:45:62:e8:70", "PL", "TP-Link_647E", 2462, -72 },
    { "a4:45:19:8c:3d:00", "CN", "Xiaomi_8C3D", 2437, -71 },
    { "b4:0f:3b:21:b0:f0", "CN", "Tenda_21B0F8", 2412, -73 },
    { "3c:a6:2f:77:10:20", "DE", "FRITZ!Box 7590 UQ", 2462, -69 },
    { "38:94:ed:42:00:10", "US", "NETGEAR42", 2437, -72 },
  };

  add_heard (a, block, G_N_ELEMENTS (block));
  add_zone (a, "PL");
  g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
  assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
  g_assert_nonnull (strstr (d->explanation, "The most support has PL, with 1 witness (confidence 0.40), which may not "
                                            "decide: "));
  g_assert_nonnull (strstr (d->explanation, "6 votes after the cap of 2 per operator; 6 of the 10 votes, short of the "
                                            "share of 67 % a witness needs"));
}

/* Rule 5: a network is the devices that send one SSID.  A Toronto condo
 * floor: nine households' gateways of one maker, each on its own SSID in
 * both bands, are nine households, not one operator's large network (which
 * needs a fix or other operators beside it before the clock may confirm
 * it); the same nine devices sending one SSID (a building's network, with
 * a 5 GHz name of its own) are one. */
static void
test_network_is_one_ssid (void)
{
  for (guint shared = 0; shared < 2; shared++)
    {
      g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
      static const guint32 chan24[] = { 2412, 2437, 2462 }, chan5[] = { 5180, 5240, 5745 };

      for (guint i = 0; i < 9; i++)
        {
          g_autofree char *b24 = g_strdup_printf ("a0:ff:70:3c:%02x:10", 0x20 + i);
          g_autofree char *b5 = g_strdup_printf ("a0:ff:70:3c:%02x:11", 0x20 + i);
          g_autofree char *home = g_strdup_printf ("Rogers-%04X", 0x5a10 + i);
          g_autofree char *home5 = g_strdup_printf ("Rogers-%04X-5G", 0x5a10 + i);
          add_ap (a, b24, "CA", shared ? "Harbour-Residents" : home, chan24[i % 3]);
          add_ap (a, b5, "CA", shared ? "Harbour-Residents-5G" : home5, chan5[i % 3]);
        }
      add_zone (a, "CA,BS");
      g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
      g_assert_cmpint (candidate (d, "CA")->beacon_network, ==, shared);
    }
}

/* Rule 5, the reasons: a Frankfurt hotel whose network was set up on its
 * US chain's template (eight APs on three channels in two bands say US),
 * three street routers of three German operators, a guest's German SIM:
 * DE.
 * The dissent lists the hotel's access points; the reasons say why they
 * did not count (a Vatican office's network beside Italian routers read as
 * if eight access points had been outvoted by three). */
static void
test_network_yielded_reason (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 chan[] = { 2412, 2437, 5180, 5240, 5500, 2462 };

  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *b = g_strdup_printf ("f4:bd:9e:7c:%02x:6f", 0x20 + i);
      add_ap (a, b, "US", "Guest-WiFi", chan[i % G_N_ELEMENTS (chan)]);
    }
  add_ap (a, "3c:a6:2f:61:00:01", "DE", "FRITZ!Box 7530 RT", 2412);
  add_ap (a, "00:1f:3f:62:00:02", "DE", "Vodafone-6200", 2437);
  add_ap (a, "e8:1b:69:63:00:03", "DE", "Telekom-6300", 2462);
  add_cell (a, "DE");
  g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
  assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  g_assert_false (candidate (d, "US")->beacon_network);
  g_assert_nonnull (strstr (d->explanation, "US's network of 8 devices is one operator's word and yields to the "
                                            "access points of several operators naming another country."));
}

/* The same reason where the routers it yields to are heard only faintly:
 * a US cruise ship moored at the Kehl quay, its network loud in the cabin,
 * two German routers on the quay 34–36 dB below it.  They make no witness
 * and are called "at most dissent"; the text says why the ship's network
 * yields to them all the same. */
static void
test_network_yields_to_faint_reason (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 chan[] = { 2412, 2437, 5180, 5240, 5500, 2462 };
  static const HeardAp quay[] = {
    { "3c:a6:2f:61:00:01", "DE", "FRITZ!Box 7590 HK", 2412, -80 },
    { "e8:1b:69:63:00:03", "DE", "Telekom-6300", 2462, -82 },
  };

  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *b = g_strdup_printf ("00:0b:86:7c:%02x:10", 0x20 + i);
      add_ap (a, b, "US", "Ocean-Guest", chan[i]);
      set_signal (a, a->len - 1, -46);
    }
  add_heard (a, quay, G_N_ELEMENTS (quay));
  add_zone (a, "US");
  g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
  assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
  g_assert_false (candidate (d, "DE")->heard_well);
  /* another country's faint routers are at most dissent ... */
  g_assert_nonnull (strstr (d->explanation, "say DE (no witness; all heard faintly, at most dissent)"));
  g_assert_nonnull (strstr (d->explanation, "yields to the access points of several operators naming another "
                                            "country: heard faintly, they make no witness, but beside them one "
                                            "operator's network is no place on its own"));
  /* ... the country the text is about has them as its support, however
   * little: never "dissent" beside its own name */
  g_autoptr (GArray) b = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  add_heard (b, quay, G_N_ELEMENTS (quay));
  add_zone (b, "DE,DK,NO,SE,SJ");
  add_ap (b, "00:0b:86:7c:20:10", "US", "Ocean-Guest", 2412);
  set_signal (b, b->len - 1, -46);
  g_autoptr (RlDecision) e = decide_at (b, NULL, NOW);
  g_assert_nonnull (strstr (e->explanation, "say DE (no witness; all heard faintly)"));
  g_assert_null (strstr (e->explanation, "say DE (no witness; all heard faintly, at most dissent)"));
}

/* Rule 10: a delegation's US travel routers in a Berlin hotel, the fix far
 * inside Germany.  A lone fix against their beacon witness is a conflict
 * (rule 7); with a modem on a German network too the fix has a witness of
 * its own beside it, the routers it contradicts do not vote, DE.  A modem
 * on another country's network, or a second one, leaves the conflict. */
static void
test_fix_and_cell_outvote_aps (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const char *const us[] = { "00:15:ff:3a:11:20", "9c:c9:eb:42:77:10", "94:83:c4:5b:20:31",
                                    "00:0a:f5:61:0d:02", "50:c7:bf:77:9e:14" };
  RlEvidence cell;

  for (guint i = 0; i < G_N_ELEMENTS (us); i++)
    add_ap (a, us[i], "US", "Travel", 2412 + 5 * i);
  add_ap (a, "00:0b:86:a1:10:20", "DE", "Hyatt_WiFi", 2437);
  add_zone (a, "US");
  add_gps (a, "DE", 45);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_CONFLICT, RL_REASON_CONFLICT);
  }
  rl_evidence_init (&cell, RL_SOURCE_CELL, "cell:0", NOW - RL_USEC_PER_SEC, RL_NEVER);
  rl_evidence_add_country (&cell, RL_COUNTRY ('D', 'E'));
  g_array_append_val (a, cell);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_false (d->in_conflict);
    g_assert_cmpuint (d->suspects->len, ==, G_N_ELEMENTS (us));
    g_assert_nonnull (strstr (d->explanation, "5 access points a GPS fix contradicted stay suspect"));
  }
  /* a second modem roaming on a French network: not the fix's country */
  g_strlcpy (cell.key, "cell:1", sizeof cell.key);
  cell.countries[0] = RL_COUNTRY ('F', 'R');
  g_array_append_val (a, cell);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_true (d->in_conflict);
  }
  /* one modem, on the French network alone */
  g_array_remove_index (a, a->len - 2);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_true (d->in_conflict);
  }
}

/* Rule 10: a Makati condo, the fix far inside the Philippines, five
 * neighbours' routers of five vendors on US factory defaults.  Beside one
 * PLDT box the fix is still alone against their beacon witness (a
 * conflict); with a Globe box too, two Philippine operators heard well
 * stand beside it: the routers it contradicts do not vote, PH.  Two boxes
 * of one operator, or a second one heard only faintly, are not enough. */
static void
test_fix_and_local_aps_outvote_aps (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const char *const us[] = { "50:c7:bf:21:30:01", "c0:06:c3:44:10:7e", "a0:40:a0:5d:2e:11",
                                    "1c:7e:e5:63:02:9a", "04:d9:f5:18:6c:40" };

  for (guint i = 0; i < G_N_ELEMENTS (us); i++)
    add_ap (a, us[i], "US", "Home", 2412 + 5 * i);
  add_ap (a, "e8:65:d4:30:11:02", "PH", "PLDTHOMEFIBR3a1c", 2437);
  add_zone (a, "PH");
  add_gps (a, "PH", 25);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_CONFLICT, RL_REASON_CONFLICT);
  }
  /* a Globe box, heard only at -88 dBm: not heard well */
  add_ap (a, "84:d8:1b:52:40:1f", "PH", "GlobeAtHome_401F", 2412);
  set_signal (a, a->len - 1, -88);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_true (d->in_conflict);
  }
  /* … heard at -70 dBm: two operators beside the fix */
  set_signal (a, a->len - 1, -70);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "PH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_false (d->in_conflict);
    g_assert_cmpuint (d->suspects->len, ==, G_N_ELEMENTS (us));
  }
  /* a second PLDT box instead (the same OUI): one operator, a conflict */
  g_array_set_size (a, a->len - 1);
  add_ap (a, "e8:65:d4:30:22:07", "PH", "PLDTHOMEFIBR7c02", 2462);
  set_signal (a, a->len - 1, -70);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_true (d->in_conflict);
  }
}

/* Access points: one vendor's OUIs (the IEEE listing) are one operator
 * where their SSIDs share a brand stem.  A Vienna flat: four neighbours'
 * FRITZ!Boxes bought in Germany, four AVM OUIs (one registered as "AVM
 * GmbH", three under AVM's full name), all "FRITZ!Box …" and on
 * their German default; one Magenta box says AT; the clock is Vienna's.
 * One factory setup is one operator: its two votes (the cap) make one
 * witness, not two, and DE is not decided.  Renamed, the four are four
 * households' choices again; ISPs' boxes of one maker (TIM and Fastweb,
 * both Arcadyan) with their own SSIDs stay two operators. */
static void
test_one_vendor_one_setup (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const char *const avm[] = { "98:9b:cb:10:20:30", "d0:12:cb:11:21:30", "7c:ff:4d:12:22:30",
                                     "34:31:c4:13:23:30" };
  static const char *const fritz[] = { "FRITZ!Box 7530 KD", "FRITZ!Box 7590 QX", "FRITZ!Box 7490 ZT",
                                       "FRITZ!Box 6660 Cable LM" };
  static const char *const renamed[] = { "Wohnung 12", "Huber", "Zuhause-5G", "Kaffeehaus" };

  /* the IEEE listing: AVM's OUIs are one vendor, Arcadyan's another */
  g_assert_cmphex (rl_oui_vendor (0xd012cb), ==, rl_oui_vendor (0x989bcb));
  g_assert_cmphex (rl_oui_vendor (0xccce1e), ==, rl_oui_vendor (0x7cff4d));
  g_assert_cmphex (rl_oui_vendor (0x4c1b86), ==, rl_oui_vendor (0xe05163));
  g_assert_cmphex (rl_oui_vendor (0x4c1b86), !=, rl_oui_vendor (0xd012cb));
  /* AVM registered as "AVM GmbH" too, Huawei as "Huawei Device" too */
  g_assert_cmphex (rl_oui_vendor (0x3431c4), ==, rl_oui_vendor (0xd012cb));
  g_assert_cmphex (rl_oui_vendor (0x10327e), ==, rl_oui_vendor (0xac6175));

  for (guint i = 0; i < G_N_ELEMENTS (avm); i++)
    add_ap (a, avm[i], "DE", fritz[i], 2412 + 25 * i);
  add_ap (a, "38:43:7d:14:24:30", "AT", "Magenta-40AF", 2462);
  add_zone (a, "AT");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *de = candidate (d, "DE");
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_nonnull (de);
    g_assert_cmpuint (de->beacon_operators, ==, 1);
    g_assert_nonnull (strstr (d->explanation, "4 access points from 1 operator say DE"));
  }
  /* renamed: four households' own setups, four operators (two witnesses) */
  for (guint i = 0; i < G_N_ELEMENTS (avm); i++)
    g_strlcpy (g_array_index (a, RlEvidence, i).beacon.ssid, renamed[i], 33);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (candidate (d, "DE")->beacon_operators, ==, 4);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  /* Bolzano: a TIM and a Fastweb box, both made by Arcadyan */
  g_array_set_size (a, 0);
  add_ap (a, "4c:1b:86:0e:7a:55", "IT", "TIM-29871345", 2412);
  add_ap (a, "e0:51:63:44:2d:19", "IT", "FASTWEB-442D19", 5180);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (candidate (d, "IT")->beacon_operators, ==, 2);
  }
  /* two Fastweb boxes of two Arcadyan OUIs: one ISP's setup */
  g_strlcpy (g_array_index (a, RlEvidence, 0).beacon.ssid, "FASTWEB-0E7A55", 33);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (candidate (d, "IT")->beacon_operators, ==, 1);
  }
}

/* Rule 5: the network never decides with the timezone alone, also where
 * its own votes make the share beside one other device.  A cruise cabin
 * out at sea, no GPS: the ship's guest network (six Cisco devices on six
 * channels in two bands) and its second network of another vendor, both
 * US, the New York clock: 00, as with the network alone.  The US
 * embassy in Mexico City is the same shape: its network and one
 * diplomat's MiFi.  Beside two other operators' routers naming it (a
 * hotel's network and the street) the clock confirms; when a scan misses
 * one of them the decision is kept for support_grace, as the network is
 * not alone. */
static void
test_network_and_one_device (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 mhz[] = { 2412, 5220, 2462, 5785, 2437, 5180 };

  for (guint i = 0; i < G_N_ELEMENTS (mhz); i++)
    {
      g_autofree char *bssid = g_strdup_printf ("00:3a:7d:4d:1%u:a0", i);
      add_ap (a, bssid, "US", "WiFi@Sea", mhz[i]);
    }
  add_ap (a, "e0:63:da:2c:10:a0", "US", "OceanMedallion", 2437);
  add_zone (a, "US");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_cmpuint (candidate (d, "US")->witnesses, ==, 1);
    g_assert_nonnull (strstr (d->explanation, "one operator's network needs a GPS fix beside it, or other "
                                              "operators' access points enough for a witness of their own"));
  }
  /* a hotel's network instead, and two operators' routers of the street */
  g_array_remove_index (a, 6);
  add_ap (a, "34:4b:50:81:c2:7e", "US", "Spectrum-C27E", 2462);
  add_ap (a, "50:c7:bf:62:0a:18", "US", "NETGEAR-0A18", 5180);
  {
    g_autoptr (RlDecision) decided = decide_at (a, NULL, NOW);
    assert_decision (decided, "US", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    /* a scan misses one of them: kept for the grace */
    g_array_remove_index (a, a->len - 1);
    g_autoptr (RlDecision) d = decide_at (a, decided, NOW + 60 * RL_USEC_PER_SEC);
    assert_decision (d, "US", RL_STATE_DECIDED, RL_REASON_SUPPORT_WANING);
  }
}

/* Rule 8 with a modem's network left: a car on the A23 in the Canal valley
 * (IT, far from any border), the fix and Vodafone IT's network decide IT.
 * In a 60 s gallery the fix is lost: the network is a deciding witness of
 * its own, and IT is kept for support_grace.  A modem's network left when
 * access points went is no such case: they may have gone as the machine
 * crossed a border with the SIM still on the old side's mast. */
static void
test_support_waning_cell (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  const gint64 minute = 60 * RL_USEC_PER_SEC;

  add_cell (a, "IT");
  add_gps (a, "IT", 10);
  {
    g_autoptr (RlDecision) decided = decide_at (a, NULL, NOW);
    assert_decision (decided, "IT", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_array_set_size (a, 1);
    g_autoptr (RlDecision) d1 = decide_at (a, decided, NOW + minute);
    g_autoptr (RlDecision) d2 = decide_at (a, d1, NOW + 3 * minute);
    assert_decision (d1, "IT", RL_STATE_DECIDED, RL_REASON_SUPPORT_WANING);
    assert_decision (d2, "00", RL_STATE_WORLD, RL_REASON_SUPPORT_LOST);
  }
  /* the same network beside four Italian operators' routers, which go */
  add_ap (a, "58:b6:33:4a:10:21", "IT", "TIM-29871345", 5180);
  add_ap (a, "34:4b:50:81:c2:7e", "IT", "Vodafone-C27E", 2437);
  add_ap (a, "00:e0:fc:3d:91:05", "IT", "WINDTRE-9105", 2462);
  add_ap (a, "50:c7:bf:62:0a:18", "IT", "FASTWEB-0A18", 2412);
  {
    g_autoptr (RlDecision) decided = decide_at (a, NULL, NOW);
    assert_decision (decided, "IT", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_array_set_size (a, 1);
    g_autoptr (RlDecision) d = decide_at (a, decided, NOW + minute);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SUPPORT_LOST);
  }
}

/* Rule 8: a hotel in Ceuta, four Spanish operators' routers; the faintest
 * is missed by two scans in a row.  ES keeps its decision on the three
 * left (one beacon witness) for support_grace, returns to 00 when the
 * grace ends without a second witness, and at once when another country
 * gains a witness. */
static void
test_support_waning (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (RlDecision) decided = NULL;
  const gint64 minute = 60 * RL_USEC_PER_SEC;

  add_ap (a, "58:b6:33:4a:10:21", "ES", "HotelUlisesCeuta", 5180);
  add_ap (a, "34:4b:50:81:c2:7e", "ES", "MOVISTAR_C27E", 2437);
  add_ap (a, "00:e0:fc:3d:91:05", "ES", "Orange-9105", 2462);
  add_ap (a, "50:c7:bf:62:0a:18", "ES", "DIGIFIBRA-0A18", 2412);
  decided = decide_at (a, NULL, NOW);
  assert_decision (decided, "ES", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  g_array_set_size (a, 3);
  {
    g_autoptr (RlDecision) d1 = decide_at (a, decided, NOW + minute);
    g_autoptr (RlDecision) d2 = decide_at (a, d1, NOW + 2 * minute);
    g_autoptr (RlDecision) d3 = decide_at (a, d2, NOW + 3 * minute);
    assert_decision (d1, "ES", RL_STATE_DECIDED, RL_REASON_SUPPORT_WANING);
    g_assert_cmpint (d1->next_check, ==, NOW + 3 * minute);
    g_assert_nonnull (strstr (d1->explanation, "down to one witness"));
    assert_decision (d2, "ES", RL_STATE_DECIDED, RL_REASON_SUPPORT_WANING);
    assert_decision (d3, "00", RL_STATE_WORLD, RL_REASON_SUPPORT_LOST);
  }
  /* two Moroccan operators' routers: a witness for MA ends it at once */
  add_ap (a, "00:1e:42:61:70:01", "MA", "Maroc-Telecom-7001", 2412);
  add_ap (a, "e4:95:6e:62:70:02", "MA", "inwi-7002", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, decided, NOW + minute);
    g_assert_true (d->state != RL_STATE_DECIDED);
  }
}

/* Rule 8 beside a large network: an Aqaba hotel's network of six devices
 * and two Jordanian operators' routers; the fainter missed, the network
 * and the other router are one witness and keep JO for the grace.  The
 * network alone (a vehicle's own, which goes where the vehicle goes) does
 * not. */
static void
test_support_waning_network (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (RlDecision) decided = NULL;
  static const guint32 chan[] = { 2412, 2437, 2462, 5180, 5220, 5260 };
  const gint64 minute = 60 * RL_USEC_PER_SEC;

  for (guint i = 0; i < G_N_ELEMENTS (chan); i++)
    {
      g_autofree char *b = g_strdup_printf ("58:b6:33:22:%02x:10", 0x30 + i);
      add_ap (a, b, "JO", "Aqaba-Resort-Guest", chan[i]);
    }
  add_ap (a, "00:1e:42:61:70:01", "JO", "Zain-Fiber-7001", 2412);
  add_ap (a, "e4:95:6e:62:70:02", "JO", "Orange-7002", 2437);
  decided = decide_at (a, NULL, NOW);
  assert_decision (decided, "JO", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  g_array_set_size (a, a->len - 1);
  {
    g_autoptr (RlDecision) d = decide_at (a, decided, NOW + minute);
    assert_decision (d, "JO", RL_STATE_DECIDED, RL_REASON_SUPPORT_WANING);
    g_assert_cmpuint (candidate (d, "JO")->witnesses, ==, 1);
  }
  g_array_set_size (a, a->len - 1);
  {
    g_autoptr (RlDecision) d = decide_at (a, decided, NOW + minute);
    g_assert_true (d->state != RL_STATE_DECIDED);
  }
}

/* Rule 8: a Dili guesthouse (TL: no rules, so 00), an Indonesian
 * visitor's clock, two networks set to ID and two Timor-Leste routers, the
 * fainter missed by a scan and withdrawn.  Agreement on ID that began as
 * the scan withdrew it waits for the next scan, which hears it again. */
static void
test_next_scan (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (RlDecision) d0 = NULL;
  g_autoptr (RlDecision) d1 = NULL;
  g_autoptr (RlDecision) d2 = NULL;
  const gint64 s = RL_USEC_PER_SEC;

  add_zone (a, "ID");
  add_ap (a, "b0:a7:b9:10:00:01", "ID", "Hotel-Timor-Guest", 2437);
  add_ap (a, "34:4b:50:20:00:02", "ID", "Telkomcel-Fiber", 2462);
  add_ap (a, "00:e0:fc:30:00:03", "TL", "TT_WiFi", 2412);
  add_ap (a, "50:c7:bf:40:00:04", "TL", "TP-Link_A10C", 2437);
  d0 = decide_at (a, NULL, NOW);
  assert_decision (d0, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
  /* the scan at +40 s missed the faint router: ID holds 2 of 3 votes */
  g_array_set_size (a, 4);
  d1 = decide_at (a, d0, NOW + 40 * s);
  assert_decision (d1, "00", RL_STATE_TENTATIVE, RL_REASON_HOLD_DOWN);
  g_assert_cmpint (d1->candidate_heard, ==, NOW - s);
  g_assert_nonnull (strstr (d1->explanation, "must outlast the next scan"));
  d2 = decide_at (a, d1, NOW + 70 * s);
  assert_decision (d2, "00", RL_STATE_TENTATIVE, RL_REASON_HOLD_DOWN);
  g_assert_cmpint (d2->next_check, >, NOW + 70 * s);   /* the scan is the next instant */
  /* the next scan at +80 s hears the faint router again: 00 */
  for (guint i = 0; i < a->len; i++)
    g_array_index (a, RlEvidence, i).observed_at = NOW + 80 * s;
  add_ap (a, "50:c7:bf:40:00:04", "TL", "TP-Link_A10C", 2437);
  g_array_index (a, RlEvidence, a->len - 1).observed_at = NOW + 80 * s;
  {
    g_autoptr (RlDecision) d = decide_at (a, d2, NOW + 80 * s);
    g_assert_true (d->state != RL_STATE_DECIDED);
    g_assert_cmpint (d->country, ==, RL_COUNTRY_WORLD);
  }
  /* … or misses it again: the agreement outlasted a scan, ID is decided */
  g_array_set_size (a, 4);
  {
    g_autoptr (RlDecision) d = decide_at (a, d2, NOW + 80 * s);
    assert_decision (d, "ID", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  /* agreement that began as access points were heard (nothing withdrawn)
   * waits only for the hold-down */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW + 80 * s);
    assert_decision (d, "ID", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpint (d->candidate_heard, ==, 0);
  }
}

/* The sibling rules exactly: (A) octets 2-6 equal, any first octet; (B)
 * first octet equal but for the LA bit, octets 2-5 equal, last octet equal
 * but for its low nibble.  Anything else is no sibling: the pool. */
static void
test_la_sibling_rules (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "3c:a6:2f:11:22:33", "DE", "FRITZ!Box 7590 XY", 2412);
  add_ap (a, "3e:a6:2f:11:22:3a", "DE", "FRITZ!Box Gastzugang", 2412);   /* B */
  add_ap (a, "7a:a6:2f:11:22:33", "DE", "FRITZ!Box Mesh", 5180);         /* A */
  add_ap (a, "32:a6:2f:11:22:43", "DE", "Hotspot", 2437);                /* A: octet 6 differs; B: octet 1 and octet 6 high nibble: none */
  add_ap (a, "3e:a6:2f:11:23:33", "DE", "Other", 2437);                  /* octet 5 differs: none */
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *de = candidate (d, "DE");
    g_assert_cmpuint (de->beacon_bssids, ==, 3 + 2);   /* the device's three, the pool's two */
    g_assert_cmpuint (de->beacon_devices, ==, 1 + 2);  /* one device, two pool groups naming DE */
    g_assert_cmpuint (de->beacon_aps, ==, 2);         /* the device + the pool's one vote */
    g_assert_cmpuint (de->beacon_operators, ==, 2);
    g_test_message ("%s", d->explanation);
  }
  /* made-up siblings that name another code cannot turn a real device's vote */
  g_array_set_size (a, 0);
  add_ap (a, "3c:a6:2f:11:22:33", "DE", "FRITZ!Box 7590 XY", 2412);
  add_ap (a, "3e:a6:2f:11:22:33", "US", "free", 2412);
  add_ap (a, "7e:a6:2f:11:22:33", "US", "free2", 2412);
  add_ap (a, "3e:a6:2f:11:22:34", "US", "free3", 2412);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (candidate (d, "DE")->beacon_aps, ==, 1);
    g_assert_cmpuint (candidate (d, "DE")->beacon_bssids, ==, 4);
    g_assert_null (candidate (d, "US"));
  }
  /* a group split evenly between two codes abstains */
  g_array_set_size (a, 0);
  add_ap (a, "3c:a6:2f:11:22:33", "DE", "FRITZ!Box 7590 XY", 2412);
  add_ap (a, "3c:a6:2f:11:22:34", "AT", "FRITZ!Box 7590 XY", 5180);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_cmpuint (d->candidates->len, ==, 0);
  }
}

/* Rule 4: one operator's network on many channels in both bands is a
 * witness of its own; the same devices on one channel are not. */
static void
test_large_network (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 chan[] = { 2412, 2437, 2462, 5180, 5240, 5500, 5620, 5745 };

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *b = g_strdup_printf ("00:3a:7d:%02x:%02x:%02x", i / 8, i, i % 2 ? 0x0f : 0x00);
      add_ap (a, b, "DE", i % 2 ? "Messe-Guest" : "Messe-Staff", chan[i % G_N_ELEMENTS (chan)]);
    }
  for (guint i = 0; i < 12; i++)           /* exhibitors: one device each */
    {
      static const char *const codes[] = { "US", "GB", "CN", "JP", "US", "KR", "US", "FR", "IT", "GB", "NL", "TW" };
      g_autofree char *b = g_strdup_printf ("%02x:%02x:%02x:00:00:01", 0x10 + 4 * i, 0x20 + i, 0x30 + i);
      g_autofree char *s = g_strdup_printf ("Booth-%u", i);
      add_ap (a, b, codes[i], s, 2437);
    }
  add_zone (a, "DE,DK,NO,SE,SJ");
  {
    /* one operator's word and a clock: a train's or a ship's network
     * moving with the passengers' clock looks the same, so 00 */
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *de = candidate (d, "DE");
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_true (de->beacon_network);
    g_assert_false (de->timezone);
    g_assert_cmpuint (de->beacon_aps, ==, 2);   /* the flood cap still holds */
    g_assert_nonnull (strstr (d->explanation, "network of 40 devices on 8 channels in 2 bands"));
    g_test_message ("%s", d->explanation);
  }
  {
    /* a fix (here near a border: it only confirms) is the independent witness */
    g_autoptr (GArray) b = g_array_copy (a);
    add_gps (b, "DE,NL", 40);
    g_autoptr (RlDecision) d = decide_at (b, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  {
    /* so are the street's routers of other operators holding the share
     * among the other access points: two witnesses without the clock */
    g_autoptr (GArray) b = g_array_copy (a);
    static const char *const street[] = { "3c:a6:2f:51:00:01", "88:71:b1:52:00:02", "00:1f:3f:53:00:03",
                                          "1c:ed:6f:54:00:04", "34:31:c4:55:00:05", "e8:df:70:56:00:06",
                                          "7c:ff:4d:57:00:07", "dc:39:6f:58:00:08", "00:04:0e:59:00:09",
                                          "5c:49:79:5a:00:0a", "44:4e:6d:5b:00:0b", "98:9b:cb:5c:00:0c",
                                          "c8:0e:14:5d:00:0d", "2c:91:ab:5e:00:0e", "b0:f2:08:5f:00:0f",
                                          "24:65:11:60:00:10", "e0:28:6d:61:00:11", "bc:05:43:62:00:12",
                                          "74:42:7f:63:00:13", "cc:ce:1e:64:00:14", "08:96:d7:65:00:15",
                                          "38:10:d5:66:00:16", "50:e6:36:67:00:17", "f0:b0:14:68:00:18" };
    for (guint i = 0; i < G_N_ELEMENTS (street); i++)
      add_ap (b, street[i], "DE", street[i], 2412);
    g_array_remove_index (b, b->len - 1 - G_N_ELEMENTS (street));   /* the zone */
    g_autoptr (RlDecision) d = decide_at (b, NULL, NOW);
    assert_decision (d, "DE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_cmpuint (candidate (d, "DE")->witnesses, ==, 2);
  }
  /* a ship's network in port: the harbour's routers of three operators say
   * ES; they hold the share among the other access points: it yields */
  {
    g_autoptr (GArray) port = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
    for (guint i = 0; i < 40; i++)
      {
        g_autofree char *b = g_strdup_printf ("00:3a:7d:%02x:%02x:%02x", i / 8, i, i % 2 ? 0x0f : 0x00);
        add_ap (port, b, "US", i % 2 ? "Cruise-Guest" : "Cruise-Crew", chan[i % G_N_ELEMENTS (chan)]);
      }
    add_ap (port, "a4:33:d7:3c:e2:10", "ES", "MOVISTAR_E210", 2412);
    add_ap (port, "30:fb:b8:91:0d:4a", "ES", "vodafone0D4A", 2437);
    add_ap (port, "f8:08:4f:5e:3b:82", "ES", "Orange-3B82", 5180);
    add_zone (port, "US");
    g_autoptr (RlDecision) d = decide_at (port, NULL, NOW);
    g_assert_false (candidate (d, "US")->beacon_network);
    g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
    g_assert_nonnull (strstr (d->explanation, "yields"));
  }
  /* every device on one channel: nothing one radio could not fake */
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, RlEvidence, i).kind == RL_SOURCE_BEACON)
      g_array_index (a, RlEvidence, i).beacon.freq_mhz = 2437;
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_false (candidate (d, "DE")->beacon_network);
    g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
  }
}

/* Rule 5: beside a large network, two other operators of its country make
 * the second witness when no other country has the votes for one: guests'
 * travel routers of four countries, one each, around a hotel by Geneva's
 * station are visitors, not a street across a border. */
static void
test_network_scattered_guests (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  static const guint32 chan[] = { 2412, 2437, 2462, 5180, 5220, 5260 };

  for (guint i = 0; i < G_N_ELEMENTS (chan); i++)
    {
      g_autofree char *b = g_strdup_printf ("58:b6:33:10:%02x:10", 0x20 + i);
      add_ap (a, b, "CH", "Hotel-Cornavin-Guest", chan[i]);
    }
  add_ap (a, "00:0d:b9:4a:72:11", "CH", "Swisscom-Box-7211", 2412);
  add_ap (a, "38:43:7d:a1:02:5f", "CH", "UPC5F025F", 2437);
  add_ap (a, "94:83:c4:1f:77:08", "US", "GL-MT3000-708", 5745);
  add_ap (a, "a0:40:a0:3d:12:7c", "GB", "NETGEAR-MR1100-127C", 2437);
  add_ap (a, "14:eb:b6:21:90:0f", "DE", "TP-Link_900F", 2412);
  add_ap (a, "e0:19:1d:66:01:a5", "FR", "Airbox-01A5", 2462);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    const RlCandidate *ch = candidate (d, "CH");
    assert_decision (d, "CH", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_true (ch->beacon_network);
    g_assert_cmpuint (ch->witnesses, ==, 2);
  }
  /* two more French operators: France has the votes for a witness (a street
   * across the border), so the Swiss routers no longer speak alone */
  add_ap (a, "a4:3e:51:10:20:30", "FR", "Livebox-2030", 2412);
  add_ap (a, "00:24:d4:51:62:73", "FR", "freebox_ABCDEF", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
    g_assert_cmpuint (candidate (d, "CH")->witnesses, ==, 1);
  }
}

/* Rule 6: EU confirms a member state a GPS fix names, never decides, is
 * never a rival, and does not confirm access points. */
static void
test_eu (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_ap (a, "00:3a:7d:10:20:30", "EU", "EC-Guest", 2412);
  add_ap (a, "24:de:c6:11:22:33", "EU", "eduroam", 5180);
  add_ap (a, "f0:9f:c2:44:55:66", "EU", "Proximus-Home-7C21", 2462);
  add_zone (a, "BE,LU,NL");
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_TIMEZONE_ONLY);
    g_assert_null (candidate (d, "EU"));
    g_assert_false (candidate (d, "BE")->eu);
    g_assert_nonnull (strstr (d->explanation, "only beside a GPS fix"));
  }
  add_gps (a, "BE", 8);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "BE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
    g_assert_true (candidate (d, "BE")->eu);
    g_assert_cmpuint (candidate (d, "BE")->witnesses, ==, 3);
    g_assert_nonnull (strstr (d->explanation, "advertising EU"));
    g_assert_null (strstr (d->explanation, "Dissent"));
  }
  /* GPS and EU alone (a visitor's foreign timezone): two witnesses */
  g_array_remove_index (a, 3);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    assert_decision (d, "BE", RL_STATE_DECIDED, RL_REASON_AGREEMENT);
  }
  /* a non-member: EU does not confirm CH, and does not conflict with it */
  g_array_set_size (a, 3);
  add_gps (a, "CH", 8);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_false (candidate (d, "CH")->eu);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
  }
  /* two routers set to a neighbour's code are no country with EU APs */
  g_array_set_size (a, 3);
  add_ap (a, "98:9b:cb:01:02:03", "DE", "FRITZ!Box 7590 AB", 2412);
  add_ap (a, "4c:1b:86:04:05:06", "DE", "Telekom-040506", 2437);
  {
    g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
    g_assert_false (candidate (d, "DE")->eu);
    assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_SINGLE_WITNESS);
  }
  g_assert_true (rl_country_is_eu_member (CC ("DE")));
  g_assert_true (rl_country_is_eu_member (CC ("HR")));
  g_assert_false (rl_country_is_eu_member (CC ("GB")));
  g_assert_false (rl_country_is_eu_member (CC ("CH")));
}

/* Rule 5: a code without rules of its own is not-in-regdb, also alone. */
static void
test_not_in_regdb_reason (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  add_gps (a, "XK", 8);
  add_zone (a, "BA,HR,ME,MK,RS,SI");        /* Europe/Belgrade */
  g_autoptr (RlDecision) d = decide_at (a, NULL, NOW);
  assert_decision (d, "00", RL_STATE_WORLD, RL_REASON_NOT_IN_REGDB);
}

/* Rule 3: each conflict doubles the next hold-down up to the maximum; a
 * calm period resets it; the count travels in the decision. */
static void
test_flap_hold_down (void)
{
  RlPolicyParams params;
  g_autoptr (GArray) de = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (GArray) clash = NULL;
  RlDecision *prev = rl_decision_new_initial ();
  gint64 t = NOW;
  guint expect[] = { 60, 120, 240, 300, 300 };

  rl_policy_params_init (&params);
  g_assert_cmpuint (rl_policy_hold_down (&params, 0), ==, 30);
  g_assert_cmpuint (rl_policy_hold_down (&params, 1), ==, 60);
  g_assert_cmpuint (rl_policy_hold_down (&params, 4), ==, 300);
  g_assert_cmpuint (rl_policy_hold_down (&params, 32), ==, 300);

  add_ap (de, "3c:a6:2f:01:00:01", "DE", "FRITZ!Box 7590 KQ", 2412);
  add_ap (de, "00:1f:3f:02:00:02", "DE", "Telekom-5GHZ", 5180);
  add_ap (de, "88:71:b1:03:00:03", "DE", "Vodafone-A3C1", 2437);
  for (guint i = 0; i < de->len; i++)
    g_array_index (de, RlEvidence, i).expires_at = RL_NEVER;
  add_gps (de, "DE", 5);
  g_array_index (de, RlEvidence, de->len - 1).expires_at = RL_NEVER;
  clash = g_array_copy (de);
  g_array_index (clash, RlEvidence, clash->len - 1).countries[0] = CC ("NL");

  for (guint round = 0; round < G_N_ELEMENTS (expect); round++)
    {
      /* the fix strays over the line: conflict, then back: DE again only
       * after the doubled hold-down */
      RlDecision *d = rl_policy_decide (&params, NULL, NULL, prev, (RlEvidence *) (gpointer) clash->data, clash->len,
                                        NULL, t);
      g_assert_cmpint (d->state, ==, RL_STATE_CONFLICT);
      rl_decision_free (prev);
      prev = d;
      t += 20 * RL_USEC_PER_SEC;
      d = rl_policy_decide (&params, NULL, NULL, prev, (RlEvidence *) (gpointer) de->data, de->len, NULL, t);
      g_assert_cmpint (d->state, ==, RL_STATE_TENTATIVE);
      g_assert_cmpuint (d->hold_down_s, ==, expect[round]);
      g_assert_cmpint (d->next_check, ==, t + expect[round] * RL_USEC_PER_SEC);
      rl_decision_free (prev);
      prev = d;
      t += expect[round] * RL_USEC_PER_SEC;
      d = rl_policy_decide (&params, NULL, NULL, prev, (RlEvidence *) (gpointer) de->data, de->len, NULL, t);
      g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
      rl_decision_free (prev);
      prev = d;
      t += 10 * RL_USEC_PER_SEC;
    }
  /* ten calm minutes: back to the plain hold-down (and the calm's end is an instant) */
  g_assert_cmpint (prev->next_check, <=, t - 10 * RL_USEC_PER_SEC + 600 * RL_USEC_PER_SEC);
  t += 600 * RL_USEC_PER_SEC;
  RlDecision *d = rl_policy_decide (&params, NULL, NULL, prev, (RlEvidence *) (gpointer) de->data, de->len, NULL, t);
  g_assert_cmpuint (d->conflicts, ==, 0);
  g_assert_cmpuint (d->hold_down_s, ==, 30);
  rl_decision_free (prev);
  rl_decision_free (d);
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
  params.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
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

  g_autoptr (RlDecision) d = rl_policy_decide (&params, NULL, NULL, NULL, (RlEvidence *) (gpointer) ev->data, ev->len,
                                               NULL, now);
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
  g_test_add_func ("/policy/zone-own-country", test_zone_own_country);
  g_test_add_func ("/policy/territory-named-by-fix", test_territory_named_by_fix);
  g_test_add_func ("/policy/properties", test_properties);
  g_test_add_func ("/policy/flood-one-operator", test_flood_one_operator);
  g_test_add_func ("/policy/scenario-ssid-bytes", test_scenario_ssid_bytes);
  g_test_add_func ("/policy/rule/zone-not-beside-foreign-mast", test_zone_not_beside_foreign_mast);
  g_test_add_func ("/policy/rule/faint-beside-silent-router", test_faint_beside_silent_router);
  g_test_add_func ("/policy/rule/faint-hysteresis", test_faint_hysteresis);
  g_test_add_func ("/policy/world-leader-only-confirms", test_world_leader_only_confirms);
  g_test_add_func ("/policy/rule/ambiguous-gps", test_ambiguous_gps);
  g_test_add_func ("/policy/rule/locally-administered", test_locally_administered);
  g_test_add_func ("/policy/rule/la-sibling-rules", test_la_sibling_rules);
  g_test_add_func ("/policy/rule/pool-breaks-no-witness", test_pool_breaks_no_witness);
  g_test_add_func ("/policy/rule/zone-not-beside-unlisted-network", test_zone_not_beside_unlisted_network);
  g_test_add_func ("/policy/rule/large-network", test_large_network);
  g_test_add_func ("/policy/rule/network-scattered-guests", test_network_scattered_guests);
  g_test_add_func ("/policy/rule/network-yields-to-fix", test_network_yields_to_fix);
  g_test_add_func ("/policy/rule/network-yielded-reason", test_network_yielded_reason);
  g_test_add_func ("/policy/rule/network-is-one-ssid", test_network_is_one_ssid);
  g_test_add_func ("/policy/text/share-short", test_share_short_said);
  g_test_add_func ("/policy/text/cell-and-clock", test_cell_and_clock_said);
  g_test_add_func ("/policy/rule/network-yields-to-faint-reason", test_network_yields_to_faint_reason);
  g_test_add_func ("/policy/rule/fix-and-cell-outvote-aps", test_fix_and_cell_outvote_aps);
  g_test_add_func ("/policy/rule/fix-and-local-aps-outvote-aps", test_fix_and_local_aps_outvote_aps);
  g_test_add_func ("/policy/one-vendor-one-setup", test_one_vendor_one_setup);
  g_test_add_func ("/policy/rule/zone-confirms-own-country-for-cell", test_zone_confirms_own_country_for_cell);
  g_test_add_func ("/policy/rule/cell-beside-neighbour-locals", test_cell_beside_neighbour_locals);
  g_test_add_func ("/policy/rule/cell-beside-fix-at-sea", test_cell_beside_fix_at_sea);
  g_test_add_func ("/policy/rule/cell-beside-loudest-router", test_cell_beside_loudest_router);
  g_test_add_func ("/policy/rule/cell-beside-faint-own-votes", test_cell_beside_faint_own_votes);
  g_test_add_func ("/policy/rule/faint-and-zone", test_faint_and_zone);
  g_test_add_func ("/policy/rule/plurality-and-circle", test_plurality_and_circle);
  g_test_add_func ("/policy/rule/eu", test_eu);
  g_test_add_func ("/policy/rule/not-in-regdb", test_not_in_regdb_reason);
  g_test_add_func ("/policy/rule/flap-hold-down", test_flap_hold_down);
  g_test_add_func ("/policy/rule/support-waning", test_support_waning);
  g_test_add_func ("/policy/rule/support-waning-cell", test_support_waning_cell);
  g_test_add_func ("/policy/rule/network-and-one-device", test_network_and_one_device);
  g_test_add_func ("/policy/rule/support-waning-network", test_support_waning_network);
  g_test_add_func ("/policy/rule/next-scan", test_next_scan);
  int ret = g_test_run ();
  rl_regulatory_free (regulatory);
  rl_tzmap_free (tzmap);
  return ret;
}
