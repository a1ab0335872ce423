/* libFuzzer target: gpsd JSON lines (gpspipe -w), read as a file and fed
 * line by line as the live source does. */
#include "fuzz/fuzz-common.h"
#include "readers/gpsd-json.h"

#include <string.h>

static void
feed_live (const char *data, gsize size)
{
  g_autoptr (RlGpsdJsonReader) live = rl_gpsd_json_reader_new_live ();
  gsize pos = 0;

  while (pos < size)
    {
      const char *nl = memchr (data + pos, '\n', size - pos);
      gsize n = nl != NULL ? (gsize) (nl - (data + pos)) : size - pos;
      RlGpsFix fix;

      if (rl_gpsd_json_reader_feed_line (live, data + pos, n, &fix) == RL_GPSD_LINE_FIX)
        g_assert (fix.lat >= -90 && fix.lat <= 90 && fix.lon >= -180 && fix.lon <= 180);
      pos += n + 1;
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;

  rl_gpsd_json_parse ((const char *) data, size, fixes, &stats);
  rl_fuzz_check_fixes (fixes, &stats, TRUE);
  feed_live ((const char *) data, size);
  return 0;
}
