/* regloc: the command-line front end.  Each subcommand lives in its own
 * cli/<name>-cmd.c; this file only dispatches. */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "cli/commands.h"
#include "rl-build-config.h"

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *help;
} Command;

static const Command commands[] = {
  { "replay", rl_cmd_replay, "Run the policy over recorded evidence (scenario, GPS logs, scan logs)" },
  { "record", rl_cmd_record, "Write what the radios hear as a scan log for regloc replay --scans" },
  { "check-config", rl_cmd_check_config, "Validate a regloc.conf and print the policy it sets" },
  { "status", rl_cmd_status, "Show the country in force, its state and every source (--json)" },
  { "monitor", rl_cmd_monitor, "Print each change of the decision as it happens, until Ctrl-C" },
  { "explain", rl_cmd_explain, "Explain in words why reglocd decided what it did" },
  { "override", rl_cmd_override, "Force a country (set XX) or return to the evidence (clear); needs polkit" },
  { "rules", rl_cmd_rules, "The radio rules of a country (default: the one in force), against 00" },
  { "lookup", rl_cmd_lookup, "Country and border distance of a point (offline boundary index)" },
};

static void
usage (FILE *out)
{
  fprintf (out, "Usage: regloc COMMAND [OPTIONS…]\n\nWhich country is this machine in, for its Wi-Fi radios?\n\nCommands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-14s %s\n", commands[i].name, commands[i].help);
  fprintf (out, "\nRun 'regloc COMMAND --help' for a command's options; see regloc(1).\n"
                "Map data © OpenStreetMap contributors, released under the ODbL licence.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* Numbers the C way in every locale: what regloc writes is read by
   * programs (JSON, GeoJSON, KML, SVG, CSV, the reasons on the bus), and a
   * de_DE or fr_FR locale would write "48,57" for 48.57.  Messages and the
   * character set stay the user's. */
  setlocale (LC_NUMERIC, "C");
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? RL_EXIT_USAGE : RL_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("regloc %s\n", RL_VERSION);
      return RL_EXIT_OK;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "regloc: unknown command '%s'; try 'regloc --help'\n", argv[1]);
  return RL_EXIT_USAGE;
}
