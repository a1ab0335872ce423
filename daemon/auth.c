#define G_LOG_DOMAIN "regloc-auth"

#include "daemon/auth.h"
#include "daemon/bus-error.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_IFACE "org.freedesktop.PolicyKit1.Authority"
#define POLKIT_ALLOW_USER_INTERACTION 1u

/* The whole authorization policy of the daemon. */
static const struct {
  const char *method;
  const char *action;           /* NULL: anyone */
} auth_table[] = {
  /* For these two a refusal only hides the coordinates. */
  { "Explain", "net.regloc.read-location" },
  { "GetEvidence", "net.regloc.read-location" },
  /* Rules of a named country are public; of the one in force they tell no
   * more than the public Country property. */
  { "GetRules", NULL },
  { "SetOverride", "net.regloc.override" },
  { "ClearOverride", "net.regloc.override" },
};

const char *
rl_auth_action_for (const char *method, gboolean *known)
{
  for (gsize i = 0; i < G_N_ELEMENTS (auth_table); i++)
    if (g_strcmp0 (auth_table[i].method, method) == 0)
      {
        *known = TRUE;
        return auth_table[i].action;
      }
  *known = FALSE;
  return NULL;
}

/* --- the bounded checker (see auth.h) -------------------------------------- */

typedef enum {
  ANSWER_NONE,
  ANSWER_ALLOWED,
  ANSWER_REFUSED,          /* refused without a challenge */
} Answer;

typedef struct {
  GDBusMethodInvocation *invocation;
  RlAuthCallback callback;
  gpointer user_data;
} Waiter;

/* One polkit CheckAuthorization in flight, shared by every call of one
 * caller for one action (and interactivity). */
typedef struct {
  char *key;               /* sender \x1f action \x1f interactive */
  char *cache_key;         /* sender \x1f action */
  char *action;
  gboolean interactive;
  gboolean admin;
  GArray *waiters;         /* Waiter */
} Check;

static struct {
  GDBusConnection *connection;
  guint changed_id;
  guint name_id;
  GHashTable *cache;       /* cache_key -> Answer */
  GHashTable *pending;     /* key -> Check* */
  guint n_pending[2];      /* [0] reading, [1] administration */
} auth;

static void
check_free (Check *check)
{
  g_free (check->key);
  g_free (check->cache_key);
  g_free (check->action);
  g_array_unref (check->waiters);
  g_free (check);
}

static void
on_polkit_changed (GDBusConnection *connection, const char *sender, const char *path,
                   const char *iface, const char *signal, GVariant *params, gpointer user_data)
{
  g_debug ("polkit's authorizations changed: forgetting %u cached answers", g_hash_table_size (auth.cache));
  g_hash_table_remove_all (auth.cache);
}

static void
on_name_owner_changed (GDBusConnection *connection, const char *sender, const char *path,
                       const char *iface, const char *signal, GVariant *params, gpointer user_data)
{
  const char *name, *old_owner, *new_owner;
  g_autofree char *prefix = NULL;
  GHashTableIter it;
  gpointer key;

  g_variant_get (params, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (name[0] != ':' || new_owner[0] != '\0')
    return;
  prefix = g_strconcat (name, "\x1f", NULL);
  g_hash_table_iter_init (&it, auth.cache);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_hash_table_iter_remove (&it);
}

void
rl_auth_reset (void)
{
  if (auth.connection != NULL)
    {
      g_dbus_connection_signal_unsubscribe (auth.connection, auth.changed_id);
      g_dbus_connection_signal_unsubscribe (auth.connection, auth.name_id);
      g_clear_object (&auth.connection);
    }
  if (auth.cache != NULL)
    g_hash_table_remove_all (auth.cache);
}

/* Watches polkit's Changed and names leaving the bus on @connection. */
static void
auth_attach (GDBusConnection *connection)
{
  if (auth.cache == NULL)
    {
      auth.cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      auth.pending = g_hash_table_new (g_str_hash, g_str_equal);
    }
  if (auth.connection == connection)
    return;
  rl_auth_reset ();
  auth.connection = g_object_ref (connection);
  auth.changed_id = g_dbus_connection_signal_subscribe (connection, POLKIT_NAME, POLKIT_IFACE, "Changed",
                                                        POLKIT_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                        on_polkit_changed, NULL, NULL);
  auth.name_id = g_dbus_connection_signal_subscribe (connection, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                                     "NameOwnerChanged", "/org/freedesktop/DBus", NULL,
                                                     G_DBUS_SIGNAL_FLAGS_NONE, on_name_owner_changed, NULL, NULL);
}

static guint
interactive_timeout_ms (void)
{
  /* Tests shorten it; a person typing a password gets two minutes. */
  const char *env = g_getenv ("REGLOC_AUTH_INTERACTIVE_TIMEOUT_MS");
  guint64 ms;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 3600000, &ms, NULL))
    return (guint) ms;
  return RL_AUTH_INTERACTIVE_TIMEOUT_S * 1000u;
}

/* Answers every call waiting on @check and forgets it. */
static void
check_finish (Check *check, Answer answer, const GError *refusal)
{
  g_hash_table_remove (auth.pending, check->key);
  auth.n_pending[check->admin]--;
  if (answer != ANSWER_NONE)
    g_hash_table_replace (auth.cache, g_strdup (check->cache_key), GINT_TO_POINTER (answer));
  for (guint i = 0; i < check->waiters->len; i++)
    {
      Waiter *w = &g_array_index (check->waiters, Waiter, i);
      w->callback (w->invocation, answer == ANSWER_ALLOWED, refusal, w->user_data);
      g_object_unref (w->invocation);
    }
  check_free (check);
}

static GError *
unanswered_error (const Check *check, GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);

  g_dbus_error_strip_remote_error (error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                        "Not authorized: polkit did not answer about %s in time", check->action);
  return g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                      "Not authorized: polkit could not be asked about %s (%s%s%s)",
                      check->action, remote ? remote : "", remote ? ": " : "", error->message);
}

static void
on_check_authorization (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Check *check = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) refusal = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  gboolean authorized = FALSE, challenge = FALSE;

  if (reply == NULL)
    {
      /* No polkit, no permission; nothing cached, the next call asks again. */
      g_info ("Cannot ask polkit about %s: %s", check->action, error->message);
      refusal = unanswered_error (check, error);
      check_finish (check, ANSWER_NONE, refusal);
      return;
    }
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  if (authorized)
    check_finish (check, ANSWER_ALLOWED, NULL);
  else if (challenge && !check->interactive)
    {
      refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                             "%s needs authentication: call again allowing interactive authorization",
                             check->action);
      check_finish (check, ANSWER_NONE, refusal);
    }
  else
    {
      refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                             "Not authorized: polkit refused %s to this caller", check->action);
      /* A refusal after a challenge may turn into a yes with a password. */
      check_finish (check, challenge ? ANSWER_NONE : ANSWER_REFUSED, refusal);
    }
}

G_GNUC_PRINTF (6, 7) static void
refuse (GDBusMethodInvocation *invocation, RlAuthCallback callback, gpointer user_data,
        GQuark domain, int code, const char *fmt, ...)
{
  g_autoptr(GError) refusal = NULL;
  va_list args;

  va_start (args, fmt);
  refusal = g_error_new_valist (domain, code, fmt, args);
  va_end (args);
  callback (invocation, FALSE, refusal, user_data);
}

static void
check_start (Check *check, GDBusConnection *connection, const char *sender)
{
  GVariantBuilder subject;

  g_variant_builder_init (&subject, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&subject, "{sv}", "name", g_variant_new_string (sender));
  g_dbus_connection_call (connection, POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE, "CheckAuthorization",
                          g_variant_new ("((sa{sv})sa{ss}us)", "system-bus-name", &subject, check->action,
                                         NULL, check->interactive ? POLKIT_ALLOW_USER_INTERACTION : 0u, ""),
                          G_VARIANT_TYPE ("((bba{ss}))"),
                          G_DBUS_CALL_FLAGS_NONE,
                          check->interactive ? (int) interactive_timeout_ms () : -1,
                          NULL, on_check_authorization, check);
}

void
rl_auth_check (GDBusMethodInvocation *invocation, RlAuthCallback callback, gpointer user_data)
{
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  gboolean known = FALSE, interactive;
  const char *action = rl_auth_action_for (method, &known);
  g_autofree char *cache_key = NULL, *key = NULL;
  Waiter waiter = { g_object_ref (invocation), callback, user_data };
  Answer cached;
  Check *check;

  if (!known || action == NULL)
    {
      g_object_unref (waiter.invocation);
      if (!known)
        refuse (invocation, callback, user_data, RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                "Not authorized: %s is not in the daemon's authorization table", method);
      else
        callback (invocation, TRUE, NULL, user_data);
      return;
    }
  auth_attach (connection);
  sender = sender ? sender : "";
  interactive = (g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  cache_key = g_strconcat (sender, "\x1f", action, NULL);
  key = g_strconcat (cache_key, interactive ? "\x1fi" : "\x1fn", NULL);

  cached = GPOINTER_TO_INT (g_hash_table_lookup (auth.cache, cache_key));
  if (cached != ANSWER_NONE)
    {
      g_object_unref (waiter.invocation);
      if (cached == ANSWER_ALLOWED)
        callback (invocation, TRUE, NULL, user_data);
      else
        refuse (invocation, callback, user_data, RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                "Not authorized: polkit refused %s to this caller", action);
      return;
    }

  check = g_hash_table_lookup (auth.pending, key);
  if (check != NULL)
    {
      if (check->waiters->len >= RL_AUTH_MAX_WAITERS)
        {
          g_object_unref (waiter.invocation);
          refuse (invocation, callback, user_data, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                  "Busy: too many calls of this caller are waiting for polkit about %s; try again later", action);
          return;
        }
      g_array_append_val (check->waiters, waiter);
      return;
    }

  {
    gboolean admin = g_strcmp0 (action, "net.regloc.read-location") != 0;
    guint limit = admin ? RL_AUTH_MAX_PENDING_ADMIN : RL_AUTH_MAX_PENDING_READ;

    if (auth.n_pending[admin] >= limit)
      {
        g_object_unref (waiter.invocation);
        g_info ("Refusing %s of %s: %u polkit checks pending", method, sender, auth.n_pending[admin]);
        refuse (invocation, callback, user_data, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                "Busy: too many callers are waiting for polkit about %s; try again later", action);
        return;
      }
    check = g_new0 (Check, 1);
    check->key = g_steal_pointer (&key);
    check->cache_key = g_steal_pointer (&cache_key);
    check->action = g_strdup (action);
    check->interactive = interactive;
    check->admin = admin;
    check->waiters = g_array_new (FALSE, FALSE, sizeof (Waiter));
    g_array_append_val (check->waiters, waiter);
    g_hash_table_insert (auth.pending, check->key, check);
    auth.n_pending[admin]++;
    check_start (check, connection, sender);
  }
}
