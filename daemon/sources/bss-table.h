/* What the beacon source remembers per BSSID: when it was last heard and
 * whether it gave evidence.  Turns scan results into put/withdraw calls on
 * the source, ages entries out and keeps the table under its cap.
 * No I/O: the time comes in as @now, so tests drive it. */
#pragma once

#include "daemon/sources/source.h"
#include "readers/nl80211-scan.h"

G_BEGIN_DECLS

typedef struct RlBssTable RlBssTable;

RlBssTable *rl_bss_table_new (RlSource *owner, guint max_age_s, guint max_bss);
void rl_bss_table_free (RlBssTable *table);

/* One BSS of a scan dump, heard @bss->seen_ms_ago before @now (µs, wall
 * time).  Returns TRUE when it is a new observation (not the cached entry
 * of an earlier dump) and then sets @observed_at. */
gboolean rl_bss_table_observe (RlBssTable *table, const RlScanBss *bss, gint64 now, gint64 *observed_at);
/* A scan has completed and its results were dumped (observe() for each):
 * it began at @scan_start (µs, wall time) and listened on @freqs (MHz,
 * NL80211_ATTR_SCAN_FREQUENCIES; @n_freqs 0 when the kernel did not say:
 * then the bands on which it heard anything since @scan_start).  An entry
 * it covered and did not hear is gone: withdrawn and forgotten at once,
 * not left to age out over max_age.  Returns how many went. */
guint rl_bss_table_scan_done (RlBssTable *table, gint64 scan_start, const guint32 *freqs, guint n_freqs);
/* The loudest globally administered entry heard since @scan_start that
 * sends no usable country (rl_keep_silent ()): 100 * dBm, 0 when none. */
gint32 rl_bss_table_loudest_silent (const RlBssTable *table, gint64 scan_start);
/* Drops (and withdraws) entries not heard for max_age. */
void rl_bss_table_prune (RlBssTable *table, gint64 now);

guint rl_bss_table_size (const RlBssTable *table);
guint rl_bss_table_n_with_country (const RlBssTable *table);

G_END_DECLS
