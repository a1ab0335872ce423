/* The kernel applier reglocd uses: nl80211 user hints (daemon/kernel/applier.c). */
#pragma once

#include "daemon/kernel/applier-iface.h"

G_BEGIN_DECLS

extern const RlApplierOps rl_nl80211_applier_ops;

G_END_DECLS
