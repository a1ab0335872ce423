/* libFuzzer target: packet captures (pcap, pcapng) through the loader
 * `regloc replay --scans` uses: libpcap reads the file, regloc parses the
 * radiotap / PPI / 802.11 headers and the Country elements. */
#include "fuzz/fuzz-common.h"
#include "replay/replay-scans.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlReplay) replay = rl_fuzz_replay_new ();

  if (rl_replay_load_scan_file (replay, rl_fuzz_as_file (data, size), rl_fuzz_config (), &error))
    rl_fuzz_replay_run (replay, FALSE);
  else
    g_assert (error != NULL);
  return 0;
}
