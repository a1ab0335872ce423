#include "daemon/backoff.h"

void
rl_backoff_init (RlBackoff *b, guint min_s, guint max_s, RlBackoffFunc func, gpointer user_data)
{
  b->min_s = MAX (min_s, 1);
  b->max_s = MAX (max_s, b->min_s);
  b->next_s = b->min_s;
  b->id = 0;
  b->func = func;
  b->user_data = user_data;
}

static gboolean
on_due (gpointer user_data)
{
  RlBackoff *b = user_data;

  b->id = 0;
  b->func (b->user_data);
  return G_SOURCE_REMOVE;
}

guint
rl_backoff_schedule (RlBackoff *b)
{
  guint wait;

  if (b->id != 0)
    return b->pending_s;
  wait = b->pending_s = b->next_s;
  b->id = g_timeout_add_seconds (wait, on_due, b);
  b->next_s = MIN (b->next_s * 2, b->max_s);
  return wait;
}

void
rl_backoff_reset (RlBackoff *b)
{
  b->next_s = b->min_s;
}

void
rl_backoff_cancel (RlBackoff *b)
{
  g_clear_handle_id (&b->id, g_source_remove);
}

gboolean
rl_backoff_pending (const RlBackoff *b)
{
  return b->id != 0;
}

guint
rl_backoff_next_s (const RlBackoff *b)
{
  return b->next_s;
}
