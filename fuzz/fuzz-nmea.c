/* libFuzzer target: NMEA 0183 logs. */
#include "fuzz/fuzz-common.h"
#include "readers/nmea.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;

  rl_nmea_parse ((const char *) data, size, fixes, &stats);
  /* without a date, times are times of day: not ordered across midnight */
  rl_fuzz_check_fixes (fixes, &stats, FALSE);
  return 0;
}
