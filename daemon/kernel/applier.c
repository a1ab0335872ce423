#define G_LOG_DOMAIN "regloc-applier"

#include "daemon/kernel/applier.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netlink/attr.h>
#include <linux/capability.h>
#include <linux/nl80211.h>
#include "daemon/kernel/nl80211-link.h"
#include "core/enum-names.h"

/* A request of ours is "pending" this long after the kernel acknowledged
 * it: the REG_CHANGE it causes comes within milliseconds (a loaded VM:
 * under a second). */
#define PENDING_US (10 * G_USEC_PER_SEC)

typedef struct {
  guint32 index;
  RlCountry own;                /* a self-managed wiphy's own domain */
  RlRadioInfo info;
} Radio;

struct RlApplier {
  gboolean apply;
  RlApplierMode mode;
  RlNlLink *link;
  RlCountry kernel;
  RlCountry requested;
  RlCountry pending;            /* acknowledged, its REG_CHANGE not seen yet */
  gint64 pending_at;            /* monotonic µs */
  RlKernelSetter set_by;
  GHashTable *self_managed;     /* wiphy index set */
  GArray *radios;               /* Radio, by index */
  GArray *published;            /* RlRadioInfo as last announced */
  RlKernelSetter published_set_by;
  guint n_skipped;
  RlApplierChangedFunc changed;
  gpointer changed_data;
  char detail[160];
  char reason[96];              /* why unavailable or observe-only */
  RlNlFamilyWatch *family_watch; /* unavailable: waiting for nl80211 to appear */
  gboolean said_observe_only;
};

static const char *const mode_names[] = {
  [RL_APPLIER_ACTIVE] = "active",
  [RL_APPLIER_DISABLED] = "disabled",
  [RL_APPLIER_OBSERVE_ONLY] = "observe-only",
  [RL_APPLIER_UNAVAILABLE] = "unavailable",
};

const char *
rl_applier_mode_to_string (RlApplierMode mode)
{
  return RL_ENUM_NAME (mode_names, mode, "?");
}

gboolean
rl_applier_parse_reg_message (const guint8 *attrs, gsize len, RlRegMessage *out)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  memset (out, 0, sizeof *out);
  if (len > G_MAXINT || nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0)
    return FALSE;
  if (tb[NL80211_ATTR_WIPHY] != NULL && nla_len (tb[NL80211_ATTR_WIPHY]) == 4)
    {
      out->has_wiphy = TRUE;
      out->wiphy = nla_get_u32 (tb[NL80211_ATTR_WIPHY]);
    }
  out->self_managed = tb[NL80211_ATTR_WIPHY_SELF_MANAGED_REG] != NULL;
  if (tb[NL80211_ATTR_REG_INITIATOR] != NULL && nla_len (tb[NL80211_ATTR_REG_INITIATOR]) == 1)
    {
      out->has_initiator = TRUE;
      out->initiator = nla_get_u8 (tb[NL80211_ATTR_REG_INITIATOR]);
    }
  if (tb[NL80211_ATTR_REG_ALPHA2] != NULL && nla_len (tb[NL80211_ATTR_REG_ALPHA2]) >= 2)
    {
      const char *a = nla_data (tb[NL80211_ATTR_REG_ALPHA2]);
      if (g_ascii_isalnum (a[0]) && g_ascii_isalnum (a[1]))
        out->country = RL_COUNTRY (g_ascii_toupper (a[0]), g_ascii_toupper (a[1]));
    }
  else if (tb[NL80211_ATTR_REG_TYPE] != NULL && nla_len (tb[NL80211_ATTR_REG_TYPE]) == 1)
    {
      /* REG_CHANGE names no alpha2 for these; the kernel's special codes do */
      switch (nla_get_u8 (tb[NL80211_ATTR_REG_TYPE]))
        {
        case NL80211_REGDOM_TYPE_WORLD:
          out->country = RL_COUNTRY_WORLD;
          break;
        case NL80211_REGDOM_TYPE_CUSTOM_WORLD:
          out->country = RL_COUNTRY ('9', '9');
          break;
        case NL80211_REGDOM_TYPE_INTERSECTION:
          out->country = RL_COUNTRY ('9', '8');
          break;
        default:
          break;
        }
    }
  return TRUE;
}

gboolean
rl_reg_message_is_per_wiphy (guint8 cmd, const RlRegMessage *m)
{
  return m->has_wiphy && (m->self_managed || cmd == NL80211_CMD_WIPHY_REG_CHANGE || cmd == NL80211_CMD_GET_REG);
}

gboolean
rl_applier_parse_wiphy_message (const guint8 *attrs, gsize len, RlWiphyMessage *out)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  memset (out, 0, sizeof *out);
  if (len > G_MAXINT || nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0)
    return FALSE;
  if (tb[NL80211_ATTR_WIPHY] == NULL || nla_len (tb[NL80211_ATTR_WIPHY]) != 4)
    return FALSE;
  out->wiphy = nla_get_u32 (tb[NL80211_ATTR_WIPHY]);
  out->self_managed = tb[NL80211_ATTR_WIPHY_SELF_MANAGED_REG] != NULL;
  if (tb[NL80211_ATTR_WIPHY_NAME] == NULL)
    return FALSE;
  const char *name = nla_data (tb[NL80211_ATTR_WIPHY_NAME]);
  int n = nla_len (tb[NL80211_ATTR_WIPHY_NAME]);
  /* a NUL-terminated, printable name that fits, or the message is skipped */
  if (n < 2 || n > (int) sizeof out->name || name[n - 1] != '\0' || strlen (name) != (gsize) n - 1)
    return FALSE;
  for (int i = 0; i < n - 1; i++)
    if (!g_ascii_isgraph (name[i]) || name[i] == '/')
      return FALSE;
  memcpy (out->name, name, (gsize) n);
  return TRUE;
}

gboolean
rl_radio_infos_equal (const RlRadioInfo *a, guint n_a, const RlRadioInfo *b, guint n_b)
{
  if (n_a != n_b)
    return FALSE;
  for (guint i = 0; i < n_a; i++)
    if (strcmp (a[i].name, b[i].name) != 0 || strcmp (a[i].driver, b[i].driver) != 0 ||
        !a[i].self_managed != !b[i].self_managed || strcmp (a[i].country, b[i].country) != 0 ||
        !a[i].steerable != !b[i].steerable)
      return FALSE;
  return TRUE;
}

static const char *const setter_names[] = {
  [RL_SETTER_UNKNOWN] = "",
  [RL_SETTER_REGLOC] = "regloc",
  [RL_SETTER_USER] = "user",
  [RL_SETTER_DRIVER] = "driver",
  [RL_SETTER_CORE] = "core",
  [RL_SETTER_COUNTRY_IE] = "country-ie",
};

const char *
rl_kernel_setter_to_string (RlKernelSetter setter)
{
  return RL_ENUM_NAME (setter_names, setter, "");
}

RlKernelSetter
rl_applier_classify_setter (guint8 initiator, RlCountry country, RlCountry pending, RlCountry requested)
{
  switch (initiator)
    {
    case NL80211_REGDOM_SET_BY_USER:
      if (pending != RL_COUNTRY_NONE)
        return country == pending || country == RL_COUNTRY ('9', '8') ? RL_SETTER_REGLOC : RL_SETTER_USER;
      return requested != RL_COUNTRY_NONE && country == requested ? RL_SETTER_REGLOC : RL_SETTER_USER;
    case NL80211_REGDOM_SET_BY_CORE:
      return RL_SETTER_CORE;
    case NL80211_REGDOM_SET_BY_DRIVER:
      return RL_SETTER_DRIVER;
    case NL80211_REGDOM_SET_BY_COUNTRY_IE:
      return RL_SETTER_COUNTRY_IE;
    default:
      return RL_SETTER_UNKNOWN;
    }
}

/* --- the wiphys ------------------------------------------------------------ */

static Radio *
radio_get (RlApplier *self, guint32 index, gboolean create)
{
  guint i;

  for (i = 0; i < self->radios->len; i++)
    {
      Radio *r = &g_array_index (self->radios, Radio, i);
      if (r->index == index)
        return r;
      if (r->index > index)
        break;
    }
  if (!create)
    return NULL;
  Radio fresh;
  memset (&fresh, 0, sizeof fresh);
  fresh.index = index;
  g_snprintf (fresh.info.name, sizeof fresh.info.name, "phy%u", index);
  g_array_insert_val (self->radios, i, fresh);
  return &g_array_index (self->radios, Radio, i);
}

static void
read_driver (const char *phy, char out[32])
{
  g_autofree char *path = g_build_filename ("/sys/class/ieee80211", phy, "device", "driver", NULL);
  g_autofree char *target = g_file_read_link (path, NULL);
  g_autofree char *base = target ? g_path_get_basename (target) : NULL;

  out[0] = '\0';
  if (base != NULL && base[0] != '.')
    g_strlcpy (out, base, 32);
}

static void
take_wiphy_message (RlApplier *self, const guint8 *attrs, gsize len)
{
  RlWiphyMessage m;

  if (!rl_applier_parse_wiphy_message (attrs, len, &m))
    {
      self->n_skipped++;
      return;
    }
  Radio *r = radio_get (self, m.wiphy, TRUE);
  if (strcmp (r->info.name, m.name) != 0 || r->info.driver[0] == '\0')
    {
      g_strlcpy (r->info.name, m.name, sizeof r->info.name);
      read_driver (r->info.name, r->info.driver);
    }
  if (m.self_managed)
    g_hash_table_add (self->self_managed, GUINT_TO_POINTER (m.wiphy));
}

static void
on_wiphy_dump (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  take_wiphy_message (user_data, attrs, len);
}

/* The published view: each wiphy with the domain that governs it. */
static gboolean
refresh_radios (RlApplier *self)
{
  g_autoptr (GArray) now = g_array_new (FALSE, TRUE, sizeof (RlRadioInfo));

  for (guint i = 0; i < self->radios->len; i++)
    {
      Radio *r = &g_array_index (self->radios, Radio, i);
      RlCountry c;

      r->info.self_managed = g_hash_table_contains (self->self_managed, GUINT_TO_POINTER (r->index));
      r->info.steerable = !r->info.self_managed;
      c = r->info.self_managed ? r->own : self->kernel;
      if (c == RL_COUNTRY_NONE)
        r->info.country[0] = '\0';
      else
        rl_country_to_string (c, r->info.country);
      g_array_append_val (now, r->info);
    }
  if (rl_radio_infos_equal ((const RlRadioInfo *) now->data, now->len,
                            (const RlRadioInfo *) self->published->data, self->published->len))
    return FALSE;
  g_array_set_size (self->published, 0);
  g_array_append_vals (self->published, now->data, now->len);
  return TRUE;
}

static void
update_detail (RlApplier *self)
{
  char k[3], r[3];
  guint n_sm = g_hash_table_size (self->self_managed);
  char old[sizeof self->detail];

  memcpy (old, self->detail, sizeof old);
  if (self->mode == RL_APPLIER_UNAVAILABLE)
    g_snprintf (self->detail, sizeof self->detail, "unavailable: %s", self->reason);
  else
    g_snprintf (self->detail, sizeof self->detail, "%s%s%s%s; kernel %s; requested %s%s",
              rl_applier_mode_to_string (self->mode),
              self->reason[0] ? " (" : "", self->reason, self->reason[0] ? ")" : "",
              rl_country_to_string (self->kernel, k),
              rl_country_to_string (self->requested, r),
              n_sm == 0 ? "" : n_sm == 1 ? "; 1 self-managed wiphy cannot be steered"
                                         : "; self-managed wiphys cannot be steered");
  gboolean radios_changed = refresh_radios (self);
  gboolean setter_changed = self->published_set_by != self->set_by;
  self->published_set_by = self->set_by;
  if ((strcmp (old, self->detail) != 0 || radios_changed || setter_changed) && self->changed != NULL)
    self->changed (self, self->changed_data);
}

static void
take_setter (RlApplier *self, const RlRegMessage *m)
{
  RlCountry pending = self->pending;

  if (pending != RL_COUNTRY_NONE && g_get_monotonic_time () - self->pending_at > PENDING_US)
    pending = self->pending = RL_COUNTRY_NONE;
  self->set_by = rl_applier_classify_setter (m->initiator, m->country, pending, self->requested);
  if (self->set_by == RL_SETTER_REGLOC)
    self->pending = RL_COUNTRY_NONE;
}

static void
take_reg_message (RlApplier *self, guint8 cmd, const guint8 *attrs, gsize len)
{
  RlRegMessage m;

  if (!rl_applier_parse_reg_message (attrs, len, &m))
    {
      self->n_skipped++;
      return;
    }
  if (rl_reg_message_is_per_wiphy (cmd, &m))
    {
      /* per-wiphy domains exist only for self-managed devices */
      g_hash_table_add (self->self_managed, GUINT_TO_POINTER (m.wiphy));
      if (m.country != RL_COUNTRY_NONE)
        radio_get (self, m.wiphy, TRUE)->own = m.country;
      return;
    }
  if (m.country == RL_COUNTRY_NONE)
    return;
  if (cmd == NL80211_CMD_REG_CHANGE && m.has_initiator)
    take_setter (self, &m);
  if (m.country != self->kernel)
    {
      char c[3];
      g_info ("kernel regulatory domain is now %s (set by %s)", rl_country_to_string (m.country, c),
              self->set_by == RL_SETTER_UNKNOWN ? "?" : rl_kernel_setter_to_string (self->set_by));
      self->kernel = m.country;
    }
}

static void
on_reg_dump (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  take_reg_message (user_data, cmd, attrs, len);
}

static void
read_kernel_state (RlApplier *self)
{
  g_autoptr (GError) error = NULL;

  g_hash_table_remove_all (self->self_managed);
  g_array_set_size (self->radios, 0);
  if (!rl_nl_link_dump_flag (self->link, NL80211_CMD_GET_WIPHY, NL80211_ATTR_SPLIT_WIPHY_DUMP,
                             on_wiphy_dump, self, &error))
    {
      g_message ("listing the wiphys: %s", error->message);
      g_clear_error (&error);
    }
  if (!rl_nl_link_dump (self->link, NL80211_CMD_GET_REG, 0, on_reg_dump, self, &error))
    g_message ("reading the kernel's regulatory domain: %s", error->message);
  update_detail (self);
}

static void
on_event (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  RlApplier *self = user_data;

  switch (cmd)
    {
    case NL80211_CMD_REG_CHANGE:
    case NL80211_CMD_WIPHY_REG_CHANGE:
      take_reg_message (self, cmd, attrs, len);
      update_detail (self);
      break;
    case NL80211_CMD_NEW_WIPHY:
    case NL80211_CMD_DEL_WIPHY:
      /* a card came or went: its self-managed flag with it */
      read_kernel_state (self);
      break;
    default:
      break;
    }
}

static void
on_overrun (gpointer user_data)
{
  read_kernel_state (user_data);
}

static gboolean
have_net_admin (void)
{
  g_autofree char *status = NULL;

  /* capget(2) has no glibc wrapper; /proc/self/status carries the same set */
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    {
      const char *p = strstr (status, "\nCapEff:");
      guint64 eff = 0;
      if (p != NULL && sscanf (p + 8, "%" G_GINT64_MODIFIER "x", &eff) == 1)
        return (eff & (G_GUINT64_CONSTANT (1) << CAP_NET_ADMIN)) != 0;
    }
  return TRUE;  /* unknown: let the kernel answer EPERM */
}

static void
set_observe_only (RlApplier *self, const char *why)
{
  self->mode = RL_APPLIER_OBSERVE_ONLY;
  g_strlcpy (self->reason, why, sizeof self->reason);
  if (!self->said_observe_only)
    g_message ("not setting the regulatory domain: %s; observing only", why);
  self->said_observe_only = TRUE;
}

RlApplier *
rl_applier_new (gboolean apply)
{
  RlApplier *self = g_new0 (RlApplier, 1);
  self->apply = apply;
  self->mode = apply ? RL_APPLIER_ACTIVE : RL_APPLIER_DISABLED;
  self->self_managed = g_hash_table_new (NULL, NULL);
  self->radios = g_array_new (FALSE, TRUE, sizeof (Radio));
  self->published = g_array_new (FALSE, TRUE, sizeof (RlRadioInfo));
  g_strlcpy (self->detail, "not started", sizeof self->detail);
  return self;
}

void
rl_applier_free (RlApplier *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->link, rl_nl_link_free);
  g_clear_pointer (&self->family_watch, rl_nl_family_watch_free);
  g_hash_table_unref (self->self_managed);
  g_array_unref (self->radios);
  g_array_unref (self->published);
  g_free (self);
}

void
rl_applier_set_changed_func (RlApplier *self, RlApplierChangedFunc func, gpointer user_data)
{
  self->changed = func;
  self->changed_data = user_data;
}

static void
on_nl80211_appeared (gpointer user_data)
{
  RlApplier *self = user_data;

  if (self->link != NULL)
    return;
  g_message ("nl80211 appeared; taking up the regulatory domain");
  self->mode = self->apply ? RL_APPLIER_ACTIVE : RL_APPLIER_DISABLED;
  self->reason[0] = '\0';
  rl_applier_start (self);
  /* what was decided while there was no nl80211 is owed to the kernel now */
  if (self->link != NULL && self->requested != RL_COUNTRY_NONE)
    rl_applier_apply (self, self->requested);
}

void
rl_applier_start (RlApplier *self)
{
  static const char *const groups[] = { "regulatory", "config", NULL };
  g_autoptr (GError) error = NULL;

  if (self->link != NULL)
    return;
  self->link = rl_nl_link_new (groups, on_event, on_overrun, self, &error);
  if (self->link == NULL)
    {
      g_message ("regulatory domain: %s", error->message);
      self->mode = RL_APPLIER_UNAVAILABLE;
      g_strlcpy (self->reason, error->message, sizeof self->reason);
      /* cfg80211 may load later (a module, a USB stick): the controller says when */
      if (self->family_watch == NULL)
        self->family_watch = rl_nl_family_watch_new (on_nl80211_appeared, self, NULL);
      update_detail (self);
      return;
    }
  g_clear_pointer (&self->family_watch, rl_nl_family_watch_free);
  if (self->apply && !have_net_admin ())
    set_observe_only (self, "no CAP_NET_ADMIN");
  read_kernel_state (self);
}

gboolean
rl_applier_apply (RlApplier *self, RlCountry country)
{
  g_autoptr (GError) error = NULL;
  char alpha2[3];
  int err = 0;

  g_return_val_if_fail (country != RL_COUNTRY_NONE, FALSE);
  self->requested = country;
  if (self->mode != RL_APPLIER_ACTIVE || self->link == NULL)
    {
      update_detail (self);
      return FALSE;
    }
  struct nl_msg *msg = rl_nl_link_msg (self->link, NL80211_CMD_REQ_SET_REG, 0);
  if (msg == NULL || nla_put_string (msg, NL80211_ATTR_REG_ALPHA2, rl_country_to_string (country, alpha2)) < 0)
    {
      if (msg != NULL)
        nlmsg_free (msg);
      g_warning ("cannot build a regulatory request");
      return FALSE;
    }
  gboolean ok = rl_nl_link_request (self->link, msg, &err, &error);
  nlmsg_free (msg);
  if (!ok)
    {
      if (err == EPERM || err == EACCES)
        set_observe_only (self, "the kernel refused (no CAP_NET_ADMIN)");
      else
        g_warning ("asking the kernel for %s: %s", alpha2, error->message);
    }
  else
    {
      g_info ("asked the kernel for regulatory domain %s", alpha2);
      self->pending = country;
      self->pending_at = g_get_monotonic_time ();
    }
  update_detail (self);
  return ok;
}

RlApplierMode
rl_applier_mode (const RlApplier *self)
{
  return self->mode;
}

RlCountry
rl_applier_kernel_country (const RlApplier *self)
{
  return self->kernel;
}

RlCountry
rl_applier_requested (const RlApplier *self)
{
  return self->requested;
}

guint
rl_applier_n_self_managed (const RlApplier *self)
{
  return g_hash_table_size (self->self_managed);
}

const char *
rl_applier_detail (const RlApplier *self)
{
  return self->detail;
}

const RlRadioInfo *
rl_applier_radios (const RlApplier *self, guint *n_radios)
{
  *n_radios = self->published->len;
  return (const RlRadioInfo *) (gconstpointer) self->published->data;
}

guint
rl_applier_n_skipped (const RlApplier *self)
{
  return self->n_skipped;
}

RlKernelSetter
rl_applier_kernel_set_by (const RlApplier *self)
{
  return self->set_by;
}
