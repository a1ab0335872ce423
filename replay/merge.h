/* Replay inputs as streams of timed events, merged by time.
 *
 * Every input (a GPS log, a scan log, a capture, the events a scenario
 * pushed) is a pull iterator; rl_merge_next() hands out the earliest head
 * of all of them (a k-way merge), so a replay holds one event per input,
 * never the whole recording.  An input that does not promise time order is
 * re-ordered within a bounded window (RL_MERGE_WINDOW_US of evidence time or
 * RL_MERGE_WINDOW_EVENTS events, whichever is reached first); an event that
 * arrives after a later one of its input already left the window is
 * dropped and counted (the engine's clock only moves forward). */
#pragma once

#include <glib.h>
#include "core/event.h"

G_BEGIN_DECLS

typedef struct RlEventStream RlEventStream;

struct RlEventStream {
  /* The next event in input order, NULL at the end; valid until the next call. */
  const RlEvent *(*next) (RlEventStream *self);
  /* Optional, once after the last event: final counters and notes. */
  void (*finish) (RlEventStream *self);
  void (*free) (RlEventStream *self);
  /* Optional: the times of its first and last events, from a look at the
   * input's first and last records before it is read (FALSE when it cannot
   * tell so cheaply, or has no clock of its own). */
  gboolean (*time_span) (RlEventStream *self, gint64 *first, gint64 *last);
  /* Optional: places the input's clock by the other inputs' span (a GPS log
   * with a time of day only, a receiver's week-number rollover); FALSE
   * with @error when it cannot be placed. */
  gboolean (*align) (RlEventStream *self, gint64 others_first, gint64 others_last, GError **error);
  /* TRUE when the input guarantees non-decreasing times (no window needed). */
  gboolean ordered;
  char *name;             /* for the note about late events; owned (g_free) */
};

void rl_event_stream_free (RlEventStream *stream);

#define RL_MERGE_WINDOW_US (60 * G_USEC_PER_SEC)
#define RL_MERGE_WINDOW_EVENTS 4096

typedef struct RlMerge RlMerge;

RlMerge *rl_merge_new (void);
void rl_merge_free (RlMerge *merge);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlMerge, rl_merge_free)

/* Takes @stream.  @rank orders events of equal time across inputs (lower
 * first); inputs of equal rank keep the order they were added in. */
void rl_merge_add (RlMerge *merge, RlEventStream *stream, guint64 rank);
/* The time of the next event, or RL_NEVER when every input is done. */
gint64 rl_merge_peek_time (RlMerge *merge);
/* The earliest event of all inputs, NULL when they are done; valid until
 * the next call. */
const RlEvent *rl_merge_next (RlMerge *merge);
/* Events dropped as too late, per input in the order added (after the end):
 * how many of how many the input gave, and how far the furthest lay behind
 * the events replayed before it (a clock stepped back). */
typedef struct {
  guint64 dropped, read;
  gint64 behind_us;
} RlMergeLate;
typedef void (*RlMergeLateFunc) (const char *name, const RlMergeLate *late, gpointer user_data);
void rl_merge_foreach_late (const RlMerge *merge, RlMergeLateFunc func, gpointer user_data);

G_END_DECLS
