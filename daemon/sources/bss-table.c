#include "daemon/sources/bss-table.h"
#include "core/engine.h"

#include <string.h>

/* A BSS is a new observation only when its last-seen time moved by more
 * than this; every dump repeats the kernel's cached entries.  The same
 * window as the replay of captures (core/engine.h). */
#define RL_BSS_SAME_FRAME_US RL_BEACON_REPEAT_US

/* Entries are grouped by rl_bssid_eviction_group (OUI, or "locally
 * administered"); each group keeps its entries least recently heard first,
 * so evicting costs one pass over the groups, not over the entries. */
typedef struct {
  guint32 id;
  GQueue members;       /* Bss *, least recently heard first */
} Group;

typedef struct {
  guint8 bssid[6];
  Group *group;
  GList link;           /* in group->members */
  gint64 last_seen;
  guint32 heard_scans;  /* completed scans covering it that heard it (rl_beacon_scan_done) */
  guint32 missed_scans; /* … and those in a row that did not */
  gboolean has_evidence;
  guint32 freq_mhz;     /* where it was last heard; 0 unknown */
  gint32 signal_mbm;    /* … how loud; 0 unknown */
} Bss;

struct RlBssTable {
  RlSource *owner;
  guint max_age_s;
  guint max_bss;
  GHashTable *bss;      /* bssid packed in a guint64 → Bss */
  GHashTable *groups;   /* group id + 1 → Group */
  guint n_with_country;
  gint64 last_full_prune;
};

static guint64
bssid_key (const guint8 b[6])
{
  guint64 k = 0;
  for (guint i = 0; i < 6; i++)
    k = (k << 8) | b[i];
  return k;
}

RlBssTable *
rl_bss_table_new (RlSource *owner, guint max_age_s, guint max_bss)
{
  RlBssTable *t = g_new0 (RlBssTable, 1);
  t->owner = owner;
  t->max_age_s = max_age_s;
  t->max_bss = max_bss;
  t->bss = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  t->groups = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  t->last_full_prune = G_MININT64;
  return t;
}

void
rl_bss_table_free (RlBssTable *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->bss);
  g_hash_table_unref (t->groups);
  g_free (t);
}

static void
withdraw (RlBssTable *t, Bss *b)
{
  char key[RL_BEACON_KEY_LEN];
  rl_beacon_key (b->bssid, key);
  rl_source_withdraw (t->owner, key);
  b->has_evidence = FALSE;
  t->n_with_country--;
}

static void
join_group (RlBssTable *t, Bss *b)
{
  guint32 id = rl_bssid_eviction_group (b->bssid);
  Group *g = g_hash_table_lookup (t->groups, GUINT_TO_POINTER (id + 1));

  if (g == NULL)
    {
      g = g_new0 (Group, 1);
      g->id = id;
      g_queue_init (&g->members);
      g_hash_table_insert (t->groups, GUINT_TO_POINTER (id + 1), g);
    }
  b->group = g;
  b->link.data = b;
  g_queue_push_tail_link (&g->members, &b->link);
}

static void
drop (RlBssTable *t, Bss *b)
{
  guint64 key = bssid_key (b->bssid);
  Group *g = b->group;

  if (b->has_evidence)
    withdraw (t, b);
  g_queue_unlink (&g->members, &b->link);
  if (g->members.length == 0)
    g_hash_table_remove (t->groups, GUINT_TO_POINTER (g->id + 1));
  g_hash_table_remove (t->bss, &key);
}

static gboolean
too_old (const RlBssTable *t, gint64 seen, gint64 now)
{
  return t->max_age_s > 0 && seen + (gint64) t->max_age_s * RL_USEC_PER_SEC < now;
}

void
rl_bss_table_prune (RlBssTable *t, gint64 now)
{
  GHashTableIter it;
  gpointer v;
  g_autoptr (GPtrArray) old = g_ptr_array_new ();

  g_hash_table_iter_init (&it, t->bss);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (too_old (t, ((Bss *) v)->last_seen, now))
      g_ptr_array_add (old, v);
  for (guint i = 0; i < old->len; i++)
    drop (t, old->pdata[i]);
}

/* Room for one more: the least recently heard entry of the largest group
 * goes (ties between groups: the one whose entry was heard longest ago,
 * then the smaller group id), so a flood of BSSIDs from one OUI, or of
 * locally administered ones, evicts its own entries and leaves the access
 * points of every other operator in place. */
static void
make_room (RlBssTable *t)
{
  while (t->max_bss > 0 && g_hash_table_size (t->bss) >= t->max_bss)
    {
      GHashTableIter it;
      gpointer v;
      Group *victim = NULL;

      g_hash_table_iter_init (&it, t->groups);
      while (g_hash_table_iter_next (&it, NULL, &v))
        {
          Group *g = v;
          const Bss *head = g->members.head->data;
          const Bss *vhead = victim ? victim->members.head->data : NULL;
          if (victim == NULL || g->members.length > victim->members.length ||
              (g->members.length == victim->members.length &&
               (head->last_seen < vhead->last_seen || (head->last_seen == vhead->last_seen && g->id < victim->id))))
            victim = g;
        }
      drop (t, victim->members.head->data);
    }
}

gboolean
rl_bss_table_observe (RlBssTable *t, const RlScanBss *sb, gint64 now, gint64 *observed_at)
{
  gint64 seen = now - (gint64) sb->seen_ms_ago * 1000;
  guint64 key = bssid_key (sb->bssid);
  Bss *b = g_hash_table_lookup (t->bss, &key);

  if (b != NULL && ABS (seen - b->last_seen) < RL_BSS_SAME_FRAME_US)
    return FALSE;
  /* a cached entry from before our horizon is no evidence */
  if (too_old (t, seen, now))
    return FALSE;
  if (b == NULL)
    {
      /* At the cap, entries past max_age go before a live one is evicted;
       * once a second is enough (the source also prunes after every dump),
       * so a flood of new BSSIDs costs no pass over the table each. */
      if (t->max_bss > 0 && g_hash_table_size (t->bss) >= t->max_bss &&
          (t->last_full_prune == G_MININT64 || now - t->last_full_prune >= RL_USEC_PER_SEC))
        {
          t->last_full_prune = now;
          rl_bss_table_prune (t, now);
        }
      make_room (t);
      guint64 *k = g_new (guint64, 1);
      *k = key;
      b = g_new0 (Bss, 1);
      memcpy (b->bssid, sb->bssid, 6);
      join_group (t, b);
      g_hash_table_insert (t->bss, k, b);
    }
  else
    {
      /* heard again: now the most recently heard of its group */
      g_queue_unlink (&b->group->members, &b->link);
      g_queue_push_tail_link (&b->group->members, &b->link);
    }
  b->last_seen = seen;
  b->missed_scans = 0;
  b->freq_mhz = sb->freq_mhz;
  b->signal_mbm = sb->has_signal ? sb->signal_mbm : 0;
  *observed_at = seen;

  RlEvidence ev;
  RlCountryIeResult res = rl_beacon_evidence_build (&ev, sb->bssid, sb->has_signal ? sb->signal_mbm : 0, sb->freq_mhz,
                                                    sb->ies, sb->ies_len, sb->beacon_ies, sb->beacon_ies_len,
                                                    seen, t->max_age_s);
  if (res == RL_COUNTRY_IE_OK)
    {
      if (!b->has_evidence)
        t->n_with_country++;
      b->has_evidence = TRUE;
      rl_source_put (t->owner, &ev);
    }
  else if (b->has_evidence)
    {
      /* the AP stopped advertising a usable country: its old word no longer stands */
      withdraw (t, b);
    }
  return TRUE;
}

guint
rl_bss_table_scan_done (RlBssTable *t, gint64 scan_start, const guint32 *freqs, guint n_freqs)
{
  GHashTableIter it;
  gpointer v;
  guint bands = 0;
  g_autoptr (GPtrArray) gone = g_ptr_array_new ();

  if (n_freqs == 0)
    {
      /* the bands this scan heard anything on */
      g_hash_table_iter_init (&it, t->bss);
      while (g_hash_table_iter_next (&it, NULL, &v))
        if (((Bss *) v)->last_seen >= scan_start)
          bands |= rl_band_from_freq (((Bss *) v)->freq_mhz);
      if (bands == 0)
        return 0;   /* heard nothing at all: rather a deaf radio than an empty world */
    }
  g_hash_table_iter_init (&it, t->bss);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Bss *b = v;
      if (rl_scan_covers (freqs, n_freqs, bands, b->freq_mhz) && rl_beacon_scan_done (b->last_seen >= scan_start, &b->heard_scans, &b->missed_scans))
        g_ptr_array_add (gone, b);
    }
  for (guint i = 0; i < gone->len; i++)
    drop (t, gone->pdata[i]);
  return gone->len;
}

gint32
rl_bss_table_loudest_silent (const RlBssTable *t, gint64 since)
{
  GHashTableIter it;
  gpointer v;
  gint32 loudest = 0;

  g_hash_table_iter_init (&it, t->bss);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      const Bss *b = v;
      if (!b->has_evidence && b->last_seen >= since)
        rl_keep_silent (&loudest, b->bssid, b->signal_mbm);
    }
  return loudest;
}

guint
rl_bss_table_size (const RlBssTable *t)
{
  return g_hash_table_size (t->bss);
}

guint
rl_bss_table_n_with_country (const RlBssTable *t)
{
  return t->n_with_country;
}
