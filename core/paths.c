/* Data file lookup (core/paths.h).  No path of the build or source tree is
 * compiled in: an installed binary finds only what was installed (and two
 * builds from two directories give the same bytes); an uninstalled build is
 * pointed at its trees by $REGLOC_DATADIR (meson test, meson devenv,
 * tools/demo.sh set it). */
#include "core/paths.h"
#include "core/regdb.h"
#include "rl-build-config.h"

typedef struct {
  const char *env;         /* NULL: no override */
  const char *name;        /* under the data directories; NULL: @fixed */
  const char *fixed;
} DataFile;

static const DataFile files[] = {
  [RL_DATA_BOUNDARY_INDEX] = { "REGLOC_BOUNDARY_INDEX", "boundaries.idx", NULL },
  [RL_DATA_TERRITORIES] = { "REGLOC_TERRITORIES", "territories.tsv", NULL },
  [RL_DATA_REGULATORY_DB] = { NULL, NULL, RL_REGDB_DEFAULT_PATH },
  [RL_DATA_TERRITORY_SOVEREIGNS] = { "REGLOC_TERRITORY_SOVEREIGNS", "territory-sovereigns.tsv", NULL },
};

/* @relative below the first directory of $REGLOC_DATADIR that has it. */
static char *
find_in_env_dirs (const char *relative)
{
  const char *env = g_getenv ("REGLOC_DATADIR");
  g_auto (GStrv) dirs = NULL;

  if (env == NULL || env[0] == '\0')
    return NULL;
  dirs = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
  for (char **d = dirs; *d != NULL; d++)
    {
      g_autofree char *path = NULL;
      if ((*d)[0] == '\0')
        continue;
      path = g_build_filename (*d, relative, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

char *
rl_data_path (RlDataFile what, const char *configured)
{
  const DataFile *f;
  const char *env;
  char *found;

  g_return_val_if_fail ((guint) what < G_N_ELEMENTS (files), NULL);
  f = &files[what];
  if (configured != NULL && configured[0] != '\0')
    return g_strdup (configured);
  env = f->env ? g_getenv (f->env) : NULL;
  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (f->name == NULL)
    return g_strdup (f->fixed);
  if ((found = find_in_env_dirs (f->name)) != NULL)
    return found;
  /* also when it is missing: the error then names what an installation lacks */
  return g_build_filename (RL_DATADIR, f->name, NULL);
}

char *
rl_data_find (const char *relative)
{
  char *found = find_in_env_dirs (relative);
  g_autofree char *installed = NULL;

  if (found != NULL)
    return found;
  installed = g_build_filename (RL_DATADIR, relative, NULL);
  if (g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&installed);
  return NULL;
}
