/* Boundary lookup benchmark (not a test): bench/README.md explains the run.
 *
 *   boundary-bench OUTDIR [SOURCE.geo.json]
 *
 * Writes two fixed point sets to OUTDIR (uniform on the sphere; near a
 * border: a random vertex of the source data moved up to ~1 km), times
 * rl_boundary_lookup (and rl_boundary_lookup_country, which skips the
 * border distance) on one core, writes its answers next to the points for
 * bench/country-coder-bench.mjs, and reports the index's resident memory
 * after a million random lookups. */
#include "geo/boundary.h"
#include "tools/boundary-gen/boundary-source.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define N_UNIFORM 1000000
#define N_NEAR 200000
#define SEED 42

typedef struct { double lat, lon; } Point;

static Point *
uniform_points (GRand *rand, guint n)
{
  Point *p = g_new (Point, n);
  for (guint i = 0; i < n; i++)
    {
      p[i].lat = asin (g_rand_double_range (rand, -1, 1)) * 180 / G_PI;
      p[i].lon = g_rand_double_range (rand, -180, 180);
    }
  return p;
}

static Point *
near_points (GRand *rand, const RlBsrc *src, guint n)
{
  Point *p = g_new (Point, n);
  for (guint i = 0; i < n; i++)
    {
      gsize k;
      double lat, lon;
      do
        k = (gsize) g_rand_int_range (rand, 0, (gint32) src->n_pts);
      while (src->feat[k] < 0);
      lat = src->pts[k].y + g_rand_double_range (rand, -0.01, 0.01);
      lon = src->pts[k].x + g_rand_double_range (rand, -0.01, 0.01);
      p[i].lat = CLAMP (lat, -90, 90);
      p[i].lon = CLAMP (lon, -180, 180);
    }
  return p;
}

static double
time_lookups (const RlBoundaryIndex *index, const Point *p, guint n, RlBoundaryResult *out)
{
  gint64 t0, t1;
  guint rounds = 0;

  /* Repeat for at least a second so the clock's resolution does not matter. */
  t0 = g_get_monotonic_time ();
  do
    {
      for (guint i = 0; i < n; i++)
        rl_boundary_lookup (index, p[i].lat, p[i].lon, &out[i]);
      rounds++;
      t1 = g_get_monotonic_time ();
    }
  while (t1 - t0 < G_USEC_PER_SEC && rounds < 20);
  return (double) (t1 - t0) * 1000.0 / ((double) n * rounds);
}

/* The same, country only (rl_boundary_lookup_country); the answers must
 * be the countries of out. */
static double
time_country (const RlBoundaryIndex *index, const Point *p, guint n, const RlBoundaryResult *out)
{
  g_autofree RlCountry *c = g_new (RlCountry, n);
  gint64 t0, t1;
  guint rounds = 0;

  t0 = g_get_monotonic_time ();
  do
    {
      for (guint i = 0; i < n; i++)
        rl_boundary_lookup_country (index, p[i].lat, p[i].lon, &c[i]);
      rounds++;
      t1 = g_get_monotonic_time ();
    }
  while (t1 - t0 < G_USEC_PER_SEC && rounds < 20);
  for (guint i = 0; i < n; i++)
    if (c[i] != out[i].country)
      g_error ("country-only lookup differs at %.7f %.7f", p[i].lat, p[i].lon);
  return (double) (t1 - t0) * 1000.0 / ((double) n * rounds);
}

static void
write_set (const char *dir, const char *name, const Point *p, const RlBoundaryResult *r, guint n)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.points", dir, name);
  g_autofree char *apath = g_strdup_printf ("%s/%s.regloc", dir, name);
  FILE *f = fopen (path, "w"), *a = fopen (apath, "w");

  if (f == NULL || a == NULL)
    g_error ("cannot write %s", path);
  for (guint i = 0; i < n; i++)
    {
      char cc[3];
      fprintf (f, "%.7f %.7f\n", p[i].lat, p[i].lon);
      fprintf (a, "%s\t%.0f\n", rl_country_to_string (r[i].country, cc), r[i].border_m);
    }
  fclose (f);
  fclose (a);
}

/* Resident size of the index mapping, from /proc/self/smaps. */
static long
mapping_rss_kb (const char *path)
{
  g_autofree char *smaps = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *real = realpath (path, NULL);
  long rss = -1;
  gboolean in = FALSE;

  if (real == NULL || !g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL))
    return -1;
  lines = g_strsplit (smaps, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (g_ascii_isxdigit (lines[i][0]) && strchr (lines[i], '-'))
        in = g_str_has_suffix (lines[i], real);
      else if (in && g_str_has_prefix (lines[i], "Rss:"))
        rss = MAX (rss, 0) + atol (lines[i] + 4);
    }
  return rss;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RlBoundaryIndex) index = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED);
  const char *path = rl_boundary_index_default_path ();
  const char *dir;
  Point *uni, *near = NULL, *rss_pts;
  RlBoundaryResult *res;
  double ns;
  gint64 t0;
  GStatBuf st;

  if (argc < 2 || argc > 3)
    {
      g_printerr ("usage: boundary-bench OUTDIR [SOURCE.geo.json]\n");
      return 2;
    }
  dir = argv[1];
  g_mkdir_with_parents (dir, 0755);

  t0 = g_get_monotonic_time ();
  index = rl_boundary_index_open (path, &error);
  if (index == NULL)
    {
      g_printerr ("boundary-bench: %s\n", error->message);
      return 1;
    }
  g_print ("index: %s, %ld bytes, opened (checksum verified) in %.1f ms\n", path,
           g_stat (path, &st) == 0 ? (long) st.st_size : -1L, (g_get_monotonic_time () - t0) / 1000.0);
  g_print ("index RSS right after open: %ld kB\n", mapping_rss_kb (path));

  /* Resident memory first, before the timed runs touch anything else. */
  rss_pts = uniform_points (rand, N_UNIFORM);
  res = g_new (RlBoundaryResult, N_UNIFORM);
  for (guint i = 0; i < N_UNIFORM; i++)
    rl_boundary_lookup (index, rss_pts[i].lat, rss_pts[i].lon, &res[i]);
  g_print ("index RSS after %d random lookups: %ld kB\n", N_UNIFORM, mapping_rss_kb (path));
  g_free (rss_pts);

  uni = uniform_points (rand, N_UNIFORM);
  ns = time_lookups (index, uni, N_UNIFORM, res);
  g_print ("uniform: %d points, %.1f ns/lookup, %.2f M lookups/s\n", N_UNIFORM, ns, 1000.0 / ns);
  ns = time_country (index, uni, N_UNIFORM, res);
  g_print ("uniform, country only: %d points, %.1f ns/lookup, %.2f M lookups/s\n", N_UNIFORM, ns, 1000.0 / ns);
  write_set (dir, "uniform", uni, res, N_UNIFORM);

  if (argc == 3)
    {
      RlBsrc *src = rl_bsrc_load (argv[2]);
      near = near_points (rand, src, N_NEAR);
      ns = time_lookups (index, near, N_NEAR, res);
      g_print ("near-border: %d points, %.1f ns/lookup, %.2f M lookups/s\n", N_NEAR, ns, 1000.0 / ns);
      ns = time_country (index, near, N_NEAR, res);
      g_print ("near-border, country only: %d points, %.1f ns/lookup, %.2f M lookups/s\n", N_NEAR, ns,
               1000.0 / ns);
      write_set (dir, "near", near, res, N_NEAR);
    }
  g_free (uni);
  g_free (near);
  g_free (res);
  return 0;
}
