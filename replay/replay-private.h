/* What the replay run keeps, shared by replay.c and the report formatters
 * (report.c); nothing else includes it. */
#pragma once

#include "replay/replay.h"

G_BEGIN_DECLS

/* A pushed item that holds for the whole run (--timezone) waits with this
 * time until rl_replay_run() knows the first event's. */
#define AT_START G_MININT64

/* Stretches longer than @threshold between two items of one kind of input. */
typedef struct
{
  gint64 threshold;
  gint64 last;            /* the last item's time */
  gboolean seen;          /* an item of the kind was replayed */
  guint n;
  gint64 longest;
} RlReplayGaps;

struct RlReplay {
  const RlConfig *config;
  const RlRegulatory *regulatory;
  GArray *events;         /* RlEvent pushed one by one, in push order */
  GPtrArray *streams;     /* RlEventStream*, not yet run */
  GArray *stream_marks;   /* guint: events->len when each stream was added */
  GArray *timeline;       /* RlTimelineEntry */
  guint n_reported;       /* timeline entries handed to timeline_func */
  RlReplayTimelineFunc timeline_func;
  gpointer timeline_data;
  GHashTable *counters;   /* char* → guint64* */
  GPtrArray *notes;       /* char*; NULL marks a note slot still open */
  GPtrArray *note_slots;  /* the open slots, in order */
  gboolean keep_evidence;
  gboolean has_wifi;        /* a scan log or capture, or access points or scans pushed */
  gboolean has_scans;       /* a scan was added: the access points pushed are its results */
  GArray *kept;           /* RlEvidence in the order applied, with keep_evidence */
  RlDecision *final;
  gint64 first_time, last_time;
  guint64 n_decisions;
  /* stretches without a GPS fix, and without access points or scans */
  RlReplayGaps gps_gaps, scan_gaps;
  RlReplayEventFunc event_func;   /* rl_replay_set_event_func */
  gpointer event_data;
};

G_END_DECLS
