/* The chain flags the generator writes into a leaf (tools/boundary-gen/
 * leaf-flags.c): a border's second copy is a mirror; an edge with the same
 * country on both sides all along it is inner; anything that is a border
 * anywhere, or cannot be told, is neither.  Leaves built by hand in the
 * index's quantised coordinates. */
#include "geo/boundary-format.h"
#include "tools/boundary-gen/leaf-flags.h"

#include <glib.h>

#define CODE(a, b) ((guint16) ((guint8) (a) << 8 | (guint8) (b)))

/* A leaf under construction. */
typedef struct {
  guint16 w[512];
  gsize n;
  gsize n_groups_at, n_chains_at;
} Leaf;

static void
leaf_begin (Leaf *l, guint16 ref_x, guint16 ref_y, guint16 base)
{
  l->n = 0;
  l->w[l->n++] = ref_x;
  l->w[l->n++] = ref_y;
  l->w[l->n++] = base;
  l->n_groups_at = l->n;
  l->w[l->n++] = 0;
  l->w[l->n++] = 0;   /* far_parts */
  l->w[l->n++] = 0;   /* own_parts */
}

static void
leaf_group (Leaf *l, guint16 feature, gboolean ref_inside)
{
  l->w[l->n_groups_at]++;
  l->w[l->n++] = feature | (ref_inside ? RL_BIDX_GROUP_INSIDE : 0);
  l->n_chains_at = l->n;
  l->w[l->n++] = 0;
}

/* A chain of n points (x, y pairs); returns where its count word is. */
static gsize
leaf_chain (Leaf *l, const guint16 *xy, guint n)
{
  gsize at = l->n;

  l->w[l->n_chains_at]++;
  l->w[l->n++] = (guint16) n;
  for (guint i = 0; i < 2 * n; i++)
    l->w[l->n++] = xy[i];
  return at;
}

static gboolean
flagged (const Leaf *l, gsize at, guint16 flag)
{
  return (l->w[at] & flag) != 0;
}

/* Two countries whose polygons overlap, as OpenStreetMap's often do along
 * a border: AA (feature 0, the smaller) holds the square x, y in
 * [20000, 40000]; BB (feature 1) the square [30000, 60000] x [10000, 50000],
 * so BB's west side (x = 30000) runs through AA from y 20000 to 40000.
 * The reference point (5000, 5000) is outside both. */
static void
test_overlap (void)
{
  static const guint16 codes[] = { CODE ('A', 'A'), CODE ('B', 'B') };
  static const guint16 aa[] = { 20000, 20000, 40000, 20000, 40000, 40000, 20000, 40000, 20000, 20000 };
  /* BB's west side split where it enters and leaves AA */
  static const guint16 bb_inside[] = { 30000, 20000, 30000, 30000, 30000, 40000 };
  static const guint16 bb_rest[] = { 30000, 40000, 30000, 50000, 60000, 50000, 60000, 10000, 30000, 10000, 30000, 20000 };
  static const guint16 bb_across[] = { 30000, 50000, 30000, 10000 };
  Leaf l;
  gsize at_aa, at_in, at_rest, at_across;

  leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
  leaf_group (&l, 0, FALSE);
  at_aa = leaf_chain (&l, aa, 5);
  leaf_group (&l, 1, FALSE);
  at_in = leaf_chain (&l, bb_inside, 3);
  at_rest = leaf_chain (&l, bb_rest, 6);
  g_assert_cmpuint (rl_leaf_mark_mirrors (l.w, l.n), ==, 0);
  g_assert_cmpuint (rl_leaf_mark_inner (l.w, l.n, codes, 2, 96), ==, 1);
  /* AA's edge is AA inside, BB or nothing outside: a border */
  g_assert_false (flagged (&l, at_aa, RL_BIDX_CHAIN_INNER));
  /* BB's side inside AA has AA on both sides */
  g_assert_true (flagged (&l, at_in, RL_BIDX_CHAIN_INNER));
  g_assert_false (flagged (&l, at_rest, RL_BIDX_CHAIN_INNER));

  /* The same side as one chain that leaves AA: a border along part of it,
   * so not flagged (the search tells the two parts apart). */
  leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
  leaf_group (&l, 0, FALSE);
  leaf_chain (&l, aa, 5);
  leaf_group (&l, 1, FALSE);
  at_across = leaf_chain (&l, bb_across, 2);
  rl_leaf_mark_inner (l.w, l.n, codes, 2, 96);
  g_assert_false (flagged (&l, at_across, RL_BIDX_CHAIN_INNER));
}

/* A territory's land inside its own sea, both under one code (the
 * generator gives a sovereign's sea around a territory to the
 * territory): the coast has the same country on both sides. */
static void
test_same_country (void)
{
  static const guint16 codes[] = { CODE ('G', 'P'), CODE ('G', 'P'), CODE ('F', 'R') };
  static const guint16 land[] = { 30000, 30000, 35000, 30000, 35000, 35000, 30000, 35000, 30000, 30000 };
  static const guint16 sea[] = { 10000, 10000, 60000, 10000, 60000, 60000, 10000, 60000, 10000, 10000 };
  Leaf l;
  gsize at_land, at_sea;

  leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
  leaf_group (&l, 0, FALSE);
  at_land = leaf_chain (&l, land, 5);
  leaf_group (&l, 1, FALSE);
  at_sea = leaf_chain (&l, sea, 5);
  rl_leaf_mark_inner (l.w, l.n, codes, 3, 96);
  g_assert_true (flagged (&l, at_land, RL_BIDX_CHAIN_INNER));
  /* the edge of the sea: GP inside, nothing outside */
  g_assert_false (flagged (&l, at_sea, RL_BIDX_CHAIN_INNER));

  /* With another country's code on the sea, the coast is a border. */
  {
    static const guint16 other[] = { CODE ('G', 'P'), CODE ('F', 'R') };
    leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
    leaf_group (&l, 0, FALSE);
    at_land = leaf_chain (&l, land, 5);
    leaf_group (&l, 1, FALSE);
    leaf_chain (&l, sea, 5);
    rl_leaf_mark_inner (l.w, l.n, other, 2, 96);
    g_assert_false (flagged (&l, at_land, RL_BIDX_CHAIN_INNER));
  }
}

/* A border between two countries is written once for each: the second
 * copy (either way round) is a mirror, and a mirror is never inner. */
static void
test_mirror (void)
{
  static const guint16 codes[] = { CODE ('A', 'A'), CODE ('B', 'B') };
  static const guint16 west[] = { 20000, 10000, 30000, 10000, 30000, 50000, 20000, 50000, 20000, 10000 };
  static const guint16 east[] = { 30000, 10000, 40000, 10000, 40000, 50000, 30000, 50000 };
  static const guint16 shared_back[] = { 30000, 50000, 30000, 10000 };
  static const guint16 half[] = { 30000, 10000, 30000, 30000, 31000, 30000 };
  Leaf l;
  gsize at_east, at_back, at_half;

  leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
  leaf_group (&l, 0, FALSE);
  leaf_chain (&l, west, 5);
  leaf_group (&l, 1, FALSE);
  at_east = leaf_chain (&l, east, 4);
  at_back = leaf_chain (&l, shared_back, 2);
  at_half = leaf_chain (&l, half, 3);
  g_assert_cmpuint (rl_leaf_mark_mirrors (l.w, l.n), ==, 1);
  g_assert_false (flagged (&l, at_east, RL_BIDX_CHAIN_MIRROR));
  g_assert_true (flagged (&l, at_back, RL_BIDX_CHAIN_MIRROR));
  /* one edge shared, one not */
  g_assert_false (flagged (&l, at_half, RL_BIDX_CHAIN_MIRROR));
  rl_leaf_mark_inner (l.w, l.n, codes, 2, 96);
  g_assert_false (flagged (&l, at_back, RL_BIDX_CHAIN_INNER));
  /* the point count is still read right under the flags */
  g_assert_cmpuint (l.w[at_back] & RL_BIDX_CHAIN_POINTS, ==, 2);
}

/* What cannot be told is left alone: an edge that runs along part of
 * another, a leaf with more edges than the limit, a leaf cut short. */
static void
test_unsure (void)
{
  static const guint16 codes[] = { CODE ('A', 'A'), CODE ('B', 'B') };
  static const guint16 aa[] = { 20000, 20000, 40000, 20000, 40000, 40000, 20000, 40000, 20000, 20000 };
  static const guint16 inside[] = { 25000, 25000, 35000, 35000 };
  static const guint16 along[] = { 30000, 20000, 45000, 20000 };
  Leaf l;
  gsize at_inside, at_along;

  leaf_begin (&l, 5000, 5000, RL_BIDX_LABEL_NONE);
  leaf_group (&l, 0, FALSE);
  leaf_chain (&l, aa, 5);
  leaf_group (&l, 1, FALSE);
  at_inside = leaf_chain (&l, inside, 2);
  at_along = leaf_chain (&l, along, 2);
  g_assert_cmpuint (rl_leaf_mark_inner (l.w, l.n, codes, 2, 3), ==, 0);   /* 6 edges > 3 */
  g_assert_cmpuint (rl_leaf_mark_inner (l.w, l.n - 1, codes, 2, 96), ==, 0);   /* cut short */
  rl_leaf_mark_inner (l.w, l.n, codes, 2, 96);
  /* a stray edge of BB wholly inside AA: AA on both sides */
  g_assert_true (flagged (&l, at_inside, RL_BIDX_CHAIN_INNER));
  /* overlaps AA's south side from 30000 to 40000 */
  g_assert_false (flagged (&l, at_along, RL_BIDX_CHAIN_INNER));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/leaf-flags/overlap", test_overlap);
  g_test_add_func ("/leaf-flags/same-country", test_same_country);
  g_test_add_func ("/leaf-flags/mirror", test_mirror);
  g_test_add_func ("/leaf-flags/unsure", test_unsure);
  return g_test_run ();
}
