/* libFuzzer target for every Wi-Fi parser of outside input: Country
 * elements, nl80211 scan and regulatory messages, scan log lines and
 * captured 802.11 frames.  The first byte picks the parser. */
#include <stdint.h>
#include <string.h>
#include <glib.h>
#include "sources/applier.h"
#include "sources/country-ie.h"
#include "sources/nl80211-scan.h"
#include "sources/pcap-scans.h"
#include "sources/scanlog.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  guint8 which = data[0];
  data++;
  size--;
  /* netlink attribute streams are 4-byte aligned in real buffers */
  guint32 *aligned = g_malloc (size + 4);
  memcpy (aligned, data, size);
  const guint8 *a = (const guint8 *) aligned;

  switch (which % 5)
    {
    case 0:
      {
        RlCountryIe ie;
        char ssid[33];
        rl_country_ie_find (a, size, &ie);
        rl_ies_ssid (a, size, ssid);
      }
      break;
    case 1:
      {
        RlScanBss bss;
        RlEvidence ev;
        if (rl_nl80211_parse_bss (a, size, &bss, NULL))
          rl_beacon_evidence_build (&ev, bss.bssid, bss.signal_mbm, bss.freq_mhz, bss.ies, bss.ies_len,
                                    bss.beacon_ies, bss.beacon_ies_len, 0, 60);
      }
      break;
    case 2:
      {
        RlRegMessage m;
        rl_applier_parse_reg_message (a, size, &m);
      }
      break;
    case 3:
      {
        RlScanLogEntry e;
        if (rl_scanlog_parse ((const char *) a, (gssize) size, &e, NULL))
          rl_scanlog_entry_clear (&e);
      }
      break;
    default:
      {
        RlHeardFrame f;
        static const int types[] = { RL_LINKTYPE_IEEE802_11, RL_LINKTYPE_IEEE802_11_RADIOTAP, RL_LINKTYPE_PPI };
        if (rl_frame_parse (types[(which / 5) % 3], a, size, &f) == RL_FRAME_OK)
          {
            RlCountryIe ie;
            rl_country_ie_find (f.ies, f.ies_len, &ie);
          }
      }
      break;
    }
  g_free (aligned);
  return 0;
}
