/* The beacon source's per-BSSID table: new observations vs. repeated dump
 * entries, withdrawal when an AP stops naming a country, ageing, the cap. */
#include <string.h>
#include "daemon/sources/bss-table.h"

#define SEC RL_USEC_PER_SEC
#define T0 (G_GINT64_CONSTANT (1767225600) * SEC)

typedef struct {
  RlSource source;
  GHashTable *items;   /* key → country */
  guint puts, withdraws;
} Fixture;

static void
on_put (RlSource *s, const RlEvidence *ev, gpointer user_data)
{
  Fixture *f = user_data;
  f->puts++;
  g_hash_table_insert (f->items, g_strdup (ev->key), GUINT_TO_POINTER (ev->countries[0]));
}

static void
on_withdraw (RlSource *s, const char *key, gpointer user_data)
{
  Fixture *f = user_data;
  f->withdraws++;
  g_assert_true (g_hash_table_remove (f->items, key));
}

static const RlSourceOps dummy_ops = { .name = "test", .kind = RL_SOURCE_BEACON };

static void
fixture_init (Fixture *f)
{
  memset (f, 0, sizeof *f);
  f->items = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  RlSourceSink sink = { on_put, on_withdraw, NULL, f };
  rl_source_init (&f->source, &dummy_ops, &sink);
}

static guint8 ies_de[] = { 0, 2, 'a', 'p', 7, 6, 'D', 'E', ' ', 1, 13, 20 };
static guint8 ies_none[] = { 0, 2, 'a', 'p' };

static RlScanBss
bss (guint8 last, guint32 seen_ms_ago, gboolean country)
{
  RlScanBss b = { 0 };
  guint8 id[6] = { 0x3c, 0x84, 0x6a, 0, 0, last };
  memcpy (b.bssid, id, 6);
  b.freq_mhz = 2412;
  b.seen_ms_ago = seen_ms_ago;
  b.ies = country ? ies_de : ies_none;
  b.ies_len = country ? sizeof ies_de : sizeof ies_none;
  return b;
}

static void
test_observe (void)
{
  Fixture f;
  fixture_init (&f);
  RlBssTable *t = rl_bss_table_new (&f.source, 60, 8);
  gint64 seen;

  RlScanBss a = bss (1, 100, TRUE);
  g_assert_true (rl_bss_table_observe (t, &a, T0, &seen));
  g_assert_cmpint (seen, ==, T0 - 100000);
  g_assert_cmpuint (f.puts, ==, 1);
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:01"));

  /* the next dump repeats the cached entry, 2 s older: no new observation */
  a.seen_ms_ago = 2100;
  g_assert_false (rl_bss_table_observe (t, &a, T0 + 2 * SEC, &seen));
  g_assert_cmpuint (f.puts, ==, 1);
  /* heard again, but within RL_BEACON_REPEAT_US: the same observation */
  a.seen_ms_ago = 50;
  g_assert_false (rl_bss_table_observe (t, &a, T0 + 2 * SEC, &seen));
  g_assert_cmpuint (f.puts, ==, 1);
  /* heard again later */
  g_assert_true (rl_bss_table_observe (t, &a, T0 + 6 * SEC, &seen));
  g_assert_cmpuint (f.puts, ==, 2);

  /* the AP drops its Country element: what it said no longer stands */
  RlScanBss quiet = bss (1, 10, FALSE);
  g_assert_true (rl_bss_table_observe (t, &quiet, T0 + 12 * SEC, &seen));
  g_assert_cmpuint (f.withdraws, ==, 1);
  g_assert_cmpuint (g_hash_table_size (f.items), ==, 0);
  g_assert_cmpuint (rl_bss_table_n_with_country (t), ==, 0);
  g_assert_cmpuint (rl_bss_table_size (t), ==, 1);

  /* a cached entry older than max_age is not evidence */
  RlScanBss stale = bss (2, 61000, TRUE);
  g_assert_false (rl_bss_table_observe (t, &stale, T0 + 12 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_size (t), ==, 1);
  rl_bss_table_free (t);
  g_hash_table_unref (f.items);
}

static void
test_age_and_cap (void)
{
  Fixture f;
  fixture_init (&f);
  RlBssTable *t = rl_bss_table_new (&f.source, 60, 4);
  gint64 seen;

  for (guint i = 0; i < 4; i++)
    {
      RlScanBss b = bss ((guint8) i, 0, TRUE);
      g_assert_true (rl_bss_table_observe (t, &b, T0 + i * SEC, &seen));
    }
  g_assert_cmpuint (rl_bss_table_size (t), ==, 4);
  /* a fifth: the least recently heard (:00) makes room, and is withdrawn */
  RlScanBss fifth = bss (9, 0, TRUE);
  g_assert_true (rl_bss_table_observe (t, &fifth, T0 + 10 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_size (t), ==, 4);
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:00"));
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:09"));
  g_assert_cmpuint (f.withdraws, ==, 1);

  /* 62 s after T0+1: :01 is older than max_age, the others not yet */
  rl_bss_table_prune (t, T0 + 62 * SEC);
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:01"));
  g_assert_cmpuint (rl_bss_table_size (t), ==, 3);
  rl_bss_table_prune (t, T0 + 200 * SEC);
  g_assert_cmpuint (rl_bss_table_size (t), ==, 0);
  g_assert_cmpuint (g_hash_table_size (f.items), ==, 0);
  g_assert_cmpuint (rl_bss_table_n_with_country (t), ==, 0);
  rl_bss_table_free (t);
  g_hash_table_unref (f.items);
}

/* After a border crossing: the next scan no longer hears the old
 * country's APs on the channels it covered, and they go at once; an AP on
 * a band the scan did not cover stays until it ages out. */
static void
test_scan_done (void)
{
  Fixture f;
  fixture_init (&f);
  RlBssTable *t = rl_bss_table_new (&f.source, 900, 64);
  RlScanBss a = bss (1, 100, TRUE), b = bss (2, 200, TRUE), c = bss (3, 300, TRUE), d = bss (4, 300, TRUE);
  guint32 scanned_24[] = { 2412, 2437, 2462 };
  gint64 seen;

  c.freq_mhz = 5180;
  d.freq_mhz = 2437;
  g_assert_true (rl_bss_table_observe (t, &a, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &b, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &c, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &d, T0, &seen));
  /* the scan that heard them all: nothing goes */
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 - 15 * SEC, NULL, 0), ==, 0);
  g_assert_cmpuint (g_hash_table_size (f.items), ==, 4);

  /* 60 s on, a scan hears only AP 1 (2412 MHz); it covered 2.4 and 5 GHz
   * (the kernel did not list its channels) */
  a.seen_ms_ago = 500;
  g_assert_true (rl_bss_table_observe (t, &a, T0 + 60 * SEC, &seen));
  c.seen_ms_ago = 60300;   /* the cached entry of the first scan */
  g_assert_false (rl_bss_table_observe (t, &c, T0 + 60 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 45 * SEC, NULL, 0), ==, 2);
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:01"));
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:02"));
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:04"));
  /* it heard nothing on 5 GHz: AP 3 stays */
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:03"));
  g_assert_cmpuint (rl_bss_table_size (t), ==, 2);

  /* a scan listing its channels: only those count, 5 GHz included when listed */
  a.seen_ms_ago = 100;
  g_assert_true (rl_bss_table_observe (t, &a, T0 + 120 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 105 * SEC, scanned_24, G_N_ELEMENTS (scanned_24)), ==, 0);
  {
    guint32 scanned_5[] = { 5180, 5200 };
    g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 105 * SEC, scanned_5, G_N_ELEMENTS (scanned_5)), ==, 1);
  }
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:03"));
  /* a scan that heard nothing at all and listed nothing says nothing */
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 300 * SEC, NULL, 0), ==, 0);
  g_assert_cmpuint (g_hash_table_size (f.items), ==, 1);
  rl_bss_table_free (t);
  g_hash_table_unref (f.items);
}

/* What a scan heard besides the evidence: its loudest globally
 * administered BSS without a usable country (rule 4b's reference). */
static void
test_loudest_silent (void)
{
  Fixture f;
  fixture_init (&f);
  RlBssTable *t = rl_bss_table_new (&f.source, 900, 64);
  RlScanBss own = bss (1, 100, FALSE), phone = bss (2, 100, FALSE), neighbour = bss (3, 100, TRUE),
            quiet = bss (4, 100, FALSE), unknown = bss (5, 100, FALSE);
  gint64 seen;

  phone.bssid[0] = 0x6a;                   /* locally administered: a phone's hotspot */
  own.has_signal = phone.has_signal = neighbour.has_signal = quiet.has_signal = TRUE;
  own.signal_mbm = -4100;
  phone.signal_mbm = -3000;
  neighbour.signal_mbm = -3500;            /* names DE: an item, not silent */
  quiet.signal_mbm = -7000;
  g_assert_cmpint (rl_bss_table_loudest_silent (t, T0 - 15 * SEC), ==, 0);
  g_assert_true (rl_bss_table_observe (t, &quiet, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &unknown, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &phone, T0, &seen));
  g_assert_true (rl_bss_table_observe (t, &neighbour, T0, &seen));
  g_assert_cmpint (rl_bss_table_loudest_silent (t, T0 - 15 * SEC), ==, -7000);
  g_assert_true (rl_bss_table_observe (t, &own, T0, &seen));
  g_assert_cmpint (rl_bss_table_loudest_silent (t, T0 - 15 * SEC), ==, -4100);
  /* the next scan heard only the quiet one: the router on the shelf is the last scan's */
  quiet.seen_ms_ago = 200;
  g_assert_true (rl_bss_table_observe (t, &quiet, T0 + 60 * SEC, &seen));
  g_assert_cmpint (rl_bss_table_loudest_silent (t, T0 + 45 * SEC), ==, -7000);
  rl_bss_table_free (t);
  g_hash_table_unref (f.items);
}

/* Live, the same: an AP two scans heard survives one scan that misses it. */
static void
test_scan_missed_once (void)
{
  Fixture f;
  fixture_init (&f);
  RlBssTable *t = rl_bss_table_new (&f.source, 900, 64);
  RlScanBss a = bss (1, 100, TRUE), b = bss (2, 200, TRUE);
  gint64 seen;

  for (int scan = 0; scan < 2; scan++)
    {
      a.seen_ms_ago = b.seen_ms_ago = 100;
      g_assert_true (rl_bss_table_observe (t, &a, T0 + scan * 30 * SEC, &seen));
      g_assert_true (rl_bss_table_observe (t, &b, T0 + scan * 30 * SEC, &seen));
      g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + scan * 30 * SEC - 15 * SEC, NULL, 0), ==, 0);
    }
  /* scan 3 hears only AP 1: AP 2 stays */
  a.seen_ms_ago = 100;
  g_assert_true (rl_bss_table_observe (t, &a, T0 + 60 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 45 * SEC, NULL, 0), ==, 0);
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:02"));
  /* scan 4 misses it again: gone */
  g_assert_true (rl_bss_table_observe (t, &a, T0 + 90 * SEC, &seen));
  g_assert_cmpuint (rl_bss_table_scan_done (t, T0 + 75 * SEC, NULL, 0), ==, 1);
  g_assert_false (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:02"));
  g_assert_true (g_hash_table_contains (f.items, "beacon:3c:84:6a:00:00:01"));
  rl_bss_table_free (t);
  g_hash_table_unref (f.items);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bss-table/observe", test_observe);
  g_test_add_func ("/bss-table/age-and-cap", test_age_and_cap);
  g_test_add_func ("/bss-table/scan-done", test_scan_done);
  g_test_add_func ("/bss-table/loudest-silent", test_loudest_silent);
  g_test_add_func ("/bss-table/scan-missed-once", test_scan_missed_once);
  return g_test_run ();
}
