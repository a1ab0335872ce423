#include "readers/pcap-scans.h"

#include <string.h>
#include <gio/gio.h>
#include <pcap/pcap.h>
#include <zlib.h>
#include "core/enum-names.h"
#include "readers/lazy-lib.h"

/* libpcap is opened on the first capture (readers/lazy-lib.h): these are
 * all of it the reader uses. */
#define LIBPCAP_FUNCTIONS(F) \
  F (pcap_open_offline_with_tstamp_precision) \
  F (pcap_datalink) \
  F (pcap_datalink_val_to_name) \
  F (pcap_next_ex) \
  F (pcap_geterr) \
  F (pcap_close)

static struct { LIBPCAP_FUNCTIONS (RL_LAZY_FIELD) } lp;
#define PCAP_SYMBOL(fn) RL_LAZY_SYMBOL (fn, lp.fn),
static const RlLazySymbol pcap_symbols[] = { LIBPCAP_FUNCTIONS (PCAP_SYMBOL) };
static RlLazyLib libpcap = RL_LAZY_LIB_INIT ("libpcap", RL_LIBPCAP_SONAME, pcap_symbols, NULL);

static const char *const frame_result_names[RL_FRAME_N_RESULTS] = {
  [RL_FRAME_OK] = "ok",
  [RL_FRAME_TRUNCATED] = "truncated",
  [RL_FRAME_NOT_MANAGEMENT] = "not_management",
  [RL_FRAME_NOT_BEACON] = "not_beacon",
  [RL_FRAME_BAD_FCS] = "bad_fcs",
  [RL_FRAME_BAD_RADIO_HEADER] = "bad_radio_header",
  [RL_FRAME_BAD_TIME] = "bad_time",
};

/* 9999-12-31T23:59:59Z: the last second a scan log's ISO 8601 time can
 * name; past it, µs since the epoch would overflow soon after. */
#define RL_PCAP_MAX_SECONDS G_GINT64_CONSTANT (253402300799)

const char *
rl_frame_result_to_string (RlFrameResult result)
{
  return RL_ENUM_NAME (frame_result_names, result, "unknown");
}

static guint16
le16 (const guint8 *p)
{
  return (guint16) (p[0] | p[1] << 8);
}

static guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

#define FC_TYPE_MGMT 0
#define FC_SUBTYPE_PROBE_RESP 5
#define FC_SUBTYPE_BEACON 8
/* header 24 bytes, then timestamp 8, beacon interval 2, capability 2 */
#define MGMT_HDR_LEN 24
#define BEACON_FIXED_LEN 12

/* @len bytes of the frame are present, of @wire_len (≥ @len) it had on
 * the air.  With its FCS (radiotap and PPI say so) a frame held whole is
 * checked: a beacon whose bits flipped on the way in may name another
 * country, and not every driver marks the frames that failed.  A frame
 * the capture cut short (its snapshot length) cannot be checked: it is
 * marked so (the radio header's "failed" flag still counts), and its FCS
 * is not read as elements. */
static RlFrameResult
parse_80211 (const guint8 *f, gsize len, gsize wire_len, gboolean has_fcs, RlHeardFrame *out)
{
  out->cut = len < wire_len;
  if (has_fcs)
    {
      if (wire_len < 4)
        return RL_FRAME_TRUNCATED;
      if (len == wire_len)
        {
          len -= 4;
          if (crc32 (0, f, (uInt) len) != le32 (f + len))
            return RL_FRAME_BAD_FCS;
        }
      else
        {
          len = MIN (len, wire_len - 4);
          out->fcs_unchecked = TRUE;
        }
    }
  if (len < 2)
    return RL_FRAME_TRUNCATED;
  guint type = (f[0] >> 2) & 3;
  guint subtype = (f[0] >> 4) & 15;
  if (type != FC_TYPE_MGMT)
    return RL_FRAME_NOT_MANAGEMENT;
  if (subtype != FC_SUBTYPE_BEACON && subtype != FC_SUBTYPE_PROBE_RESP)
    return RL_FRAME_NOT_BEACON;
  /* +HTC: the Order bit adds a 4-byte HT Control field to management frames */
  gsize hdr = MGMT_HDR_LEN + ((f[1] & 0x80) ? 4 : 0);
  if (len < hdr + BEACON_FIXED_LEN)
    return RL_FRAME_TRUNCATED;
  memcpy (out->bssid, f + 16, 6);   /* address 3 */
  out->probe_response = subtype == FC_SUBTYPE_PROBE_RESP;
  out->ies = f + hdr + BEACON_FIXED_LEN;
  out->ies_len = len - hdr - BEACON_FIXED_LEN;
  return RL_FRAME_OK;
}

/* radiotap fields 0..5 of the first presence word: alignment, size */
static const guint8 radiotap_align[6] = { 8, 1, 1, 2, 1, 1 };
static const guint8 radiotap_size[6] = { 8, 1, 1, 4, 2, 1 };

/* Radiotap and PPI headers both start with version 0, a pad byte and a
 * little-endian length that must cover the 8 fixed bytes and fit the frame. */
static RlFrameResult
check_radio_header (const guint8 *d, gsize caplen, gsize *hlen)
{
  if (caplen < 8)
    return RL_FRAME_TRUNCATED;
  *hlen = le16 (d + 2);
  if (d[0] != 0 || *hlen < 8)
    return RL_FRAME_BAD_RADIO_HEADER;
  if (*hlen > caplen)
    return RL_FRAME_TRUNCATED;
  return RL_FRAME_OK;
}

static RlFrameResult
parse_radiotap (const guint8 *d, gsize caplen, gsize wirelen, RlHeardFrame *out)
{
  gsize hlen;
  RlFrameResult r = check_radio_header (d, caplen, &hlen);
  if (r != RL_FRAME_OK)
    return r;
  guint32 present = le32 (d + 4);
  gsize pos = 8;
  /* extended presence words follow while bit 31 is set */
  for (guint32 p = present; p & 0x80000000u; p = le32 (d + pos - 4))
    {
      pos += 4;
      if (pos > hlen)
        return RL_FRAME_BAD_RADIO_HEADER;
    }
  gboolean fcs = FALSE;
  for (guint field = 0; field < 6; field++)
    {
      if (!(present & (1u << field)))
        continue;
      pos = (pos + radiotap_align[field] - 1) & ~((gsize) radiotap_align[field] - 1);
      if (pos + radiotap_size[field] > hlen)
        return RL_FRAME_BAD_RADIO_HEADER;
      const guint8 *v = d + pos;
      switch (field)
        {
        case 1: /* flags */
          if (v[0] & 0x40)
            return RL_FRAME_BAD_FCS;
          fcs = (v[0] & 0x10) != 0;
          break;
        case 3:
          out->freq_mhz = le16 (v);
          break;
        case 5:
          out->has_signal = TRUE;
          out->signal_mbm = (gint8) v[0] * 100;
          break;
        default:
          break;
        }
      pos += radiotap_size[field];
    }
  return parse_80211 (d + hlen, caplen - hlen, wirelen - hlen, fcs, out);
}

#define PPI_FIELD_80211_COMMON 2

static RlFrameResult
parse_ppi (const guint8 *d, gsize caplen, gsize wirelen, RlHeardFrame *out)
{
  gsize hlen;
  RlFrameResult r = check_radio_header (d, caplen, &hlen);
  if (r != RL_FRAME_OK)
    return r;
  if (le32 (d + 4) != RL_LINKTYPE_IEEE802_11)
    return RL_FRAME_NOT_MANAGEMENT;
  gboolean fcs = FALSE;
  for (gsize pos = 8; pos + 4 <= hlen;)
    {
      guint16 type = le16 (d + pos);
      gsize flen = le16 (d + pos + 2);
      if (pos + 4 + flen > hlen)
        return RL_FRAME_BAD_RADIO_HEADER;
      const guint8 *v = d + pos + 4;
      if (type == PPI_FIELD_80211_COMMON && flen >= 20)
        {
          guint16 flags = le16 (v + 8);
          if (flags & 0x0004)
            return RL_FRAME_BAD_FCS;
          fcs = (flags & 0x0001) != 0;
          out->freq_mhz = le16 (v + 12);
          /* 0 means "not present" here; real dBm values are negative */
          if (v[18] != 0)
            {
              out->has_signal = TRUE;
              out->signal_mbm = (gint8) v[18] * 100;
            }
        }
      pos += 4 + flen;
    }
  return parse_80211 (d + hlen, caplen - hlen, wirelen - hlen, fcs, out);
}

RlFrameResult
rl_frame_parse (int linktype, const guint8 *data, gsize caplen, gsize wirelen, RlHeardFrame *out)
{
  memset (out, 0, sizeof *out);
  /* a file may claim fewer bytes on the air than it holds */
  wirelen = MAX (wirelen, caplen);
  switch (linktype)
    {
    case RL_LINKTYPE_IEEE802_11:
      return parse_80211 (data, caplen, wirelen, FALSE, out);
    case RL_LINKTYPE_IEEE802_11_RADIOTAP:
      return parse_radiotap (data, caplen, wirelen, out);
    case RL_LINKTYPE_PPI:
      return parse_ppi (data, caplen, wirelen, out);
    default:
      return RL_FRAME_NOT_MANAGEMENT;
    }
}

/* libpcap reads a pcapng file only while all its interfaces share one link
 * type, and stops with an error at the first that does not (dumpcap -i
 * wlan0mon -i eth0 writes such a file).  Walked block by block up front, so
 * that such a file is refused whole, with its two link types named, instead
 * of replayed up to that interface.  TRUE when one differs from the first
 * (@first, @other); a file that breaks off is left to libpcap to report. */
static gboolean
pcapng_mixed_link_types (const char *path, int *first, int *other)
{
  FILE *f = fopen (path, "rb");
  gboolean big_endian = FALSE, mixed = FALSE;
  guint8 h[12];
  int n_idb = 0, n_blocks = 0;

  if (f == NULL)
    return FALSE;
  while (!mixed && fread (h, 1, sizeof h, f) == sizeof h)
    {
      guint32 type = le32 (h), len;

      if (type == 0x0a0d0d0a)   /* a section header: its byte-order magic says how the section reads */
        big_endian = le32 (h + 8) == 0x4d3c2b1a;
      else if (n_blocks == 0)
        break;                  /* a classic pcap file */
      n_blocks++;
      len = big_endian ? (guint32) h[4] << 24 | (guint32) h[5] << 16 | (guint32) h[6] << 8 | h[7] : le32 (h + 4);
      if (type != 0x0a0d0d0a && big_endian)
        type = GUINT32_SWAP_LE_BE (type);
      if (len < 12 || len % 4 != 0)
        break;
      if (type == 1)   /* an interface description: link type in its first two bytes */
        {
          int lt = big_endian ? (int) (h[8] << 8 | h[9]) : (int) le16 (h + 8);
          if (n_idb++ == 0)
            *first = lt;
          else if (lt != *first)
            {
              *other = lt;
              mixed = TRUE;
            }
        }
      if (fseek (f, (long) len - (long) sizeof h, SEEK_CUR) != 0)
        break;
    }
  fclose (f);
  return mixed;
}

struct RlPcapReader {
  pcap_t *p;
  int linktype;
  char *path;
};

static const char *
link_type_name (int lt)
{
  const char *name = lp.pcap_datalink_val_to_name (lt);
  return name != NULL ? name : "?";
}

RlPcapReader *
rl_pcap_reader_open (const char *path, GError **error)
{
  char errbuf[PCAP_ERRBUF_SIZE] = "";
  pcap_t *p;
  GError *local = NULL;
  RlPcapReader *r;
  int lt, other = 0;

  if (!rl_lazy_lib_load (&libpcap, &local))
    {
      g_propagate_prefixed_error (error, local, "%s: ", path);
      return NULL;
    }
  p = lp.pcap_open_offline_with_tstamp_precision (path, PCAP_TSTAMP_PRECISION_MICRO, errbuf);
  if (p == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, errbuf);
      return NULL;
    }
  lt = lp.pcap_datalink (p);
  if (lt != RL_LINKTYPE_IEEE802_11 && lt != RL_LINKTYPE_IEEE802_11_RADIOTAP && lt != RL_LINKTYPE_PPI)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: link type %s has no 802.11 frames (capture in monitor mode: radiotap, PPI or plain 802.11)",
                   path, link_type_name (lt));
      lp.pcap_close (p);
      return NULL;
    }
  if (pcapng_mixed_link_types (path, &lt, &other))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: the capture mixes interfaces of link types %s and %s; only a capture of one link type "
                   "can be read (capture on the monitor interface alone: dumpcap -i wlan0mon -w FILE)",
                   path, link_type_name (lt), link_type_name (other));
      lp.pcap_close (p);
      return NULL;
    }
  r = g_new0 (RlPcapReader, 1);
  r->p = p;
  r->linktype = lt;
  r->path = g_strdup (path);
  return r;
}

RlPcapNext
rl_pcap_reader_next (RlPcapReader *r, gint64 *time, RlHeardFrame *frame, RlFrameResult *why, GError **error)
{
  struct pcap_pkthdr *hdr;
  const u_char *data;
  int rc = lp.pcap_next_ex (r->p, &hdr, &data);

  if (rc == PCAP_ERROR)
    {
      /* a capture cut short keeps what came before; say it */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, "%s: %s", r->path, lp.pcap_geterr (r->p));
      return RL_PCAP_END;
    }
  if (rc != 1)
    return RL_PCAP_END;
  *why = rl_frame_parse (r->linktype, data, hdr->caplen, hdr->len, frame);
  /* the header's time is whatever the file says */
  if (*why == RL_FRAME_OK && (hdr->ts.tv_sec < 0 || hdr->ts.tv_sec > RL_PCAP_MAX_SECONDS ||
                              hdr->ts.tv_usec < 0 || hdr->ts.tv_usec >= G_USEC_PER_SEC))
    *why = RL_FRAME_BAD_TIME;
  if (*why != RL_FRAME_OK)
    return RL_PCAP_SKIPPED;
  *time = (gint64) hdr->ts.tv_sec * G_USEC_PER_SEC + hdr->ts.tv_usec;
  return RL_PCAP_FRAME;
}

void
rl_pcap_reader_free (RlPcapReader *r)
{
  if (r == NULL)
    return;
  lp.pcap_close (r->p);
  g_free (r->path);
  g_free (r);
}

gboolean
rl_pcap_read (const char *path, RlPcapFrameFunc on_frame, RlPcapSkipFunc on_skip,
              gpointer user_data, GError **error)
{
  RlPcapReader *r = rl_pcap_reader_open (path, error);
  GError *local = NULL;
  RlHeardFrame f;
  RlFrameResult why;
  RlPcapNext n;
  gint64 t;

  if (r == NULL)
    return FALSE;
  while ((n = rl_pcap_reader_next (r, &t, &f, &why, &local)) != RL_PCAP_END)
    {
      if (n == RL_PCAP_FRAME)
        on_frame (t, &f, user_data);
      else if (on_skip != NULL)
        on_skip (why, user_data);
    }
  rl_pcap_reader_free (r);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}
