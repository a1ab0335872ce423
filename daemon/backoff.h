/* A retry timer that backs off: the first attempt after a failure waits
 * min_s, each further one twice as long, up to max_s; a success starts
 * over.  One helper for every reconnecting part of reglocd (gpsd, nl80211,
 * the bus). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*RlBackoffFunc) (gpointer user_data);

typedef struct {
  guint min_s, max_s;
  guint next_s;            /* the wait of the next attempt */
  guint id;                /* pending attempt, 0 none */
  guint pending_s;         /* its wait */
  RlBackoffFunc func;
  gpointer user_data;
} RlBackoff;

void rl_backoff_init (RlBackoff *backoff, guint min_s, guint max_s, RlBackoffFunc func, gpointer user_data);
/* Schedules the next attempt unless one is pending; returns its wait (s)
 * (the pending one's when there is one). */
guint rl_backoff_schedule (RlBackoff *backoff);
/* It worked: the next failure waits min_s again. */
void rl_backoff_reset (RlBackoff *backoff);
/* Drops a pending attempt (the wait does not start over). */
void rl_backoff_cancel (RlBackoff *backoff);
gboolean rl_backoff_pending (const RlBackoff *backoff);
/* The wait the next scheduled attempt gets. */
guint rl_backoff_next_s (const RlBackoff *backoff);

G_END_DECLS
