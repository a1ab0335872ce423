/* The decision engine: the one loop both the daemon and `regloc replay` run.
 *
 * It owns the current evidence (an RlEvidenceSet) and the decision in force,
 * and it reads no clock: callers hand in events and ask for a decision at an
 * instant they choose (the daemon on its clock, replay on the recording's).
 * What it does, in one place:
 *  - expiry of items, and the cap on the items of one kind;
 *  - skipping a vote when nothing that counts changed (a GPS fix naming the
 *    same country again only moves an expiry);
 *  - the next instant the decision may change by itself (hold-down over,
 *    an item expiring, a resume wait over), for the caller's one timer;
 *  - after a resume, holding a new decision until every kind of source that
 *    was delivering before the sleep has reported again, or
 *    [policy] resume_wait has passed: Wi-Fi scans come back within seconds,
 *    a GPS needs 30–60 s for a cold fix, and the APs must not decide alone
 *    before the GPS can object.
 * See docs/design.md (the decision). */
#pragma once

#include <glib.h>
#include "core/config.h"
#include "core/event.h"
#include "core/evidence-set.h"
#include "core/policy.h"
#include "core/regdb.h"

G_BEGIN_DECLS

/* Items of one kind the evidence set keeps at least, whatever
 * [beacons] max_bss says (it sizes the cap for the beacons, the only kind
 * with many keys). */
#define RL_ENGINE_MIN_ITEMS_PER_KIND 16

/* An access point beacons ten times a second and a scan dump repeats the
 * kernel's cached entries: a sighting of a BSS within this of the last one
 * is the same observation, not new evidence (its expiry would move by at
 * most this).  Used by the live BSS table and the replay of captures. */
#define RL_BEACON_REPEAT_US (5 * RL_USEC_PER_SEC)

typedef struct RlEngine RlEngine;

/* @config is copied; @regulatory (NULL: every country has rules of its
 * own) must outlive the engine or the next rl_engine_set_config. */
RlEngine *rl_engine_new (const RlConfig *config, const RlRegulatory *regulatory);
void rl_engine_free (RlEngine *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlEngine, rl_engine_free)

/* A reloaded configuration: the evidence and the decision stay. */
void rl_engine_set_config (RlEngine *engine, const RlConfig *config, const RlRegulatory *regulatory);
/* Whether the machine has a Wi-Fi card that scans (TRUE until told): without
 * one, nothing is awaited from Wi-Fi and agreement on a modem's network
 * holds for hold_down, not hold_down_unheard (an LTE router in a field). */
void rl_engine_set_has_wifi (RlEngine *engine, gboolean has_wifi);

void rl_engine_add (RlEngine *engine, const RlEvidence *ev);
/* TRUE when an item went. */
gboolean rl_engine_withdraw (RlEngine *engine, const char *key);
guint rl_engine_withdraw_kind (RlEngine *engine, RlSourceKind kind);
/* Resumed from sleep at @time: observations from before it no longer say
 * where the machine is; returns how many were dropped. */
guint rl_engine_resume (RlEngine *engine, gint64 time);
/* A scan covering @bands ran from @since: the beacons on those bands it
 * did not hear are gone (rl_evidence_set_drop_unheard); returns how many.
 * It ends the wait for the Wi-Fi's first scan, as rl_engine_scan_ended. */
guint rl_engine_scan (RlEngine *engine, gint64 since, guint bands);
/* A Wi-Fi scan ended (the daemon's BSS table has put and withdrawn its
 * results): agreement on a modem's network no longer waits for one
 * (hold_down_unheard) until the next resume. */
void rl_engine_scan_ended (RlEngine *engine);
/* The loudest globally administered access point sending no country that
 * a scan heard (100 * dBm; 0: none): the policy's RlPolicyAir takes the
 * louder of the last two scans', until a resume or the withdrawal of every
 * beacon.  A SCAN event carries it. */
void rl_engine_heard_silent (RlEngine *engine, gint32 silent_mbm);
/* Any of the above by type. */
void rl_engine_apply (RlEngine *engine, const RlEvent *event);

/* Decides at @now unless nothing changed since the last decision and @now
 * is before its next instant (then the decision in force stands).  Returns
 * TRUE when it decided; then *@old (when given) receives the decision that
 * was in force (NULL before the first; free it).  *@n_expired (when given):
 * items that expired at @now. */
gboolean rl_engine_decide_at (RlEngine *engine, gint64 now, RlDecision **old, guint *n_expired);
/* The decision in force; NULL before the first. */
const RlDecision *rl_engine_decision (const RlEngine *engine);
/* The earliest instant the decision may change with no new event: RL_NEVER
 * when none.  Before the first decision, the earliest expiry. */
gint64 rl_engine_next_instant (const RlEngine *engine);
/* Catching up to an event at @until: the next instant before it to decide
 * at, or RL_NEVER when there is none (or no progress since the last
 * decision: the event's own instant decides).  Callers loop:
 *   while ((due = rl_engine_next_due (engine, t)) != RL_NEVER) decide at due;
 *   apply the events at t; decide at t. */
gint64 rl_engine_next_due (const RlEngine *engine, gint64 until);

/* Hands the decision in force to the caller (NULL before the first). */
RlDecision *rl_engine_steal_decision (RlEngine *engine);

const RlEvidence *rl_engine_items (const RlEngine *engine, gsize *n_items);
guint64 rl_engine_n_decisions (const RlEngine *engine);

G_END_DECLS
