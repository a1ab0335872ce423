/* reglocd: decides which country this machine is in and tells the kernel
 * and the bus.  Everything lives in the library; this is options, signals,
 * the bus name and the loop. */
#include "daemon.h"
#include "bus.h"
#include "sleep-watch.h"
#include "rl-build-config.h"
#include "applier-nl80211.h"
#include "privileges.h"

#include <glib-unix.h>
#include <locale.h>
#include <signal.h>

static GMainLoop *loop;
static RlDaemon *daemon_;
static RlBus *bus;
static int exit_code;

static void on_changed (RlDaemon *d, RlDaemonChanges changes, RlCountry old, gpointer data) { if (bus) rl_bus_update (bus, changes, old); }
static gboolean on_quit (gpointer data) { g_main_loop_quit (loop); return G_SOURCE_CONTINUE; }
static gboolean on_hup (gpointer data) { rl_daemon_reload (daemon_, NULL); return G_SOURCE_CONTINUE; }
static void on_sleep (gboolean sleeping, gpointer data) { rl_daemon_prepare_for_sleep (daemon_, sleeping); }

static void
on_bus_acquired (GDBusConnection *connection, const char *name, gpointer data)
{
  g_autoptr(GError) error = NULL;

  /* Exported before the name is ours, so the first caller finds the object. */
  if ((bus = rl_bus_new (daemon_, connection, &error)) == NULL)
    {
      g_printerr ("reglocd: error: cannot export %s: %s\n", RL_BUS_PATH, error->message);
      exit_code = 1;
      g_main_loop_quit (loop);
    }
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer data)
{
  if (connection == NULL)
    g_printerr ("reglocd: error: %s\n", bus ? "the bus connection closed" : "cannot connect to the bus");
  else
    g_printerr ("reglocd: lost the name %s (another reglocd took it, or it is taken: try --replace)\n", name);
  exit_code = bus != NULL && connection != NULL ? 0 : 1;   /* replaced: a clean exit */
  g_main_loop_quit (loop);
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
  g_autoptr(RlSleepWatch) sleep_watch = NULL;
  guint owner = 0;

  setlocale (LC_ALL, "");
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
  if (config == NULL)
    config = rl_daemon_find_config ();
  if (session_bus)
    rl_daemon_use_user_state_dir ();

  RlDaemonOptions opts = { config, no_apply, (const char *const *) replay, speed, &rl_nl80211_applier_ops };
  if ((daemon_ = rl_daemon_new (&opts, &error)) == NULL)
    {
      g_printerr ("reglocd: error: %s\n", error->message);
      return 1;
    }
  loop = g_main_loop_new (NULL, FALSE);
  rl_daemon_set_listener (daemon_, on_changed, NULL);
  g_unix_signal_add (SIGTERM, on_quit, NULL);
  g_unix_signal_add (SIGINT, on_quit, NULL);
  g_unix_signal_add (SIGHUP, on_hup, NULL);
  sleep_watch = rl_sleep_watch_new (on_sleep, NULL);
  rl_daemon_start (daemon_);
  if (!no_bus)
    owner = g_bus_own_name (session_bus ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM, RL_BUS_NAME,
                            G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT | (replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE : 0),
                            on_bus_acquired, NULL, on_name_lost, NULL, NULL);
  g_main_loop_run (loop);

  if (owner != 0)
    g_bus_unown_name (owner);
  g_clear_pointer (&bus, rl_bus_free);
  g_clear_pointer (&daemon_, rl_daemon_free);
  g_main_loop_unref (loop);
  return exit_code;
}
