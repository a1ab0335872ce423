/* Boundary lookup internals that the tests check (not for other callers). */
#pragma once

#include "geo/boundary.h"

G_BEGIN_DECLS

/* rl_boundary_lookup () without any shortcut: every lookup runs the full
 * distance search, ignoring the index's far/own flags.  The answers must be
 * identical to rl_boundary_lookup ()'s; it is slow. */
gboolean rl_boundary_lookup_searching (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out);

G_END_DECLS
