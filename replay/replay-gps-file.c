/* A GPS file on disk through the real boundary index (the in-memory loader
 * is in replay-gps.c, where tests inject their own lookup). */
#include "replay/replay-gps.h"

gboolean
rl_replay_load_gps_file (RlReplay *replay, const char *path, const char *format,
                         const char *date, const RlConfig *config,
                         const RlBoundaryIndex *index, GError **error)
{
  g_autofree char *name = NULL;
  g_autoptr (GMappedFile) map = NULL;
  RlGpsEvidenceParams params;
  GError *local = NULL;

  g_return_val_if_fail (replay != NULL && path != NULL && config != NULL, FALSE);

  /* Mapped, not copied, and read once front to back while the replay runs:
   * benchmark logs run to hundreds of megabytes. */
  map = g_mapped_file_new (path, FALSE, &local);
  if (map == NULL)
    {
      g_propagate_prefixed_error (error, local, "cannot read GPS file: ");
      return FALSE;
    }
  if (index == NULL)
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_NO_INDEX,
                   "%s: no boundary index, so GPS fixes cannot be placed in a country", path);
      return FALSE;
    }
  name = g_path_get_basename (path);
  rl_gps_evidence_params_init (&params, config, rl_boundary_lookup, index);
  return rl_replay_load_gps_mapped (replay, name, map, format, date, &params,
                                    config->policy.gps_max_error_m, error);
}
