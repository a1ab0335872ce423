/* The scan → apply path alone, for the VM suite while a full daemon is not
 * available: the live beacon source feeds a minimal vote (a country named
 * by at least two APs and by every AP still heard), and the applier sets
 * the kernel's domain.  Not a policy: the daemon's policy is tested apart. */
#include <stdio.h>
#include <stdlib.h>
#include <glib-unix.h>
#include "daemon/kernel/applier.h"
#include "daemon/sources/beacons.h"
#include "daemon/kernel/nl80211-link.h"
#include <netlink/attr.h>
#include <linux/nl80211.h>

typedef struct {
  GMainLoop *loop;
  GHashTable *items;  /* key → RlEvidence */
  RlApplier *applier;
  RlCountry decided;
  guint decide_id;
} Probe;

static gboolean
decide (gpointer user_data)
{
  Probe *p = user_data;
  GHashTableIter it;
  gpointer v;
  gint64 now = g_get_real_time ();
  GHashTable *votes = g_hash_table_new (NULL, NULL);
  guint total = 0;
  RlCountry winner = RL_COUNTRY_WORLD;

  p->decide_id = 0;
  g_hash_table_iter_init (&it, p->items);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      RlEvidence *ev = v;
      if (ev->expires_at < now || ev->n_countries == 0)
        continue;
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (votes, GUINT_TO_POINTER (ev->countries[0])));
      g_hash_table_insert (votes, GUINT_TO_POINTER (ev->countries[0]), GUINT_TO_POINTER (n + 1));
      total++;
    }
  g_hash_table_iter_init (&it, votes);
  gpointer k;
  while (g_hash_table_iter_next (&it, &k, &v))
    if (GPOINTER_TO_UINT (v) >= 2 && GPOINTER_TO_UINT (v) == total)
      winner = (RlCountry) GPOINTER_TO_UINT (k);
  g_hash_table_unref (votes);
  if (winner != p->decided)
    {
      char c[3];
      p->decided = winner;
      printf ("probe: decided %s (%u APs)\n", rl_country_to_string (winner, c), total);
      fflush (stdout);
      rl_applier_apply (p->applier, winner);
    }
  return G_SOURCE_REMOVE;
}

static gboolean
on_tick (gpointer user_data)
{
  decide (user_data);
  return G_SOURCE_CONTINUE;
}

static void
schedule (Probe *p)
{
  if (p->decide_id == 0)
    p->decide_id = g_idle_add (decide, p);
}

static void
on_put (RlSource *source, const RlEvidence *ev, gpointer user_data)
{
  Probe *p = user_data;
  char c[64];
  printf ("probe: %s %s\n", ev->key, rl_evidence_countries_to_string (ev, c, sizeof c));
  fflush (stdout);
  g_hash_table_insert (p->items, g_strdup (ev->key), g_memdup2 (ev, sizeof *ev));
  schedule (p);
}

static void
on_withdraw (RlSource *source, const char *key, gpointer user_data)
{
  Probe *p = user_data;
  g_hash_table_remove (p->items, key);
  schedule (p);
}

static void
on_status (RlSource *source, gpointer user_data)
{
  printf ("probe: beacons %s: %s\n", source->available ? "available" : "unavailable", source->detail);
  fflush (stdout);
}

static void
on_kernel (RlApplier *applier, gpointer user_data)
{
  printf ("probe: applier %s\n", rl_applier_detail (applier));
  fflush (stdout);
}

static gboolean
on_quit (gpointer user_data)
{
  g_main_loop_quit (((Probe *) user_data)->loop);
  return G_SOURCE_REMOVE;
}

/* --raw: print every nl80211 scan/regulatory message as hex, to record
 * attribute sets for the unit tests */
static void
print_raw (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  printf ("RAW %s cmd=%u len=%zu ", (const char *) user_data, cmd, len);
  for (gsize i = 0; i < len; i++)
    printf ("%02x", attrs[i]);
  printf ("\n");
  fflush (stdout);
}

static RlNlLink *raw_link;

static void
on_raw_event (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  print_raw (cmd, attrs, len, (gpointer) "event");
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  if (cmd == NL80211_CMD_NEW_SCAN_RESULTS
      && nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) == 0
      && tb[NL80211_ATTR_IFINDEX] != NULL)
    rl_nl_link_dump (raw_link, NL80211_CMD_GET_SCAN, (int) nla_get_u32 (tb[NL80211_ATTR_IFINDEX]), print_raw,
                     (gpointer) "scan", NULL);
}

static int
record_raw (void)
{
  static const char *const groups[] = { "scan", "regulatory", NULL };
  GMainLoop *loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (GError) error = NULL;
  raw_link = rl_nl_link_new (groups, on_raw_event, NULL, NULL, &error);
  if (raw_link == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  rl_nl_link_dump (raw_link, NL80211_CMD_GET_REG, 0, print_raw, (gpointer) "reg", NULL);
  g_main_loop_run (loop);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && g_strcmp0 (argv[1], "--raw") == 0)
    return record_raw ();

  Probe p = { 0 };
  RlConfig config = { 0 };

  config.apply = TRUE;
  config.beacons_enabled = TRUE;
  config.beacons_max_bss = 512;
  config.policy.max_age_s[RL_SOURCE_BEACON] = argc > 1 ? (guint) atoi (argv[1]) : 900;
  config.beacons_scan_interval_s = argc > 2 ? (guint) atoi (argv[2]) : 0;

  p.loop = g_main_loop_new (NULL, FALSE);
  p.items = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p.decided = RL_COUNTRY_NONE;
  p.applier = rl_applier_new (config.apply);
  rl_applier_set_changed_func (p.applier, on_kernel, &p);
  rl_applier_start (p.applier);

  RlSourceSink sink = { on_put, on_withdraw, on_status, &p };
  RlSource *src = rl_beacons_source_ops.create (&config, &sink);
  src->ops->start (src);
  g_timeout_add_seconds (1, on_tick, &p);
  g_unix_signal_add (SIGTERM, on_quit, &p);
  g_unix_signal_add (SIGINT, on_quit, &p);
  g_main_loop_run (p.loop);
  src->ops->free (src);
  rl_applier_free (p.applier);
  g_hash_table_unref (p.items);
  g_main_loop_unref (p.loop);
  return 0;
}
