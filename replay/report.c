/* Replay report formatters (see report.h and replay.h). */
#include "replay/report.h"

#include <json-glib/json-glib.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "replay/replay-private.h"

static char *
iso_time (gint64 t)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (t / RL_USEC_PER_SEC);

  if (dt == NULL)
    return g_strdup ("?");
  return g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");
}

static char *
duration (gint64 us)
{
  gint64 s = us / RL_USEC_PER_SEC;

  if (s >= 3600)
    return g_strdup_printf ("%" G_GINT64_FORMAT "h%02" G_GINT64_FORMAT "m%02" G_GINT64_FORMAT "s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60)
    return g_strdup_printf ("%" G_GINT64_FORMAT "m%02" G_GINT64_FORMAT "s", s / 60, s % 60);
  return g_strdup_printf ("%" G_GINT64_FORMAT "s", s);
}

typedef struct {
  RlCountry country;
  gint64 time;
} CountryTime;

/* Time spent per reported country (00 included), in timeline order. */
static GArray *
time_per_country (const RlReplay *r, guint *switches)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (CountryTime));
  const GArray *tl = r->timeline;

  *switches = 0;
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      gint64 end = i + 1 < tl->len ? g_array_index (tl, RlTimelineEntry, i + 1).time : r->last_time;
      guint k;

      if (i > 0 && g_array_index (tl, RlTimelineEntry, i - 1).country != e->country)
        (*switches)++;
      for (k = 0; k < out->len; k++)
        if (g_array_index (out, CountryTime, k).country == e->country)
          break;
      if (k == out->len)
        {
          CountryTime ct = { e->country, 0 };
          g_array_append_val (out, ct);
        }
      g_array_index (out, CountryTime, k).time += MAX (end - e->time, 0);
    }
  return out;
}

static GList *
sorted_counter_keys (const RlReplay *r)
{
  return g_list_sort (g_hash_table_get_keys (r->counters), (GCompareFunc) strcmp);
}

/* ---- text -------------------------------------------------------------- */

static void
text_header (GString *s)
{
  g_string_append_printf (s, "%-21s %-3s %-9s %-5s %-20s %s\n", "TIME", "CC", "STATE", "CONF", "POSITION", "WHY");
}

static void
text_row (GString *s, const RlTimelineEntry *e)
{
  g_autofree char *t = iso_time (e->time);
  g_autofree char *pos = e->has_position ? g_strdup_printf ("%.5f,%.5f", e->lat, e->lon) : g_strdup ("-");
  char cc[3], cand[3];
  g_autofree char *state = e->state == RL_STATE_TENTATIVE
                             ? g_strdup_printf ("tent:%s", rl_country_to_string (e->candidate, cand))
                             : g_strdup (rl_state_to_string (e->state));

  g_string_append_printf (s, "%-21s %-3s %-9s %-5.2f %-20s %s\n", t, rl_country_to_string (e->country, cc),
                          state, e->confidence, pos, e->summary);
}

static void
text_note (const char *note, gpointer s)
{
  g_string_append_printf (s, "  note: %s\n", note);
}

static void
text_gaps (GString *s, const RlReplay *r)
{
  const struct { const RlReplayGaps *g; const char *what; } kinds[] = {
    { &r->gps_gaps, "GPS fixes" }, { &r->scan_gaps, "scans" },
  };
  gboolean first = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const RlReplayGaps *g = kinds[i].g;
      g_autofree char *limit = duration (g->threshold), *longest = duration (g->longest);
      if (!g->seen)
        continue;
      g_string_append (s, first ? "  gaps:      " : "; ");
      if (g->n == 0)
        g_string_append_printf (s, "none over %s between %s", limit, kinds[i].what);
      else
        g_string_append_printf (s, "%u over %s between %s (longest %s)", g->n, limit, kinds[i].what, longest);
      first = FALSE;
    }
  if (!first)
    g_string_append_c (s, '\n');
}

static void
text_summary (GString *s, const RlReplay *r)
{
  guint switches;
  g_autoptr (GArray) per = time_per_country (r, &switches);
  GList *keys = sorted_counter_keys (r);
  char cc[3];

  g_string_append (s, "\nSummary\n");
  if (r->timeline->len > 0)
    {
      g_autofree char *a = iso_time (r->first_time), *b = iso_time (r->last_time), *d = duration (r->last_time - r->first_time);
      g_string_append_printf (s, "  span:      %s .. %s (%s)\n", a, b, d);
    }
  for (guint i = 0; i < per->len; i++)
    {
      const CountryTime *ct = &g_array_index (per, CountryTime, i);
      g_autofree char *d = duration (ct->time);
      g_string_append_printf (s, "  time in %s: %s\n", rl_country_to_string (ct->country, cc), d);
    }
  g_string_append_printf (s, "  switches:  %u\n", switches);
  text_gaps (s, r);
  for (GList *l = keys; l != NULL; l = l->next)
    g_string_append_printf (s, "  %s: %" G_GUINT64_FORMAT "\n", (const char *) l->data,
                            *(guint64 *) g_hash_table_lookup (r->counters, l->data));
  rl_replay_foreach_note (r, text_note, s);
  if (r->final != NULL)
    g_string_append_printf (s, "  final:     %s %s (%s)\n  why:       %s\n", rl_country_to_string (r->final->country, cc),
                            rl_state_to_string (r->final->state), rl_reason_to_string (r->final->reason),
                            r->final->explanation);
  g_list_free (keys);
}

static char *
format_text (const RlReplay *r)
{
  GString *s = g_string_new (NULL);

  text_header (s);
  for (guint i = 0; i < r->timeline->len; i++)
    text_row (s, &g_array_index (r->timeline, RlTimelineEntry, i));
  text_summary (s, r);
  return g_string_free (s, FALSE);
}

/* ---- JSON -------------------------------------------------------------- */

void
rl_report_json_note (const char *note, gpointer builder)
{
  json_builder_add_string_value (builder, note);
}

static void
json_member_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

static void
json_member_double (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, value);
}

static void
json_member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
json_evidence (JsonBuilder *b, const RlEvidence *ev)
{
  g_autofree char *t = iso_time (ev->observed_at);
  char cc[3];

  json_builder_begin_object (b);
  json_member_string (b, "source", rl_source_kind_to_string (ev->kind));
  json_member_string (b, "key", ev->key);
  json_member_string (b, "time", t);
  json_builder_set_member_name (b, "countries");
  json_builder_begin_array (b);
  for (guint i = 0; i < ev->n_countries; i++)
    json_builder_add_string_value (b, rl_country_to_string (ev->countries[i], cc));
  json_builder_end_array (b);
  json_member_double (b, "strength", ev->strength);
  json_member_string (b, "detail", ev->detail);
  if (ev->kind == RL_SOURCE_GPS)
    {
      json_member_double (b, "lat", ev->gps.lat);
      json_member_double (b, "lon", ev->gps.lon);
      json_member_double (b, "error_m", ev->gps.error_m);
    }
  json_builder_end_object (b);
}

static void
json_timeline_entry (JsonBuilder *b, const RlTimelineEntry *e)
{
  g_autofree char *t = iso_time (e->time);
  char cc[3];

  json_builder_begin_object (b);
  json_member_string (b, "time", t);
  json_member_string (b, "country", rl_country_to_string (e->country, cc));
  json_member_string (b, "state", rl_state_to_string (e->state));
  json_member_double (b, "confidence", round (e->confidence * 1000) / 1000);
  json_member_string (b, "reason", rl_reason_to_string (e->reason));
  json_member_string (b, "detail", e->summary);
  if (e->candidate != RL_COUNTRY_NONE)
    json_member_string (b, "candidate", rl_country_to_string (e->candidate, cc));
  if (e->has_position)
    {
      json_member_double (b, "lat", e->lat);
      json_member_double (b, "lon", e->lon);
    }
  json_builder_end_object (b);
}

static void
json_counts (JsonBuilder *b, const RlReplay *r)
{
  guint switches;
  g_autoptr (GArray) per = time_per_country (r, &switches);
  GList *keys = sorted_counter_keys (r);
  char cc[3];

  json_builder_set_member_name (b, "seconds_per_country");
  json_builder_begin_object (b);
  for (guint i = 0; i < per->len; i++)
    {
      const CountryTime *ct = &g_array_index (per, CountryTime, i);
      json_member_int (b, rl_country_to_string (ct->country, cc), ct->time / RL_USEC_PER_SEC);
    }
  json_builder_end_object (b);
  json_member_int (b, "switches", switches);
  json_member_int (b, "gaps", r->gps_gaps.n + r->scan_gaps.n);
  json_member_int (b, "longest_gap_s", MAX (r->gps_gaps.longest, r->scan_gaps.longest) / RL_USEC_PER_SEC);
  json_member_int (b, "gps_gaps", r->gps_gaps.n);
  json_member_int (b, "scan_gaps", r->scan_gaps.n);
  json_builder_set_member_name (b, "counters");
  json_builder_begin_object (b);
  for (GList *l = keys; l != NULL; l = l->next)
    json_member_int (b, l->data, (gint64) *(guint64 *) g_hash_table_lookup (r->counters, l->data));
  json_builder_end_object (b);
  g_list_free (keys);
}

static void
json_summary (JsonBuilder *b, const RlReplay *r)
{
  g_autofree char *a = iso_time (r->first_time), *z = iso_time (r->last_time);
  char cc[3];

  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  json_member_string (b, "start", a);
  json_member_string (b, "end", z);
  json_counts (b, r);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  rl_replay_foreach_note (r, rl_report_json_note, b);
  json_builder_end_array (b);
  if (r->final != NULL)
    {
      json_builder_set_member_name (b, "final");
      json_builder_begin_object (b);
      json_member_string (b, "country", rl_country_to_string (r->final->country, cc));
      json_member_string (b, "state", rl_state_to_string (r->final->state));
      json_member_string (b, "reason", rl_reason_to_string (r->final->reason));
      json_member_string (b, "explanation", r->final->explanation);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static char *
format_json (const RlReplay *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "timeline");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->timeline->len; i++)
    json_timeline_entry (b, &g_array_index (r->timeline, RlTimelineEntry, i));
  json_builder_end_array (b);
  json_summary (b, r);
  if (r->keep_evidence)
    {
      /* kept in the order the run applied them: time order */
      json_builder_set_member_name (b, "evidence");
      json_builder_begin_array (b);
      for (guint i = 0; i < r->kept->len; i++)
        json_evidence (b, &g_array_index (r->kept, RlEvidence, i));
      json_builder_end_array (b);
    }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

/* ---- CSV --------------------------------------------------------------- */

#define CSV_HEADER "time,country,state,confidence,candidate,lat,lon,reason,detail\n"

static void
csv_field (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

static void
csv_row (GString *s, const RlTimelineEntry *e)
{
  g_autofree char *t = iso_time (e->time);
  char cc[3], cand[3];

  g_string_append_printf (s, "%s,%s,%s,%.3f,%s,", t, rl_country_to_string (e->country, cc),
                          rl_state_to_string (e->state), e->confidence,
                          e->candidate ? rl_country_to_string (e->candidate, cand) : "");
  if (e->has_position)
    g_string_append_printf (s, "%.6f,%.6f,", e->lat, e->lon);
  else
    g_string_append (s, ",,");
  g_string_append_printf (s, "%s,", rl_reason_to_string (e->reason));
  csv_field (s, e->summary);
  g_string_append_c (s, '\n');
}

static char *
format_csv (const RlReplay *r)
{
  GString *s = g_string_new (CSV_HEADER);

  for (guint i = 0; i < r->timeline->len; i++)
    csv_row (s, &g_array_index (r->timeline, RlTimelineEntry, i));
  return g_string_free (s, FALSE);
}

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV } Format;

static gboolean
parse_format (const char *format, Format *out, GError **error)
{
  if (format == NULL || strcmp (format, "text") == 0)
    *out = FORMAT_TEXT;
  else if (strcmp (format, "json") == 0)
    *out = FORMAT_JSON;
  else if (strcmp (format, "csv") == 0)
    *out = FORMAT_CSV;
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "unknown format '%s': expected text, json or csv", format);
      return FALSE;
    }
  return TRUE;
}

char *
rl_replay_format (const RlReplay *r, const char *format, GError **error)
{
  Format f;

  if (!parse_format (format, &f, error))
    return NULL;
  switch (f)
    {
    case FORMAT_JSON:
      return format_json (r);
    case FORMAT_CSV:
      return format_csv (r);
    case FORMAT_TEXT:
    default:
      return format_text (r);
    }
}

/* ---- written as the run goes ------------------------------------------- */

struct RlReportWriter {
  Format format;
  FILE *out;
  GString *buf;
};

RlReportWriter *
rl_report_writer_new (const char *format, FILE *out, GError **error)
{
  RlReportWriter *w;
  Format f;

  if (!parse_format (format, &f, error))
    return NULL;
  w = g_new0 (RlReportWriter, 1);
  w->format = f;
  w->out = out;
  w->buf = g_string_new (NULL);
  if (f == FORMAT_TEXT)
    text_header (w->buf);
  else if (f == FORMAT_CSV)
    g_string_append (w->buf, CSV_HEADER);
  return w;
}

static void
writer_flush (RlReportWriter *w)
{
  fwrite (w->buf->str, 1, w->buf->len, w->out);
  g_string_truncate (w->buf, 0);
}

static void
on_entry (const RlTimelineEntry *e, gpointer user_data)
{
  RlReportWriter *w = user_data;

  if (w->format == FORMAT_TEXT)
    text_row (w->buf, e);
  else
    csv_row (w->buf, e);
  /* whole lines, a few kB at a time */
  if (w->buf->len >= 4096)
    writer_flush (w);
}

void
rl_report_writer_attach (RlReportWriter *w, RlReplay *replay)
{
  if (w->format != FORMAT_JSON)
    rl_replay_set_timeline_func (replay, on_entry, w);
}

void
rl_report_writer_finish (RlReportWriter *w, const RlReplay *replay)
{
  if (w->format == FORMAT_TEXT)
    text_summary (w->buf, replay);
  else if (w->format == FORMAT_JSON)
    {
      g_autofree char *doc = format_json (replay);
      g_string_append (w->buf, doc);
    }
  writer_flush (w);
  fflush (w->out);
}

void
rl_report_writer_free (RlReportWriter *w)
{
  if (w == NULL)
    return;
  g_string_free (w->buf, TRUE);
  g_free (w);
}
