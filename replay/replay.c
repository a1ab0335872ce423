/* The replay engine (see replay.h). */
#include "replay/replay.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/engine.h"

/* Queued events are RlEvents; an item that holds for the whole run
 * (--timezone) waits with this time until rl_replay_run() knows the first. */
#define AT_START G_MININT64

struct RlReplay {
  const RlConfig *config;
  const RlRegulatory *regulatory;
  GArray *events;         /* RlEvent, in file order until sorted */
  GArray *timeline;       /* RlTimelineEntry */
  GHashTable *counters;   /* char* → guint64* */
  GPtrArray *notes;
  gboolean keep_evidence;
  RlDecision *final;
  gint64 first_time, last_time;
  guint64 n_decisions;
  /* gaps: no event for longer than this */
  gint64 gap_threshold;
  guint n_gaps;
  gint64 longest_gap;
};

RlReplay *
rl_replay_new (const RlConfig *config, const RlRegulatory *regulatory)
{
  RlReplay *r = g_new0 (RlReplay, 1);

  r->config = config;
  r->regulatory = regulatory;
  r->events = g_array_new (FALSE, FALSE, sizeof (RlEvent));
  r->timeline = g_array_new (FALSE, TRUE, sizeof (RlTimelineEntry));
  r->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->gap_threshold = 60 * RL_USEC_PER_SEC;
  return r;
}

void
rl_replay_free (RlReplay *r)
{
  if (r == NULL)
    return;
  for (guint i = 0; i < r->timeline->len; i++)
    g_free (g_array_index (r->timeline, RlTimelineEntry, i).summary);
  g_array_unref (r->events);
  g_array_unref (r->timeline);
  g_hash_table_unref (r->counters);
  g_ptr_array_unref (r->notes);
  rl_decision_free (r->final);
  g_free (r);
}

static void
push (RlReplay *r, gint64 time, RlEventType type, const RlEvidence *ev)
{
  RlEvent *e;

  g_array_set_size (r->events, r->events->len + 1);
  e = &g_array_index (r->events, RlEvent, r->events->len - 1);
  memset (e, 0, sizeof *e);
  e->time = time;
  e->type = type;
  if (ev != NULL)
    e->ev = *ev;
}

void
rl_replay_add_evidence (RlReplay *r, const RlEvidence *ev)
{
  push (r, ev->observed_at, RL_EVENT_EVIDENCE, ev);
}

void
rl_replay_add_evidence_at_start (RlReplay *r, const RlEvidence *ev)
{
  push (r, AT_START, RL_EVENT_EVIDENCE, ev);
}

void
rl_replay_add_withdraw (RlReplay *r, gint64 time, const char *key)
{
  push (r, time, RL_EVENT_WITHDRAW, NULL);
  g_strlcpy (g_array_index (r->events, RlEvent, r->events->len - 1).ev.key, key, sizeof ((RlEvidence *) NULL)->key);
}

void
rl_replay_add_withdraw_kind (RlReplay *r, gint64 time, RlSourceKind kind)
{
  push (r, time, RL_EVENT_WITHDRAW_KIND, NULL);
  g_array_index (r->events, RlEvent, r->events->len - 1).ev.kind = kind;
}

void
rl_replay_add_resume (RlReplay *r, gint64 time)
{
  push (r, time, RL_EVENT_RESUME, NULL);
}

void
rl_replay_add_tick (RlReplay *r, gint64 time)
{
  push (r, time, RL_EVENT_TICK, NULL);
}

void
rl_replay_count (RlReplay *r, const char *counter, guint64 n)
{
  guint64 *v = g_hash_table_lookup (r->counters, counter);

  if (v == NULL)
    {
      v = g_new0 (guint64, 1);
      g_hash_table_insert (r->counters, g_strdup (counter), v);
    }
  *v += n;
}

void
rl_replay_note (RlReplay *r, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* notes quote the input (a parser's message, a file name): the JSON
   * report must stay UTF-8 whatever bytes those were */
  g_ptr_array_add (r->notes, g_utf8_make_valid (text, -1));
}

void
rl_replay_set_keep_evidence (RlReplay *r, gboolean keep)
{
  r->keep_evidence = keep;
}

static int
cmp_event (gconstpointer a, gconstpointer b)
{
  const RlEvent *x = a, *y = b;

  return x->time < y->time ? -1 : (x->time > y->time ? 1 : 0);
}

/* Puts the at-start items at the first event's time and sorts by time;
 * g_array_sort is stable, so file order breaks ties. */
static void
order_events (GArray *events)
{
  RlEvent *ev = (RlEvent *) (gpointer) events->data;
  gint64 first = RL_NEVER;

  for (guint k = 0; k < events->len; k++)
    if (ev[k].time != AT_START)
      first = MIN (first, ev[k].time);
  if (first == RL_NEVER)
    first = 0;
  for (guint k = 0; k < events->len; k++)
    if (ev[k].time == AT_START)
      ev[k].time = ev[k].ev.observed_at = first;
  g_array_sort (events, cmp_event);
}

static void
record (RlReplay *r, const RlDecision *d, const RlEvidence *gps, gint64 now)
{
  RlTimelineEntry *last = r->timeline->len ? &g_array_index (r->timeline, RlTimelineEntry, r->timeline->len - 1) : NULL;
  RlTimelineEntry e = { 0 };

  if (last != NULL && last->country == d->country && last->state == d->state && last->candidate == d->candidate &&
      last->reason == d->reason)
    return;
  /* two decisions at one instant: only the later one was ever in force */
  if (last != NULL && last->time == now)
    {
      g_free (last->summary);
      g_array_set_size (r->timeline, r->timeline->len - 1);
      last = NULL;
    }
  e.time = now;
  e.country = d->country;
  e.state = d->state;
  e.reason = d->reason;
  e.confidence = d->confidence;
  e.candidate = d->candidate;
  if (gps != NULL)
    {
      e.has_position = TRUE;
      e.lat = gps->gps.lat;
      e.lon = gps->gps.lon;
    }
  e.summary = g_strdup (d->summary);
  g_array_append_val (r->timeline, e);
}

static const RlEvidence *
newest_gps (const RlEngine *engine, gint64 now)
{
  gsize n;
  const RlEvidence *items = rl_engine_items (engine, &n), *best = NULL;

  for (gsize i = 0; i < n; i++)
    if (items[i].kind == RL_SOURCE_GPS && items[i].expires_at > now &&
        (best == NULL || items[i].observed_at > best->observed_at))
      best = &items[i];
  return best;
}

static void
decide (RlReplay *r, RlEngine *engine, gint64 now)
{
  if (rl_engine_decide_at (engine, now, NULL, NULL))
    record (r, rl_engine_decision (engine), newest_gps (engine, now), now);
}

/* Decides at every instant before @until where the decision may change by
 * itself (a hold-down over, an item expiring). */
static void
catch_up (RlReplay *r, RlEngine *engine, gint64 until)
{
  gint64 due;

  while ((due = rl_engine_next_instant (engine)) < until)
    {
      decide (r, engine, due);
      if (rl_engine_next_instant (engine) <= due)
        break;   /* no progress: the next event's instant decides */
    }
}

static void
note_gap (RlReplay *r, gint64 now)
{
  if (now - r->last_time > r->gap_threshold)
    {
      r->n_gaps++;
      r->longest_gap = MAX (r->longest_gap, now - r->last_time);
    }
  r->last_time = now;
}

/* Lets a pending hold-down finish; expiries after the last event are not
 * played out (the recording just ended). */
static void
settle_down (RlReplay *r, RlEngine *engine)
{
  for (guint k = 0; k < 1000; k++)
    {
      const RlDecision *d = rl_engine_decision (engine);
      gint64 at = rl_engine_next_instant (engine);
      if (d == NULL || d->state != RL_STATE_TENTATIVE || at == RL_NEVER)
        break;
      decide (r, engine, at);
      r->last_time = at;
    }
}

void
rl_replay_run (RlReplay *r, gboolean settle)
{
  g_autoptr (RlEngine) engine = rl_engine_new (r->config, r->regulatory);
  const RlEvent *ev;
  guint n, i = 0;

  order_events (r->events);
  ev = (const RlEvent *) (gpointer) r->events->data;
  n = r->events->len;
  r->first_time = n ? ev[0].time : 0;
  r->last_time = r->first_time;
  if (n > 0)
    {
      g_autoptr (RlDecision) initial = rl_decision_new_initial ();
      record (r, initial, NULL, r->first_time);
    }
  while (i < n)
    {
      gint64 now = ev[i].time;

      catch_up (r, engine, now);
      note_gap (r, now);
      for (; i < n && ev[i].time == now; i++)
        rl_engine_apply (engine, &ev[i]);
      decide (r, engine, now);
    }
  if (settle)
    settle_down (r, engine);
  r->n_decisions = rl_engine_n_decisions (engine);
  rl_decision_free (r->final);
  r->final = rl_engine_steal_decision (engine);
  if (r->final == NULL)
    r->final = rl_decision_new_initial ();
}

const GArray *
rl_replay_timeline (const RlReplay *r)
{
  return r->timeline;
}

const RlDecision *
rl_replay_final (const RlReplay *r)
{
  return r->final;
}

/* ---- output ------------------------------------------------------------ */

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

static char *
format_text (const RlReplay *r)
{
  GString *s = g_string_new (NULL);
  guint switches;
  g_autoptr (GArray) per = time_per_country (r, &switches);
  GList *keys = sorted_counter_keys (r);
  char cc[3], cand[3];

  g_string_append_printf (s, "%-21s %-3s %-9s %-5s %-20s %s\n", "TIME", "CC", "STATE", "CONF", "POSITION", "WHY");
  for (guint i = 0; i < r->timeline->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (r->timeline, RlTimelineEntry, i);
      g_autofree char *t = iso_time (e->time);
      g_autofree char *pos = e->has_position ? g_strdup_printf ("%.5f,%.5f", e->lat, e->lon) : g_strdup ("-");
      g_autofree char *state = e->state == RL_STATE_TENTATIVE
                                 ? g_strdup_printf ("tent:%s", rl_country_to_string (e->candidate, cand))
                                 : g_strdup (rl_state_to_string (e->state));
      g_string_append_printf (s, "%-21s %-3s %-9s %-5.2f %-20s %s\n", t, rl_country_to_string (e->country, cc),
                              state, e->confidence, pos, e->summary);
    }
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
  {
    g_autofree char *lg = duration (r->longest_gap);
    g_string_append_printf (s, "  gaps:      %u longer than 60 s (longest %s)\n", r->n_gaps, lg);
  }
  for (GList *l = keys; l != NULL; l = l->next)
    g_string_append_printf (s, "  %s: %" G_GUINT64_FORMAT "\n", (const char *) l->data,
                            *(guint64 *) g_hash_table_lookup (r->counters, l->data));
  for (guint i = 0; i < r->notes->len; i++)
    g_string_append_printf (s, "  note: %s\n", (const char *) r->notes->pdata[i]);
  if (r->final != NULL)
    g_string_append_printf (s, "  final:     %s %s (%s)\n  why:       %s\n", rl_country_to_string (r->final->country, cc),
                            rl_state_to_string (r->final->state), rl_reason_to_string (r->final->reason),
                            r->final->explanation);
  g_list_free (keys);
  return g_string_free (s, FALSE);
}

static void
json_evidence (JsonBuilder *b, const RlEvidence *ev)
{
  g_autofree char *t = iso_time (ev->observed_at);
  char cc[3];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, rl_source_kind_to_string (ev->kind));
  json_builder_set_member_name (b, "key");
  json_builder_add_string_value (b, ev->key);
  json_builder_set_member_name (b, "time");
  json_builder_add_string_value (b, t);
  json_builder_set_member_name (b, "countries");
  json_builder_begin_array (b);
  for (guint i = 0; i < ev->n_countries; i++)
    json_builder_add_string_value (b, rl_country_to_string (ev->countries[i], cc));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "strength");
  json_builder_add_double_value (b, ev->strength);
  json_builder_set_member_name (b, "detail");
  json_builder_add_string_value (b, ev->detail);
  if (ev->kind == RL_SOURCE_GPS)
    {
      json_builder_set_member_name (b, "lat");
      json_builder_add_double_value (b, ev->gps.lat);
      json_builder_set_member_name (b, "lon");
      json_builder_add_double_value (b, ev->gps.lon);
      json_builder_set_member_name (b, "error_m");
      json_builder_add_double_value (b, ev->gps.error_m);
    }
  json_builder_end_object (b);
}

static char *
format_json (const RlReplay *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  guint switches;
  g_autoptr (GArray) per = time_per_country (r, &switches);
  GList *keys = sorted_counter_keys (r);
  char cc[3];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "timeline");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->timeline->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (r->timeline, RlTimelineEntry, i);
      g_autofree char *t = iso_time (e->time);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "time");
      json_builder_add_string_value (b, t);
      json_builder_set_member_name (b, "country");
      json_builder_add_string_value (b, rl_country_to_string (e->country, cc));
      json_builder_set_member_name (b, "state");
      json_builder_add_string_value (b, rl_state_to_string (e->state));
      json_builder_set_member_name (b, "confidence");
      json_builder_add_double_value (b, round (e->confidence * 1000) / 1000);
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, rl_reason_to_string (e->reason));
      json_builder_set_member_name (b, "detail");
      json_builder_add_string_value (b, e->summary);
      if (e->candidate != RL_COUNTRY_NONE)
        {
          json_builder_set_member_name (b, "candidate");
          json_builder_add_string_value (b, rl_country_to_string (e->candidate, cc));
        }
      if (e->has_position)
        {
          json_builder_set_member_name (b, "lat");
          json_builder_add_double_value (b, e->lat);
          json_builder_set_member_name (b, "lon");
          json_builder_add_double_value (b, e->lon);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  {
    g_autofree char *a = iso_time (r->first_time), *z = iso_time (r->last_time);
    json_builder_set_member_name (b, "start");
    json_builder_add_string_value (b, a);
    json_builder_set_member_name (b, "end");
    json_builder_add_string_value (b, z);
  }
  json_builder_set_member_name (b, "seconds_per_country");
  json_builder_begin_object (b);
  for (guint i = 0; i < per->len; i++)
    {
      const CountryTime *ct = &g_array_index (per, CountryTime, i);
      json_builder_set_member_name (b, rl_country_to_string (ct->country, cc));
      json_builder_add_int_value (b, ct->time / RL_USEC_PER_SEC);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "switches");
  json_builder_add_int_value (b, switches);
  json_builder_set_member_name (b, "gaps");
  json_builder_add_int_value (b, r->n_gaps);
  json_builder_set_member_name (b, "longest_gap_s");
  json_builder_add_int_value (b, r->longest_gap / RL_USEC_PER_SEC);
  json_builder_set_member_name (b, "counters");
  json_builder_begin_object (b);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      json_builder_set_member_name (b, l->data);
      json_builder_add_int_value (b, (gint64) *(guint64 *) g_hash_table_lookup (r->counters, l->data));
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->notes->len; i++)
    json_builder_add_string_value (b, r->notes->pdata[i]);
  json_builder_end_array (b);
  if (r->final != NULL)
    {
      json_builder_set_member_name (b, "final");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "country");
      json_builder_add_string_value (b, rl_country_to_string (r->final->country, cc));
      json_builder_set_member_name (b, "state");
      json_builder_add_string_value (b, rl_state_to_string (r->final->state));
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, rl_reason_to_string (r->final->reason));
      json_builder_set_member_name (b, "explanation");
      json_builder_add_string_value (b, r->final->explanation);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);

  if (r->keep_evidence)
    {
      json_builder_set_member_name (b, "evidence");
      json_builder_begin_array (b);
      /* rl_replay_run() put the events in time order */
      for (guint i = 0; i < r->events->len; i++)
        {
          const RlEvent *e = &g_array_index (r->events, RlEvent, i);
          if (e->type == RL_EVENT_EVIDENCE)
            json_evidence (b, &e->ev);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);

  g_list_free (keys);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

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

static char *
format_csv (const RlReplay *r)
{
  GString *s = g_string_new ("time,country,state,confidence,candidate,lat,lon,reason,detail\n");
  char cc[3], cand[3];

  for (guint i = 0; i < r->timeline->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (r->timeline, RlTimelineEntry, i);
      g_autofree char *t = iso_time (e->time);
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
  return g_string_free (s, FALSE);
}

char *
rl_replay_format (const RlReplay *r, const char *format, GError **error)
{
  if (format == NULL || strcmp (format, "text") == 0)
    return format_text (r);
  if (strcmp (format, "json") == 0)
    return format_json (r);
  if (strcmp (format, "csv") == 0)
    return format_csv (r);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "unknown format '%s': expected text, json or csv", format);
  return NULL;
}

void
rl_replay_foreach_event (const RlReplay *r, RlReplayEventFunc func, gpointer user_data)
{
  g_autoptr (GArray) sorted = g_array_copy (r->events);

  order_events (sorted);
  for (guint k = 0; k < sorted->len; k++)
    func (&g_array_index (sorted, RlEvent, k), user_data);
}

void
rl_replay_span (const RlReplay *r, gint64 *first, gint64 *last)
{
  *first = r->first_time;
  *last = r->last_time;
}
