/* On-disk layout of the boundary index, shared by the generator
 * (tools/boundary-gen/boundary-gen.c) and the reader (geo/boundary.c).
 *
 * The world box [-180,180] x [-90,90] is a quadtree.  Its first
 * RL_BIDX_GRID_DEPTH levels are flattened into a dense grid so a lookup
 * starts with one array access; below that, nodes hold four entries.
 * An entry is one 32-bit word:
 *   type 0 (uniform): the whole cell has one label (low 16 bits); bit 16
 *                     set when no edge at all lies within RL_BIDX_FAR_M of
 *                     the cell, so the lookup can skip the distance search;
 *                     bits 17-28: the same for each of 4 x 3 parts of the
 *                     cell (bit 17 + 4 * row + column, row 0 at the south)
 *   type 1 (node):    index of a node (four entries, child = (y_hi << 1) | x_hi)
 *   type 2 (leaf):    offset in 32-bit words into the leaf section
 * A label is a feature index (features are sorted by area, smallest first,
 * so where features overlap the smallest index wins) or RL_BIDX_LABEL_NONE.
 *
 * A leaf is a sequence of guint16:
 *   ref_x, ref_y, base_label, n_groups, far_parts, own_parts,
 *   n_groups x { feature | ref_inside << 15, n_chains,
 *                n_chains x { n_points | mirror << 15 | inner << 14, n_points x { x, y } } }
 * padded to a whole 32-bit word.  Coordinates are quantised over the leaf
 * box grown by RL_BIDX_QPAD units on each side; edges are clipped to that
 * grown box.  ref is a point chosen away from every edge;
 * ref_inside says whether it lies inside the feature.  base_label is the
 * smallest feature that covers the whole leaf.  The leaf is cut into
 * 4 x 4 parts (bit 4 * row + column, row 0 at the south):
 *   far_parts: the part is farther than RL_BIDX_FAR_M from every edge;
 *   own_parts: every edge within RL_BIDX_FAR_M of the part is one of this
 *              leaf's own (no other leaf holds an edge that near), so the
 *              distance search need not look at any other leaf.
 * mirror: every edge of the chain is also an edge (either way round) of an
 * earlier group of the leaf: a border between two countries is stored once
 * for each, and the distance search reads it once.  The point-in-polygon
 * test reads every chain; the flag changes no answer.
 * inner: along the whole chain the country is the same on both sides, as
 * the reader labels points from this leaf (an edge of a larger country's
 * feature inside a smaller neighbour's where the source's polygons
 * overlap, a territory's coast inside its own sea): no border, and the
 * distance search skips it (tools/boundary-gen/leaf-flags.c).
 * The far flags (of uniform cells and leaves) and own_parts are computed
 * against the exact source edges, measured as the reader measures them,
 * with a margin for the quantisation: they never change an answer, they
 * only spare the search.
 *
 * All integers are little-endian; the reader refuses other hosts. */
#pragma once

#include <xxhash.h>
#ifdef RL_HAVE_XXH3_DISPATCH
/* the same functions, on the CPU's widest vectors (meson.build) */
#include <xxh_x86dispatch.h>
#endif

#include <stdint.h>
#include <stddef.h>

#define RL_BIDX_MAGIC "RLBNDIDX"
#define RL_BIDX_VERSION 5u
#define RL_BIDX_GRID_DEPTH 8u
#define RL_BIDX_MAX_DEPTH 24u
/* Leaf coordinates: the leaf box spans RL_BIDX_QSPAN units starting at
 * RL_BIDX_QPAD, so the box's own sides (the antimeridian, the poles, grid
 * lines that the data's edges follow) are exact integers; the pad on each
 * side holds edges clipped just outside the box. */
#define RL_BIDX_QPAD 64.0
#define RL_BIDX_QSPAN 65407.0
#define RL_BIDX_QMAX 65535.0
#define RL_BIDX_LABEL_NONE 0xffffu
#define RL_BIDX_MAX_FEATURES 0x7fffu   /* a group's feature word keeps bit 15 */

/* Distances are searched up to this far (metres); see RL_BOUNDARY_EXACT_M. */
#define RL_BIDX_FAR_M 5000.0
#define RL_BIDX_UNIFORM_FAR 0x10000u
#define RL_BIDX_PART_COLS 4u        /* parts of a uniform cell */
#define RL_BIDX_PART_ROWS 3u
#define RL_BIDX_PART_SHIFT 17u
#define RL_BIDX_LEAF_PART_COLS 4u   /* parts of a leaf */
#define RL_BIDX_LEAF_PART_ROWS 4u
#define RL_BIDX_LEAF_HEADER 6   /* guint16 words before the groups */
#define RL_BIDX_LEAF_FAR 4      /* header word of far_parts */
#define RL_BIDX_LEAF_OWN 5      /* header word of own_parts */
#define RL_BIDX_GROUP_INSIDE 0x8000u   /* ref_inside, in a group's feature word */
#define RL_BIDX_CHAIN_MIRROR 0x8000u   /* in a chain's n_points word */
#define RL_BIDX_CHAIN_INNER 0x4000u
#define RL_BIDX_CHAIN_POINTS 0x3fffu
#define RL_BIDX_CHAIN_MAX_POINTS 0x3ff0u
#define RL_BIDX_UNIFORM_MASK 0x1fffffffu   /* label, far flag and part flags */

#define RL_BIDX_TYPE_UNIFORM 0u
#define RL_BIDX_TYPE_NODE 1u
#define RL_BIDX_TYPE_LEAF 2u
#define RL_BIDX_ENTRY_TYPE(e) ((e) >> 30)
#define RL_BIDX_ENTRY_VALUE(e) ((e) & 0x3fffffffu)
#define RL_BIDX_ENTRY(type, value) (((uint32_t) (type) << 30) | ((uint32_t) (value) & 0x3fffffffu))

typedef struct {
  char magic[8];
  uint32_t version;
  uint32_t header_size;      /* sizeof (RlBidxHeader) */
  uint64_t file_size;
  uint32_t grid_depth;
  uint32_t max_depth;
  uint32_t n_features;
  uint32_t features_offset;  /* n_features x RlBidxFeature */
  uint32_t grid_offset;      /* 4^grid_depth entries, row-major from (-90,-180) */
  uint32_t n_nodes;
  uint32_t nodes_offset;     /* n_nodes x 4 entries */
  uint32_t leaves_words;
  uint32_t leaves_offset;    /* leaves_words x guint32 */
  char source[64];           /* NUL-terminated name of the source data */
  uint32_t reserved;         /* 0 (the checksum is 8-aligned) */
  uint64_t checksum;         /* XXH3-64 of the header up to here and of every byte after the header */
} RlBidxHeader;

typedef struct {
  char alpha2[2];
  uint16_t reserved;
} RlBidxFeature;

/* The point-in-polygon test's crossings, in a leaf's quantised
 * coordinates: does edge a-b cross the horizontal segment y = sy, x in
 * [xa, xb), or the vertical one x = sx, y in [ya, yb)?  One definition for
 * the reader's labels (geo/boundary.c) and the generator's inner flags
 * (tools/boundary-gen/leaf-flags.c), which must agree. */
static inline int
rl_bidx_cross_h (double ax, double ay, double bx, double by, double sy, double xa, double xb)
{
  double x;
  if ((ay > sy) == (by > sy))
    return 0;
  x = ax + (sy - ay) * (bx - ax) / (by - ay);
  return x >= xa && x < xb;
}

static inline int
rl_bidx_cross_v (double ax, double ay, double bx, double by, double sx, double ya, double yb)
{
  double y;
  if ((ax > sx) == (bx > sx))
    return 0;
  y = ay + (sx - ax) * (by - ay) / (bx - ax);
  return y >= ya && y < yb;
}

/* The checksum: XXH3-64 (libxxhash) over the header up to its checksum
 * field, then over the rest of the file.  The reader checks it over the
 * whole index at every open, so it has to run at memory speed: zlib's
 * CRC-32 took 13 ms of a 40 ms process start on the 19 MB index, XXH3
 * about 1 ms.  A caller feeds the parts in file order between begin and
 * end; NULL from begin: out of memory. */
static inline XXH3_state_t *
rl_bidx_sum_begin (const void *header)
{
  XXH3_state_t *state = XXH3_createState ();

  if (state == NULL || XXH3_64bits_reset (state) != XXH_OK ||
      XXH3_64bits_update (state, header, offsetof (RlBidxHeader, checksum)) != XXH_OK)
    {
      XXH3_freeState (state);
      return NULL;
    }
  return state;
}

static inline void
rl_bidx_sum_add (XXH3_state_t *state, const void *data, size_t len)
{
  if (len > 0)
    XXH3_64bits_update (state, data, len);
}

static inline uint64_t
rl_bidx_sum_end (XXH3_state_t *state)
{
  uint64_t sum = XXH3_64bits_digest (state);

  XXH3_freeState (state);
  return sum;
}

/* The checksum of a whole index in memory (header first). */
static inline uint64_t
rl_bidx_checksum (const void *data, size_t size)
{
  XXH3_state_t *state = rl_bidx_sum_begin (data);

  if (state == NULL)
    return 0;
  rl_bidx_sum_add (state, (const uint8_t *) data + sizeof (RlBidxHeader), size - sizeof (RlBidxHeader));
  return rl_bidx_sum_end (state);
}
