/* The replay engine (see replay.h). */
#include "replay/replay.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/evidence-set.h"
#include "core/contradiction.h"

typedef enum { EV_PUT, EV_WITHDRAW, EV_WITHDRAW_KIND, EV_RESUME, EV_TICK, EV_SCAN } EventType;

typedef struct {
  gint64 time;
  guint64 seq;        /* file order breaks ties */
  EventType type;
  RlSourceKind kind;
  guint item;         /* EV_PUT: index into items */
  char *key;          /* EV_WITHDRAW */
  gboolean at_start;
  gint64 since;       /* EV_SCAN: when the scan began */
  guint bands;        /* EV_SCAN: RlBand mask */
} Event;

struct RlReplay {
  RlPolicyParams params;
  const RlRegulatory *regulatory;
  guint max_beacons;
  GArray *events;         /* Event */
  GArray *items;          /* RlEvidence, referenced by events */
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
  /* GPS freshness rules of the evidence set (as the daemon's) */
  guint gps_best_window_s;
  double gps_max_speed_kmh;
};

RlReplay *
rl_replay_new (const RlConfig *config, const RlRegulatory *regulatory)
{
  RlReplay *r = g_new0 (RlReplay, 1);

  r->params = config->policy;
  r->regulatory = regulatory;
  r->max_beacons = config->beacons_max_bss;
  r->gps_best_window_s = config->gps_best_fix_window_s;
  r->gps_max_speed_kmh = config->gps_max_speed_kmh;
  r->events = g_array_new (FALSE, FALSE, sizeof (Event));
  r->items = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
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
  for (guint i = 0; i < r->events->len; i++)
    g_free (g_array_index (r->events, Event, i).key);
  for (guint i = 0; i < r->timeline->len; i++)
    g_free (g_array_index (r->timeline, RlTimelineEntry, i).summary);
  g_array_unref (r->events);
  g_array_unref (r->items);
  g_array_unref (r->timeline);
  g_hash_table_unref (r->counters);
  g_ptr_array_unref (r->notes);
  rl_decision_free (r->final);
  g_free (r);
}

static void
push (RlReplay *r, Event *e)
{
  e->seq = r->events->len;
  g_array_append_vals (r->events, e, 1);
}

void
rl_replay_add_evidence (RlReplay *r, const RlEvidence *ev)
{
  Event e = { .time = ev->observed_at, .type = EV_PUT, .kind = ev->kind, .item = r->items->len };

  g_array_append_vals (r->items, ev, 1);
  push (r, &e);
}

void
rl_replay_add_evidence_at_start (RlReplay *r, const RlEvidence *ev)
{
  Event e = { .time = G_MININT64, .type = EV_PUT, .kind = ev->kind, .item = r->items->len, .at_start = TRUE };

  g_array_append_vals (r->items, ev, 1);
  push (r, &e);
}

void
rl_replay_add_withdraw (RlReplay *r, gint64 time, const char *key)
{
  Event e = { .time = time, .type = EV_WITHDRAW, .key = g_strdup (key) };
  push (r, &e);
}

void
rl_replay_add_withdraw_kind (RlReplay *r, gint64 time, RlSourceKind kind)
{
  Event e = { .time = time, .type = EV_WITHDRAW_KIND, .kind = kind };
  push (r, &e);
}

void
rl_replay_add_resume (RlReplay *r, gint64 time)
{
  Event e = { .time = time, .type = EV_RESUME };
  push (r, &e);
}

void
rl_replay_add_scan (RlReplay *r, gint64 since, gint64 time, guint bands)
{
  Event e = { .time = time, .type = EV_SCAN, .since = MIN (since, time), .bands = bands };
  push (r, &e);
}

void
rl_replay_add_tick (RlReplay *r, gint64 time)
{
  Event e = { .time = time, .type = EV_TICK };
  push (r, &e);
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
  const Event *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

/* Would replacing @old by @new leave every vote as it was?  Then only the
 * expiry moved, and the decision cannot change: skip the vote (the big win
 * on long GPS logs, where fix after fix names the same country). */
static gboolean
same_vote (const RlPolicyParams *p, const RlEvidence *old, const RlEvidence *new)
{
  if (old->kind != new->kind || old->n_countries != new->n_countries || old->strength != new->strength ||
      memcmp (old->countries, new->countries, sizeof (RlCountry) * new->n_countries) != 0)
    return FALSE;
  if (new->kind == RL_SOURCE_GPS)
    return (old->gps.error_m <= p->gps_max_error_m) == (new->gps.error_m <= p->gps_max_error_m) &&
           old->gps.flags == new->gps.flags && rl_gps_is_airborne (p, old) == rl_gps_is_airborne (p, new);
  if (new->kind == RL_SOURCE_BEACON)
    return memcmp (old->beacon.bssid, new->beacon.bssid, 6) == 0 && strcmp (old->beacon.ssid, new->beacon.ssid) == 0;
  return TRUE;
}

static const RlEvidence *
find_item (RlEvidenceSet *set, const char *key)
{
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n);

  for (gsize i = 0; i < n; i++)
    if (strcmp (items[i].key, key) == 0)
      return &items[i];
  return NULL;
}

/* Puts @item; TRUE when the vote may have changed.  The set may keep a
 * GPS fix out or mark it untrusted (rl_evidence_set_set_gps_limits), so
 * what is stored afterwards is compared, not what was offered. */
static gboolean
put_item (RlReplay *r, RlEvidenceSet *set, const RlEvidence *item)
{
  const RlEvidence *old = find_item (set, item->key), *now;
  RlEvidence before;

  if (old == NULL)
    return rl_evidence_set_put (set, item);
  before = *old;
  if (!rl_evidence_set_put (set, item))
    return FALSE;
  now = find_item (set, item->key);
  return now == NULL || !same_vote (&r->params, &before, now);
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
newest_gps (RlEvidenceSet *set, gint64 now)
{
  gsize n;
  const RlEvidence *items = rl_evidence_set_items (set, &n), *best = NULL;

  for (gsize i = 0; i < n; i++)
    if (items[i].kind == RL_SOURCE_GPS && items[i].expires_at > now &&
        (best == NULL || items[i].observed_at > best->observed_at))
      best = &items[i];
  return best;
}

static void
decide (RlReplay *r, RlEvidenceSet *set, gint64 now)
{
  gsize n;
  const RlEvidence *items;
  RlDecision *d;

  rl_evidence_set_expire (set, now);
  items = rl_evidence_set_items (set, &n);
  d = rl_policy_decide (&r->params, rl_regulatory_map, (gpointer) r->regulatory, r->final, items, n, now);
  r->n_decisions++;
  record (r, d, newest_gps (set, now), now);
  rl_decision_free (r->final);
  r->final = d;
}

void
rl_replay_run (RlReplay *r, gboolean settle)
{
  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (r->max_beacons);
  Event *ev;

  rl_evidence_set_set_gps_limits (set, r->gps_best_window_s, r->gps_max_speed_kmh);
  guint n, i = 0;
  gboolean dirty = FALSE;

  ev = (Event *) (gpointer) r->events->data;
  n = r->events->len;
  {
    gint64 first = RL_NEVER;
    for (guint k = 0; k < n; k++)
      if (!ev[k].at_start)
        first = MIN (first, ev[k].time);
    if (first == RL_NEVER)
      first = 0;
    for (guint k = 0; k < n; k++)
      if (ev[k].at_start)
        {
          RlEvidence *item = &g_array_index (r->items, RlEvidence, ev[k].item);
          ev[k].time = item->observed_at = first;
        }
  }
  g_array_sort (r->events, cmp_event);
  rl_decision_free (r->final);
  r->final = rl_decision_new_initial ();
  r->first_time = n ? ev[0].time : 0;
  r->last_time = r->first_time;
  if (n > 0)
    record (r, r->final, NULL, r->first_time);

  while (i < n)
    {
      gint64 now = ev[i].time;

      /* instants between events where the decision may change by itself */
      while (r->final->next_check < now)
        decide (r, set, r->final->next_check);
      if (now - r->last_time > r->gap_threshold)
        {
          r->n_gaps++;
          r->longest_gap = MAX (r->longest_gap, now - r->last_time);
        }
      r->last_time = now;
      dirty = FALSE;
      for (; i < n && ev[i].time == now; i++)
        {
          const RlEvidence *item;
          switch (ev[i].type)
            {
            case EV_PUT:
              item = &g_array_index (r->items, RlEvidence, ev[i].item);
              dirty |= put_item (r, set, item);
              break;
            case EV_WITHDRAW:
              dirty |= rl_evidence_set_remove (set, ev[i].key);
              break;
            case EV_WITHDRAW_KIND:
              dirty |= rl_evidence_set_remove_kind (set, ev[i].kind) > 0;
              break;
            case EV_RESUME:
              rl_evidence_set_drop_observed_before (set, now);
              dirty = TRUE;
              break;
            case EV_TICK:
              dirty = TRUE;
              break;
            case EV_SCAN:
              dirty |= rl_evidence_set_drop_unheard (set, ev[i].since, ev[i].bands) > 0;
              break;
            }
        }
      if (dirty || r->final->next_check <= now)
        decide (r, set, now);
    }
  if (settle)
    {
      /* let a pending hold-down finish; expiries after the last event are
       * not played out (the recording just ended) */
      for (guint k = 0; k < 1000 && r->final->state == RL_STATE_TENTATIVE && r->final->next_check != RL_NEVER; k++)
        {
          gint64 at = r->final->next_check;
          decide (r, set, at);
          r->last_time = at;
        }
    }
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
      g_autoptr (GArray) sorted = g_array_copy (r->events);
      g_array_sort (sorted, cmp_event);
      for (guint i = 0; i < sorted->len; i++)
        {
          const Event *e = &g_array_index (sorted, Event, i);
          if (e->type == EV_PUT)
            json_evidence (b, &g_array_index (r->items, RlEvidence, e->item));
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

typedef struct {
  gint64 observed_at;
  RlBand band;
} Heard;

static int
cmp_key_ptr (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* For the event stream, a scan becomes the withdrawals it makes: the
 * beacons put before it on a covered band and not heard since it began
 * (rl_evidence_set_drop_unheard on what the stream has put so far). */
static void
expand_scan (GHashTable *heard, const Event *e, RlReplayEventFunc func, gpointer user_data)
{
  g_autoptr (GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, heard);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const Heard *h = value;
      if (h->observed_at < e->since && rl_band_covered (e->bands, h->band))
        {
          g_ptr_array_add (gone, g_strdup (key));
          g_hash_table_iter_remove (&it);
        }
    }
  g_ptr_array_sort (gone, cmp_key_ptr);
  for (guint i = 0; i < gone->len; i++)
    func (RL_REPLAY_EVENT_WITHDRAW, e->time, NULL, gone->pdata[i], RL_SOURCE_BEACON, user_data);
}

static void
track_heard (GHashTable *heard, const Event *e, const RlEvidence *item)
{
  switch (e->type)
    {
    case EV_PUT:
      if (item->kind == RL_SOURCE_BEACON)
        {
          Heard *h = g_new (Heard, 1);
          h->observed_at = item->observed_at;
          h->band = rl_band_from_freq (item->beacon.freq_mhz);
          g_hash_table_insert (heard, g_strdup (item->key), h);
        }
      break;
    case EV_WITHDRAW:
      g_hash_table_remove (heard, e->key);
      break;
    case EV_WITHDRAW_KIND:
      if (e->kind == RL_SOURCE_BEACON)
        g_hash_table_remove_all (heard);
      break;
    default:
      break;
    }
}

void
rl_replay_foreach_event (const RlReplay *r, RlReplayEventFunc func, gpointer user_data)
{
  g_autoptr (GArray) sorted = g_array_copy (r->events);
  g_autoptr (GHashTable) heard = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gint64 first = RL_NEVER;
  Event *ev = (Event *) (gpointer) sorted->data;

  for (guint k = 0; k < sorted->len; k++)
    if (!ev[k].at_start)
      first = MIN (first, ev[k].time);
  if (first == RL_NEVER)
    first = 0;
  for (guint k = 0; k < sorted->len; k++)
    if (ev[k].at_start)
      ev[k].time = first;
  g_array_sort (sorted, cmp_event);
  ev = (Event *) (gpointer) sorted->data;
  for (guint k = 0; k < sorted->len; k++)
    {
      static const RlReplayEventType types[] = {
        [EV_PUT] = RL_REPLAY_EVENT_EVIDENCE, [EV_WITHDRAW] = RL_REPLAY_EVENT_WITHDRAW,
        [EV_WITHDRAW_KIND] = RL_REPLAY_EVENT_WITHDRAW_KIND, [EV_RESUME] = RL_REPLAY_EVENT_RESUME,
        [EV_TICK] = RL_REPLAY_EVENT_TICK,
      };
      RlEvidence item;

      if (ev[k].type == EV_SCAN)
        {
          expand_scan (heard, &ev[k], func, user_data);
          continue;
        }
      if (ev[k].type == EV_PUT)
        {
          item = g_array_index (r->items, RlEvidence, ev[k].item);
          if (ev[k].at_start)
            item.observed_at = ev[k].time;
        }
      track_heard (heard, &ev[k], &item);
      func (types[ev[k].type], ev[k].time, ev[k].type == EV_PUT ? &item : NULL, ev[k].key,
            ev[k].kind, user_data);
    }
}
