/* k-way merge of replay inputs by time (see merge.h). */
#include "replay/merge.h"

#include <string.h>

void
rl_event_stream_free (RlEventStream *stream)
{
  if (stream == NULL)
    return;
  g_free (stream->name);
  stream->free (stream);
}

/* A copy of an event of an unordered input, held in its window. */
typedef struct {
  RlEvent e;
  guint64 seq;
} Slot;

typedef struct {
  RlEventStream *stream;
  guint64 rank;
  guint index;
  gboolean ended;
  /* ordered inputs: the head points into the stream's own storage */
  const RlEvent *head;
  /* unordered inputs: a min-heap on (time, seq) of slots */
  GPtrArray *heap;
  GPtrArray *spare;
  Slot *loaned;           /* handed out by the last rl_merge_next */
  gint64 newest, released;
  guint64 seq, late, read;
  gint64 behind;          /* the furthest a late event lay behind */
} Input;

struct RlMerge {
  GPtrArray *inputs;      /* Input* */
  Input *last;            /* the input of the event handed out last */
};

RlMerge *
rl_merge_new (void)
{
  RlMerge *m = g_new0 (RlMerge, 1);

  m->inputs = g_ptr_array_new ();
  return m;
}

static void
input_free (Input *in)
{
  if (in->heap != NULL)
    {
      g_ptr_array_set_free_func (in->heap, g_free);
      g_ptr_array_unref (in->heap);
      g_ptr_array_set_free_func (in->spare, g_free);
      g_ptr_array_unref (in->spare);
      g_free (in->loaned);
    }
  rl_event_stream_free (in->stream);
  g_free (in);
}

void
rl_merge_free (RlMerge *m)
{
  if (m == NULL)
    return;
  g_ptr_array_foreach (m->inputs, (GFunc) (void (*) (void)) input_free, NULL);
  g_ptr_array_unref (m->inputs);
  g_free (m);
}

void
rl_merge_add (RlMerge *m, RlEventStream *stream, guint64 rank)
{
  Input *in = g_new0 (Input, 1);

  in->stream = stream;
  in->rank = rank;
  in->index = m->inputs->len;
  in->newest = in->released = G_MININT64;
  if (!stream->ordered)
    {
      in->heap = g_ptr_array_new ();
      in->spare = g_ptr_array_new ();
    }
  g_ptr_array_add (m->inputs, in);
}

static gboolean
slot_before (const Slot *a, const Slot *b)
{
  return a->e.time != b->e.time ? a->e.time < b->e.time : a->seq < b->seq;
}

static void
heap_push (GPtrArray *h, Slot *s)
{
  guint i = h->len;

  g_ptr_array_add (h, s);
  while (i > 0 && slot_before (s, h->pdata[(i - 1) / 2]))
    {
      h->pdata[i] = h->pdata[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h->pdata[i] = s;
}

static Slot *
heap_pop (GPtrArray *h)
{
  Slot *top = h->pdata[0], *last = h->pdata[h->len - 1];
  guint i = 0, n = h->len - 1;

  g_ptr_array_set_size (h, n);
  if (n == 0)
    return top;
  for (;;)
    {
      guint c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && slot_before (h->pdata[c + 1], h->pdata[c]))
        c++;
      if (!slot_before (h->pdata[c], last))
        break;
      h->pdata[i] = h->pdata[c];
      i = c;
    }
  h->pdata[i] = last;
  return top;
}

/* Copies what the stream handed out into a slot of the window. */
static Slot *
take_slot (Input *in, const RlEvent *e)
{
  Slot *s = in->spare->len ? g_ptr_array_steal_index_fast (in->spare, in->spare->len - 1) : g_new (Slot, 1);

  s->e = *e;
  s->seq = in->seq++;
  return s;
}

/* Pulls into the window until its oldest event is due: the window spans
 * RL_MERGE_WINDOW_US or holds RL_MERGE_WINDOW_EVENTS, or the input ended. */
static void
note_late (Input *in, gint64 time)
{
  in->late++;
  in->behind = MAX (in->behind, in->released - time);
}

static void
fill_window (Input *in)
{
  const RlEvent *e;

  while (!in->ended)
    {
      if (in->heap->len > 0)
        {
          const Slot *oldest = in->heap->pdata[0];
          if (in->heap->len >= RL_MERGE_WINDOW_EVENTS || in->newest - oldest->e.time >= RL_MERGE_WINDOW_US)
            return;
        }
      e = in->stream->next (in->stream);
      if (e == NULL)
        {
          in->ended = TRUE;
          break;
        }
      in->read++;
      if (e->time < in->released)
        {
          note_late (in, e->time);
          continue;
        }
      in->newest = MAX (in->newest, e->time);
      heap_push (in->heap, take_slot (in, e));
    }
}

/* Makes sure the input's next event is known; FALSE when it is done. */
static const RlEvent *
input_head (Input *in)
{
  if (in->heap == NULL)
    {
      while (in->head == NULL && !in->ended)
        {
          in->head = in->stream->next (in->stream);
          if (in->head == NULL)
            in->ended = TRUE;
          else if (in->read++, in->head->time < in->released)
            {
              /* an input that promised order broke it: same as a late event */
              note_late (in, in->head->time);
              in->head = NULL;
            }
        }
      return in->head;
    }
  fill_window (in);
  return in->heap->len > 0 ? &((Slot *) in->heap->pdata[0])->e : NULL;
}

static Input *
earliest (RlMerge *m)
{
  Input *best = NULL;
  gint64 best_time = 0;

  /* inputs are few (one per file): a linear scan beats a heap here */
  for (guint i = 0; i < m->inputs->len; i++)
    {
      Input *in = m->inputs->pdata[i];
      const RlEvent *h = input_head (in);

      if (h == NULL)
        continue;
      if (best == NULL || h->time < best_time || (h->time == best_time && in->rank < best->rank))
        {
          best = in;
          best_time = h->time;
        }
    }
  return best;
}

gint64
rl_merge_peek_time (RlMerge *m)
{
  Input *in = earliest (m);

  return in != NULL ? input_head (in)->time : RL_NEVER;
}

const RlEvent *
rl_merge_next (RlMerge *m)
{
  const RlEvent *e;
  Input *in;

  if (m->last != NULL && m->last->loaned != NULL)
    {
      g_ptr_array_add (m->last->spare, m->last->loaned);
      m->last->loaned = NULL;
    }
  in = earliest (m);
  m->last = in;
  if (in == NULL)
    {
      for (guint i = 0; i < m->inputs->len; i++)
        {
          Input *x = m->inputs->pdata[i];
          if (x->stream->finish != NULL)
            x->stream->finish (x->stream);
          x->stream->finish = NULL;
        }
      return NULL;
    }
  if (in->heap == NULL)
    {
      e = in->head;
      in->head = NULL;
    }
  else
    {
      in->loaned = heap_pop (in->heap);
      e = &in->loaned->e;
    }
  in->released = e->time;
  return e;
}

void
rl_merge_foreach_late (const RlMerge *m, RlMergeLateFunc func, gpointer user_data)
{
  for (guint i = 0; i < m->inputs->len; i++)
    {
      const Input *in = m->inputs->pdata[i];
      const RlMergeLate late = { in->late, in->read, in->behind };
      if (in->late > 0)
        func (in->stream->name, &late, user_data);
    }
}
