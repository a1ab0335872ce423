/* regloc replay: the very same policy over recorded evidence, as fast as
 * the machine allows.  Exit 0 when every input was read (1 with --check if
 * an expectation failed), 1 when an input is unreadable, 2 on bad usage. */
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <gio/gio.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/paths.h"
#include "core/regdb.h"
#include "replay/replay.h"
#include "replay/replay-gps.h"
#include "replay/replay-scans.h"
#include "replay/report.h"
#include "replay/scenario.h"
#include "geo/tzmap.h"
#include "geo/boundary.h"

typedef struct {
  char *scenario;
  char **gps;
  char *gps_format;
  char *date;
  char **scans;
  char *timezone;
  char *config;
  char *format;
  char *regdb;
  gboolean evidence;
  gboolean check;
} Options;

static void options_clear (Options *o);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

static void
options_clear (Options *o)
{
  g_free (o->scenario);
  g_strfreev (o->gps);
  g_free (o->gps_format);
  g_free (o->date);
  g_strfreev (o->scans);
  g_free (o->timezone);
  g_free (o->config);
  g_free (o->format);
  g_free (o->regdb);
}

static int die (int code, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static int
die (int code, const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "regloc replay: ");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, "\n");
  return code;
}

static gboolean
load_inputs (const Options *o, const RlConfig *config, const RlTzMap *tzmap, const RlBoundaryIndex *index,
             RlReplay *replay, GArray *expects, gboolean *settle, GError **error)
{
  if (o->scenario != NULL)
    {
      g_autofree char *text = NULL;
      RlScenarioContext ctx = { config, tzmap, rl_scenario_boundary_lookup, (gpointer) index };
      if (!g_file_get_contents (o->scenario, &text, NULL, error))
        return FALSE;
      if (!rl_scenario_parse (text, o->scenario, &ctx, replay, expects, settle, error))
        return FALSE;
    }
  for (guint i = 0; o->gps != NULL && o->gps[i] != NULL; i++)
    {
      if (!rl_replay_load_gps_file (replay, o->gps[i], o->gps_format, o->date, config, index, error))
        return FALSE;
    }
  for (guint i = 0; o->scans != NULL && o->scans[i] != NULL; i++)
    if (!rl_replay_load_scan_file (replay, o->scans[i], config, error))
      return FALSE;
  return TRUE;
}

int
rl_cmd_replay (int argc, char **argv)
{
  g_auto (Options) o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— run the policy over recorded evidence");
  GOptionEntry entries[] = {
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &o.scenario, "A scenario file (docs/scenario-format.md)", "FILE" },
    { "gps", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.gps, "A GPS log: NMEA 0183, gpsd JSON or GPX (repeatable)", "FILE" },
    { "gps-format", 0, 0, G_OPTION_ARG_STRING, &o.gps_format, "Force the GPS log format: nmea, gpsd or gpx", "FORMAT" },
    { "date", 0, 0, G_OPTION_ARG_STRING, &o.date, "Date for logs that carry only a time of day", "YYYY-MM-DD" },
    { "scans", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.scans, "A scan log (JSON lines) or packet capture (repeatable)", "FILE" },
    { "timezone", 0, 0, G_OPTION_ARG_STRING, &o.timezone, "The timezone the machine was set to", "ZONE" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config, "Policy from this regloc.conf (default: built-in defaults)", "FILE" },
    { "regdb", 0, 0, G_OPTION_ARG_FILENAME, &o.regdb, "regulatory.db to check countries against", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format, "Output: text (default), json or csv", "FORMAT" },
    { "evidence", 0, 0, G_OPTION_ARG_NONE, &o.evidence, "With --format json: list every evidence item read", NULL },
    { "check", 0, 0, G_OPTION_ARG_NONE, &o.check, "Check the scenario's expect lines; exit 1 if one fails", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return die (RL_EXIT_USAGE, "%s (try --help)", error->message);
  if (argc > 1)
    return die (RL_EXIT_USAGE, "unexpected argument '%s' (inputs go after --scenario, --gps or --scans)", argv[1]);
  if (o.scenario == NULL && o.gps == NULL && o.scans == NULL)
    return die (RL_EXIT_USAGE, "%s", "nothing to replay: give --scenario, --gps or --scans (try --help)");
  if (o.format != NULL && strcmp (o.format, "text") != 0 && strcmp (o.format, "json") != 0 && strcmp (o.format, "csv") != 0)
    return die (RL_EXIT_USAGE, "unknown --format '%s': expected text, json or csv", o.format);

  g_autoptr (RlConfig) config = rl_config_load (o.config, &error);
  if (config == NULL)
    return die (RL_EXIT_FAILURE, "%s", error->message);
  g_autoptr (GError) reg_error = NULL;
  g_autoptr (RlRegulatory) regulatory = rl_regulatory_load (o.regdb ? o.regdb : config->regulatory_db,
                                                            config->territories, &reg_error);
  if (reg_error != NULL)
    fprintf (stderr, "regloc replay: warning: %s\n", reg_error->message);
  g_autoptr (GError) tz_error = NULL;
  g_autoptr (RlTzMap) tzmap = rl_tzmap_new (config->zoneinfo_dir, &tz_error);

  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  gboolean settle = TRUE;
  rl_replay_set_keep_evidence (replay, o.evidence);
  /* without the index GPS lines must name their countries; say why once */
  g_autoptr (GError) index_error = NULL;
  g_autofree char *index_path = rl_data_path (RL_DATA_BOUNDARY_INDEX, config->boundary_index);
  g_autoptr (RlBoundaryIndex) index = rl_boundary_index_open (index_path, &index_error);
  if (index == NULL)
    rl_replay_note (replay, "boundary index unavailable (%s): GPS positions cannot be placed", index_error->message);
  if (!load_inputs (&o, config, tzmap, index, replay, expects, &settle, &error))
    return die (RL_EXIT_FAILURE, "%s", error->message);
  if (o.timezone != NULL)
    {
      RlEvidence ev;
      if (tzmap == NULL)
        return die (RL_EXIT_FAILURE, "--timezone: %s", tz_error->message);
      if (rl_tzmap_evidence (tzmap, o.timezone, 0, RL_NEVER, &ev))
        rl_replay_add_evidence_at_start (replay, &ev);
      else
        rl_replay_note (replay, "timezone %s names no country: not used", o.timezone);
    }

  /* text and CSV rows go out as the run decides; JSON at the end */
  g_autoptr (RlReportWriter) writer = rl_report_writer_new (o.format, stdout, &error);
  if (writer == NULL)
    return die (RL_EXIT_USAGE, "%s", error->message);
  rl_report_writer_attach (writer, replay);
  rl_replay_run (replay, settle);
  rl_report_writer_finish (writer, replay);
  if (o.check)
    {
      g_autoptr (GString) report = g_string_new (NULL);
      guint failed = rl_scenario_check (replay, expects, report);
      fputs (report->str, o.format && strcmp (o.format, "text") != 0 ? stderr : stdout);
      if (expects->len == 0)
        return die (RL_EXIT_FAILURE, "%s", "--check: the scenario has no expect lines");
      return failed ? RL_EXIT_FAILURE : RL_EXIT_OK;
    }
  return RL_EXIT_OK;
}
