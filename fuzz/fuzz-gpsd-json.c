/* libFuzzer target: gpsd JSON lines (gpspipe -w). */
#include <math.h>
#include "sources/gpsd-json.h"

int LLVMFuzzerTestOneInput (const guint8 *data, gsize size);

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  g_autofree char *copy = g_memdup2 (data, size ? size : 1);
  RlGpsParseStats stats;

  rl_gpsd_json_parse (copy, size, fixes, &stats);
  g_assert (stats.fixes == fixes->len);
  for (guint i = 0; i < fixes->len; i++)
    {
      const RlGpsFix *f = &g_array_index (fixes, RlGpsFix, i);
      g_assert (fabs (f->lat) <= 90 && fabs (f->lon) <= 180);
      g_assert (i == 0 || f->time > g_array_index (fixes, RlGpsFix, i - 1).time);
    }
  return 0;
}
