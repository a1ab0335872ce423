/* regloc explain: the daemon's own paragraph on why it decided what it did. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/client.h"

int
rl_cmd_explain (int argc, char **argv)
{
  gboolean session_bus = FALSE;
  const GOptionEntry entries[] = { RL_CLIENT_OPTION_ENTRY (session_bus), { NULL } };
  g_autoptr(RlDBusManager) m = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  int code;

  if (!rl_client_parse_options ("explain", "", entries, &argc, &argv))
    return RL_EXIT_USAGE;
  if (argc > 1)
    {
      fprintf (stderr, "regloc explain: error: unexpected argument '%s'\nTry 'regloc explain --help'.\n", argv[1]);
      return RL_EXIT_USAGE;
    }
  m = rl_client_connect ("explain", session_bus, &code);
  if (m == NULL)
    return code;
  if (!rl_dbus_manager_call_explain_sync (m, &text, NULL, &error))
    return rl_client_fail ("explain", error);
  printf ("%s\n", text);
  return RL_EXIT_OK;
}
