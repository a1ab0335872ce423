/* The decision engine (core/engine.c) on hand-made evidence: the resume
 * wait, skip-unchanged, the next instant, the per-kind cap. */
#include <string.h>
#include <glib.h>

#include "core/config.h"
#include "core/engine.h"
#include "core/regdb.h"

#define SEC RL_USEC_PER_SEC
#define T0 (G_GINT64_CONSTANT (1773300000) * SEC)
#define DE RL_COUNTRY ('D', 'E')
#define FR RL_COUNTRY ('F', 'R')

/* Four APs from four OUIs: two beacon witnesses on their own. */
static const guint8 ouis[4][3] = { { 0xe0, 0xaf, 0x4f }, { 0x98, 0x9b, 0xcb }, { 0x84, 0xa0, 0x6e }, { 0x30, 0xfb, 0xb8 } };

static RlEvidence
beacon (guint i, RlCountry country, gint64 at, const RlConfig *config)
{
  RlEvidence ev;
  char key[48];
  guint8 mac[6] = { ouis[i % 4][0], ouis[i % 4][1], ouis[i % 4][2], 0x10, (guint8) (i >> 8), (guint8) i };

  g_snprintf (key, sizeof key, "beacon:%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, at, rl_expiry_after (at, config->policy.max_age_s[RL_SOURCE_BEACON]));
  rl_evidence_add_country (&ev, country);
  ev.strength = 1.0;
  memcpy (ev.beacon.bssid, mac, 6);
  g_snprintf (ev.beacon.ssid, sizeof ev.beacon.ssid, "AP-%u", i);
  return ev;
}

/* A good fix far from any border. */
static RlEvidence
gps (RlCountry country, gint64 at, const RlConfig *config)
{
  RlEvidence ev;

  rl_evidence_init (&ev, RL_SOURCE_GPS, "gps", at, rl_expiry_after (at, config->policy.max_age_s[RL_SOURCE_GPS]));
  rl_evidence_add_country (&ev, country);
  ev.strength = 1.0;
  ev.gps.lat = 48.57;
  ev.gps.lon = 7.81;
  ev.gps.error_m = 6;
  ev.gps.border_m = 50000;
  return ev;
}

/* Decides at every instant the engine names up to @until, then at @until. */
static const RlDecision *
run_until (RlEngine *e, gint64 until)
{
  gint64 due;

  while ((due = rl_engine_next_instant (e)) < until)
    {
      rl_engine_decide_at (e, due, NULL, NULL);
      if (rl_engine_next_instant (e) <= due)
        break;
    }
  rl_engine_decide_at (e, until, NULL, NULL);
  return rl_engine_decision (e);
}

/* As the daemon and replay do: catch up to @at, apply, decide at @at. */
static void
add_aps (RlEngine *e, RlCountry country, gint64 at, const RlConfig *config)
{
  run_until (e, at);
  for (guint i = 0; i < 4; i++)
    {
      RlEvidence ev = beacon (i, country, at, config);
      rl_engine_add (e, &ev);
    }
  rl_engine_decide_at (e, at, NULL, NULL);
}

static void
add_gps (RlEngine *e, RlCountry country, gint64 at, const RlConfig *config)
{
  RlEvidence ev = gps (country, at, config);

  run_until (e, at);
  rl_engine_add (e, &ev);
  rl_engine_decide_at (e, at, NULL, NULL);
}

/* Decided FR with GPS and APs, asleep from +8 min, resumed at +30 min. */
static RlEngine *
decided_then_resumed (const RlConfig *config, gint64 *resume)
{
  RlEngine *e = rl_engine_new (config, NULL);

  add_gps (e, FR, T0, config);
  add_aps (e, FR, T0, config);
  g_assert_cmpuint (run_until (e, T0 + 60 * SEC)->country, ==, FR);
  add_gps (e, FR, T0 + 8 * 60 * SEC, config);
  add_aps (e, FR, T0 + 8 * 60 * SEC, config);
  run_until (e, T0 + 8 * 60 * SEC);
  *resume = T0 + 30 * 60 * SEC;
  run_until (e, *resume);
  g_assert_cmpuint (rl_engine_resume (e, *resume), ==, 0);   /* everything had aged out asleep */
  g_assert_cmpuint (run_until (e, *resume)->country, ==, RL_COUNTRY_WORLD);
  return e;
}

/* The APs agree at +5 s; a GPS that delivered before the sleep objects at
 * +45 s: the APs never decided alone. */
static void
test_resume_gps_objects (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  gint64 resume;
  g_autoptr (RlEngine) e = decided_then_resumed (config, &resume);
  const RlDecision *d;

  add_aps (e, DE, resume + 5 * SEC, config);
  d = run_until (e, resume + 40 * SEC);
  g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (d->state, ==, RL_STATE_TENTATIVE);
  g_assert_cmpuint (d->candidate, ==, DE);
  g_assert_nonnull (strstr (d->summary, "gps"));
  g_assert_nonnull (strstr (d->explanation, "Resumed from sleep"));
  /* the wait is the next instant: the hold-down alone would be over */
  g_assert_cmpint (rl_engine_next_instant (e), ==, resume + (gint64) config->resume_wait_s * SEC);

  add_gps (e, FR, resume + 45 * SEC, config);
  d = run_until (e, resume + 10 * 60 * SEC);
  g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (d->state, ==, RL_STATE_CONFLICT);
}

/* The GPS never comes back: the APs decide when resume_wait is over. */
static void
test_resume_wait_limit (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  gint64 resume, limit;
  g_autoptr (RlEngine) e = decided_then_resumed (config, &resume);

  limit = resume + (gint64) config->resume_wait_s * SEC;
  add_aps (e, DE, resume + 5 * SEC, config);
  g_assert_cmpuint (run_until (e, limit - 1)->state, ==, RL_STATE_TENTATIVE);
  g_assert_cmpuint (run_until (e, limit)->country, ==, DE);
  g_assert_cmpuint (rl_engine_decision (e)->state, ==, RL_STATE_DECIDED);
}

/* resume_wait=0, or a GPS that had lost its fix before the sleep: the APs'
 * own hold-down is all they wait. */
static void
test_resume_no_wait (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  gint64 resume;

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr (RlEngine) e = NULL;
      gint64 held = (gint64) config->policy.hold_down_s * SEC;

      config->resume_wait_s = round == 0 ? 0 : 120;
      e = rl_engine_new (config, NULL);
      add_gps (e, FR, T0, config);
      add_aps (e, FR, T0, config);
      g_assert_cmpuint (run_until (e, T0 + 60 * SEC)->country, ==, FR);
      if (round == 1)
        g_assert_true (rl_engine_withdraw (e, "gps"));   /* fix lost indoors */
      resume = T0 + 5 * 60 * SEC;
      rl_engine_resume (e, resume);
      add_aps (e, DE, resume + 5 * SEC, config);
      g_assert_cmpuint (run_until (e, resume + 5 * SEC + held - 1)->state, ==, RL_STATE_TENTATIVE);
      g_assert_cmpuint (run_until (e, resume + 5 * SEC + held)->country, ==, DE);
    }
}

/* A modem on DE's network and a Berlin clock, nothing heard on Wi-Fi: the
 * hold-down is hold_down_unheard while the card has not scanned (the
 * place's access points may be a scan away: a home SIM on a mast across a
 * border), hold_down once a scan has ended with nothing, without a card
 * (an LTE router in a field) or with an access point heard; a resume waits
 * for a scan again. */
static void
cell_and_clock (RlEngine *e, gint64 at)
{
  RlEvidence cell, tz;

  rl_evidence_init (&cell, RL_SOURCE_CELL, "cell:0", at, RL_NEVER);
  rl_evidence_add_country (&cell, DE);
  cell.strength = 1.0;
  g_strlcpy (cell.cell.network, "262-01", sizeof cell.cell.network);
  rl_evidence_init (&tz, RL_SOURCE_TIMEZONE, "timezone", at, RL_NEVER);
  rl_evidence_add_country (&tz, DE);
  tz.strength = 1.0;
  g_strlcpy (tz.detail, "Europe/Berlin", sizeof tz.detail);
  rl_engine_add (e, &cell);
  rl_engine_add (e, &tz);
  rl_engine_decide_at (e, at, NULL, NULL);
}

static void
test_cell_awaits_first_scan (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  gint64 held = (gint64) config->policy.hold_down_s * SEC;
  gint64 unheard = (gint64) config->policy.hold_down_unheard_s * SEC;

  g_assert_cmpint (unheard, >, held);
  for (guint round = 0; round < 5; round++)
    {
      g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
      gint64 wait = round == 0 || round == 3 ? unheard : held;
      gint64 start = T0;
      RlEvidence ap = beacon (0, DE, T0, config);

      if (round == 1)
        rl_engine_scan_ended (e);    /* a scan heard nothing */
      if (round == 2)
        rl_engine_set_has_wifi (e, FALSE);
      if (round == 3)
        {
          rl_engine_scan_ended (e);
          start = T0 + 60 * SEC;
          rl_engine_resume (e, start);   /* the scan before the sleep does not count */
        }
      if (round == 4)
        rl_engine_add (e, &ap);   /* one router heard (no witness): the Wi-Fi has had its say */
      cell_and_clock (e, start);
      const RlDecision *d = run_until (e, start + wait - 1);
      g_assert_cmpuint (d->state, ==, RL_STATE_TENTATIVE);
      g_assert_true ((strstr (d->explanation, "and the Wi-Fi has not scanned yet: the hold-down is 90 s instead of 30 s") !=
                      NULL) == (wait == unheard));
      /* the short line says so too: a scan's end may come first */
      g_assert_true (g_str_has_suffix (d->summary, "s more or until a scan ends") == (wait == unheard));
      g_assert_cmpuint (run_until (e, start + wait)->country, ==, DE);
    }
}

/* A modem's registration is an observation of the mast the machine slept
 * under: a resume drops it with the fixes and access points, and the old
 * country is not kept on it and the clock (a laptop shut in Frankfurt,
 * opened in Vienna before its modem and Wi-Fi report). */
static void
test_resume_drops_the_cell (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  gint64 resume = T0 + 95 * 60 * SEC;
  const RlDecision *d;
  gsize n;

  rl_engine_scan_ended (e);
  cell_and_clock (e, T0);
  g_assert_cmpuint (run_until (e, T0 + 60 * SEC)->country, ==, DE);
  g_assert_cmpuint (rl_engine_resume (e, resume), ==, 1);
  d = run_until (e, resume + SEC);
  g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
  rl_engine_items (e, &n);
  g_assert_cmpuint (n, ==, 1);                 /* the clock, a setting, stays */
  /* the modem reports again: the same network, observed after the resume
   * (and a scan since, which heard nothing: hold_down, not hold_down_unheard) */
  rl_engine_scan_ended (e);
  cell_and_clock (e, resume + 20 * SEC);
  g_assert_cmpuint (run_until (e, resume + 20 * SEC + (gint64) config->policy.hold_down_s * SEC)->country, ==, DE);
}

/* The loudest router sending no country (rule 4b) counts from the scan
 * that heard it through the next one, which may miss it; two scans
 * without it, a resume or the beacons' withdrawal forget it. */
static void
test_silent_router_two_scans (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = NULL;
  static const char faint[] = "all heard faintly beside an access point at -40 dBm";
  gint64 t = T0;

  config->policy.hold_down_s = 0;
  config->policy.hold_down_unheard_s = 0;
  e = rl_engine_new (config, NULL);
  for (guint round = 0; round < 6; round++, t += 60 * SEC)
    {
      /* rounds 0 and 3 hear the router on the shelf; 1 still counts it */
      gboolean heard = round == 0 || round == 3 || round == 5, beside = round == 0 || round == 1 || round == 3;

      if (round == 4)
        rl_engine_resume (e, t);
      if (round == 5)
        {
          /* heard, then the Wi-Fi was switched off and on again */
          rl_engine_heard_silent (e, -4000);
          rl_engine_withdraw_kind (e, RL_SOURCE_BEACON);
        }
      /* three French routers across the street, one German box next door */
      for (guint i = 0; i < 4; i++)
        {
          RlEvidence ap = beacon (i, i == 3 ? DE : FR, t, config);
          ap.beacon.signal_mbm = i == 3 ? -6400 : -8200;
          rl_engine_add (e, &ap);
        }
      if (round < 5)
        {
          rl_engine_heard_silent (e, heard ? -4000 : 0);
          rl_engine_scan (e, t - SEC, RL_BANDS_ANY);
        }
      const RlDecision *d = run_until (e, t + SEC);
      g_assert_true ((strstr (d->explanation, faint) != NULL) == beside);
    }
}

/* An access point's signal is no part of its vote (skip-unchanged), but
 * the faint rule reads it: each scan's end weighs the signals again.  A
 * flat in Kehl by the Rhine, the family's box on the desk (DE, -45 dBm),
 * three routers in Strasbourg across the river, the Paris clock: the
 * French routers rise above the faint line (-75 dBm) and fall below it
 * again, every scan hearing the same access points. */
static void
test_signals_weighed_per_scan (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = NULL;
  static const struct { int dbm; RlCountry country; } scans[] = {
    { -80, RL_COUNTRY_WORLD }, { -70, FR }, { -77, FR }, { -81, RL_COUNTRY_WORLD },
  };
  RlEvidence tz;
  gint64 t = T0;

  config->policy.hold_down_s = 0;
  config->policy.hold_down_unheard_s = 0;
  e = rl_engine_new (config, NULL);
  rl_evidence_init (&tz, RL_SOURCE_TIMEZONE, "timezone", T0, RL_NEVER);
  rl_evidence_add_country (&tz, FR);
  tz.strength = 1.0;
  g_strlcpy (tz.detail, "Europe/Paris", sizeof tz.detail);
  rl_engine_add (e, &tz);
  for (guint i = 0; i < G_N_ELEMENTS (scans); i++, t += 60 * SEC)
    {
      for (guint k = 0; k < 4; k++)
        {
          RlEvidence ap = beacon (k, k == 3 ? DE : FR, t, config);
          ap.beacon.signal_mbm = k == 3 ? -4500 : (scans[i].dbm - (int) k) * 100;
          rl_engine_add (e, &ap);
        }
      rl_engine_scan (e, t - SEC, RL_BANDS_ANY);
      g_assert_cmpuint (run_until (e, t + SEC)->country, ==, scans[i].country);
    }
}

/* beacon () @k < 4 naming @own, from @k = 4 on devices of their own
 * naming @other */
static RlEvidence
neighbour (guint k, RlCountry own, RlCountry other, gint64 at, const RlConfig *config)
{
  RlEvidence ap = beacon (k, k < 4 ? own : other, at, config);

  if (k >= 4)
    {
      ap.beacon.bssid[3] = 0x20;
      g_snprintf (ap.key, sizeof ap.key, "beacon:%02x:%02x:%02x:%02x:%02x:%02x", ap.beacon.bssid[0], ap.beacon.bssid[1],
                  ap.beacon.bssid[2], ap.beacon.bssid[3], ap.beacon.bssid[4], ap.beacon.bssid[5]);
    }
  return ap;
}

/* Rule 8: an embassy's own network of four operators'
 * routers (KR), three Chinese neighbours' routers heard by the first scan
 * only and missed by the second, which withdraws them at once.  KR agrees
 * as they go, but they were heard by one scan only: KR waits for the next
 * scan, which hears them again.  In round 1 the neighbours were heard by
 * two scans before two missed them (the machine left): KR after the
 * hold-down alone. */
static void
test_once_heard_dissent_waits (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  const RlCountry KR = RL_COUNTRY ('K', 'R'), CN = RL_COUNTRY ('C', 'N');
  RlEvidence tz;

  rl_evidence_init (&tz, RL_SOURCE_TIMEZONE, "timezone", T0, RL_NEVER);
  rl_evidence_add_country (&tz, KR);
  tz.strength = 1.0;
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
      /* scans every 60 s; the neighbours heard by scans 0 (and 1 in round 1) */
      guint heard_cn = round == 0 ? 1 : 2, agree_scan = round == 0 ? 1 : 3;
      gint64 t = T0;

      rl_engine_add (e, &tz);
      for (guint scan = 0; scan <= agree_scan; scan++, t += 60 * SEC)
        {
          for (guint k = 0; k < 4 + (scan < heard_cn ? 3 : 0); k++)
            {
              RlEvidence ap = neighbour (k, KR, CN, t, config);
              rl_engine_add (e, &ap);
            }
          rl_engine_scan (e, t - SEC, RL_BANDS_ANY);
          run_until (e, t + SEC);
        }
      /* KR agreed at the last scan: the hold-down (30 s) is over well
       * before the next scan */
      t -= 60 * SEC;
      const RlDecision *d = run_until (e, t + 50 * SEC);
      g_assert_cmpuint (d->candidate, ==, KR);
      g_assert_cmpuint (d->country, ==, round == 0 ? RL_COUNTRY_WORLD : KR);
      if (round == 0)
        {
          g_assert_nonnull (strstr (d->explanation, "a scan missed access points naming another country that only the "
                                                    "scan before had heard"));
          /* which hears the neighbours again */
          t += 60 * SEC;
          for (guint k = 0; k < 7; k++)
            {
              RlEvidence ap = neighbour (k, KR, CN, t, config);
              rl_engine_add (e, &ap);
            }
          rl_engine_scan (e, t - SEC, RL_BANDS_ANY);
          g_assert_cmpuint (run_until (e, t + 60 * SEC)->country, ==, RL_COUNTRY_WORLD);
        }
    }
}

static void
put_all (RlEngine *e, RlCountry gps_country, RlCountry ap_country, gint64 at, const RlConfig *config)
{
  RlEvidence ev = gps (gps_country, at, config);

  rl_engine_add (e, &ev);
  for (guint i = 0; ap_country != RL_COUNTRY_NONE && i < 4; i++)
    {
      ev = beacon (i, ap_country, at, config);
      rl_engine_add (e, &ev);
    }
}

/* Whether the decision's candidates hold a GPS fix naming @country. */
static gboolean
candidate_of (const RlDecision *d, RlCountry country)
{
  for (guint i = 0; i < d->candidates->len; i++)
    if (g_array_index (d->candidates, RlCandidate, i).country == country)
      return g_array_index (d->candidates, RlCandidate, i).gps;
  return FALSE;
}

/* The same vote again only moves an expiry: no new decision. */
static void
test_skip_unchanged (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  RlDecision *old = NULL;
  RlEvent tick = { T0 + 62 * SEC, RL_EVENT_TICK };

  put_all (e, DE, DE, T0, config);
  g_assert_true (rl_engine_decide_at (e, T0, &old, NULL));
  g_assert_null (old);
  g_assert_false (rl_engine_decide_at (e, T0 + SEC, NULL, NULL));
  run_until (e, T0 + 60 * SEC);
  g_assert_cmpuint (rl_engine_decision (e)->state, ==, RL_STATE_DECIDED);

  put_all (e, DE, DE, T0 + 61 * SEC, config);
  g_assert_false (rl_engine_decide_at (e, T0 + 61 * SEC, NULL, NULL));
  /* a tick looks, changes nothing */
  rl_engine_apply (e, &tick);
  g_assert_false (rl_engine_decide_at (e, T0 + 62 * SEC, NULL, NULL));

  /* an AP heard louder says nothing new; one on another channel does */
  RlEvidence ap = beacon (0, DE, T0 + 62 * SEC, config);
  ap.beacon.signal_mbm = -4000;
  rl_engine_add (e, &ap);
  g_assert_false (rl_engine_decide_at (e, T0 + 62 * SEC, NULL, NULL));
  ap.beacon.freq_mhz = 5180;
  rl_engine_add (e, &ap);
  g_assert_true (rl_engine_decide_at (e, T0 + 62 * SEC, NULL, NULL));

  /* a different vote is a new decision */
  put_all (e, FR, RL_COUNTRY_NONE, T0 + 63 * SEC, config);
  g_assert_true (rl_engine_decide_at (e, T0 + 63 * SEC, &old, NULL));
  g_assert_nonnull (old);
  g_assert_cmpuint (old->country, ==, DE);
  rl_decision_free (old);
  g_assert_cmpuint (rl_engine_decision (e)->state, ==, RL_STATE_CONFLICT);
  /* a fix near the line naming the same two countries: whether its error
   * circle itself reaches the neighbour is a new vote (policy rule 2) */
  RlEvidence near = gps (FR, T0 + 80 * SEC, config);
  rl_evidence_add_country (&near, DE);
  near.gps.error_m = 40;
  near.gps.border_m = 60;                 /* within the margin only */
  rl_engine_add (e, &near);
  g_assert_true (rl_engine_decide_at (e, T0 + 80 * SEC, NULL, NULL));
  g_assert_false (candidate_of (rl_engine_decision (e), DE));
  near.gps.border_m = 70;                 /* the same vote */
  near.observed_at = T0 + 81 * SEC;
  rl_engine_add (e, &near);
  g_assert_false (rl_engine_decide_at (e, T0 + 81 * SEC, NULL, NULL));
  near.gps.border_m = 30;                 /* inside the circle: DE confirmed too */
  near.observed_at = T0 + 82 * SEC;
  rl_engine_add (e, &near);
  g_assert_true (rl_engine_decide_at (e, T0 + 82 * SEC, NULL, NULL));
  g_assert_true (candidate_of (rl_engine_decision (e), DE));
  /* withdrawing what is not there changes nothing */
  g_assert_false (rl_engine_withdraw (e, "beacon:00:00:00:00:00:00"));
  g_assert_false (rl_engine_decide_at (e, T0 + 83 * SEC, NULL, NULL));
}

/* A fix that votes the same but has moved a kilometre from the one the
 * decision was made with makes a new decision, so its reasons tell where
 * the machine is now; a few metres do not. */
static void
test_reexplain_moved (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  /* on the A5 at 130 km/h: 36 m a second */
  static const struct { gint64 at_s; double north; gboolean decides; } steps[] = {
    { 61, 0.001, FALSE },                 /* 111 m from the fix the decision was made with */
    { 65, 0.0025, FALSE },                /* 280 m */
    { 130, 0.022, TRUE },                 /* 2.4 km: decided again, with the new position */
    { 131, 0.0223, FALSE },               /* 33 m from that one */
  };

  put_all (e, DE, DE, T0, config);
  g_assert_true (rl_engine_decide_at (e, T0, NULL, NULL));
  run_until (e, T0 + 60 * SEC);
  g_assert_cmpuint (rl_engine_decision (e)->state, ==, RL_STATE_DECIDED);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      RlEvidence fix = gps (DE, T0 + steps[i].at_s * SEC, config);

      fix.gps.lat += steps[i].north;
      g_snprintf (fix.detail, sizeof fix.detail, "GPS fix %.5fN %.5fE", fix.gps.lat, fix.gps.lon);
      rl_engine_add (e, &fix);
      g_assert_cmpint (rl_engine_decide_at (e, T0 + steps[i].at_s * SEC, NULL, NULL), ==, steps[i].decides);
      g_assert_cmpuint (rl_engine_decision (e)->country, ==, DE);
    }
  g_assert_nonnull (strstr (rl_engine_decision (e)->explanation, "GPS fix 48.59200N"));
}

/* Expiry is an instant of its own, and counted. */
static void
test_expiry_instant (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  gint64 gps_end = T0 + (gint64) config->policy.max_age_s[RL_SOURCE_GPS] * SEC;
  guint expired = 0;

  g_assert_cmpint (rl_engine_next_instant (e), ==, RL_NEVER);
  add_gps (e, DE, T0, config);
  g_assert_cmpint (rl_engine_next_instant (e), ==, gps_end);
  g_assert_true (rl_engine_decide_at (e, gps_end, NULL, &expired));
  g_assert_cmpuint (expired, ==, 1);
  g_assert_cmpuint (rl_engine_decision (e)->reason, ==, RL_REASON_NO_EVIDENCE);
  g_assert_cmpint (rl_engine_next_instant (e), ==, RL_NEVER);
}

/* Rule 8 as the live daemon sees it: no scan event, only the access points
 * of each scan dump put again and the ones a scan missed withdrawn (the
 * BSS table's work).  Two DE networks, two FR ones and a German clock; a
 * scan misses the fainter FR router; DE waits past its hold-down for the
 * next scan.  That scan, hearing the same three again, is what ends the
 * wait: nothing in the votes changes, the decision must still be taken. */
static void
test_next_scan_live (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = rl_engine_new (config, NULL);
  RlEvidence zone, ap;
  char key[48];
  const RlDecision *d;

  rl_evidence_init (&zone, RL_SOURCE_TIMEZONE, "timezone", T0, RL_NEVER);
  zone.strength = 1.0;
  rl_evidence_add_country (&zone, DE);
  rl_engine_add (e, &zone);
  for (guint i = 0; i < 4; i++)
    {
      ap = beacon (i, i < 2 ? DE : FR, T0, config);
      rl_engine_add (e, &ap);
    }
  g_assert_cmpuint (run_until (e, T0 + 30 * SEC)->country, ==, RL_COUNTRY_WORLD);
  /* the scan at +40 s hears three; the fourth is withdrawn */
  for (guint i = 0; i < 3; i++)
    {
      ap = beacon (i, i < 2 ? DE : FR, T0 + 40 * SEC, config);
      rl_engine_add (e, &ap);
    }
  ap = beacon (3, FR, T0, config);
  g_strlcpy (key, ap.key, sizeof key);
  g_assert_true (rl_engine_withdraw (e, key));
  d = run_until (e, T0 + 40 * SEC);
  g_assert_cmpuint (d->state, ==, RL_STATE_TENTATIVE);
  g_assert_cmpuint (d->candidate, ==, DE);
  d = run_until (e, T0 + 75 * SEC);
  g_assert_cmpuint (d->state, ==, RL_STATE_TENTATIVE);
  g_assert_nonnull (strstr (d->explanation, "next scan"));
  /* the scan at +80 s: the same three, and the faint one missed again */
  for (guint i = 0; i < 3; i++)
    {
      ap = beacon (i, i < 2 ? DE : FR, T0 + 80 * SEC, config);
      rl_engine_add (e, &ap);
    }
  g_assert_true (rl_engine_decide_at (e, T0 + 80 * SEC, NULL, NULL));
  d = rl_engine_decision (e);
  g_assert_cmpuint (d->state, ==, RL_STATE_DECIDED);
  g_assert_cmpuint (d->country, ==, DE);
}

/* One cap for the daemon and replay: max_bss, at least 16 per kind. */
static void
test_cap (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlEngine) e = NULL;
  gsize n;

  config->beacons_max_bss = 8;
  e = rl_engine_new (config, NULL);
  for (guint i = 0; i < 40; i++)
    {
      RlEvidence ev = beacon (i, DE, T0 + i * SEC, config);
      rl_engine_add (e, &ev);
    }
  rl_engine_items (e, &n);
  g_assert_cmpuint (n, ==, RL_ENGINE_MIN_ITEMS_PER_KIND);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/resume-gps-objects", test_resume_gps_objects);
  g_test_add_func ("/engine/resume-wait-limit", test_resume_wait_limit);
  g_test_add_func ("/engine/resume-no-wait", test_resume_no_wait);
  g_test_add_func ("/engine/cell-awaits-first-scan", test_cell_awaits_first_scan);
  g_test_add_func ("/engine/silent-router-two-scans", test_silent_router_two_scans);
  g_test_add_func ("/engine/signals-weighed-per-scan", test_signals_weighed_per_scan);
  g_test_add_func ("/engine/once-heard-dissent-waits", test_once_heard_dissent_waits);
  g_test_add_func ("/engine/resume-drops-the-cell", test_resume_drops_the_cell);
  g_test_add_func ("/engine/skip-unchanged", test_skip_unchanged);
  g_test_add_func ("/engine/reexplain-moved", test_reexplain_moved);
  g_test_add_func ("/engine/expiry-instant", test_expiry_instant);
  g_test_add_func ("/engine/cap", test_cap);
  g_test_add_func ("/engine/next-scan-live", test_next_scan_live);
  return g_test_run ();
}
