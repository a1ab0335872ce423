/* gpsd → evidence.
 *
 * The gpsd socket sits in the main loop (g_unix_fd_add): nothing runs while
 * nothing arrives.  The rest of the daemon never waits on gpsd.
 *
 * gpsd absent: a TCP port cannot be watched without trying it, so a local
 * gpsd is watched for by its control socket ([gps] control_socket, default
 * /run/gpsd.sock: Debian's gpsd.service passes it as -F, and gpsd.socket
 * creates it whenever the socket unit runs) with a GFileMonitor, inotify on
 * its directory: no timer while nothing happens there.  Short retries
 * (1, 2, 4, 8 s) run only when gpsd was just seen (the socket appeared, it
 * exists at start, or the connection was lost: gpsd may be restarting), then
 * the watch alone.  A remote gpsd, or no control socket configured, or its
 * directory missing (GLib would poll a missing directory): a slow back-off,
 * 1 s doubling to 300 s.
 *
 * The boundary index is opened (and its 20 MB checksummed) in a worker
 * thread when the source starts, so the daemon answers on the bus at once;
 * gpsd is contacted once the index is there. */
#define G_LOG_DOMAIN "regloc-gps"

#include "daemon/sources/gps-source.h"

#include <errno.h>
#include <gps.h>
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include "readers/gpsd-json.h"
#include "daemon/backoff.h"
#include "core/paths.h"

#if GPSD_API_MAJOR_VERSION < 9 || GPSD_API_MAJOR_VERSION > 14
#error "written for libgps API 9..14 (gpsd 3.20–3.25: gps_read with a buffer, timespec times)"
#endif

#define BACKOFF_MIN_S 1
#define BACKOFF_MAX_S 300       /* only where gpsd cannot be watched for */
#define QUICK_TRIES 4           /* 1 + 2 + 4 + 8 s after gpsd was seen */

typedef struct {
  RlSource base;
  char *host;
  char port[8];
  RlGpsEvidenceParams params;
  RlGpsLookupCache cache;
  RlBoundaryIndex *owned_index;
  char *index_path;             /* to open on start; NULL: the caller gave a lookup */
  GCancellable *opening;        /* the index is being opened */
  struct gps_data_t *gps;       /* heap: the struct is large */
  gboolean connected;
  gboolean running;
  guint fd_watch;
  RlBackoff retry;
  RlGpsSourceStats stats;
  gboolean has_fix;     /* a fix was put and not withdrawn since */
  char *control_socket;         /* a local gpsd's, to watch for; NULL: back-off only */
  GFileMonitor *watch;          /* on it while disconnected */
  guint quick_left;             /* retries left before waiting on the watch alone */
} RlGpsSource;

static void gps_connect (RlGpsSource *self);

static void
retry_cb (gpointer user_data)
{
  gps_connect (user_data);
}

/* FALSE when the watch takes over instead: no timer. */
static gboolean
schedule_retry (RlGpsSource *self)
{
  if (!self->running)
    return FALSE;
  if (rl_backoff_pending (&self->retry))
    return TRUE;
  if (self->watch != NULL)
    {
      if (self->quick_left == 0)
        {
          self->stats.retry_in_s = 0;
          return FALSE;
        }
      self->quick_left--;
    }
  self->stats.retry_in_s = rl_backoff_schedule (&self->retry);
  return TRUE;
}

static void
on_control_socket (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event, gpointer user_data)
{
  RlGpsSource *self = user_data;

  if (self->connected || !self->running ||
      event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_MOVED_OUT)
    return;
  /* gpsd creates the control socket just before its TCP listener: a
   * failed connect now gets the short retries. */
  g_debug ("%s appeared; connecting to gpsd", self->control_socket);
  rl_backoff_cancel (&self->retry);
  rl_backoff_reset (&self->retry);
  self->quick_left = QUICK_TRIES;
  gps_connect (self);
}

/* Watch for the control socket; without a usable watch, the back-off. */
static void
watch_start (RlGpsSource *self)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFile) dir = NULL;
  g_autoptr (GError) error = NULL;

  if (self->watch != NULL || self->control_socket == NULL)
    return;
  file = g_file_new_for_path (self->control_socket);
  dir = g_file_get_parent (file);
  /* GLib's inotify backend polls for a missing directory every few seconds */
  if (dir == NULL || g_file_query_file_type (dir, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    {
      g_debug ("cannot watch %s (no such directory): retrying with a back-off", self->control_socket);
      return;
    }
  self->watch = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->watch == NULL)
    {
      g_debug ("cannot watch %s (%s): retrying with a back-off", self->control_socket, error->message);
      return;
    }
  g_signal_connect (self->watch, "changed", G_CALLBACK (on_control_socket), self);
  /* a socket there already: gpsd is starting, or left it behind */
  self->quick_left = g_file_test (self->control_socket, G_FILE_TEST_EXISTS) ? QUICK_TRIES : 0;
}

static void
watch_stop (RlGpsSource *self)
{
  if (self->watch == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->watch, self);
  g_file_monitor_cancel (self->watch);
  g_clear_object (&self->watch);
}

/* Closing is enough for gpsd to drop the watcher.  No WATCH_DISABLE first:
 * libgps write()s it, and on a connection gpsd has already closed that
 * write raises SIGPIPE, which would end the daemon. */
static void
gps_disconnect (RlGpsSource *self)
{
  g_clear_handle_id (&self->fd_watch, g_source_remove);
  if (self->connected)
    {
      (void) gps_close (self->gps);
      self->connected = FALSE;
    }
}

static void
lost_gpsd (RlGpsSource *self, const char *why)
{
  gps_disconnect (self);
  self->stats.disconnects++;
  rl_backoff_reset (&self->retry);
  watch_start (self);
  /* gpsd may be restarting: a few quick tries, then the watch */
  self->quick_left = QUICK_TRIES;
  schedule_retry (self);
  g_message ("lost gpsd at %s:%s (%s); retrying in %u s", self->host, self->port, why,
             self->stats.retry_in_s);
  /* The last fix stays until it ages out: a gpsd restart must not flip the decision. */
  rl_source_set_status (&self->base, FALSE, "unavailable: lost gpsd at %s:%s (%s), retrying in %u s",
                        self->host, self->port, why, self->stats.retry_in_s);
}

/* The receiver says it has no fix (TPV mode 1): its last position no
 * longer stands, rather than counting until it ages out.  (A lost gpsd
 * connection is different: see lost_gpsd().) */
static void
fix_lost (RlGpsSource *self)
{
  if (!self->has_fix)
    return;
  self->has_fix = FALSE;
  self->stats.fix_lost++;
  rl_source_withdraw (&self->base, "gps");
}

static void
handle_report (RlGpsSource *self)
{
  RlGpsFix fix;
  RlGpsReject why;
  RlEvidence ev;
  char cc[64];

  if (!(self->gps->set & MODE_SET))
    return;   /* SKY, DEVICE, VERSION, …: nothing to judge */
  if (!rl_gps_fix_from_gps_data (self->gps, &fix, &why))
    {
      self->stats.rejected[why]++;
      if (why == RL_GPS_REJECT_NO_FIX)
        {
          /* mode 1 without a time: the receiver lost its fix just now */
          if (self->gps->fix.mode == MODE_NO_FIX)
            fix_lost (self);
          rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, no fix", self->host, self->port);
        }
      return;
    }
  if (rl_gps_fix_is_lost (&fix))
    {
      fix_lost (self);
      rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, no fix", self->host, self->port);
      return;
    }
  /* Evidence time is the daemon's wall clock: a receiver's clock can be far
   * off (GPS week rollover), and the policy ages items against the wall. */
  if (!rl_gps_evidence_from_fix_cached (&self->params, &self->cache, &fix, g_get_real_time (), &ev))
    {
      self->stats.rejected[RL_GPS_REJECT_BAD_VALUE]++;
      return;
    }
  self->stats.fixes_used++;
  self->has_fix = TRUE;
  rl_source_put (&self->base, &ev);
  rl_source_set_status (&self->base, TRUE, "gpsd %s:%s, fix: %s", self->host, self->port,
                        rl_evidence_countries_to_string (&ev, cc, sizeof cc));
}

static gboolean
on_readable (int fd, GIOCondition cond, gpointer user_data)
{
  RlGpsSource *self = user_data;

  /* The socket is non-blocking.  gps_read() returns > 0 for each whole
   * report, 0 when only part of one has arrived (wait for the socket
   * again), < 0 when gpsd has gone.  One recv can bring several reports,
   * which libgps then hands out without touching the socket: drain them. */
  for (;;)
    {
      int r;

      self->gps->set = 0;
      errno = 0;
      r = gps_read (self->gps, NULL, 0);
      if (r < 0)
        {
          self->fd_watch = 0;
          lost_gpsd (self, errno != 0 && errno != EAGAIN ? g_strerror (errno) : "connection closed");
          return G_SOURCE_REMOVE;
        }
      if (r == 0)
        break;
      handle_report (self);
      if (!gps_waiting (self->gps, 0))
        break;
    }
  return G_SOURCE_CONTINUE;
}

static void
gps_connect (RlGpsSource *self)
{
  int rc;

  if (!self->running || self->connected)
    return;
  errno = 0;
  /* A TCP connect: immediate for the usual localhost gpsd. */
  rc = gps_open (self->host, self->port, self->gps);
  if (rc != 0)
    {
      guint wait = rl_backoff_next_s (&self->retry);
      /* libgps leaves its netlib error code in errno */
      const char *why = gps_errstr (errno != 0 ? errno : rc);

      watch_start (self);
      /* The same words on every attempt: a status that changed with each
       * back-off step would wake every D-Bus client for nothing. */
      if (schedule_retry (self))
        {
          g_debug ("gpsd at %s:%s: %s; retrying in %u s", self->host, self->port, why, wait);
          rl_source_set_status (&self->base, FALSE, "unavailable: gpsd at %s:%s: %s (retrying)",
                                self->host, self->port, why);
        }
      else
        {
          g_debug ("gpsd at %s:%s: %s; waiting for %s to appear", self->host, self->port, why,
                   self->control_socket);
          rl_source_set_status (&self->base, FALSE, "unavailable: gpsd at %s:%s: %s (waiting for %s)",
                                self->host, self->port, why, self->control_socket);
        }
      return;
    }
  self->connected = TRUE;
  if (gps_stream (self->gps, WATCH_ENABLE | WATCH_JSON, NULL) != 0)
    {
      lost_gpsd (self, "WATCH request failed");
      return;
    }
  /* never block the main loop on a report that arrives in pieces */
  if (!g_unix_set_fd_nonblocking (self->gps->gps_fd, TRUE, NULL))
    {
      lost_gpsd (self, "cannot make the socket non-blocking");
      return;
    }
  self->stats.connects++;
  self->stats.retry_in_s = 0;
  rl_backoff_reset (&self->retry);
  watch_stop (self);
  self->fd_watch = g_unix_fd_add (self->gps->gps_fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_readable, self);
  g_message ("connected to gpsd at %s:%s", self->host, self->port);
  rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, waiting for a fix",
                        self->host, self->port);
}

/* Where a control socket on this machine says anything about the gpsd to connect to. */
static gboolean
is_local_host (const char *host)
{
  return g_str_equal (host, "localhost") || g_str_equal (host, "::1") || g_str_has_prefix (host, "127.") ||
         g_str_equal (host, "ip6-localhost");
}

RlSource *
rl_gps_source_new (const RlConfig *config, const RlSourceSink *sink,
                   RlGpsLookupFunc lookup, const RlBoundaryIndex *index)
{
  RlGpsSource *self;

  if (!config->gps_enabled)
    return NULL;
  self = g_new0 (RlGpsSource, 1);
  rl_source_init (&self->base, &rl_gps_source_ops, sink);
  self->host = g_strdup (config->gps_host != NULL ? config->gps_host : "localhost");
  g_snprintf (self->port, sizeof self->port, "%u", config->gps_port != 0 ? config->gps_port : 2947);
  rl_gps_evidence_params_init (&self->params, config, lookup, index);
  self->gps = g_new0 (struct gps_data_t, 1);
  if (is_local_host (self->host) && config->gps_control_socket != NULL && config->gps_control_socket[0] != '\0')
    self->control_socket = g_strdup (config->gps_control_socket);
  rl_backoff_init (&self->retry, BACKOFF_MIN_S, BACKOFF_MAX_S, retry_cb, self);
  rl_source_set_status (&self->base, FALSE, "not started");
  return &self->base;
}

static RlSource *
gps_create (const RlConfig *config, const RlSourceSink *sink)
{
  RlGpsSource *self;

  if (!config->gps_enabled)
    return NULL;
  self = (RlGpsSource *) rl_gps_source_new (config, sink, rl_boundary_lookup, NULL);
  self->index_path = rl_data_path (RL_DATA_BOUNDARY_INDEX, config->boundary_index);
  return &self->base;
}

static void
open_index_thread (GTask *task, gpointer source_object, gpointer path, GCancellable *cancellable)
{
  GError *error = NULL;
  RlBoundaryIndex *index = rl_boundary_index_open (path, &error);

  if (index == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, index, (GDestroyNotify) rl_boundary_index_free);
}

static void
on_index_opened (GObject *unused, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  RlBoundaryIndex *index;
  RlGpsSource *self;

  /* Stopped or freed meanwhile: @user_data may be gone; the task frees the index. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  self = user_data;
  g_clear_object (&self->opening);
  index = g_task_propagate_pointer (G_TASK (result), &error);
  if (index == NULL)
    {
      /* Without the index a fix names no country: the source stays off.
       * The error names the file and what is wrong with it. */
      g_warning ("GPS source disabled: %s", error->message);
      rl_source_set_status (&self->base, FALSE, "unavailable: no boundary index (%s)", error->message);
      return;
    }
  self->owned_index = index;
  self->params.index = index;
  if (self->running)
    gps_connect (self);
}

static void
gps_start (RlSource *source)
{
  RlGpsSource *self = (RlGpsSource *) source;

  self->running = TRUE;
  if (self->index_path != NULL && self->owned_index == NULL)
    {
      if (self->opening == NULL)
        {
          g_autoptr (GTask) task = NULL;

          self->opening = g_cancellable_new ();
          task = g_task_new (NULL, self->opening, on_index_opened, self);
          g_task_set_task_data (task, g_strdup (self->index_path), g_free);
          g_task_run_in_thread (task, open_index_thread);
          rl_source_set_status (source, FALSE, "opening the boundary index %s", self->index_path);
        }
      return;
    }
  gps_connect (self);
}

static void
gps_stop (RlSource *source)
{
  RlGpsSource *self = (RlGpsSource *) source;

  self->running = FALSE;
  if (self->opening != NULL)
    g_cancellable_cancel (self->opening);
  g_clear_object (&self->opening);
  rl_backoff_cancel (&self->retry);
  watch_stop (self);
  gps_disconnect (self);
  rl_source_set_status (source, FALSE, "stopped");
}

static void
gps_free (RlSource *source)
{
  RlGpsSource *self = (RlGpsSource *) source;

  if (source == NULL)
    return;
  gps_stop (source);
  g_clear_pointer (&self->owned_index, rl_boundary_index_free);
  g_free (self->index_path);
  g_free (self->control_socket);
  g_free (self->gps);
  g_free (self->host);
  g_free (self);
}

void
rl_gps_source_get_stats (RlSource *source, RlGpsSourceStats *out)
{
  *out = ((RlGpsSource *) source)->stats;
}

const RlSourceOps rl_gps_source_ops = {
  .name = "gps",
  .kind = RL_SOURCE_GPS,
  .create = gps_create,
  .start = gps_start,
  .stop = gps_stop,
  .free = gps_free,
};
