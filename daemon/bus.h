/* The daemon on the bus: net.regloc.RegLoc1.Manager exported from the
 * generated skeleton, properties kept in step with the daemon, method
 * calls authorized through auth.c.  The only place (with dbus/ and
 * auth.c) that touches GVariant. */
#pragma once

#include <gio/gio.h>
#include "daemon/daemon.h"

G_BEGIN_DECLS

#define RL_BUS_NAME "net.regloc.RegLoc1"
#define RL_BUS_PATH "/net/regloc/RegLoc1/Manager"

typedef struct RlBus RlBus;

/* Exports the object on @connection (the name is owned by the caller). */
RlBus *rl_bus_new (RlDaemon *daemon, GDBusConnection *connection, GError **error);
void rl_bus_free (RlBus *bus);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlBus, rl_bus_free)

/* Call from the daemon's listener: updates properties, emits CountryChanged. */
void rl_bus_update (RlBus *bus, RlDaemonChanges changes, RlCountry old_country);

G_END_DECLS
