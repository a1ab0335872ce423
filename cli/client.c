#include "cli/client.h"
#include "cli/commands.h"

#include <stdio.h>

gboolean
rl_client_parse_options (const char *cmd, const char *params, const GOptionEntry *entries,
                         int *argc, char ***argv)
{
  g_autofree char *title = g_strdup_printf ("%s - see regloc(1)", params);
  g_autoptr(GOptionContext) ctx = g_option_context_new (title);
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf ("regloc %s", cmd);

  g_set_prgname (prgname);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      fprintf (stderr, "regloc %s: error: %s\nTry 'regloc %s --help'.\n", cmd, error->message, cmd);
      return FALSE;
    }
  return TRUE;
}

RlDBusManager *
rl_client_connect (const char *cmd, gboolean session_bus, int *exit_code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RlDBusManager) proxy = NULL;
  g_autofree char *owner = NULL;
  gboolean session = session_bus || g_strcmp0 (g_getenv ("REGLOC_BUS"), "session") == 0;

  /* On the system bus this starts reglocd through D-Bus activation. */
  proxy = rl_dbus_manager_proxy_new_for_bus_sync (session ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM,
                                                  G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES,
                                                  "net.regloc.RegLoc1", "/net/regloc/RegLoc1/Manager",
                                                  NULL, &error);
  if (proxy != NULL)
    owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));
  if (proxy == NULL || owner == NULL)
    {
      fprintf (stderr, "regloc %s: error: reglocd is not running on the %s bus%s%s\n", cmd,
               session ? "session" : "system", error ? ": " : " (start it, or use --session-bus for a demo daemon)",
               error ? error->message : "");
      *exit_code = RL_EXIT_NO_DAEMON;
      return NULL;
    }
  *exit_code = RL_EXIT_OK;
  return g_steal_pointer (&proxy);
}

int
rl_client_fail (const char *cmd, const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);
  g_autofree char *name = g_dbus_error_get_remote_error (copy);
  int code = RL_EXIT_FAILURE;

  g_dbus_error_strip_remote_error (copy);
  if (g_strcmp0 (name, "net.regloc.RegLoc1.Error.NotAuthorized") == 0 ||
      g_strcmp0 (name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0 ||
      g_strcmp0 (name, "org.freedesktop.DBus.Error.AccessDenied") == 0)
    code = RL_EXIT_REFUSED;
  else if (g_strcmp0 (name, "net.regloc.RegLoc1.Error.InvalidCountry") == 0 ||
           g_strcmp0 (name, "net.regloc.RegLoc1.Error.UnknownCountry") == 0)
    code = RL_EXIT_USAGE;
  else if (g_strcmp0 (name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
           g_strcmp0 (name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0 ||
           g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
           g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
           g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    code = RL_EXIT_NO_DAEMON;
  fprintf (stderr, "regloc %s: error: %s\n", cmd,
           code == RL_EXIT_NO_DAEMON ? "reglocd is not running" : copy->message);
  return code;
}

char *
rl_client_format_age (guint64 usec, gint64 now)
{
  gint64 s;

  if (usec == 0)
    return g_strdup ("never");
  s = (now - (gint64) usec) / G_USEC_PER_SEC;
  if (s < 0)
    return g_strdup ("just now");
  if (s < 120)
    return g_strdup_printf ("%" G_GINT64_FORMAT " s ago", s);
  if (s < 7200)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min ago", s / 60);
  return g_strdup_printf ("%" G_GINT64_FORMAT " h ago", s / 3600);
}

char *
rl_client_format_time (guint64 usec)
{
  g_autoptr(GDateTime) dt = NULL;

  if (usec == 0)
    return g_strdup ("never");
  dt = g_date_time_new_from_unix_local ((gint64) (usec / G_USEC_PER_SEC));
  return dt ? g_date_time_format (dt, "%Y-%m-%d %H:%M:%S %Z") : g_strdup ("?");
}
