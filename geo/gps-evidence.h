/* A GPS fix judged as evidence (docs/design.md §3, gps row): which countries it
 * supports, how sure it is, and the words people read. */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "core/config.h"
#include "geo/boundary.h"
#include "core/gps-fix.h"

G_BEGIN_DECLS

/* rl_boundary_lookup's shape: callers pass it; tests pass a fake that
 * places points without an index. */
typedef gboolean (*RlGpsLookupFunc) (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out);

typedef struct {
  RlGpsLookupFunc lookup;
  const RlBoundaryIndex *index; /* handed to @lookup */
  double uere_m;             /* error radius = HDOP × UERE when no eph/epx/epy */
  double border_margin_m;    /* name the neighbour within error + margin */
  guint max_age_s;           /* lifetime of the evidence, 0 = never expires */
  /* A fix with no accuracy at all (GPX without <hdop>, GLL alone, a gpsd
   * TPV without eph/epx/epy and no SKY) is no ten-metre fix: it gets this
   * radius ([gps] unknown_error). */
  double unknown_error_m;
} RlGpsEvidenceParams;

/* Thresholds from @config; @lookup is normally rl_boundary_lookup. */
void rl_gps_evidence_params_init (RlGpsEvidenceParams *params, const RlConfig *config,
                                  RlGpsLookupFunc lookup, const RlBoundaryIndex *index);

/* The horizontal error radius in metres: the receiver's estimate, else
 * HDOP × @uere_m, else @unknown_error_m with @assumed set. */
double rl_gps_fix_error_m (const RlGpsFix *fix, double uere_m, double unknown_error_m, gboolean *assumed);

/* Successive fixes of one receiver are close together: a point within a
 * tenth of the previous one's border distance lies in the same country (the
 * border distance bounds the disc around it), so the lookup is skipped and
 * the border distance carried over as a lower bound (previous − moved) —
 * only while that bound lies beyond the fix's error radius plus the border
 * margin, where it decides the same as the distance would; the text then
 * says "more than".
 * Zero-initialise one per stream of fixes; NULL disables it. */
typedef struct {
  gboolean valid;
  double lat, lon;
  RlBoundaryResult result;
  guint64 lookups, reused;
} RlGpsLookupCache;

/* Fills @ev (kind gps, key "gps") for a fix observed at @observed_at (µs since
 * the epoch).  FALSE when the lookup refuses the coordinates. */
gboolean rl_gps_evidence_from_fix (const RlGpsEvidenceParams *params, const RlGpsFix *fix,
                                   gint64 observed_at, RlEvidence *ev);
gboolean rl_gps_evidence_from_fix_cached (const RlGpsEvidenceParams *params, RlGpsLookupCache *cache,
                                          const RlGpsFix *fix, gint64 observed_at, RlEvidence *ev);

G_END_DECLS
