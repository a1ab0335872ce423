#define G_LOG_DOMAIN "regloc-replay"

#include "replay/replay-feed.h"
#include "replay/replay.h"
#include "replay/scenario.h"
#include "geo/tzmap.h"
#include "geo/boundary.h"
#include "core/paths.h"

#include <string.h>

struct RlReplayFeed {
  GArray *events;     /* RlEvent, sorted by time (stable) */
  guint next;
  gint64 last_time;
  gboolean heard_only;  /* the last delivery was access points heard, nothing else */
  gboolean has_wifi;    /* the recording has access points or scans (rl_replay_has_wifi) */
  RlScanHold hold;      /* … held for the scan that ends them */
  char *describe;
  char *start_text;
  char *status;
};

static gboolean feed_read_files (RlReplayFeed *feed, const char *const *paths, const RlConfig *config,
                                 const RlRegulatory *regulatory, GError **error);

RlReplayFeed *
rl_replay_feed_load (const char *const *paths, const RlConfig *config, const RlRegulatory *regulatory,
                     GError **error)
{
  RlReplayFeed *feed = g_new0 (RlReplayFeed, 1);
  g_autofree char *names = NULL;
  g_autoptr(GDateTime) start = NULL;

  feed->events = g_array_new (FALSE, TRUE, sizeof (RlEvent));
  if (!feed_read_files (feed, paths, config, regulatory, error))
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
  return feed->events->len ? g_array_index (feed->events, RlEvent, 0).time : 0;
}

gint64
rl_replay_feed_next_time (const RlReplayFeed *feed)
{
  return feed->next < feed->events->len ? g_array_index (feed->events, RlEvent, feed->next).time : RL_NEVER;
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

  feed->heard_only = TRUE;
  while (feed->next < feed->events->len)
    {
      const RlEvent *e = &g_array_index (feed->events, RlEvent, feed->next);
      if (e->time > now)
        break;
      feed->heard_only &= rl_replay_is_heard (e);
      hooks->event (e, hooks->user_data);
      feed->last_time = e->time;
      feed->next++;
      n++;
    }
  if (n > 0)
    {
      g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc (feed->last_time / RL_USEC_PER_SEC);
      g_autofree char *when = at ? g_date_time_format (at, "%H:%M:%S") : g_strdup ("?");
      g_free (feed->status);
      feed->status = g_strdup_printf ("recorded %s UTC, %u/%u events delivered%s", when, feed->next,
                                      feed->events->len, rl_replay_feed_done (feed) ? " (end of the recording)" : "");
    }
  return n;
}

gboolean
rl_replay_feed_joins_scan (RlReplayFeed *feed)
{
  const RlEvent *next = feed->next < feed->events->len ? &g_array_index (feed->events, RlEvent, feed->next) : NULL;

  return rl_replay_scan_hold (&feed->hold, feed->heard_only, feed->last_time, next);
}

gboolean
rl_replay_feed_has_wifi (const RlReplayFeed *feed)
{
  return feed->has_wifi;
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

/* A bare name ("sample-trip") names a recording shipped with regloc. */
char *
rl_replay_feed_resolve (const char *name)
{
  g_autofree char *base = NULL, *relative = NULL;
  char *found;

  if (strchr (name, '/') != NULL || g_file_test (name, G_FILE_TEST_EXISTS))
    return g_strdup (name);
  base = g_str_has_suffix (name, ".scn") ? g_strdup (name) : g_strconcat (name, ".scn", NULL);
  relative = g_build_filename ("trips", base, NULL);
  found = rl_data_find (relative);
  return found != NULL ? found : g_strdup (name);
}

static gboolean
feed_add_file (RlReplay *replay, const char *path, const RlScenarioContext *ctx, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GArray) expects = g_array_new (FALSE, TRUE, sizeof (RlScenarioExpect));
  gboolean settle = FALSE;

  if (!g_str_has_suffix (path, ".scn"))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s: reglocd --replay reads scenario files (.scn); "
                   "run GPS and scan logs through 'regloc replay'", path);
      return FALSE;
    }
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  /* expect lines are for tests of the batch engine; the daemon ignores them. */
  return rl_scenario_parse (text, path, ctx, replay, expects, &settle, error);
}

static void
on_replay_event (const RlEvent *event, gpointer user_data)
{
  RlReplayFeed *feed = user_data;

  g_array_append_vals (feed->events, event, 1);
}

static gboolean
feed_read_files (RlReplayFeed *feed, const char *const *paths, const RlConfig *config,
                 const RlRegulatory *regulatory, GError **error)
{
  g_autoptr(RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr(RlTzMap) tzmap = rl_tzmap_new (config->zoneinfo_dir, NULL);
  g_autoptr(GError) index_error = NULL;
  g_autofree char *index_path = rl_data_path (RL_DATA_BOUNDARY_INDEX, config->boundary_index);
  g_autoptr(RlBoundaryIndex) index = rl_boundary_index_open (index_path, &index_error);
  RlScenarioContext ctx = { config, tzmap, rl_scenario_boundary_lookup, index };

  if (index == NULL)
    g_message ("Boundary index unavailable (%s): replayed GPS lines need countries=", index_error->message);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *path = rl_replay_feed_resolve (paths[i]);
      if (!feed_add_file (replay, path, &ctx, error))
        return FALSE;
    }
  if (!rl_replay_align_inputs (replay, error))
    return FALSE;
  rl_replay_foreach_event (replay, on_replay_event, feed);
  feed->has_wifi = rl_replay_has_wifi (replay);
  return TRUE;
}
