/* Shared pieces of the libFuzzer targets: see fuzz-common.h. */
#include "fuzz/fuzz-common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include "core/regdb.h"

static GLogWriterOutput
fuzz_log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    {
      g_log_writer_standard_streams (level, fields, n_fields, user_data);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
  return 0;
}

const char *
rl_fuzz_as_file (const guint8 *data, gsize size)
{
  static int fd = -1;
  static char path[64];

  if (fd < 0)
    {
      fd = memfd_create ("regloc-fuzz", MFD_CLOEXEC);
      if (fd < 0)
        g_error ("memfd_create: %s", g_strerror (errno));
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    }
  if (ftruncate (fd, 0) != 0 || (size > 0 && pwrite (fd, data, size, 0) != (ssize_t) size))
    g_error ("writing the input to %s: %s", path, g_strerror (errno));
  return path;
}

const RlConfig *
rl_fuzz_config (void)
{
  static RlConfig *config;

  if (config == NULL)
    config = rl_config_new_default ();
  return config;
}

RlReplay *
rl_fuzz_replay_new (void)
{
  static RlRegulatory *regulatory;

  if (regulatory == NULL)
    regulatory = rl_regulatory_load (NULL, NULL, NULL);
  RlReplay *replay = rl_replay_new (rl_fuzz_config (), regulatory);
  /* the report then lists every item of evidence, text from the input included */
  rl_replay_set_keep_evidence (replay, TRUE);
  return replay;
}

void
rl_fuzz_replay_run (RlReplay *replay, gboolean settle)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL, *json = NULL;

  rl_replay_run (replay, settle);
  text = rl_replay_format (replay, "text", NULL);
  json = rl_replay_format (replay, "json", NULL);
  g_assert (text != NULL && json != NULL);
  if (!json_parser_load_from_data (parser, json, -1, &error))
    g_error ("the replay report is not JSON (%s): %s", error->message, json);
}

void
rl_fuzz_check_fixes (const GArray *fixes, const RlGpsParseStats *stats, gboolean increasing)
{
  g_assert (stats->fixes == fixes->len);
  for (guint i = 0; i < fixes->len; i++)
    {
      const RlGpsFix *f = &g_array_index (fixes, RlGpsFix, i);
      if (rl_gps_fix_is_lost (f))
        g_assert (f->mode == 1 && isnan (f->lat));
      else
        {
          g_assert (fabs (f->lat) <= 90 && fabs (f->lon) <= 180);
          g_assert (f->mode == 2 || f->mode == 3);
        }
      g_assert (!increasing || i == 0 || f->time > g_array_index (fixes, RlGpsFix, i - 1).time);
    }
}
