/* libFuzzer target: one NL80211_CMD_NEW_SCAN_RESULTS message's attributes
 * (the bytes after the genetlink header), as the beacon source gets them. */
#include "fuzz/fuzz-common.h"
#include "readers/nl80211-scan.h"

static gboolean
inside (const guint8 *p, gsize len, const guint8 *data, gsize size)
{
  return p == NULL ? len == 0 : p >= data && p + len <= data + size;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  RlScanBss bss;
  RlEvidence ev;
  /* libFuzzer's buffer is heap memory: 4-byte aligned, as netlink buffers are */
  gboolean ok = rl_nl80211_parse_bss (data, size, &bss, &error);

  g_assert (ok == (error == NULL));
  if (!ok)
    {
      g_assert (error->domain == RL_NL80211_ERROR);
      return 0;
    }
  g_assert (inside (bss.ies, bss.ies_len, data, size));
  g_assert (inside (bss.beacon_ies, bss.beacon_ies_len, data, size));
  rl_beacon_evidence_build (&ev, bss.bssid, bss.has_signal ? bss.signal_mbm : 0, bss.freq_mhz, bss.ies, bss.ies_len,
                            bss.beacon_ies, bss.beacon_ies_len, 0, 60);
  return 0;
}
