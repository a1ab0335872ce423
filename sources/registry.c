/* Every live evidence source, in the order the daemon starts them.
 * Adding a source = one new file + one line here. */
#include "source.h"
#include "timezone.h"
#include "override.h"
#include "beacons.h"
#include "gps-source.h"

const RlSourceOps *const rl_source_registry[] = {
  &rl_timezone_source_ops,
  &rl_override_source_ops,
  &rl_beacons_source_ops,
  &rl_gps_source_ops,
  NULL
};
