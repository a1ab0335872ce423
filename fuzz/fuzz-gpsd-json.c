/* libFuzzer target: gpsd JSON lines (gpspipe -w). */
#include "fuzz/fuzz-common.h"
#include "readers/gpsd-json.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;

  rl_gpsd_json_parse ((const char *) data, size, fixes, &stats);
  rl_fuzz_check_fixes (fixes, &stats, TRUE);
  return 0;
}
