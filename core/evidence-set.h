/* The current evidence: items keyed by RlEvidence.key, newest wins.
 * Pure data structure (no clock, no I/O); the daemon and replay own one. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

typedef struct RlEvidenceSet RlEvidenceSet;

/* @max_per_kind caps the items of one source kind (0 = no cap); when full
 * the oldest item of that kind is evicted — for beacons the oldest of the
 * largest BSSID group (rl_bssid_eviction_group) — so memory stays bounded
 * under a flood of beacons and the flood displaces only itself. */
RlEvidenceSet *rl_evidence_set_new (guint max_per_kind);
void rl_evidence_set_free (RlEvidenceSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlEvidenceSet, rl_evidence_set_free)

/* Puts @ev, replacing the item with the same key.  GPS items go through
 * the limits of rl_evidence_set_set_gps_limits() first; returns FALSE when
 * the item was not taken (a worse fix within the window of a better one). */
gboolean rl_evidence_set_put (RlEvidenceSet *set, const RlEvidence *ev);

/* Freshness rules of GPS fixes, the same for the daemon and a replay (both
 * put every fix through here).  0 disables either rule (the default).
 * - @best_window_s: a fix with a larger error radius does not replace a
 *   better one observed less than this before it.
 * - @max_speed_kmh: a fix further from the last trusted fix than this speed
 *   allows in the time between them (plus both error radii) is stored with
 *   RL_GPS_INFO_UNTRUSTED, and does not move the trusted position.  The
 *   trusted position outlives a lost fix and a resume: a receiver that
 *   comes back spoofed is caught too. */
void rl_evidence_set_set_gps_limits (RlEvidenceSet *set, guint best_window_s, double max_speed_kmh);
/* A receiver standing still (speed ≤ @still_speed_kmh, at this fix and the
 * last trusted one, less than @window_s apart) does not cross a border: a
 * fix in another country beyond both error radii is untrusted (multipath).
 * 0 km/h turns it off. */
void rl_evidence_set_set_gps_still (RlEvidenceSet *set, double still_speed_kmh, guint window_s);
/* How many GPS fixes the limits kept out (worse within the window) and
 * marked untrusted, since the set was made. */
void rl_evidence_set_gps_limit_counts (const RlEvidenceSet *set, guint64 *kept_out, guint64 *untrusted);

/* Access points that ride along with the machine (docs/policy.md rule
 * 4c): a device (first five BSSID octets, globally administered) heard
 * without a break for @window_s, while at least MAX (@min_lost, twice the
 * number of devices heard that long) other devices were lost in the last
 * three windows — counted by network (OUI and SSID: a train passing a
 * platform is one), two of them first heard after it and lost within a
 * window (they came and went) —
 * and no other device first heard a window ago or earlier is heard now
 * with a gap, is marked RL_BEACON_INFO_RIDES_ALONG.  The mark stays while
 * the device is heard without a break, also where the machine stops,
 * until nothing was lost for 24 windows.  0 turns it off (the default). */
void rl_evidence_set_set_ride_along (RlEvidenceSet *set, guint window_s, guint min_lost);
/* Judges the marks above at @now; TRUE when a mark changed. */
gboolean rl_evidence_set_update_riders (RlEvidenceSet *set, gint64 now);

/* Great-circle metres between two positions in degrees. */
double rl_distance_m (double lat1, double lon1, double lat2, double lon2);

gboolean rl_evidence_set_remove (RlEvidenceSet *set, const char *key);
guint rl_evidence_set_remove_kind (RlEvidenceSet *set, RlSourceKind kind);
/* Drops items that have expired at @now; returns how many. */
guint rl_evidence_set_expire (RlEvidenceSet *set, gint64 now);
/* A scan covering @bands (RlBand mask, or RL_BANDS_ANY) that began at
 * @since did not hear the beacons observed before @since on those bands:
 * those that RL_SCANS_MISSED_GONE such scans in a row missed are gone.
 * Returns how many were dropped; *@n_once (may be NULL) counts those of
 * them one scan only had heard (rl_beacon_heard_once). */
guint rl_evidence_set_drop_unheard (RlEvidenceSet *set, gint64 since, guint bands, guint *n_once);
/* After resume: drops GPS and beacon observations made before @time. */
guint rl_evidence_set_drop_observed_before (RlEvidenceSet *set, gint64 time);
const RlEvidence *rl_evidence_set_items (const RlEvidenceSet *set, gsize *n_items);
const RlEvidence *rl_evidence_set_lookup (const RlEvidenceSet *set, const char *key);
guint rl_evidence_set_count_kind (const RlEvidenceSet *set, RlSourceKind kind);
/* Earliest expires_at of any item, or RL_NEVER. */
gint64 rl_evidence_set_next_expiry (const RlEvidenceSet *set);

G_END_DECLS
