/* Private data (docs/design.md, "Private data"): positions, border
 * distances, BSSIDs and SSIDs are typed fields, and the public level of
 * every text leaves them out.  rl_evidence_describe() at both levels, the
 * decision's public explanation for each branch of the words, and every
 * shipped scenario and trip decided after each of its events. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "core/config.h"
#include "core/policy.h"
#include "core/regdb.h"
#include "geo/boundary.h"
#include "geo/tzmap.h"
#include "replay/replay.h"
#include "replay/scenario.h"
#include "rl-test-config.h"

#define NOW (G_GINT64_CONSTANT (1767225600) * RL_USEC_PER_SEC)
#define CC(s) RL_COUNTRY ((s)[0], (s)[1])

static RlRegulatory *regulatory;

/* A MAC address written any usual way, a coordinate with decimals, a
 * distance from a border. */
static GRegex *mac_re, *coord_re, *border_re;

static void
assert_public (const char *text, const GPtrArray *ssids, const char *what)
{
  g_assert_nonnull (text);
  if (g_regex_match (mac_re, text, 0, NULL))
    g_error ("%s names a BSSID: %s", what, text);
  if (g_regex_match (coord_re, text, 0, NULL))
    g_error ("%s names a coordinate: %s", what, text);
  if (g_regex_match (border_re, text, 0, NULL))
    g_error ("%s names a border distance: %s", what, text);
  for (guint i = 0; ssids != NULL && i < ssids->len; i++)
    if (strstr (text, ssids->pdata[i]) != NULL)
      g_error ("%s names the SSID '%s': %s", what, (const char *) ssids->pdata[i], text);
}

static RlEvidence
beacon (const char *bssid, const char *ssid, const char *cc, gint32 signal_mbm, guint32 freq)
{
  RlEvidence ev;
  g_autofree char *key = g_strconcat ("beacon:", bssid, NULL);
  unsigned int b[6];

  g_assert_cmpint (sscanf (bssid, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]), ==, 6);
  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, NOW - 10 * RL_USEC_PER_SEC, NOW + 600 * RL_USEC_PER_SEC);
  for (int i = 0; i < 6; i++)
    ev.beacon.bssid[i] = (guint8) b[i];
  g_strlcpy (ev.beacon.ssid, ssid, sizeof ev.beacon.ssid);
  ev.beacon.signal_mbm = signal_mbm;
  ev.beacon.freq_mhz = freq;
  rl_evidence_add_country (&ev, CC (cc));
  /* what a reader writes: private, for the full level only */
  g_snprintf (ev.detail, sizeof ev.detail, "AP %s, ESS '%s', IE '%s '", bssid, ssid, cc);
  return ev;
}

static RlEvidence
gps (double lat, double lon, const char *ccs, double border_m)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", NOW - 5 * RL_USEC_PER_SEC, NOW + 600 * RL_USEC_PER_SEC);
  ev.gps.lat = lat;
  ev.gps.lon = lon;
  ev.gps.error_m = 8;
  ev.gps.border_m = border_m;
  for (const char *p = ccs; p[0] && p[1]; p += p[2] ? 3 : 2)
    rl_evidence_add_country (&ev, CC (p));
  g_snprintf (ev.detail, sizeof ev.detail, "GPS fix %.2fN %.2fE ±8 m, %.0f m from the nearest border", lat, lon, border_m);
  return ev;
}

static void
test_describe_levels (void)
{
  RlEvidence ap = beacon ("3c:a6:2f:4e:71:02", "FRITZ!Box 7590 XY", "DE", -6100, 5180);
  RlEvidence fix = gps (48.13743, 11.57549, "DE", 41250);
  RlEvidence sea = gps (54.5, 3.2, "", -1);
  char pub[200], full[200];
  g_autoptr (GPtrArray) ssids = g_ptr_array_new ();

  g_ptr_array_add (ssids, "FRITZ!Box 7590 XY");
  rl_evidence_describe (&ap, RL_DETAIL_PUBLIC, pub, sizeof pub);
  g_assert_cmpstr (pub, ==, "access point, IE 'DE', 5 GHz, -61 dBm");
  assert_public (pub, ssids, "public beacon text");
  rl_evidence_describe (&ap, RL_DETAIL_FULL, full, sizeof full);
  g_assert_cmpstr (full, ==, "AP 3c:a6:2f:4e:71:02, ESS 'FRITZ!Box 7590 XY', IE 'DE', 5 GHz, -61 dBm");

  rl_evidence_describe (&fix, RL_DETAIL_PUBLIC, pub, sizeof pub);
  g_assert_cmpstr (pub, ==, "GPS fix in DE ±8 m");
  assert_public (pub, NULL, "public GPS text");
  rl_evidence_describe (&fix, RL_DETAIL_FULL, full, sizeof full);
  g_assert_cmpstr (full, ==, "GPS fix 48.13743N 11.57549E in DE ±8 m, 41250 m from a border");
  /* the private text is what the regular expressions catch */
  g_assert_true (g_regex_match (coord_re, full, 0, NULL));
  g_assert_true (g_regex_match (border_re, full, 0, NULL));

  rl_evidence_describe (&sea, RL_DETAIL_PUBLIC, pub, sizeof pub);
  g_assert_cmpstr (pub, ==, "GPS fix at sea ±8 m");
  sea.gps.flags |= RL_GPS_INFO_UNTRUSTED;
  rl_evidence_describe (&sea, RL_DETAIL_PUBLIC, pub, sizeof pub);
  g_assert_cmpstr (pub, ==, "GPS fix at sea ±8 m (untrusted)");

  /* the public text never reads ->detail */
  g_strlcpy (ap.detail, "AP 3c:a6:2f:4e:71:02 at 48.137N 11.575E", sizeof ap.detail);
  rl_evidence_describe (&ap, RL_DETAIL_PUBLIC, pub, sizeof pub);
  assert_public (pub, ssids, "public beacon text");

  /* a short buffer is cut, never overrun */
  rl_evidence_describe (&ap, RL_DETAIL_FULL, full, 10);
  g_assert_cmpuint (strlen (full), ==, 9);
}

static RlDecision *
decide (GArray *a, const RlDecision *previous)
{
  RlPolicyParams params;

  rl_policy_params_init (&params);
  params.hold_down_s = 0;
  params.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
  return rl_policy_decide (&params, rl_regulatory_map, regulatory, previous, (RlEvidence *) (gpointer) a->data,
                           a->len, NULL, NOW);
}

/* Five German access points of five operators and one American one: the
 * full text names the dissenting AP, the public one counts it.  Beside a
 * fix far inside Germany the American one is a suspect: no vote, and no
 * dissent either. */
static void
test_dissent (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (GPtrArray) ssids = g_ptr_array_new ();
  RlEvidence evs[] = {
    beacon ("3c:a6:2f:11:22:31", "FRITZ!Box 7530 QK", "DE", -5800, 2437),
    beacon ("00:1e:42:33:44:55", "Vodafone-4C2A", "DE", -6400, 2412),
    beacon ("f0:86:20:12:34:56", "o2-WLAN71", "DE", -7000, 5200),
    beacon ("bc:05:43:21:43:65", "Telekom_FON", "DE", -6600, 2462),
    beacon ("a4:91:b1:0a:0b:0c", "MagentaWLAN-8H3J", "DE", -7100, 5500),
    beacon ("00:14:6c:66:77:06", "NETGEAR-Travel", "US", -8000, 2437),
  };
  g_autoptr (RlDecision) d = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (evs); i++)
    {
      g_array_append_val (a, evs[i]);
      g_ptr_array_add (ssids, evs[i].beacon.ssid);
    }
  d = decide (a, NULL);
  g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
  g_assert_nonnull (strstr (d->explanation, "Dissent: AP 00:14:6c:66:77:06, ESS 'NETGEAR-Travel'"));
  g_assert_nonnull (strstr (d->explanation_public, "Dissent: 1 access point says US."));
  assert_public (d->explanation_public, ssids, "public explanation");
  assert_public (d->summary_public, ssids, "public summary");
  g_clear_pointer (&d, rl_decision_free);
  g_array_append_vals (a, (RlEvidence[]) { gps (52.52, 13.405, "DE", 30000) }, 1);
  d = decide (a, NULL);
  g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
  g_assert_null (strstr (d->explanation, "Dissent"));
  g_assert_nonnull (strstr (d->explanation, "1 access point a GPS fix contradicted"));
  g_assert_nonnull (strstr (d->explanation, "52.52N"));
  g_assert_nonnull (strstr (d->explanation_public, "GPS fix in DE ±8 m (in this country)"));
  assert_public (d->explanation_public, ssids, "public explanation");
}

/* At sea, in flight, an untrusted jump, an override: each branch that
 * names the fix or the item gives its public text. */
static void
test_branches (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence fix = gps (54.5, 3.2, "", -1);
  RlEvidence ov;
  g_autoptr (RlDecision) sea = NULL, air = NULL, jump = NULL, over = NULL;

  g_array_append_val (a, fix);
  sea = decide (a, NULL);
  g_assert_cmpint (sea->reason, ==, RL_REASON_AT_SEA);
  g_assert_nonnull (strstr (sea->explanation, "54.50N"));
  g_assert_nonnull (strstr (sea->explanation_public, "GPS fix at sea ±8 m: the world domain 00 applies at sea"));
  assert_public (sea->explanation_public, NULL, "at sea");

  g_array_index (a, RlEvidence, 0) = gps (50.1109, 8.6821, "DE", 12000);
  g_array_index (a, RlEvidence, 0).gps.altitude_m = 10500;
  g_array_index (a, RlEvidence, 0).gps.speed_mps = 240;
  air = decide (a, NULL);
  g_assert_cmpint (air->reason, ==, RL_REASON_AIRBORNE);
  g_assert_nonnull (strstr (air->explanation, "50.11N"));
  assert_public (air->explanation_public, NULL, "airborne");

  g_array_index (a, RlEvidence, 0) = gps (50.1109, 8.6821, "DE", 12000);
  g_array_index (a, RlEvidence, 0).gps.flags |= RL_GPS_INFO_UNTRUSTED;
  jump = decide (a, NULL);
  g_assert_nonnull (strstr (jump->explanation_public, "(untrusted): it is not trusted, so it confirms at most"));
  assert_public (jump->explanation_public, NULL, "untrusted fix");

  rl_evidence_init (&ov, RL_SOURCE_OVERRIDE, "override", NOW - RL_USEC_PER_SEC, RL_NEVER);
  rl_evidence_add_country (&ov, CC ("FR"));
  g_strlcpy (ov.detail, "override FR (bus)", sizeof ov.detail);
  g_array_append_val (a, ov);
  over = decide (a, NULL);
  g_assert_cmpint (over->state, ==, RL_STATE_OVERRIDE);
  g_assert_nonnull (strstr (over->explanation, "(override FR (bus))"));
  g_assert_nonnull (strstr (over->explanation_public, "(override FR)"));
  assert_public (over->explanation_public, NULL, "override");
  assert_public (over->summary_public, NULL, "override summary");
}

/* --- every shipped scenario and trip -------------------------------------- */

typedef struct {
  GArray *events;       /* RlEvent */
  GPtrArray *ssids;     /* of the access points heard, at least 3 characters */
} Collected;

static void
collect (const RlEvent *event, gpointer user_data)
{
  Collected *c = user_data;

  g_array_append_val (c->events, *event);
  if (event->type == RL_EVENT_EVIDENCE && event->ev.kind == RL_SOURCE_BEACON && strlen (event->ev.beacon.ssid) >= 3)
    g_ptr_array_add (c->ssids, g_strdup (event->ev.beacon.ssid));
}

static int
cmp_event_time (gconstpointer a, gconstpointer b)
{
  const RlEvent *x = a, *y = b;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* The items standing after the first @upto events: the newest per key. */
static GArray *
standing (const GArray *events, guint upto)
{
  GArray *items = g_array_new (FALSE, TRUE, sizeof (RlEvidence));

  for (guint i = 0; i < upto; i++)
    {
      const RlEvent *e = &g_array_index (events, RlEvent, i);
      guint k;
      if (e->type != RL_EVENT_EVIDENCE && e->type != RL_EVENT_WITHDRAW)
        continue;
      for (k = 0; k < items->len && strcmp (g_array_index (items, RlEvidence, k).key, e->ev.key) != 0; k++)
        ;
      if (k < items->len)
        g_array_remove_index (items, k);
      if (e->type == RL_EVENT_EVIDENCE)
        g_array_append_val (items, e->ev);
    }
  return items;
}

static void
test_shipped (gconstpointer data)
{
  const char *path = data;
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlTzMap) tzmap = rl_tzmap_new (config->zoneinfo_dir, NULL);
  g_autoptr (RlBoundaryIndex) index = rl_boundary_index_open (rl_boundary_index_default_path (), NULL);
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  RlScenarioContext ctx = { config, tzmap, rl_scenario_boundary_lookup, index };
  Collected c = { g_array_new (FALSE, TRUE, sizeof (RlEvent)), g_ptr_array_new_with_free_func (g_free) };
  g_autoptr (RlDecision) previous = NULL;
  gboolean settle = TRUE;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_true (rl_scenario_parse (text, path, &ctx, replay, expects, &settle, &error));
  g_assert_no_error (error);
  rl_replay_foreach_event (replay, collect, &c);
  rl_replay_run (replay, settle);
  assert_public (rl_replay_final (replay)->explanation_public, c.ssids, "final public explanation");
  assert_public (rl_replay_final (replay)->summary_public, c.ssids, "final public summary");

  g_array_sort (c.events, cmp_event_time);
  for (guint i = 1; i <= c.events->len; i++)
    {
      g_autoptr (GArray) items = standing (c.events, i);
      gint64 now = g_array_index (c.events, RlEvent, i - 1).time;
      RlDecision *d = rl_policy_decide (&config->policy, rl_regulatory_map, regulatory, previous,
                                        (const RlEvidence *) (gconstpointer) items->data, items->len, NULL, now);
      assert_public (d->explanation_public, c.ssids, "public explanation");
      assert_public (d->summary_public, c.ssids, "public summary");
      rl_decision_free (previous);
      previous = d;
    }
  g_array_unref (c.events);
  g_ptr_array_unref (c.ssids);
}

static void
add_dir (const char *sub)
{
  g_autofree char *dir = g_build_filename (RL_SOURCE_DATADIR, sub, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".scn"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = names->pdata[i];
      g_autofree char *test = g_strdup_printf ("/privacy/%s/%.*s", sub, (int) strlen (n) - 4, n);
      g_test_add_data_func_full (test, g_build_filename (dir, n, NULL), test_shipped, g_free);
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autofree char *state = g_dir_make_tmp ("regloc-privacy-XXXXXX", NULL);
  int rc;

  g_test_init (&argc, &argv, NULL);
  g_setenv ("STATE_DIRECTORY", state, TRUE);
  regulatory = rl_regulatory_load (config->regulatory_db, config->territories, &error);
  g_assert_no_error (error);
  mac_re = g_regex_new ("[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}", 0, 0, NULL);
  coord_re = g_regex_new ("-?[0-9]{1,3}\\.[0-9]{2,} ?[NSEW]?[ ,/] ?-?[0-9]{1,3}\\.[0-9]{2,}|[0-9]{1,3}\\.[0-9]{2,}[NSEW]",
                          0, 0, NULL);
  border_re = g_regex_new ("m from (the nearest|a|any|[A-Z]{2}) (border|waters)", 0, 0, NULL);
  g_test_add_func ("/privacy/describe-levels", test_describe_levels);
  g_test_add_func ("/privacy/dissent", test_dissent);
  g_test_add_func ("/privacy/branches", test_branches);
  add_dir ("scenarios");
  add_dir ("trips");
  rc = g_test_run ();
  rl_regulatory_free (regulatory);
  g_regex_unref (mac_re);
  g_regex_unref (coord_re);
  g_regex_unref (border_re);
  g_rmdir (state);
  return rc;
}
