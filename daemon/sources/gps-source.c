/* gpsd → evidence.
 *
 * gpsd's protocol is one request, ?WATCH={"enable":true,"json":true}, and
 * JSON reports back, one a line: the connection is a GSocket (connected
 * asynchronously, so a remote gpsd that drops packets never holds the main
 * loop), and each line goes through the same reader as a recorded gpsd log
 * (readers/gpsd-json.c), so live fixes and replayed ones are judged by the
 * same code.  The socket sits in the main loop (g_unix_fd_add): nothing runs
 * while nothing arrives.  The rest of the daemon never waits on gpsd.
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
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include "readers/gpsd-json.h"
#include "daemon/backoff.h"
#include "core/paths.h"

#define BACKOFF_MIN_S 1
#define BACKOFF_MAX_S 300       /* only where gpsd cannot be watched for */
#define QUICK_TRIES 4           /* 1 + 2 + 4 + 8 s after gpsd was seen */
#define CONNECT_TIMEOUT_S 10    /* a remote gpsd that does not answer */
/* gpsd's own limit for one report is 4096 bytes (GPS_JSON_RESPONSE_MAX);
 * a longer line is dropped whole, counted as malformed. */
#define MAX_LINE 8192
#define WATCH_REQUEST "?WATCH={\"enable\":true,\"json\":true};\n"
/* gpsd's ERROR reports go to the journal at most this often: a device it
 * cannot open may be retried, and reported, every second. */
#define ERROR_LOG_INTERVAL_US (60 * G_USEC_PER_SEC)

typedef struct {
  RlSource base;
  char *host;
  char port[8];
  RlGpsEvidenceParams params;
  RlGpsLookupCache cache;
  RlBoundaryIndex *owned_index;
  char *index_path;             /* to open on start; NULL: the caller gave a lookup */
  GCancellable *opening;        /* the index is being opened */
  GCancellable *connecting;     /* a connection attempt is under way */
  GSocketConnection *conn;      /* non-NULL while connected */
  RlGpsdJsonReader *reports;    /* judges each line; its stats are the source's */
  GByteArray *line;             /* the report being received */
  gboolean overlong;            /* dropping the rest of a line past MAX_LINE */
  gboolean connected;
  gboolean running;
  guint fd_watch;
  RlBackoff retry;
  RlGpsSourceStats stats;
  gboolean has_fix;     /* a fix was put and not withdrawn since */
  char *control_socket;         /* a local gpsd's, to watch for; NULL: back-off only */
  GFileMonitor *watch;          /* on it while disconnected */
  guint quick_left;             /* retries left before waiting on the watch alone */
  gint64 error_logged;          /* monotonic time gpsd's last ERROR report was logged; 0 never */
  guint64 errors_unlogged;      /* ERROR reports since, not logged */
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

/* Closing is enough for gpsd to drop the watcher. */
static void
gps_disconnect (RlGpsSource *self)
{
  g_clear_handle_id (&self->fd_watch, g_source_remove);
  if (self->connecting != NULL)
    g_cancellable_cancel (self->connecting);
  g_clear_object (&self->connecting);
  if (self->conn != NULL)
    (void) g_io_stream_close (G_IO_STREAM (self->conn), NULL, NULL);
  g_clear_object (&self->conn);
  g_byte_array_set_size (self->line, 0);
  self->overlong = FALSE;
  self->connected = FALSE;
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

/* gpsd reported an ERROR ("Can't open /dev/ttyUSB0: Permission denied"):
 * to the journal, at most once a minute with a count of the rest, and
 * into the status while there is no fix, for `regloc status` to show why. */
static void
gpsd_said_error (RlGpsSource *self)
{
  const char *words = rl_gpsd_json_reader_last_error (self->reports);
  gint64 now = g_get_monotonic_time ();

  self->stats.gpsd_errors++;
  if (self->error_logged == 0 || now - self->error_logged >= ERROR_LOG_INTERVAL_US)
    {
      if (self->errors_unlogged > 0)
        g_message ("gpsd at %s:%s reported an error: %s (and %" G_GUINT64_FORMAT " more since the last logged)",
                   self->host, self->port, words, self->errors_unlogged);
      else
        g_message ("gpsd at %s:%s reported an error: %s", self->host, self->port, words);
      self->error_logged = now;
      self->errors_unlogged = 0;
    }
  else
    self->errors_unlogged++;
  if (!self->has_fix)
    rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, no fix; gpsd reported: %s",
                          self->host, self->port, words);
}

static void
handle_report (RlGpsSource *self, const char *text, gsize n)
{
  guint64 errors = rl_gpsd_json_reader_n_errors (self->reports);
  RlGpsFix fix;
  RlGpsReject why;
  RlEvidence ev;
  char cc[64];

  switch (rl_gpsd_json_reader_feed_line (self->reports, text, n, &fix))
    {
    case RL_GPSD_LINE_IGNORED:
    case RL_GPSD_LINE_REJECTED:
      /* counted by the reader */
      if (rl_gpsd_json_reader_n_errors (self->reports) > errors)
        gpsd_said_error (self);
      return;
    case RL_GPSD_LINE_LOST:
      fix_lost (self);
      rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, no fix", self->host, self->port);
      return;
    case RL_GPSD_LINE_FIX:
      break;
    }
  why = rl_gps_fix_judge (&fix);
  if (why != RL_GPS_N_REJECTS)
    {
      self->stats.rejected[why]++;
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

/* Splits what arrived into lines; a line longer than MAX_LINE is dropped
 * up to its newline and counted as malformed. */
static void
take_bytes (RlGpsSource *self, const char *data, gsize n)
{
  while (n > 0)
    {
      const char *nl = memchr (data, '\n', n);
      gsize part = nl != NULL ? (gsize) (nl - data) : n;

      if (!self->overlong && self->line->len + part > MAX_LINE)
        {
          self->overlong = TRUE;
          self->stats.rejected[RL_GPS_REJECT_MALFORMED]++;
          g_byte_array_set_size (self->line, 0);
        }
      if (!self->overlong)
        g_byte_array_append (self->line, (const guint8 *) data, (guint) part);
      if (nl == NULL)
        return;
      if (!self->overlong && self->running)
        handle_report (self, (const char *) self->line->data, self->line->len);
      g_byte_array_set_size (self->line, 0);
      self->overlong = FALSE;
      data += part + 1;
      n -= part + 1;
    }
}

static gboolean
on_readable (int fd, GIOCondition cond, gpointer user_data)
{
  RlGpsSource *self = user_data;
  GSocket *sock = g_socket_connection_get_socket (self->conn);
  char buf[4096];

  /* The socket is non-blocking: read what is there, then wait again. */
  for (;;)
    {
      g_autoptr (GError) error = NULL;
      gssize r = g_socket_receive (sock, buf, sizeof buf, NULL, &error);

      if (r < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return G_SOURCE_CONTINUE;
      if (r <= 0)
        {
          self->fd_watch = 0;
          lost_gpsd (self, r == 0 ? "connection closed" : error->message);
          return G_SOURCE_REMOVE;
        }
      take_bytes (self, buf, (gsize) r);
      if (self->conn == NULL)
        return G_SOURCE_REMOVE;   /* stopped from a callback meanwhile */
    }
}

static void
connect_failed (RlGpsSource *self, const char *why)
{
  guint wait = rl_backoff_next_s (&self->retry);

  self->stats.connect_failures++;
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
}

static void
connected (RlGpsSource *self, GSocketConnection *conn)
{
  GSocket *sock = g_socket_connection_get_socket (conn);
  g_autoptr (GError) error = NULL;
  gssize sent;

  self->conn = conn;
  self->connected = TRUE;
  g_socket_set_blocking (sock, FALSE);
  /* a few dozen bytes into an empty socket buffer (MSG_NOSIGNAL: a gpsd
   * that closed meanwhile is an error here, not a SIGPIPE) */
  sent = g_socket_send (sock, WATCH_REQUEST, strlen (WATCH_REQUEST), NULL, &error);
  if (sent != (gssize) strlen (WATCH_REQUEST))
    {
      lost_gpsd (self, "WATCH request failed");
      return;
    }
  self->stats.connects++;
  self->stats.retry_in_s = 0;
  rl_backoff_reset (&self->retry);
  watch_stop (self);
  self->fd_watch = g_unix_fd_add (g_socket_get_fd (sock), G_IO_IN | G_IO_HUP | G_IO_ERR, on_readable, self);
  g_message ("connected to gpsd at %s:%s", self->host, self->port);
  rl_source_set_status (&self->base, TRUE, "connected to gpsd at %s:%s, waiting for a fix",
                        self->host, self->port);
}

static void
on_connect_done (GObject *client, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  GSocketConnection *conn = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (client), result, &error);
  RlGpsSource *self;

  /* Stopped or freed meanwhile: @user_data may be gone. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = user_data;
  g_clear_object (&self->connecting);
  if (conn == NULL)
    connect_failed (self, error->message);
  else if (!self->running)
    g_object_unref (conn);
  else
    connected (self, conn);
}

static void
gps_connect (RlGpsSource *self)
{
  g_autoptr (GSocketClient) client = NULL;

  if (!self->running || self->connected || self->connecting != NULL)
    return;
  client = g_socket_client_new ();
  g_socket_client_set_timeout (client, CONNECT_TIMEOUT_S);
  /* gpsd is on this machine or its network: no proxy (asking for one would
   * load GIO's proxy modules, libproxy and dconf, into the daemon) */
  g_socket_client_set_enable_proxy (client, FALSE);
  self->connecting = g_cancellable_new ();
  g_socket_client_connect_to_host_async (client, self->host, (guint16) g_ascii_strtoull (self->port, NULL, 10),
                                         self->connecting, on_connect_done, self);
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
  self->reports = rl_gpsd_json_reader_new_live ();
  self->line = g_byte_array_new ();
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
  rl_gpsd_json_reader_free (self->reports);
  g_byte_array_unref (self->line);
  g_free (self->host);
  g_free (self);
}

void
rl_gps_source_get_stats (RlSource *source, RlGpsSourceStats *out)
{
  RlGpsSource *self = (RlGpsSource *) source;
  const RlGpsParseStats *parsed = rl_gpsd_json_reader_stats (self->reports);

  *out = self->stats;
  for (guint i = 0; i < RL_GPS_N_REJECTS; i++)
    out->rejected[i] += parsed->rejected[i];
}

const RlSourceOps rl_gps_source_ops = {
  .name = "gps",
  .kind = RL_SOURCE_GPS,
  .create = gps_create,
  .start = gps_start,
  .stop = gps_stop,
  .free = gps_free,
};
