/* reglocd: decides which country this machine is in and tells the kernel
 * and the bus.  Everything lives in the library; this is options, signals,
 * the bus name and the loop. */
#include "daemon.h"
#include "bus.h"
#include "sleep-watch.h"
#include "rl-build-config.h"

#include <glib-unix.h>
#include <locale.h>

typedef struct {
  GMainLoop *loop;
  RlDaemon *daemon;
  RlBus *bus;
  int exit_code;
} Main;

static void
on_daemon_changed (RlDaemon *daemon, RlDaemonChanges changes, RlCountry old, gpointer user_data)
{
  Main *m = user_data;
  if (m->bus != NULL)
    rl_bus_update (m->bus, changes, old);
}

static void
on_bus_acquired (GDBusConnection *connection, const char *name, gpointer user_data)
{
  Main *m = user_data;
  g_autoptr(GError) error = NULL;

  /* Exported before the name is ours, so the first caller finds the object. */
  m->bus = rl_bus_new (m->daemon, connection, &error);
  if (m->bus == NULL)
    {
      g_printerr ("reglocd: error: cannot export %s: %s\n", RL_BUS_PATH, error->message);
      m->exit_code = 1;
      g_main_loop_quit (m->loop);
    }
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer user_data)
{
  Main *m = user_data;

  if (connection == NULL)
    g_printerr ("reglocd: error: cannot connect to the bus\n");
  else
    g_printerr ("reglocd: lost the name %s (another reglocd took it, or it is taken: try --replace)\n", name);
  m->exit_code = m->bus && connection ? 0 : 1;
  g_main_loop_quit (m->loop);
}

static gboolean on_quit (gpointer user_data) { g_main_loop_quit (((Main *) user_data)->loop); return G_SOURCE_CONTINUE; }
static gboolean on_hup (gpointer user_data) { rl_daemon_reload (((Main *) user_data)->daemon, NULL); return G_SOURCE_CONTINUE; }
static void on_sleep (gboolean sleeping, gpointer user_data) { rl_daemon_prepare_for_sleep (((Main *) user_data)->daemon, sleeping); }

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
    { "replay", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &replay, "Feed recorded evidence instead of live sources (repeatable)", "FILE" },
    { "replay-speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed, "Recorded seconds per real second (default 1)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- the Wi-Fi regulatory country daemon");
  g_autoptr(GError) error = NULL;
  g_autoptr(RlSleepWatch) sleep_watch = NULL;
  Main m = { NULL, NULL, NULL, 0 };
  guint owner = 0;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || speed < 1.0 || argc > 1)
    {
      g_printerr ("reglocd: error: %s\nTry 'reglocd --help'.\n",
                  error ? error->message : speed < 1.0 ? "--replay-speed must be at least 1" : "unexpected argument");
      return 2;
    }
  if (verbose)
    g_log_set_debug_enabled (TRUE);
  if (config == NULL)
    {
      /* systemd's ConfigurationDirectory=regloc, else the build's sysconfdir. */
      const char *dir = g_getenv ("CONFIGURATION_DIRECTORY");
      config = g_build_filename (dir && dir[0] ? dir : RL_SYSCONFDIR, "regloc.conf", NULL);
      if (!g_file_test (config, G_FILE_TEST_EXISTS))
        g_clear_pointer (&config, g_free);
    }
  /* A user's demo daemon keeps its override in the user's state directory. */
  if (session_bus && g_getenv ("STATE_DIRECTORY") == NULL)
    {
      g_autofree char *dir = g_build_filename (g_get_user_state_dir (), "regloc", NULL);
      g_setenv ("STATE_DIRECTORY", dir, TRUE);
    }

  RlDaemonOptions opts = { config, no_apply, (const char *const *) replay, speed, NULL };
  m.daemon = rl_daemon_new (&opts, &error);
  if (m.daemon == NULL)
    {
      g_printerr ("reglocd: error: %s\n", error->message);
      return 1;
    }
  m.loop = g_main_loop_new (NULL, FALSE);
  rl_daemon_set_listener (m.daemon, on_daemon_changed, &m);
  g_unix_signal_add (SIGTERM, on_quit, &m);
  g_unix_signal_add (SIGINT, on_quit, &m);
  g_unix_signal_add (SIGHUP, on_hup, &m);
  sleep_watch = rl_sleep_watch_new (on_sleep, &m);
  rl_daemon_start (m.daemon);
  if (!no_bus)
    owner = g_bus_own_name (session_bus ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM, RL_BUS_NAME,
                            G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT | (replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE : 0),
                            on_bus_acquired, NULL, on_name_lost, &m, NULL);
  g_main_loop_run (m.loop);

  if (owner != 0)
    g_bus_unown_name (owner);
  g_clear_pointer (&m.bus, rl_bus_free);
  g_clear_pointer (&m.daemon, rl_daemon_free);
  g_main_loop_unref (m.loop);
  return m.exit_code;
}
