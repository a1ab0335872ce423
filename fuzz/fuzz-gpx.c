/* libFuzzer target: GPX documents. */
#include "fuzz/fuzz-common.h"
#include "readers/gpx.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  g_autoptr (GError) error = NULL;
  RlGpsParseStats stats;
  gboolean ok = rl_gpx_parse ((const char *) data, size, fixes, &stats, &error);

  g_assert (ok == (error == NULL));
  g_assert (ok || fixes->len == 0);
  if (ok)
    rl_fuzz_check_fixes (fixes, &stats, FALSE);
  return 0;
}
