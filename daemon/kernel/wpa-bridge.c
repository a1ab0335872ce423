#define G_LOG_DOMAIN "regloc-wpa"

#include "daemon/kernel/wpa-bridge.h"

#include <gio/gio.h>
#include <string.h>

#define WPA_NAME "fi.w1.wpa_supplicant1"
#define WPA_PATH "/fi/w1/wpa_supplicant1"
#define WPA_IFACE "fi.w1.wpa_supplicant1"
#define WPA_IFACE_INTERFACE "fi.w1.wpa_supplicant1.Interface"
/* A wpa_supplicant that answers nothing must not keep a call open for long. */
#define WPA_CALL_TIMEOUT_MS 10000
/* Bounds on what a misbehaving peer can make us keep. */
#define WPA_MAX_INTERFACES 256
#define WPA_MAX_ERRORS_SAID 8

/* journald MESSAGE_IDs (data/regloc.catalog): a country written to an
 * interface, and wpa_supplicant refusing it. */
#define RL_MESSAGE_ID_WPA_SET "32cd5087a8804a0b8b58ddf9fff4cf83"
#define RL_MESSAGE_ID_WPA_REFUSED "1372dcde01db4a2dae41bd9476788849"

typedef struct {
  char *path;
  RlCountry written;        /* what wpa_supplicant acknowledged; NONE unknown */
  RlCountry in_flight;      /* the Set call pending; NONE none */
  GPtrArray *errors_said;   /* error texts already logged for this interface */
} WpaIface;

struct RlWpaBridge {
  GCancellable *cancellable;      /* the bus connection; cancelled at free */
  GDBusConnection *bus;
  guint watch_id;
  char *owner;                    /* wpa_supplicant's unique name; NULL absent */
  GCancellable *owner_cancellable; /* calls to this owner; cancelled when it goes */
  guint added_id, removed_id;
  GHashTable *ifaces;             /* object path → WpaIface */
  gboolean said_too_many;
  RlCountry country;              /* to write; NONE before the first decision */
  char status[160];
};

/* What a pending Set call needs when its reply comes. */
typedef struct {
  RlWpaBridge *bridge;            /* valid unless the call was cancelled */
  char *path;
  RlCountry country;
} WriteCall;

static void
iface_free (gpointer p)
{
  WpaIface *iface = p;

  g_free (iface->path);
  g_ptr_array_unref (iface->errors_said);
  g_free (iface);
}

static void
write_call_free (WriteCall *call)
{
  g_free (call->path);
  g_free (call);
}

static void iface_write (RlWpaBridge *self, WpaIface *iface);

/* Logs a refusal at warning level the first time this interface gives this
 * error, at debug level after that: a policy that denies us stays so. */
static void
say_error (WpaIface *iface, RlCountry country, const GError *error)
{
  /* "GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: …": the name says which */
  const char *text = error->message;
  char cc[3];

  rl_country_to_string (country, cc);
  for (guint i = 0; i < iface->errors_said->len; i++)
    if (strcmp (g_ptr_array_index (iface->errors_said, i), text) == 0)
      {
        g_debug ("wpa_supplicant %s: Country %s refused again: %s", iface->path, cc, text);
        return;
      }
  if (iface->errors_said->len < WPA_MAX_ERRORS_SAID)
    g_ptr_array_add (iface->errors_said, g_strdup (text));
  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING,
                    "MESSAGE_ID", RL_MESSAGE_ID_WPA_REFUSED,
                    "RL_COUNTRY", cc,
                    "RL_WPA_INTERFACE", iface->path,
                    "RL_ERROR", text,
                    "MESSAGE", "wpa_supplicant %s did not take the country %s: %s "
                    "(its bus policy admits root and the netdev group; see reglocd(8))",
                    iface->path, cc, text);
}

static void
on_written (GObject *object, GAsyncResult *result, gpointer user_data)
{
  WriteCall *call = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  RlWpaBridge *self = call->bridge;
  WpaIface *iface;
  char cc[3];

  /* Cancelled: wpa_supplicant went away or the bridge is gone. */
  if (reply == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      write_call_free (call);
      return;
    }
  iface = g_hash_table_lookup (self->ifaces, call->path);
  if (iface != NULL)
    {
      iface->in_flight = RL_COUNTRY_NONE;
      if (reply == NULL)
        say_error (iface, call->country, error);
      else
        {
          iface->written = call->country;
          g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                            "MESSAGE_ID", RL_MESSAGE_ID_WPA_SET,
                            "RL_COUNTRY", rl_country_to_string (call->country, cc),
                            "RL_WPA_INTERFACE", iface->path,
                            "MESSAGE", "wpa_supplicant %s: Country set to %s", iface->path, cc);
        }
      /* The decision moved on while the call was out. */
      if (self->country != call->country)
        iface_write (self, iface);
    }
  write_call_free (call);
}

static void
iface_write (RlWpaBridge *self, WpaIface *iface)
{
  WriteCall *call;
  char cc[3];

  if (self->country == RL_COUNTRY_NONE || self->owner == NULL || iface->in_flight != RL_COUNTRY_NONE ||
      iface->written == self->country)
    return;
  call = g_new0 (WriteCall, 1);
  call->bridge = self;
  call->path = g_strdup (iface->path);
  call->country = self->country;
  iface->in_flight = self->country;
  g_debug ("wpa_supplicant %s: setting Country %s", iface->path, rl_country_to_string (self->country, cc));
  g_dbus_connection_call (self->bus, self->owner, iface->path, "org.freedesktop.DBus.Properties", "Set",
                          g_variant_new ("(ssv)", WPA_IFACE_INTERFACE, "Country", g_variant_new_string (cc)),
                          NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, WPA_CALL_TIMEOUT_MS,
                          self->owner_cancellable, on_written, call);
}

static void
iface_add (RlWpaBridge *self, const char *path)
{
  WpaIface *iface;

  if (!g_variant_is_object_path (path) || g_hash_table_contains (self->ifaces, path))
    return;
  if (g_hash_table_size (self->ifaces) >= WPA_MAX_INTERFACES)
    {
      if (!self->said_too_many)
        g_message ("wpa_supplicant lists more than %d interfaces; ignoring the rest", WPA_MAX_INTERFACES);
      self->said_too_many = TRUE;
      return;
    }
  iface = g_new0 (WpaIface, 1);
  iface->path = g_strdup (path);
  iface->errors_said = g_ptr_array_new_with_free_func (g_free);
  g_hash_table_insert (self->ifaces, iface->path, iface);
  g_info ("wpa_supplicant interface %s", path);
  iface_write (self, iface);
}

static void
on_interfaces (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  g_autoptr (GVariant) value = NULL;
  RlWpaBridge *self = user_data;
  GVariantIter iter;
  const char *path;

  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("wpa_supplicant: cannot read its interfaces: %s", error->message);
      return;
    }
  g_variant_get (reply, "(v)", &value);
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH_ARRAY))
    {
      g_message ("wpa_supplicant: Interfaces is of type %s, not ao; ignored", g_variant_get_type_string (value));
      return;
    }
  g_variant_iter_init (&iter, value);
  while (g_variant_iter_next (&iter, "&o", &path))
    iface_add (self, path);
}

static void
on_interface_signal (GDBusConnection *connection, const char *sender, const char *object_path,
                     const char *interface_name, const char *signal_name, GVariant *parameters,
                     gpointer user_data)
{
  RlWpaBridge *self = user_data;
  const char *path;

  (void) connection; (void) sender; (void) object_path; (void) interface_name;
  /* InterfaceAdded (o, a{sv}), InterfaceRemoved (o) */
  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(oa{sv})")) &&
      !g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(o)")))
    return;
  g_variant_get_child (parameters, 0, "&o", &path);
  if (strcmp (signal_name, "InterfaceAdded") == 0)
    iface_add (self, path);
  else if (g_hash_table_remove (self->ifaces, path))
    g_info ("wpa_supplicant interface %s removed", path);
}

static void
unsubscribe (RlWpaBridge *self)
{
  if (self->added_id != 0)
    g_dbus_connection_signal_unsubscribe (self->bus, self->added_id);
  if (self->removed_id != 0)
    g_dbus_connection_signal_unsubscribe (self->bus, self->removed_id);
  self->added_id = self->removed_id = 0;
}

/* wpa_supplicant left (or was never there): forget its interfaces. */
static void
owner_forget (RlWpaBridge *self)
{
  unsubscribe (self);
  if (self->owner_cancellable != NULL)
    g_cancellable_cancel (self->owner_cancellable);
  g_clear_object (&self->owner_cancellable);
  g_hash_table_remove_all (self->ifaces);
  self->said_too_many = FALSE;
  g_clear_pointer (&self->owner, g_free);
}

static void
on_appeared (GDBusConnection *connection, const char *name, const char *owner, gpointer user_data)
{
  RlWpaBridge *self = user_data;

  (void) name;
  owner_forget (self);
  g_message ("wpa_supplicant is on the system bus (%s): its interfaces get the decided country", owner);
  self->owner = g_strdup (owner);
  self->owner_cancellable = g_cancellable_new ();
  /* Subscribed before the list is read, so no interface falls in between. */
  self->added_id = g_dbus_connection_signal_subscribe (connection, owner, WPA_IFACE, "InterfaceAdded", WPA_PATH,
                                                       NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_interface_signal,
                                                       self, NULL);
  self->removed_id = g_dbus_connection_signal_subscribe (connection, owner, WPA_IFACE, "InterfaceRemoved",
                                                         WPA_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                         on_interface_signal, self, NULL);
  g_dbus_connection_call (connection, owner, WPA_PATH, "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", WPA_IFACE, "Interfaces"), G_VARIANT_TYPE ("(v)"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, WPA_CALL_TIMEOUT_MS, self->owner_cancellable,
                          on_interfaces, self);
}

static void
on_vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  RlWpaBridge *self = user_data;

  (void) connection;
  if (self->owner != NULL)
    g_message ("wpa_supplicant left the system bus");
  else
    g_info ("%s is not on the system bus; watching for it", name);
  owner_forget (self);
}

static void
on_bus_closed (GDBusConnection *connection, gboolean remote_peer_vanished, GError *error, gpointer user_data)
{
  RlWpaBridge *self = user_data;

  (void) connection; (void) remote_peer_vanished; (void) error;
  g_message ("wpa_supplicant bridge: the system bus went away");
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  owner_forget (self);
}

static void
on_bus_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);
  RlWpaBridge *self = user_data;

  (void) object;
  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("wpa_supplicant bridge: no system bus: %s", error->message);
      return;
    }
  self->bus = bus;
  /* reglocd outlives a bus restart (see the timezone source) */
  g_dbus_connection_set_exit_on_close (bus, FALSE);
  g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), self);
  self->watch_id = g_bus_watch_name_on_connection (bus, WPA_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   on_appeared, on_vanished, self, NULL);
}

RlWpaBridge *
rl_wpa_bridge_new (void)
{
  RlWpaBridge *self = g_new0 (RlWpaBridge, 1);

  self->country = RL_COUNTRY_NONE;
  self->ifaces = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, iface_free);
  self->cancellable = g_cancellable_new ();
  g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, on_bus_ready, self);
  return self;
}

void
rl_wpa_bridge_free (RlWpaBridge *self)
{
  if (self == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  owner_forget (self);
  if (self->bus != NULL)
    g_signal_handlers_disconnect_by_data (self->bus, self);
  g_clear_object (&self->bus);
  g_hash_table_unref (self->ifaces);
  g_free (self);
}

void
rl_wpa_bridge_set_country (RlWpaBridge *self, RlCountry country)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (self != NULL);
  if (country == RL_COUNTRY_NONE || country == self->country)
    return;
  self->country = country;
  g_hash_table_iter_init (&iter, self->ifaces);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    iface_write (self, value);
}

const char *
rl_wpa_bridge_status (RlWpaBridge *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n = 0, set = 0;
  char cc[3];

  if (self->owner == NULL)
    return "wpa_supplicant is not on the system bus";
  g_hash_table_iter_init (&iter, self->ifaces);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      n++;
      set += ((WpaIface *) value)->written == self->country;
    }
  rl_country_to_string (self->country, cc);
  if (n == 0)
    g_snprintf (self->status, sizeof self->status, "wpa_supplicant: no interface");
  else
    g_snprintf (self->status, sizeof self->status, "wpa_supplicant: %u of %u interface%s set to %s",
                set, n, n == 1 ? "" : "s", self->country == RL_COUNTRY_NONE ? "nothing yet" : cc);
  return self->status;
}
