/* Follows logind's PrepareForSleep on the system bus (docs/design.md §4: evidence
 * from before a suspend is dropped on resume), on the daemon's own bus
 * connection, so a new connection gets a new watch.  Without logind it
 * does nothing and says so at debug level. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef void (*RlSleepCallback) (gboolean sleeping, gpointer user_data);
typedef struct RlSleepWatch RlSleepWatch;

RlSleepWatch *rl_sleep_watch_new (GDBusConnection *connection, RlSleepCallback callback, gpointer user_data);
void rl_sleep_watch_free (RlSleepWatch *watch);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlSleepWatch, rl_sleep_watch_free)

G_END_DECLS
