/* Replay throughput on one NMEA log: what `regloc replay --gps FILE` does
 * (open the boundary index, read and judge every fix, run the policy over
 * the timeline), timed in-process, best of N runs.
 *
 * Usage: bench-replay [--runs N] [--index FILE] LOG.nmea */
#include <stdio.h>
#include <string.h>
#include "replay/replay-gps.h"
#include "readers/nmea.h"

static double
seconds_since (gint64 t0)
{
  return (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
}

int
main (int argc, char **argv)
{
  int runs = 3;
  const char *index_path = NULL, *log = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (GMappedFile) map = NULL;
  double best_parse = G_MAXDOUBLE, best_total = G_MAXDOUBLE;
  RlGpsParseStats stats = { 0 };

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        runs = CLAMP (atoi (argv[++i]), 1, 20);
      else if (strcmp (argv[i], "--index") == 0 && i + 1 < argc)
        index_path = argv[++i];
      else
        log = argv[i];
    }
  if (log == NULL)
    {
      fprintf (stderr, "usage: bench-replay [--runs N] [--index FILE] LOG.nmea\n");
      return 2;
    }
  if (index_path == NULL)
    index_path = rl_boundary_index_default_path ();
  map = g_mapped_file_new (log, FALSE, &error);
  if (map == NULL)
    {
      fprintf (stderr, "bench-replay: %s\n", error->message);
      return 1;
    }

  for (int r = 0; r < runs; r++)
    {
      g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
      g_autoptr (RlBoundaryIndex) index = NULL;
      g_autoptr (RlRegulatory) regulatory = rl_regulatory_load (config->regulatory_db, NULL, NULL);
      g_autoptr (RlReplay) replay = NULL;
      gint64 t0 = g_get_monotonic_time ();

      rl_nmea_parse (g_mapped_file_get_contents (map), g_mapped_file_get_length (map), fixes, &stats);
      best_parse = MIN (best_parse, seconds_since (t0));

      t0 = g_get_monotonic_time ();
      index = rl_boundary_index_open (index_path, &error);
      if (index == NULL)
        {
          fprintf (stderr, "bench-replay: %s\n", error->message);
          return 1;
        }
      replay = rl_replay_new (config, regulatory);
      if (!rl_replay_load_gps_file (replay, log, "nmea", "2024-06-01", config, index, &error))
        {
          fprintf (stderr, "bench-replay: %s\n", error->message);
          return 1;
        }
      rl_replay_run (replay, TRUE);
      best_total = MIN (best_total, seconds_since (t0));
      if (r == 0)
        fprintf (stderr, "bench-replay: %u decision changes, final %s\n", rl_replay_timeline (replay)->len,
                 rl_state_to_string (rl_replay_final (replay)->state));
    }

  printf ("sentences %" G_GUINT64_FORMAT " fixes %" G_GUINT64_FORMAT " rejected %" G_GUINT64_FORMAT "\n",
          stats.records, stats.fixes, rl_gps_parse_stats_rejected_total (&stats));
  printf ("parse only        %.3f s  %.0f sentences/s  %.0f fixes/s\n", best_parse,
          stats.records / best_parse, stats.fixes / best_parse);
  printf ("replay (full)     %.3f s  %.0f sentences/s  %.0f fixes/s\n", best_total,
          stats.records / best_total, stats.fixes / best_total);
  return 0;
}
