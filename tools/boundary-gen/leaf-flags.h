/* The flags of a written leaf's chains (boundary-format.h): mirror and
 * inner.  They only spare the distance search edges that cannot be the
 * border it looks for; the point-in-polygon test reads every chain. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A leaf's words: leaf[0] is its header, n_words how many may be read. */

/* Flags every chain whose edges are all edges of an earlier group too
 * (RL_BIDX_CHAIN_MIRROR).  Returns how many. */
unsigned rl_leaf_mark_mirrors (uint16_t *leaf, size_t n_words);

/* Flags every chain (not a mirror) along whose whole length the country
 * is the same on both sides (RL_BIDX_CHAIN_INNER), as the reader labels
 * points from this leaf's quantised edges: an edge of a larger country's
 * feature lying inside a smaller neighbour's (the source's polygons
 * overlap along borders), the coast of a territory's land inside its own
 * sea, an edge between two features of one country.  code_of[f]: the
 * country of feature f (its two letters as one number); n_features
 * bounds f.  Chains are left unflagged wherever this cannot be sure (edges
 * that overlap in part, points too near another edge to step off, leaves
 * at the antimeridian or with more than max_edges edges).  Returns how
 * many were flagged. */
unsigned rl_leaf_mark_inner (uint16_t *leaf, size_t n_words, const uint16_t *code_of, unsigned n_features,
                             size_t max_edges);
