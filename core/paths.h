/* Where regloc's data files are, worked out in one place: the path the
 * configuration (or a command-line option) names, else the environment's
 * override, else the first copy in the directories $REGLOC_DATADIR lists
 * (separated by ':'), else, for a binary run from a meson build tree, the
 * tree's data/ (found at run time), else the installed copy.  No path of the build or source
 * tree is compiled into a binary. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RL_DATA_BOUNDARY_INDEX,  /* boundaries.idx: $REGLOC_BOUNDARY_INDEX, $REGLOC_DATADIR, datadir */
  RL_DATA_TERRITORIES,     /* territories.tsv: $REGLOC_TERRITORIES, $REGLOC_DATADIR, datadir */
  RL_DATA_REGULATORY_DB,   /* the kernel's regulatory.db (wireless-regdb): $REGLOC_REGDB, /lib/firmware */
  RL_DATA_TERRITORY_SOVEREIGNS, /* territory-sovereigns.tsv (generated from iso-codes): $REGLOC_TERRITORY_SOVEREIGNS, $REGLOC_DATADIR, datadir */
} RlDataFile;

/* @configured: NULL or empty for the default.  Never NULL; free it. */
char *rl_data_path (RlDataFile what, const char *configured);

/* A file shipped under data/ (@relative: "trips/sample-trip.scn"): the copy
 * in $REGLOC_DATADIR's directories, else the installed one; NULL when none
 * exists. */
char *rl_data_find (const char *relative);

G_END_DECLS
