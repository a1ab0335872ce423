/* Beacons and probe responses from packet captures (pcap and pcapng,
 * through libpcap): 802.11 frames with radiotap, PPI or no radio header. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Link types, as in pcap-linktype(7). */
#define RL_LINKTYPE_IEEE802_11 105
#define RL_LINKTYPE_IEEE802_11_RADIOTAP 127
#define RL_LINKTYPE_PPI 192

/* Verdicts on one frame; the names are replay skip counters. */
typedef enum {
  RL_FRAME_OK,
  RL_FRAME_TRUNCATED,          /* "truncated": captured bytes end inside a header */
  RL_FRAME_NOT_MANAGEMENT,     /* "not_management": data or control frame */
  RL_FRAME_NOT_BEACON,         /* "not_beacon": management, but not a beacon or probe response */
  RL_FRAME_BAD_FCS,            /* "bad_fcs": the radio says the checksum failed */
  RL_FRAME_BAD_RADIO_HEADER,   /* "bad_radio_header": radiotap/PPI header makes no sense */
  RL_FRAME_BAD_TIME,           /* "bad_time": a timestamp before 1970 or after 9999 */
  RL_FRAME_N_RESULTS
} RlFrameResult;

const char *rl_frame_result_to_string (RlFrameResult result);

typedef struct {
  guint8 bssid[6];
  gboolean probe_response;
  guint32 freq_mhz;           /* 0 unknown */
  gboolean has_signal;
  gint32 signal_mbm;
  const guint8 *ies;          /* points into the frame */
  gsize ies_len;
  gboolean fcs_unchecked;     /* it carries an FCS the capture cut off: not checked */
  gboolean cut;               /* the capture's snapshot length cut it: its elements may go on */
} RlHeardFrame;

/* Pure: one captured frame of @linktype; @caplen bytes are present of the
 * @wirelen it had (less when the capture's snapshot length cut it).  A
 * frame that carries its FCS is checked against it when held whole:
 * RL_FRAME_BAD_FCS when it fails. */
RlFrameResult rl_frame_parse (int linktype, const guint8 *data, gsize caplen, gsize wirelen, RlHeardFrame *out);

typedef void (*RlPcapFrameFunc) (gint64 time, const RlHeardFrame *frame, gpointer user_data);
typedef void (*RlPcapSkipFunc) (RlFrameResult why, gpointer user_data);

/* Reads every frame of @path.  Fails for files libpcap cannot open and for
 * link types without 802.11 frames. */
gboolean rl_pcap_read (const char *path, RlPcapFrameFunc on_frame, RlPcapSkipFunc on_skip,
                       gpointer user_data, GError **error);

/* The same as a pull iterator: frames one at a time, in file order. */
typedef struct RlPcapReader RlPcapReader;
RlPcapReader *rl_pcap_reader_open (const char *path, GError **error);
typedef enum {
  RL_PCAP_FRAME,     /* @time and @frame are set (the frame points into the reader until the next call) */
  RL_PCAP_SKIPPED,   /* @why says why the record is no beacon */
  RL_PCAP_END,       /* the end; @error set (G_IO_ERROR_PARTIAL_INPUT) when the file was cut short */
} RlPcapNext;
RlPcapNext rl_pcap_reader_next (RlPcapReader *reader, gint64 *time, RlHeardFrame *frame, RlFrameResult *why,
                                GError **error);
void rl_pcap_reader_free (RlPcapReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlPcapReader, rl_pcap_reader_free)

G_END_DECLS
