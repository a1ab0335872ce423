/* Chain flags of a written leaf (leaf-flags.h).  Everything here works on
 * the leaf's quantised coordinates, as the reader (geo/boundary.c) sees
 * them, not on the source's. */
#include "tools/boundary-gen/leaf-flags.h"
#include "geo/boundary-format.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double ax, ay, bx, by;
  unsigned group;
} QEdge;

typedef struct {
  size_t count_at;     /* the chain's n_points word */
  size_t first, n;     /* its edges in the edge list */
} QChain;

typedef struct {
  uint16_t feature;
  bool inside;         /* ref_inside */
  size_t first, n;     /* its edges */
} QGroup;

typedef struct {
  double rx, ry;
  uint16_t base;
  QGroup *groups;
  unsigned n_groups;
  QChain *chains;
  size_t n_chains;
  QEdge *edges;
  size_t n_edges;
} QLeaf;

static void
qleaf_free (QLeaf *l)
{
  free (l->groups);
  free (l->chains);
  free (l->edges);
}

/* The leaf's groups, chains and edges; false if it does not parse (or
 * memory runs out): then nothing is flagged. */
static bool
qleaf_read (QLeaf *l, const uint16_t *leaf, size_t n_words)
{
  size_t at = RL_BIDX_LEAF_HEADER, cap_chains = 0, cap_edges = 0;

  memset (l, 0, sizeof *l);
  if (n_words < RL_BIDX_LEAF_HEADER)
    return false;
  l->rx = leaf[0];
  l->ry = leaf[1];
  l->base = leaf[2];
  l->n_groups = leaf[3];
  l->groups = calloc (l->n_groups ? l->n_groups : 1, sizeof *l->groups);
  if (l->groups == NULL)
    return false;
  for (unsigned g = 0; g < l->n_groups; g++)
    {
      unsigned n_chains;

      if (at + 2 > n_words)
        return false;
      l->groups[g].feature = leaf[at] & RL_BIDX_MAX_FEATURES;
      l->groups[g].inside = (leaf[at] & RL_BIDX_GROUP_INSIDE) != 0;
      l->groups[g].first = l->n_edges;
      n_chains = leaf[at + 1];
      at += 2;
      for (unsigned c = 0; c < n_chains; c++)
        {
          size_t n_pts;

          if (at >= n_words)
            return false;
          n_pts = leaf[at] & RL_BIDX_CHAIN_POINTS;
          if (n_pts == 0 || at + 1 + 2 * n_pts > n_words)
            return false;
          if (l->n_chains == cap_chains)
            {
              QChain *grown = realloc (l->chains, (cap_chains = cap_chains ? 2 * cap_chains : 16) * sizeof *grown);
              if (grown == NULL)
                return false;
              l->chains = grown;
            }
          l->chains[l->n_chains++] = (QChain) { at, l->n_edges, n_pts - 1 };
          for (size_t k = 1; k < n_pts; k++)
            {
              const uint16_t *p = leaf + at + 1 + 2 * (k - 1);
              if (l->n_edges == cap_edges)
                {
                  QEdge *grown = realloc (l->edges, (cap_edges = cap_edges ? 2 * cap_edges : 64) * sizeof *grown);
                  if (grown == NULL)
                    return false;
                  l->edges = grown;
                }
              l->edges[l->n_edges++] = (QEdge) { p[0], p[1], p[2], p[3], g };
            }
          at += 1 + 2 * n_pts;
        }
      l->groups[g].n = l->n_edges - l->groups[g].first;
    }
  return true;
}

/* ---- mirrors ------------------------------------------------------------ */

static bool
same_edge (const QEdge *a, const QEdge *b)
{
  return (a->ax == b->ax && a->ay == b->ay && a->bx == b->bx && a->by == b->by) ||
         (a->ax == b->bx && a->ay == b->by && a->bx == b->ax && a->by == b->ay);
}

unsigned
rl_leaf_mark_mirrors (uint16_t *leaf, size_t n_words)
{
  QLeaf l;
  unsigned marked = 0;

  if (!qleaf_read (&l, leaf, n_words))
    {
      qleaf_free (&l);
      return 0;
    }
  for (size_t c = 0; c < l.n_chains; c++)
    {
      const QChain *ch = &l.chains[c];
      unsigned g = ch->n > 0 ? l.edges[ch->first].group : 0;
      bool mirror = ch->n > 0 && g > 0;

      for (size_t i = ch->first; i < ch->first + ch->n && mirror; i++)
        {
          bool found = false;
          /* an edge of an earlier group, either way round */
          for (size_t j = 0; j < l.groups[g].first && !found; j++)
            found = same_edge (&l.edges[i], &l.edges[j]);
          mirror = found;
        }
      if (mirror)
        {
          leaf[ch->count_at] |= RL_BIDX_CHAIN_MIRROR;
          marked++;
        }
    }
  qleaf_free (&l);
  return marked;
}

/* ---- inner chains --------------------------------------------------------- */

/* The label the reader gives (x, y) from this leaf: the smallest feature
 * whose parity there is odd, else the base label. */
static uint16_t
qleaf_label (const QLeaf *l, double x, double y)
{
  double hx0 = fmin (x, l->rx), hx1 = fmax (x, l->rx), vy0 = fmin (y, l->ry), vy1 = fmax (y, l->ry);
  uint16_t best = l->base;

  for (unsigned g = 0; g < l->n_groups; g++)
    {
      const QGroup *gr = &l->groups[g];
      unsigned parity = 0;

      if (gr->feature >= best)
        break;
      for (size_t i = gr->first; i < gr->first + gr->n; i++)
        {
          const QEdge *e = &l->edges[i];
          parity ^= (unsigned) rl_bidx_cross_h (e->ax, e->ay, e->bx, e->by, y, hx0, hx1);
          parity ^= (unsigned) rl_bidx_cross_v (e->ax, e->ay, e->bx, e->by, l->rx, vy0, vy1);
        }
      if (parity ^ gr->inside)
        {
          best = gr->feature;
          break;
        }
    }
  return best;
}

static uint16_t
country_of (uint16_t label, const uint16_t *code_of, unsigned n_features)
{
  return label == RL_BIDX_LABEL_NONE || label >= n_features ? 0 : code_of[label];
}

static double
seg_dist2 (double px, double py, const QEdge *e)
{
  double dx = e->bx - e->ax, dy = e->by - e->ay, l2 = dx * dx + dy * dy, t = 0, x, y;

  if (l2 > 0)
    t = fmin (1, fmax (0, ((px - e->ax) * dx + (py - e->ay) * dy) / l2));
  x = e->ax + t * dx - px;
  y = e->ay + t * dy - py;
  return x * x + y * y;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

enum { SIDES_SAME, SIDES_DIFFER, SIDES_UNSURE };

/* Where along e (0..1) the other edges cross or touch it, into t (room
 * for n_edges + 2); SIDES_UNSURE where one runs along it in part. */
static int
crossings (const QLeaf *l, const QEdge *e, double *t, size_t *n_t)
{
  double dx = e->bx - e->ax, dy = e->by - e->ay;

  *n_t = 0;
  t[(*n_t)++] = 0;
  t[(*n_t)++] = 1;
  for (size_t j = 0; j < l->n_edges; j++)
    {
      const QEdge *o = &l->edges[j];
      double ox = o->bx - o->ax, oy = o->by - o->ay, den = dx * oy - dy * ox;
      double wx = o->ax - e->ax, wy = o->ay - e->ay, s, u;

      if (o == e || same_edge (o, e))
        continue;
      if (den == 0)
        {
          /* parallel: apart, or on one line (where they share more than
           * an end, the sides are not clear) */
          if (wx * dy - wy * dx != 0)
            continue;
          double l2 = dx * dx + dy * dy;
          double s0 = (wx * dx + wy * dy) / l2, s1 = ((o->bx - e->ax) * dx + (o->by - e->ay) * dy) / l2;
          if (fmax (s0, s1) <= 0 || fmin (s0, s1) >= 1)
            continue;
          return SIDES_UNSURE;
        }
      s = (wx * oy - wy * ox) / den;
      u = (wx * dy - wy * dx) / den;
      if (s >= 0 && s <= 1 && u >= 0 && u <= 1)
        t[(*n_t)++] = s;
    }
  qsort (t, *n_t, sizeof *t, cmp_double);
  return SIDES_SAME;
}

/* Whether the country is the same on both sides of e all along it.
 * Between two points where other edges cross it, the features on either
 * side do not change; one point stepped off each side of every such piece
 * tells. */
static int
edge_sides (const QLeaf *l, const QEdge *e, const uint16_t *code_of, unsigned n_features, double *t)
{
  double dx = e->bx - e->ax, dy = e->by - e->ay, len = sqrt (dx * dx + dy * dy);
  size_t n_t;

  if (len == 0)
    return SIDES_SAME;   /* a point: no side to be a border of */
  if (crossings (l, e, t, &n_t) == SIDES_UNSURE)
    return SIDES_UNSURE;
  for (size_t k = 0; k + 1 < n_t; k++)
    {
      double mid = (t[k] + t[k + 1]) / 2, px, py, near2 = INFINITY, step;

      if (t[k + 1] - t[k] < 1e-9)
        continue;
      px = e->ax + mid * dx;
      py = e->ay + mid * dy;
      for (size_t j = 0; j < l->n_edges; j++)
        if (&l->edges[j] != e && !same_edge (&l->edges[j], e))
          near2 = fmin (near2, seg_dist2 (px, py, &l->edges[j]));
      /* off the edge, less than halfway to any other */
      step = fmin (0.25, sqrt (near2) / 2);
      if (step < 1e-6)
        return SIDES_UNSURE;
      if (country_of (qleaf_label (l, px - dy / len * step, py + dx / len * step), code_of, n_features) !=
          country_of (qleaf_label (l, px + dy / len * step, py - dx / len * step), code_of, n_features))
        return SIDES_DIFFER;
    }
  return SIDES_SAME;
}

unsigned
rl_leaf_mark_inner (uint16_t *leaf, size_t n_words, const uint16_t *code_of, unsigned n_features, size_t max_edges)
{
  QLeaf l;
  double *t = NULL;
  unsigned marked = 0;

  if (!qleaf_read (&l, leaf, n_words) || l.n_edges > max_edges ||
      (t = malloc ((l.n_edges + 2) * sizeof *t)) == NULL)
    {
      qleaf_free (&l);
      return 0;
    }
  for (size_t c = 0; c < l.n_chains; c++)
    {
      const QChain *ch = &l.chains[c];
      bool inner = ch->n > 0 && !(leaf[ch->count_at] & RL_BIDX_CHAIN_MIRROR);

      for (size_t i = ch->first; i < ch->first + ch->n && inner; i++)
        inner = edge_sides (&l, &l.edges[i], code_of, n_features, t) == SIDES_SAME;
      if (inner)
        {
          leaf[ch->count_at] |= RL_BIDX_CHAIN_INNER;
          marked++;
        }
    }
  free (t);
  qleaf_free (&l);
  return marked;
}
