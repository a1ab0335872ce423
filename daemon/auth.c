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

typedef struct {
  GDBusMethodInvocation *invocation;
  RlAuthCallback callback;
  gpointer user_data;
  char *action;
  gboolean interactive;
} AuthRequest;

static void
auth_request_free (AuthRequest *req)
{
  g_object_unref (req->invocation);
  g_free (req->action);
  g_free (req);
}

static void
auth_finish (AuthRequest *req, gboolean allowed, GError *error)
{
  req->callback (req->invocation, allowed, error, req->user_data);
  auth_request_free (req);
}

static void
on_check_authorization (GObject *object, GAsyncResult *result, gpointer user_data)
{
  AuthRequest *req = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  gboolean authorized = FALSE, challenge = FALSE;

  if (reply == NULL)
    {
      /* No polkit, no permission. */
      g_autofree char *remote = g_dbus_error_get_remote_error (error);
      g_dbus_error_strip_remote_error (error);
      g_info ("Cannot ask polkit about %s: %s", req->action, error->message);
      g_autoptr(GError) refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                                               "Not authorized: polkit could not be asked about %s (%s%s%s)",
                                               req->action, remote ? remote : "", remote ? ": " : "",
                                               error->message);
      auth_finish (req, FALSE, refusal);
      return;
    }
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  if (authorized)
    {
      auth_finish (req, TRUE, NULL);
      return;
    }
  if (challenge && !req->interactive)
    {
      g_autoptr(GError) refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                               "%s needs authentication: call again allowing interactive authorization",
                                               req->action);
      auth_finish (req, FALSE, refusal);
      return;
    }
  {
    g_autoptr(GError) refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                                             "Not authorized: polkit refused %s to this caller", req->action);
    auth_finish (req, FALSE, refusal);
  }
}

void
rl_auth_check (GDBusMethodInvocation *invocation, RlAuthCallback callback, gpointer user_data)
{
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  gboolean known = FALSE;
  const char *action = rl_auth_action_for (method, &known);
  AuthRequest *req;
  GVariantBuilder subject;

  if (!known)
    {
      g_autoptr(GError) refusal = g_error_new (RL_BUS_ERROR, RL_BUS_ERROR_NOT_AUTHORIZED,
                                               "Not authorized: %s is not in the daemon's authorization table", method);
      callback (invocation, FALSE, refusal, user_data);
      return;
    }
  if (action == NULL)
    {
      callback (invocation, TRUE, NULL, user_data);
      return;
    }

  req = g_new0 (AuthRequest, 1);
  req->invocation = g_object_ref (invocation);
  req->callback = callback;
  req->user_data = user_data;
  req->action = g_strdup (action);
  req->interactive = (g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;

  g_variant_builder_init (&subject, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&subject, "{sv}", "name",
                         g_variant_new_string (g_dbus_method_invocation_get_sender (invocation)));
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (invocation),
                          POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE, "CheckAuthorization",
                          g_variant_new ("((sa{sv})sa{ss}us)", "system-bus-name", &subject, action,
                                         NULL, req->interactive ? POLKIT_ALLOW_USER_INTERACTION : 0u, ""),
                          G_VARIANT_TYPE ("((bba{ss}))"),
                          G_DBUS_CALL_FLAGS_NONE,
                          /* A person may be typing a password. */
                          req->interactive ? G_MAXINT : -1,
                          NULL, on_check_authorization, req);
}
