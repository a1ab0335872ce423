#define G_LOG_DOMAIN "regloc-replay"

#include "replay-feed.h"
#include "replay.h"

#include <string.h>

typedef enum {
  FEED_EVIDENCE,
  FEED_WITHDRAW,
  FEED_WITHDRAW_KIND,
  FEED_RESUME,
  FEED_TICK,
} FeedType;

typedef struct {
  gint64 time;
  FeedType type;
  RlSourceKind kind;
  char key[48];
  RlEvidence ev;
} FeedEvent;

struct RlReplayFeed {
  GArray *events;     /* FeedEvent, sorted by time (stable) */
  guint next;
  gint64 last_time;
  char *describe;
  char *start_text;
  char *status;
};

static gboolean feed_read_files (RlReplayFeed *feed, const char *const *paths, const RlConfig *config, GError **error);

RlReplayFeed *
rl_replay_feed_load (const char *const *paths, const RlConfig *config, GError **error)
{
  RlReplayFeed *feed = g_new0 (RlReplayFeed, 1);
  g_autofree char *names = NULL;
  g_autoptr(GDateTime) start = NULL;

  feed->events = g_array_new (FALSE, TRUE, sizeof (FeedEvent));
  if (!feed_read_files (feed, paths, config, error))
    {
      rl_replay_feed_free (feed);
      return NULL;
    }
  if (feed->events->len == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no evidence to replay", paths[0]);
      rl_replay_feed_free (feed);
      return NULL;
    }
  names = g_strjoinv (", ", (char **) paths);
  feed->describe = g_strdup_printf ("%s (%u events)", names, feed->events->len);
  start = g_date_time_new_from_unix_utc (rl_replay_feed_start_time (feed) / RL_USEC_PER_SEC);
  feed->start_text = start ? g_date_time_format_iso8601 (start) : g_strdup ("?");
  feed->status = g_strdup_printf ("0/%u events delivered", feed->events->len);
  return feed;
}

void
rl_replay_feed_free (RlReplayFeed *feed)
{
  if (feed == NULL)
    return;
  g_array_unref (feed->events);
  g_free (feed->describe);
  g_free (feed->start_text);
  g_free (feed->status);
  g_free (feed);
}

gint64
rl_replay_feed_start_time (const RlReplayFeed *feed)
{
  return feed->events->len ? g_array_index (feed->events, FeedEvent, 0).time : 0;
}

gint64
rl_replay_feed_next_time (const RlReplayFeed *feed)
{
  return feed->next < feed->events->len ? g_array_index (feed->events, FeedEvent, feed->next).time : RL_NEVER;
}

gint64
rl_replay_feed_last_time (const RlReplayFeed *feed)
{
  return feed->last_time;
}

gboolean
rl_replay_feed_done (const RlReplayFeed *feed)
{
  return feed->next >= feed->events->len;
}

guint
rl_replay_feed_deliver (RlReplayFeed *feed, gint64 now, const RlReplayFeedHooks *hooks)
{
  guint n = 0;

  while (feed->next < feed->events->len)
    {
      const FeedEvent *e = &g_array_index (feed->events, FeedEvent, feed->next);
      if (e->time > now)
        break;
      switch (e->type)
        {
        case FEED_EVIDENCE: hooks->evidence (&e->ev, hooks->user_data); break;
        case FEED_WITHDRAW: hooks->withdraw (e->key, FALSE, e->kind, hooks->user_data); break;
        case FEED_WITHDRAW_KIND: hooks->withdraw (NULL, TRUE, e->kind, hooks->user_data); break;
        case FEED_RESUME: hooks->resume (e->time, hooks->user_data); break;
        case FEED_TICK: break;
        }
      feed->last_time = e->time;
      feed->next++;
      n++;
    }
  if (n > 0)
    {
      g_free (feed->status);
      feed->status = g_strdup_printf ("%u/%u events delivered%s", feed->next, feed->events->len,
                                      rl_replay_feed_done (feed) ? " (end of the recording)" : "");
    }
  return n;
}

const char *
rl_replay_feed_describe (const RlReplayFeed *feed)
{
  return feed->describe;
}

const char *
rl_replay_feed_start_text (const RlReplayFeed *feed)
{
  return feed->start_text;
}

const char *
rl_replay_feed_status (const RlReplayFeed *feed)
{
  return feed->status;
}

static gboolean
feed_read_files (RlReplayFeed *feed, const char *const *paths, const RlConfig *config, GError **error)
{
  /* TODO: read through the replay readers */
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "replay reading is not wired yet");
  return FALSE;
}
