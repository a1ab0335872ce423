/* regloc replay: the very same policy over recorded evidence, as fast as
 * the machine allows.  Exit 0 when every input was read (1 with --check if
 * an expectation failed), 1 when an input is unreadable, 2 on bad usage. */
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/paths.h"
#include "core/regdb.h"
#include "replay/replay.h"
#include "replay/replay-gps.h"
#include "replay/replay-scans.h"
#include "replay/report.h"
#include "replay/map.h"
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
  char *map;
  gboolean batch;
  int jobs;
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
  g_free (o->map);
}

static int rl_replay_batch (Options *o, int argc, char **argv);
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
  return rl_replay_align_inputs (replay, error);
}

/* "svg", "geojson" or "kml" by the file name's ending; NULL otherwise. */
static const char *
map_kind (const char *path)
{
  if (g_str_has_suffix (path, ".svg"))
    return "svg";
  if (g_str_has_suffix (path, ".geojson") || g_str_has_suffix (path, ".json"))
    return "geojson";
  if (g_str_has_suffix (path, ".kml"))
    return "kml";
  return NULL;
}

static char *
map_document (const char *kind, const RlTrack *track, const RlReplay *replay, const RlBoundaryIndex *index)
{
  if (strcmp (kind, "geojson") == 0)
    return rl_map_geojson (track, replay);
  if (strcmp (kind, "kml") == 0)
    return rl_map_kml (track, replay);
  return rl_map_svg (track, replay, index);
}

/* ---- --batch: many logs, each on its own, on every core ----------------- */

/* The tables every log shares are read once.  The boundary index is
 * opened with its header checked only (RL_BOUNDARY_OPEN_VERIFY_LATER): its
 * checksum, which reads all 19 MB, runs on a thread of its own while the
 * workers replay.  No line is written before it passed; the workers do not
 * wait for it, they keep their lines.  Should it fail, every log replayed
 * with the index is replayed again without it, and no later log uses it.
 * The timezone tables are read the first time a log needs them
 * (--timezone, a scenario), by whichever worker comes first: most batches
 * of GPS logs never do. */
typedef struct {
  const Options *o;
  const RlConfig *config;
  const RlRegulatory *regulatory;
  RlBoundaryIndex *index;        /* checked or not yet */
  GThread *verifier;
  gsize tzmap_ready;
  RlTzMap *tzmap;
  GMutex lock;                   /* guards what follows */
  gboolean checked;              /* the index's check is over (or there is no index) */
  gboolean index_bad;            /* it failed the check */
  guint n;
  guint next_out;      /* the first line not yet written */
  gboolean writing;    /* a worker is writing lines out */
  char **lines;        /* the JSON line of each log, once replayed */
  char **rows;         /* its row of the summary table */
  gboolean *failed;    /* an error, or not the expected country */
  gboolean *unreadable;
  gboolean *with_index;  /* replayed with the index before its check was over */
} Batch;

/* --timezone gave no evidence: UTC and its like name no country, a typo
 * names no zone; the note says which. */
static void
note_timezone_unused (RlReplay *replay, const RlTzMap *map, const char *zone)
{
  if (rl_tzmap_knows (map, zone))
    rl_replay_note (replay, "timezone %s names no country: not used", zone);
  else
    rl_replay_note (replay, "timezone %s is no zone of the installed tzdata (a typo?): not used", zone);
}

static const RlTzMap *
batch_tzmap (Batch *b)
{
  if (g_once_init_enter (&b->tzmap_ready))
    {
      b->tzmap = rl_tzmap_new (b->config->zoneinfo_dir, NULL);
      g_once_init_leave (&b->tzmap_ready, 1);
    }
  return b->tzmap;
}

typedef struct {
  guint64 fixes;
} BatchCount;

static void
batch_count (const RlEvent *e, gpointer user_data)
{
  BatchCount *c = user_data;

  if (e->type == RL_EVENT_EVIDENCE && e->ev.kind == RL_SOURCE_GPS)
    c->fixes++;
}

/* The country a sidecar LOG.expect (or LOG-without-extension.expect) names. */
static gboolean
batch_expected (const char *path, RlCountry *expected, char **bad)
{
  g_autofree char *text = NULL, *side = g_strconcat (path, ".expect", NULL);
  char *dot = strrchr (path, '.'), *slash = strrchr (path, '/');

  if (!g_file_get_contents (side, &text, NULL, NULL) && dot != NULL && (slash == NULL || dot > slash))
    {
      g_free (side);
      side = g_strdup_printf ("%.*s.expect", (int) (dot - path), path);
      if (!g_file_get_contents (side, &text, NULL, NULL))
        return FALSE;
    }
  if (text == NULL)
    return FALSE;
  g_strstrip (text);
  text[strcspn (text, " \t\r\n#")] = '\0';
  if (!rl_country_parse (text, expected))
    {
      *bad = g_strdup_printf ("%s: '%s' is not a country code", side, text);
      *expected = RL_COUNTRY_NONE;
    }
  return TRUE;
}

/* How much of a log --batch reads to tell what it is. */
#define BATCH_HEAD 65536

static gboolean
batch_load (Batch *b, RlReplay *replay, const char *path, const RlBoundaryIndex *index, GError **error)
{
  if (g_str_has_suffix (path, ".scn"))
    {
      g_autofree char *text = NULL;
      g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
      gboolean settle = TRUE;
      RlScenarioContext ctx = { b->config, batch_tzmap (b), rl_scenario_boundary_lookup, (gpointer) index };
      return g_file_get_contents (path, &text, NULL, error) &&
             rl_scenario_parse (text, path, &ctx, replay, expects, &settle, error);
    }
  /* Anything else is told by its content, as --scans and --gps tell it:
   * airodump-ng writes dump-01.cap, scan logs get saved as .json, gpsd
   * logs as .jsonl.  The start of the file is enough (a capture's magic,
   * a scan log's first line; NMEA sniffing looks 4 KiB in past gpsd's
   * banner).  What the content does not tell, the ending does, so that a
   * scan log whose first lines are damaged is read as with --scans. */
  {
    g_autofree char *head = g_malloc (BATCH_HEAD);
    gsize n = 0;
    FILE *f = fopen (path, "rb");
    gboolean opened = f != NULL;

    if (opened)
      {
        n = fread (head, 1, BATCH_HEAD, f);
        fclose (f);
      }
    if (rl_replay_scans_sniff (head, n))
      return rl_replay_load_scan_file (replay, path, b->config, error);
    if (opened && b->o->gps_format == NULL && rl_gps_detect_format (head, n) == NULL)
      {
        g_autofree char *name = NULL;

        if (g_str_has_suffix (path, ".jsonl") || g_str_has_suffix (path, ".pcap") ||
            g_str_has_suffix (path, ".pcapng"))
          return rl_replay_load_scan_file (replay, path, b->config, error);
        name = g_path_get_basename (path);
        g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT,
                     "%s: unknown format: not a capture (pcap, pcapng), a scan log (JSON lines), "
                     "NMEA 0183, gpsd JSON or GPX (a scenario ends in .scn)", name);
        return FALSE;
      }
  }
  /* a file that cannot be opened gets the GPS loader's own error */
  return rl_replay_load_gps_file (replay, path, b->o->gps_format, b->o->date, b->config, index, error);
}

static void
json_member_s (JsonBuilder *jb, const char *name, const char *value)
{
  json_builder_set_member_name (jb, name);
  json_builder_add_string_value (jb, value);
}

static void
json_member_i (JsonBuilder *jb, const char *name, gint64 value)
{
  json_builder_set_member_name (jb, name);
  json_builder_add_int_value (jb, value);
}

static char *
json_line (JsonBuilder *jb)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (jb);

  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

static char *
seconds_text (gint64 us)
{
  return us < 0 ? g_strdup ("-") : g_strdup_printf ("%" G_GINT64_FORMAT "s", us / RL_USEC_PER_SEC);
}

/* Lines in the order of the list, each as soon as the ones before it are
 * out: the worker that finishes the next line due writes it and whatever
 * is ready after it (one writer at a time; called and returns locked). */
static void
batch_write_ready (Batch *b)
{
  if (b->writing || !b->checked)
    return;
  b->writing = TRUE;
  while (b->next_out < b->n && b->lines[b->next_out] != NULL)
    {
      g_autofree char *line = g_steal_pointer (&b->lines[b->next_out]);
      g_mutex_unlock (&b->lock);
      fputs (line, stdout);
      fputc ('\n', stdout);
      fflush (stdout);
      g_mutex_lock (&b->lock);
      b->next_out++;
    }
  b->writing = FALSE;
}

/* One log replayed with @index (or none): its JSON line, its row of the
 * table, whether it failed (an error or not the expected country) and
 * whether it could not be read. */
static void
batch_replay (Batch *b, guint i, const RlBoundaryIndex *index, char **line_out, char **row_out, gboolean *failed_out,
              gboolean *unreadable_out)
{
  const char *path = b->o->gps[i];
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (RlReplay) replay = rl_replay_new (b->config, b->regulatory);
  BatchCount count = { 0 };
  g_autofree char *bad_expect = NULL;
  RlCountry expected = RL_COUNTRY_NONE;
  gboolean has_expect = batch_expected (path, &expected, &bad_expect);
  char *line, *row;
  gboolean failed, unreadable = FALSE;

  json_builder_begin_object (jb);
  json_member_s (jb, "file", path);
  rl_replay_set_event_func (replay, batch_count, &count);
  if (index == NULL)
    rl_replay_note (replay, "%s", "boundary index unavailable: GPS positions cannot be placed");
  if (!batch_load (b, replay, path, index, &error))
    {
      json_member_s (jb, "error", error->message);
      json_builder_end_object (jb);
      line = json_line (jb);
      row = g_strdup_printf ("%-62s  %s (error: %s)", "unreadable", path, error->message);
      failed = unreadable = TRUE;
    }
  else
    {
      const GArray *tl;
      const RlDecision *final;
      gint64 first, last, first_decision = -1, on_world = 0;
      guint changes = 0, conflicts = 0;
      g_autoptr (GString) countries = g_string_new (NULL);
      char cc[3];

      if (b->o->timezone != NULL && batch_tzmap (b) != NULL)
        {
          RlEvidence ev;
          if (rl_tzmap_evidence (batch_tzmap (b), b->o->timezone, 0, RL_NEVER, &ev))
            rl_replay_add_evidence_at_start (replay, &ev);
          else
            note_timezone_unused (replay, batch_tzmap (b), b->o->timezone);
        }
      rl_replay_run (replay, TRUE);
      tl = rl_replay_timeline (replay);
      final = rl_replay_final (replay);
      rl_replay_span (replay, &first, &last);
      json_builder_set_member_name (jb, "span");
      json_builder_begin_object (jb);
      {
        g_autoptr (GDateTime) a = g_date_time_new_from_unix_utc (first / RL_USEC_PER_SEC);
        g_autoptr (GDateTime) z = g_date_time_new_from_unix_utc (last / RL_USEC_PER_SEC);
        g_autofree char *as = a ? g_date_time_format (a, "%Y-%m-%dT%H:%M:%SZ") : g_strdup ("?");
        g_autofree char *zs = z ? g_date_time_format (z, "%Y-%m-%dT%H:%M:%SZ") : g_strdup ("?");
        json_member_s (jb, "start", as);
        json_member_s (jb, "end", zs);
        json_member_i (jb, "seconds", (last - first) / RL_USEC_PER_SEC);
      }
      json_builder_end_object (jb);
      json_member_i (jb, "fixes", (gint64) count.fixes);
      json_builder_set_member_name (jb, "countries");
      json_builder_begin_array (jb);
      for (guint k = 0; k < tl->len; k++)
        {
          const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, k);
          gint64 end = k + 1 < tl->len ? g_array_index (tl, RlTimelineEntry, k + 1).time : last;
          if (e->country == RL_COUNTRY_WORLD)
            on_world += MAX (end - e->time, 0);
          if (k > 0 && g_array_index (tl, RlTimelineEntry, k - 1).country != e->country)
            changes++;
          if (e->state == RL_STATE_CONFLICT && (k == 0 || g_array_index (tl, RlTimelineEntry, k - 1).state != RL_STATE_CONFLICT))
            conflicts++;
          if (e->state == RL_STATE_DECIDED || e->state == RL_STATE_OVERRIDE)
            {
              if (first_decision < 0)
                first_decision = e->time - first;
              rl_country_to_string (e->country, cc);
              if (strstr (countries->str, cc) == NULL)
                {
                  g_string_append_printf (countries, "%s%s", countries->len ? "," : "", cc);
                  json_builder_add_string_value (jb, cc);
                }
            }
        }
      json_builder_end_array (jb);
      json_builder_set_member_name (jb, "first_decision_s");
      if (first_decision < 0)
        json_builder_add_null_value (jb);
      else
        json_builder_add_int_value (jb, first_decision / RL_USEC_PER_SEC);
      json_member_i (jb, "seconds_on_00", on_world / RL_USEC_PER_SEC);
      json_member_i (jb, "changes", changes);
      json_member_i (jb, "conflicts", conflicts);
      json_member_s (jb, "final", rl_country_to_string (final->country, cc));
      json_member_s (jb, "final_state", rl_state_to_string (final->state));
      json_builder_set_member_name (jb, "notes");
      json_builder_begin_array (jb);
      rl_replay_foreach_note (replay, rl_report_json_note, jb);
      if (bad_expect != NULL)
        json_builder_add_string_value (jb, bad_expect);
      json_builder_end_array (jb);
      failed = FALSE;
      if (has_expect)
        {
          json_member_s (jb, "expected", expected ? rl_country_to_string (expected, cc) : "?");
          json_builder_set_member_name (jb, "ok");
          json_builder_add_boolean_value (jb, expected != RL_COUNTRY_NONE && final->country == expected);
          failed = !(expected != RL_COUNTRY_NONE && final->country == expected);
        }
      json_builder_end_object (jb);
      line = json_line (jb);
      {
        g_autofree char *fd = seconds_text (first_decision), *ow = seconds_text (on_world);
        char ec[3];
        g_autofree char *verdict = !has_expect ? g_strdup ("-") : !failed ? g_strdup ("ok")
                                   : g_strdup_printf ("FAIL:%s", expected ? rl_country_to_string (expected, ec) : "?");
        row = g_strdup_printf ("%7" G_GUINT64_FORMAT " %-12s %7s %7s %5u %5u %-8s %-5s  %s", count.fixes,
                               countries->len ? countries->str : "-", fd, ow, changes, conflicts, verdict,
                               rl_country_to_string (final->country, cc), path);
      }
    }
  *line_out = line;
  *row_out = row;
  *failed_out = failed;
  *unreadable_out = unreadable;
}

/* Keeps log @i's results (called locked). */
static void
batch_store (Batch *b, guint i, char *line, char *row, gboolean failed, gboolean unreadable, gboolean with_index)
{
  g_free (b->lines[i]);
  g_free (b->rows[i]);
  b->lines[i] = line;
  b->rows[i] = row;
  b->failed[i] = failed;
  b->unreadable[i] = unreadable;
  b->with_index[i] = with_index;
}

/* The check, on its own thread.  When it fails, the logs already replayed
 * with the index are replayed again here, without it (the workers redo the
 * ones they are on); then the kept lines go out. */
static gpointer
batch_verify_index (gpointer data)
{
  Batch *b = data;
  gboolean ok = rl_boundary_index_verify (b->index, NULL);

  g_mutex_lock (&b->lock);
  b->index_bad = !ok;
  for (guint i = 0; !ok && i < b->n; i++)
    if (b->lines[i] != NULL && b->with_index[i])
      {
        char *line, *row;
        gboolean failed, unreadable;
        g_mutex_unlock (&b->lock);
        batch_replay (b, i, NULL, &line, &row, &failed, &unreadable);
        g_mutex_lock (&b->lock);
        batch_store (b, i, line, row, failed, unreadable, FALSE);
      }
  b->checked = TRUE;
  batch_write_ready (b);
  g_mutex_unlock (&b->lock);
  return NULL;
}

static void
batch_one (gpointer data, gpointer user_data)
{
  guint i = GPOINTER_TO_UINT (data) - 1;
  Batch *b = user_data;
  const RlBoundaryIndex *index;
  char *line, *row;
  gboolean failed, unreadable;

  g_mutex_lock (&b->lock);
  index = b->index_bad ? NULL : b->index;
  g_mutex_unlock (&b->lock);
  batch_replay (b, i, index, &line, &row, &failed, &unreadable);
  g_mutex_lock (&b->lock);
  if (index != NULL && b->index_bad)
    {
      /* the index failed its check meanwhile: this log again, without it */
      g_mutex_unlock (&b->lock);
      g_free (line);
      g_free (row);
      batch_replay (b, i, NULL, &line, &row, &failed, &unreadable);
      g_mutex_lock (&b->lock);
      index = NULL;
    }
  batch_store (b, i, line, row, failed, unreadable, index != NULL);
  batch_write_ready (b);
  g_mutex_unlock (&b->lock);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
batch_skip (const char *name)
{
  return name[0] == '.' || g_str_has_suffix (name, ".expect");
}

/* Arguments, directories (their files, sorted; not recursive) and "-"
 * (one path a line on stdin) as one list. */
static GPtrArray *
batch_inputs (int argc, char **argv, GError **error)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);

  for (int i = 0; i < argc; i++)
    {
      if (strcmp (argv[i], "-") == 0)
        {
          char buf[4096];
          while (fgets (buf, sizeof buf, stdin) != NULL)
            {
              g_strstrip (buf);
              if (buf[0] != '\0' && buf[0] != '#')
                g_ptr_array_add (files, g_strdup (buf));
            }
        }
      else if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr (GDir) dir = g_dir_open (argv[i], 0, error);
          g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;
          if (dir == NULL)
            {
              g_ptr_array_unref (files);
              return NULL;
            }
          while ((name = g_dir_read_name (dir)) != NULL)
            {
              g_autofree char *p = g_build_filename (argv[i], name, NULL);
              if (!batch_skip (name) && g_file_test (p, G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add (names, g_steal_pointer (&p));
            }
          g_ptr_array_sort (names, compare_paths);
          for (guint k = 0; k < names->len; k++)
            g_ptr_array_add (files, g_strdup (names->pdata[k]));
        }
      else
        g_ptr_array_add (files, g_strdup (argv[i]));
    }
  return files;
}

static int
rl_replay_batch (Options *o, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = NULL;
  guint n, failures = 0, errors = 0;
  int jobs = o->jobs > 0 ? o->jobs : (int) g_get_num_processors ();
  gint64 t0 = g_get_monotonic_time ();
  Batch b = { 0 };

  if (o->scenario != NULL || o->gps != NULL || o->scans != NULL || o->map != NULL || o->check || o->evidence)
    return die (RL_EXIT_USAGE, "%s", "--batch takes the logs as arguments (not --scenario, --gps, --scans, --map, --check, --evidence)");
  if (o->format != NULL && strcmp (o->format, "json") != 0)
    return die (RL_EXIT_USAGE, "%s", "--batch writes JSON lines only");
  if (argc == 0)
    return die (RL_EXIT_USAGE, "%s", "--batch: give logs, directories or - (a list on stdin)");
  /* errors reported in the same order as ever: the list's, then the
   * configuration's */
  g_autoptr (GError) config_error = NULL;
  g_autoptr (RlConfig) config = rl_config_load (o->config, &config_error);
  files = batch_inputs (argc, argv, &error);
  if (files == NULL || config == NULL)
    return die (RL_EXIT_FAILURE, "%s", (files == NULL ? error : config_error)->message);
  {
    g_autofree char *index_path = rl_data_path (RL_DATA_BOUNDARY_INDEX, config->boundary_index);
    b.index = rl_boundary_index_open_full (index_path, RL_BOUNDARY_OPEN_VERIFY_LATER, NULL);
  }
  n = files->len;
  g_ptr_array_add (files, NULL);
  o->gps = (char **) g_ptr_array_steal (files, NULL);   /* the list, read by the workers */

  g_autoptr (GError) reg_error = NULL;
  g_autoptr (RlRegulatory) regulatory = rl_regulatory_load (o->regdb ? o->regdb : config->regulatory_db,
                                                            config->territories, &reg_error);
  if (reg_error != NULL)
    fprintf (stderr, "regloc replay: warning: %s\n", reg_error->message);

  b.o = o;
  b.config = config;
  b.regulatory = regulatory;
  g_mutex_init (&b.lock);
  b.n = n;
  b.lines = g_new0 (char *, n);
  b.rows = g_new0 (char *, n);
  b.failed = g_new0 (gboolean, n);
  b.unreadable = g_new0 (gboolean, n);
  b.with_index = g_new0 (gboolean, n);
  b.checked = b.index == NULL;
  b.verifier = b.index != NULL ? g_thread_new ("replay-index", batch_verify_index, &b) : NULL;

  GThreadPool *pool = g_thread_pool_new (batch_one, &b, MAX (jobs, 1), TRUE, NULL);
  for (guint i = 0; i < n; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);   /* waits for every log: the workers write the lines */
  if (b.verifier != NULL)
    g_thread_join (b.verifier);             /* it writes the lines kept for it */

  g_autoptr (GString) table = g_string_new (NULL);
  g_string_append_printf (table, "%7s %-12s %7s %7s %5s %5s %-8s %-5s  %s\n", "FIXES", "DECIDED", "FIRST", "ON 00", "CHG", "CONFL", "EXPECTED", "FINAL", "LOG");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (table, "%s\n", b.rows[i]);
      failures += b.failed[i];
      errors += b.unreadable[i];
      g_free (b.rows[i]);
    }
  g_string_append_printf (table, "%u logs, %u unreadable, %u not as expected; %d workers, %.2f s\n", n, errors, failures - errors,
                          MAX (jobs, 1), (g_get_monotonic_time () - t0) / 1e6);
  fputs (table->str, stderr);
  g_clear_pointer (&b.index, rl_boundary_index_free);
  g_clear_pointer (&b.tzmap, rl_tzmap_free);
  g_free (b.lines);
  g_free (b.rows);
  g_free (b.failed);
  g_free (b.unreadable);
  g_free (b.with_index);
  g_mutex_clear (&b.lock);
  return failures ? RL_EXIT_FAILURE : RL_EXIT_OK;
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
    { "map", 0, 0, G_OPTION_ARG_FILENAME, &o.map, "Also draw the track on a map: FILE.svg, FILE.geojson or FILE.kml", "FILE" },
    { "batch", 0, 0, G_OPTION_ARG_NONE, &o.batch, "Replay each log given (files, directories, - for a list on stdin) on its own: one JSON line each", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs, "With --batch: logs replayed at once (default: one per core)", "N" },
    { NULL }
  };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return die (RL_EXIT_USAGE, "%s (try --help)", error->message);
  if (o.batch)
    return rl_replay_batch (&o, argc - 1, argv + 1);
  if (argc > 1)
    return die (RL_EXIT_USAGE, "unexpected argument '%s' (inputs go after --scenario, --gps or --scans)", argv[1]);
  if (o.scenario == NULL && o.gps == NULL && o.scans == NULL)
    return die (RL_EXIT_USAGE, "%s", "nothing to replay: give --scenario, --gps or --scans (try --help)");
  if (o.format != NULL && strcmp (o.format, "text") != 0 && strcmp (o.format, "json") != 0 && strcmp (o.format, "csv") != 0 &&
      strcmp (o.format, "geojson") != 0 && strcmp (o.format, "kml") != 0)
    return die (RL_EXIT_USAGE, "unknown --format '%s': expected text, json, csv, geojson or kml", o.format);
  if (o.map != NULL && map_kind (o.map) == NULL)
    return die (RL_EXIT_USAGE, "--map %s: the name must end in .svg, .geojson (or .json) or .kml", o.map);

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
        note_timezone_unused (replay, tzmap, o.timezone);
    }

  /* text and CSV rows go out as the run decides; JSON at the end; the
   * map formats after the run from the track collected as it went */
  gboolean map_format = o.format != NULL && (strcmp (o.format, "geojson") == 0 || strcmp (o.format, "kml") == 0);
  g_autoptr (RlReportWriter) writer = map_format ? NULL : rl_report_writer_new (o.format, stdout, &error);
  if (writer == NULL && !map_format)
    return die (RL_EXIT_USAGE, "%s", error->message);
  g_autoptr (RlTrack) track = NULL;
  if (map_format || o.map != NULL)
    {
      track = rl_track_new (RL_TRACK_DEFAULT_POINTS);
      rl_track_attach (track, replay);
    }
  if (writer != NULL)
    rl_report_writer_attach (writer, replay);
  rl_replay_run (replay, settle);
  if (writer != NULL)
    rl_report_writer_finish (writer, replay);
  else
    {
      g_autofree char *doc = map_document (o.format, track, replay, index);
      fputs (doc, stdout);
      fflush (stdout);
    }
  if (o.map != NULL)
    {
      g_autofree char *doc = map_document (map_kind (o.map), track, replay, index);
      if (!g_file_set_contents (o.map, doc, -1, &error))
        return die (RL_EXIT_FAILURE, "--map: %s", error->message);
    }
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
