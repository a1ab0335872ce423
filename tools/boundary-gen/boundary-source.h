/* Reader for the country-boundary GeoJSON (data/boundaries/), shared by the
 * index generator and the round-trip test.  It is a small hand-written
 * reader for this one file: a FeatureCollection of features with isoA2/isoA3
 * properties and Polygon/MultiPolygon geometry (possibly in a
 * GeometryCollection).  Errors end the process with a message: both users
 * are build-time tools. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define RL_BSRC_MAX_FEATURES 1024
#define RL_BSRC_WATERS_KM 30.0

typedef struct { double x, y; } RlBsrcPt;

typedef struct {
  char a2[3];        /* ISO alpha-2, filled in from alpha-3 for BES, CUW, SXM */
  char a3[4];
  double area;       /* km², approximate */
  uint16_t rank;     /* 0 = smallest area */
} RlBsrcFeature;

typedef struct {
  size_t first, end;   /* its rings are pts[first .. end) */
  int32_t feat;
  double area;
} RlBsrcPolygon;

typedef struct {
  /* All rings, closed, one after the other.  feat[i] is the feature of the
   * edge pts[i] → pts[i + 1], or -1 where a ring ends. */
  RlBsrcPt *pts;
  int32_t *feat;
  size_t n_pts;
  RlBsrcFeature feats[RL_BSRC_MAX_FEATURES];
  unsigned n_feats;
  RlBsrcPolygon *polys;
  size_t n_polys;
} RlBsrc;

/* Reads and ranks the features; exits with a message on any error.
 *
 * Some territories' features hold only their land (RE, GP, MQ, MP, …)
 * while the sovereign's feature also holds their territorial sea.  A
 * polygon of a bigger feature that contains a territory's polygon and lies
 * entirely within RL_BSRC_WATERS_KM of that territory is its sea: it is
 * given to the territory (as an extra feature with the territory's code),
 * so the territory keeps its own code out to the edge of its waters. */
RlBsrc *rl_bsrc_load (const char *path);
/* When set, rl_bsrc_load () reports each sea it gives to a territory. */
extern int rl_bsrc_verbose;
void rl_bsrc_fail (const char *fmt, ...) __attribute__ ((noreturn, format (printf, 1, 2)));
void *rl_bsrc_realloc (void *p, size_t n);
