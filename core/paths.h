/* Where regloc's data files are, worked out in one place: the path the
 * configuration (or a command-line option) names, else the environment's
 * override, else the installed copy, else the one in the build or source
 * tree (so a build runs before it is installed). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RL_DATA_BOUNDARY_INDEX,  /* boundaries.idx: $REGLOC_BOUNDARY_INDEX, datadir, build tree */
  RL_DATA_TERRITORIES,     /* territories.tsv: $REGLOC_TERRITORIES, datadir, source tree */
  RL_DATA_REGULATORY_DB,   /* the kernel's regulatory.db (wireless-regdb) */
  RL_DATA_TERRITORY_SOVEREIGNS, /* territory-sovereigns.tsv (generated from iso-codes): $REGLOC_TERRITORY_SOVEREIGNS, datadir, build tree */
} RlDataFile;

/* @configured: NULL or empty for the default.  Never NULL; free it. */
char *rl_data_path (RlDataFile what, const char *configured);

/* A file shipped under data/ (@relative: "trips/sample-trip.scn"): the
 * installed copy, else the source tree's; NULL when neither exists. */
char *rl_data_find (const char *relative);

G_END_DECLS
