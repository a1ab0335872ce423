/* reglocd: decides which country this machine is in and tells the kernel
 * and the bus.  Everything lives in the library; this is options, signals,
 * the bus name and the loop. */
#include "daemon/daemon.h"
#include "daemon/backoff.h"
#include "daemon/bus.h"
#include "daemon/sleep-watch.h"
#include "rl-build-config.h"
#include "daemon/kernel/applier-nl80211.h"
#include "daemon/privileges.h"

#include <glib-unix.h>
#include <locale.h>
#include <signal.h>

static GMainLoop *loop;
static RlDaemon *daemon_;
static int exit_code;

/* The bus side.  reglocd makes its own connection rather than sharing
 * GIO's singleton, so that when the bus goes away (dbus-daemon or
 * dbus-broker restarted) it can let go of everything tied to the dead
 * connection and make a new one: deciding and applying go on meanwhile. */
#define BUS_RETRY_MIN_S 1
#define BUS_RETRY_MAX_S 60
static struct {
  GBusType type;
  gboolean replace;
  GDBusConnection *connection;
  RlBus *bus;
  RlSleepWatch *sleep_watch;
  guint owner_id;
  gulong closed_id;
  RlBackoff retry;             /* reconnecting: 1 s after the loss, doubling to a minute */
  gboolean served;             /* owned the name at least once */
} bus_;

static void on_changed (RlDaemon *d, RlDaemonChanges changes, RlCountry old, gpointer data) { if (bus_.bus) rl_bus_update (bus_.bus, changes, old); }
static gboolean on_quit (gpointer data) { g_main_loop_quit (loop); return G_SOURCE_CONTINUE; }
static gboolean daemon_started;

static void
start_daemon (void)
{
  daemon_started = TRUE;
  rl_daemon_start (daemon_);
}

static gboolean
on_hup (gpointer data)
{
  /* A SIGHUP while starting has nothing to reload: the config is being read. */
  if (daemon_ != NULL && daemon_started)
    rl_daemon_reload (daemon_, NULL);
  return G_SOURCE_CONTINUE;
}
static void on_sleep (gboolean sleeping, gpointer data) { rl_daemon_prepare_for_sleep (daemon_, sleeping); }

static void bus_attach (GDBusConnection *connection);

static void
bus_detach (void)
{
  if (bus_.owner_id != 0)
    g_bus_unown_name (bus_.owner_id);
  bus_.owner_id = 0;
  g_clear_pointer (&bus_.sleep_watch, rl_sleep_watch_free);
  g_clear_pointer (&bus_.bus, rl_bus_free);
  if (bus_.connection != NULL)
    g_clear_signal_handler (&bus_.closed_id, bus_.connection);
  g_clear_object (&bus_.connection);
}

static void
on_name_acquired (GDBusConnection *connection, const char *name, gpointer data)
{
  g_message ("Serving %s on the %s bus", name, bus_.type == G_BUS_TYPE_SESSION ? "session" : "system");
  /* Sources and the kernel only once the name is ours: a second reglocd
   * must not apply a decision before it learns another one serves. */
  if (!daemon_started)
    start_daemon ();
  bus_.served = TRUE;
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer data)
{
  /* A closed connection is on_closed's to recover from. */
  if (connection == NULL || g_dbus_connection_is_closed (connection))
    return;
  /* Someone else serves the name: with --replace a newer reglocd (a clean
   * exit), otherwise a reglocd that was there first. */
  if (bus_.served)
    g_message ("Lost the name %s: another reglocd replaced this one", name);
  else
    g_printerr ("reglocd: error: the name %s is taken (another reglocd runs; try --replace)\n", name);
  exit_code = bus_.served ? 0 : 1;
  g_main_loop_quit (loop);
}

static void
on_connected (GObject *object, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) connection = g_dbus_connection_new_for_address_finish (result, &error);

  if (connection == NULL)
    {
      g_debug ("Bus still unreachable: %s; next try in %u s", error->message, rl_backoff_next_s (&bus_.retry));
      rl_backoff_schedule (&bus_.retry);
      return;
    }
  g_message ("Reconnected to the bus");
  bus_attach (connection);
}

static void
on_retry (gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (bus_.type, NULL, &error);

  if (address == NULL)
    {
      g_debug ("No bus address: %s", error->message);
      rl_backoff_schedule (&bus_.retry);
      return;
    }
  g_dbus_connection_new_for_address (address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                     G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                     NULL, NULL, on_connected, NULL);
}

static void
on_closed (GDBusConnection *connection, gboolean remote_peer_vanished, GError *error, gpointer data)
{
  g_warning ("Lost the bus connection (%s); deciding and applying go on, reconnecting in %u s",
             error ? error->message : "closed", rl_backoff_next_s (&bus_.retry));
  bus_detach ();
  rl_backoff_schedule (&bus_.retry);
}

/* Exports the object on @connection, follows logind there and owns the name. */
static void
bus_attach (GDBusConnection *connection)
{
  g_autoptr(GError) error = NULL;

  rl_backoff_reset (&bus_.retry);
  bus_.connection = g_object_ref (connection);
  bus_.closed_id = g_signal_connect (connection, "closed", G_CALLBACK (on_closed), NULL);
  /* Exported before the name is ours, so the first caller finds the object. */
  if ((bus_.bus = rl_bus_new (daemon_, connection, &error)) == NULL)
    {
      g_printerr ("reglocd: error: cannot export %s: %s\n", RL_BUS_PATH, error->message);
      exit_code = 1;
      g_main_loop_quit (loop);
      return;
    }
  bus_.sleep_watch = rl_sleep_watch_new (connection, on_sleep, NULL);
  bus_.owner_id = g_bus_own_name_on_connection (connection, RL_BUS_NAME,
                                                G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT |
                                                (bus_.replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE : 0),
                                                on_name_acquired, on_name_lost, NULL, NULL);
  /* --replace is for the start only: after a reconnection, a reglocd that
   * took the name meanwhile keeps it. */
  bus_.replace = FALSE;
}

/* No bus at start is a setup error (the caller says so and exits); a bus
 * lost later is waited for. */
static gboolean
bus_start (GBusType type, gboolean replace, GError **error)
{
  g_autoptr(GDBusConnection) connection = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (type, NULL, error);

  if (address == NULL)
    return FALSE;
  connection = g_dbus_connection_new_for_address_sync (address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, error);
  if (connection == NULL)
    return FALSE;
  bus_.type = type;
  bus_.replace = replace;
  rl_backoff_init (&bus_.retry, BUS_RETRY_MIN_S, BUS_RETRY_MAX_S, on_retry, NULL);
  bus_attach (connection);
  return TRUE;
}

int
main (int argc, char **argv)
{
  gboolean session_bus = FALSE, no_bus = FALSE, replace = FALSE, no_apply = FALSE, verbose = FALSE;
  g_autofree char *config = NULL;
  g_auto(GStrv) replay = NULL;
  double speed = 1.0;
  const GOptionEntry entries[] = {
    { "session-bus", 0, 0, G_OPTION_ARG_NONE, &session_bus, "Use the session bus (tests, demos)", NULL },
    { "no-bus", 0, 0, G_OPTION_ARG_NONE, &no_bus, "No D-Bus at all: decide and apply only", NULL },
    { "replace", 0, 0, G_OPTION_ARG_NONE, &replace, "Replace a running reglocd", NULL },
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Configuration file (default " RL_SYSCONFDIR "/regloc.conf)", "FILE" },
    { "no-apply", 0, 0, G_OPTION_ARG_NONE, &no_apply, "Decide and publish, never touch the kernel", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Debug messages", NULL },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &replay, "Feed recorded evidence instead of live sources (repeatable)", "FILE|NAME" },
    { "replay-speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed, "Recorded seconds per real second (default 1)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- the Wi-Fi regulatory country daemon");
  g_autoptr(GError) error = NULL;

  /* Until the handler below is in place (config, regulatory.db and a replay
   * can take seconds to load), a reload request must not end the daemon. */
  signal (SIGHUP, SIG_IGN);
  setlocale (LC_ALL, "");
  /* Numbers the C way under any system locale (systemd passes LANG to
   * services): the reasons on the bus are read by programs and quoted in
   * bug reports, and de_DE would write "confidence 0,85".  Messages and
   * the character set stay the locale's. */
  setlocale (LC_NUMERIC, "C");
  /* A peer that hangs up (gpsd, a bus client) must give an EPIPE to the
   * code that wrote, never end the daemon. */
  signal (SIGPIPE, SIG_IGN);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || speed < 1.0 || argc > 1)
    {
      g_printerr ("reglocd: error: %s\nTry 'reglocd --help'.\n",
                  error ? error->message : speed < 1.0 ? "--replay-speed must be at least 1" : "unexpected argument");
      return 2;
    }
  g_log_set_debug_enabled (verbose);
  /* Before any thread (GDBus starts one) and before reading any input. */
  if (!rl_privileges_drop (&error))
    {
      g_printerr ("reglocd: error: %s\n", error->message);
      return 1;
    }
  /* GLib's signal sources run on its worker thread: after the privilege
   * drop, before anything slow. */
  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_quit, NULL);
  g_unix_signal_add (SIGINT, on_quit, NULL);
  g_unix_signal_add (SIGHUP, on_hup, NULL);
  if (config == NULL)
    config = rl_daemon_find_config ();
  if (session_bus)
    rl_daemon_use_user_state_dir ();

  RlDaemonOptions opts = { config, no_apply, (const char *const *) replay, speed, &rl_nl80211_applier_ops,
                           .wpa_supplicant = TRUE };
  if ((daemon_ = rl_daemon_new (&opts, &error)) == NULL)
    {
      g_printerr ("reglocd: error: %s\n", error->message);
      return 1;
    }
  rl_daemon_set_listener (daemon_, on_changed, NULL);
  if (no_bus)
    start_daemon ();
  else if (!bus_start (session_bus ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM, replace, &error))
    {
      g_printerr ("reglocd: error: cannot connect to the bus: %s\n", error->message);
      exit_code = 1;
    }
  if (exit_code == 0)
    g_main_loop_run (loop);

  rl_backoff_cancel (&bus_.retry);
  bus_detach ();
  g_clear_pointer (&daemon_, rl_daemon_free);
  g_main_loop_unref (loop);
  return exit_code;
}
