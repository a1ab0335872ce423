/* libFuzzer target: the boundary index file.  The daemon mmaps it and
 * trusts nothing in it past the checksum; the same checks run here over a
 * copy in memory exactly as long as the input.  The checksum and the size
 * field are made to match the mutated bytes (as a buggy generator or a
 * deliberate forgery would), so the fuzzer gets past them to the offsets,
 * the grid, the nodes and the leaves; then it looks up points all over the
 * seed index's area (fuzz/data/boundary-seed.geo.json) and the world, with
 * and without the distance and the neighbour, and reads the chains of the
 * seed's area as the maps do. */
#include <stddef.h>
#include "fuzz/fuzz-common.h"
#include "geo/boundary.h"
#include "geo/boundary-format.h"

static void
lookup (const RlBoundaryIndex *index, double lat, double lon)
{
  RlBoundaryResult r;
  RlCountry c;

  if (rl_boundary_lookup_distance (index, lat, lon, &r))
    g_assert (r.border_m >= 0 && r.border_m <= RL_BOUNDARY_EXACT_M && r.neighbour == RL_COUNTRY_NONE);
  (void) rl_boundary_lookup_country (index, lat, lon, &c);
  if (!rl_boundary_lookup (index, lat, lon, &r))
    return;
  g_assert (r.border_m >= 0 && r.border_m <= RL_BOUNDARY_EXACT_M);
}

static void
chain (RlCountry country, const double *lonlat, guint n_points, gpointer user_data)
{
  g_assert (n_points >= 2 && lonlat != NULL);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  static const double points[][2] = {
    { 49.5, 6.9 }, { 49.8, 6.1 }, { 49.2, 5.2 }, { 49.4, 6.65 }, { 42.2, 9.0 }, { 49.0, 6.0 },
    { 49.6, 6.0 }, { 50.1, 6.2 }, { 0.0, 0.0 }, { 90.0, 180.0 }, { -90.0, -180.0 }, { 12.5, -179.999 },
  };
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *copy = g_memdup2 (data, size);

  if (size >= sizeof (RlBidxHeader))
    {
      RlBidxHeader *h = (RlBidxHeader *) copy;

      h->file_size = size;
      h->checksum = rl_bidx_checksum (copy, size);
    }
  g_autoptr (GBytes) bytes = g_bytes_new_static (copy, size);
  g_autoptr (RlBoundaryIndex) index = rl_boundary_index_new_from_bytes (bytes, "fuzz.idx", &error);
  if (index == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    lookup (index, points[i][0], points[i][1]);
  /* a 6 x 6 sweep over the seed's countries and the sea around them */
  for (guint i = 0; i < 6; i++)
    for (guint j = 0; j < 6; j++)
      lookup (index, 48.4 + 0.35 * i, 4.4 + 0.6 * j);
  /* the maps' reading of the leaves (the same reader as the lookups') */
  (void) rl_boundary_foreach_chain (index, 48.0, 4.0, 51.0, 8.0, chain, NULL);
  return 0;
}
