#include "core/paths.h"
#include "core/regdb.h"
#include "rl-build-config.h"

typedef struct {
  const char *env;         /* NULL: no override */
  const char *name;        /* under the data directories; NULL: @fixed */
  const char *tree;        /* the build's copy: build or source tree */
  const char *fixed;
} DataFile;

static const DataFile files[] = {
  [RL_DATA_BOUNDARY_INDEX] = { "REGLOC_BOUNDARY_INDEX", "boundaries.idx", RL_BUILD_DATADIR, NULL },
  [RL_DATA_TERRITORIES] = { "REGLOC_TERRITORIES", "territories.tsv", RL_SOURCE_DATADIR, NULL },
  [RL_DATA_REGULATORY_DB] = { NULL, NULL, NULL, RL_REGDB_DEFAULT_PATH },
  [RL_DATA_TERRITORY_SOVEREIGNS] = { "REGLOC_TERRITORY_SOVEREIGNS", "territory-sovereigns.tsv", RL_BUILD_DATADIR, NULL },
};

char *
rl_data_path (RlDataFile what, const char *configured)
{
  const DataFile *f;
  const char *env;
  g_autofree char *installed = NULL;

  g_return_val_if_fail ((guint) what < G_N_ELEMENTS (files), NULL);
  f = &files[what];
  if (configured != NULL && configured[0] != '\0')
    return g_strdup (configured);
  env = f->env ? g_getenv (f->env) : NULL;
  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (f->name == NULL)
    return g_strdup (f->fixed);
  installed = g_build_filename (RL_DATADIR, f->name, NULL);
  if (g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&installed);
  return g_build_filename (f->tree, f->name, NULL);
}

char *
rl_data_find (const char *relative)
{
  const char *dirs[] = { RL_DATADIR, RL_SOURCE_DATADIR };

  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], relative, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}
