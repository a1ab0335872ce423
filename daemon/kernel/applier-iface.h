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

/* One wiphy as the kernel describes it (docs/dbus-api.md, "Radios"). */
typedef struct {
  char name[32];            /* "phy0" */
  char driver[32];          /* "iwlwifi", "mac80211_hwsim"; "" unknown */
  gboolean self_managed;    /* NL80211_ATTR_WIPHY_SELF_MANAGED_REG: the firmware keeps its own domain */
  char country[3];          /* self-managed: its own domain; else the global one; "" unknown */
  gboolean steerable;       /* a user hint (regloc's) reaches it: not self-managed */
} RlRadioInfo;

/* Whether two lists of radios say the same, field by field (never the
 * structs' bytes: their padding is nobody's). */
gboolean rl_radio_infos_equal (const RlRadioInfo *a, guint n_a, const RlRadioInfo *b, guint n_b);

/* What the applier knows of the kernel, handed over whole at each change. */
typedef struct {
  const char *alpha2;       /* the kernel's global domain ("DE", "00", "98", …; "" unknown) */
  gboolean reachable;       /* whether the kernel's regulatory interface can be reached at all */
  const char *status;       /* one line ("active; kernel DE; requested DE", …) */
  /* who set the global domain last: "regloc", "user", "driver", "core",
   * "country-ie"; "" before the first change seen (GET_REG does not say) */
  const char *set_by;
  const RlRadioInfo *radios;
  guint n_radios;
} RlKernelState;

typedef struct {
  void (*kernel_changed) (const RlKernelState *state, gpointer user_data);
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
