/* The decision engine (see engine.h). */
#include "core/engine.h"

#include <string.h>
#include "core/contradiction.h"
#include "core/enum-names.h"

struct RlEngine {
  RlPolicyParams params;
  const RlRegulatory *regulatory;
  gint64 resume_wait;       /* µs */
  gboolean no_wifi;         /* rl_engine_set_has_wifi (FALSE) */
  gboolean scanned;         /* a Wi-Fi scan ended since the start or the last resume */
  guint unheard_s;          /* the configured hold_down_unheard */
  RlPolicyAir air;          /* what the last scans heard besides the items (rl_engine_heard_silent) */
  gint32 silent_last;       /* the last scan's loudest AP sending no country */
  gboolean once_withdrawn;  /* since the last scan's end, an access point one scan only had heard went */
  RlEvidenceSet *set;
  RlDecision *decision;     /* in force; NULL before the first */
  gboolean dirty;           /* something that counts changed since it */
  /* after a resume: the kinds that delivered before it and have not yet
   * reported again, and the instant the engine stops waiting for them */
  guint awaited;            /* 1 << RlSourceKind */
  gint64 resumed_at, wait_until;
  /* per kind: observed_at of the newest item added, 0 once the kind has
   * nothing left in the set by withdrawal (its source said it has nothing) */
  gint64 last_delivery[RL_N_SOURCE_KINDS];
  guint64 n_decisions;
  gint64 last_at;           /* the last instant decide_at was asked about */
  /* the fix the decision in force was made with (its explanation gives
   * its position and border distance) */
  gboolean voted_fix;
  double voted_lat, voted_lon;
};

/* A fix this far from the one the decision was made with makes a new
 * decision even when it votes the same: the reasons would otherwise keep
 * telling an old position (and its border distance) mile after mile. */
#define REEXPLAIN_M 1000.0

/* Agreement on a modem's network with nothing heard waits for the Wi-Fi's
 * first scan (hold_down_unheard) only while there is a card that has not
 * scanned since the start or the last resume. */
static void
update_unheard (RlEngine *e)
{
  guint unheard = e->no_wifi || e->scanned ? 0 : e->unheard_s;

  if (e->params.hold_down_unheard_s != unheard)
    e->dirty = TRUE;
  e->params.hold_down_unheard_s = unheard;
}

RlEngine *
rl_engine_new (const RlConfig *config, const RlRegulatory *regulatory)
{
  RlEngine *e = g_new0 (RlEngine, 1);

  e->last_at = G_MININT64;

  /* One cap for every kind, sized for the beacons, the only kind with many keys. */
  e->set = rl_evidence_set_new (MAX (config->beacons_max_bss, RL_ENGINE_MIN_ITEMS_PER_KIND));
  rl_engine_set_config (e, config, regulatory);
  return e;
}

void
rl_engine_free (RlEngine *e)
{
  if (e == NULL)
    return;
  rl_evidence_set_free (e->set);
  rl_decision_free (e->decision);
  g_free (e);
}

void
rl_engine_set_config (RlEngine *e, const RlConfig *config, const RlRegulatory *regulatory)
{
  e->params = config->policy;
  e->unheard_s = config->policy.hold_down_unheard_s;
  update_unheard (e);
  e->regulatory = regulatory;
  e->resume_wait = (gint64) config->resume_wait_s * RL_USEC_PER_SEC;
  rl_evidence_set_set_gps_limits (e->set, config->gps_best_fix_window_s, config->gps_max_speed_kmh);
  rl_evidence_set_set_gps_still (e->set, config->gps_still_speed_kmh, config->gps_still_window_s);
  rl_evidence_set_set_ride_along (e->set, config->policy.beacon_ride_along_window_s, config->policy.beacon_ride_along_lost);
  e->dirty = TRUE;
}

void
rl_engine_set_has_wifi (RlEngine *e, gboolean has_wifi)
{
  if (e->no_wifi == !has_wifi)
    return;
  e->no_wifi = !has_wifi;
  update_unheard (e);
}

/* Would replacing @old by @new leave every vote as it was?  Then only the
 * expiry moved, and the decision cannot change: skip the vote (the big win
 * on long GPS logs, where fix after fix names the same country).  Every
 * field the policy reads must be compared here: for a fix, its countries,
 * strength, whether it is good enough and whether its circle reaches the
 * neighbour (not its exact position); for an
 * access point everything it says but its signal, which varies from scan
 * to scan: the signals are weighed once per scan, at its end
 * (rl_engine_scan_ended ()). */
static gboolean
same_vote (const RlPolicyParams *p, const RlEvidence *old, const RlEvidence *new)
{
  if (old->kind != new->kind || old->n_countries != new->n_countries || old->strength != new->strength ||
      memcmp (old->countries, new->countries, sizeof (RlCountry) * new->n_countries) != 0)
    return FALSE;
  if (new->kind == RL_SOURCE_GPS)
    return (old->gps.error_m <= p->gps_max_error_m) == (new->gps.error_m <= p->gps_max_error_m) &&
           old->gps.flags == new->gps.flags && rl_gps_is_airborne (p, old) == rl_gps_is_airborne (p, new) &&
           (new->n_countries < 2 || rl_gps_circle_reaches_border (old) == rl_gps_circle_reaches_border (new));
  if (new->kind == RL_SOURCE_BEACON)
    return memcmp (old->beacon.bssid, new->beacon.bssid, 6) == 0 && strcmp (old->beacon.ssid, new->beacon.ssid) == 0 &&
           old->beacon.freq_mhz == new->beacon.freq_mhz && old->beacon.environment == new->beacon.environment;
  return TRUE;
}

/* Does the decision in force wait for a scan newer than the one heard
 * when its agreement began (policy rule 8)? */
static gboolean
waits_for_scan (const RlEngine *e)
{
  return e->decision != NULL && e->decision->state == RL_STATE_TENTATIVE && e->decision->candidate_heard != 0;
}

/* That wait ends with an access point heard by a newer scan.  The live
 * daemon has no scan event (its BSS table puts what a scan heard and
 * withdraws what it missed), and a scan hearing just what the one before
 * did changes no vote: this is what ends the wait there. */
static gboolean
awaits_newer_scan (const RlEngine *e, const RlEvidence *heard)
{
  return heard->kind == RL_SOURCE_BEACON && waits_for_scan (e) && heard->observed_at > e->decision->candidate_heard;
}

void
rl_engine_add (RlEngine *e, const RlEvidence *ev)
{
  const RlEvidence *old = rl_evidence_set_lookup (e->set, ev->key), *stored;
  RlEvidence before;

  if (old != NULL)
    before = *old;
  if ((e->awaited & (1u << ev->kind)) && ev->observed_at >= e->resumed_at)
    {
      e->awaited &= ~(1u << ev->kind);
      e->dirty = TRUE;
    }
  e->last_delivery[ev->kind] = MAX (e->last_delivery[ev->kind], ev->observed_at);
  /* the set may keep a GPS fix out or mark it untrusted
   * (rl_evidence_set_set_gps_limits): what it stored is what counts */
  if (!rl_evidence_set_put (e->set, ev))
    return;
  stored = rl_evidence_set_lookup (e->set, ev->key);
  if (old == NULL || stored == NULL || !same_vote (&e->params, &before, stored) || awaits_newer_scan (e, stored))
    e->dirty = TRUE;
  else if (stored->kind == RL_SOURCE_GPS && e->voted_fix &&
           rl_distance_m (e->voted_lat, e->voted_lon, stored->gps.lat, stored->gps.lon) > REEXPLAIN_M)
    e->dirty = TRUE;
}

void
rl_engine_scan_ended (RlEngine *e)
{
  e->scanned = TRUE;
  update_unheard (e);
  e->air.withdrew_once_heard = e->once_withdrawn;
  e->once_withdrawn = FALSE;
  /* the signals the access points were heard at moved (same_vote ()
   * leaves them out): the faint rule weighs them again, its hysteresis
   * keeping a router at the threshold from toggling a witness */
  if (rl_evidence_set_count_kind (e->set, RL_SOURCE_BEACON) > 0)
    e->dirty = TRUE;
}

void
rl_engine_heard_silent (RlEngine *e, gint32 silent_mbm)
{
  gint32 loudest = silent_mbm;

  /* one scan misses a router now and then: as an access point is gone
   * only at its second miss (RL_SCANS_MISSED_GONE), the louder of the
   * last two scans counts */
  rl_signal_keep_louder (&loudest, e->silent_last);
  e->silent_last = silent_mbm;
  /* weighed at the scan's end, like the access points' signals */
  if ((e->air.silent_mbm == 0) != (loudest == 0))
    e->dirty = TRUE;
  e->air.silent_mbm = loudest;
}

/* No scan's word on a router sending no country stands any more. */
static void
forget_silent (RlEngine *e)
{
  e->silent_last = 0;
  rl_engine_heard_silent (e, 0);
}

guint
rl_engine_scan (RlEngine *e, gint64 since, guint bands)
{
  guint once;
  guint n = rl_evidence_set_drop_unheard (e->set, since, bands, &once);

  e->once_withdrawn |= once > 0;
  rl_engine_scan_ended (e);

  if (n > 0 && rl_evidence_set_count_kind (e->set, RL_SOURCE_BEACON) == 0)
    e->last_delivery[RL_SOURCE_BEACON] = 0;
  /* a decision waiting for the next scan (rule 8) is due at its end,
   * even if the scan heard just what the one before did */
  e->dirty |= n > 0 || waits_for_scan (e);
  return n;
}

gboolean
rl_engine_withdraw (RlEngine *e, const char *key)
{
  const RlEvidence *item = rl_evidence_set_lookup (e->set, key);
  RlSourceKind kind;

  if (item == NULL)
    return FALSE;
  kind = item->kind;
  /* the live BSS table and scan logs withdraw what a scan missed */
  e->once_withdrawn |= rl_beacon_heard_once (item);
  rl_evidence_set_remove (e->set, key);
  if (rl_evidence_set_count_kind (e->set, kind) == 0)
    e->last_delivery[kind] = 0;
  e->dirty = TRUE;
  return TRUE;
}

guint
rl_engine_withdraw_kind (RlEngine *e, RlSourceKind kind)
{
  guint n = rl_evidence_set_remove_kind (e->set, kind);

  if (kind == RL_SOURCE_BEACON)
    forget_silent (e);
  e->last_delivery[kind] = 0;
  e->dirty |= n > 0;
  return n;
}

/* The kinds of sighting (GPS, beacons: the timezone and an override are
 * settings) that were delivering when the machine went to sleep.  The
 * engine is not told when that was, and a long sleep has aged everything
 * out: the last sighting of any kind marks it, and a kind counts when its
 * own newest item still counted at that moment. */
static guint
delivering_kinds (const RlEngine *e, gint64 time)
{
  const RlSourceKind sightings[] = { RL_SOURCE_GPS, RL_SOURCE_BEACON };
  gint64 asleep = 0;
  guint kinds = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (sightings); i++)
    if (e->last_delivery[sightings[i]] < time)
      asleep = MAX (asleep, e->last_delivery[sightings[i]]);
  for (gsize i = 0; i < G_N_ELEMENTS (sightings); i++)
    {
      RlSourceKind k = sightings[i];
      gint64 t = e->last_delivery[k];
      if (t > 0 && t < time && rl_expiry_after (t, e->params.max_age_s[k]) > asleep)
        kinds |= 1u << k;
    }
  return kinds;
}

guint
rl_engine_resume (RlEngine *e, gint64 time)
{
  e->awaited = e->resume_wait > 0 ? delivering_kinds (e, time) : 0;
  e->resumed_at = time;
  e->wait_until = time + e->resume_wait;
  e->scanned = FALSE;
  e->once_withdrawn = e->air.withdrew_once_heard = FALSE;
  forget_silent (e);
  update_unheard (e);
  /* after a sleep the machine may be anywhere: a territory a fix placed it
   * in before is forgotten with the fix */
  if (e->decision != NULL)
    e->decision->fix_place = RL_COUNTRY_NONE;
  e->dirty = TRUE;
  return rl_evidence_set_drop_observed_before (e->set, time);
}

void
rl_engine_apply (RlEngine *e, const RlEvent *event)
{
  switch (event->type)
    {
    case RL_EVENT_EVIDENCE:
      rl_engine_add (e, &event->ev);
      break;
    case RL_EVENT_WITHDRAW:
      rl_engine_withdraw (e, event->ev.key);
      break;
    case RL_EVENT_WITHDRAW_KIND:
      rl_engine_withdraw_kind (e, event->ev.kind);
      break;
    case RL_EVENT_RESUME:
      rl_engine_resume (e, event->time);
      break;
    case RL_EVENT_TICK:
      /* a look at the decision: it is re-made only if due */
      break;
    case RL_EVENT_SCAN:
      rl_engine_heard_silent (e, event->silent_mbm);
      rl_engine_scan (e, event->since, event->bands);
      break;
    }
}

static void
append_awaited (GString *s, guint awaited)
{
  gboolean first = TRUE;

  for (guint k = 0; k < RL_N_SOURCE_KINDS; k++)
    if (awaited & (1u << k))
      {
        g_string_append_printf (s, "%s%s", first ? "" : " and ", rl_source_kind_to_string (k));
        first = FALSE;
      }
}

/* After a resume, a country newly decided before every kind of source
 * that delivered before the sleep has reported again is held on 00, as a
 * hold-down that lasts until they have or until the wait is over. */
static void
hold_for_resume (RlEngine *e, RlDecision *d, const RlDecision *previous, gint64 now)
{
  char cc[3];

  if (d->state != RL_STATE_DECIDED ||
      (previous != NULL && previous->state == RL_STATE_DECIDED && previous->country == d->country))
    return;
  d->state = RL_STATE_TENTATIVE;
  d->reason = RL_REASON_HOLD_DOWN;
  d->country = RL_COUNTRY_WORLD;
  d->next_check = MIN (d->next_check, e->wait_until);
  d->changed_at = (previous && previous->country == d->country && previous->state == d->state) ? previous->changed_at : now;
  g_free (d->summary);
  {
    GString *s = g_string_new (NULL);
    g_string_append_printf (s, "%s agreed, waiting %.0f s more for ", rl_country_to_string (d->candidate, cc),
                            (double) (e->wait_until - now) / RL_USEC_PER_SEC);
    append_awaited (s, e->awaited);
    g_string_append (s, " after the resume");
    d->summary = g_string_free (s, FALSE);
  }
  {
    GString *s = g_string_new (" Resumed from sleep: until ");
    append_awaited (s, e->awaited);
    g_string_append_printf (s, ", which delivered before the sleep, report%s again (at most %.0f s after the resume), "
                            "regloc stays on 00.", (e->awaited & (e->awaited - 1)) ? "" : "s",
                            (double) e->resume_wait / RL_USEC_PER_SEC);
    /* names source kinds only: the same words at both detail levels */
    char *full = g_strconcat (d->explanation ? d->explanation : "", s->str, NULL);
    char *pub = g_strconcat (d->explanation_public ? d->explanation_public : "", s->str, NULL);
    g_free (d->explanation);
    d->explanation = full;
    g_free (d->explanation_public);
    d->explanation_public = pub;
    g_free (d->summary_public);
    d->summary_public = g_strdup (d->summary);
    g_string_free (s, TRUE);
  }
}

gboolean
rl_engine_decide_at (RlEngine *e, gint64 now, RlDecision **old, guint *n_expired)
{
  guint expired;
  gsize n;
  const RlEvidence *items;
  RlDecision *d;

  e->last_at = MAX (e->last_at, now);
  if (e->awaited != 0 && now >= e->wait_until)
    {
      e->awaited = 0;
      e->dirty = TRUE;
    }
  expired = rl_evidence_set_expire (e->set, now);
  /* which access points ride along depends on what was lost and when */
  if (rl_evidence_set_update_riders (e->set, now))
    e->dirty = TRUE;
  if (n_expired != NULL)
    *n_expired = expired;
  if (old != NULL)
    *old = NULL;
  if (e->decision != NULL && !e->dirty && expired == 0 && now < e->decision->next_check)
    return FALSE;
  items = rl_evidence_set_items (e->set, &n);
  d = rl_policy_decide (&e->params, e->regulatory ? rl_regulatory_map : NULL, (gpointer) e->regulatory,
                        e->decision, items, n, &e->air, now);
  if (e->awaited != 0)
    hold_for_resume (e, d, e->decision, now);
  e->n_decisions++;
  e->dirty = FALSE;
  {
    const RlEvidence *fix = rl_evidence_set_lookup (e->set, "gps");
    e->voted_fix = fix != NULL && fix->kind == RL_SOURCE_GPS;
    if (e->voted_fix)
      {
        e->voted_lat = fix->gps.lat;
        e->voted_lon = fix->gps.lon;
      }
  }
  if (old != NULL)
    *old = e->decision;
  else
    rl_decision_free (e->decision);
  e->decision = d;
  return TRUE;
}

const RlDecision *
rl_engine_decision (const RlEngine *e)
{
  return e->decision;
}

gint64
rl_engine_next_instant (const RlEngine *e)
{
  gint64 next = rl_evidence_set_next_expiry (e->set);

  if (e->awaited != 0)
    next = MIN (next, e->wait_until);
  return e->decision ? MIN (e->decision->next_check, next) : next;
}

RlDecision *
rl_engine_steal_decision (RlEngine *e)
{
  return g_steal_pointer (&e->decision);
}

gint64
rl_engine_next_due (const RlEngine *e, gint64 until)
{
  gint64 due = rl_engine_next_instant (e);

  return due < until && (e->last_at == G_MININT64 || due > e->last_at) ? due : RL_NEVER;
}

const RlEvidence *
rl_engine_items (const RlEngine *e, gsize *n_items)
{
  return rl_evidence_set_items (e->set, n_items);
}

guint64
rl_engine_n_decisions (const RlEngine *e)
{
  return e->n_decisions;
}

void
rl_event_init_withdraw (RlEvent *event, gint64 time, const char *key)
{
  memset (event, 0, sizeof *event);
  event->type = RL_EVENT_WITHDRAW;
  event->time = time;
  g_strlcpy (event->ev.key, key, sizeof event->ev.key);
}

const char *
rl_event_type_to_string (RlEventType type)
{
  static const char *const names[] = {
    [RL_EVENT_EVIDENCE] = "evidence", [RL_EVENT_WITHDRAW] = "withdraw", [RL_EVENT_WITHDRAW_KIND] = "withdraw-kind",
    [RL_EVENT_RESUME] = "resume", [RL_EVENT_TICK] = "tick", [RL_EVENT_SCAN] = "scan",
  };

  return RL_ENUM_NAME (names, type, "unknown");
}
