/* Who may do what: one table, deny by default, polkit asked asynchronously.
 *
 * Every method of the interface is listed in auth.c with the polkit action
 * it needs (or none: reading is open).  A method missing from the table is
 * refused.  polkit is asked on the daemon's own connection, so a daemon on
 * a private test bus talks to the polkit mock on that bus. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* @allowed: the caller may have what it asked for.  @error: why not (a
 * RL_BUS_ERROR, ready to return), NULL when allowed. */
typedef void (*RlAuthCallback) (GDBusMethodInvocation *invocation, gboolean allowed,
                                const GError *error, gpointer user_data);

/* Looks up the invocation's method in the table and answers through
 * @callback (maybe before returning, for open methods).  The
 * allow-interactive-authorization flag of the message is passed on to polkit. */
void rl_auth_check (GDBusMethodInvocation *invocation, RlAuthCallback callback, gpointer user_data);

/* The action a method needs; NULL for open methods, and *@known FALSE for
 * methods missing from the table.  For tests and documentation. */
const char *rl_auth_action_for (const char *method, gboolean *known);

G_END_DECLS
