#include "bss-table.h"

#include <string.h>

/* A BSS is a new observation only when its last-seen time moved by more
 * than this; every dump repeats the kernel's cached entries. */
#define RL_BSS_SAME_FRAME_US (500 * G_GINT64_CONSTANT (1000))

typedef struct {
  guint8 bssid[6];
  gint64 last_seen;
  gboolean has_evidence;
} Bss;

struct RlBssTable {
  RlSource *owner;
  guint max_age_s;
  guint max_bss;
  GHashTable *bss;      /* bssid packed in a guint64 → Bss */
  guint n_with_country;
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
  return t;
}

void
rl_bss_table_free (RlBssTable *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->bss);
  g_free (t);
}

static void
withdraw (RlBssTable *t, Bss *b)
{
  char text[18], key[48];
  rl_bssid_to_string (b->bssid, text);
  g_snprintf (key, sizeof key, "beacon:%s", text);
  rl_source_withdraw (t->owner, key);
  b->has_evidence = FALSE;
  t->n_with_country--;
}

static void
drop (RlBssTable *t, Bss *b)
{
  guint64 key = bssid_key (b->bssid);
  if (b->has_evidence)
    withdraw (t, b);
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

/* Room for one more: the least recently heard goes (a linear pass, only
 * when the table is full). */
static void
make_room (RlBssTable *t)
{
  while (t->max_bss > 0 && g_hash_table_size (t->bss) >= t->max_bss)
    {
      GHashTableIter it;
      gpointer v;
      Bss *oldest = NULL;
      g_hash_table_iter_init (&it, t->bss);
      while (g_hash_table_iter_next (&it, NULL, &v))
        if (oldest == NULL || ((Bss *) v)->last_seen < oldest->last_seen)
          oldest = v;
      drop (t, oldest);
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
      rl_bss_table_prune (t, now);
      make_room (t);
      guint64 *k = g_new (guint64, 1);
      *k = key;
      b = g_new0 (Bss, 1);
      memcpy (b->bssid, sb->bssid, 6);
      g_hash_table_insert (t->bss, k, b);
    }
  b->last_seen = seen;
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
rl_bss_table_size (const RlBssTable *t)
{
  return g_hash_table_size (t->bss);
}

guint
rl_bss_table_n_with_country (const RlBssTable *t)
{
  return t->n_with_country;
}
