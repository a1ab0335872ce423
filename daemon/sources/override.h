/* The administrator's override: [override] country= in regloc.conf, or the
 * one set over D-Bus (SetOverride) and persisted by the daemon in the state
 * directory.  The D-Bus one wins while set: it is the later, explicit act. */
#pragma once

#include "daemon/sources/source.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_override_source_ops;

/* The daemon calls this after persisting a SetOverride/ClearOverride;
 * RL_COUNTRY_NONE clears the D-Bus override. */
void rl_override_source_set_dbus (RlSource *source, RlCountry country);
/* The override in force (RL_COUNTRY_NONE: none); *@from_config tells where it came from. */
RlCountry rl_override_source_current (RlSource *source, gboolean *from_config);

G_END_DECLS
