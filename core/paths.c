/* Data file lookup (core/paths.h).  No path of the build or source tree is
 * compiled in: a distribution's binary must find only what it installed, and
 * building twice from two directories must give the same bytes. */
#include "core/paths.h"

#include "rl-build-config.h"

const char *
rl_paths_installed_datadir (void)
{
  return RL_DATADIR;
}

char *
rl_paths_find_data (const char *relative)
{
  const char *env = g_getenv ("REGLOC_DATADIR");

  g_return_val_if_fail (relative != NULL, NULL);

  if (env != NULL && env[0] != '\0')
    {
      g_auto (GStrv) dirs = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      for (char **d = dirs; *d != NULL; d++)
        {
          g_autofree char *path = NULL;
          if ((*d)[0] == '\0')
            continue;
          path = g_build_filename (*d, relative, NULL);
          if (g_file_test (path, G_FILE_TEST_EXISTS))
            return g_steal_pointer (&path);
        }
    }
  return g_build_filename (RL_DATADIR, relative, NULL);
}
