/* `reglocd --replay FILE…`: recorded evidence fed into the live loop in
 * place of the live sources.
 *
 * The files are read by the same readers as `regloc replay` into an
 * RlReplay, and their events are handed to the daemon when they fall due
 * on the replay clock: recorded time mapped onto the wall clock from the
 * moment the daemon starts, optionally fast-forwarded (--replay-speed).
 * Hold-downs and expiries run on the same clock, so a client sees exactly
 * the timeline `regloc replay` prints, at the chosen pace. */
#pragma once

#include <glib.h>
#include "core/event.h"
#include "core/config.h"
#include "core/regdb.h"

G_BEGIN_DECLS

typedef struct RlReplayFeed RlReplayFeed;

typedef struct {
  void (*event) (const RlEvent *event, gpointer user_data);
  gpointer user_data;
} RlReplayFeedHooks;

/* @paths: scenario files, or names of recordings shipped in data/trips/. */
RlReplayFeed *rl_replay_feed_load (const char *const *paths, const RlConfig *config,
                                   const RlRegulatory *regulatory, GError **error);
/* The file a --replay argument names ("sample-trip" → …/trips/sample-trip.scn). */
char *rl_replay_feed_resolve (const char *name);
void rl_replay_feed_free (RlReplayFeed *feed);

gint64 rl_replay_feed_start_time (const RlReplayFeed *feed);   /* recorded time of the first event */
gint64 rl_replay_feed_next_time (const RlReplayFeed *feed);    /* RL_NEVER when done */
gint64 rl_replay_feed_last_time (const RlReplayFeed *feed);    /* last delivered, 0 none */
gboolean rl_replay_feed_done (const RlReplayFeed *feed);
/* Delivers every event at or before @now; returns how many. */
guint rl_replay_feed_deliver (RlReplayFeed *feed, gint64 now, const RlReplayFeedHooks *hooks);
/* The last delivery was a scan's results whose end comes next: decide
 * after that (rl_replay_scan_hold). */
gboolean rl_replay_feed_joins_scan (RlReplayFeed *feed);
/* rl_replay_has_wifi () of the recording */
gboolean rl_replay_feed_has_wifi (const RlReplayFeed *feed);

const char *rl_replay_feed_describe (const RlReplayFeed *feed);  /* "trip.scenario (42 events)" */
const char *rl_replay_feed_start_text (const RlReplayFeed *feed);/* ISO 8601 of the start */
const char *rl_replay_feed_status (const RlReplayFeed *feed);    /* "event 12/42 at …" */

G_END_DECLS
