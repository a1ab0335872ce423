#define G_LOG_DOMAIN "reglocd"

#include "daemon/sleep-watch.h"
#include "dbus/rl-dbus-login1.h"

struct RlSleepWatch {
  RlSleepCallback callback;
  gpointer user_data;
  GCancellable *cancellable;
  RlDBusLogin1Manager *proxy;
};

static void
on_prepare_for_sleep (RlDBusLogin1Manager *proxy, gboolean start, gpointer user_data)
{
  RlSleepWatch *self = user_data;

  g_debug ("logind: PrepareForSleep(%s)", start ? "true" : "false");
  self->callback (start, self->user_data);
}

static void
on_proxy (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  RlDBusLogin1Manager *proxy = rl_dbus_login1_manager_proxy_new_finish (result, &error);
  RlSleepWatch *self;

  if (proxy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Not following suspend (no logind: %s)", error->message);
      return;
    }
  self = user_data;
  self->proxy = proxy;
  g_signal_connect (proxy, "prepare-for-sleep", G_CALLBACK (on_prepare_for_sleep), self);
}

RlSleepWatch *
rl_sleep_watch_new (GDBusConnection *connection, RlSleepCallback callback, gpointer user_data)
{
  RlSleepWatch *self = g_new0 (RlSleepWatch, 1);

  self->callback = callback;
  self->user_data = user_data;
  self->cancellable = g_cancellable_new ();
  /* A signal subscription only: logind's many properties are not loaded. */
  rl_dbus_login1_manager_proxy_new (connection,
                                    G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                                    G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                    "org.freedesktop.login1", "/org/freedesktop/login1",
                                    self->cancellable, on_proxy, self);
  return self;
}

void
rl_sleep_watch_free (RlSleepWatch *self)
{
  if (self == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->proxy != NULL)
    g_signal_handlers_disconnect_by_data (self->proxy, self);
  g_clear_object (&self->proxy);
  g_free (self);
}
