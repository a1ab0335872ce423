#define G_LOG_DOMAIN "regloc-cell"

#include "daemon/sources/modem.h"
#include "readers/mcc.h"

#include <gio/gio.h>
#include <string.h>

#define MM_NAME "org.freedesktop.ModemManager1"
#define MM_PATH "/org/freedesktop/ModemManager1"
#define MM_IFACE_MODEM "org.freedesktop.ModemManager1.Modem"
#define MM_IFACE_3GPP "org.freedesktop.ModemManager1.Modem.Modem3gpp"
#define MM_IFACE_LOCATION "org.freedesktop.ModemManager1.Modem.Location"

/* MMModem3gppRegistrationState: the states in which the modem is registered
 * on a network whose code it reports (the SMS-only and CSFB variants too). */
enum {
  REG_HOME = 1,
  REG_ROAMING = 5,
  REG_HOME_SMS_ONLY = 6,
  REG_ROAMING_SMS_ONLY = 7,
  REG_EMERGENCY_ONLY = 8,
  REG_HOME_CSFB_NOT_PREFERRED = 9,
  REG_ROAMING_CSFB_NOT_PREFERRED = 10,
};
/* MMModemState: below ENABLED the modem is not on any network (failed,
 * e.g. no SIM; locked by a PIN; disabled, e.g. airplane mode). */
#define MODEM_STATE_ENABLED 6

/* The modem's State when it says it cannot be registered, or NULL. */
static const char *
modem_state_words (GDBusObject *object)
{
  g_autoptr (GDBusInterface) modem = g_dbus_object_get_interface (object, "org.freedesktop.ModemManager1.Modem");
  g_autoptr (GVariant) state = modem ? g_dbus_proxy_get_cached_property (G_DBUS_PROXY (modem), "State") : NULL;
  gint32 v;

  if (state == NULL || !g_variant_is_of_type (state, G_VARIANT_TYPE_INT32))
    return NULL;
  v = g_variant_get_int32 (state);
  if (v >= MODEM_STATE_ENABLED)
    return NULL;
  return v < 0 ? "failed (no SIM?)" : v == 2 ? "locked (SIM PIN)" : v == 3 ? "disabled (airplane mode?)"
                                                                        : "not enabled";
}

/* MMModemLocationSource */
#define LOCATION_3GPP_LAC_CI 1u

typedef struct {
  char *path;
  char key[48];
  char network[8];          /* "262-01" published, "" none */
  char heard[8];            /* "262-01" registered on (whether it names a country or not), "" none */
} Modem;

typedef struct {
  RlSource parent;
  char *providers;
  guint max_age_s;
  RlMccTable *table;
  GCancellable *cancellable;
  GDBusConnection *bus;
  GDBusObjectManager *manager;
  GHashTable *modems;       /* object path → Modem */
  RlModemObserver observer;
  gpointer observer_data;
} RlModemSource;

void
rl_modem_set_observer (RlSource *source, RlModemObserver observer, gpointer user_data)
{
  RlModemSource *self = (RlModemSource *) source;

  self->observer = observer;
  self->observer_data = user_data;
}

static const char *
modem_name (const Modem *m)
{
  const char *slash = strrchr (m->path, '/');
  return slash != NULL ? slash + 1 : m->path;
}

/* Tells the observer what the modem is registered on ("" none) when it changed. */
static void
modem_heard (RlModemSource *self, Modem *m, const char *network, guint mcc, const char *mnc)
{
  if (strcmp (m->heard, network) == 0)
    return;
  g_strlcpy (m->heard, network, sizeof m->heard);
  if (self->observer != NULL)
    self->observer (modem_name (m), network[0] != '\0', mcc, mnc, g_get_real_time (), self->observer_data);
}

static void
modem_free (gpointer p)
{
  Modem *m = p;
  g_free (m->path);
  g_free (m);
}

static gboolean
is_registered (guint32 state, gboolean *roaming)
{
  *roaming = state == REG_ROAMING || state == REG_ROAMING_SMS_ONLY || state == REG_ROAMING_CSFB_NOT_PREFERRED;
  return state == REG_HOME || state == REG_HOME_SMS_ONLY || state == REG_HOME_CSFB_NOT_PREFERRED || *roaming;
}

static const char *
registration_words (guint32 state)
{
  switch (state)
    {
    case 0: return "idle";
    case 2: return "searching";
    case 3: return "registration denied";
    case REG_EMERGENCY_ONLY: return "emergency calls only";
    case 11: return "attached for emergency (RLOS)";
    default: return "registration unknown";
    }
}

/* The serving cell's MCC/MNC from the Location property, where the 3GPP
 * LAC/CI source is enabled and ModemManager publishes it. */
static gboolean
location_network (GDBusObject *object, guint *mcc, char mnc[4])
{
  g_autoptr (GDBusInterface) iface = g_dbus_object_get_interface (object, MM_IFACE_LOCATION);
  g_autoptr (GVariant) enabled = NULL;
  g_autoptr (GVariant) location = NULL;
  GVariantIter iter;
  guint32 source;
  GVariant *value;

  if (iface == NULL)
    return FALSE;
  enabled = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (iface), "Enabled");
  location = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (iface), "Location");
  if (enabled == NULL || !g_variant_is_of_type (enabled, G_VARIANT_TYPE_UINT32) ||
      !(g_variant_get_uint32 (enabled) & LOCATION_3GPP_LAC_CI) ||
      location == NULL || !g_variant_is_of_type (location, G_VARIANT_TYPE ("a{uv}")))
    return FALSE;
  g_variant_iter_init (&iter, location);
  while (g_variant_iter_next (&iter, "{uv}", &source, &value))
    {
      gboolean ok = source == LOCATION_3GPP_LAC_CI && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) &&
                    rl_mcc_parse_3gpp_location (g_variant_get_string (value, NULL), mcc, mnc);
      g_variant_unref (value);
      if (ok)
        return TRUE;
    }
  return FALSE;
}

static void
modem_withdraw (RlModemSource *self, Modem *m)
{
  modem_heard (self, m, "", 0, "");
  if (m->network[0] == '\0')
    return;
  m->network[0] = '\0';
  rl_source_withdraw (&self->parent, m->key);
}

/* Reads one modem's registration and publishes or withdraws its item;
 * appends a word for the status line to @status. */
static void
modem_update (RlModemSource *self, GDBusObject *object, Modem *m, GString *status)
{
  g_autoptr (GDBusInterface) gpp = g_dbus_object_get_interface (object, MM_IFACE_3GPP);
  g_autoptr (GVariant) reg = NULL;
  g_autoptr (GVariant) code = NULL;
  const char *name = modem_name (m);
  gboolean roaming = FALSE;
  guint mcc = 0;
  char mnc[4] = "";
  char network[8];
  const char *via = "operator code";
  RlEvidence ev;
  char list[96];

  g_string_append_printf (status, "%smodem %s ", status->len ? ", " : "", name);
  if (modem_state_words (object) != NULL)
    {
      g_string_append (status, modem_state_words (object));
      modem_withdraw (self, m);
      return;
    }
  if (gpp == NULL)
    {
      /* no SIM, locked, or disabled (airplane mode): no 3GPP interface */
      g_string_append (status, "not registered (no 3GPP interface: disabled, no SIM?)");
      modem_withdraw (self, m);
      return;
    }
  reg = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (gpp), "RegistrationState");
  code = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (gpp), "OperatorCode");
  if (reg == NULL || !g_variant_is_of_type (reg, G_VARIANT_TYPE_UINT32) ||
      !is_registered (g_variant_get_uint32 (reg), &roaming))
    {
      g_string_append (status, reg != NULL && g_variant_is_of_type (reg, G_VARIANT_TYPE_UINT32)
                                 ? registration_words (g_variant_get_uint32 (reg)) : "registration unknown");
      modem_withdraw (self, m);
      return;
    }
  if (location_network (object, &mcc, mnc))
    via = "serving cell";
  else if (code == NULL || !g_variant_is_of_type (code, G_VARIANT_TYPE_STRING) ||
           !rl_mcc_parse_operator_code (g_variant_get_string (code, NULL), &mcc, mnc))
    {
      g_string_append (status, "registered, operator code unknown");
      modem_withdraw (self, m);
      return;
    }
  g_snprintf (network, sizeof network, "%03u-%s", mcc, mnc);
  modem_heard (self, m, network, mcc, mnc);
  if (!rl_mcc_evidence (self->table, m->key, mcc, mnc, g_get_real_time (),
                        rl_expiry_after (g_get_real_time (), self->max_age_s), &ev))
    {
      g_string_append_printf (status, "on %s%s: names no country", network, roaming ? " (roaming)" : "");
      if (m->network[0] != '\0')
        rl_source_withdraw (&self->parent, m->key);
      m->network[0] = '\0';
      return;
    }
  rl_evidence_countries_to_string (&ev, list, sizeof list);
  g_string_append_printf (status, "on %s%s → %s", network, roaming ? " (roaming)" : "", list);
  if (strcmp (m->network, network) == 0)
    return;
  g_strlcpy (m->network, network, sizeof m->network);
  g_snprintf (ev.detail, sizeof ev.detail, "modem %s on mobile network %s%s (%s)", name, network,
              roaming ? ", roaming" : "", via);
  ev.cell.roaming = roaming;
  ev.cell.serving_cell = strcmp (via, "serving cell") == 0;
  g_info ("Modem %s registered on %s%s → %s", name, network, roaming ? " (roaming)" : "", list);
  rl_source_put (&self->parent, &ev);
}

static Modem *
modem_get (RlModemSource *self, const char *path)
{
  Modem *m = g_hash_table_lookup (self->modems, path);

  if (m == NULL)
    {
      const char *name = strrchr (path, '/') ? strrchr (path, '/') + 1 : path;
      m = g_new0 (Modem, 1);
      m->path = g_strdup (path);
      g_snprintf (m->key, sizeof m->key, "cell:%.40s", name);
      g_hash_table_insert (self->modems, m->path, m);
    }
  return m;
}

/* Walks every modem ModemManager lists; forgets the ones it no longer does. */
static void
modem_refresh (RlModemSource *self)
{
  g_autofree char *owner = NULL;
  g_autoptr (GString) status = g_string_new (NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GList *objects = NULL;
  GHashTableIter iter;
  gpointer value;

  if (self->manager != NULL)
    owner = g_dbus_object_manager_client_get_name_owner (G_DBUS_OBJECT_MANAGER_CLIENT (self->manager));
  if (owner != NULL)
    objects = g_dbus_object_manager_get_objects (self->manager);
  for (GList *l = objects; l != NULL; l = l->next)
    {
      GDBusObject *object = l->data;
      const char *path = g_dbus_object_get_object_path (object);
      g_autoptr (GDBusInterface) modem = g_dbus_object_get_interface (object, MM_IFACE_MODEM);

      if (modem == NULL)
        continue;
      Modem *m = modem_get (self, path);
      g_hash_table_add (seen, m->path);
      modem_update (self, object, m, status);
    }
  g_list_free_full (objects, g_object_unref);

  g_hash_table_iter_init (&iter, self->modems);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Modem *m = value;
      if (g_hash_table_contains (seen, m->path))
        continue;
      g_info ("Modem %s went away", m->path);
      modem_withdraw (self, m);
      g_hash_table_iter_remove (&iter);
    }

  if (owner == NULL)
    rl_source_set_status (&self->parent, FALSE, "ModemManager (%s) is not running", MM_NAME);
  else if (status->len == 0)
    rl_source_set_status (&self->parent, TRUE, "ModemManager: no modem");
  else
    rl_source_set_status (&self->parent, TRUE, "ModemManager: %s", status->str);
}

/* notify::name-owner, object-added, object-removed */
static void
on_object_changed (gpointer instance, gpointer what, gpointer user_data)
{
  (void) instance; (void) what;
  modem_refresh (user_data);
}

/* interface-added, interface-removed */
static void
on_interface_changed (gpointer instance, gpointer object, gpointer iface, gpointer user_data)
{
  (void) instance; (void) object; (void) iface;
  modem_refresh (user_data);
}

static void
on_properties_changed (GDBusObjectManagerClient *manager, GDBusObjectProxy *object, GDBusProxy *proxy,
                       GVariant *changed, GStrv invalidated, gpointer user_data)
{
  (void) manager; (void) object; (void) proxy; (void) changed; (void) invalidated;
  modem_refresh (user_data);
}

static void
on_bus_closed (GDBusConnection *connection, gboolean remote_peer_vanished, GError *error, gpointer user_data)
{
  RlModemSource *self = user_data;

  (void) connection; (void) remote_peer_vanished; (void) error;
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  modem_refresh (self);
  rl_source_set_status (&self->parent, FALSE, "the system bus went away");
}

static void
on_manager_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  GDBusObjectManager *manager = g_dbus_object_manager_client_new_finish (result, &error);
  RlModemSource *self;

  (void) object;
  if (manager == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rl_source_set_status ((RlSource *) user_data, FALSE, "ModemManager: %s", error->message);
      return;
    }
  self = user_data;
  self->manager = manager;
  /* The client follows ModemManager's name: objects come and go with it. */
  g_signal_connect (manager, "notify::name-owner", G_CALLBACK (on_object_changed), self);
  g_signal_connect (manager, "object-added", G_CALLBACK (on_object_changed), self);
  g_signal_connect (manager, "object-removed", G_CALLBACK (on_object_changed), self);
  g_signal_connect (manager, "interface-added", G_CALLBACK (on_interface_changed), self);
  g_signal_connect (manager, "interface-removed", G_CALLBACK (on_interface_changed), self);
  g_signal_connect (manager, "interface-proxy-properties-changed", G_CALLBACK (on_properties_changed), self);
  modem_refresh (self);
}

static void
on_bus_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);
  RlModemSource *self;

  (void) object;
  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rl_source_set_status ((RlSource *) user_data, FALSE, "no system bus: %s", error->message);
      return;
    }
  self = user_data;
  self->bus = bus;
  /* reglocd outlives a bus restart (see the timezone source) */
  g_dbus_connection_set_exit_on_close (bus, FALSE);
  g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), self);
  g_dbus_object_manager_client_new (bus, G_DBUS_OBJECT_MANAGER_CLIENT_FLAGS_DO_NOT_AUTO_START,
                                    MM_NAME, MM_PATH, NULL, NULL, NULL, self->cancellable,
                                    on_manager_ready, self);
}

static RlSource *
modem_create (const RlConfig *config, const RlSourceSink *sink)
{
  RlModemSource *self;

  if (!config->cell_enabled)
    return NULL;
  self = g_new0 (RlModemSource, 1);
  rl_source_init (&self->parent, &rl_modem_source_ops, sink);
  self->providers = g_strdup (config->cell_providers ? config->cell_providers : RL_MCC_DEFAULT_PROVIDERS);
  self->max_age_s = config->policy.max_age_s[RL_SOURCE_CELL];
  self->modems = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, modem_free);
  return &self->parent;
}

static void
modem_start (RlSource *source)
{
  RlModemSource *self = (RlModemSource *) source;
  g_autoptr (GError) error = NULL;

  if (self->table == NULL)
    self->table = rl_mcc_table_load (self->providers, &error);
  if (self->table == NULL)
    {
      /* without the table no network names a country: nothing to follow */
      rl_source_set_status (source, FALSE, "no mobile network codes: %s", error->message);
      return;
    }
  g_debug ("%u mobile country codes from %s", rl_mcc_table_n_codes (self->table), self->providers);
  rl_source_set_status (source, FALSE, "waiting for the system bus");
  self->cancellable = g_cancellable_new ();
  g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, on_bus_ready, self);
}

static void
modem_stop (RlSource *source)
{
  RlModemSource *self = (RlModemSource *) source;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  if (self->bus != NULL)
    g_signal_handlers_disconnect_by_data (self->bus, self);
  g_clear_object (&self->bus);
  g_hash_table_remove_all (self->modems);
}

static void
modem_source_free (RlSource *source)
{
  RlModemSource *self = (RlModemSource *) source;

  modem_stop (source);
  g_clear_pointer (&self->table, rl_mcc_table_free);
  g_clear_pointer (&self->modems, g_hash_table_unref);
  g_free (self->providers);
  g_free (self);
}

/* The registration from before the sleep was dropped: what ModemManager
 * says now is put again, observed now. */
static void
modem_resumed (RlSource *source)
{
  RlModemSource *self = (RlModemSource *) source;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->modems);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    ((Modem *) value)->network[0] = '\0';
  modem_refresh (self);
}

const RlSourceOps rl_modem_source_ops = {
  .name = "cell",
  .kind = RL_SOURCE_CELL,
  .create = modem_create,
  .start = modem_start,
  .stop = modem_stop,
  .free = modem_source_free,
  .resumed = modem_resumed,
};
