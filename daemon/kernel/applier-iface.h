/* How the daemon hands a decided country to the kernel.
 *
 * A tiny seam so the nl80211 applier (daemon/kernel/applier.c) plugs into the
 * live loop with one line in daemon/daemon.c, and tests can count calls.
 * The applier reports the kernel's own domain back through the hooks
 * whenever it learns it (regulatory multicast events), never by polling. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

typedef struct {
  /* @alpha2: the kernel's domain ("DE", "00", "98", …; "" unknown);
   * @reachable: whether the kernel's regulatory interface can be reached at all;
   * @status: one line ("steerable", "phy0 self-managed: ignores user hints", …). */
  void (*kernel_changed) (const char *alpha2, gboolean reachable, const char *status, gpointer user_data);
  gpointer user_data;
} RlApplierHooks;

typedef struct {
  const char *name;
  /* Starts following the kernel; @apply FALSE (--no-apply, apply=false)
   * only watches.  NULL with @error when it cannot run at all: the daemon
   * says so once and keeps deciding and publishing. */
  gpointer (*create) (const RlApplierHooks *hooks, gboolean apply, GError **error);
  /* Sends the user hint for @country; FALSE with @error when refused. */
  gboolean (*apply) (gpointer applier, RlCountry country, GError **error);
  void (*free) (gpointer applier);
} RlApplierOps;

G_END_DECLS
