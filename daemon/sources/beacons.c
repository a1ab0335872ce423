#define G_LOG_DOMAIN "regloc-beacons"

#include "daemon/sources/beacons.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <time.h>
#include <netlink/attr.h>
#include <linux/nl80211.h>
#include "daemon/sources/bss-table.h"
#include "daemon/backoff.h"
#include "daemon/kernel/nl80211-link.h"
#include "readers/scanlog.h"

/* No NEW_SCAN_RESULTS after a trigger we sent: dump anyway. */
#define RL_BEACONS_SCAN_TIMEOUT_S 30
#define RL_BEACONS_RETRY_MIN_S 10
#define RL_BEACONS_RETRY_MAX_S 600

typedef struct {
  int ifindex;
  char name[IF_NAMESIZE + 1];
  guint32 iftype;       /* NL80211_IFTYPE_*, UNSPECIFIED when unknown */
  guint scan_timeout;
  struct RlBeacons *owner;
} Iface;

typedef struct RlBeacons {
  RlSource parent;
  guint scan_interval_s;
  RlNlLink *link;
  GHashTable *ifaces;   /* ifindex → Iface */
  RlBssTable *table;
  guint n_dumped;
  RlBackoff retry;              /* only where nl80211 cannot be watched */
  RlNlFamilyWatch *family_watch; /* waiting for nl80211 to appear */
  guint scan_timer;
  RlBeaconsScanFunc scan_func;
  RlBeaconsScanDoneFunc scan_done_func;
  gpointer scan_data;
} RlBeacons;

static void beacons_connect (RlBeacons *self);

static void
update_status (RlBeacons *self)
{
  if (self->link == NULL)
    return;
  rl_source_set_status (&self->parent, TRUE, "%u APs with a country of %u heard, %u interfaces",
                        rl_bss_table_n_with_country (self->table), rl_bss_table_size (self->table),
                        g_hash_table_size (self->ifaces));
}

static void
handle_bss (RlBeacons *self, const guint8 *attrs, gsize len)
{
  g_autoptr (GError) error = NULL;
  RlScanBss sb;
  gint64 seen;

  if (!rl_nl80211_parse_bss (attrs, len, &sb, &error))
    {
      g_debug ("skipping a scan result: %s", error->message);
      return;
    }
  if (rl_bss_table_observe (self->table, &sb, g_get_real_time (), &seen) && self->scan_func != NULL)
    {
      Iface *iface = sb.has_ifindex ? g_hash_table_lookup (self->ifaces, GINT_TO_POINTER (sb.ifindex)) : NULL;
      self->scan_func (iface != NULL ? iface->name : "", &sb, seen, self->scan_data);
    }
}

static void
on_scan_dump (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  RlBeacons *self = user_data;
  if (cmd == NL80211_CMD_NEW_SCAN_RESULTS)
    {
      self->n_dumped++;
      handle_bss (self, attrs, len);
    }
}

static void
dump_scan (RlBeacons *self, Iface *iface)
{
  g_autoptr (GError) error = NULL;
  struct timespec a, b;

  if (iface->scan_timeout != 0)
    {
      g_source_remove (iface->scan_timeout);
      iface->scan_timeout = 0;
    }
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &a);
  self->n_dumped = 0;
  if (!rl_nl_link_dump (self->link, NL80211_CMD_GET_SCAN, iface->ifindex, on_scan_dump, self, &error))
    g_debug ("scan dump of %s: %s", iface->name, error->message);
  rl_bss_table_prune (self->table, g_get_real_time ());
  update_status (self);
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &b);
  /* the cost the design bounds (scan results → evidence in well under 10 ms) */
  g_debug ("scan dump of %s: %u BSS in %.3f ms CPU", iface->name, self->n_dumped,
           (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
}

static void
iface_free (gpointer p)
{
  Iface *iface = p;
  if (iface->scan_timeout != 0)
    g_source_remove (iface->scan_timeout);
  g_free (iface);
}

static Iface *
add_iface (RlBeacons *self, int ifindex, const char *name)
{
  Iface *iface = g_hash_table_lookup (self->ifaces, GINT_TO_POINTER (ifindex));
  if (iface == NULL)
    {
      iface = g_new0 (Iface, 1);
      iface->ifindex = ifindex;
      iface->owner = self;
      g_hash_table_insert (self->ifaces, GINT_TO_POINTER (ifindex), iface);
      g_debug ("watching interface %s (%d)", name != NULL ? name : "?", ifindex);
    }
  if (name != NULL)
    g_strlcpy (iface->name, name, sizeof iface->name);
  else if (iface->name[0] == '\0' && if_indextoname ((unsigned) ifindex, iface->name) == NULL)
    g_snprintf (iface->name, sizeof iface->name, "if%d", ifindex);
  return iface;
}

static gboolean
iface_from_attrs (const guint8 *attrs, gsize len, int *ifindex, char name[IF_NAMESIZE + 1], guint32 *iftype)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  name[0] = '\0';
  *iftype = NL80211_IFTYPE_UNSPECIFIED;
  if (len > G_MAXINT || nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0)
    return FALSE;
  if (tb[NL80211_ATTR_IFINDEX] == NULL || nla_len (tb[NL80211_ATTR_IFINDEX]) != 4)
    return FALSE;
  *ifindex = (int) nla_get_u32 (tb[NL80211_ATTR_IFINDEX]);
  if (tb[NL80211_ATTR_IFNAME] != NULL && nla_len (tb[NL80211_ATTR_IFNAME]) > 0)
    {
      gsize n = MIN ((gsize) nla_len (tb[NL80211_ATTR_IFNAME]), (gsize) IF_NAMESIZE);
      memcpy (name, nla_data (tb[NL80211_ATTR_IFNAME]), n);
      name[n] = '\0';
    }
  if (tb[NL80211_ATTR_IFTYPE] != NULL && nla_len (tb[NL80211_ATTR_IFTYPE]) == 4)
    *iftype = nla_get_u32 (tb[NL80211_ATTR_IFTYPE]);
  return TRUE;
}

static void
on_iface_dump (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  int ifindex;
  char name[IF_NAMESIZE + 1];
  guint32 iftype;
  if (cmd == NL80211_CMD_NEW_INTERFACE && iface_from_attrs (attrs, len, &ifindex, name, &iftype))
    add_iface (user_data, ifindex, name[0] ? name : NULL)->iftype = iftype;
}

/* Everything from scratch: at start and after the event socket lost messages. */
static void
resync (RlBeacons *self)
{
  g_autoptr (GError) error = NULL;
  GHashTableIter it;
  gpointer v;

  if (!rl_nl_link_dump (self->link, NL80211_CMD_GET_INTERFACE, 0, on_iface_dump, self, &error))
    g_message ("listing wireless interfaces: %s", error->message);
  g_hash_table_iter_init (&it, self->ifaces);
  while (g_hash_table_iter_next (&it, NULL, &v))
    dump_scan (self, v);
  update_status (self);
}

/* NL80211_ATTR_SCAN_FREQUENCIES of a scan event: the channels it covered
 * (0 when the kernel did not list them, or listed more than fit). */
static guint
scan_frequencies (const guint8 *attrs, gsize len, guint32 *out, guint max)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1], *f;
  guint n = 0;
  int rem;

  if (len > G_MAXINT || nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0 ||
      tb[NL80211_ATTR_SCAN_FREQUENCIES] == NULL)
    return 0;
  nla_for_each_nested (f, tb[NL80211_ATTR_SCAN_FREQUENCIES], rem)
    {
      if (nla_len (f) != 4 || n >= max)
        return 0;
      out[n++] = nla_get_u32 (f);
    }
  return n;
}

static void
on_event (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  RlBeacons *self = user_data;
  int ifindex;
  char name[IF_NAMESIZE + 1];
  guint32 iftype;

  if (!iface_from_attrs (attrs, len, &ifindex, name, &iftype))
    return;
  switch (cmd)
    {
    case NL80211_CMD_NEW_SCAN_RESULTS:
      {
        guint32 freqs[RL_SCANLOG_MAX_FREQS];
        guint n_freqs = scan_frequencies (attrs, len, freqs, G_N_ELEMENTS (freqs));
        gint64 done_at = g_get_real_time ();
        Iface *iface = add_iface (self, ifindex, NULL);
        guint gone;

        dump_scan (self, iface);
        /* a complete list of what this scan heard: the rest of what it covered is gone */
        gint64 scan_start = done_at - RL_SCANLOG_SCAN_SPAN_US;
        gint32 silent = rl_bss_table_loudest_silent (self->table, scan_start);

        gone = rl_bss_table_scan_done (self->table, scan_start, freqs, n_freqs);
        if (gone > 0)
          {
            g_debug ("%u access points not heard by the last scan of %s: gone", gone, iface->name);
            update_status (self);
          }
        if (self->scan_done_func != NULL)
          self->scan_done_func (iface->name, freqs, n_freqs, done_at, silent, self->scan_data);
      }
      break;
    case NL80211_CMD_SCAN_ABORTED:
      {
        Iface *iface = g_hash_table_lookup (self->ifaces, GINT_TO_POINTER (ifindex));
        if (iface != NULL && iface->scan_timeout != 0)
          {
            g_source_remove (iface->scan_timeout);
            iface->scan_timeout = 0;
          }
      }
      break;
    case NL80211_CMD_NEW_INTERFACE:
    case NL80211_CMD_SET_INTERFACE:
      add_iface (self, ifindex, name[0] ? name : NULL)->iftype = iftype;
      update_status (self);
      break;
    case NL80211_CMD_DEL_INTERFACE:
      /* what it heard stays until it ages out: the APs were really there */
      if (g_hash_table_remove (self->ifaces, GINT_TO_POINTER (ifindex)))
        g_debug ("interface %d removed", ifindex);
      update_status (self);
      break;
    default:
      break;
    }
}

static void
on_overrun (gpointer user_data)
{
  resync (user_data);
}

static gboolean
on_scan_timeout (gpointer user_data)
{
  Iface *iface = user_data;
  iface->scan_timeout = 0;
  g_debug ("no scan results on %s in %d s; reading what there is", iface->name, RL_BEACONS_SCAN_TIMEOUT_S);
  dump_scan (iface->owner, iface);
  return G_SOURCE_REMOVE;
}

static gboolean
on_scan_timer (gpointer user_data)
{
  RlBeacons *self = user_data;
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, self->ifaces);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Iface *iface = v;
      g_autoptr (GError) error = NULL;
      /* an access point or monitor cannot scan; only stations (or unknown) are asked */
      if (iface->iftype != NL80211_IFTYPE_STATION && iface->iftype != NL80211_IFTYPE_UNSPECIFIED)
        continue;
      /* our last request is still running (a full passive scan takes seconds) */
      if (iface->scan_timeout != 0)
        continue;
      /* no NL80211_ATTR_SCAN_SSIDS: a passive scan, nothing is transmitted */
      struct nl_msg *msg = rl_nl_link_msg (self->link, NL80211_CMD_TRIGGER_SCAN, 0);
      if (msg == NULL)
        continue;
      if (nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) iface->ifindex) == 0
          && rl_nl_link_request (self->link, msg, NULL, &error))
        {
          /* the event socket is subscribed already, so the result cannot slip by;
           * the timeout covers a driver that never answers */
          if (iface->scan_timeout == 0)
            iface->scan_timeout = g_timeout_add_seconds (RL_BEACONS_SCAN_TIMEOUT_S, on_scan_timeout, iface);
        }
      else if (error != NULL)
        g_debug ("passive scan on %s: %s", iface->name, error->message);
      nlmsg_free (msg);
    }
  return G_SOURCE_CONTINUE;
}

static void
on_retry (gpointer user_data)
{
  beacons_connect (user_data);
}

static void
on_nl80211_appeared (gpointer user_data)
{
  RlBeacons *self = user_data;

  if (self->link != NULL)
    return;
  g_debug ("nl80211 appeared; connecting");
  rl_backoff_cancel (&self->retry);
  beacons_connect (self);
}

static void
beacons_connect (RlBeacons *self)
{
  static const char *const groups[] = { "scan", "config", NULL };
  g_autoptr (GError) error = NULL;

  self->link = rl_nl_link_new (groups, on_event, on_overrun, self, &error);
  if (self->link == NULL)
    {
      /* No cfg80211 now does not mean never (a module load, a USB stick):
       * the controller announces the family when it comes.  Only where that
       * cannot be followed, a slow back-off retries. */
      rl_source_set_status (&self->parent, FALSE, "%s", error->message);
      if (self->family_watch == NULL)
        self->family_watch = rl_nl_family_watch_new (on_nl80211_appeared, self, NULL);
      if (self->family_watch == NULL)
        rl_backoff_schedule (&self->retry);
      return;
    }
  g_clear_pointer (&self->family_watch, rl_nl_family_watch_free);
  rl_backoff_reset (&self->retry);
  resync (self);
  if (self->scan_interval_s > 0 && self->scan_timer == 0)
    {
      self->scan_timer = g_timeout_add_seconds (self->scan_interval_s, on_scan_timer, self);
      on_scan_timer (self);
    }
}

static RlSource *
beacons_create (const RlConfig *config, const RlSourceSink *sink)
{
  if (!config->beacons_enabled)
    return NULL;
  RlBeacons *self = g_new0 (RlBeacons, 1);
  rl_source_init (&self->parent, &rl_beacons_source_ops, sink);
  self->table = rl_bss_table_new (&self->parent, config->policy.max_age_s[RL_SOURCE_BEACON], config->beacons_max_bss);
  self->scan_interval_s = config->beacons_scan_interval_s;
  self->ifaces = g_hash_table_new_full (NULL, NULL, NULL, iface_free);
  rl_backoff_init (&self->retry, RL_BEACONS_RETRY_MIN_S, RL_BEACONS_RETRY_MAX_S, on_retry, self);
  return &self->parent;
}

static void
beacons_start (RlSource *source)
{
  RlBeacons *self = (RlBeacons *) source;
  if (self->link == NULL && !rl_backoff_pending (&self->retry))
    beacons_connect (self);
}

static void
beacons_stop (RlSource *source)
{
  RlBeacons *self = (RlBeacons *) source;
  rl_backoff_cancel (&self->retry);
  g_clear_pointer (&self->family_watch, rl_nl_family_watch_free);
  g_clear_handle_id (&self->scan_timer, g_source_remove);
  g_hash_table_remove_all (self->ifaces);
  g_clear_pointer (&self->link, rl_nl_link_free);
}

static void
beacons_free (RlSource *source)
{
  RlBeacons *self = (RlBeacons *) source;
  beacons_stop (source);
  g_hash_table_unref (self->ifaces);
  rl_bss_table_free (self->table);
  g_free (self);
}

void
rl_beacons_set_scan_observer (RlSource *source, RlBeaconsScanFunc bss_func, RlBeaconsScanDoneFunc done_func,
                              gpointer user_data)
{
  g_return_if_fail (source != NULL && source->ops == &rl_beacons_source_ops);
  RlBeacons *self = (RlBeacons *) source;
  self->scan_func = bss_func;
  self->scan_done_func = done_func;
  self->scan_data = user_data;
}

guint
rl_beacons_n_bss (RlSource *source)
{
  g_return_val_if_fail (source != NULL && source->ops == &rl_beacons_source_ops, 0);
  return rl_bss_table_size (((RlBeacons *) source)->table);
}

const RlSourceOps rl_beacons_source_ops = {
  .name = "beacons",
  .kind = RL_SOURCE_BEACON,
  .create = beacons_create,
  .start = beacons_start,
  .stop = beacons_stop,
  .free = beacons_free,
};
