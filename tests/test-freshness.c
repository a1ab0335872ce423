/* Freshness and moving platforms (issue 10, items 4-5), below the scenario
 * files: the evidence set's GPS rules (a better fix kept, a jump
 * distrusted), scans that no longer hear an AP, the policy's airborne
 * rule, a jumped fix that only confirms, and access points a good fix
 * contradicted staying suspect while they are heard. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "core/contradiction.h"
#include "core/engine.h"
#include "core/evidence-set.h"
#include "core/policy.h"

#define SEC RL_USEC_PER_SEC
#define T0 (G_GINT64_CONSTANT (1767225600) * SEC)

static RlEvidence
gps_at (gint64 t, double lat, double lon, double error_m, const char *countries)
{
  RlEvidence ev;
  g_auto (GStrv) cc = g_strsplit (countries, ",", -1);

  rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", t, rl_expiry_after (t, 600));
  ev.gps.lat = lat;
  ev.gps.lon = lon;
  ev.gps.error_m = error_m;
  ev.gps.border_m = 50000;
  for (guint i = 0; cc[i] != NULL && cc[i][0] != '\0'; i++)
    {
      RlCountry c;
      g_assert_true (rl_country_parse (cc[i], &c));
      rl_evidence_add_country (&ev, c);
    }
  return ev;
}

static RlEvidence
beacon_at (gint64 t, const char *bssid, const char *country, guint32 freq, const char *ssid)
{
  RlEvidence ev;
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);
  RlCountry c;
  unsigned int b[6];

  g_assert_cmpint (sscanf (bssid, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]), ==, 6);
  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, t, rl_expiry_after (t, 900));
  for (guint i = 0; i < 6; i++)
    ev.beacon.bssid[i] = (guint8) b[i];
  g_strlcpy (ev.beacon.ssid, ssid, sizeof ev.beacon.ssid);
  ev.beacon.freq_mhz = freq;
  g_assert_true (rl_country_parse (country, &c));
  rl_evidence_add_country (&ev, c);
  return ev;
}

static const RlEvidence *
item (RlEvidenceSet *set, const char *key)
{
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n);

  for (gsize i = 0; i < n; i++)
    if (strcmp (items[i].key, key) == 0)
      return &items[i];
  return NULL;
}

/* A ±4 m fix, then within the window a ±60 m one: the better stays; after
 * the window the worse one replaces it. */
static void
test_best_fix_window (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence good = gps_at (T0, 50.7753, 6.0839, 4, "DE");
  RlEvidence worse = gps_at (T0 + 3 * SEC, 50.7754, 6.0840, 60, "DE");
  RlEvidence later = gps_at (T0 + 11 * SEC, 50.7755, 6.0842, 60, "DE");
  guint64 kept, untrusted;

  rl_evidence_set_set_gps_limits (set, 10, 1200);
  g_assert_true (rl_evidence_set_put (set, &good));
  g_assert_false (rl_evidence_set_put (set, &worse));
  g_assert_cmpfloat (item (set, "gps")->gps.error_m, ==, 4);
  g_assert_true (rl_evidence_set_put (set, &later));
  g_assert_cmpfloat (item (set, "gps")->gps.error_m, ==, 60);
  rl_evidence_set_gps_limit_counts (set, &kept, &untrusted);
  g_assert_cmpuint (kept, ==, 1);
  g_assert_cmpuint (untrusted, ==, 0);

  /* without limits (the default) every fix replaces the one before */
  g_autoptr (RlEvidenceSet) plain = rl_evidence_set_new (16);
  g_assert_true (rl_evidence_set_put (plain, &good));
  g_assert_true (rl_evidence_set_put (plain, &worse));
  g_assert_cmpfloat (item (plain, "gps")->gps.error_m, ==, 60);
}

/* Frankfurt, then one second later a fix 2,000 km east (spoofing): untrusted;
 * the trusted position stays in Frankfurt, so a fix back there is trusted;
 * two hours later the far point is within reach again. */
static void
test_jump (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence fra = gps_at (T0, 50.0379, 8.5622, 5, "DE");
  RlEvidence spoof = gps_at (T0 + SEC, 55.9726, 37.4146, 5, "RU");
  RlEvidence back = gps_at (T0 + 20 * SEC, 50.0381, 8.5630, 5, "DE");
  RlEvidence far_later = gps_at (T0 + 20 * SEC + 120 * 60 * SEC, 55.9726, 37.4146, 5, "RU");

  rl_evidence_set_set_gps_limits (set, 10, 1200);
  g_assert_true (rl_evidence_set_put (set, &fra));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &spoof));
  g_assert_true (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  /* a lost fix does not reset the trusted position */
  g_assert_true (rl_evidence_set_remove (set, "gps"));
  g_assert_true (rl_evidence_set_put (set, &spoof));
  g_assert_true (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &back));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  /* Frankfurt to Sheremetyevo is 2,030 km: at 1,200 km/h, 102 minutes */
  g_assert_true (rl_evidence_set_put (set, &far_later));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
}

/* Konstanz: parked (speed 0), then a multipath fix 330 m away in CH, still
 * reporting speed 0: untrusted; back in DE: trusted.  The same fix with a
 * speed (the car drove across) is trusted, and so is one in the same
 * country or one after still_window. */
static void
test_still_jump (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence parked = gps_at (T0, 47.6570, 9.1740, 15, "DE");
  RlEvidence slid = gps_at (T0 + 15 * SEC, 47.6540, 9.1740, 15, "CH");
  RlEvidence back = gps_at (T0 + 150 * SEC, 47.6570, 9.1740, 15, "DE");
  RlEvidence same = gps_at (T0 + 165 * SEC, 47.6550, 9.1740, 15, "DE");
  RlEvidence drove = gps_at (T0 + 180 * SEC, 47.6540, 9.1740, 15, "CH");
  RlEvidence late = gps_at (T0 + 900 * SEC, 47.6540, 9.1740, 15, "CH");

  parked.gps.speed_mps = slid.gps.speed_mps = back.gps.speed_mps = same.gps.speed_mps = 0;
  late.gps.speed_mps = 0;
  drove.gps.speed_mps = 8;
  rl_evidence_set_set_gps_limits (set, 10, 1200);
  rl_evidence_set_set_gps_still (set, 2, 600);
  g_assert_true (rl_evidence_set_put (set, &parked));
  g_assert_true (rl_evidence_set_put (set, &slid));
  g_assert_true (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &back));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &same));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &drove));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);

  g_autoptr (RlEvidenceSet) other = rl_evidence_set_new (16);
  rl_evidence_set_set_gps_limits (other, 10, 1200);
  rl_evidence_set_set_gps_still (other, 2, 600);
  g_assert_true (rl_evidence_set_put (other, &parked));
  g_assert_true (rl_evidence_set_put (other, &late));
  g_assert_false (item (other, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
}

/* The Karawanken tunnel: stopped at the Austrian toll booth, the fix lost
 * in the tunnel, stopped at the Slovenian police check 7.9 km on, six
 * minutes later.  Both fixes say speed 0, but the receiver lost its fix in
 * between: it may have travelled, so the still rule does not apply (the
 * speed limit still does). */
static void
test_still_after_gap (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence toll = gps_at (T0, 46.5250, 14.0060, 5, "AT");
  RlEvidence check = gps_at (T0 + 360 * SEC, 46.4560, 14.0510, 5, "SI");

  toll.gps.speed_mps = check.gps.speed_mps = 0;
  rl_evidence_set_set_gps_limits (set, 10, 1200);
  rl_evidence_set_set_gps_still (set, 2, 600);
  g_assert_true (rl_evidence_set_put (set, &toll));
  g_assert_true (rl_evidence_set_remove (set, "gps"));
  g_assert_true (rl_evidence_set_put (set, &check));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);

  /* without the gap: a receiver that says it never moved, untrusted */
  g_autoptr (RlEvidenceSet) unbroken = rl_evidence_set_new (16);
  rl_evidence_set_set_gps_limits (unbroken, 10, 1200);
  rl_evidence_set_set_gps_still (unbroken, 2, 600);
  g_assert_true (rl_evidence_set_put (unbroken, &toll));
  g_assert_true (rl_evidence_set_put (unbroken, &check));
  g_assert_true (item (unbroken, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
}

/* Gdańsk: two office routers and a trusted fix; 15 minutes later (within
 * the 1200 km/h reach) a standing fix 140 km away in Kaliningrad while the
 * same routers are heard: untrusted.  Back in Gdańsk: trusted.  Without the
 * routers (another place) the far fix is trusted. */
static void
test_same_aps_jump (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence office = gps_at (T0, 54.3520, 18.6460, 5, "PL");
  RlEvidence spoof = gps_at (T0 + 900 * SEC, 54.8900, 20.5920, 5, "RU");
  RlEvidence back = gps_at (T0 + 960 * SEC, 54.3520, 18.6460, 5, "PL");
  RlEvidence a = beacon_at (T0 - 10 * SEC, "00:0b:86:71:20:01", "PL", 2437, "Office");
  RlEvidence b = beacon_at (T0 - 10 * SEC, "3c:a6:2f:71:20:02", "PL", 5180, "FunBox-7120");
  RlEvidence a2 = beacon_at (T0 + 890 * SEC, "00:0b:86:71:20:01", "PL", 2437, "Office");
  RlEvidence b2 = beacon_at (T0 + 890 * SEC, "3c:a6:2f:71:20:02", "PL", 5180, "FunBox-7120");

  office.gps.speed_mps = spoof.gps.speed_mps = back.gps.speed_mps = 0;
  rl_evidence_set_set_gps_limits (set, 10, 1200);
  rl_evidence_set_set_gps_still (set, 2, 600);
  g_assert_true (rl_evidence_set_put (set, &a));
  g_assert_true (rl_evidence_set_put (set, &b));
  g_assert_true (rl_evidence_set_put (set, &office));
  g_assert_true (rl_evidence_set_put (set, &a2));
  g_assert_true (rl_evidence_set_put (set, &b2));
  g_assert_true (rl_evidence_set_put (set, &spoof));
  g_assert_true (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
  g_assert_true (rl_evidence_set_put (set, &back));
  g_assert_false (item (set, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);

  g_autoptr (RlEvidenceSet) moved = rl_evidence_set_new (16);
  rl_evidence_set_set_gps_limits (moved, 10, 1200);
  rl_evidence_set_set_gps_still (moved, 2, 600);
  g_assert_true (rl_evidence_set_put (moved, &a));
  g_assert_true (rl_evidence_set_put (moved, &b));
  g_assert_true (rl_evidence_set_put (moved, &office));
  g_assert_true (rl_evidence_set_put (moved, &spoof));
  g_assert_false (item (moved, "gps")->gps.flags & RL_GPS_INFO_UNTRUSTED);
}

/* A scan heard on 2.4 GHz only: the 2.4 GHz APs it did not hear go, the
 * 5 GHz one and the one heard during the scan stay. */
static void
test_drop_unheard (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence a = beacon_at (T0, "3c:a6:2f:11:22:01", "DE", 2437, "FRITZ!Box 7590 XY");
  RlEvidence b = beacon_at (T0, "00:1f:3f:22:33:02", "DE", 5180, "Telekom-4F2C21");
  RlEvidence c = beacon_at (T0 + 60 * SEC, "00:24:01:01:00:01", "NL", 2412, "Ziggo-5G");
  RlEvidence d = beacon_at (T0, "f4:ca:e5:10:00:01", "DE", 0, "no frequency");

  rl_evidence_set_put (set, &a);
  rl_evidence_set_put (set, &b);
  rl_evidence_set_put (set, &c);
  rl_evidence_set_put (set, &d);
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 58 * SEC, RL_BAND_2GHZ, NULL), ==, 1);
  g_assert_null (item (set, "beacon:3c:a6:2f:11:22:01"));
  g_assert_nonnull (item (set, "beacon:00:1f:3f:22:33:02"));
  g_assert_nonnull (item (set, "beacon:00:24:01:01:00:01"));
  g_assert_nonnull (item (set, "beacon:f4:ca:e5:10:00:01"));
  /* a scan of every band also speaks for APs of unknown band */
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 58 * SEC, RL_BANDS_ANY, NULL), ==, 2);
  g_assert_cmpuint (rl_band_from_freq (2484), ==, RL_BAND_2GHZ);
  g_assert_cmpuint (rl_band_from_freq (5825), ==, RL_BAND_5GHZ);
  g_assert_cmpuint (rl_band_from_freq (5955), ==, RL_BAND_6GHZ);
  g_assert_cmpuint (rl_band_from_freq (0), ==, RL_BAND_UNKNOWN);
}

/* An AP two scans heard that the third misses is kept until a fourth
 * misses it too; a passer-by one scan heard goes at the first miss. */
static void
test_drop_unheard_steady (void)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (16);
  RlEvidence steady = beacon_at (T0, "3c:a6:2f:11:22:01", "DE", 2437, "FRITZ!Box 7590 XY");
  RlEvidence mifi = beacon_at (T0 + 30 * SEC, "00:15:ff:26:e1:d0", "US", 2462, "Verizon-MiFi8800L");
  guint once;

  /* scan 1 (from T0 - 2 s) hears the steady AP */
  rl_evidence_set_put (set, &steady);
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 - 2 * SEC, RL_BANDS_ANY, NULL), ==, 0);
  /* scan 2 (from T0 + 28 s) hears both */
  steady.observed_at = T0 + 30 * SEC;
  rl_evidence_set_put (set, &steady);
  rl_evidence_set_put (set, &mifi);
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 28 * SEC, RL_BANDS_ANY, NULL), ==, 0);
  g_assert_cmpuint (item (set, "beacon:3c:a6:2f:11:22:01")->beacon.heard_scans, ==, 2);
  /* scan 3 hears neither: the MiFi is gone, heard by one scan only; the
   * steady AP stays */
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 58 * SEC, RL_BANDS_ANY, &once), ==, 1);
  g_assert_cmpuint (once, ==, 1);
  g_assert_null (item (set, "beacon:00:15:ff:26:e1:d0"));
  g_assert_nonnull (item (set, "beacon:3c:a6:2f:11:22:01"));
  /* scan 4 hears it again: the count of misses starts afresh, the run goes on */
  steady.observed_at = T0 + 90 * SEC;
  rl_evidence_set_put (set, &steady);
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 88 * SEC, RL_BANDS_ANY, NULL), ==, 0);
  g_assert_cmpuint (item (set, "beacon:3c:a6:2f:11:22:01")->beacon.missed_scans, ==, 0);
  g_assert_cmpint (item (set, "beacon:3c:a6:2f:11:22:01")->beacon.heard_since, ==, T0);
  /* scans 5 and 6 miss it: gone at the second */
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 118 * SEC, RL_BANDS_ANY, NULL), ==, 0);
  g_assert_cmpuint (rl_evidence_set_drop_unheard (set, T0 + 148 * SEC, RL_BANDS_ANY, &once), ==, 1);
  g_assert_cmpuint (once, ==, 0);
  g_assert_null (item (set, "beacon:3c:a6:2f:11:22:01"));
}

static RlDecision *
decide (const RlDecision *previous, GArray *ev, gint64 now)
{
  RlPolicyParams p;

  rl_policy_params_init (&p);
  return rl_policy_decide (&p, NULL, NULL, previous, (const RlEvidence *) (gconstpointer) ev->data, ev->len, NULL, now);
}

static void
add (GArray *ev, RlEvidence e)
{
  g_array_append_val (ev, e);
}

static void
remove_key (GArray *ev, const char *key)
{
  for (guint i = 0; i < ev->len; i++)
    if (strcmp (g_array_index (ev, RlEvidence, i).key, key) == 0)
      {
        g_array_remove_index (ev, i);
        return;
      }
  g_assert_not_reached ();
}

/* Cruising at 10,000 m and 850 km/h with the cabin's APs naming DE and US:
 * 00 airborne.  Nothing else: a car at 2,100 m on a pass at 60 km/h. */
static void
test_airborne (void)
{
  g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence fix = gps_at (T0, 50.3, 9.9, 8, "DE");
  g_autoptr (RlDecision) d = NULL;
  g_autoptr (RlDecision) d2 = NULL;
  RlPolicyParams p;

  fix.gps.altitude_m = 10000;
  fix.gps.speed_mps = 850 / 3.6;
  add (ev, fix);
  add (ev, beacon_at (T0, "00:0b:86:aa:00:01", "DE", 2437, "Lufthansa FlyNet"));
  add (ev, beacon_at (T0, "00:0b:86:aa:00:02", "DE", 5180, "Lufthansa FlyNet"));
  add (ev, beacon_at (T0, "9c:1c:12:bb:00:01", "US", 2412, "Telekom_FlyNet"));
  add (ev, beacon_at (T0, "f0:9f:c2:cc:00:01", "DE", 2462, "Lufthansa FlyNet"));
  d = decide (NULL, ev, T0 + 120 * SEC);
  g_assert_cmpint (d->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpint (d->reason, ==, RL_REASON_AIRBORNE);
  g_assert_cmpstr (rl_reason_to_string (d->reason), ==, "airborne");
  g_assert_nonnull (strstr (d->explanation, "in flight"));
  /* the cabin's APs stay suspect while heard, also once the fix is gone */
  g_assert_cmpuint (d->suspects->len, ==, 4);
  remove_key (ev, "gps");
  d2 = decide (d, ev, T0 + 130 * SEC);
  g_assert_cmpint (d2->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (d2->suspects->len, ==, 4);

  rl_policy_params_init (&p);
  fix.gps.altitude_m = 2100;
  fix.gps.speed_mps = 60 / 3.6;
  g_assert_false (rl_gps_is_airborne (&p, &fix));
  fix.gps.speed_mps = NAN;
  fix.gps.altitude_m = 11000;
  g_assert_false (rl_gps_is_airborne (&p, &fix));
  fix.gps.speed_mps = 900 / 3.6;
  g_assert_true (rl_gps_is_airborne (&p, &fix));
  fix.gps.flags |= RL_GPS_INFO_UNTRUSTED;
  g_assert_false (rl_gps_is_airborne (&p, &fix));
}

/* A hotel in Strasbourg: a good fix far inside FR, four APs of an
 * American travel kit naming US.  While the fix stands: conflict.  Indoors
 * the fix is lost: the US APs stay suspect and decide nothing.  A new AP
 * naming US heard only now is no suspect (it was never contradicted). */
static void
test_contradiction_remembered (void)
{
  g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  g_autoptr (RlDecision) d1 = NULL;
  g_autoptr (RlDecision) d2 = NULL;
  g_autoptr (RlDecision) d3 = NULL;
  g_autoptr (RlDecision) fresh = NULL;

  add (ev, gps_at (T0, 48.5839, 7.7455, 6, "FR"));
  add (ev, beacon_at (T0, "00:14:6c:01:00:01", "US", 2412, "NETGEAR-5G"));
  add (ev, beacon_at (T0, "00:1a:2b:02:00:02", "US", 2437, "Linksys00042"));
  add (ev, beacon_at (T0, "9c:3d:cf:03:00:03", "US", 2462, "xfinitywifi"));
  add (ev, beacon_at (T0, "34:98:b5:04:00:04", "US", 5180, "ATT-Home-2.4"));
  d1 = decide (NULL, ev, T0 + 60 * SEC);
  g_assert_cmpint (d1->state, ==, RL_STATE_CONFLICT);
  g_assert_cmpuint (d1->suspects->len, ==, 4);

  remove_key (ev, "gps");
  d2 = decide (d1, ev, T0 + 700 * SEC);
  g_assert_cmpint (d2->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpint (d2->state, ==, RL_STATE_WORLD);
  g_assert_cmpuint (d2->suspects->len, ==, 4);
  g_assert_nonnull (strstr (d2->explanation, "stay suspect"));
  /* without the memory the same evidence decides US */
  fresh = decide (NULL, ev, T0 + 700 * SEC);
  g_assert_cmpuint (fresh->suspects->len, ==, 0);
  g_assert_cmpint (fresh->candidate, ==, RL_COUNTRY ('U', 'S'));

  /* one suspect is not heard any more (two scans missed it): remembered
   * until max_age_beacons after it was last heard, so that heard again it
   * is still suspect (Barentsburg: a Russian router's faint 5 GHz radio) */
  remove_key (ev, "beacon:34:98:b5:04:00:04");
  d3 = decide (d2, ev, T0 + 710 * SEC);
  g_assert_cmpuint (d3->suspects->len, ==, 4);
  {
    g_autoptr (RlDecision) again = NULL;
    RlEvidence back = beacon_at (T0 + 715 * SEC, "34:98:b5:04:00:04", "US", 5180, "ATT-Home-2.4");
    g_autoptr (GArray) later = g_array_copy (ev);
    add (later, back);
    again = decide (d3, later, T0 + 715 * SEC);
    g_assert_true (rl_contradiction_is_suspect (again->suspects, &back));
    g_assert_cmpint (again->country, ==, RL_COUNTRY_WORLD);
  }

  /* a good fix in the US (the machine really got there) clears them */
  {
    g_autoptr (RlDecision) d4 = NULL;
    add (ev, gps_at (T0 + 720 * SEC, 40.7580, -73.9855, 6, "US"));
    d4 = decide (d3, ev, T0 + 720 * SEC);
    g_assert_cmpuint (d4->suspects->len, ==, 0);
  }
}

/* Spoofed into Russia next to German APs: the jumped fix is no witness for
 * RU and no conflict; a jumped fix that agrees with the APs confirms them. */
static void
test_untrusted_fix (void)
{
  g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlEvidence spoof = gps_at (T0, 55.9726, 37.4146, 5, "RU");
  g_autoptr (RlDecision) d = NULL;
  g_autoptr (RlDecision) d2 = NULL;

  spoof.gps.flags |= RL_GPS_INFO_UNTRUSTED;
  add (ev, spoof);
  add (ev, beacon_at (T0, "3c:a6:2f:11:22:01", "DE", 2437, "FRITZ!Box 7590 XY"));
  add (ev, beacon_at (T0, "00:1f:3f:22:33:02", "DE", 5180, "Telekom-4F2C21"));
  add (ev, beacon_at (T0, "88:71:b1:33:44:03", "DE", 2412, "Vodafone-A3C1"));
  add (ev, beacon_at (T0, "50:c7:bf:44:55:04", "DE", 2462, "o2-WLAN42"));
  d = decide (NULL, ev, T0 + 60 * SEC);
  g_assert_cmpint (d->state, !=, RL_STATE_CONFLICT);
  for (guint i = 0; i < d->candidates->len; i++)
    {
      const RlCandidate *c = &g_array_index (d->candidates, RlCandidate, i);
      g_assert_false (c->gps);
      g_assert_cmpint (c->country, !=, RL_COUNTRY ('R', 'U'));
    }
  g_assert_cmpuint (d->suspects->len, ==, 0);

  g_array_index (ev, RlEvidence, 0) = gps_at (T0, 50.11, 8.68, 5, "DE");
  g_array_index (ev, RlEvidence, 0).gps.flags |= RL_GPS_INFO_UNTRUSTED;
  d2 = decide (NULL, ev, T0 + 60 * SEC);
  g_assert_cmpint (g_array_index (d2->candidates, RlCandidate, 0).country, ==, RL_COUNTRY ('D', 'E'));
  g_assert_true (g_array_index (d2->candidates, RlCandidate, 0).gps);
}

/* The engine applies a scan event like any other, and the vote moves. */
static void
test_engine_scan (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  RlEvent scan = { .time = T0 + 60 * SEC, .type = RL_EVENT_SCAN, .since = T0 + 58 * SEC, .bands = RL_BAND_2GHZ };
  RlEvidence a = beacon_at (T0, "3c:a6:2f:11:22:01", "DE", 2437, "FRITZ!Box 7590 XY");
  gsize n;

  rl_engine_add (e, &a);
  g_assert_true (rl_engine_decide_at (e, T0, NULL, NULL));
  rl_engine_apply (e, &scan);
  rl_engine_items (e, &n);
  g_assert_cmpuint (n, ==, 0);
  g_assert_true (rl_engine_decide_at (e, T0 + 60 * SEC, NULL, NULL));
  g_assert_cmpstr (rl_event_type_to_string (RL_EVENT_SCAN), ==, "scan");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/freshness/best-fix-window", test_best_fix_window);
  g_test_add_func ("/freshness/jump", test_jump);
  g_test_add_func ("/freshness/still-jump", test_still_jump);
  g_test_add_func ("/freshness/still-after-gap", test_still_after_gap);
  g_test_add_func ("/freshness/same-aps-jump", test_same_aps_jump);
  g_test_add_func ("/freshness/drop-unheard", test_drop_unheard);
  g_test_add_func ("/freshness/drop-unheard-steady", test_drop_unheard_steady);
  g_test_add_func ("/freshness/airborne", test_airborne);
  g_test_add_func ("/freshness/contradiction-remembered", test_contradiction_remembered);
  g_test_add_func ("/freshness/untrusted-fix", test_untrusted_fix);
  g_test_add_func ("/freshness/engine-scan", test_engine_scan);
  return g_test_run ();
}
