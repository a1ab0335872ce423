/* regloc override set XX | clear: the administrator's explicit choice
 * (polkit action net.regloc.override; polkit may ask for a password). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/client.h"
#include "core/evidence.h"

int
rl_cmd_override (int argc, char **argv)
{
  gboolean session_bus = FALSE;
  const GOptionEntry entries[] = { RL_CLIENT_OPTION_ENTRY (session_bus), { NULL } };
  g_autoptr(RlDBusManager) m = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  gboolean set;
  RlCountry country;
  int code;

  if (!rl_client_parse_options ("override", "set XX | clear", entries, &argc, &argv))
    return RL_EXIT_USAGE;
  set = argc == 3 && strcmp (argv[1], "set") == 0;
  if (!set && !(argc == 2 && strcmp (argv[1], "clear") == 0))
    {
      fprintf (stderr, "regloc override: error: expected 'set XX' or 'clear'\nTry 'regloc override --help'.\n");
      return RL_EXIT_USAGE;
    }
  if (set && (strlen (argv[2]) != 2 || !rl_country_parse (argv[2], &country)))
    {
      fprintf (stderr, "regloc override: error: '%s' is not a country code: give two letters (ISO 3166-1 alpha-2) or 00\n", argv[2]);
      return RL_EXIT_USAGE;
    }
  m = rl_client_connect ("override", session_bus, &code);
  if (m == NULL)
    return code;
  /* The generated call sends no flags; this one must let polkit ask the
   * user for a password (allow-interactive-authorization). */
  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (m), set ? "SetOverride" : "ClearOverride",
                                  set ? g_variant_new ("(s)", argv[2]) : NULL,
                                  G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT, NULL, &error);
  if (reply == NULL)
    return rl_client_fail ("override", error);
  if (set)
    {
      char cc[3];
      printf ("Override set to %s (persisted; 'regloc override clear' removes it).\n",
              rl_country_to_string (country, cc));
    }
  else
    {
      /* The reply comes before the PropertiesChanged it caused: ask. */
      g_autoptr(GVariant) left = g_dbus_connection_call_sync (g_dbus_proxy_get_connection (G_DBUS_PROXY (m)),
                                                              g_dbus_proxy_get_name (G_DBUS_PROXY (m)),
                                                              g_dbus_proxy_get_object_path (G_DBUS_PROXY (m)),
                                                              "org.freedesktop.DBus.Properties", "Get",
                                                              g_variant_new ("(ss)", "net.regloc.RegLoc1.Manager", "Override"),
                                                              G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
      g_autoptr(GVariant) value = NULL;
      const char *still = NULL;

      if (left != NULL)
        {
          g_variant_get (left, "(v)", &value);
          still = g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ? g_variant_get_string (value, NULL) : NULL;
        }
      if (still != NULL && still[0] != '\0')
        printf ("Override cleared; regloc.conf's [override] still sets %s.\n", still);
      else
        printf ("Override cleared.\n");
    }
  return RL_EXIT_OK;
}
