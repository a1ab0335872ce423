/* Who may do what: one table, deny by default, polkit asked asynchronously.
 *
 * Every method of the interface is listed in auth.c with the polkit action
 * it needs (or none: reading is open).  A method missing from the table is
 * refused.  polkit is asked on the daemon's own connection, so a daemon on
 * a private test bus talks to the polkit mock on that bus.
 *
 * Bounded, so that callers cannot lock an administrator out:
 * - a definite answer (allowed, or refused without a challenge) is cached
 *   per (caller's unique bus name, action) until polkit says `Changed` or
 *   the name leaves the bus;
 * - calls of one caller for one action share one polkit check while it is
 *   pending (at most RL_AUTH_MAX_WAITERS of them wait on it; more get
 *   LimitsExceeded);
 * - pending checks are counted per action class, reading and administration
 *   apart (RL_AUTH_MAX_PENDING_READ, RL_AUTH_MAX_PENDING_ADMIN), so a flood
 *   of reads never takes the administrator's checks;
 * - an interactive check ends after RL_AUTH_INTERACTIVE_TIMEOUT_S. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RL_AUTH_MAX_WAITERS 32
#define RL_AUTH_MAX_PENDING_READ 48
#define RL_AUTH_MAX_PENDING_ADMIN 32
#define RL_AUTH_INTERACTIVE_TIMEOUT_S 120

/* @allowed: the caller may have what it asked for.  @error: why not, ready
 * to return: a RL_BUS_ERROR, or G_DBUS_ERROR_LIMITS_EXCEEDED when the check
 * was refused for load; NULL when allowed. */
typedef void (*RlAuthCallback) (GDBusMethodInvocation *invocation, gboolean allowed,
                                const GError *error, gpointer user_data);

/* Looks up the invocation's method in the table and answers through
 * @callback (maybe before returning, for open methods and cached answers).
 * The allow-interactive-authorization flag of the message is passed on to
 * polkit. */
void rl_auth_check (GDBusMethodInvocation *invocation, RlAuthCallback callback, gpointer user_data);

/* The action a method needs; NULL for open methods, and *@known FALSE for
 * methods missing from the table.  For tests and documentation. */
const char *rl_auth_action_for (const char *method, gboolean *known);

/* Forgets cached answers and stops watching the bus (the daemon lost its
 * connection, or is shutting down).  Pending checks still answer. */
void rl_auth_reset (void);

G_END_DECLS
