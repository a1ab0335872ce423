#define G_LOG_DOMAIN "regloc-timezone"

#include "daemon/sources/timezone.h"
#include "geo/tzmap.h"
#include "dbus/rl-dbus-timedate.h"

#include <gio/gio.h>
#include <string.h>

typedef struct {
  RlSource parent;
  char *localtime_path;
  char *zoneinfo_dir;
  guint max_age_s;
  RlTzMap *map;
  GFileMonitor *monitor;
  GCancellable *cancellable;
  RlDBusTimedate1 *timedated;
  char *zone;                 /* the zone last published, NULL before */
} RlTimezoneSource;

/* Debian keeps the zone name in /etc/timezone next to a copied TZif file. */
static char *
zone_from_sibling_file (const char *localtime_path)
{
  g_autofree char *dir = g_path_get_dirname (localtime_path);
  g_autofree char *path = g_build_filename (dir, "timezone", NULL);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  g_strstrip (text);
  if (text[0] == '\0' || strchr (text, '\n') != NULL || strstr (text, "..") != NULL || text[0] == '/')
    return NULL;
  return g_steal_pointer (&text);
}

char *
rl_timezone_read_zone (const RlTzMap *map, const char *localtime_path, GError **error)
{
  g_autoptr(GError) local = NULL;
  char *zone = rl_tzmap_zone_from_localtime (map, localtime_path, &local);

  if (zone != NULL)
    return zone;
  /* A TZif copy the tables do not match byte for byte (another tzdata
   * release): Debian's /etc/timezone still names it. */
  if (g_file_test (localtime_path, G_FILE_TEST_IS_REGULAR) &&
      (zone = zone_from_sibling_file (localtime_path)) != NULL)
    return zone;
  g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
}

static void
timezone_publish_zone (RlTimezoneSource *self, const char *zone, const char *via)
{
  gint64 now = g_get_real_time ();
  g_autofree char *canonical = NULL;
  RlCountry countries[RL_MAX_CANDIDATES];
  RlEvidence ev;
  char list[128];

  if (self->zone != NULL && g_strcmp0 (self->zone, zone) == 0)
    return;
  g_free (self->zone);
  self->zone = g_strdup (zone);
  g_info ("Timezone is %s (from %s)", zone, via);

  if (rl_tzmap_lookup (self->map, zone, countries, &canonical) == 0 ||
      !rl_tzmap_evidence (self->map, zone, now, rl_expiry_after (now, self->max_age_s), &ev))
    {
      rl_source_withdraw (&self->parent, "timezone");
      if (rl_tzmap_knows (self->map, zone))
        rl_source_set_status (&self->parent, TRUE, "%s names no country", zone);
      else
        rl_source_set_status (&self->parent, TRUE, "%s is no zone of the installed tzdata (package tzdata): "
                              "no country from it", zone);
      return;
    }
  rl_source_put (&self->parent, &ev);
  rl_source_set_status (&self->parent, TRUE, "%s → %s", canonical ? canonical : zone,
                        rl_evidence_countries_to_string (&ev, list, sizeof list));
}

static void
timezone_reread (RlTimezoneSource *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *zone = rl_timezone_read_zone (self->map, self->localtime_path, &error);

  if (zone == NULL)
    {
      /* No zone is no evidence; the monitor stays on for the fix. */
      g_clear_pointer (&self->zone, g_free);
      rl_source_withdraw (&self->parent, "timezone");
      rl_source_set_status (&self->parent, FALSE, "%s", error->message);
      return;
    }
  timezone_publish_zone (self, zone, self->localtime_path);
}

static void
on_localtime_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event, gpointer user_data)
{
  if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED || event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT)
    return;
  timezone_reread (user_data);
}

static void
on_timedated_timezone (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  RlTimezoneSource *self = user_data;
  const char *zone = rl_dbus_timedate1_get_timezone (self->timedated);

  /* timedated rewrites the link too; its signal only gets here first. */
  if (zone != NULL && zone[0] != '\0')
    timezone_publish_zone (self, zone, "timedated");
}

static void
timezone_drop_timedated (RlTimezoneSource *self)
{
  if (self->timedated == NULL)
    return;
  g_signal_handlers_disconnect_by_data (g_dbus_proxy_get_connection (G_DBUS_PROXY (self->timedated)), self);
  g_signal_handlers_disconnect_by_data (self->timedated, self);
  g_clear_object (&self->timedated);
}

static void
on_timedated_bus_closed (GDBusConnection *connection, gboolean vanished, GError *error, gpointer user_data)
{
  g_message ("Lost the bus: following the timezone through %s only",
             ((RlTimezoneSource *) user_data)->localtime_path);
  timezone_drop_timedated (user_data);
}

static void
on_timedated_proxy (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  RlDBusTimedate1 *proxy = rl_dbus_timedate1_proxy_new_for_bus_finish (result, &error);
  RlTimezoneSource *self;
  GDBusConnection *connection;

  if (proxy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("No timedated to follow (%s); the file monitor is enough", error->message);
      return;
    }
  self = user_data;
  self->timedated = proxy;
  g_signal_connect (proxy, "notify::timezone", G_CALLBACK (on_timedated_timezone), self);
  /* A change made while the proxy was being set up has no notify of its own. */
  on_timedated_timezone (NULL, NULL, self);
  /* GIO's shared system bus connection raises SIGTERM when the bus goes
   * away; reglocd outlives a bus restart, and so must this proxy's
   * connection.  Once closed, the proxy is dropped so the dead connection
   * is not kept: the localtime file monitor follows the zone from then on. */
  connection = g_dbus_proxy_get_connection (G_DBUS_PROXY (proxy));
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  g_signal_connect (connection, "closed", G_CALLBACK (on_timedated_bus_closed), self);
}

static RlSource *
timezone_create (const RlConfig *config, const RlSourceSink *sink)
{
  RlTimezoneSource *self;

  if (!config->timezone_enabled)
    return NULL;
  self = g_new0 (RlTimezoneSource, 1);
  rl_source_init (&self->parent, &rl_timezone_source_ops, sink);
  self->localtime_path = g_strdup (config->localtime_path ? config->localtime_path : "/etc/localtime");
  self->zoneinfo_dir = g_strdup (config->zoneinfo_dir);
  self->max_age_s = config->policy.max_age_s[RL_SOURCE_TIMEZONE];
  return &self->parent;
}

static void
timezone_start (RlSource *source)
{
  RlTimezoneSource *self = (RlTimezoneSource *) source;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (self->localtime_path);

  self->map = rl_tzmap_new (self->zoneinfo_dir, &error);
  if (self->map == NULL)
    {
      rl_source_set_status (source, FALSE, "no tzdata tables: %s", error->message);
      return;
    }
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->monitor == NULL)
    g_warning ("Cannot follow %s: %s", self->localtime_path, error->message);
  else
    g_signal_connect (self->monitor, "changed", G_CALLBACK (on_localtime_changed), self);

  /* Never starts timedated: it is bus-activated and exits when idle, and
   * the proxy picks it up whenever it does run. */
  self->cancellable = g_cancellable_new ();
  rl_dbus_timedate1_proxy_new_for_bus (G_BUS_TYPE_SYSTEM,
                                       G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                       "org.freedesktop.timedate1", "/org/freedesktop/timedate1",
                                       self->cancellable, on_timedated_proxy, self);
  timezone_reread (self);
}

static void
timezone_stop (RlSource *source)
{
  RlTimezoneSource *self = (RlTimezoneSource *) source;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  timezone_drop_timedated (self);
}

static void
timezone_free (RlSource *source)
{
  RlTimezoneSource *self = (RlTimezoneSource *) source;

  timezone_stop (source);
  g_clear_pointer (&self->map, rl_tzmap_free);
  g_free (self->localtime_path);
  g_free (self->zoneinfo_dir);
  g_free (self->zone);
  g_free (self);
}

const RlSourceOps rl_timezone_source_ops = {
  .name = "timezone",
  .kind = RL_SOURCE_TIMEZONE,
  .create = timezone_create,
  .start = timezone_start,
  .stop = timezone_stop,
  .free = timezone_free,
};
