/* libFuzzer target: NMEA 0183 logs. */
#include <math.h>
#include "sources/nmea.h"

int LLVMFuzzerTestOneInput (const guint8 *data, gsize size);

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  /* an exact-size copy so any read past the end is caught */
  g_autofree char *copy = g_memdup2 (data, size ? size : 1);
  RlGpsParseStats stats;

  rl_nmea_parse (copy, size, fixes, &stats);
  g_assert (stats.fixes == fixes->len);
  for (guint i = 0; i < fixes->len; i++)
    {
      const RlGpsFix *f = &g_array_index (fixes, RlGpsFix, i);
      g_assert (fabs (f->lat) <= 90 && fabs (f->lon) <= 180 && f->mode >= 2);
    }
  return 0;
}
