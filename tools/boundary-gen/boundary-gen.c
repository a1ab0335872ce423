/* boundary-gen: turns the country-boundary GeoJSON (data/boundaries/) into
 * the binary index that geo/boundary.c mmaps.  Layout: boundary-format.h.
 *
 *   boundary-gen INPUT.geo.json OUTPUT.idx [SOURCE-NAME]
 *
 * The reader (boundary-source.c) is hand-written for this one file: it
 * keeps the build at a few seconds where a json-glib tree of two million
 * positions would need about a gigabyte. */
#include "geo/boundary-format.h"
#include "tools/boundary-gen/boundary-source.h"
#include "tools/boundary-gen/leaf-flags.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FEATURES RL_BSRC_MAX_FEATURES
#define RL_PI 3.14159265358979323846
/* A leaf holds at most this many edges, unless the depth limit is hit. */
#define LEAF_MAX_EDGES 24

typedef RlBsrcPt Pt;

static const RlBsrcPt *pts;
static const int32_t *pt_feat;
static size_t n_pts;
static const RlBsrcFeature *feats;
static unsigned n_feats;

#define fail rl_bsrc_fail
#define xrealloc rl_bsrc_realloc

static uint32_t *nodes;
static size_t n_nodes, cap_nodes;
static uint16_t *leaves;
static size_t n_leaves, cap_leaves;
static uint32_t *grid;
/* The country of each feature (by rank), for the inner flags. */
static uint16_t code_of[MAX_FEATURES];
static unsigned long n_mirror_chains, n_inner_chains;
/* Leaves with more edges (only at the depth limit) are not searched for
 * inner chains: the test is quadratic in the edges. */
#define INNER_MAX_EDGES 96

/* Which cells of a fine raster hold an edge: a quick, conservative proof
 * that a box is far from every edge (no edge within RL_BIDX_FAR_M); where
 * it cannot tell, edge_near () measures the edges themselves. */
#define RASTER_BITS 13
#define RASTER_N (1u << RASTER_BITS)
static uint8_t *raster;   /* one bit per cell */
#define RASTER_GET(ix, iy) (raster[((size_t) (iy) * RASTER_N + (size_t) (ix)) >> 3] & (1u << (((size_t) (ix)) & 7)))
/* Uniform cells near an edge are split down to this depth so that the
 * parts that are far from it still get the flag. */
#define FAR_SPLIT_DEPTH 10
/* Border leaves (edges inside) are at least this deep, so that a sparse
 * edge in a big cell does not make every point of the cell search. */
#define LEAF_MIN_DEPTH 10

/* ---- geometry --------------------------------------------------------- */

typedef struct { double x0, y0, x1, y1; } Box;

/* Liang–Barsky: clips segment a→b to box; FALSE if it misses. */
static bool
clip (Pt a, Pt b, Box box, double *t0, double *t1)
{
  double dx = b.x - a.x, dy = b.y - a.y;
  double p[4] = { -dx, dx, -dy, dy };
  double q[4] = { a.x - box.x0, box.x1 - a.x, a.y - box.y0, box.y1 - a.y };
  *t0 = 0;
  *t1 = 1;
  for (int i = 0; i < 4; i++)
    {
      if (p[i] == 0)
        {
          if (q[i] < 0)
            return false;
        }
      else
        {
          double r = q[i] / p[i];
          if (p[i] < 0)
            {
              if (r > *t1)
                return false;
              if (r > *t0)
                *t0 = r;
            }
          else
            {
              if (r < *t0)
                return false;
              if (r < *t1)
                *t1 = r;
            }
        }
    }
  return true;
}

/* Crossings of edge a→b with the horizontal segment y = sy, x in [xa, xb)
 * (either order) and the vertical x = sx, y in [ya, yb).  The half-open
 * rules match the reader's so parity is counted the same way. */
static bool
cross_h (Pt a, Pt b, double sy, double xa, double xb)
{
  double x;
  if ((a.y > sy) == (b.y > sy))
    return false;
  x = a.x + (sy - a.y) * (b.x - a.x) / (b.y - a.y);
  if (xa > xb)
    {
      double t = xa;
      xa = xb;
      xb = t;
    }
  return x >= xa && x < xb;
}

static bool
cross_v (Pt a, Pt b, double sx, double ya, double yb)
{
  double y;
  if ((a.x > sx) == (b.x > sx))
    return false;
  y = a.y + (sx - a.x) * (b.y - a.y) / (b.x - a.x);
  if (ya > yb)
    {
      double t = ya;
      ya = yb;
      yb = t;
    }
  return y >= ya && y < yb;
}

static double
seg_dist2 (Pt p, Pt a, Pt b, double sx)
{
  double ax = (a.x - p.x) * sx, ay = a.y - p.y, bx = (b.x - p.x) * sx, by = b.y - p.y;
  double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, t = 0;
  if (l2 > 0)
    t = fmin (1, fmax (0, -(ax * dx + ay * dy) / l2));
  ax += t * dx;
  ay += t * dy;
  return ax * ax + ay * ay;
}

/* ---- far-from-every-edge raster --------------------------------------- */

static void
raster_mark (double x, double y)
{
  long ix = (long) floor ((x + 180) / 360 * RASTER_N), iy = (long) floor ((y + 90) / 180 * RASTER_N);
  ix = ix < 0 ? 0 : ix >= (long) RASTER_N ? (long) RASTER_N - 1 : ix;
  iy = iy < 0 ? 0 : iy >= (long) RASTER_N ? (long) RASTER_N - 1 : iy;
  raster[((size_t) iy * RASTER_N + (size_t) ix) >> 3] |= (uint8_t) (1u << ((size_t) ix & 7));
}

static void
raster_build (void)
{
  double step = 180.0 / RASTER_N / 2;
  raster = calloc ((size_t) RASTER_N * RASTER_N / 8, 1);
  if (raster == NULL)
    fail ("out of memory");
  for (size_t i = 0; i + 1 < n_pts; i++)
    {
      Pt a = pts[i], b = pts[i + 1];
      double len;
      long n;
      if (pt_feat[i] < 0)
        continue;
      /* Samples closer than half a cell in latitude (a quarter in longitude)
       * touch every cell the edge crosses. */
      len = fmax (fabs (b.x - a.x), fabs (b.y - a.y));
      n = (long) ceil (len / step) + 1;
      for (long k = 0; k <= n; k++)
        raster_mark (a.x + (b.x - a.x) * k / n, a.y + (b.y - a.y) * k / n);
    }
}

/* No edge within RL_BIDX_FAR_M of any point of box?  Conservative: a
 * smaller Earth and the cosine at the latitude nearest a pole. */
static bool
far_from_edges (Box box)
{
  const double m_per_deg = 6350000.0 * RL_PI / 180;
  /* Every point of an edge is within half a sampling step of a marked sample. */
  double pad = 180.0 / RASTER_N / 4;
  double dlat = RL_BIDX_FAR_M / m_per_deg;
  double lat = fmin (90, fmax (fabs (box.y0), fabs (box.y1)) + dlat + pad);
  double c = cos (lat * RL_PI / 180), dlon = c > 1e-6 ? RL_BIDX_FAR_M / (m_per_deg * c) : 360;
  long iy0 = (long) floor ((box.y0 - dlat - pad + 90) / 180 * RASTER_N);
  long iy1 = (long) floor ((box.y1 + dlat + pad + 90) / 180 * RASTER_N);
  long ix0, ix1;

  if (dlon >= 180)
    {
      ix0 = 0;
      ix1 = RASTER_N - 1;
    }
  else
    {
      ix0 = (long) floor ((box.x0 - dlon - pad + 180) / 360 * RASTER_N);
      ix1 = (long) floor ((box.x1 + dlon + pad + 180) / 360 * RASTER_N);
    }
  iy0 = iy0 < 0 ? 0 : iy0;
  iy1 = iy1 >= (long) RASTER_N ? (long) RASTER_N - 1 : iy1;
  for (long iy = iy0; iy <= iy1; iy++)
    for (long i = ix0; i <= ix1 && i < ix0 + (long) RASTER_N; i++)
      {
        long ix = ((i % (long) RASTER_N) + (long) RASTER_N) % (long) RASTER_N;
        if (RASTER_GET (ix, iy))
          return false;
      }
  return true;
}

/* ---- exact distances to the edges -------------------------------------- */

/* The raster above only proves that a box is far; where it cannot, the
 * edges themselves are measured.  They are bucketed on a grid so a box
 * only looks at the edges around it. */
#define SEG_NX 4096u
#define SEG_NY 2048u
/* The reader's metres per degree (EARTH_M_PER_DEG in geo/boundary.c). */
#define READER_M_PER_DEG (6371008.8 * RL_PI / 180)
/* Covers the leaves' quantisation (under a metre at the shallowest leaf
 * depth) and rounding, so a flag never changes an answer. */
#define FLAG_MARGIN_M 25.0

static uint32_t *seg_start;   /* SEG_NX * SEG_NY + 1 offsets into seg_list */
static uint32_t *seg_list;    /* edge ids (index of the edge's first point) */

static void
seg_cells (Pt a, Pt b, long *x0, long *x1, long *y0, long *y1)
{
  *x0 = (long) floor ((fmin (a.x, b.x) + 180) / 360 * SEG_NX);
  *x1 = (long) floor ((fmax (a.x, b.x) + 180) / 360 * SEG_NX);
  *y0 = (long) floor ((fmin (a.y, b.y) + 90) / 180 * SEG_NY);
  *y1 = (long) floor ((fmax (a.y, b.y) + 90) / 180 * SEG_NY);
  *x0 = *x0 < 0 ? 0 : *x0 >= (long) SEG_NX ? (long) SEG_NX - 1 : *x0;
  *x1 = *x1 < 0 ? 0 : *x1 >= (long) SEG_NX ? (long) SEG_NX - 1 : *x1;
  *y0 = *y0 < 0 ? 0 : *y0 >= (long) SEG_NY ? (long) SEG_NY - 1 : *y0;
  *y1 = *y1 < 0 ? 0 : *y1 >= (long) SEG_NY ? (long) SEG_NY - 1 : *y1;
}

static void
segs_build (void)
{
  size_t n_cells = (size_t) SEG_NX * SEG_NY, total = 0;

  seg_start = calloc (n_cells + 1, sizeof *seg_start);
  if (seg_start == NULL)
    fail ("out of memory");
  for (int pass = 0; pass < 2; pass++)
    {
      for (size_t i = 0; i + 1 < n_pts; i++)
        {
          long x0, x1, y0, y1;
          if (pt_feat[i] < 0)
            continue;
          seg_cells (pts[i], pts[i + 1], &x0, &x1, &y0, &y1);
          for (long y = y0; y <= y1; y++)
            for (long x = x0; x <= x1; x++)
              {
                size_t c = (size_t) y * SEG_NX + (size_t) x;
                if (pass == 0)
                  seg_start[c + 1]++;
                else
                  seg_list[seg_start[c]++] = (uint32_t) i;
              }
        }
      if (pass == 0)
        {
          for (size_t c = 0; c < n_cells; c++)
            seg_start[c + 1] += seg_start[c];
          total = seg_start[n_cells];
          if (total > UINT32_MAX)
            fail ("too many edge buckets");
          seg_list = xrealloc (NULL, (total ? total : 1) * sizeof *seg_list);
        }
    }
  /* The fill pass moved every start to the next cell's; move them back. */
  memmove (seg_start + 1, seg_start, n_cells * sizeof *seg_start);
  seg_start[0] = 0;
}

#define MIND(a, b) ((a) < (b) ? (a) : (b))
#define MAXD(a, b) ((a) > (b) ? (a) : (b))

static double
pt_box_dist2 (double px, double py, double x0, double y0, double x1, double y1)
{
  double dx = px < x0 ? x0 - px : px > x1 ? px - x1 : 0;
  double dy = py < y0 ? y0 - py : py > y1 ? py - y1 : 0;
  return dx * dx + dy * dy;
}

static double
pt_seg_dist2 (double px, double py, double ax, double ay, double bx, double by)
{
  double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, t = 0;
  if (l2 > 0)
    t = MIND (1, MAXD (0, ((px - ax) * dx + (py - ay) * dy) / l2));
  ax += t * dx - px;
  ay += t * dy - py;
  return ax * ax + ay * ay;
}

/* Is segment a→b nearer to box than sqrt (r2) metres, with longitudes
 * scaled by kx and latitudes by ky (metres per degree)? */
static bool
box_seg_near (Box box, Pt a, Pt b, double kx, double ky, double r2)
{
  double t0, t1, d;
  double x0 = box.x0 * kx, x1 = box.x1 * kx, y0 = box.y0 * ky, y1 = box.y1 * ky;
  double ax = a.x * kx, ay = a.y * ky, bx = b.x * kx, by = b.y * ky;

  /* Apart, a box and a segment are nearest at a corner of one of them;
   * the distances between corners and the other shape are distances
   * between points of both, so never too small. */
  d = MIND (pt_box_dist2 (ax, ay, x0, y0, x1, y1), pt_box_dist2 (bx, by, x0, y0, x1, y1));
  d = MIND (d, pt_seg_dist2 (x0, y0, ax, ay, bx, by));
  d = MIND (d, pt_seg_dist2 (x1, y0, ax, ay, bx, by));
  d = MIND (d, pt_seg_dist2 (x0, y1, ax, ay, bx, by));
  d = MIND (d, pt_seg_dist2 (x1, y1, ax, ay, bx, by));
  if (d < r2)
    return true;
  /* Unless the segment crosses the box. */
  return clip (a, b, box, &t0, &t1);
}

/* Which edges lie within reach_m of some point of box, as the reader
 * measures distance (local metres at the query: longitude scaled by the
 * cosine of the query's latitude)?  NEAR_NONE: none; NEAR_INSIDE: only
 * pieces of edges inside the box `outside` (when given); NEAR_OUTSIDE:
 * some edge outside it, or any edge when outside is NULL.  The scale used
 * here is the smallest any query in box gets, so NEAR_NONE is a proof.
 * hint: edges likely to be near, tried first. */
enum { NEAR_NONE, NEAR_INSIDE, NEAR_OUTSIDE };

typedef struct {
  Box box;
  const Box *outside;
  double kx, ky, r2;
  int found;
} NearScan;

/* One bucket of edge_near (); column i may lie past the antimeridian. */
static int
near_bucket (NearScan *ns, long i, long iy)
{
  const Box box = ns->box, *outside = ns->outside;
  double kx = ns->kx, ky = ns->ky, r2 = ns->r2;
  long ix = ((i % (long) SEG_NX) + (long) SEG_NX) % (long) SEG_NX;
  /* Across the antimeridian the edges are moved by a turn, as the reader
   * moves a leaf there (wrap_lon). */
  double shift = (double) ((i - ix) / (long) SEG_NX) * 360;
  size_t c = (size_t) iy * SEG_NX + (size_t) ix;
  double cx0 = -180 + 360.0 * i / SEG_NX, cy0 = -90 + 180.0 * iy / SEG_NY;
  double cx1 = cx0 + 360.0 / SEG_NX, cy1 = cy0 + 180.0 / SEG_NY, gx, gy;

  /* A bucket out of reach holds nothing near (its edges that reach into
   * range are listed in other buckets too). */
  gx = MAXD (0, MAXD (cx0 - box.x1, box.x0 - cx1)) * kx;
  gy = MAXD (0, MAXD (cy0 - box.y1, box.y0 - cy1)) * ky;
  if (gx * gx + gy * gy >= r2)
    return NEAR_NONE;
  /* Every edge with a piece outside that box is also listed in a bucket
   * that reaches outside it. */
  if (outside != NULL && ns->found != NEAR_NONE && cx0 >= outside->x0 && cx1 <= outside->x1 &&
      cy0 >= outside->y0 && cy1 <= outside->y1)
    return NEAR_NONE;
  for (uint32_t k = seg_start[c]; k < seg_start[c + 1]; k++)
    {
      Pt a = pts[seg_list[k]], b = pts[seg_list[k] + 1];
      double t0, t1;
      a.x += shift;
      b.x += shift;
      /* Quick test on the edge's bounding box first. */
      gx = MAXD (0, MAXD (MIND (a.x, b.x) - box.x1, box.x0 - MAXD (a.x, b.x))) * kx;
      gy = MAXD (0, MAXD (MIND (a.y, b.y) - box.y1, box.y0 - MAXD (a.y, b.y))) * ky;
      if (gx * gx + gy * gy >= r2)
        continue;
      if (outside == NULL || !clip (a, b, *outside, &t0, &t1))
        {
          if (box_seg_near (box, a, b, kx, ky, r2))
            return NEAR_OUTSIDE;
          continue;
        }
      if (ns->found == NEAR_NONE)
        {
          if (!box_seg_near (box, a, b, kx, ky, r2))
            continue;
          ns->found = NEAR_INSIDE;
        }
      /* The pieces before and after the outside box. */
      if (t0 > 0)
        {
          Pt m = { a.x + t0 * (b.x - a.x), a.y + t0 * (b.y - a.y) };
          if (box_seg_near (box, a, m, kx, ky, r2))
            return NEAR_OUTSIDE;
        }
      if (t1 < 1)
        {
          Pt m = { a.x + t1 * (b.x - a.x), a.y + t1 * (b.y - a.y) };
          if (box_seg_near (box, m, b, kx, ky, r2))
            return NEAR_OUTSIDE;
        }
    }
  return NEAR_NONE;
}

static int
edge_near (Box box, const Box *outside, double reach_m, const uint32_t *hint, size_t n_hint)
{
  NearScan ns = { box, outside, 0, READER_M_PER_DEG, reach_m * reach_m, NEAR_NONE };
  double lat_far = fmin (90, fmax (fabs (box.y0), fabs (box.y1)));
  double dlat = reach_m / ns.ky, dlon;
  long iy0 = (long) floor ((box.y0 - dlat + 90) / 180 * SEG_NY);
  long iy1 = (long) floor ((box.y1 + dlat + 90) / 180 * SEG_NY);
  long jy0 = (long) floor ((box.y0 + 90) / 180 * SEG_NY), jy1 = (long) floor ((box.y1 + 90) / 180 * SEG_NY);
  long jx0 = (long) floor ((box.x0 + 180) / 360 * SEG_NX), jx1 = (long) floor ((box.x1 + 180) / 360 * SEG_NX);
  long ix0, ix1;

  ns.kx = ns.ky * cos (lat_far * RL_PI / 180);
  dlon = ns.kx > 1e-9 ? reach_m / ns.kx : 360;
  for (size_t k = 0; k < n_hint && ns.found == NEAR_NONE; k++)
    if (box_seg_near (box, pts[hint[k]], pts[hint[k] + 1], ns.kx, ns.ky, ns.r2))
      {
        if (outside == NULL)
          return NEAR_OUTSIDE;
        ns.found = NEAR_INSIDE;   /* which piece is near: the scan below tells */
      }
  if (dlon >= 180)
    {
      /* Near a pole: any longitude is within reach; count latitude only. */
      ns.kx = 0;
      ix0 = 0;
      ix1 = SEG_NX - 1;
    }
  else
    {
      ix0 = (long) floor ((box.x0 - dlon + 180) / 360 * SEG_NX);
      ix1 = (long) floor ((box.x1 + dlon + 180) / 360 * SEG_NX);
    }
  iy0 = iy0 < 0 ? 0 : iy0;
  iy1 = iy1 >= (long) SEG_NY ? (long) SEG_NY - 1 : iy1;
  jy0 = MAXD (jy0, iy0);
  jy1 = MIND (jy1, iy1);
  jx0 = MAXD (jx0, ix0);
  jx1 = MIND (jx1, ix1);
  /* The buckets under the box first: a near edge is most likely there. */
  for (long iy = jy0; iy <= jy1; iy++)
    for (long i = jx0; i <= jx1; i++)
      if (near_bucket (&ns, i, iy) == NEAR_OUTSIDE)
        return NEAR_OUTSIDE;
  for (long iy = iy0; iy <= iy1; iy++)
    for (long i = ix0; i <= ix1 && i < ix0 + (long) SEG_NX; i++)
      if (!(iy >= jy0 && iy <= jy1 && i >= jx0 && i <= jx1) && near_bucket (&ns, i, iy) == NEAR_OUTSIDE)
        return NEAR_OUTSIDE;
  return ns.found;
}

/* No edge within RL_BIDX_FAR_M of any point of box (as the reader measures)? */
static bool
far_exact (Box box)
{
  return far_from_edges (box) || edge_near (box, NULL, RL_BIDX_FAR_M + FLAG_MARGIN_M, NULL, 0) == NEAR_NONE;
}

/* ---- quadtree --------------------------------------------------------- */

static uint32_t
new_node (void)
{
  if (n_nodes + 1 > cap_nodes)
    {
      cap_nodes = cap_nodes ? cap_nodes * 2 : 65536;
      nodes = xrealloc (nodes, cap_nodes * 4 * sizeof *nodes);
    }
  return (uint32_t) n_nodes++;
}

static void
leaf_push (uint16_t v)
{
  if (n_leaves == cap_leaves)
    {
      cap_leaves = cap_leaves ? cap_leaves * 2 : 1 << 20;
      leaves = xrealloc (leaves, cap_leaves * sizeof *leaves);
    }
  leaves[n_leaves++] = v;
}

static int
cmp_edge (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  int32_t fx = feats[pt_feat[x]].rank, fy = feats[pt_feat[y]].rank;
  if (fx != fy)
    return fx < fy ? -1 : 1;
  return x < y ? -1 : x > y;
}

static uint16_t
quant (double v, double lo, double step)
{
  double q = round ((v - lo) / step);
  return (uint16_t) fmin (RL_BIDX_QMAX, fmax (0, q));
}

/* Which of the 4 x 3 parts of a uniform cell are far from every edge. */
static uint16_t
far_parts (Box box)
{
  uint16_t bits = 0;
  for (unsigned r = 0; r < RL_BIDX_PART_ROWS; r++)
    for (unsigned c = 0; c < RL_BIDX_PART_COLS; c++)
      {
        double w = (box.x1 - box.x0) / RL_BIDX_PART_COLS, h = (box.y1 - box.y0) / RL_BIDX_PART_ROWS;
        Box part = { box.x0 + c * w, box.y0 + r * h, box.x0 + (c + 1) * w, box.y0 + (r + 1) * h };
        if (far_exact (part))
          bits |= (uint16_t) (1u << (r * RL_BIDX_PART_COLS + c));
      }
  return bits;
}

/* The far_parts and own_parts words of a leaf (boundary-format.h). */
static void
leaf_parts (Box box, const uint32_t *e, size_t n, uint16_t *far, uint16_t *own)
{
  /* Other leaves' grown boxes reach into this one by their pad (at most
   * that of the shallowest leaf); what lies there may be quantised
   * differently, so it counts as outside. */
  double px = 2 * RL_BIDX_QPAD / RL_BIDX_QSPAN * 360.0 / (1u << LEAF_MIN_DEPTH);
  double py = 2 * RL_BIDX_QPAD / RL_BIDX_QSPAN * 180.0 / (1u << LEAF_MIN_DEPTH);
  Box inner = { box.x0 + px, box.y0 + py, box.x1 - px, box.y1 - py };

  *far = 0;
  *own = 0;
  for (unsigned r = 0; r < RL_BIDX_LEAF_PART_ROWS; r++)
    for (unsigned c = 0; c < RL_BIDX_LEAF_PART_COLS; c++)
      {
        double w = (box.x1 - box.x0) / RL_BIDX_LEAF_PART_COLS, h = (box.y1 - box.y0) / RL_BIDX_LEAF_PART_ROWS;
        Box part = { box.x0 + c * w, box.y0 + r * h, box.x0 + (c + 1) * w, box.y0 + (r + 1) * h };
        uint16_t bit = (uint16_t) (1u << (r * RL_BIDX_LEAF_PART_COLS + c));
        int near;

        if (far_from_edges (part))
          {
            *far |= bit;
            continue;
          }
        near = edge_near (part, &inner, RL_BIDX_FAR_M + FLAG_MARGIN_M, e, n);
        if (near == NEAR_NONE)
          *far |= bit;
        else if (near == NEAR_INSIDE)
          *own |= bit;
      }
}

/* Writes a border leaf; returns its entry. */
static uint32_t
write_leaf (Box box, uint32_t *e, size_t n, Pt ref, const uint8_t *status, uint16_t base)
{
  /* Same frame as leaf_frame () in geo/boundary.c. */
  double sx = (box.x1 - box.x0) / RL_BIDX_QSPAN, sy = (box.y1 - box.y0) / RL_BIDX_QSPAN;
  double mx = sx * RL_BIDX_QPAD, my = sy * RL_BIDX_QPAD;
  Box g = { box.x0 - mx, box.y0 - my, box.x1 + mx, box.y1 + my };
  size_t start, n_groups_at;
  uint16_t n_groups = 0, far, own;

  while (n_leaves % 2)
    leaf_push (0);
  start = n_leaves;
  if (start / 2 > 0x3fffffffu)
    fail ("index too large");
  qsort (e, n, sizeof *e, cmp_edge);
  leaf_push (quant (ref.x, g.x0, sx));
  leaf_push (quant (ref.y, g.y0, sy));
  leaf_push (base);
  n_groups_at = n_leaves;
  leaf_push (0);
  leaf_parts (box, e, n, &far, &own);
  leaf_push (far);
  leaf_push (own);
  for (size_t i = 0; i < n;)
    {
      uint16_t f = feats[pt_feat[e[i]]].rank;
      size_t chains_at;
      uint16_t n_chains = 0;

      leaf_push ((uint16_t) (f | (status[f] ? RL_BIDX_GROUP_INSIDE : 0)));
      chains_at = n_leaves;
      leaf_push (0);
      n_groups++;
      while (i < n && feats[pt_feat[e[i]]].rank == f)
        {
          /* One chain: consecutive edges of a ring, unbroken by clipping. */
          size_t count_at = n_leaves;
          uint16_t n_chain_pts = 0;
          double t0, t1;
          Pt a = pts[e[i]], b = pts[e[i] + 1];

          leaf_push (0);
          clip (a, b, g, &t0, &t1);
          leaf_push (quant (a.x + t0 * (b.x - a.x), g.x0, sx));
          leaf_push (quant (a.y + t0 * (b.y - a.y), g.y0, sy));
          n_chain_pts = 1;
          for (;;)
            {
              a = pts[e[i]];
              b = pts[e[i] + 1];
              clip (a, b, g, &t0, &t1);
              leaf_push (quant (a.x + t1 * (b.x - a.x), g.x0, sx));
              leaf_push (quant (a.y + t1 * (b.y - a.y), g.y0, sy));
              n_chain_pts++;
              i++;
              if (t1 < 1 || i >= n || e[i] != e[i - 1] + 1 || pt_feat[e[i]] < 0 || n_chain_pts == RL_BIDX_CHAIN_MAX_POINTS)
                break;
              /* The next edge starts where this one ended inside the box. */
            }
          leaves[count_at] = n_chain_pts;
          n_chains++;
        }
      leaves[chains_at] = n_chains;
    }
  leaves[n_groups_at] = n_groups;
  n_mirror_chains += rl_leaf_mark_mirrors (leaves + start, n_leaves - start);
  /* the cut at the antimeridian is no border and is skipped by the reader
   * on its own: leaves there are left as they are */
  if (box.x0 > -180 && box.x1 < 180)
    n_inner_chains += rl_leaf_mark_inner (leaves + start, n_leaves - start, code_of, n_feats, INNER_MAX_EDGES);
  while (n_leaves % 2)
    leaf_push (0);
  return RL_BIDX_ENTRY (RL_BIDX_TYPE_LEAF, start / 2);
}

/* A reference point far from every edge, so quantisation cannot move an
 * edge across it. */
static Pt
pick_ref (Box box, const uint32_t *e, size_t n)
{
  Pt best = { (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2 };
  double best_d = -1;
  double sx = (box.y1 - box.y0) / (box.x1 - box.x0);   /* make the box square */
  for (int iy = 1; iy < 8; iy++)
    for (int ix = 1; ix < 8; ix++)
      {
        Pt c = { box.x0 + (box.x1 - box.x0) * ix / 8, box.y0 + (box.y1 - box.y0) * iy / 8 };
        double d = INFINITY;
        for (size_t i = 0; i < n && d > best_d; i++)
          d = fmin (d, seg_dist2 (c, pts[e[i]], pts[e[i] + 1], sx));
        if (d > best_d)
          {
            best_d = d;
            best = c;
          }
      }
  return best;
}

static uint32_t
build (Box box, unsigned depth, uint32_t ix, uint32_t iy, uint32_t *e, size_t n, Pt ref,
       const uint8_t *status, uint16_t base)
{
  double cx = (box.x0 + box.x1) / 2, cy = (box.y0 + box.y1) / 2;
  uint32_t entries[4];
  static bool present[MAX_FEATURES];
  uint32_t self = 0;

  if (depth >= RL_BIDX_GRID_DEPTH && ((n <= LEAF_MAX_EDGES && (n == 0 || depth >= LEAF_MIN_DEPTH)) || depth >= RL_BIDX_MAX_DEPTH))
    {
      bool far;
      if (n > 0)
        return write_leaf (box, e, n, ref, status, base);
      far = far_exact (box);
      if (far || depth >= FAR_SPLIT_DEPTH)
        {
          uint32_t v = base | (far ? RL_BIDX_UNIFORM_FAR : 0);
          /* Parts of a cell near an edge may still be far from it. */
          if (!far)
            v |= (uint32_t) far_parts (box) << RL_BIDX_PART_SHIFT;
          return RL_BIDX_ENTRY (RL_BIDX_TYPE_UNIFORM, v);
        }
    }

  for (int c = 0; c < 4; c++)
    {
      Box cb = { (c & 1) ? cx : box.x0, (c & 2) ? cy : box.y0, (c & 1) ? box.x1 : cx, (c & 2) ? box.y1 : cy };
      uint32_t *ce = malloc ((n ? n : 1) * sizeof *ce);
      size_t cn = 0;
      uint8_t cs[MAX_FEATURES];
      uint16_t cbase = base;
      Pt cref;
      bool leaf;

      if (ce == NULL)
        fail ("out of memory");
      for (size_t i = 0; i < n; i++)
        {
          double t0, t1;
          if (clip (pts[e[i]], pts[e[i] + 1], cb, &t0, &t1))
            ce[cn++] = e[i];
        }
      leaf = depth + 1 >= RL_BIDX_GRID_DEPTH && ((cn <= LEAF_MAX_EDGES && depth + 1 >= LEAF_MIN_DEPTH) || depth + 1 >= RL_BIDX_MAX_DEPTH);
      if (leaf && cn > 0)
        cref = pick_ref (cb, ce, cn);
      else
        cref = (Pt) { (cb.x0 + cb.x1) / 2, (cb.y0 + cb.y1) / 2 };

      /* Parity at the child's reference point: the parent's, flipped by every
       * edge crossed on the way there (horizontal leg, then vertical leg). */
      memcpy (cs, status, n_feats);
      for (size_t i = 0; i < n; i++)
        {
          Pt a = pts[e[i]], b = pts[e[i] + 1];
          uint16_t f = feats[pt_feat[e[i]]].rank;
          if (cross_h (a, b, ref.y, ref.x, cref.x))
            cs[f] ^= 1;
          if (cross_v (a, b, cref.x, ref.y, cref.y))
            cs[f] ^= 1;
        }
      /* Features with edges in the parent but none here either cover the
       * child entirely or miss it. */
      for (size_t i = 0; i < cn; i++)
        present[feats[pt_feat[ce[i]]].rank] = true;
      for (size_t i = 0; i < n; i++)
        {
          uint16_t f = feats[pt_feat[e[i]]].rank;
          if (!present[f] && cs[f] && f < cbase)
            cbase = f;
        }
      for (size_t i = 0; i < cn; i++)
        present[feats[pt_feat[ce[i]]].rank] = false;

      entries[c] = build (cb, depth + 1, ix * 2 + (c & 1), iy * 2 + (c >> 1), ce, cn, cref, cs, cbase);
      free (ce);
    }

  if (depth + 1 == RL_BIDX_GRID_DEPTH)
    {
      for (int c = 0; c < 4; c++)
        grid[(size_t) (iy * 2 + (c >> 1)) * (1u << RL_BIDX_GRID_DEPTH) + ix * 2 + (c & 1)] = entries[c];
      return 0;
    }
  if (depth + 1 < RL_BIDX_GRID_DEPTH)
    return 0;
  self = new_node ();
  memcpy (&nodes[(size_t) self * 4], entries, sizeof entries);
  return RL_BIDX_ENTRY (RL_BIDX_TYPE_NODE, self);
}

/* Parity of every feature at p by brute force: ray towards x = -inf. */
static void
root_status (Pt p, uint8_t *status)
{
  memset (status, 0, MAX_FEATURES);
  for (size_t i = 0; i + 1 < n_pts; i++)
    if (pt_feat[i] >= 0 && cross_h (pts[i], pts[i + 1], p.y, -1000, p.x))
      status[feats[pt_feat[i]].rank] ^= 1;
}

static void
write_all (FILE *f, const void *p, size_t len)
{
  if (len && fwrite (p, 1, len, f) != len)
    fail ("write failed: %s", strerror (errno));
}

int
main (int argc, char **argv)
{
  FILE *out;
  RlBsrc *src;
  uint32_t *all;
  size_t n_all = 0;
  uint8_t status[MAX_FEATURES];
  Pt root_ref = { -179.123456789, -0.0123456789 };
  RlBidxHeader h;
  RlBidxFeature ft[MAX_FEATURES];
  size_t grid_n = (size_t) 1 << (2 * RL_BIDX_GRID_DEPTH);
  XXH3_state_t *sum;
  size_t off;
  char tmp[4096];

  if (argc < 3 || argc > 4)
    {
      fprintf (stderr, "usage: boundary-gen INPUT.geo.json OUTPUT.idx [SOURCE-NAME]\n");
      return 2;
    }
  rl_bsrc_verbose = 1;
  src = rl_bsrc_load (argv[1]);
  pts = src->pts;
  pt_feat = src->feat;
  n_pts = src->n_pts;
  feats = src->feats;
  n_feats = src->n_feats;
  if (n_feats > RL_BIDX_MAX_FEATURES)
    fail ("%u features", n_feats);

  all = xrealloc (NULL, n_pts * sizeof *all);
  for (size_t i = 0; i < n_pts; i++)
    if (pt_feat[i] >= 0)
      all[n_all++] = (uint32_t) i;
  grid = xrealloc (NULL, grid_n * sizeof *grid);
  for (unsigned i = 0; i < n_feats; i++)
    code_of[feats[i].rank] = (uint16_t) ((uint8_t) feats[i].a2[0] << 8 | (uint8_t) feats[i].a2[1]);
  raster_build ();
  segs_build ();
  root_status (root_ref, status);
  for (unsigned f = 0; f < n_feats; f++)
    if (status[f])
      fail ("reference point is inside feature %u", f);
  build ((Box) { -180, -90, 180, 90 }, 0, 0, 0, all, n_all, root_ref, status, RL_BIDX_LABEL_NONE);
  free (all);

  memset (&h, 0, sizeof h);
  memcpy (h.magic, RL_BIDX_MAGIC, 8);
  h.version = RL_BIDX_VERSION;
  h.header_size = sizeof h;
  h.grid_depth = RL_BIDX_GRID_DEPTH;
  h.max_depth = RL_BIDX_MAX_DEPTH;
  h.n_features = n_feats;
  off = sizeof h;
  h.features_offset = (uint32_t) off;
  off += n_feats * sizeof (RlBidxFeature);
  h.grid_offset = (uint32_t) off;
  off += grid_n * 4;
  h.n_nodes = (uint32_t) n_nodes;
  h.nodes_offset = (uint32_t) off;
  off += n_nodes * 16;
  h.leaves_words = (uint32_t) (n_leaves / 2);
  h.leaves_offset = (uint32_t) off;
  off += n_leaves * 2;
  h.file_size = off;
  snprintf (h.source, sizeof h.source, "%s", argc > 3 ? argv[3] : "");
  for (unsigned i = 0; i < n_feats; i++)
    {
      memcpy (ft[feats[i].rank].alpha2, feats[i].a2, 2);
      ft[feats[i].rank].reserved = 0;
    }

  /* The checksum covers the header (but itself) and the body. */
  sum = rl_bidx_sum_begin (&h);
  if (sum == NULL)
    fail ("out of memory");
  rl_bidx_sum_add (sum, ft, n_feats * sizeof (RlBidxFeature));
  rl_bidx_sum_add (sum, grid, grid_n * 4);
  rl_bidx_sum_add (sum, nodes, n_nodes * 16);
  rl_bidx_sum_add (sum, leaves, n_leaves * 2);
  h.checksum = rl_bidx_sum_end (sum);

  snprintf (tmp, sizeof tmp, "%s.tmp", argv[2]);
  out = fopen (tmp, "wb");
  if (out == NULL)
    fail ("%s: %s", tmp, strerror (errno));
  write_all (out, &h, sizeof h);
  write_all (out, ft, n_feats * sizeof (RlBidxFeature));
  write_all (out, grid, grid_n * 4);
  write_all (out, nodes, n_nodes * 16);
  write_all (out, leaves, n_leaves * 2);
  if (fclose (out) != 0 || rename (tmp, argv[2]) != 0)
    fail ("%s: %s", argv[2], strerror (errno));
  fprintf (stderr, "boundary-gen: %u features, %zu points, %zu nodes, %zu leaf words, %zu bytes; "
           "%lu chains that repeat another feature's border, %lu with one country on both sides\n",
           n_feats, n_pts, n_nodes, n_leaves / 2, off, n_mirror_chains, n_inner_chains);
  return 0;
}
