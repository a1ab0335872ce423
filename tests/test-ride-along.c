/* Access points that ride along with the machine (docs/policy.md rule 4c),
 * below the scenario files: the evidence set marks a device heard without
 * a break while the others around it came and went, and only then.  Each
 * test plays scans once a minute, as NetworkManager runs them while
 * moving; a scan withdraws what it did not hear. */
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "core/evidence-set.h"

#define SEC RL_USEC_PER_SEC
#define MIN_ (60 * SEC)
#define T0 (G_GINT64_CONSTANT (1780639200) * SEC)

/* @heard: "BSSID" or "BSSID SSID" */
static RlEvidence
beacon_at (gint64 t, const char *heard, const char *country)
{
  RlEvidence ev;
  g_autofree char *bssid = g_strndup (heard, strcspn (heard, " "));
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);
  RlCountry c;
  unsigned int b[6];

  g_assert_cmpint (sscanf (bssid, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]), ==, 6);
  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, t, rl_expiry_after (t, 900));
  if (heard[strlen (bssid)] == ' ')
    g_strlcpy (ev.beacon.ssid, heard + strlen (bssid) + 1, sizeof ev.beacon.ssid);
  for (guint i = 0; i < 6; i++)
    ev.beacon.bssid[i] = (guint8) b[i];
  ev.beacon.freq_mhz = 2437;
  ev.beacon.signal_mbm = -6000;
  g_assert_true (rl_country_parse (country, &c));
  rl_evidence_add_country (&ev, c);
  return ev;
}

/* One scan at minute @minute hearing @bssids (NULL-terminated; "BSSID",
 * "BSSID SSID", each saying DE unless "/CC" follows), then the marks judged
 * at its end, as the engine does before it decides. */
static void
scan (RlEvidenceSet *set, guint minute, const char *const *bssids)
{
  gint64 start = T0 + (gint64) minute * MIN_, end = start + 4 * SEC;

  for (guint i = 0; bssids[i] != NULL; i++)
    {
      const char *slash = strchr (bssids[i], '/');
      g_autofree char *heard = g_strndup (bssids[i], slash != NULL ? (gsize) (slash - bssids[i]) : strlen (bssids[i]));
      RlEvidence ev = beacon_at (start + 2 * SEC, heard, slash != NULL ? slash + 1 : "DE");
      g_assert_true (rl_evidence_set_put (set, &ev));
    }
  rl_evidence_set_drop_unheard (set, start, RL_BANDS_ANY, NULL);
  rl_evidence_set_update_riders (set, end);
}

static gboolean
rides (RlEvidenceSet *set, const char *bssid)
{
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n);

  for (gsize i = 0; i < n; i++)
    if (strcmp (items[i].key, key) == 0)
      return (items[i].beacon.flags & RL_BEACON_INFO_RIDES_ALONG) != 0;
  g_error ("%s is not heard", bssid);
}

static RlEvidenceSet *
new_set (guint window_s)
{
  RlEvidenceSet *set = rl_evidence_set_new (512);

  rl_evidence_set_set_ride_along (set, window_s, 4);
  return set;
}

/* Roadside access points: a different FRITZ!Box every @every minutes,
 * heard in one scan only. */
static const char *
roadside (guint minute, guint every, char buf[18])
{
  if (minute % every != 0)
    return NULL;
  g_snprintf (buf, 18, "44:4e:6d:%02x:%02x:10", (minute / 256) & 0xff, minute & 0xff);
  return buf;
}

#define COACH_24 "00:1b:53:61:20:01"
#define COACH_5 "00:1b:53:61:20:05"
#define COACH_6 "00:1b:53:61:20:09"
#define TRAVEL "94:83:c4:2b:71:5e"

/* A coach from Berlin: its router (two BSSIDs of one device) and a
 * passenger's travel router, heard in every scan; the bus station's four
 * routers for five minutes, then a roadside router every seven minutes.
 * Both ride along once two roadside routers came and went, and stay so
 * through 50 minutes with no roadside router at all, and at the station
 * at the end; a run broken makes a device new. */
static void
test_coach (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);
  const char *station[] = { COACH_24, COACH_5, TRAVEL, "00:1f:3f:8c:02:71", "88:71:b1:31:5a:e0",
                            "3c:a6:2f:20:44:13", "1c:ed:6f:52:90:0a", NULL };
  const char *arrival[] = { COACH_24, COACH_5, COACH_6, TRAVEL, "00:0b:86:72:c1:40", "a0:1b:29:5d:37:02",
                            "54:67:51:0e:aa:91", NULL };
  guint m;

  for (m = 0; m < 5; m++)
    scan (set, m, station);
  g_assert_false (rides (set, COACH_24));
  for (; m < 240; m++)
    {
      char buf[18];
      const char *road = m < 120 || m >= 170 ? roadside (m, 7, buf) : NULL;
      const char *heard[] = { COACH_24, COACH_5, TRAVEL, road, NULL };
      scan (set, m, heard);
      /* ten minutes heard, the station's routers lost, but only one
       * roadside router came and went yet: not enough */
      if (m == 10)
        g_assert_false (rides (set, TRAVEL));
      if (m == 20)
        {
          g_assert_true (rides (set, COACH_24));
          g_assert_true (rides (set, COACH_5));
          g_assert_true (rides (set, TRAVEL));
        }
    }
  /* four hours on, after 50 minutes with no roadside router: still riding */
  g_assert_true (rides (set, COACH_24));
  g_assert_true (rides (set, TRAVEL));
  /* the coach's 6 GHz radio comes up: the same device, riding */
  for (; m < 250; m++)
    scan (set, m, arrival);
  g_assert_true (rides (set, COACH_6));
  g_assert_true (rides (set, COACH_24));
  /* an hour at the station among its routers: the travel router still
   * travels with the machine */
  for (; m < 310; m++)
    scan (set, m, arrival);
  g_assert_true (rides (set, COACH_6));
  g_assert_true (rides (set, TRAVEL));
  /* switched off and on again: a new run, not marked */
  for (; m < 312; m++)
    {
      const char *station_only[] = { "00:0b:86:72:c1:40", "a0:1b:29:5d:37:02", "54:67:51:0e:aa:91", NULL };
      scan (set, m, station_only);
    }
  scan (set, m++, arrival);
  g_assert_false (rides (set, TRAVEL));
  g_assert_false (rides (set, COACH_24));
}

/* Scan minute @m of a place whose own devices @own (NULL-terminated, at most
 * eight) are heard in every scan, while from minute 30 to 53 a car's
 * hotspot passes every other minute, each heard once: twelve in twenty
 * minutes. */
static void
scan_burst (RlEvidenceSet *set, guint m, const char *const *own)
{
  const char *heard[10] = { NULL };
  char car[18];
  guint n = 0;

  while (own[n] != NULL && n < 8)
    {
      heard[n] = own[n];
      n++;
    }
  if (m >= 30 && m < 54 && m % 2 == 0)
    {
      g_snprintf (car, sizeof car, "00:26:7e:%02x:30:01", m & 0xff);
      heard[n] = car;
    }
  scan (set, m, heard);
}

/* A house by a busy road with solid neighbours: the FRITZ!Box and four
 * neighbours' routers in every scan, then the burst of cars.  That is the
 * turnover of a coach, but five networks heard throughout are a place's
 * neighbours, not what a vehicle carries: nothing is marked. */
static void
test_home_burst (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);
  const char *house[] = { "3c:a6:2f:11:22:33", "88:71:b1:40:11:02", "44:4e:6d:77:81:0c", "1c:ed:6f:02:9a:31",
                          "00:1f:3f:12:34:56", NULL };

  for (guint m = 0; m < 100; m++)
    {
      scan_burst (set, m, house);
      g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
      g_assert_false (rides (set, "00:1f:3f:12:34:56"));
    }
}

/* The limit of the rule: a cottage by the same road hears only its own
 * box and one neighbour, as a car hears its hotspot and a MiFi, so they
 * are marked when the burst passes (docs/policy.md: what is heard only
 * lately and the clock then do not vote either: 00, never the passers-by's
 * country).  Four hours with nothing lost take the marks away. */
static void
test_cottage_burst (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);
  const char *cottage[] = { "3c:a6:2f:11:22:33", "88:71:b1:40:11:02", NULL };
  guint m;

  for (m = 0; m < 100; m++)
    {
      scan_burst (set, m, cottage);
      if (m == 53)
        g_assert_true (rides (set, "3c:a6:2f:11:22:33"));
    }
  g_assert_true (rides (set, "3c:a6:2f:11:22:33"));
  for (; m < 53 + 241; m++)
    scan (set, m, cottage);
  g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
  g_assert_false (rides (set, "88:71:b1:40:11:02"));
}

/* The same coach with the rule off: nothing is marked. */
static void
test_off (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (0);

  for (guint m = 0; m < 120; m++)
    {
      char buf[18];
      const char *heard[] = { COACH_24, TRAVEL, m < 5 ? "00:1f:3f:8c:02:71" : roadside (m, 3, buf), NULL };
      scan (set, m, heard);
      g_assert_false (rides (set, COACH_24));
      g_assert_false (rides (set, TRAVEL));
    }
}

/* A house by a road: the FRITZ!Box and a devolo repeater in every scan,
 * three neighbours' routers missing from one scan in three, and a car's
 * hotspot (globally administered) passing every five minutes, heard in
 * one scan.  Three hours: the neighbours keep being heard, so the house's
 * routers never ride along. */
static void
test_home_flicker (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);

  for (guint m = 0; m < 180; m++)
    {
      char car[18];
      const char *heard[8];
      guint n = 0;
      heard[n++] = "3c:a6:2f:11:22:33";
      heard[n++] = "f4:06:8d:51:0a:20";
      if (m % 3 != 0)
        heard[n++] = "88:71:b1:40:11:02";
      if (m % 3 != 1)
        heard[n++] = "44:4e:6d:77:81:0c";
      if (m % 3 != 2)
        heard[n++] = "1c:ed:6f:02:9a:31";
      if (m % 5 == 0)
        {
          g_snprintf (car, sizeof car, "00:26:7e:%02x:10:01", m & 0xff);
          heard[n++] = car;
        }
      heard[n] = NULL;
      scan (set, m, heard);
      g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
      g_assert_false (rides (set, "f4:06:8d:51:0a:20"));
    }
}

/* The laptop carried into the basement: the neighbours (heard from the
 * first scan or the second) are lost at once, nothing new comes and goes:
 * the house's routers do not ride along. */
static void
test_basement (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);
  const char *first[] = { "3c:a6:2f:11:22:33", "f4:06:8d:51:0a:20", "88:71:b1:40:11:02", "44:4e:6d:77:81:0c", NULL };
  const char *upstairs[] = { "3c:a6:2f:11:22:33", "f4:06:8d:51:0a:20", "88:71:b1:40:11:02", "44:4e:6d:77:81:0c",
                             "1c:ed:6f:02:9a:31", "00:1f:3f:12:34:56", NULL };
  const char *basement[] = { "3c:a6:2f:11:22:33", "f4:06:8d:51:0a:20", NULL };
  guint m;

  scan (set, 0, first);
  for (m = 1; m < 30; m++)
    scan (set, m, upstairs);
  for (; m < 120; m++)
    {
      scan (set, m, basement);
      g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
    }
}

/* A flat: its own router and five neighbours heard without a break, and a
 * stream of devices heard once (phones' hotspots with vendor addresses,
 * passers-by): more than four lost, but fewer than twice the six devices
 * that stayed, so nothing rides along. */
static void
test_apartment (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);

  for (guint m = 0; m < 120; m++)
    {
      char once[18];
      const char *heard[] = { "3c:a6:2f:11:22:33", "88:71:b1:40:11:02", "44:4e:6d:77:81:0c", "1c:ed:6f:02:9a:31",
                              "00:1f:3f:12:34:56", "a0:1b:29:5d:37:02", NULL, NULL };
      if (m % 3 == 0)
        {
          g_snprintf (once, sizeof once, "00:26:7e:%02x:20:01", m & 0xff);
          heard[6] = once;
        }
      scan (set, m, heard);
      g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
    }
}

/* A platform at Frankfurt Hbf: the station's network (three devices) and
 * two shops' routers in every scan; every four minutes a train stands in
 * for two scans, eight carriages' access points of one network (WIFIonICE
 * or WIFI@DB).  Many devices come and go, but two networks: a train is one
 * passer, not eight, and nothing on the platform rides along. */
static void
test_platform (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);

  for (guint m = 0; m < 90; m++)
    {
      const char *heard[16] = { "00:0b:86:6a:10:40 DB Station", "00:0b:86:6a:11:40 DB Station",
                                "00:0b:86:6a:12:40 DB Station", "00:1f:3f:51:77:02 Telekom",
                                "3c:a6:2f:0c:19:e1 FRITZ!Box Backwerk" };
      char train[8][40];
      guint n = 5;
      if (m % 4 < 2)
        for (guint c = 0; c < 8; c++)
          {
            g_snprintf (train[c], sizeof train[c], "34:f8:e7:%02x:%02x:10 %s", (m / 4) & 0xff, c,
                        (m / 4) % 2 ? "WIFI@DB" : "WIFIonICE");
            heard[n++] = train[c];
          }
      heard[n] = NULL;
      scan (set, m, heard);
      g_assert_false (rides (set, "00:0b:86:6a:10:40"));
      g_assert_false (rides (set, "3c:a6:2f:0c:19:e1"));
    }
}

/* Six pocket Wi-Fis of six vendors saying @steady_cc heard in every scan;
 * four routers for five minutes, then one router every other minute, each
 * heard once, saying in turn the countries of @passers_cc ("FR,BE").  Do
 * the six ride along after half an hour? */
static gboolean
tour_rides (const char *steady_cc, const char *passers_cc)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);
  g_auto (GStrv) passers = g_strsplit (passers_cc, ",", -1);
  const char *vendors[] = { "48:46:fb", "98:f5:37", "1c:b1:7f", "00:1e:ad", "34:4b:50", "50:c7:bf" };
  char steady[6][24], front[4][24], road[24];

  for (guint i = 0; i < 6; i++)
    g_snprintf (steady[i], sizeof steady[i], "%s:10:00:%02x/%s", vendors[i], i, steady_cc);
  for (guint i = 0; i < 4; i++)
    g_snprintf (front[i], sizeof front[i], "7c:03:d8:20:00:%02x/%s", i, passers[0]);
  for (guint m = 0; m < 30; m++)
    {
      const char *heard[12];
      guint n = 0;
      for (guint i = 0; i < 6; i++)
        heard[n++] = steady[i];
      if (m < 5)
        for (guint i = 0; i < 4; i++)
          heard[n++] = front[i];
      else if (m % 2 == 0)
        {
          g_snprintf (road, sizeof road, "f4:ca:e5:%02x:00:01/%s", m & 0xff, passers[(m / 2) % g_strv_length (passers)]);
          heard[n++] = road;
        }
      heard[n] = NULL;
      scan (set, m, heard);
    }
  return rides (set, "48:46:fb:10:00:00") && rides (set, "50:c7:bf:10:00:05");
}

/* More than three networks heard throughout ride along only when what
 * went by is a roadside out of their reach: a coach of Japanese tourists
 * leaving a Paris hotel for the motorway to Brussels.  The same evidence
 * in places does not: a flat in Vaals (NL) with German MiFis passing, a
 * Paris hotel whose passers-by are guests from three countries, a coach
 * whose passers-by include another tour group's pocket Wi-Fi. */
static void
test_tour_coach (void)
{
  g_assert_true (tour_rides ("JP", "FR"));
  g_assert_true (tour_rides ("JP", "FR,FR,BE"));
  g_assert_false (tour_rides ("NL", "DE"));
  g_assert_false (tour_rides ("FR", "US,CN,JP"));
  g_assert_false (tour_rides ("JP", "FR,FR,JP"));
}

/* A phone's hotspot (a made-up, locally administered address) is no
 * device of this rule: never marked, never counted as lost. */
static void
test_local_addresses (void)
{
  g_autoptr (RlEvidenceSet) set = new_set (600);

  for (guint m = 0; m < 60; m++)
    {
      char la[18];
      const char *heard[] = { "da:a1:19:00:00:01", "3c:a6:2f:11:22:33", la, NULL };
      g_snprintf (la, sizeof la, "ee:%02x:19:00:00:02", m & 0xff);
      scan (set, m, heard);
      g_assert_false (rides (set, "da:a1:19:00:00:01"));
      g_assert_false (rides (set, "3c:a6:2f:11:22:33"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ride-along/coach", test_coach);
  g_test_add_func ("/ride-along/off", test_off);
  g_test_add_func ("/ride-along/home-flicker", test_home_flicker);
  g_test_add_func ("/ride-along/basement", test_basement);
  g_test_add_func ("/ride-along/apartment", test_apartment);
  g_test_add_func ("/ride-along/home-burst", test_home_burst);
  g_test_add_func ("/ride-along/cottage-burst", test_cottage_burst);
  g_test_add_func ("/ride-along/platform", test_platform);
  g_test_add_func ("/ride-along/local-addresses", test_local_addresses);
  g_test_add_func ("/ride-along/tour-coach", test_tour_coach);
  return g_test_run ();
}
