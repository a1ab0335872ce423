/* libFuzzer target: GPX documents. */
#include <math.h>
#include "sources/gpx.h"

int LLVMFuzzerTestOneInput (const guint8 *data, gsize size);

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  g_autoptr (GError) error = NULL;
  g_autofree char *copy = g_memdup2 (data, size ? size : 1);
  RlGpsParseStats stats;
  gboolean ok = rl_gpx_parse (copy, size, fixes, &stats, &error);

  g_assert (ok == (error == NULL));
  g_assert (ok || fixes->len == 0);
  for (guint i = 0; i < fixes->len; i++)
    g_assert (fabs (g_array_index (fixes, RlGpsFix, i).lat) <= 90);
  return 0;
}
