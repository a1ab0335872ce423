/* Sub-commands of the regloc CLI: each returns the process exit code and
 * prints "regloc NAME: error: …" on stderr.  argv[0] is the command name. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

int rl_cmd_lookup (int argc, char **argv);

G_END_DECLS
