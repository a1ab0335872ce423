#include "core/evidence-set.h"

#include <string.h>

struct RlEvidenceSet {
  GArray *items;          /* RlEvidence, unordered */
  GHashTable *index;      /* key → position + 1 */
  guint max_per_kind;
  guint counts[RL_N_SOURCE_KINDS];   /* items per kind: a put stays O(1) below the cap */
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
rl_evidence_set_put (RlEvidenceSet *set, const RlEvidence *ev)
{
  gpointer pos = g_hash_table_lookup (set->index, ev->key);

  g_return_if_fail (ev->kind < RL_N_SOURCE_KINDS);
  if (pos != NULL)
    {
      RlEvidence *old = &g_array_index (set->items, RlEvidence, GPOINTER_TO_UINT (pos) - 1);
      set->counts[old->kind]--;
      set->counts[ev->kind]++;
      *old = *ev;
      return;
    }
  if (set->max_per_kind > 0 && rl_evidence_set_count_kind (set, ev->kind) >= set->max_per_kind)
    evict_one (set, ev->kind);
  g_array_append_val (set->items, *ev);
  set->counts[ev->kind]++;
  g_hash_table_insert (set->index, g_strdup (ev->key), GUINT_TO_POINTER (set->items->len));
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
