/* Data file lookup (core/paths.h).  No path of the build or source tree is
 * compiled in: an installed binary finds only what was installed (and two
 * builds from two directories give the same bytes); an uninstalled build
 * finds the build tree's data/ next to itself at run time, or is pointed
 * elsewhere by $REGLOC_DATADIR. */
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
  [RL_DATA_REGULATORY_DB] = { "REGLOC_REGDB", NULL, RL_REGDB_DEFAULT_PATH },
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

/* The data/ directory of the meson build tree the running binary was built
 * in (build/cli/regloc, build/daemon/reglocd, build/tests/…: the tree's
 * top, one or two levels up, has build.ninja and meson-private/), or NULL
 * for an installed binary.  Found at run time, so nothing of the build
 * tree's path is in the binary. */
static const char *
uninstalled_datadir (void)
{
  static char *dir = NULL;

  if (g_once_init_enter (&dir))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *here = exe ? g_path_get_dirname (exe) : NULL;
      char *found = g_strdup ("");

      for (int up = 0; here != NULL && up < 3; up++)
        {
          g_autofree char *ninja = g_build_filename (here, "build.ninja", NULL);
          g_autofree char *private = g_build_filename (here, "meson-private", NULL);
          char *parent;

          if (g_file_test (ninja, G_FILE_TEST_IS_REGULAR) && g_file_test (private, G_FILE_TEST_IS_DIR))
            {
              g_free (found);
              found = g_build_filename (here, "data", NULL);
              break;
            }
          parent = g_path_get_dirname (here);
          g_free (here);
          here = parent;
        }
      g_once_init_leave (&dir, found);
    }
  return dir[0] != '\0' ? dir : NULL;
}

static char *
find_in_build_tree (const char *relative)
{
  const char *dir = uninstalled_datadir ();
  g_autofree char *path = dir ? g_build_filename (dir, relative, NULL) : NULL;

  if (path != NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&path);
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
  if ((found = find_in_env_dirs (f->name)) != NULL || (found = find_in_build_tree (f->name)) != NULL)
    return found;
  /* also when it is missing: the error then names what an installation lacks */
  return g_build_filename (RL_DATADIR, f->name, NULL);
}

char *
rl_data_find (const char *relative)
{
  char *found = find_in_env_dirs (relative);
  g_autofree char *installed = NULL;

  if (found != NULL || (found = find_in_build_tree (relative)) != NULL)
    return found;
  installed = g_build_filename (RL_DATADIR, relative, NULL);
  if (g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&installed);
  return NULL;
}
