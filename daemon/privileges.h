/* Least privilege for reglocd: the daemon needs CAP_NET_ADMIN (to set the
 * regulatory domain over nl80211) and nothing else.
 *
 * Under systemd the unit's CapabilityBoundingSet= and NoNewPrivileges= do
 * this already; started by hand as root (or from a binary with file
 * capabilities) the daemon does it itself, first thing in main(). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RL_PRIVILEGES_ERROR (rl_privileges_error_quark ())
GQuark rl_privileges_error_quark (void);

typedef enum {
  RL_PRIVILEGES_ERROR_FAILED,
} RlPrivilegesError;

/* When the process is root or holds any capability beyond CAP_NET_ADMIN:
 * keeps CAP_NET_ADMIN (if it had it) in the permitted and effective sets,
 * empties the inheritable and ambient sets, removes every other capability
 * from the bounding set and sets no_new_privs, so nothing the daemon could
 * ever execute gains privileges either.  An unprivileged process is left
 * alone.  The uid stays what it was: root keeps owning its state directory.
 *
 * Capabilities are per thread: call it before any thread exists (before the
 * first GDBus connection or GTask).  What was dropped is logged.  FALSE with
 * @error when the kernel refuses a step; the daemon must not go on then. */
gboolean rl_privileges_drop (GError **error);

/* The capabilities of this thread as the kernel reports them (bit N =
 * capability N).  Exposed for tests and for the log line. */
typedef struct {
  guint64 effective, permitted, inheritable, bounding;
  gboolean no_new_privs;
} RlPrivileges;

gboolean rl_privileges_get (RlPrivileges *out, GError **error);
/* "cap_chown,cap_kill": the names of the bits of @mask; "none" when 0. */
char *rl_privileges_mask_to_string (guint64 mask);

G_END_DECLS
