/* Runs `regloc lookup` on its own so its bulk interface can be tested
 * without the rest of the CLI. */
#include "cli/commands.h"

int
main (int argc, char **argv)
{
  return rl_cmd_lookup (argc, argv);
}
