/* What the daemon-facing commands share: finding reglocd on the bus through
 * the generated proxy, and turning its errors into one line and an exit
 * code (see commands.h and regloc(1)). */
#pragma once

#include <gio/gio.h>
#include "dbus/rl-dbus-manager.h"

G_BEGIN_DECLS

/* --session-bus, defaulting to $REGLOC_BUS=session: for the demo daemon. */
#define RL_CLIENT_OPTION_ENTRY(var) \
  { "session-bus", 0, 0, G_OPTION_ARG_NONE, &(var), "Talk to a reglocd on the session bus (also: REGLOC_BUS=session)", NULL }

/* Parses the options of `regloc @cmd`; on failure prints the one-line error
 * with a hint and returns FALSE (exit RL_EXIT_USAGE). */
gboolean rl_client_parse_options (const char *cmd, const char *params, const GOptionEntry *entries,
                                  int *argc, char ***argv);

/* NULL (after printing why) when reglocd is not running and cannot be
 * started; *@exit_code is then RL_EXIT_NO_DAEMON. */
RlDBusManager *rl_client_connect (const char *cmd, gboolean session_bus, int *exit_code);

/* Prints "regloc @cmd: error: …" for a failed call and returns the exit code. */
int rl_client_fail (const char *cmd, const GError *error);

/* "12 s ago", "3 min ago", "never" for µs since the epoch (0 = never). */
char *rl_client_format_age (guint64 usec, gint64 now);
char *rl_client_format_time (guint64 usec);

G_END_DECLS
