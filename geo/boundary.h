/* Offline point → country lookup over the mmapped boundary index (docs/design.md §7).
 * The index is built from data/boundaries/ by the build; see
 * data/boundaries/SOURCE.md and geo/boundary-format.h. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_BOUNDARY_ERROR (rl_boundary_error_quark ())
GQuark rl_boundary_error_quark (void);

typedef enum {
  RL_BOUNDARY_ERROR_MISSING,   /* cannot open / mmap */
  RL_BOUNDARY_ERROR_CORRUPT,   /* bad magic, version, checksum or offsets */
} RlBoundaryError;

typedef struct RlBoundaryIndex RlBoundaryIndex;

/* border_m is exact (to the index's resolution) below this distance; a
 * point with no border nearer than this reports exactly this value, which
 * then means "at least this far" (and neighbour is RL_COUNTRY_NONE). */
#define RL_BOUNDARY_EXACT_M 5000.0

/* The source data leaves thin gaps between countries that share a border
 * (rivers, bridges, tripoints, where two polygons do not quite touch) and
 * holes inside land.  A point that no disc of this radius lying wholly
 * outside every country can hold (so: in a gap narrower than about twice
 * this, or within reach of one) is a border area, never open sea. */
#define RL_BOUNDARY_GAP_M 300.0

typedef struct {
  RlCountry country;       /* ISO 3166-1 alpha-2, or RL_COUNTRY_NONE (international waters) */
  double border_m;         /* distance to the nearest border with another country or the edge of the waters */
  RlCountry neighbour;     /* the country across that border; RL_COUNTRY_NONE = open sea */
  /* TRUE when the point lies in a gap or hole of the source data: country is
   * the nearest country around it, neighbour the one across the gap (or
   * RL_COUNTRY_NONE when only one country surrounds it), border_m is 0. */
  gboolean border_area;
} RlBoundaryResult;

/* The installed index, or the one $REGLOC_DATADIR names (core/paths.h);
 * $REGLOC_BOUNDARY_INDEX wins.  An interned string. */
const char *rl_boundary_index_default_path (void);
RlBoundaryIndex *rl_boundary_index_open (const char *path, GError **error);

typedef enum {
  RL_BOUNDARY_OPEN_DEFAULT = 0,
  /* Check the header, sections and feature table only; the checksum over
   * the whole file and the grid and node entries are left to
   * rl_boundary_index_verify ().  Lookups are safe before it (every read of
   * the index is bounded on its own) but their answers are not to be given
   * out until it returned TRUE.  For a bulk run that verifies on one
   * thread while it reads its input on another. */
  RL_BOUNDARY_OPEN_VERIFY_LATER = 1 << 0,
} RlBoundaryOpenFlags;

RlBoundaryIndex *rl_boundary_index_open_full (const char *path, RlBoundaryOpenFlags flags, GError **error);
/* The checks RL_BOUNDARY_OPEN_VERIFY_LATER left out (TRUE at once when they
 * were done).  It only reads the index: it may run on one thread while
 * others look up. */
gboolean rl_boundary_index_verify (RlBoundaryIndex *index, GError **error);
/* Maps every page of a file-backed index at once, for a caller about to
 * read most of it (a bulk lookup): one call instead of a page fault at a
 * time.  Only a hint; it may run on one thread while others look up. */
void rl_boundary_index_populate (RlBoundaryIndex *index);
/* The same checks over an index in memory (@name for messages); the fuzz
 * target uses it so a read past the end is caught at the exact byte. */
RlBoundaryIndex *rl_boundary_index_new_from_bytes (GBytes *bytes, const char *name, GError **error);
void rl_boundary_index_free (RlBoundaryIndex *index);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlBoundaryIndex, rl_boundary_index_free)

/* FALSE for coordinates out of range (|lat| > 90, |lon| > 180, NaN). */
gboolean rl_boundary_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out);
/* rl_boundary_lookup () without the neighbour: the same country, border_m
 * and border_area, neighbour always RL_COUNTRY_NONE.  Cheaper along coasts,
 * where naming the country across the edge of the waters (open sea, or a
 * neighbour across a gap of the source data) takes another search.  FALSE
 * as for rl_boundary_lookup. */
gboolean rl_boundary_lookup_distance (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out);
/* The country alone (the same answer as rl_boundary_lookup's), without the
 * search for the nearest border: for callers that have no use for the
 * distance.  FALSE as for rl_boundary_lookup. */
gboolean rl_boundary_lookup_country (const RlBoundaryIndex *index, double lat, double lon, RlCountry *country);

/* Many points at once (lat and lon interleaved in @latlon): for each,
 * ok[i], country[i] and border_m[i] are what rl_boundary_lookup_distance ()
 * returns and gives as country and border_m (border_m NULL: what
 * rl_boundary_lookup_country () gives, without the distance search).
 * Faster than one call a point when consecutive points lie near each
 * other (sorted along the index's quadtree): the walks down the tree of
 * several points are interleaved so that their cache misses overlap. */
void rl_boundary_lookup_many (const RlBoundaryIndex *index, gsize n, const double *latlon, RlCountry *country,
                              double *border_m, gboolean *ok);

/* One chain of border edges as the index stores it: @n_points points, lon
 * and lat interleaved in @lonlat, on the border of @country's feature
 * (chains are clipped to the index's leaves, so a border comes in pieces,
 * to the index's resolution). */
typedef void (*RlBoundaryChainFunc) (RlCountry country, const double *lonlat, guint n_points, gpointer user_data);
/* Calls @func with every chain in the leaves that overlap the box (for
 * drawing maps; lookups do not use it).  FALSE when the index is corrupt. */
gboolean rl_boundary_foreach_chain (const RlBoundaryIndex *index, double south, double west, double north, double east,
                                    RlBoundaryChainFunc func, gpointer user_data);

G_END_DECLS
