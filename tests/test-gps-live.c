/* The live GPS source against a real gpsd fed by gpsfake on a private port:
 * fixes become evidence, killing gpsd makes the source unavailable without
 * blocking the loop, and a restarted gpsd is found again. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <glib/gstdio.h>
#include "daemon/sources/gps-source.h"
#include "tests/gps-test-util.h"

typedef struct {
  guint puts;
  guint withdraws;
  char withdrawn[48];
  RlEvidence last;
  guint went_unavailable;
  guint went_available;
  gboolean was_available;
  GPid gpsfake;
} Fixture;

static Fixture fx;

static gboolean
us_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  /* the sample log sits in Oregon */
  out->country = lon < -100 ? RL_COUNTRY ('U', 'S') : RL_COUNTRY ('D', 'E');
  out->neighbour = RL_COUNTRY ('C', 'A');
  out->border_m = 400000;
  return fabs (lat) <= 90 && fabs (lon) <= 180;
}

static void
on_put (RlSource *source, const RlEvidence *ev, gpointer user_data)
{
  fx.puts++;
  fx.last = *ev;
}

static void
on_status (RlSource *source, gpointer user_data)
{
  if (source->available && !fx.was_available)
    fx.went_available++;
  if (!source->available && fx.was_available)
    fx.went_unavailable++;
  fx.was_available = source->available;
  g_test_message ("status: %s: %s", source->available ? "available" : "unavailable", source->detail);
}

static guint
free_port (void)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  int fd = socket (AF_INET, SOCK_STREAM, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &sa, &len), ==, 0);
  close (fd);
  return ntohs (sa.sin_port);
}

static void
own_process_group (gpointer data)
{
  /* gpsfake starts gpsd as its child: one signal to the group ends both */
  setpgid (0, 0);
}

static void
start_gpsfake (guint port)
{
  g_autofree char *log = g_test_build_filename (G_TEST_DIST, "data", "gps", "mt3339.log", NULL);
  g_autofree char *port_s = g_strdup_printf ("%u", port);
  const char *argv[] = { "gpsfake", "-q", "-P", port_s, "-c", "0.05", log, NULL };
  g_autoptr (GError) error = NULL;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                own_process_group, NULL, &fx.gpsfake, &error));
  g_assert_no_error (error);
}

static void
stop_gpsfake (void)
{
  if (fx.gpsfake == 0)
    return;
  kill (-fx.gpsfake, SIGTERM);
  waitpid (fx.gpsfake, NULL, 0);
  /* gpsd may outlive the python parent by a moment */
  kill (-fx.gpsfake, SIGKILL);
  g_spawn_close_pid (fx.gpsfake);
  fx.gpsfake = 0;
}

static gboolean
wait_for (gboolean (*cond) (gpointer), gpointer data, guint timeout_s)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > until)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  return TRUE;
}

static gboolean
puts_reached (gpointer data)
{
  return fx.puts >= GPOINTER_TO_UINT (data);
}

/* How many devices the gpsd on port serves, asked on a connection of the
 * test's own (-1: no answer).  gpsfake adds its device over gpsd's control
 * socket once that socket exists, and gives up without a word when it
 * cannot connect to it yet: under load its gpsd can come up serving
 * nothing.  This tells that apart from a source that hears nothing. */
static int
gpsd_devices (guint port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons (port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  struct timeval tv = { .tv_sec = 5 };
  g_autoptr (GString) got = g_string_new (NULL);
  const char *ask = "?DEVICES;\n";
  int fd = socket (AF_INET, SOCK_STREAM, 0), n = -1;
  char buf[1024];

  g_assert_cmpint (fd, >=, 0);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect (fd, (struct sockaddr *) &sa, sizeof sa) == 0 &&
      send (fd, ask, strlen (ask), MSG_NOSIGNAL) == (ssize_t) strlen (ask))
    {
      const char *reply = NULL;

      /* gpsd's greeting, then the DEVICES reply: read up to its newline */
      while ((reply = strstr (got->str, "\"class\":\"DEVICES\"")) == NULL || strchr (reply, '\n') == NULL)
        {
          ssize_t r = recv (fd, buf, sizeof buf, 0);
          if (r <= 0)
            break;
          g_string_append_len (got, buf, r);
        }
      if (reply != NULL)
        for (n = 0; (reply = strstr (reply + 1, "\"path\":")) != NULL; n++)
          ;
    }
  close (fd);
  return n;
}

/* Starts gpsfake on port and waits for `want` puts in all.  Only a gpsd
 * that serves no device (gpsfake's race, gpsd_devices ()) is started again,
 * up to twice; a gpsd serving its device that brings the source nothing
 * fails the test.  Returns how many times gpsfake was started again. */
static guint
start_gpsfake_and_wait (guint port, guint want, const char *when)
{
  for (guint again = 0;; again++)
    {
      int devices;

      start_gpsfake (port);
      if (wait_for (puts_reached, GUINT_TO_POINTER (want), 20))
        return again;
      devices = gpsd_devices (port);
      if (devices > 0)
        {
          if (wait_for (puts_reached, GUINT_TO_POINTER (want), 60))
            return again;
          g_error ("gpsd on port %u serves %d device(s), but no GPS evidence came within 80 s %s",
                   port, devices, when);
        }
      if (again == 2)
        g_error ("gpsfake on port %u never served its device (%s): %d", port, when, devices);
      g_test_message ("gpsfake's gpsd on port %u came up serving no device (%d) %s; starting it again",
                      port, devices, when);
      stop_gpsfake ();
    }
}

static gboolean
is_unavailable (gpointer data)
{
  return !((RlSource *) data)->available;
}

static gboolean
is_available (gpointer data)
{
  return ((RlSource *) data)->available;
}

/* The connection is attempted asynchronously: wait for its answer. */
static gboolean
attempt_failed (gpointer data)
{
  RlGpsSourceStats stats;

  rl_gps_source_get_stats (data, &stats);
  return stats.connect_failures >= 1;
}

static void
test_live (void)
{
  memset (&fx, 0, sizeof fx);
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlSourceSink sink = { on_put, NULL, on_status, NULL };
  RlGpsSourceStats stats;
  RlSource *source;
  guint port = free_port ();
  guint before, restarts;
  char cc[3];

  g_free (config->gps_host);
  config->gps_host = g_strdup ("localhost");
  config->gps_port = port;
  /* gpsfake's gpsd has a control socket of its own choosing: the back-off */
  g_free (config->gps_control_socket);
  config->gps_control_socket = g_strdup ("");
  source = rl_gps_source_new (config, &sink, us_lookup, NULL);
  g_assert_nonnull (source);

  /* gpsd not there yet: the source starts anyway, unavailable, retrying */
  source->ops->start (source);
  g_assert_false (source->available);
  g_assert_true (wait_for (attempt_failed, source, 10));
  g_assert_false (source->available);
  rl_gps_source_get_stats (source, &stats);
  g_assert_cmpuint (stats.connects, ==, 0);
  g_assert_cmpuint (stats.retry_in_s, >=, 1);

  restarts = start_gpsfake_and_wait (port, 3, "at the first start");
  g_assert_true (source->available);
  g_assert_cmpint (fx.last.kind, ==, RL_SOURCE_GPS);
  g_assert_cmpstr (fx.last.key, ==, "gps");
  g_assert_cmpuint (fx.last.n_countries, ==, 1);
  g_assert_cmpstr (rl_country_to_string (fx.last.countries[0], cc), ==, "US");
  g_assert_cmpfloat_with_epsilon (fx.last.gps.lat, 44.0688, 0.001);
  g_assert_cmpfloat_with_epsilon (fx.last.gps.lon, -121.3142, 0.001);
  /* evidence time is the wall clock, not the receiver's (gpsd dates this log 2034) */
  g_assert_cmpint (ABS (fx.last.observed_at - g_get_real_time ()), <, 120 * G_USEC_PER_SEC);
  rl_gps_source_get_stats (source, &stats);
  if (restarts == 0)
    g_assert_cmpuint (stats.connects, ==, 1);
  else   /* regloc may have reached a gpsd that served nothing */
    g_assert_cmpuint (stats.connects, >=, 1);
  g_assert_cmpuint (stats.retry_in_s, ==, 0);

  /* gpsd goes away */
  stop_gpsfake ();
  if (!wait_for (is_unavailable, source, 20))
    g_error ("source still available 20 s after gpsd was killed");
  rl_gps_source_get_stats (source, &stats);
  if (restarts == 0)
    g_assert_cmpuint (stats.disconnects, ==, 1);
  else
    g_assert_cmpuint (stats.disconnects, >=, 1);
  g_assert_nonnull (strstr (source->detail, "unavailable"));

  /* and comes back on the same port */
  before = fx.puts;
  restarts += start_gpsfake_and_wait (port, before + 3, "after gpsd restarted");
  g_assert_true (wait_for (is_available, source, 5));
  rl_gps_source_get_stats (source, &stats);
  if (restarts == 0)
    g_assert_cmpuint (stats.connects, ==, 2);
  else
    g_assert_cmpuint (stats.connects, >=, 2);
  g_assert_cmpuint (fx.went_unavailable, >=, 1);
  g_assert_cmpuint (fx.went_available, >=, 2);

  source->ops->stop (source);
  g_assert_false (source->available);
  stop_gpsfake ();
  source->ops->free (source);
}

/* A stand-in gpsd that sends a report in two pieces with a pause between. */
typedef struct {
  int listen_fd;
  gint done;
} FakeGpsd;

static void
send_all (int fd, const char *text)
{
  gsize len = strlen (text);

  while (len > 0)
    {
      gssize n = send (fd, text, len, MSG_NOSIGNAL);
      if (n <= 0)
        return;
      text += n;
      len -= (gsize) n;
    }
}

static gpointer
fake_gpsd_thread (gpointer data)
{
  FakeGpsd *fake = data;
  int fd = accept (fake->listen_fd, NULL, NULL);

  if (fd >= 0)
    {
      send_all (fd, "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,\"proto_minor\":14}\n");
      send_all (fd, "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-01-01T00:00:00.000Z\",\"lat\":48.5,\"lon\":-120.5,\"eph\":9.0}\n"
                    "{\"class\":\"TPV\",\"mode\":3,\"ti");
      g_usleep (400 * 1000);
      send_all (fd, "me\":\"2024-01-01T00:00:01.000Z\",\"lat\":48.6,\"lon\":-120.6,\"eph\":7.0}\n");
      g_usleep (200 * 1000);
      close (fd);
    }
  g_atomic_int_set (&fake->done, 1);
  return NULL;
}

/* A receiver with a fix in a car (altitude, speed), which then loses it:
 * TPV mode 1 with a time, and mode 1 without one. */
static gpointer
fake_gpsd_lost_thread (gpointer data)
{
  FakeGpsd *fake = data;
  int fd = accept (fake->listen_fd, NULL, NULL);

  if (fd >= 0)
    {
      send_all (fd, "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,\"proto_minor\":14}\n");
      send_all (fd, "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":3,\"time\":\"2024-01-01T00:00:00.000Z\","
                    "\"lat\":48.5,\"lon\":-120.5,\"altHAE\":412.3,\"altMSL\":431.9,\"speed\":24.5}\n");
      g_usleep (200 * 1000);
      send_all (fd, "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":1,\"time\":\"2024-01-01T00:00:01.000Z\"}\n");
      g_usleep (200 * 1000);
      send_all (fd, "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":1}\n");
      /* stay connected until the test has seen it all */
      while (!g_atomic_int_get (&fake->done))
        g_usleep (20 * 1000);
      close (fd);
    }
  return NULL;
}

static void
on_withdraw (RlSource *source, const char *key, gpointer user_data)
{
  fx.withdraws++;
  g_strlcpy (fx.withdrawn, key, sizeof fx.withdrawn);
}

static gboolean
withdraws_reached (gpointer data)
{
  return fx.withdraws >= GPOINTER_TO_UINT (data);
}

static void
test_fix_lost (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlSourceSink sink = { on_put, on_withdraw, on_status, NULL };
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  FakeGpsd fake = { socket (AF_INET, SOCK_STREAM, 0), 0 };
  RlGpsSourceStats stats;
  GThread *thread;
  RlSource *source;

  memset (&fx, 0, sizeof fx);
  g_assert_cmpint (bind (fake.listen_fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (listen (fake.listen_fd, 1), ==, 0);
  g_assert_cmpint (getsockname (fake.listen_fd, (struct sockaddr *) &sa, &len), ==, 0);
  g_free (config->gps_host);
  config->gps_host = g_strdup ("127.0.0.1");
  config->gps_port = ntohs (sa.sin_port);
  thread = g_thread_new ("fake-gpsd", fake_gpsd_lost_thread, &fake);
  source = rl_gps_source_new (config, &sink, us_lookup, NULL);
  source->ops->start (source);

  g_assert_true (wait_for (puts_reached, GUINT_TO_POINTER (1), 10));
  g_assert_cmpfloat_with_epsilon (fx.last.gps.altitude_m, 431.9, 1e-9);
  g_assert_cmpfloat_with_epsilon (fx.last.gps.speed_mps, 24.5, 1e-9);
  /* no error estimate, no SKY: [gps] unknown_error, not a ten-metre fix */
  g_assert_cmpfloat_with_epsilon (fx.last.gps.error_m, config->gps_unknown_error_m, 1e-9);
  g_assert_true (wait_for (withdraws_reached, GUINT_TO_POINTER (1), 10));
  g_assert_cmpstr (fx.withdrawn, ==, "gps");
  /* the second "no fix" withdraws nothing more: there is nothing left */
  for (int i = 0; i < 30; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  g_assert_cmpuint (fx.withdraws, ==, 1);
  rl_gps_source_get_stats (source, &stats);
  g_assert_cmpuint (stats.fix_lost, ==, 1);
  g_assert_cmpuint (stats.fixes_used, ==, 1);
  g_atomic_int_set (&fake.done, 1);
  source->ops->free (source);
  g_thread_join (thread);
  close (fake.listen_fd);
}

/* A gpsd that cannot open its device says so in ERROR reports, three in a
 * row, and then stays connected with nothing more to say. */
static gpointer
fake_gpsd_error_thread (gpointer data)
{
  FakeGpsd *fake = data;
  int fd = accept (fake->listen_fd, NULL, NULL);

  if (fd >= 0)
    {
      send_all (fd, "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,\"proto_minor\":14}\n");
      for (guint i = 0; i < 3; i++)
        send_all (fd, "{\"class\":\"ERROR\",\"message\":\"Can't open /dev/ttyUSB0: Permission denied\"}\n");
      while (!g_atomic_int_get (&fake->done))
        g_usleep (20 * 1000);
      close (fd);
    }
  return NULL;
}

static guint error_lines_logged;

static void
count_error_lines (const char *domain, GLogLevelFlags level, const char *message, gpointer user_data)
{
  if (strstr (message, "reported an error: Can't open /dev/ttyUSB0: Permission denied") != NULL)
    error_lines_logged++;
}

static gboolean
errors_reached (gpointer data)
{
  RlGpsSourceStats stats;

  rl_gps_source_get_stats (data, &stats);
  return stats.gpsd_errors >= 3;
}

/* gpsd's ERROR reports were counted by the reader and shown by nobody:
 * they are logged (the first, then at most one a minute) and, while there
 * is no fix, the source's status says the last one. */
static void
test_gpsd_error (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlSourceSink sink = { on_put, on_withdraw, on_status, NULL };
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  FakeGpsd fake = { socket (AF_INET, SOCK_STREAM, 0), 0 };
  g_autofree char *status = NULL;
  GThread *thread;
  RlSource *source;
  guint handler;

  memset (&fx, 0, sizeof fx);
  error_lines_logged = 0;
  handler = g_log_set_handler ("regloc-gps", G_LOG_LEVEL_MESSAGE, count_error_lines, NULL);
  g_assert_cmpint (bind (fake.listen_fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (listen (fake.listen_fd, 1), ==, 0);
  g_assert_cmpint (getsockname (fake.listen_fd, (struct sockaddr *) &sa, &len), ==, 0);
  g_free (config->gps_host);
  config->gps_host = g_strdup ("127.0.0.1");
  config->gps_port = ntohs (sa.sin_port);
  thread = g_thread_new ("fake-gpsd", fake_gpsd_error_thread, &fake);
  source = rl_gps_source_new (config, &sink, us_lookup, NULL);
  source->ops->start (source);

  g_assert_true (wait_for (errors_reached, source, 10));
  g_assert_true (source->available);
  status = g_strdup_printf ("connected to gpsd at 127.0.0.1:%u, no fix; gpsd reported: "
                            "Can't open /dev/ttyUSB0: Permission denied", config->gps_port);
  g_assert_cmpstr (source->detail, ==, status);
  g_assert_cmpuint (error_lines_logged, ==, 1);
  g_assert_cmpuint (fx.puts, ==, 0);
  g_atomic_int_set (&fake.done, 1);
  source->ops->free (source);
  g_thread_join (thread);
  close (fake.listen_fd);
  g_log_remove_handler ("regloc-gps", handler);
}

static gboolean
retry_scheduled (gpointer data)
{
  RlGpsSourceStats stats;

  rl_gps_source_get_stats (data, &stats);
  return stats.retry_in_s >= 1;
}

static gboolean
connected_once (gpointer data)
{
  RlGpsSourceStats stats;

  rl_gps_source_get_stats (data, &stats);
  return stats.connects == 1;
}

/* No gpsd and no control socket: no timer at all, the source waits for the
 * socket to appear; when it does, the source connects by itself (with the
 * short retries: gpsd creates the socket before its TCP listener). */
static void
test_control_socket_watch (void)
{
  memset (&fx, 0, sizeof fx);
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlSourceSink sink = { on_put, NULL, on_status, NULL };
  g_autofree char *dir = g_dir_make_tmp ("regloc-gps-watch-XXXXXX", NULL);
  g_autofree char *sock = g_build_filename (dir, "gpsd.sock", NULL);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  RlGpsSourceStats stats;
  RlSource *source;
  int listen_fd;

  g_assert_nonnull (dir);
  g_free (config->gps_host);
  config->gps_host = g_strdup ("127.0.0.1");
  config->gps_port = free_port ();
  g_free (config->gps_control_socket);
  config->gps_control_socket = g_strdup (sock);
  source = rl_gps_source_new (config, &sink, us_lookup, NULL);
  source->ops->start (source);
  g_assert_false (source->available);
  g_assert_true (wait_for (attempt_failed, source, 10));
  rl_gps_source_get_stats (source, &stats);
  g_assert_cmpuint (stats.connects, ==, 0);
  g_assert_cmpuint (stats.retry_in_s, ==, 0);
  g_assert_nonnull (strstr (source->detail, "waiting for"));
  g_assert_nonnull (strstr (source->detail, sock));

  /* gpsd starts: its control socket first, its TCP port a moment later */
  g_assert_true (g_file_set_contents (sock, "", 0, NULL));
  g_assert_true (wait_for (retry_scheduled, source, 10));
  sa.sin_port = htons ((guint16) config->gps_port);
  listen_fd = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (setsockopt (listen_fd, SOL_SOCKET, SO_REUSEADDR, &(int) { 1 }, sizeof (int)), ==, 0);
  g_assert_cmpint (bind (listen_fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (listen (listen_fd, 1), ==, 0);
  g_assert_true (wait_for (connected_once, source, 10));
  g_assert_true (source->available);
  source->ops->free (source);
  close (listen_fd);
  g_assert_cmpint (g_unlink (sock), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
test_partial_reports (void)
{
  g_autoptr (RlConfig) config = rl_config_new_default ();
  RlSourceSink sink = { on_put, NULL, on_status, NULL };
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  FakeGpsd fake = { socket (AF_INET, SOCK_STREAM, 0), 0 };
  GThread *thread;
  RlSource *source;
  double cpu0;

  memset (&fx, 0, sizeof fx);
  g_assert_cmpint (bind (fake.listen_fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_assert_cmpint (listen (fake.listen_fd, 1), ==, 0);
  g_assert_cmpint (getsockname (fake.listen_fd, (struct sockaddr *) &sa, &len), ==, 0);
  g_free (config->gps_host);
  config->gps_host = g_strdup ("127.0.0.1");
  config->gps_port = ntohs (sa.sin_port);
  thread = g_thread_new ("fake-gpsd", fake_gpsd_thread, &fake);
  source = rl_gps_source_new (config, &sink, us_lookup, NULL);
  source->ops->start (source);
  g_assert_true (wait_for (is_available, source, 10));

  g_assert_true (wait_for (puts_reached, GUINT_TO_POINTER (1), 10));
  /* the second report is half there: the source waits on the socket, it does not spin */
  cpu0 = cpu_seconds ();
  g_assert_true (wait_for (puts_reached, GUINT_TO_POINTER (2), 10));
  g_assert_cmpfloat (cpu_seconds () - cpu0, <, 0.15);
  g_assert_cmpfloat_with_epsilon (fx.last.gps.lat, 48.6, 1e-9);
  g_assert_cmpfloat_with_epsilon (fx.last.gps.error_m, 7.0, 1e-9);
  /* the stand-in closes the connection: unavailable, retrying */
  g_assert_true (wait_for (is_unavailable, source, 10));
  source->ops->free (source);
  g_thread_join (thread);
  close (fake.listen_fd);
}

int
main (int argc, char **argv)
{
  g_autofree char *gpsfake = NULL;
  g_autofree char *gpsd = NULL;
  const char *path = g_getenv ("PATH");
  g_autofree char *full_path = g_strdup_printf ("%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gps-live/partial-reports", test_partial_reports);
  g_test_add_func ("/gps-live/fix-lost", test_fix_lost);
  g_test_add_func ("/gps-live/gpsd-error", test_gpsd_error);
  g_test_add_func ("/gps-live/control-socket-watch", test_control_socket_watch);
  /* gpsfake runs gpsd from PATH; Debian installs it in /usr/sbin */
  g_setenv ("PATH", full_path, TRUE);
  gpsfake = g_find_program_in_path ("gpsfake");
  gpsd = g_find_program_in_path ("gpsd");
  if (gpsfake == NULL || gpsd == NULL)
    g_printerr ("SKIP /gps-live/gpsfake-kill-restart: %s not found (install the Debian packages gpsd and gpsd-clients)\n",
                gpsfake == NULL ? "gpsfake" : "gpsd");
  else
    g_test_add_func ("/gps-live/gpsfake-kill-restart", test_live);
  ret = g_test_run ();
  stop_gpsfake ();
  return ret;
}
