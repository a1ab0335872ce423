/* The replay engine (see replay.h). */
#include "replay/replay-private.h"

#include <stdarg.h>
#include <string.h>

#include "core/engine.h"

RlReplay *
rl_replay_new (const RlConfig *config, const RlRegulatory *regulatory)
{
  RlReplay *r = g_new0 (RlReplay, 1);

  r->config = config;
  r->regulatory = regulatory;
  r->events = g_array_new (FALSE, FALSE, sizeof (RlEvent));
  r->timeline = g_array_new (FALSE, TRUE, sizeof (RlTimelineEntry));
  r->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->note_slots = g_ptr_array_new_with_free_func (g_free);
  r->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) rl_event_stream_free);
  r->stream_marks = g_array_new (FALSE, FALSE, sizeof (guint));
  r->kept = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  /* a receiver gives a fix every second or few; NetworkManager scans every
   * two minutes at most while connected */
  r->gps_gaps.threshold = RL_REPLAY_GPS_GAP_S * RL_USEC_PER_SEC;
  r->scan_gaps.threshold = RL_REPLAY_SCAN_GAP_S * RL_USEC_PER_SEC;
  return r;
}

void
rl_replay_free (RlReplay *r)
{
  if (r == NULL)
    return;
  for (guint i = 0; i < r->timeline->len; i++)
    g_free (g_array_index (r->timeline, RlTimelineEntry, i).summary);
  g_array_unref (r->events);
  g_array_unref (r->timeline);
  g_hash_table_unref (r->counters);
  g_ptr_array_unref (r->notes);
  g_ptr_array_unref (r->note_slots);
  g_ptr_array_unref (r->streams);
  g_array_unref (r->stream_marks);
  g_array_unref (r->kept);
  rl_decision_free (r->final);
  g_free (r);
}

static void
push (RlReplay *r, gint64 time, RlEventType type, const RlEvidence *ev)
{
  RlEvent *e;

  g_array_set_size (r->events, r->events->len + 1);
  e = &g_array_index (r->events, RlEvent, r->events->len - 1);
  memset (e, 0, sizeof *e);
  e->time = time;
  e->type = type;
  if (ev != NULL)
    e->ev = *ev;
}

void
rl_replay_add_evidence (RlReplay *r, const RlEvidence *ev)
{
  push (r, ev->observed_at, RL_EVENT_EVIDENCE, ev);
  r->has_wifi |= ev->kind == RL_SOURCE_BEACON;
}

void
rl_replay_add_evidence_at_start (RlReplay *r, const RlEvidence *ev)
{
  push (r, AT_START, RL_EVENT_EVIDENCE, ev);
  r->has_wifi |= ev->kind == RL_SOURCE_BEACON;
}

void
rl_replay_set_has_wifi (RlReplay *r)
{
  r->has_wifi = TRUE;
}

gboolean
rl_replay_has_wifi (const RlReplay *r)
{
  return r->has_wifi;
}

void
rl_replay_add_withdraw (RlReplay *r, gint64 time, const char *key)
{
  g_array_set_size (r->events, r->events->len + 1);
  rl_event_init_withdraw (&g_array_index (r->events, RlEvent, r->events->len - 1), time, key);
}

void
rl_replay_add_withdraw_kind (RlReplay *r, gint64 time, RlSourceKind kind)
{
  push (r, time, RL_EVENT_WITHDRAW_KIND, NULL);
  g_array_index (r->events, RlEvent, r->events->len - 1).ev.kind = kind;
}

void
rl_replay_add_resume (RlReplay *r, gint64 time)
{
  push (r, time, RL_EVENT_RESUME, NULL);
}

void
rl_replay_add_scan (RlReplay *r, gint64 since, gint64 time, guint bands, gint32 silent_mbm)
{
  RlEvent *e;

  push (r, time, RL_EVENT_SCAN, NULL);
  r->has_scans = r->has_wifi = TRUE;
  e = &g_array_index (r->events, RlEvent, r->events->len - 1);
  e->since = MIN (since, time);
  e->bands = bands;
  e->silent_mbm = silent_mbm;
}

gboolean
rl_replay_is_heard (const RlEvent *e)
{
  /* an access point heard saying no country takes back its word: a
   * withdrawal, and a result of the scan all the same */
  return (e->type == RL_EVENT_EVIDENCE && e->ev.kind == RL_SOURCE_BEACON) ||
         (e->type == RL_EVENT_WITHDRAW && g_str_has_prefix (e->ev.key, "beacon:"));
}

gboolean
rl_replay_scan_hold (RlScanHold *hold, gboolean heard_only, gint64 now, const RlEvent *next)
{
  if (!hold->holding)
    hold->since = now;
  hold->holding = heard_only && next != NULL && next->time - hold->since <= RL_REPLAY_SCAN_DUMP_US &&
                  (next->type == RL_EVENT_SCAN || (rl_replay_is_heard (next) && next->in_scan));
  return hold->holding;
}

void
rl_replay_add_tick (RlReplay *r, gint64 time)
{
  push (r, time, RL_EVENT_TICK, NULL);
}

void
rl_replay_add_stream (RlReplay *r, RlEventStream *stream)
{
  guint mark = r->events->len;

  g_return_if_fail (stream != NULL && stream->next != NULL && stream->free != NULL);
  g_ptr_array_add (r->streams, stream);
  g_array_append_val (r->stream_marks, mark);
}

gboolean
rl_replay_align_inputs (RlReplay *r, GError **error)
{
  for (guint k = 0; k < r->streams->len; k++)
    {
      RlEventStream *stream = r->streams->pdata[k];
      gint64 first = G_MAXINT64, last = G_MININT64;

      if (stream->align == NULL)
        continue;
      for (guint j = 0; j < r->streams->len; j++)
        {
          RlEventStream *other = r->streams->pdata[j];
          gint64 f, l;

          if (j != k && other->time_span != NULL && other->time_span (other, &f, &l))
            {
              first = MIN (first, f);
              last = MAX (last, l);
            }
        }
      if (first <= last && !stream->align (stream, first, last, error))
        return FALSE;
    }
  return TRUE;
}

void
rl_replay_set_timeline_func (RlReplay *r, RlReplayTimelineFunc func, gpointer user_data)
{
  r->timeline_func = func;
  r->timeline_data = user_data;
}

void
rl_replay_count (RlReplay *r, const char *counter, guint64 n)
{
  guint64 *v = g_hash_table_lookup (r->counters, counter);

  if (v == NULL)
    {
      v = g_new0 (guint64, 1);
      g_hash_table_insert (r->counters, g_strdup (counter), v);
    }
  *v += n;
}

void
rl_replay_note (RlReplay *r, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* notes quote the input (a parser's message, a file name): the JSON
   * report must stay UTF-8 whatever bytes those were */
  g_ptr_array_add (r->notes, g_utf8_make_valid (text, -1));
}

void
rl_replay_foreach_note (const RlReplay *r, void (*func) (const char *note, gpointer user_data), gpointer user_data)
{
  for (guint i = 0; i < r->notes->len; i++)
    if (r->notes->pdata[i] != NULL)   /* a slot's marker */
      func (r->notes->pdata[i], user_data);
}

/* A slot is a marker (a NULL entry) in the notes; its notes go in before it. */
gpointer
rl_replay_note_slot (RlReplay *r)
{
  gpointer slot = g_new0 (char, 1);

  g_ptr_array_add (r->note_slots, slot);
  g_ptr_array_add (r->notes, NULL);
  return slot;
}

/* The k-th marker belongs to the k-th open slot. */
static guint
slot_index (RlReplay *r, gpointer slot)
{
  guint k, seen = 0;

  for (k = 0; k < r->note_slots->len && r->note_slots->pdata[k] != slot; k++)
    ;
  for (guint i = 0; k < r->note_slots->len && i < r->notes->len; i++)
    if (r->notes->pdata[i] == NULL && seen++ == k)
      return i;
  g_return_val_if_reached (r->notes->len);
}

void
rl_replay_note_at (RlReplay *r, gpointer slot, const char *fmt, ...)
{
  va_list ap;
  guint at = slot_index (r, slot);

  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_ptr_array_insert (r->notes, (gint) at, g_utf8_make_valid (text, -1));
}

void
rl_replay_note_slot_close (RlReplay *r, gpointer slot)
{
  guint at = slot_index (r, slot);

  if (at < r->notes->len)
    g_ptr_array_remove_index (r->notes, at);
  g_ptr_array_remove (r->note_slots, slot);
}

void
rl_replay_note_slot_drop (RlReplay *r, gpointer slot)
{
  /* a loader that fails has written its notes to nobody's use: keep them */
  rl_replay_note_slot_close (r, slot);
}

void
rl_replay_set_keep_evidence (RlReplay *r, gboolean keep)
{
  r->keep_evidence = keep;
}

/* ---- the pushed events as merge inputs --------------------------------- */

/* The events pushed between two added streams, in time order (push order
 * breaks ties); either the at-start ones, placed at @first, or the rest. */
typedef struct {
  RlEventStream base;
  RlReplay *r;
  guint *order;
  guint n, pos;
  gboolean at_start;
  gint64 first;
  RlEvent event;
} PushedStream;

static const RlEvent *
pushed_next (RlEventStream *self)
{
  PushedStream *ps = (PushedStream *) self;
  const RlEvent *e;

  if (ps->pos >= ps->n)
    return NULL;
  e = &g_array_index (ps->r->events, RlEvent, ps->order[ps->pos++]);
  if (!ps->at_start)
    return e;
  ps->event = *e;
  ps->event.time = ps->event.ev.observed_at = ps->first;
  return &ps->event;
}

static void
pushed_free (RlEventStream *self)
{
  g_free (((PushedStream *) self)->order);
  g_free (self);
}

typedef struct {
  gint64 time;
  guint index;
} TimeIndex;

static int
cmp_time_index (const void *a, const void *b)
{
  const TimeIndex *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

static RlEventStream *
pushed_stream (RlReplay *r, guint from, guint to, gboolean at_start, gint64 first)
{
  PushedStream *ps = g_new0 (PushedStream, 1);
  g_autofree TimeIndex *sorted = g_new (TimeIndex, to - from + 1);

  ps->base = (RlEventStream) { .next = pushed_next, .free = pushed_free, .ordered = TRUE };
  ps->r = r;
  ps->at_start = at_start;
  ps->first = first;
  ps->order = g_new (guint, to - from + 1);
  for (guint i = from; i < to; i++)
    {
      const RlEvent *e = &g_array_index (r->events, RlEvent, i);
      if ((e->time == AT_START) == at_start)
        sorted[ps->n++] = (TimeIndex) { e->time, i };
    }
  qsort (sorted, ps->n, sizeof (TimeIndex), cmp_time_index);
  for (guint i = 0; i < ps->n; i++)
    ps->order[i] = sorted[i].index;
  return &ps->base;
}

/* An empty segment is no input: the merge looks at every input per event. */
static void
add_pushed (RlMerge *m, RlEventStream *stream, guint64 rank)
{
  if (((PushedStream *) stream)->n == 0)
    rl_event_stream_free (stream);
  else
    rl_merge_add (m, stream, rank);
}

/* Every input in one merge: the pushed events between added streams keep
 * their place among them, at-start items go in at the first event's time. */
static RlMerge *
build_merge (RlReplay *r)
{
  RlMerge *m = rl_merge_new ();
  guint n = r->streams->len, from = 0;
  gint64 first;

  /* with scan lines, the access points heard are those scans' results */
  for (guint i = 0; r->has_scans && i < r->events->len; i++)
    {
      RlEvent *e = &g_array_index (r->events, RlEvent, i);
      e->in_scan = rl_replay_is_heard (e);
    }

  for (guint k = 0; k <= n; k++)
    {
      guint to = k < n ? g_array_index (r->stream_marks, guint, k) : r->events->len;
      add_pushed (m, pushed_stream (r, from, to, FALSE, 0), 2 * k);
      if (k < n)
        rl_merge_add (m, r->streams->pdata[k], 2 * k + 1);
      from = to;
    }
  /* the merge owns the streams now */
  g_ptr_array_set_free_func (r->streams, NULL);
  g_ptr_array_set_size (r->streams, 0);
  g_ptr_array_set_free_func (r->streams, (GDestroyNotify) rl_event_stream_free);
  first = rl_merge_peek_time (m);
  if (first == RL_NEVER)
    first = 0;
  from = 0;
  for (guint k = 0; k <= n; k++)
    {
      guint to = k < n ? g_array_index (r->stream_marks, guint, k) : r->events->len;
      add_pushed (m, pushed_stream (r, from, to, TRUE, first), 2 * k);
      from = to;
    }
  g_array_set_size (r->stream_marks, 0);
  return m;
}

static void
note_late (const char *name, const RlMergeLate *late, gpointer user_data)
{
  RlReplay *r = user_data;
  gint64 behind_s = late->behind_us / G_USEC_PER_SEC;

  rl_replay_count (r, "merge.late_dropped", late->dropped);
  rl_replay_note (r, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " events dropped: more than %d s or %d events out "
                  "of time order (up to %" G_GINT64_FORMAT " h %02" G_GINT64_FORMAT " min %02" G_GINT64_FORMAT " s "
                  "behind those before them)%s",
                  name ? name : "input", late->dropped, late->read, (int) (RL_MERGE_WINDOW_US / G_USEC_PER_SEC),
                  RL_MERGE_WINDOW_EVENTS, behind_s / 3600, behind_s / 60 % 60, behind_s % 60,
                  late->dropped * 2 > late->read ? "; most of the input is lost: did its clock step back (NTP at "
                                                   "boot, a clock kept in local time)?"
                                                 : "");
}

/* ---- the run ----------------------------------------------------------- */

static void
report_timeline (RlReplay *r, guint upto)
{
  for (; r->n_reported < upto; r->n_reported++)
    if (r->timeline_func != NULL)
      r->timeline_func (&g_array_index (r->timeline, RlTimelineEntry, r->n_reported), r->timeline_data);
}

static void
record (RlReplay *r, const RlDecision *d, const RlEvidence *gps, gint64 now)
{
  RlTimelineEntry *last = r->timeline->len ? &g_array_index (r->timeline, RlTimelineEntry, r->timeline->len - 1) : NULL;
  RlTimelineEntry e = { 0 };

  if (last != NULL && last->country == d->country && last->state == d->state && last->candidate == d->candidate &&
      last->reason == d->reason)
    return;
  /* two decisions at one instant: only the later one was ever in force */
  if (last != NULL && last->time == now)
    {
      g_free (last->summary);
      g_array_set_size (r->timeline, r->timeline->len - 1);
      last = NULL;
    }
  e.time = now;
  e.country = d->country;
  e.state = d->state;
  e.reason = d->reason;
  e.confidence = d->confidence;
  e.candidate = d->candidate;
  if (gps != NULL)
    {
      e.has_position = TRUE;
      e.lat = gps->gps.lat;
      e.lon = gps->gps.lon;
    }
  e.summary = g_strdup (d->summary);
  g_array_append_val (r->timeline, e);
  /* every entry but the newest is final: a later instant has come */
  report_timeline (r, r->timeline->len - 1);
}

static const RlEvidence *
newest_gps (const RlEngine *engine, gint64 now)
{
  gsize n;
  const RlEvidence *items = rl_engine_items (engine, &n), *best = NULL;

  for (gsize i = 0; i < n; i++)
    if (items[i].kind == RL_SOURCE_GPS && items[i].expires_at > now &&
        (best == NULL || items[i].observed_at > best->observed_at))
      best = &items[i];
  return best;
}

static void
decide (RlReplay *r, RlEngine *engine, gint64 now)
{
  if (rl_engine_decide_at (engine, now, NULL, NULL))
    record (r, rl_engine_decision (engine), newest_gps (engine, now), now);
}

/* Decides at every instant before @until where the decision may change by
 * itself (a hold-down over, an item expiring). */
static void
catch_up (RlReplay *r, RlEngine *engine, gint64 until)
{
  gint64 due;

  while ((due = rl_engine_next_due (engine, until)) != RL_NEVER)
    decide (r, engine, due);
}

static void
note_gap (RlReplayGaps *g, gint64 now)
{
  if (g->seen && now - g->last > g->threshold)
    {
      g->n++;
      g->longest = MAX (g->longest, now - g->last);
    }
  g->seen = TRUE;
  g->last = now;
}

/* A gap is a stretch without the input that a kind of evidence comes in
 * with: fixes for the GPS, access points or scans for the Wi-Fi. The clock,
 * a modem and an override report only changes, so their silence is none. */
static void
note_gaps (RlReplay *r, const RlEvent *e)
{
  if (e->type == RL_EVENT_EVIDENCE && e->ev.kind == RL_SOURCE_GPS)
    note_gap (&r->gps_gaps, e->time);
  else if (e->type == RL_EVENT_SCAN || rl_replay_is_heard (e))
    note_gap (&r->scan_gaps, e->time);
}

/* Lets a pending hold-down finish; expiries after the last event are not
 * played out (the recording just ended). */
static void
settle_down (RlReplay *r, RlEngine *engine)
{
  for (guint k = 0; k < 1000; k++)
    {
      const RlDecision *d = rl_engine_decision (engine);
      gint64 at = rl_engine_next_instant (engine);
      if (d == NULL || d->state != RL_STATE_TENTATIVE || at == RL_NEVER)
        break;
      decide (r, engine, at);
      r->last_time = at;
    }
}

void
rl_replay_run (RlReplay *r, gboolean settle)
{
  g_autoptr (RlEngine) engine = rl_engine_new (r->config, r->regulatory);
  /* a recording without access points or scans is of a machine that has no
   * Wi-Fi to wait for (an LTE router's modem and clock) */
  rl_engine_set_has_wifi (engine, rl_replay_has_wifi (r));
  g_autoptr (RlMerge) merge = build_merge (r);
  const RlEvent *e = rl_merge_next (merge);
  RlScanHold hold = { FALSE, 0 };

  r->first_time = e != NULL ? e->time : 0;
  r->last_time = r->first_time;
  if (e != NULL)
    {
      g_autoptr (RlDecision) initial = rl_decision_new_initial ();
      record (r, initial, NULL, r->first_time);
    }
  while (e != NULL)
    {
      gint64 now = e->time;

      catch_up (r, engine, now);
      r->last_time = now;
      gboolean heard_only = TRUE;
      /* events come straight from the inputs into the engine */
      for (; e != NULL && e->time == now; e = rl_merge_next (merge))
        {
          if (r->keep_evidence && e->type == RL_EVENT_EVIDENCE)
            g_array_append_vals (r->kept, &e->ev, 1);
          if (r->event_func != NULL)
            r->event_func (e, r->event_data);
          heard_only &= rl_replay_is_heard (e);
          note_gaps (r, e);
          rl_engine_apply (engine, e);
        }
      if (rl_replay_scan_hold (&hold, heard_only, now, e))
        continue;
      decide (r, engine, now);
    }
  if (settle)
    settle_down (r, engine);
  rl_merge_foreach_late (merge, note_late, r);
  report_timeline (r, r->timeline->len);
  r->n_decisions = rl_engine_n_decisions (engine);
  rl_decision_free (r->final);
  r->final = rl_engine_steal_decision (engine);
  if (r->final == NULL)
    r->final = rl_decision_new_initial ();
}

const GArray *
rl_replay_timeline (const RlReplay *r)
{
  return r->timeline;
}

const RlDecision *
rl_replay_final (const RlReplay *r)
{
  return r->final;
}

/* rl_replay_format and the formatters: report.c */

void
rl_replay_foreach_event (RlReplay *r, RlReplayEventFunc func, gpointer user_data)
{
  g_autoptr (RlMerge) merge = build_merge (r);
  const RlEvent *e;

  while ((e = rl_merge_next (merge)) != NULL)
    func (e, user_data);
  rl_merge_foreach_late (merge, note_late, r);
}

void
rl_replay_span (const RlReplay *r, gint64 *first, gint64 *last)
{
  *first = r->first_time;
  *last = r->last_time;
}

void
rl_replay_set_event_func (RlReplay *r, RlReplayEventFunc func, gpointer user_data)
{
  r->event_func = func;
  r->event_data = user_data;
}
