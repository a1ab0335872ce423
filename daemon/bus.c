#define G_LOG_DOMAIN "regloc-bus"

#include "daemon/bus.h"
#include "daemon/auth.h"
#include "daemon/bus-error.h"
#include "dbus/rl-dbus-manager.h"
#include "core/regrules.h"

#include <math.h>
#include <string.h>

static const GDBusErrorEntry bus_error_entries[] = {
  { RL_BUS_ERROR_INVALID_COUNTRY, "net.regloc.RegLoc1.Error.InvalidCountry" },
  { RL_BUS_ERROR_UNKNOWN_COUNTRY, "net.regloc.RegLoc1.Error.UnknownCountry" },
  { RL_BUS_ERROR_NOT_AUTHORIZED, "net.regloc.RegLoc1.Error.NotAuthorized" },
  { RL_BUS_ERROR_FAILED, "net.regloc.RegLoc1.Error.Failed" },
  { RL_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" },
};

GQuark
rl_bus_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("rl-bus-error-quark", &quark, bus_error_entries,
                                      G_N_ELEMENTS (bus_error_entries));
  return (GQuark) quark;
}

struct RlBus {
  RlDaemon *daemon;
  RlDBusManager *skeleton;
};

/* Daemon errors → named D-Bus errors, the message kept. */
static void
return_daemon_error (GDBusMethodInvocation *invocation, const GError *error)
{
  RlBusError code = RL_BUS_ERROR_FAILED;

  if (error->domain == RL_DAEMON_ERROR)
    switch ((RlDaemonError) error->code)
      {
      case RL_DAEMON_ERROR_INVALID_COUNTRY: code = RL_BUS_ERROR_INVALID_COUNTRY; break;
      case RL_DAEMON_ERROR_UNKNOWN_COUNTRY: code = RL_BUS_ERROR_UNKNOWN_COUNTRY; break;
      case RL_DAEMON_ERROR_FAILED: code = RL_BUS_ERROR_FAILED; break;
      }
  g_dbus_method_invocation_return_error_literal (invocation, RL_BUS_ERROR, code, error->message);
}

/* Private data (docs/design.md, "Private data"): positions, border
 * distances, BSSIDs and SSIDs are typed fields of the evidence and the
 * decision carries its text at two levels, so nothing here scrubs words.
 * Properties and signals are public; Explain and GetEvidence show the
 * private fields only to callers allowed net.regloc.read-location.  Source
 * status texts never name private data (daemon/sources/source.h). */

static GVariant *
sources_variant (RlBus *self)
{
  g_autoptr(GArray) status = rl_daemon_source_status (self->daemon);
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sbts)"));
  for (guint i = 0; i < status->len; i++)
    {
      RlSourceStatus *st = &g_array_index (status, RlSourceStatus, i);
      g_variant_builder_add (&b, "(sbts)", st->name, st->available,
                             (guint64) MAX (st->last_evidence, 0), st->detail ? st->detail : "");
    }
  return g_variant_builder_end (&b);
}

static GVariant *
radios_variant (RlBus *self)
{
  guint n = 0;
  const RlRadioInfo *radios = rl_daemon_radios (self->daemon, &n);
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ssbsb)"));
  for (guint i = 0; i < n; i++)
    g_variant_builder_add (&b, "(ssbsb)", radios[i].name, radios[i].driver, radios[i].self_managed,
                           radios[i].country, radios[i].steerable);
  return g_variant_builder_end (&b);
}

void
rl_bus_update (RlBus *self, RlDaemonChanges changes, RlCountry old_country)
{
  RlDBusManager *m = self->skeleton;
  const RlDecision *dec = rl_daemon_decision (self->daemon);
  char cc[3];

  /* The skeleton batches every property set in this turn into one
   * PropertiesChanged and skips values that did not change. */
  if ((changes & RL_DAEMON_CHANGED_DECISION) && dec != NULL)
    {
      g_autofree char *old_value = g_strdup (rl_dbus_manager_get_country (m));
      gboolean country_changed = g_strcmp0 (old_value, rl_country_to_string (dec->country, cc)) != 0;
      const char *reason = dec->summary_public ? dec->summary_public : rl_reason_to_string (dec->reason);

      rl_dbus_manager_set_country (m, cc);
      rl_dbus_manager_set_state (m, rl_state_to_string (dec->state));
      rl_dbus_manager_set_reason (m, reason);
      /* Rounded so a tiny wobble of a sum does not wake every client. */
      rl_dbus_manager_set_confidence (m, round (dec->confidence * 1000.0) / 1000.0);
      rl_dbus_manager_set_last_change (m, (guint64) MAX (rl_daemon_last_change (self->daemon), 0));
      if (country_changed)
        {
          /* Properties first: a client that reacts to the signal by
           * reading the properties sees the new values announced. */
          g_dbus_interface_skeleton_flush (G_DBUS_INTERFACE_SKELETON (m));
          rl_dbus_manager_emit_country_changed (m, old_value ? old_value : "00", cc, reason);
        }
    }
  if (changes & RL_DAEMON_CHANGED_KERNEL)
    {
      g_autoptr(GVariant) radios = g_variant_ref_sink (radios_variant (self));
      GVariant *current = rl_dbus_manager_get_radios (m);

      rl_dbus_manager_set_kernel_country (m, rl_daemon_kernel_country (self->daemon));
      rl_dbus_manager_set_kernel_set_by (m, rl_daemon_kernel_set_by (self->daemon));
      if (current == NULL || !g_variant_equal (current, radios))
        rl_dbus_manager_set_radios (m, radios);
    }
  if (changes & (RL_DAEMON_CHANGED_OVERRIDE | RL_DAEMON_CHANGED_DECISION))
    {
      RlCountry ov = rl_daemon_override (self->daemon, NULL);
      rl_dbus_manager_set_override (m, ov == RL_COUNTRY_NONE ? "" : rl_country_to_string (ov, cc));
    }
  if (changes & (RL_DAEMON_CHANGED_SOURCES | RL_DAEMON_CHANGED_KERNEL | RL_DAEMON_CHANGED_OVERRIDE))
    {
      g_autoptr(GVariant) sources = g_variant_ref_sink (sources_variant (self));
      GVariant *current = rl_dbus_manager_get_sources (m);

      if (current == NULL || !g_variant_equal (current, sources))
        rl_dbus_manager_set_sources (m, sources);
    }
}

/* --- methods ---------------------------------------------------------------- */

/* A read whose check was refused for load (not for lack of permission) gets
 * the error, not the public answer: the caller should come back later. */
static gboolean
return_if_busy (GDBusMethodInvocation *invocation, const GError *error)
{
  if (!g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED))
    return FALSE;
  g_dbus_method_invocation_return_gerror (invocation, error);
  return TRUE;
}

static void
on_explain_authorized (GDBusMethodInvocation *invocation, gboolean allowed, const GError *error, gpointer user_data)
{
  RlBus *self = user_data;
  g_autofree char *text = NULL;

  if (return_if_busy (invocation, error))
    return;
  text = rl_daemon_explain_at (self->daemon, allowed ? RL_DETAIL_FULL : RL_DETAIL_PUBLIC);
  rl_dbus_manager_complete_explain (self->skeleton, invocation, text);
}

static gboolean
handle_explain (RlDBusManager *m, GDBusMethodInvocation *invocation, gpointer user_data)
{
  rl_auth_check (invocation, on_explain_authorized, user_data);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* An item's key names its BSSID ("beacon:3c:a6:2f:…"): without the
 * permission it becomes the kind and a number counted per kind in this
 * answer ("beacon:#3").  Keys without a ':' ("gps", "timezone") name no
 * private detail and stay. */
static void
public_key (const RlEvidence *ev, guint *per_kind, char *buf, gsize len)
{
  const char *colon = strchr (ev->key, ':');

  if (colon == NULL)
    {
      g_strlcpy (buf, ev->key, len);
      return;
    }
  g_snprintf (buf, len, "%.*s:#%u", (int) (colon - ev->key), ev->key, ++per_kind[MIN (ev->kind, RL_N_SOURCE_KINDS)]);
}

static GVariant *
evidence_variant (RlDaemon *daemon, const RlEvidence *ev, gboolean show_location, guint *per_kind)
{
  gint64 observed = rl_daemon_evidence_wall_time (daemon, ev->observed_at);
  gint64 expires = ev->expires_at == RL_NEVER ? 0 : rl_daemon_evidence_wall_time (daemon, ev->expires_at);
  GVariantBuilder d, countries;
  char cc[3], key[sizeof ev->key], detail[200];

  g_variant_builder_init (&d, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_init (&countries, G_VARIANT_TYPE ("as"));
  for (guint i = 0; i < ev->n_countries; i++)
    g_variant_builder_add (&countries, "s", rl_country_to_string (ev->countries[i], cc));
  if (show_location)
    {
      g_strlcpy (key, ev->key, sizeof key);
      g_strlcpy (detail, ev->detail, sizeof detail);
      if (detail[0] == '\0')
        rl_evidence_describe (ev, RL_DETAIL_FULL, detail, sizeof detail);
    }
  else
    {
      public_key (ev, per_kind, key, sizeof key);
      rl_evidence_describe (ev, RL_DETAIL_PUBLIC, detail, sizeof detail);
    }
  g_variant_builder_add (&d, "{sv}", "source", g_variant_new_string (rl_source_kind_to_string (ev->kind)));
  g_variant_builder_add (&d, "{sv}", "key", g_variant_new_string (key));
  g_variant_builder_add (&d, "{sv}", "countries", g_variant_builder_end (&countries));
  g_variant_builder_add (&d, "{sv}", "strength", g_variant_new_double (ev->strength));
  g_variant_builder_add (&d, "{sv}", "observed-at", g_variant_new_uint64 ((guint64) MAX (observed, 0)));
  g_variant_builder_add (&d, "{sv}", "expires-at",
                         g_variant_new_uint64 ((guint64) MAX (expires, 0)));
  g_variant_builder_add (&d, "{sv}", "detail", g_variant_new_string (detail));
  if (ev->kind == RL_SOURCE_GPS)
    {
      g_variant_builder_add (&d, "{sv}", "error-m", g_variant_new_double (ev->gps.error_m));
      if (show_location)
        {
          g_variant_builder_add (&d, "{sv}", "border-m", g_variant_new_double (ev->gps.border_m));
          g_variant_builder_add (&d, "{sv}", "latitude", g_variant_new_double (ev->gps.lat));
          g_variant_builder_add (&d, "{sv}", "longitude", g_variant_new_double (ev->gps.lon));
        }
    }
  if (ev->kind == RL_SOURCE_BEACON && ev->beacon.signal_mbm != 0)
    g_variant_builder_add (&d, "{sv}", "signal-dbm", g_variant_new_double (ev->beacon.signal_mbm / 100.0));
  return g_variant_builder_end (&d);
}

static void
on_get_evidence_authorized (GDBusMethodInvocation *invocation, gboolean allowed, const GError *error, gpointer user_data)
{
  RlBus *self = user_data;
  const RlEvidence *items;
  gsize n = 0;
  GVariantBuilder b;
  guint per_kind[RL_N_SOURCE_KINDS + 1] = { 0 };

  if (return_if_busy (invocation, error))
    return;
  /* A refusal only hides the private fields: the rest is public. */
  items = rl_daemon_evidence (self->daemon, &n);
  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (gsize i = 0; i < n; i++)
    g_variant_builder_add_value (&b, evidence_variant (self->daemon, &items[i], allowed, per_kind));
  rl_dbus_manager_complete_get_evidence (self->skeleton, invocation, g_variant_builder_end (&b));
}

static gboolean
handle_get_evidence (RlDBusManager *m, GDBusMethodInvocation *invocation, gpointer user_data)
{
  rl_auth_check (invocation, on_get_evidence_authorized, user_data);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* Open (see daemon/auth.c): answered through the table like every method. */
static void
on_get_rules_authorized (GDBusMethodInvocation *invocation, gboolean allowed, const GError *error, gpointer user_data)
{
  RlBus *self = user_data;
  const char *country = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(RlRegDomain) domain = NULL, world = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  GVariantBuilder rules;
  char cc[3], region[16];

  if (!allowed)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s)", &country);
  domain = rl_daemon_rules (self->daemon, country, &local);
  if (domain != NULL)
    world = rl_daemon_rules (self->daemon, "00", &local);
  if (world == NULL)
    {
      return_daemon_error (invocation, local);
      return;
    }
  changes = rl_reg_domain_changes (domain, world);
  g_ptr_array_add (changes, NULL);
  g_variant_builder_init (&rules, G_VARIANT_TYPE ("a(uuuuuib)"));
  for (guint i = 0; i < domain->n_rules; i++)
    {
      const RlRegRule *r = &domain->rules[i];
      g_variant_builder_add (&rules, "(uuuuuib)", r->start_khz, r->end_khz, r->max_bw_khz, (guint32) r->max_eirp_mbm,
                             (guint32) r->flags, r->has_cac ? (gint32) r->cac_s : -1, r->has_wmm);
    }
  rl_dbus_manager_complete_get_rules (self->skeleton, invocation, rl_country_to_string (domain->country, cc),
                                      rl_dfs_region_to_string (domain->dfs_region, region),
                                      g_variant_builder_end (&rules), (const char *const *) changes->pdata);
}

static gboolean
handle_get_rules (RlDBusManager *m, GDBusMethodInvocation *invocation, const char *country, gpointer user_data)
{
  rl_auth_check (invocation, on_get_rules_authorized, user_data);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* journald MESSAGE_IDs of the audit records of an override set or cleared
 * (data/regloc.catalog explains them). */
#define RL_MESSAGE_ID_OVERRIDE_SET "ce0d853e299f4ceda859a03c24615554"
#define RL_MESSAGE_ID_OVERRIDE_CLEARED "0a574458fbd7421dab725e5446888e0d"

/* The RlBus may go (bus lost) while the bus daemon answers: the call keeps
 * what it needs, the daemon (which outlives every RlBus) and the skeleton. */
typedef struct {
  RlDaemon *daemon;
  RlDBusManager *skeleton;
  GDBusMethodInvocation *invocation;
} OverrideCall;

/* Who changed the override, for the journal: the caller's uid and pid as the
 * bus daemon knows them (fields left out when it no longer does: the caller
 * left).  Every field is a string; OBJECT_PID lets journald add the caller's
 * _COMM, _EXE, … as OBJECT_* fields. */
static void
log_override (const char *method, const char *country, const char *sender, GVariant *credentials)
{
  guint32 uid = 0, pid = 0;
  gboolean have_uid = FALSE, have_pid = FALSE;
  char uid_text[16] = "unknown", pid_text[16] = "unknown";
  gboolean set = g_str_equal (method, "SetOverride");
  g_autofree char *message = NULL;
  g_autoptr(GVariant) record = NULL;
  GVariantDict fields;

  if (credentials != NULL)
    {
      have_uid = g_variant_lookup (credentials, "UnixUserID", "u", &uid);
      have_pid = g_variant_lookup (credentials, "ProcessID", "u", &pid);
    }
  if (have_uid)
    g_snprintf (uid_text, sizeof uid_text, "%" G_GUINT32_FORMAT, uid);
  if (have_pid)
    g_snprintf (pid_text, sizeof pid_text, "%" G_GUINT32_FORMAT, pid);
  message = g_strdup_printf ("Override %s%s by uid %s (%s, pid %s)", set ? "set to " : "cleared",
                             set ? country : "", uid_text, sender ? sender : "no bus name", pid_text);
  g_variant_dict_init (&fields, NULL);
  g_variant_dict_insert (&fields, "MESSAGE_ID", "s", set ? RL_MESSAGE_ID_OVERRIDE_SET : RL_MESSAGE_ID_OVERRIDE_CLEARED);
  g_variant_dict_insert (&fields, "RL_OVERRIDE", "s", set ? country : "");
  if (have_uid)
    g_variant_dict_insert (&fields, "RL_CALLER_UID", "s", uid_text);
  if (sender != NULL)
    g_variant_dict_insert (&fields, "RL_CALLER_BUS_NAME", "s", sender);
  if (have_pid)
    g_variant_dict_insert (&fields, "OBJECT_PID", "s", pid_text);
  g_variant_dict_insert (&fields, "MESSAGE", "s", message);
  record = g_variant_ref_sink (g_variant_dict_end (&fields));
  g_log_variant (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, record);
}

static void
on_override_credentials (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OverrideCall *call = user_data;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GVariant) reply = NULL, credentials = NULL;
  g_autoptr(GError) local = NULL;
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  const char *country = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &local);
  if (reply != NULL)
    g_variant_get (reply, "(@a{sv})", &credentials);
  else
    g_debug ("No credentials of %s: %s", g_dbus_method_invocation_get_sender (invocation), local->message);
  g_clear_error (&local);

  if (g_str_equal (method, "SetOverride"))
    {
      g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s)", &country);
      if (!rl_daemon_set_override (call->daemon, country, &local))
        return_daemon_error (invocation, local);
      else
        {
          log_override (method, country, g_dbus_method_invocation_get_sender (invocation), credentials);
          rl_dbus_manager_complete_set_override (call->skeleton, invocation);
        }
    }
  else
    {
      if (!rl_daemon_clear_override (call->daemon, &local))
        return_daemon_error (invocation, local);
      else
        {
          log_override (method, NULL, g_dbus_method_invocation_get_sender (invocation), credentials);
          rl_dbus_manager_complete_clear_override (call->skeleton, invocation);
        }
    }
  g_object_unref (call->skeleton);
  g_free (call);
}

static void
on_override_authorized (GDBusMethodInvocation *invocation, gboolean allowed, const GError *error, gpointer user_data)
{
  RlBus *self = user_data;
  OverrideCall *call;
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);

  if (!allowed)
    {
      g_message ("Refused %s from %s: %s", method, sender, error->message);
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  /* Ask the bus who the caller is (asynchronously: the main loop serves
   * everyone else meanwhile), then change the override and log it.  The
   * invocation's reference goes with its reply. */
  call = g_new0 (OverrideCall, 1);
  call->daemon = self->daemon;
  call->skeleton = g_object_ref (self->skeleton);
  call->invocation = invocation;
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (invocation),
                          "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "GetConnectionCredentials", g_variant_new ("(s)", sender ? sender : ""),
                          G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL,
                          on_override_credentials, call);
}

static gboolean
handle_set_override (RlDBusManager *m, GDBusMethodInvocation *invocation, const char *country, gpointer user_data)
{
  RlBus *self = user_data;
  g_autoptr(GError) error = NULL;
  RlCountry parsed;

  /* Bad arguments are answered before polkit is bothered. */
  if (!rl_daemon_validate_override (self->daemon, country, &parsed, &error))
    {
      return_daemon_error (invocation, error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  rl_auth_check (invocation, on_override_authorized, user_data);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_clear_override (RlDBusManager *m, GDBusMethodInvocation *invocation, gpointer user_data)
{
  rl_auth_check (invocation, on_override_authorized, user_data);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

RlBus *
rl_bus_new (RlDaemon *daemon, GDBusConnection *connection, GError **error)
{
  g_autoptr(RlBus) self = g_new0 (RlBus, 1);

  (void) RL_BUS_ERROR;   /* register the names before the first call */
  self->daemon = daemon;
  self->skeleton = rl_dbus_manager_skeleton_new ();
  rl_dbus_manager_set_country (self->skeleton, "00");
  rl_dbus_manager_set_state (self->skeleton, "world");
  rl_dbus_manager_set_kernel_country (self->skeleton, "");
  rl_dbus_manager_set_kernel_set_by (self->skeleton, "");
  rl_dbus_manager_set_radios (self->skeleton, g_variant_new ("a(ssbsb)", NULL));
  rl_dbus_manager_set_override (self->skeleton, "");
  g_signal_connect (self->skeleton, "handle-explain", G_CALLBACK (handle_explain), self);
  g_signal_connect (self->skeleton, "handle-get-evidence", G_CALLBACK (handle_get_evidence), self);
  g_signal_connect (self->skeleton, "handle-get-rules", G_CALLBACK (handle_get_rules), self);
  g_signal_connect (self->skeleton, "handle-set-override", G_CALLBACK (handle_set_override), self);
  g_signal_connect (self->skeleton, "handle-clear-override", G_CALLBACK (handle_clear_override), self);
  rl_bus_update (self, RL_DAEMON_CHANGED_DECISION | RL_DAEMON_CHANGED_KERNEL |
                 RL_DAEMON_CHANGED_OVERRIDE | RL_DAEMON_CHANGED_SOURCES, RL_COUNTRY_WORLD);
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->skeleton), connection,
                                         RL_BUS_PATH, error))
    return NULL;
  return g_steal_pointer (&self);
}

void
rl_bus_free (RlBus *self)
{
  if (self == NULL)
    return;
  if (self->skeleton != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->skeleton, self);
      if (g_dbus_interface_skeleton_get_connection (G_DBUS_INTERFACE_SKELETON (self->skeleton)) != NULL)
        g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->skeleton));
      g_clear_object (&self->skeleton);
    }
  /* Cached answers belong to callers of the connection that goes away. */
  rl_auth_reset ();
  g_free (self);
}
