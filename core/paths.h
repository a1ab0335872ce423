/* Where regloc's data files are: the installed datadir, or the directories
 * $REGLOC_DATADIR lists.  An installed binary knows only its install paths;
 * an uninstalled build (the tests, `meson devenv -C build`, tools/demo.sh)
 * points $REGLOC_DATADIR at the build tree's and the source tree's data/. */
#pragma once

#include <glib.h>

/* The first existing @relative ("territories.tsv", "trips/x.scn") below one
 * of the directories of $REGLOC_DATADIR (separated by ':'), then below the
 * installed datadir.  When none exists, the installed path, so that an error
 * names the file an installation should have. */
char *rl_paths_find_data (const char *relative);

/* The installed datadir (prefix/share/regloc). */
const char *rl_paths_installed_datadir (void);
