/* A GPS file on disk through the real boundary index (the in-memory loader
 * is in replay-gps.c, where tests inject their own lookup). */
#include "replay/replay-gps.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

/* Logs up to this size are read into memory; longer ones are mapped. */
#define READ_MAX (1u << 20)

/* The whole of a small regular file, or NULL (then the caller maps it,
 * and any error is the mapping's, worded as always). */
static GBytes *
read_small (const char *path)
{
  GStatBuf st;
  char *buf;
  gsize len;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size <= 0 || st.st_size > READ_MAX ||
      !g_file_get_contents (path, &buf, &len, NULL))
    return NULL;
  return g_bytes_new_take (buf, len);
}

gboolean
rl_replay_load_gps_file (RlReplay *replay, const char *path, const char *format,
                         const char *date, const RlConfig *config,
                         const RlBoundaryIndex *index, GError **error)
{
  g_autofree char *name = NULL;
  g_autoptr (GMappedFile) map = NULL;
  g_autoptr (GBytes) bytes = NULL;
  RlGpsEvidenceParams params;
  GError *local = NULL;

  g_return_val_if_fail (replay != NULL && path != NULL && config != NULL, FALSE);

  /* A long log is mapped, not copied, and read once front to back while
   * the replay runs: benchmark logs run to hundreds of megabytes.  A short
   * one is read: mapping and unmapping it costs more than the copy, and
   * with --batch every unmapping interrupts the other workers' cores. */
  bytes = read_small (path);
  if (bytes == NULL)
    {
      map = g_mapped_file_new (path, FALSE, &local);
      if (map == NULL)
        {
          g_propagate_prefixed_error (error, local, "cannot read GPS file: ");
          return FALSE;
        }
    }
  if (index == NULL)
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_NO_INDEX,
                   "%s: no boundary index, so GPS fixes cannot be placed in a country", path);
      return FALSE;
    }
  name = g_path_get_basename (path);
  rl_gps_evidence_params_init (&params, config, rl_boundary_lookup, index);
  if (bytes != NULL)
    return rl_replay_load_gps_bytes (replay, name, bytes, format, date, &params,
                                     config->policy.gps_max_error_m, error);
  return rl_replay_load_gps_mapped (replay, name, map, format, date, &params,
                                    config->policy.gps_max_error_m, error);
}
