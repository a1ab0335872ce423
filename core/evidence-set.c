#include "core/evidence-set.h"

#include <math.h>
#include <string.h>

struct RlEvidenceSet {
  GArray *items;          /* RlEvidence, unordered */
  GHashTable *index;      /* key → position + 1 */
  guint max_per_kind;
  guint counts[RL_N_SOURCE_KINDS];   /* items per kind: a put stays O(1) below the cap */
  /* GPS freshness (rl_evidence_set_set_gps_limits) */
  gint64 gps_best_window_us;
  double gps_max_speed_mps;
  gboolean have_trusted;
  double trusted_lat, trusted_lon, trusted_error_m;
  gint64 trusted_at;
  guint64 gps_kept_out, gps_untrusted;
  /* rl_evidence_set_set_gps_still */
  double gps_still_mps;
  gint64 gps_still_window_us;
  double trusted_speed_mps;
  RlCountry trusted_country;
  GHashTable *heard_at_trusted; /* keys of the beacons heard around the last trusted fix */
};

RlEvidenceSet *
rl_evidence_set_new (guint max_per_kind)
{
  RlEvidenceSet *set = g_new0 (RlEvidenceSet, 1);

  set->items = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  set->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  set->max_per_kind = max_per_kind;
  return set;
}

void
rl_evidence_set_free (RlEvidenceSet *set)
{
  if (set == NULL)
    return;
  g_array_unref (set->items);
  g_hash_table_unref (set->index);
  if (set->heard_at_trusted != NULL)
    g_hash_table_unref (set->heard_at_trusted);
  g_free (set);
}

static void
remove_at (RlEvidenceSet *set, guint pos)
{
  RlEvidence *items = (RlEvidence *) (gpointer) set->items->data;
  guint last = set->items->len - 1;

  set->counts[items[pos].kind]--;
  g_hash_table_remove (set->index, items[pos].key);
  if (pos != last)
    {
      items[pos] = items[last];
      g_hash_table_insert (set->index, g_strdup (items[pos].key), GUINT_TO_POINTER (pos + 1));
    }
  g_array_set_size (set->items, last);
}

/* Is @a a better item to forget than @b?  The older; ties: the smaller key,
 * so that eviction never depends on the order items arrived in. */
static gboolean
older (const RlEvidence *a, const RlEvidence *b)
{
  return b == NULL || a->observed_at < b->observed_at ||
         (a->observed_at == b->observed_at && strcmp (a->key, b->key) < 0);
}

/* Beacons: the oldest item of the largest BSSID group (see
 * rl_bssid_eviction_group), so a flood displaces only itself.  Other kinds:
 * the oldest item. */
static void
evict_one (RlEvidenceSet *set, RlSourceKind kind)
{
  RlEvidence *items = (RlEvidence *) (gpointer) set->items->data;
  g_autoptr (GHashTable) sizes = NULL;
  guint largest = 0, victim = G_MAXUINT;

  if (kind == RL_SOURCE_BEACON)
    {
      sizes = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint i = 0; i < set->items->len; i++)
        if (items[i].kind == kind)
          {
            gpointer g = GUINT_TO_POINTER (rl_bssid_eviction_group (items[i].beacon.bssid) + 1);
            guint n = GPOINTER_TO_UINT (g_hash_table_lookup (sizes, g)) + 1;
            g_hash_table_insert (sizes, g, GUINT_TO_POINTER (n));
            largest = MAX (largest, n);
          }
    }
  for (guint i = 0; i < set->items->len; i++)
    {
      if (items[i].kind != kind)
        continue;
      if (sizes != NULL &&
          GPOINTER_TO_UINT (g_hash_table_lookup (sizes, GUINT_TO_POINTER (rl_bssid_eviction_group (items[i].beacon.bssid) + 1))) != largest)
        continue;
      if (older (&items[i], victim == G_MAXUINT ? NULL : &items[victim]))
        victim = i;
    }
  if (victim != G_MAXUINT)
    remove_at (set, victim);
}

void
rl_evidence_set_set_gps_limits (RlEvidenceSet *set, guint best_window_s, double max_speed_kmh)
{
  set->gps_best_window_us = (gint64) best_window_s * RL_USEC_PER_SEC;
  set->gps_max_speed_mps = max_speed_kmh > 0 ? max_speed_kmh / 3.6 : 0;
}

void
rl_evidence_set_set_gps_still (RlEvidenceSet *set, double still_speed_kmh, guint window_s)
{
  set->gps_still_mps = still_speed_kmh > 0 ? still_speed_kmh / 3.6 : 0;
  set->gps_still_window_us = (gint64) window_s * RL_USEC_PER_SEC;
}

void
rl_evidence_set_gps_limit_counts (const RlEvidenceSet *set, guint64 *kept_out, guint64 *untrusted)
{
  *kept_out = set->gps_kept_out;
  *untrusted = set->gps_untrusted;
}

/* Great-circle metres (haversine): fixes can be a continent apart. */
double
rl_distance_m (double lat1, double lon1, double lat2, double lon2)
{
  const double rad = G_PI / 180;
  double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
  double a = sin (dlat / 2) * sin (dlat / 2) + cos (lat1 * rad) * cos (lat2 * rad) * sin (dlon / 2) * sin (dlon / 2);
  return 2 * 6371008.8 * asin (sqrt (MIN (1.0, a)));
}

/* Could the receiver have got from the trusted fix to @ev in the time
 * between them?  Both error radii are slack: a coarse fix is no jump. */
static gboolean
plausible_move (const RlEvidenceSet *set, const RlEvidence *ev, double *moved_m, double *dt_s)
{
  double reach;

  if (!set->have_trusted || !isfinite (ev->gps.lat) || !isfinite (ev->gps.lon))
    return TRUE;
  *dt_s = fabs ((double) (ev->observed_at - set->trusted_at) / RL_USEC_PER_SEC);
  reach = set->gps_max_speed_mps * *dt_s + set->trusted_error_m +
          (isfinite (ev->gps.error_m) ? ev->gps.error_m : 0);
  *moved_m = rl_distance_m (set->trusted_lat, set->trusted_lon, ev->gps.lat, ev->gps.lon);
  return *moved_m <= reach;
}

/* A receiver that says it stands still, and said so at the last trusted
 * fix a short while ago, has not crossed into another country beyond both
 * error radii: multipath next to tall buildings (docs/policy.md, rule 7). */
static gboolean
still_jump (const RlEvidenceSet *set, const RlEvidence *ev)
{
  double slack;

  if (set->gps_still_mps <= 0 || !set->have_trusted || !isfinite (ev->gps.speed_mps) ||
      !isfinite (set->trusted_speed_mps) || ev->gps.speed_mps > set->gps_still_mps ||
      set->trusted_speed_mps > set->gps_still_mps || ev->n_countries == 0 ||
      set->trusted_country == RL_COUNTRY_NONE || ev->countries[0] == set->trusted_country ||
      ev->observed_at - set->trusted_at > set->gps_still_window_us || ev->observed_at < set->trusted_at)
    return FALSE;
  slack = set->trusted_error_m + (isfinite (ev->gps.error_m) ? ev->gps.error_m : 0);
  return rl_distance_m (set->trusted_lat, set->trusted_lon, ev->gps.lat, ev->gps.lon) > slack;
}

/* Access points have a range of metres: a receiver standing still that
 * still hears the access points it heard at the last trusted fix has not
 * moved kilometres, however long ago that fix was (GPS spoofing around the
 * Baltic: a confident fix 140 km away, the office's routers unchanged). */
#define SAME_APS_RECENT_US (120 * RL_USEC_PER_SEC)
#define SAME_APS_MIN 2
#define SAME_APS_FAR_M 1000.0

static void
remember_heard (RlEvidenceSet *set, gint64 at)
{
  const RlEvidence *items = (const RlEvidence *) (gconstpointer) set->items->data;

  if (set->heard_at_trusted == NULL)
    set->heard_at_trusted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_remove_all (set->heard_at_trusted);
  for (guint i = 0; i < set->items->len; i++)
    if (items[i].kind == RL_SOURCE_BEACON && items[i].observed_at <= at && at - items[i].observed_at <= SAME_APS_RECENT_US)
      g_hash_table_add (set->heard_at_trusted, g_strdup (items[i].key));
}

static gboolean
same_aps_far_jump (const RlEvidenceSet *set, const RlEvidence *ev)
{
  GHashTableIter it;
  gpointer key;
  guint still_heard = 0;
  double slack;

  if (set->gps_still_mps <= 0 || !set->have_trusted || set->heard_at_trusted == NULL ||
      !isfinite (ev->gps.speed_mps) || ev->gps.speed_mps > set->gps_still_mps ||
      !isfinite (set->trusted_speed_mps) || set->trusted_speed_mps > set->gps_still_mps)
    return FALSE;
  slack = set->trusted_error_m + (isfinite (ev->gps.error_m) ? ev->gps.error_m : 0) + SAME_APS_FAR_M;
  if (rl_distance_m (set->trusted_lat, set->trusted_lon, ev->gps.lat, ev->gps.lon) <= slack)
    return FALSE;
  g_hash_table_iter_init (&it, set->heard_at_trusted);
  while (g_hash_table_iter_next (&it, &key, NULL) && still_heard < SAME_APS_MIN)
    {
      gpointer pos = g_hash_table_lookup (set->index, key);
      const RlEvidence *b = pos ? &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1) : NULL;
      if (b != NULL && b->observed_at > set->trusted_at && b->observed_at <= ev->observed_at &&
          ev->observed_at - b->observed_at <= SAME_APS_RECENT_US)
        still_heard++;
    }
  return still_heard >= SAME_APS_MIN;
}

/* The GPS rules of rl_evidence_set_set_gps_limits(): FALSE when @ev is
 * kept out; else @out is what to store. */
static gboolean
judge_gps (RlEvidenceSet *set, const RlEvidence *ev, const RlEvidence *current, RlEvidence *out)
{
  double moved_m = 0, dt_s = 0;

  *out = *ev;
  if (set->gps_best_window_us > 0 && current != NULL && !(current->gps.flags & RL_GPS_INFO_UNTRUSTED) &&
      ev->observed_at >= current->observed_at && ev->observed_at - current->observed_at < set->gps_best_window_us &&
      ev->gps.error_m > current->gps.error_m)
    {
      set->gps_kept_out++;
      return FALSE;
    }
  if (still_jump (set, ev))
    {
      out->gps.flags |= RL_GPS_INFO_UNTRUSTED;
      g_strlcat (out->detail, " (untrusted: reports standing still, yet left the last trusted fix's country)",
                 sizeof out->detail);
      set->gps_untrusted++;
      return TRUE;
    }
  if (same_aps_far_jump (set, ev))
    {
      out->gps.flags |= RL_GPS_INFO_UNTRUSTED;
      g_strlcat (out->detail, " (untrusted: far from the last trusted fix, the same access points still heard)",
                 sizeof out->detail);
      set->gps_untrusted++;
      return TRUE;
    }
  if (set->gps_max_speed_mps <= 0)
    return TRUE;
  if (!plausible_move (set, ev, &moved_m, &dt_s))
    {
      char note[80];
      out->gps.flags |= RL_GPS_INFO_UNTRUSTED;
      g_snprintf (note, sizeof note, " (untrusted: %.0f km from the last trusted fix in %.0f s)",
                  moved_m / 1000, dt_s);
      g_strlcat (out->detail, note, sizeof out->detail);
      set->gps_untrusted++;
      return TRUE;
    }
  out->gps.flags &= ~(guint32) RL_GPS_INFO_UNTRUSTED;
  if (isfinite (ev->gps.lat) && isfinite (ev->gps.lon))
    {
      set->have_trusted = TRUE;
      set->trusted_lat = ev->gps.lat;
      set->trusted_lon = ev->gps.lon;
      set->trusted_error_m = isfinite (ev->gps.error_m) ? ev->gps.error_m : 0;
      set->trusted_at = ev->observed_at;
      set->trusted_speed_mps = ev->gps.speed_mps;
      set->trusted_country = ev->n_countries > 0 ? ev->countries[0] : RL_COUNTRY_NONE;
      if (set->gps_still_mps > 0 && isfinite (ev->gps.speed_mps) && ev->gps.speed_mps <= set->gps_still_mps)
        remember_heard (set, ev->observed_at);
      else if (set->heard_at_trusted != NULL)
        g_hash_table_remove_all (set->heard_at_trusted);
    }
  return TRUE;
}

gboolean
rl_evidence_set_put (RlEvidenceSet *set, const RlEvidence *ev)
{
  gpointer pos = g_hash_table_lookup (set->index, ev->key);
  RlEvidence judged;

  g_return_val_if_fail (ev->kind < RL_N_SOURCE_KINDS, FALSE);
  if (ev->kind == RL_SOURCE_GPS)
    {
      const RlEvidence *current = pos != NULL ? &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1) : NULL;
      if (!judge_gps (set, ev, current != NULL && current->kind == RL_SOURCE_GPS ? current : NULL, &judged))
        return FALSE;
      ev = &judged;
    }
  if (pos != NULL)
    {
      RlEvidence *old = &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1);
      set->counts[old->kind]--;
      set->counts[ev->kind]++;
      *old = *ev;
      return TRUE;
    }
  if (set->max_per_kind > 0 && rl_evidence_set_count_kind (set, ev->kind) >= set->max_per_kind)
    evict_one (set, ev->kind);
  g_array_append_val (set->items, *ev);
  set->counts[ev->kind]++;
  g_hash_table_insert (set->index, g_strdup (ev->key), GUINT_TO_POINTER (set->items->len));
  return TRUE;
}

gboolean
rl_evidence_set_remove (RlEvidenceSet *set, const char *key)
{
  gpointer pos = g_hash_table_lookup (set->index, key);

  if (pos == NULL)
    return FALSE;
  remove_at (set, GPOINTER_TO_UINT (pos) - 1);
  return TRUE;
}

static guint
remove_matching (RlEvidenceSet *set, gboolean (*match) (const RlEvidence *, gconstpointer), gconstpointer data)
{
  guint removed = 0;

  for (guint i = set->items->len; i > 0; i--)
    if (match (&g_array_index (set->items, RlEvidence, i - 1), data))
      {
        remove_at (set, i - 1);
        removed++;
      }
  return removed;
}

static gboolean
match_kind (const RlEvidence *ev, gconstpointer data)
{
  return ev->kind == *(const RlSourceKind *) data;
}

static gboolean
match_expired (const RlEvidence *ev, gconstpointer data)
{
  return ev->expires_at <= *(const gint64 *) data;
}

static gboolean
match_pre_sleep (const RlEvidence *ev, gconstpointer data)
{
  /* the timezone and an override are settings, not observations of where we are */
  return (ev->kind == RL_SOURCE_GPS || ev->kind == RL_SOURCE_BEACON) && ev->observed_at < *(const gint64 *) data;
}

guint
rl_evidence_set_remove_kind (RlEvidenceSet *set, RlSourceKind kind)
{
  return remove_matching (set, match_kind, &kind);
}

guint
rl_evidence_set_expire (RlEvidenceSet *set, gint64 now)
{
  return remove_matching (set, match_expired, &now);
}

typedef struct {
  gint64 since;
  guint bands;
} Unheard;

static gboolean
match_unheard (const RlEvidence *ev, gconstpointer data)
{
  const Unheard *u = data;
  return ev->kind == RL_SOURCE_BEACON && ev->observed_at < u->since &&
         rl_band_covered (u->bands, rl_band_from_freq (ev->beacon.freq_mhz));
}

guint
rl_evidence_set_drop_unheard (RlEvidenceSet *set, gint64 since, guint bands)
{
  Unheard u = { since, bands };
  return remove_matching (set, match_unheard, &u);
}

guint
rl_evidence_set_drop_observed_before (RlEvidenceSet *set, gint64 time)
{
  return remove_matching (set, match_pre_sleep, &time);
}

const RlEvidence *
rl_evidence_set_items (const RlEvidenceSet *set, gsize *n_items)
{
  *n_items = set->items->len;
  return (const RlEvidence *) (gconstpointer) set->items->data;
}

guint
rl_evidence_set_count_kind (const RlEvidenceSet *set, RlSourceKind kind)
{
  g_return_val_if_fail (kind < RL_N_SOURCE_KINDS, 0);
  return set->counts[kind];
}

gint64
rl_evidence_set_next_expiry (const RlEvidenceSet *set)
{
  gint64 next = RL_NEVER;

  for (guint i = 0; i < set->items->len; i++)
    next = MIN (next, g_array_index (set->items, RlEvidence, i).expires_at);
  return next;
}
