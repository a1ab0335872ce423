/* The replay engine: runs the very same policy over recorded, timestamped
 * evidence (scenario files, GPS logs, scan logs) as fast as the machine
 * allows, and records the decision timeline and a summary.
 *
 * Scenario readers push events into an RlReplay; file readers hand it
 * streams (merge.h).  rl_replay_run() merges them by time (the order of
 * adding breaks ties), applies them to an evidence set and decides after
 * each instant and at every next_check instant in between.  What it keeps
 * does not grow with the recording: the timeline of decision changes, the
 * counters and notes (and, with rl_replay_set_keep_evidence, every item for
 * `--evidence`).  Events go through the decision engine (core/engine.h)
 * the daemon runs too.  The report formatters are in report.c. */
#pragma once

#include <glib.h>
#include "core/event.h"
#include "core/policy.h"
#include "core/config.h"
#include "core/regdb.h"
#include "replay/merge.h"

G_BEGIN_DECLS

typedef struct RlReplay RlReplay;

typedef struct {
  gint64 time;
  RlCountry country;
  RlState state;
  RlReason reason;
  double confidence;
  RlCountry candidate;
  gboolean has_position;   /* a GPS fix caused it */
  double lat, lon;
  char *summary;           /* one line: why */
} RlTimelineEntry;

RlReplay *rl_replay_new (const RlConfig *config, const RlRegulatory *regulatory);
void rl_replay_free (RlReplay *replay);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlReplay, rl_replay_free)

/* The item counts from ev->observed_at (its expires_at must be set). */
void rl_replay_add_evidence (RlReplay *replay, const RlEvidence *ev);
/* For settings that hold for the whole replay (--timezone): the item counts
 * from the earliest event of the run, whatever its observed_at says. */
void rl_replay_add_evidence_at_start (RlReplay *replay, const RlEvidence *ev);
void rl_replay_add_withdraw (RlReplay *replay, gint64 time, const char *key);
void rl_replay_add_withdraw_kind (RlReplay *replay, gint64 time, RlSourceKind kind);
/* A Wi-Fi scan covering @bands (RlBand mask; RL_BANDS_ANY: every band and
 * APs of unknown band) ran from @since to @time: at @time every access
 * point on a covered band not heard since @since is gone (withdrawn), not
 * left to age out over max_age_beacons.  @silent_mbm: the loudest globally
 * administered AP it heard that sends no country (RlEvent.silent_mbm). */
void rl_replay_add_scan (RlReplay *replay, gint64 since, gint64 time, guint bands, gint32 silent_mbm);

/* A scan's results and its end are one delivery, as the daemon decides
 * once after a scan dump: access points heard at most this long before a
 * scan event are decided on with it, never on their own. */
#define RL_REPLAY_SCAN_DUMP_US (5 * RL_USEC_PER_SEC)
/* The summary's gaps: no fix for longer than this in a GPS log (a tunnel,
 * a lost receiver), no access point or scan for longer than this in a
 * recording of scans (a suspend, the radio off). */
#define RL_REPLAY_GPS_GAP_S 60
#define RL_REPLAY_SCAN_GAP_S 300
/* An access point's sighting: its item, or the withdrawal of its word
 * when it was heard saying no country. */
gboolean rl_replay_is_heard (const RlEvent *event);
/* Heard access points held for the scan that ends them, from instant to
 * instant (a replay's loop and reglocd --replay's feed). */
typedef struct {
  gboolean holding;
  gint64 since;            /* the first held instant */
} RlScanHold;
/* After the events of instant @now (@heard_only: access points heard and
 * nothing else): is the batch part of the scan dump still to come, the next
 * event @next being the scan that ends it, or another of that scan's
 * results, within RL_REPLAY_SCAN_DUMP_US of the first held instant?  Then
 * the decision waits (TRUE).  A capture's frames are no scan's results:
 * they are held only right before a scan event. */
gboolean rl_replay_scan_hold (RlScanHold *hold, gboolean heard_only, gint64 now, const RlEvent *next);
/* The recording is of a machine with Wi-Fi (a scan log or capture; access
 * points or scans added say so themselves): rl_engine_set_has_wifi (). */
void rl_replay_set_has_wifi (RlReplay *replay);
gboolean rl_replay_has_wifi (const RlReplay *replay);
/* logind PrepareForSleep(false): observations from before @time are dropped. */
void rl_replay_add_resume (RlReplay *replay, gint64 time);
/* Makes sure the engine evaluates at @time even with no event (scenario "check"). */
void rl_replay_add_tick (RlReplay *replay, gint64 time);
/* Counted facts for the summary: "gps.fixes_used", "gps.rejected.bad_checksum", … */
void rl_replay_count (RlReplay *replay, const char *counter, guint64 n);
/* Free text lines for the summary ("date taken from RMC", …). */
void rl_replay_note (RlReplay *replay, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* Keeps the place of notes that an input writes when it has been read
 * (at the end of the run), so the notes stay in the order of the inputs:
 * rl_replay_note_at() puts a note there, _close() when it has said all,
 * _drop() takes back the notes of an input that failed to load. */
gpointer rl_replay_note_slot (RlReplay *replay);
void rl_replay_note_at (RlReplay *replay, gpointer slot, const char *fmt, ...) G_GNUC_PRINTF (3, 4);
void rl_replay_note_slot_close (RlReplay *replay, gpointer slot);
void rl_replay_note_slot_drop (RlReplay *replay, gpointer slot);
/* The notes so far, in order, as the reports print them: @func is called
 * with each note's text. */
void rl_replay_foreach_note (const RlReplay *replay, void (*func) (const char *note, gpointer user_data), gpointer user_data);
/* Keep every evidence item for `--evidence`. */
void rl_replay_set_keep_evidence (RlReplay *replay, gboolean keep);

/* Once every input is added, before rl_replay_run(): each input that can
 * be placed only by the others (a GPS log with a time of day only, one
 * whose receiver's dates are 1024 weeks behind) is placed by the span of
 * the others' times, with a note.  FALSE with @error when such an input
 * cannot be placed unambiguously. */
gboolean rl_replay_align_inputs (RlReplay *replay, GError **error);

/* Runs until every event is applied and, when @settle, until a pending
 * hold-down has run out (expiries after the last event are not played). */
void rl_replay_run (RlReplay *replay, gboolean settle);

const GArray *rl_replay_timeline (const RlReplay *replay);       /* RlTimelineEntry */
const RlDecision *rl_replay_final (const RlReplay *replay);
/* Output in "text", "json" or "csv" (report.c). */
char *rl_replay_format (const RlReplay *replay, const char *format, GError **error);

/* Hands the replay an input that delivers its events as it is read (a GPS
 * log, a scan log, a capture); rl_replay_run() merges every input by time
 * without holding them.  Events of equal time keep the order in which
 * their inputs (and the events pushed one by one) were added. */
void rl_replay_add_stream (RlReplay *replay, RlEventStream *stream);

/* Called with each timeline entry once it is final (a later instant has
 * come, or the run ended), so text and CSV can be written as they go. */
typedef void (*RlReplayTimelineFunc) (const RlTimelineEntry *entry, gpointer user_data);
void rl_replay_set_timeline_func (RlReplay *replay, RlReplayTimelineFunc func, gpointer user_data);

/* The events in the order rl_replay_run() applies them (at-start items
 * placed at the first event's time), for `reglocd --replay`, which feeds
 * them to the live loop on its own clock instead of running the batch.
 * Consumes the streams: call it instead of rl_replay_run(), not with it. */
typedef void (*RlReplayEventFunc) (const RlEvent *event, gpointer user_data);
void rl_replay_foreach_event (RlReplay *replay, RlReplayEventFunc func, gpointer user_data);

/* The span rl_replay_run() played: the first event's time and the last
 * instant it decided at (a settled hold-down included). */
void rl_replay_span (const RlReplay *replay, gint64 *first, gint64 *last);

/* Called by rl_replay_run() with each event as it is applied (the map's
 * track collector reads the GPS fixes from it); NULL to stop. */
void rl_replay_set_event_func (RlReplay *replay, RlReplayEventFunc func, gpointer user_data);

G_END_DECLS
