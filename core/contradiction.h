/* Moving platforms and remembered contradictions (issue 10, items 4-5).
 *
 * Pure functions of the evidence and the previous decision, used by the
 * policy so that the daemon and a replay judge them the same way:
 *
 * - airborne: the GPS says the machine is high and fast (an aircraft);
 * - suspects: access points that a good GPS fix contradicted (it placed the
 *   machine far inside another country, or in flight).  They stay suspect
 *   — no witness for the country they name — for as long as they are still
 *   heard, even once the fix has aged out or was lost indoors; a good fix
 *   in the country they name clears them. */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "core/policy.h"

G_BEGIN_DECLS

typedef struct {
  char key[48];           /* the beacon item's key */
  RlCountry named;        /* the country it named when contradicted */
  gint64 heard_at;        /* when it was last heard */
} RlSuspect;

/* Is @gps (a live, trusted GPS item) high and fast enough to be in flight? */
gboolean rl_gps_is_airborne (const RlPolicyParams *params, const RlEvidence *gps);

/* The GPS item that may contradict access points: the newest live, trusted
 * fix within gps_max_error, or NULL. */
const RlEvidence *rl_contradiction_gps (const RlPolicyParams *params, const RlEvidence *ev, gsize n, gint64 now);

/* Does the country @named by an AP agree with the country @gps_country of
 * a fix?  The caller's regulatory view: same code after mapping. */
typedef gboolean (*RlAgreeFunc) (RlCountry named, RlCountry gps_country, gpointer user_data);

/* The suspects after this instant (sorted by key): those of @previous
 * (RlSuspect, may be NULL) whose beacon is still live and names the same
 * country, plus every live beacon the fix of rl_contradiction_gps()
 * contradicts now (it is inside one country, or airborne), minus those it
 * confirms.  A fix near a border (two countries) or at sea contradicts
 * nothing.  A suspect whose beacon went (two scans missed its faint 5 GHz
 * radio) is remembered until max_age_beacons after it was last heard, so
 * that heard again it is still suspect. */
GArray *rl_contradiction_update (const RlPolicyParams *params, RlAgreeFunc agree, gpointer agree_data,
                                 const GArray *previous, const RlEvidence *ev, gsize n, gint64 now);

gboolean rl_contradiction_is_suspect (const GArray *suspects, const RlEvidence *beacon);

G_END_DECLS
