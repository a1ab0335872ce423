/* The timezone source: where the user set the clock (weak evidence).
 *
 * Reads the zone from the localtime file (regloc.conf [timezone]
 * localtime_path, /etc/localtime by default: the symlink target, else the
 * neighbouring "timezone" file Debian keeps, else the zoneinfo file with
 * the same bytes) and follows it with a file monitor and, where the system
 * bus has it, timedated's Timezone property.  A change is new evidence at
 * once; nothing polls. */
#pragma once

#include "daemon/sources/source.h"
#include "geo/tzmap.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_timezone_source_ops;

/* The zone name of @localtime_path by the three ways above; NULL and
 * @error when none works.  Exposed for tests. */
char *rl_timezone_read_zone (const RlTzMap *map, const char *localtime_path, GError **error);

G_END_DECLS
