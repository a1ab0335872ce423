/* regloc override set XX | clear: the administrator's explicit choice
 * (polkit action net.regloc.override; polkit may ask for a password). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "client.h"
#include "policy/evidence.h"

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
    printf ("Override cleared.\n");
  return RL_EXIT_OK;
}
