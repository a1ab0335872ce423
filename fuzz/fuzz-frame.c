/* libFuzzer target: one captured 802.11 frame.  The first byte picks the
 * link type (plain 802.11, radiotap, PPI); the rest is the frame, in a
 * buffer of exactly its size, so a read past the captured bytes is caught
 * (inside libpcap's buffer, the pcap target could not see it). */
#include "fuzz/fuzz-common.h"
#include "readers/country-ie.h"
#include "readers/pcap-scans.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  static const int types[] = { RL_LINKTYPE_IEEE802_11, RL_LINKTYPE_IEEE802_11_RADIOTAP, RL_LINKTYPE_PPI };
  RlHeardFrame f;
  RlCountryIe ie;

  if (size < 1)
    return 0;
  g_autofree guint8 *frame = g_memdup2 (data + 1, size - 1);
  /* bit 7 of the first byte: a frame the capture cut short (its FCS
   * unchecked, so the fuzzer reaches the elements behind a radio header
   * that says an FCS follows) */
  gsize wire = (data[0] & 0x80) ? size - 1 + (data[0] & 0x07) : size - 1;
  RlFrameResult r = rl_frame_parse (types[(data[0] & 0x7f) % G_N_ELEMENTS (types)], frame, size - 1, wire, &f);
  g_assert ((guint) r < RL_FRAME_N_RESULTS);
  if (r == RL_FRAME_OK)
    {
      g_assert (f.ies >= frame && f.ies + f.ies_len <= frame + size - 1);
      rl_country_ie_find (f.ies, f.ies_len, &ie);
    }
  return 0;
}
