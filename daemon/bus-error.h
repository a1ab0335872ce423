/* The named D-Bus errors of net.regloc.RegLoc1 (registered once, from one table). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RL_BUS_ERROR (rl_bus_error_quark ())
GQuark rl_bus_error_quark (void);

typedef enum {
  RL_BUS_ERROR_INVALID_COUNTRY,     /* net.regloc.RegLoc1.Error.InvalidCountry */
  RL_BUS_ERROR_UNKNOWN_COUNTRY,     /* net.regloc.RegLoc1.Error.UnknownCountry */
  RL_BUS_ERROR_NOT_AUTHORIZED,      /* net.regloc.RegLoc1.Error.NotAuthorized */
  RL_BUS_ERROR_FAILED,              /* net.regloc.RegLoc1.Error.Failed */
  RL_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED, /* org.freedesktop.DBus.Error.InteractiveAuthorizationRequired */
} RlBusError;

G_END_DECLS
