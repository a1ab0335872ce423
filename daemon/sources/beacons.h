/* The live beacon source: Country elements of every BSS the radios hear,
 * from nl80211 scan results (docs/design.md §3). */
#pragma once

#include "daemon/sources/source.h"
#include "readers/nl80211-scan.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_beacons_source_ops;

/* For `regloc record`: @bss_func sees every newly heard BSS, with or
 * without a Country element; @done_func each completed scan after its
 * results, with the channels it covered (@n_freqs 0: the kernel did not
 * list them) and the loudest globally administered BSS it heard sending no
 * usable country (100 * dBm; 0: none).  Times are wall time in µs. */
typedef void (*RlBeaconsScanFunc) (const char *ifname, const RlScanBss *bss, gint64 observed_at, gpointer user_data);
typedef void (*RlBeaconsScanDoneFunc) (const char *ifname, const guint32 *freqs, guint n_freqs, gint64 done_at,
                                       gint32 silent_mbm, gpointer user_data);
void rl_beacons_set_scan_observer (RlSource *source, RlBeaconsScanFunc bss_func, RlBeaconsScanDoneFunc done_func,
                                   gpointer user_data);

/* Number of BSSes in the table (with and without a usable Country element). */
guint rl_beacons_n_bss (RlSource *source);

G_END_DECLS
