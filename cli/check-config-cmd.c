/* regloc check-config [FILE] [--list]: validate a config the way reglocd
 * would load it, so an administrator sees the error before a restart. */
#include <stdio.h>
#include <glib.h>

#include "cli/commands.h"
#include "core/config.h"
#include "rl-build-config.h"

int
rl_cmd_check_config (int argc, char **argv)
{
  gboolean list = FALSE;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[FILE] — validate regloc.conf (default: the installed one)");
  GOptionEntry entries[] = {
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "List every key with its default and meaning", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "regloc check-config: %s\n", error->message);
      return RL_EXIT_USAGE;
    }
  if (list)
    {
      gsize n;
      const RlConfigKeyInfo *keys = rl_config_schema (&n);
      for (gsize i = 0; i < n; i++)
        printf ("[%s] %s = %s  (%s) %s\n", keys[i].group, keys[i].key, keys[i].default_value, keys[i].type, keys[i].help);
      return RL_EXIT_OK;
    }
  if (argc > 2)
    {
      fprintf (stderr, "regloc check-config: give at most one file\n");
      return RL_EXIT_USAGE;
    }
  path = g_strdup (argc == 2 ? argv[1] : RL_SYSCONFDIR "/regloc.conf");
  g_autoptr (RlConfig) config = rl_config_load (path, &error);
  if (config == NULL)
    {
      fprintf (stderr, "regloc check-config: %s\n", error->message);
      return RL_EXIT_FAILURE;
    }
  printf ("%s: valid\n", path);
  printf ("policy: %u witnesses, confidence %.2f, hold-down %u s, GPS fixes count %u s, beacons %u s\n",
          config->policy.min_witnesses, config->policy.confidence_threshold, config->policy.hold_down_s,
          config->policy.max_age_s[RL_SOURCE_GPS], config->policy.max_age_s[RL_SOURCE_BEACON]);
  return RL_EXIT_OK;
}
