/* Every live evidence source, in the order the daemon starts them.
 * Adding a source = one new file + one line here. */
#include "daemon/sources/source.h"
#include "daemon/sources/timezone.h"
#include "daemon/sources/override.h"
#include "daemon/sources/beacons.h"
#include "daemon/sources/gps-source.h"
#include "daemon/sources/modem.h"

const RlSourceOps *const rl_source_registry[] = {
  &rl_timezone_source_ops,
  &rl_override_source_ops,
  &rl_beacons_source_ops,
  &rl_gps_source_ops,
  &rl_modem_source_ops,
  NULL
};
