/* Runs `regloc lookup` on its own so its bulk interface can be tested
 * without the rest of the CLI. */
#include "cli/commands.h"

int
main (int argc, char **argv)
{
  /* Called as "lookup-driver lookup ARGS…", like the dispatcher's argv. */
  if (argc < 2)
    return 2;
  return rl_cmd_lookup (argc - 1, argv + 1);
}
