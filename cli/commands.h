/* One function per `regloc` subcommand; each returns the process exit code
 * (see regloc(1): 0 ok, 1 failure or check failed, 2 usage, 3 daemon not
 * running, 4 refused) and prints "regloc NAME: …" on stderr.  argv[0] is
 * the command name. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RL_EXIT_OK 0
#define RL_EXIT_FAILURE 1
#define RL_EXIT_USAGE 2
#define RL_EXIT_NO_DAEMON 3
#define RL_EXIT_REFUSED 4

int rl_cmd_replay (int argc, char **argv);
int rl_cmd_check_config (int argc, char **argv);

/* Talking to reglocd over D-Bus. */
int rl_cmd_status (int argc, char **argv);
int rl_cmd_monitor (int argc, char **argv);
int rl_cmd_explain (int argc, char **argv);
int rl_cmd_override (int argc, char **argv);
int rl_cmd_record (int argc, char **argv);
int rl_cmd_lookup (int argc, char **argv);
int rl_cmd_rules (int argc, char **argv);     /* reads regulatory.db; asks reglocd without CC */

G_END_DECLS
