#include "core/evidence-set.h"
#include "core/neighbours.h"

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
  gboolean fix_gap;             /* the fix was lost (or aged out) since the last trusted one */
  GHashTable *heard_at_trusted; /* keys of the beacons heard around the last trusted fix */
  /* rl_evidence_set_set_ride_along */
  gint64 ride_window_us;
  guint ride_min_lost;
  GArray *lost;           /* Lost: devices no longer heard, oldest loss first */
  GArray *riders;         /* guint64: devices marked as riding along */
  gint64 last_lost_at;    /* the newest loss recorded, or 0 */
};

/* A device (first five octets of a globally administered BSSID) that is
 * no longer heard: when it was first heard and when it was lost. */
typedef struct {
  guint64 device;
  guint network;          /* its operator (OUI) and SSID: one passing train is one */
  RlCountry country;      /* the country its Country element said */
  gint64 first_heard;
  gint64 lost_at;
} Lost;

/* Losses remembered at most: enough for the turnover of three windows on a
 * busy road; a flood of made-up devices only pushes out older losses. */
#define LOST_MAX 128
#define NOT_LOST G_MININT64
/* windows with nothing lost after which no device rides along any more */
#define RIDERS_QUIET 24
/* networks heard throughout beyond which the machine is in a place,
 * unless what went by is a roadside out of their reach */
#define RIDERS_MAX_NETWORKS 3

RlEvidenceSet *
rl_evidence_set_new (guint max_per_kind)
{
  RlEvidenceSet *set = g_new0 (RlEvidenceSet, 1);

  set->items = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
  set->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  set->max_per_kind = max_per_kind;
  set->lost = g_array_new (FALSE, FALSE, sizeof (Lost));
  set->riders = g_array_new (FALSE, FALSE, sizeof (guint64));
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
  g_array_unref (set->lost);
  g_array_unref (set->riders);
  g_free (set);
}

/* The device a beacon item belongs to (its first five BSSID octets), for
 * the ride-along rule; FALSE for other kinds and made-up (locally
 * administered) addresses, which anyone can mint by the thousand. */
static gboolean
beacon_device (const RlEvidence *ev, guint64 *device)
{
  if (ev->kind != RL_SOURCE_BEACON || RL_BSSID_IS_LOCAL (ev->beacon.bssid))
    return FALSE;
  *device = 0;
  for (guint i = 0; i < 5; i++)
    *device = (*device << 8) | ev->beacon.bssid[i];
  return TRUE;
}

/* The country a beacon item's Country element said, or RL_COUNTRY_NONE */
static RlCountry
beacon_country (const RlEvidence *ev)
{
  return ev->n_countries == 1 ? ev->countries[0] : RL_COUNTRY_NONE;
}

/* Is a BSSID of @device heard?  @first_heard (may be NULL) gets the
 * earliest first sighting of those heard. */
static gboolean
device_heard (const RlEvidenceSet *set, guint64 device, gint64 *first_heard)
{
  const RlEvidence *items = (const RlEvidence *) (gconstpointer) set->items->data;
  gboolean heard = FALSE;
  guint64 d;

  for (guint i = 0; i < set->items->len; i++)
    if (beacon_device (&items[i], &d) && d == device)
      {
        if (first_heard == NULL)
          return TRUE;
        *first_heard = heard ? MIN (*first_heard, items[i].beacon.first_heard) : items[i].beacon.first_heard;
        heard = TRUE;
      }
  return heard;
}

/* @device's place in set->riders, or -1 */
static gint
rider_index (const RlEvidenceSet *set, guint64 device)
{
  for (guint i = 0; i < set->riders->len; i++)
    if (g_array_index (set->riders, guint64, i) == device)
      return (gint) i;
  return -1;
}

static gboolean
is_rider (const RlEvidenceSet *set, guint64 device)
{
  return rider_index (set, device) >= 0;
}

/* One operator's network (OUI and SSID) is one when counting what was lost:
 * a train passing a platform is one network of many devices; a hidden
 * SSID leaves the device on its own. */
static guint
lost_network (const RlEvidence *gone, guint64 device)
{
  if (gone->beacon.ssid[0] == '\0')
    return g_int64_hash (&device);
  return g_str_hash (gone->beacon.ssid) * 31u + (guint) (device >> 16);
}

/* @gone was removed: when no other BSSID of its device is heard, the device
 * no longer rides along, and it is remembered as lost at @lost_at.  Nothing
 * to keep while the rule is off (a scan of hundreds of access points drops
 * many at once). */
static void
note_gone (RlEvidenceSet *set, const RlEvidence *gone, gint64 lost_at)
{
  guint64 device;
  guint oldest = 0;
  gint rider;

  if (set->ride_window_us <= 0 || !beacon_device (gone, &device) || device_heard (set, device, NULL))
    return;
  rider = rider_index (set, device);
  if (rider >= 0)
    g_array_remove_index_fast (set->riders, (guint) rider);
  if (lost_at == NOT_LOST)
    return;
  set->last_lost_at = MAX (set->last_lost_at, lost_at);
  for (guint i = 0; i < set->lost->len; i++)
    {
      Lost *l = &g_array_index (set->lost, Lost, i);
      if (l->device == device)
        {
          l->first_heard = MIN (l->first_heard, gone->beacon.first_heard);
          l->lost_at = MAX (l->lost_at, lost_at);
          return;
        }
      if (l->lost_at < g_array_index (set->lost, Lost, oldest).lost_at)
        oldest = i;
    }
  if (set->lost->len >= LOST_MAX)
    g_array_remove_index_fast (set->lost, oldest);
  {
    Lost l = { device, lost_network (gone, device), beacon_country (gone), gone->beacon.first_heard, lost_at };
    g_array_append_val (set->lost, l);
  }
}

/* The times the set keeps on a beacon item (RlBeaconInfo): carried over
 * from the item it replaces; for a new one, its device's first sighting
 * from another BSSID heard or from its loss (it came back: not lost). */
static void
stamp_beacon (RlEvidenceSet *set, RlEvidence *ev, const RlEvidence *old)
{
  guint64 device;
  gint64 first;

  ev->beacon.missed_scans = 0;   /* heard now */
  ev->beacon.heard_scans = 0;
  if (old != NULL && old->kind == RL_SOURCE_BEACON)
    {
      ev->beacon.heard_scans = old->beacon.heard_scans;
      ev->beacon.heard_since = MIN (old->beacon.heard_since, ev->observed_at);
      ev->beacon.first_heard = MIN (old->beacon.first_heard, ev->observed_at);
      ev->beacon.flags = old->beacon.flags;
      return;
    }
  ev->beacon.heard_since = ev->beacon.first_heard = ev->observed_at;
  ev->beacon.flags = 0;
  if (set->ride_window_us <= 0 || !beacon_device (ev, &device))
    return;
  for (guint i = 0; i < set->lost->len; i++)
    if (g_array_index (set->lost, Lost, i).device == device)
      {
        ev->beacon.first_heard = MIN (ev->beacon.first_heard, g_array_index (set->lost, Lost, i).first_heard);
        g_array_remove_index_fast (set->lost, i);
        break;
      }
  if (device_heard (set, device, &first))
    ev->beacon.first_heard = MIN (ev->beacon.first_heard, first);
  if (is_rider (set, device))
    ev->beacon.flags |= RL_BEACON_INFO_RIDES_ALONG;
}

/* Removes the item at @pos; a beacon whose device is no longer heard is
 * remembered as lost at @lost_at (NOT_LOST: not a loss, e.g. a full table
 * or a resume). */
static void
remove_at (RlEvidenceSet *set, guint pos, gint64 lost_at)
{
  RlEvidence *items = (RlEvidence *) (gpointer) set->items->data;
  guint last = set->items->len - 1;
  RlEvidence gone = items[pos];

  set->counts[items[pos].kind]--;
  /* a receiver that lost its fix may have travelled in between: a tunnel
   * under the Karawanken from a toll booth to a police check */
  if (items[pos].kind == RL_SOURCE_GPS)
    set->fix_gap = TRUE;
  g_hash_table_remove (set->index, items[pos].key);
  if (pos != last)
    {
      items[pos] = items[last];
      g_hash_table_insert (set->index, g_strdup (items[pos].key), GUINT_TO_POINTER (pos + 1));
    }
  g_array_set_size (set->items, last);
  note_gone (set, &gone, lost_at);
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
    remove_at (set, victim, NOT_LOST);
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

  if (set->gps_still_mps <= 0 || !set->have_trusted || set->fix_gap || !isfinite (ev->gps.speed_mps) ||
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
      const RlEvidence *b = rl_evidence_set_lookup (set, key);
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
      set->fix_gap = FALSE;
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
  if (ev->kind == RL_SOURCE_BEACON)
    {
      const RlEvidence *current = pos != NULL ? &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1) : NULL;
      judged = *ev;
      stamp_beacon (set, &judged, current);
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
  /* a source that says an access point is gone: lost when last heard */
  {
    guint at = GPOINTER_TO_UINT (pos) - 1;
    remove_at (set, at, g_array_index (set->items, RlEvidence, at).observed_at);
  }
  return TRUE;
}

static guint
remove_matching (RlEvidenceSet *set, gboolean (*match) (const RlEvidence *, gconstpointer), gconstpointer data,
                 gint64 lost_at)
{
  guint removed = 0;

  for (guint i = set->items->len; i > 0; i--)
    if (match (&g_array_index (set->items, RlEvidence, i - 1), data))
      {
        remove_at (set, i - 1, lost_at);
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
  /* the timezone and an override are settings, not observations of where
   * we are; a modem's registration is one (the mast the machine slept
   * under), and a self-managed card's country is its firmware's setting */
  return (ev->kind == RL_SOURCE_GPS || ev->kind == RL_SOURCE_BEACON || ev->kind == RL_SOURCE_CELL) &&
         ev->observed_at < *(const gint64 *) data;
}

guint
rl_evidence_set_remove_kind (RlEvidenceSet *set, RlSourceKind kind)
{
  return remove_matching (set, match_kind, &kind, NOT_LOST);
}

guint
rl_evidence_set_expire (RlEvidenceSet *set, gint64 now)
{
  return remove_matching (set, match_expired, &now, now);
}

guint
rl_evidence_set_drop_unheard (RlEvidenceSet *set, gint64 since, guint bands, guint *n_once)
{
  guint removed = 0, once = 0;

  for (guint i = set->items->len; i > 0; i--)
    {
      RlEvidence *ev = &g_array_index (set->items, RlEvidence, i - 1);
      if (ev->kind != RL_SOURCE_BEACON || !rl_band_covered (bands, rl_band_from_freq (ev->beacon.freq_mhz)) ||
          !rl_beacon_scan_done (ev->observed_at >= since, &ev->beacon.heard_scans, &ev->beacon.missed_scans))
        continue;
      once += rl_beacon_heard_once (ev);
      remove_at (set, i - 1, since);
      removed++;
    }
  if (n_once != NULL)
    *n_once = once;
  return removed;
}

guint
rl_evidence_set_drop_observed_before (RlEvidenceSet *set, gint64 time)
{
  /* what was heard before a sleep says nothing about the turnover after it */
  g_array_set_size (set->lost, 0);
  set->last_lost_at = 0;
  /* nor about a jump of the fix: access points heard at the last trusted
   * fix and again after the sleep travelled along (a MiFi, a travel
   * router), or the machine never moved, which the fix then says itself */
  if (set->heard_at_trusted != NULL)
    g_hash_table_remove_all (set->heard_at_trusted);
  return remove_matching (set, match_pre_sleep, &time, NOT_LOST);
}

const RlEvidence *
rl_evidence_set_items (const RlEvidenceSet *set, gsize *n_items)
{
  *n_items = set->items->len;
  return (const RlEvidence *) (gconstpointer) set->items->data;
}

/* The item stored under @key, or NULL; valid until the set changes. */
const RlEvidence *
rl_evidence_set_lookup (const RlEvidenceSet *set, const char *key)
{
  gpointer pos = g_hash_table_lookup (set->index, key);

  return pos != NULL ? &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1) : NULL;
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

void
rl_evidence_set_set_ride_along (RlEvidenceSet *set, guint window_s, guint min_lost)
{
  set->ride_window_us = (gint64) window_s * RL_USEC_PER_SEC;
  set->ride_min_lost = MAX (min_lost, 1);
}

/* One device heard now: the earliest start of an unbroken run of any of
 * its BSSIDs, and its first sighting. */
typedef struct {
  guint64 device;
  gint64 heard_since, first_heard;
  guint network;          /* lost_network () of its first item */
  RlCountry country;      /* beacon_country () of its first item */
} Heard;

static gint
heard_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = ((const Heard *) a)->device, y = ((const Heard *) b)->device;
  return x < y ? -1 : x > y;
}

static GArray *
heard_devices (const RlEvidenceSet *set)
{
  const RlEvidence *items = (const RlEvidence *) (gconstpointer) set->items->data;
  GArray *all = g_array_new (FALSE, FALSE, sizeof (Heard));
  guint n = 0;

  for (guint i = 0; i < set->items->len; i++)
    {
      Heard h;
      if (!beacon_device (&items[i], &h.device))
        continue;
      h.heard_since = items[i].beacon.heard_since;
      h.first_heard = items[i].beacon.first_heard;
      h.network = lost_network (&items[i], h.device);
      h.country = beacon_country (&items[i]);
      g_array_append_val (all, h);
    }
  g_array_sort (all, heard_cmp);
  for (guint i = 0; i < all->len; i++)
    {
      Heard *h = &g_array_index (all, Heard, i), *prev = n > 0 ? &g_array_index (all, Heard, n - 1) : NULL;
      if (prev != NULL && prev->device == h->device)
        {
          prev->heard_since = MIN (prev->heard_since, h->heard_since);
          prev->first_heard = MIN (prev->first_heard, h->first_heard);
        }
      else
        g_array_index (all, Heard, n++) = *h;
    }
  g_array_set_size (all, n);
  return all;
}

/* Adds @network to @seen (*n of at most @max) unless it is there. */
static void
add_network (guint *seen, guint *n, guint max, guint network)
{
  for (guint k = 0; k < *n; k++)
    if (seen[k] == network)
      return;
  if (*n < max)
    seen[(*n)++] = network;
}

/* The networks lost (Lost.network, each counted once); with @after >
 * G_MININT64 only those first heard after it and lost within @within of
 * that: they came and went. */
static guint
count_networks (const RlEvidenceSet *set, gint64 after, gint64 within)
{
  guint seen[LOST_MAX], n = 0;

  for (guint i = 0; i < set->lost->len; i++)
    {
      const Lost *l = &g_array_index (set->lost, Lost, i);
      if (after > G_MININT64 && (l->first_heard <= after || l->lost_at - l->first_heard >= within))
        continue;
      add_network (seen, &n, LOST_MAX, l->network);
    }
  return n;
}

/* Beyond a few networks heard throughout, may @country's be marked?  A
 * coach of tourists carries devices from afar through the roadside of one
 * country, then the next: the devices lost in the last three windows name
 * at most two countries, none of them @country or one that touches it.  A
 * street by a border hears the traffic from across it (German MiFis
 * passing a flat in Vaals); a hotel's or a gate's passers-by come from
 * many countries (docs/policy.md rule 4c). */
static gboolean
roadside_out_of_reach (const RlEvidenceSet *set, RlCountry country)
{
  RlCountry seen[2] = { RL_COUNTRY_NONE, RL_COUNTRY_NONE };
  guint n_seen = 0;

  if (country == RL_COUNTRY_NONE)
    return FALSE;
  for (guint i = 0; i < set->lost->len; i++)
    {
      RlCountry other = g_array_index (set->lost, Lost, i).country;
      if (other == RL_COUNTRY_NONE)
        continue;
      if (rl_countries_within_reach (country, other))
        return FALSE;
      if (other != seen[0] && other != seen[1])
        {
          if (n_seen == 2)
            return FALSE;
          seen[n_seen++] = other;
        }
    }
  return TRUE;
}

/* docs/policy.md rule 4c: a machine that moves keeps hearing what travels
 * with it (a coach's router, a MiFi, a travel router) while everything
 * else comes and goes; a machine in a place keeps hearing its
 * neighbours, if only now and then. */
gboolean
rl_evidence_set_update_riders (RlEvidenceSet *set, gint64 now)
{
  RlEvidence *items = (RlEvidence *) (gpointer) set->items->data;
  g_autoptr (GArray) heard = NULL;
  gint64 window = set->ride_window_us, since = now - window;
  guint n_long = 0, n_gapped = 0, long_networks[RIDERS_MAX_NETWORKS + 1], n_long_networks = 0;
  gboolean changed = FALSE, many;

  /* nothing heard: nothing rides along, and no flag to change (the common
   * case of a long GPS log, decided fix after fix) */
  if (set->counts[RL_SOURCE_BEACON] == 0)
    {
      g_array_set_size (set->riders, 0);
      return FALSE;
    }
  if (window <= 0)
    {
      /* off: marks only where it was on until a reload */
      if (set->riders->len == 0)
        return FALSE;
      g_array_set_size (set->riders, 0);
    }
  else
    {
      /* losses older than three windows no longer count */
      for (guint i = set->lost->len; i > 0; i--)
        if (g_array_index (set->lost, Lost, i - 1).lost_at < now - 3 * window)
          g_array_remove_index_fast (set->lost, i - 1);
      heard = heard_devices (set);
      for (guint i = 0; i < heard->len; i++)
        {
          const Heard *h = &g_array_index (heard, Heard, i);
          if (h->heard_since <= since)
            {
              n_long++;
              add_network (long_networks, &n_long_networks, RIDERS_MAX_NETWORKS + 1, h->network);
            }
          else if (h->first_heard <= since)
            n_gapped++;
        }
      /* A device that rode along still does where the machine stops (a
       * travel router in a hotel room says what it said on the road), until
       * its run breaks.  Only a long silence, nothing lost for
       * RIDERS_QUIET windows, takes the marks away: a house whose every
       * neighbour is heard without a break looks like a coach while a
       * burst of devices passes. */
      if (now - set->last_lost_at > RIDERS_QUIET * window)
        g_array_set_size (set->riders, 0);
      /* A vehicle carries a few networks (its own, a MiFi, a travel
       * router); more heard throughout are a place's neighbours, unless
       * what went by is a roadside out of their reach (a coach of tourists'
       * pocket Wi-Fis).
       * Those marked on the road stay marked where the machine stops. */
      many = n_long_networks > RIDERS_MAX_NETWORKS;
      if (n_gapped == 0 && count_networks (set, G_MININT64, 0) >= MAX (set->ride_min_lost, many ? n_long : 2 * n_long))
        for (guint i = 0; i < heard->len; i++)
          {
            const Heard *h = &g_array_index (heard, Heard, i);
            if (h->heard_since > since || is_rider (set, h->device))
              continue;
            if (many && !roadside_out_of_reach (set, h->country))
              continue;
            if (count_networks (set, h->heard_since, window) >= 2)
              g_array_append_val (set->riders, h->device);
          }
    }
  for (guint i = 0; i < set->items->len; i++)
    {
      guint64 device;
      guint32 flags;
      if (items[i].kind != RL_SOURCE_BEACON)
        continue;
      flags = items[i].beacon.flags & ~(guint32) RL_BEACON_INFO_RIDES_ALONG;
      if (beacon_device (&items[i], &device) && is_rider (set, device))
        flags |= RL_BEACON_INFO_RIDES_ALONG;
      changed |= flags != items[i].beacon.flags;
      items[i].beacon.flags = flags;
    }
  return changed;
}
