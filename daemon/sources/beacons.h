/* The live beacon source: Country elements of every BSS the radios hear,
 * from nl80211 scan results (docs/design.md §3). */
#pragma once

#include "daemon/sources/source.h"
#include "readers/nl80211-scan.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_beacons_source_ops;

/* Sees every newly heard BSS, with or without a Country element (for
 * `regloc record`).  @observed_at is wall time in µs. */
typedef void (*RlBeaconsScanFunc) (const char *ifname, const RlScanBss *bss, gint64 observed_at, gpointer user_data);
void rl_beacons_set_scan_observer (RlSource *source, RlBeaconsScanFunc func, gpointer user_data);

/* Number of BSSes in the table (with and without a usable Country element). */
guint rl_beacons_n_bss (RlSource *source);

G_END_DECLS
