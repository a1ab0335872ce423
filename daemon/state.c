#define G_LOG_DOMAIN "regloc-state"

#include "daemon/state.h"

#include <errno.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#define GROUP "override"
#define KEY "country"

char *
rl_state_dir (void)
{
  const char *env = g_getenv ("STATE_DIRECTORY");

  if (env != NULL && env[0] != '\0')
    {
      /* systemd joins several StateDirectory= entries with ':'. */
      const char *colon = strchr (env, ':');
      return colon ? g_strndup (env, (gsize) (colon - env)) : g_strdup (env);
    }
  return g_strdup (RL_STATE_DEFAULT_DIR);
}

/* g_file_set_contents_full () writes "override.XXXXXX" and renames it over
 * "override": a crash between the two leaves the temporary file behind.  No
 * other writer exists while reglocd loads its state, so any such file is a
 * leftover. */
static void
remove_stale_temporaries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  gsize prefix = strlen (RL_STATE_OVERRIDE_FILE ".");

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;

      if (!g_str_has_prefix (name, RL_STATE_OVERRIDE_FILE ".") || strlen (name) != prefix + 6)
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_unlink (path) == 0)
        g_message ("Removed %s, left behind by an interrupted write", path);
    }
}

gboolean
rl_state_load_override (const char *dir, RlCountry *country, GError **error)
{
  g_autofree char *path = g_build_filename (dir, RL_STATE_OVERRIDE_FILE, NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *value = NULL;

  *country = RL_COUNTRY_NONE;
  remove_stale_temporaries (dir);
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%s: cannot read the persisted override: %s", path, local->message);
      return FALSE;
    }
  value = g_key_file_get_string (kf, GROUP, KEY, &local);
  if (value == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%s: corrupt: %s", path, local->message);
      return FALSE;
    }
  g_strstrip (value);
  if (!rl_country_parse (value, country))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%s: corrupt: [%s] %s=\"%s\" is not a country code (two letters or 00)",
                   path, GROUP, KEY, value);
      return FALSE;
    }
  return TRUE;
}

gboolean
rl_state_save_override (const char *dir, RlCountry country, GError **error)
{
  g_autofree char *path = g_build_filename (dir, RL_STATE_OVERRIDE_FILE, NULL);
  g_autofree char *data = NULL;
  char cc[3];

  if (country == RL_COUNTRY_NONE)
    {
      if (g_unlink (path) < 0 && errno != ENOENT)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       "%s: cannot remove the persisted override: %s", path, g_strerror (saved));
          return FALSE;
        }
      return TRUE;
    }

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: cannot create the state directory: %s", dir, g_strerror (saved));
      return FALSE;
    }
  data = g_strdup_printf ("# Written by reglocd: the override set with SetOverride (regloc override set).\n"
                          "[" GROUP "]\n" KEY "=%s\n", rl_country_to_string (country, cc));
  return g_file_set_contents_full (path, data, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0644, error);
}
