/* The replay engine (see replay.h). */
#include "replay/replay-private.h"

#include <stdarg.h>
#include <string.h>

#include "core/evidence-set.h"

RlReplay *
rl_replay_new (const RlConfig *config, const RlRegulatory *regulatory)
{
  RlReplay *r = g_new0 (RlReplay, 1);

  r->params = config->policy;
  r->regulatory = regulatory;
  r->max_beacons = config->beacons_max_bss;
  r->events = g_array_new (FALSE, FALSE, sizeof (RlPushedEvent));
  r->items = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  r->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) rl_event_stream_free);
  r->stream_marks = g_array_new (FALSE, FALSE, sizeof (guint));
  r->timeline = g_array_new (FALSE, TRUE, sizeof (RlTimelineEntry));
  r->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->note_slots = g_ptr_array_new_with_free_func (g_free);
  r->kept = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  r->gap_threshold = 60 * RL_USEC_PER_SEC;
  return r;
}

void
rl_replay_free (RlReplay *r)
{
  if (r == NULL)
    return;
  for (guint i = 0; i < r->events->len; i++)
    g_free (g_array_index (r->events, RlPushedEvent, i).key);
  for (guint i = 0; i < r->timeline->len; i++)
    g_free (g_array_index (r->timeline, RlTimelineEntry, i).summary);
  g_array_unref (r->events);
  g_array_unref (r->items);
  g_ptr_array_unref (r->streams);
  g_array_unref (r->stream_marks);
  g_array_unref (r->timeline);
  g_hash_table_unref (r->counters);
  g_ptr_array_unref (r->notes);
  g_ptr_array_unref (r->note_slots);
  g_array_unref (r->kept);
  rl_decision_free (r->final);
  g_free (r);
}

static void
push (RlReplay *r, RlPushedEvent *e)
{
  g_array_append_vals (r->events, e, 1);
}

void
rl_replay_add_evidence (RlReplay *r, const RlEvidence *ev)
{
  RlPushedEvent e = { .time = ev->observed_at, .type = EV_PUT, .kind = ev->kind, .item = r->items->len };

  g_array_append_vals (r->items, ev, 1);
  push (r, &e);
}

void
rl_replay_add_evidence_at_start (RlReplay *r, const RlEvidence *ev)
{
  RlPushedEvent e = { .time = G_MININT64, .type = EV_PUT, .kind = ev->kind, .item = r->items->len, .at_start = TRUE };

  g_array_append_vals (r->items, ev, 1);
  push (r, &e);
}

void
rl_replay_add_withdraw (RlReplay *r, gint64 time, const char *key)
{
  RlPushedEvent e = { .time = time, .type = EV_WITHDRAW, .key = g_strdup (key) };
  push (r, &e);
}

void
rl_replay_add_withdraw_kind (RlReplay *r, gint64 time, RlSourceKind kind)
{
  RlPushedEvent e = { .time = time, .type = EV_WITHDRAW_KIND, .kind = kind };
  push (r, &e);
}

void
rl_replay_add_resume (RlReplay *r, gint64 time)
{
  RlPushedEvent e = { .time = time, .type = EV_RESUME };
  push (r, &e);
}

void
rl_replay_add_tick (RlReplay *r, gint64 time)
{
  RlPushedEvent e = { .time = time, .type = EV_TICK };
  push (r, &e);
}

void
rl_replay_add_stream (RlReplay *r, RlEventStream *stream)
{
  guint mark = r->events->len;

  g_return_if_fail (stream != NULL && stream->next != NULL && stream->free != NULL);
  g_ptr_array_add (r->streams, stream);
  g_array_append_val (r->stream_marks, mark);
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
  RlEvidence ev;
} PushedStream;

static gboolean
pushed_next (RlEventStream *self, RlStreamEvent *out)
{
  static const RlReplayEventType types[] = {
    [EV_PUT] = RL_REPLAY_EVENT_EVIDENCE, [EV_WITHDRAW] = RL_REPLAY_EVENT_WITHDRAW,
    [EV_WITHDRAW_KIND] = RL_REPLAY_EVENT_WITHDRAW_KIND, [EV_RESUME] = RL_REPLAY_EVENT_RESUME,
    [EV_TICK] = RL_REPLAY_EVENT_TICK,
  };
  PushedStream *ps = (PushedStream *) self;
  const RlPushedEvent *e;

  if (ps->pos >= ps->n)
    return FALSE;
  e = &g_array_index (ps->r->events, RlPushedEvent, ps->order[ps->pos++]);
  *out = (RlStreamEvent) { .type = types[e->type], .time = ps->at_start ? ps->first : e->time,
                           .kind = e->kind, .key = e->key };
  if (e->type == EV_PUT)
    {
      ps->ev = g_array_index (ps->r->items, RlEvidence, e->item);
      if (ps->at_start)
        ps->ev.observed_at = ps->first;
      out->ev = &ps->ev;
    }
  return TRUE;
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

  ps->base = (RlEventStream) { .next = pushed_next, .free = pushed_free, .ordered = TRUE };
  ps->r = r;
  ps->at_start = at_start;
  ps->first = first;
  ps->order = g_new (guint, to - from + 1);
  g_autofree TimeIndex *sorted = g_new (TimeIndex, to - from + 1);
  for (guint i = from; i < to; i++)
    {
      const RlPushedEvent *e = &g_array_index (r->events, RlPushedEvent, i);
      if (e->at_start == at_start)
        sorted[ps->n++] = (TimeIndex) { e->time, i };
    }
  qsort (sorted, ps->n, sizeof (TimeIndex), cmp_time_index);
  for (guint i = 0; i < ps->n; i++)
    ps->order[i] = sorted[i].index;
  return &ps->base;
}

/* Every input in one merge: the pushed events between added streams keep
 * their place among them, at-start items go in at the first event's time. */
static RlMerge *
build_merge (RlReplay *r)
{
  RlMerge *m = rl_merge_new ();
  guint n = r->streams->len, from = 0;
  gint64 first;

  for (guint k = 0; k <= n; k++)
    {
      guint to = k < n ? g_array_index (r->stream_marks, guint, k) : r->events->len;
      rl_merge_add (m, pushed_stream (r, from, to, FALSE, 0), 2 * k);
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
      rl_merge_add (m, pushed_stream (r, from, to, TRUE, first), 2 * k);
      from = to;
    }
  g_array_set_size (r->stream_marks, 0);
  return m;
}

static void
note_late (const char *name, guint64 dropped, gpointer user_data)
{
  RlReplay *r = user_data;

  rl_replay_count (r, "merge.late_dropped", dropped);
  rl_replay_note (r, "%s: %" G_GUINT64_FORMAT " events dropped: more than %d s or %d events out of time order",
                  name ? name : "input", dropped, (int) (RL_MERGE_WINDOW_US / G_USEC_PER_SEC), RL_MERGE_WINDOW_EVENTS);
}

/* ---- the decision loop ------------------------------------------------- */

/* Would replacing @old by @new leave every vote as it was?  Then only the
 * expiry moved, and the decision cannot change: skip the vote (the big win
 * on long GPS logs, where fix after fix names the same country). */
static gboolean
same_vote (const RlPolicyParams *p, const RlEvidence *old, const RlEvidence *new)
{
  if (old->kind != new->kind || old->n_countries != new->n_countries || old->strength != new->strength ||
      memcmp (old->countries, new->countries, sizeof (RlCountry) * new->n_countries) != 0)
    return FALSE;
  if (new->kind == RL_SOURCE_GPS)
    return (old->gps.error_m <= p->gps_max_error_m) == (new->gps.error_m <= p->gps_max_error_m);
  if (new->kind == RL_SOURCE_BEACON)
    return memcmp (old->beacon.bssid, new->beacon.bssid, 6) == 0 && strcmp (old->beacon.ssid, new->beacon.ssid) == 0;
  return TRUE;
}

static const RlEvidence *
find_item (RlEvidenceSet *set, const char *key)
{
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n);

  for (gsize i = 0; i < n; i++)
    if (strcmp (items[i].key, key) == 0)
      return &items[i];
  return NULL;
}

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
newest_gps (RlEvidenceSet *set, gint64 now)
{
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n), *best = NULL;

  for (gsize i = 0; i < n; i++)
    if (items[i].kind == RL_SOURCE_GPS && items[i].expires_at > now &&
        (best == NULL || items[i].observed_at > best->observed_at))
      best = &items[i];
  return best;
}

static void
decide (RlReplay *r, RlEvidenceSet *set, gint64 now)
{
  gsize n;
  const RlEvidence *items;
  RlDecision *d;

  rl_evidence_set_expire (set, now);
  items = rl_evidence_set_items (set, &n);
  d = rl_policy_decide (&r->params, rl_regulatory_map, (gpointer) r->regulatory, r->final, items, n, now);
  r->n_decisions++;
  record (r, d, newest_gps (set, now), now);
  rl_decision_free (r->final);
  r->final = d;
}

/* Applies one event; TRUE when the decision may have changed. */
static gboolean
apply (RlReplay *r, RlEvidenceSet *set, const RlStreamEvent *e, gint64 now)
{
  const RlEvidence *old;
  gboolean dirty;

  switch (e->type)
    {
    case RL_REPLAY_EVENT_EVIDENCE:
      old = find_item (set, e->ev->key);
      dirty = old == NULL || !same_vote (&r->params, old, e->ev);
      rl_evidence_set_put (set, e->ev);
      if (r->keep_evidence)
        g_array_append_vals (r->kept, e->ev, 1);
      return dirty;
    case RL_REPLAY_EVENT_WITHDRAW:
      return rl_evidence_set_remove (set, e->key);
    case RL_REPLAY_EVENT_WITHDRAW_KIND:
      return rl_evidence_set_remove_kind (set, e->kind) > 0;
    case RL_REPLAY_EVENT_RESUME:
      rl_evidence_set_drop_observed_before (set, now);
      return TRUE;
    case RL_REPLAY_EVENT_TICK:
    default:
      return TRUE;
    }
}

static void
note_gap (RlReplay *r, gint64 now)
{
  if (now - r->last_time > r->gap_threshold)
    {
      r->n_gaps++;
      r->longest_gap = MAX (r->longest_gap, now - r->last_time);
    }
  r->last_time = now;
}

/* Lets a pending hold-down finish; expiries after the last event are not
 * played out (the recording just ended). */
static void
settle_run (RlReplay *r, RlEvidenceSet *set)
{
  for (guint k = 0; k < 1000 && r->final->state == RL_STATE_TENTATIVE && r->final->next_check != RL_NEVER; k++)
    {
      gint64 at = r->final->next_check;
      decide (r, set, at);
      r->last_time = at;
    }
}

void
rl_replay_run (RlReplay *r, gboolean settle)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (r->max_beacons);
  g_autoptr (RlMerge) merge = build_merge (r);
  RlStreamEvent e;
  gboolean have = rl_merge_next (merge, &e);

  rl_decision_free (r->final);
  r->final = rl_decision_new_initial ();
  r->first_time = have ? e.time : 0;
  r->last_time = r->first_time;
  if (have)
    record (r, r->final, NULL, r->first_time);
  while (have)
    {
      gint64 now = e.time;
      gboolean dirty = FALSE;

      /* instants between events where the decision may change by itself */
      while (r->final->next_check < now)
        decide (r, set, r->final->next_check);
      note_gap (r, now);
      do
        {
          dirty |= apply (r, set, &e, now);
          have = rl_merge_next (merge, &e);
        }
      while (have && e.time == now);
      if (dirty || r->final->next_check <= now)
        decide (r, set, now);
    }
  if (settle)
    settle_run (r, set);
  rl_merge_foreach_late (merge, note_late, r);
  report_timeline (r, r->timeline->len);
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
  RlStreamEvent e;

  while (rl_merge_next (merge, &e))
    func (e.type, e.time, e.ev, e.key, e.kind, user_data);
  rl_merge_foreach_late (merge, note_late, r);
}
