/* The kernel applier reglocd uses: nl80211 user hints (sources/applier.c). */
#pragma once

#include "applier-iface.h"

G_BEGIN_DECLS

extern const RlApplierOps rl_nl80211_applier_ops;

G_END_DECLS
