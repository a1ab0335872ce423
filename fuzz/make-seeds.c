/* Writes the seed inputs of the binary fuzz targets (element streams,
 * nl80211 attribute sets, 802.11 frames, captures) into OUTDIR/<target>/,
 * laid out as the unit tests and the VM suite's recordings show them.
 *
 *   make-seeds OUTDIR STAMP
 */
#include <errno.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <linux/nl80211.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <pcap/pcap.h>

static const char *outdir;

static void
put (const char *target, const char *name, const void *data, gsize len)
{
  g_autofree char *dir = g_build_filename (outdir, target, NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    g_error ("%s: %s", dir, g_strerror (errno));
  if (!g_file_set_contents (path, data, (gssize) len, &error))
    g_error ("%s", error->message);
}

static GByteArray *
unhex (const char *hex)
{
  GByteArray *a = g_byte_array_new ();

  for (gsize i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2)
    {
      guint8 b = (guint8) (g_ascii_xdigit_value (hex[i]) << 4 | g_ascii_xdigit_value (hex[i + 1]));
      g_byte_array_append (a, &b, 1);
    }
  return a;
}

/* ---- element streams -------------------------------------------------- */

/* SSID, rates, DS parameter, then a Country element with @body */
static GByteArray *
ies_with_country (const char *ssid, const guint8 *body, guint8 body_len)
{
  static const guint8 rates[] = { 0x01, 0x08, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24, 0x03, 0x01, 0x06 };
  GByteArray *a = g_byte_array_new ();
  guint8 h[2] = { 0, (guint8) strlen (ssid) };

  g_byte_array_append (a, h, 2);
  g_byte_array_append (a, (const guint8 *) ssid, h[1]);
  g_byte_array_append (a, rates, sizeof rates);
  if (body != NULL)
    {
      guint8 c[2] = { 7, body_len };
      g_byte_array_append (a, c, 2);
      g_byte_array_append (a, body, body_len);
    }
  return a;
}

static void
country_ie_seeds (void)
{
  /* 2.4 GHz 1-13 at 20 dBm and the three 5 GHz subbands, padded */
  static const guint8 de[] = { 'D', 'E', ' ', 1, 13, 20, 36, 4, 23, 52, 4, 20, 100, 11, 27, 0 };
  /* global operating classes (environment 4) */
  static const guint8 us[] = { 'U', 'S', 0x04, 0xc9, 0x51, 0x00, 0xc9, 0x73, 0x00, 0x00 };
  static const guint8 gb_indoor[] = { 'G', 'B', 'I', 1, 13, 20 };
  static const guint8 fr_outdoor[] = { 'F', 'R', 'O', 1, 13, 20, 36, 8, (guint8) -3, 0 };
  static const guint8 non_country[] = { 'X', 'X', 'X', 1, 11, 30 };
  static const guint8 odd[] = { 'C', 'H', ' ', 1, 13 };
  GByteArray *a;

  a = ies_with_country ("FRITZ!Box", de, sizeof de);
  put ("country-ie", "de-router", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("corp", us, sizeof us);
  put ("country-ie", "us-operating-classes", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("", gb_indoor, sizeof gb_indoor);
  put ("country-ie", "gb-indoor-hidden-ssid", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("Freebox", fr_outdoor, sizeof fr_outdoor);
  put ("country-ie", "fr-outdoor", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("ship", non_country, sizeof non_country);
  put ("country-ie", "non-country", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("odd", odd, sizeof odd);
  put ("country-ie", "odd-length", a->data, a->len);
  g_byte_array_unref (a);
  a = ies_with_country ("none", NULL, 0);
  put ("country-ie", "no-country", a->data, a->len);
  g_byte_array_unref (a);
  /* the element claims 16 bytes, the frame ends after 9 */
  a = ies_with_country ("cut", de, sizeof de);
  put ("country-ie", "truncated", a->data, a->len - 7);
  g_byte_array_unref (a);
}

/* ---- nl80211 messages -------------------------------------------------- */

static void
put_msg (const char *target, const char *name, struct nl_msg *msg)
{
  put (target, name, nlmsg_data (nlmsg_hdr (msg)), (gsize) nlmsg_datalen (nlmsg_hdr (msg)));
  nlmsg_free (msg);
}

static struct nl_msg *
scan_msg (int bssid_len, const GByteArray *ies, const GByteArray *beacon_ies)
{
  static const guint8 bssid[6] = { 0x3c, 0x84, 0x6a, 0x00, 0x00, 0x01 };
  struct nl_msg *msg = nlmsg_alloc ();
  struct nlattr *bss;

  nla_put_u32 (msg, NL80211_ATTR_GENERATION, 7);
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
  nla_put_u64 (msg, NL80211_ATTR_WDEV, 1);
  bss = nla_nest_start (msg, NL80211_ATTR_BSS);
  nla_put (msg, NL80211_BSS_BSSID, bssid_len, bssid);
  nla_put_u32 (msg, NL80211_BSS_FREQUENCY, 2412);
  nla_put_u64 (msg, NL80211_BSS_TSF, 123456);
  nla_put_u16 (msg, NL80211_BSS_BEACON_INTERVAL, 100);
  nla_put_u16 (msg, NL80211_BSS_CAPABILITY, 0x0401);
  if (ies != NULL)
    nla_put (msg, NL80211_BSS_INFORMATION_ELEMENTS, (int) ies->len, ies->data);
  if (beacon_ies != NULL)
    nla_put (msg, NL80211_BSS_BEACON_IES, (int) beacon_ies->len, beacon_ies->data);
  nla_put_u32 (msg, NL80211_BSS_SIGNAL_MBM, (guint32) -3000);
  nla_put_u32 (msg, NL80211_BSS_SEEN_MS_AGO, 40);
  nla_nest_end (msg, bss);
  return msg;
}

static struct nl_msg *
reg_msg (int type, const char *alpha2, int wiphy, gboolean self_managed)
{
  struct nl_msg *msg = nlmsg_alloc ();

  nla_put_u8 (msg, NL80211_ATTR_REG_INITIATOR, NL80211_REGDOM_SET_BY_USER);
  if (type >= 0)
    nla_put_u8 (msg, NL80211_ATTR_REG_TYPE, (guint8) type);
  if (alpha2 != NULL)
    nla_put_string (msg, NL80211_ATTR_REG_ALPHA2, alpha2);
  if (wiphy >= 0)
    nla_put_u32 (msg, NL80211_ATTR_WIPHY, (guint32) wiphy);
  if (self_managed)
    nla_put_flag (msg, NL80211_ATTR_WIPHY_SELF_MANAGED_REG);
  return msg;
}

/* Recorded in the VM suite (mac80211_hwsim + hostapd, kernel 6.1): a scan
 * result of an AP saying 'DE ' and the GET_REG answer for the world domain,
 * the bytes after the genetlink header (as in tests/test-nl80211.c). */
static const char rec_scan_de[] =
  "08002e000600000008000300050000000c0099000100000003000000ec002f000a0001003c846a000001000004000e00"
  "0c000300611f9a2ab8610600390006000007686f6d652d4445010882848b960c1218240301010706444520010d142a01"
  "0432043048606c3b0251007f0804004002000000400000000c000d00acd1992ab86106003f000b000007686f6d652d44"
  "45010882848b960c1218240301010504010200000706444520010d142a010432043048606c3b0251007f080400400200"
  "0000400006000400640000000600050001040000080002006c090000080014000000000008000c000000000008000a00"
  "040000000c000f0058f59ba6020000000800070048f4ffff";
static const char rec_get_reg[] =
  "0700210030300000200222003c00000008000100800000000800020038850b000800030000290e0008000400d0070000"
  "080005000000000008000600d007000008000700000000003c000100080001000000000008000200d0a6240008000300"
  "40b8250008000400409c0000080005000000000008000600d007000008000700000000003c0002000800010080080000"
  "08000200a87d25000800030050df250008000400204e0000080005000000000008000600d00700000800070000000000"
  "3c00030008000100810000000800020010c0250008000300300e260008000400204e0000080005000000000008000600"
  "d007000008000700000000003c00040008000100800800000800020050e34e0008000300d01b50000800040080380100"
  "080005000000000008000600d007000008000700000000003c000500080001009008000008000200d01b500008000300"
  "505451000800040080380100080005000000000008000600d007000008000700000000003c0006000800010090000000"
  "0800020050c5530008000300d06e57000800040000710200080005000000000008000600d00700000800070000000000"
  "3c0007000800010080000000080002005882570008000300f80859000800040080380100080005000000000008000600"
  "d007000008000700000000003c000800080001000000000008000200c069690308000300404acc030800040080f52000"
  "080005000000000008000600000000000800070000000000";

static void
nl80211_seeds (void)
{
  static const guint8 de[] = { 'D', 'E', ' ', 1, 13, 20 };
  GByteArray *ies = ies_with_country ("home-DE", de, sizeof de);
  GByteArray *rec;

  put_msg ("nl80211-scan", "bss-both-ies", scan_msg (6, ies, ies));
  put_msg ("nl80211-scan", "bss-beacon-ies-only", scan_msg (6, NULL, ies));
  put_msg ("nl80211-scan", "bss-no-ies", scan_msg (6, NULL, NULL));
  put_msg ("nl80211-scan", "bss-short-bssid", scan_msg (4, ies, NULL));
  rec = unhex (rec_scan_de);
  put ("nl80211-scan", "recorded-de", rec->data, rec->len);
  g_byte_array_unref (rec);
  g_byte_array_unref (ies);

  put_msg ("nl80211-reg", "reg-change-de", reg_msg (NL80211_REGDOM_TYPE_COUNTRY, "DE", -1, FALSE));
  put_msg ("nl80211-reg", "reg-change-world", reg_msg (NL80211_REGDOM_TYPE_WORLD, NULL, -1, FALSE));
  put_msg ("nl80211-reg", "reg-change-intersection", reg_msg (NL80211_REGDOM_TYPE_INTERSECTION, NULL, -1, FALSE));
  put_msg ("nl80211-reg", "self-managed-wiphy", reg_msg (-1, "US", 0, TRUE));
  rec = unhex (rec_get_reg);
  put ("nl80211-reg", "recorded-get-reg", rec->data, rec->len);
  g_byte_array_unref (rec);
}

/* ---- 802.11 frames and captures ------------------------------------------ */

/* A beacon (0x80) or probe response (0x50): header, fixed fields, elements. */
static GByteArray *
mgmt_frame (guint8 fc, guint8 last_byte, const char *ssid, const guint8 *country, guint8 country_len)
{
  guint8 hdr[36] = { fc, 0 };
  GByteArray *ies = ies_with_country (ssid, country, country_len);
  GByteArray *a = g_byte_array_new ();

  memset (hdr + 4, 0xff, 6);
  hdr[10] = hdr[16] = 0x3c;
  hdr[11] = hdr[17] = 0x84;
  hdr[15] = hdr[21] = last_byte;
  hdr[32] = 100;   /* beacon interval */
  g_byte_array_append (a, hdr, sizeof hdr);
  g_byte_array_append (a, ies->data, ies->len);
  g_byte_array_unref (ies);
  return a;
}

/* radiotap: flags, channel (@freq), antenna signal (@dbm) */
static GByteArray *
radiotap (const GByteArray *frame, guint16 freq, gint8 dbm, guint8 flags)
{
  guint8 rt[16] = { 0, 0, 16, 0, 0x2a, 0, 0, 0, flags, 0, (guint8) (freq & 0xff), (guint8) (freq >> 8), 0xa0, 0x00,
                    (guint8) dbm, 0 };
  GByteArray *a = g_byte_array_new ();

  g_byte_array_append (a, rt, sizeof rt);
  g_byte_array_append (a, frame->data, frame->len);
  return a;
}

/* PPI with one 802.11-common field (20 bytes) */
static GByteArray *
ppi (const GByteArray *frame, guint16 freq, gint8 dbm)
{
  guint8 h[32] = { 0, 0, 32, 0, 105, 0, 0, 0, 2, 0, 20, 0 };
  GByteArray *a = g_byte_array_new ();

  h[12 + 12] = (guint8) (freq & 0xff);
  h[12 + 13] = (guint8) (freq >> 8);
  h[12 + 18] = (guint8) dbm;
  g_byte_array_append (a, h, sizeof h);
  g_byte_array_append (a, frame->data, frame->len);
  return a;
}

static void
put_frame (const char *name, guint8 selector, const GByteArray *frame)
{
  GByteArray *a = g_byte_array_new ();

  g_byte_array_append (a, &selector, 1);
  g_byte_array_append (a, frame->data, frame->len);
  put ("frame", name, a->data, a->len);
  g_byte_array_unref (a);
}

static void
write_pcap (const char *name, int linktype, GPtrArray *frames)
{
  g_autofree char *dir = g_build_filename (outdir, "pcap", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  pcap_t *dead = pcap_open_dead (linktype, 65535);
  pcap_dumper_t *d;

  g_mkdir_with_parents (dir, 0755);
  d = pcap_dump_open (dead, path);
  if (d == NULL)
    g_error ("%s: %s", path, pcap_geterr (dead));
  for (guint i = 0; i < frames->len; i++)
    {
      GByteArray *f = frames->pdata[i];
      struct pcap_pkthdr h = { { 1767225600 + 10 * i, 500000 }, f->len, f->len };
      pcap_dump ((u_char *) d, &h, f->data);
    }
  pcap_dump_close (d);
  pcap_close (dead);
}

static void
put_block (GByteArray *out, guint32 type, const guint8 *body, guint32 len)
{
  guint32 padded = (len + 3) & ~3u, total = 12 + padded;
  static const guint8 zeros[4];

  g_byte_array_append (out, (const guint8 *) &type, 4);
  g_byte_array_append (out, (const guint8 *) &total, 4);
  g_byte_array_append (out, body, len);
  g_byte_array_append (out, zeros, padded - len);
  g_byte_array_append (out, (const guint8 *) &total, 4);
}

/* libpcap does not write pcapng: section header, interface (plain 802.11),
 * one enhanced packet block per frame, in host byte order */
static void
write_pcapng (const char *name, GPtrArray *frames)
{
  GByteArray *out = g_byte_array_new ();
  guint8 shb[16] = { 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  guint8 idb[8] = { 105, 0, 0, 0, 0xff, 0xff, 0, 0 };

  put_block (out, 0x0a0d0d0a, shb, sizeof shb);
  put_block (out, 1, idb, sizeof idb);
  for (guint i = 0; i < frames->len; i++)
    {
      GByteArray *f = frames->pdata[i];
      guint64 ts = (guint64) (1767225600 + 10 * i) * 1000000;
      guint32 h[5] = { 0, (guint32) (ts >> 32), (guint32) ts, f->len, f->len };
      GByteArray *epb = g_byte_array_new ();
      g_byte_array_append (epb, (const guint8 *) h, sizeof h);
      g_byte_array_append (epb, f->data, f->len);
      put_block (out, 6, epb->data, epb->len);
      g_byte_array_unref (epb);
    }
  put ("pcap", name, out->data, out->len);
  g_byte_array_unref (out);
}

static void
capture_seeds (void)
{
  static const guint8 de[] = { 'D', 'E', ' ', 1, 13, 20, 36, 4, 23, 0 };
  static const guint8 ch[] = { 'C', 'H', 'O', 1, 13, 20 };
  g_autoptr (GPtrArray) plain = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  g_autoptr (GPtrArray) rt = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  g_autoptr (GPtrArray) pp = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);

  g_ptr_array_add (plain, mgmt_frame (0x80, 1, "ap-de", de, sizeof de));
  g_ptr_array_add (plain, mgmt_frame (0x50, 2, "ap-ch", ch, sizeof ch));
  g_ptr_array_add (plain, mgmt_frame (0x80, 3, "no-country", NULL, 0));
  g_ptr_array_add (plain, mgmt_frame (0x08, 4, "data", NULL, 0));   /* a data frame */
  for (guint i = 0; i < plain->len; i++)
    {
      g_ptr_array_add (rt, radiotap (plain->pdata[i], (guint16) (2412 + 5 * i), (gint8) (-40 - i), 0));
      g_ptr_array_add (pp, ppi (plain->pdata[i], (guint16) (5180 + 20 * i), (gint8) (-60 - i)));
    }
  /* radiotap flags: FCS at the end, then one whose FCS failed */
  {
    GByteArray *f = g_byte_array_new ();
    static const guint8 fcs[4] = { 0xde, 0xad, 0xbe, 0xef };
    g_byte_array_append (f, ((GByteArray *) plain->pdata[0])->data, ((GByteArray *) plain->pdata[0])->len);
    g_byte_array_append (f, fcs, 4);
    g_ptr_array_add (rt, radiotap (f, 2437, -50, 0x10));
    g_ptr_array_add (rt, radiotap (f, 2437, -50, 0x50));
    g_byte_array_unref (f);
  }

  write_pcap ("radiotap.pcap", DLT_IEEE802_11_RADIO, rt);
  write_pcap ("plain-80211.pcap", DLT_IEEE802_11, plain);
  write_pcap ("ppi.pcap", DLT_PPI, pp);
  write_pcapng ("plain-80211.pcapng", plain);

  for (guint i = 0; i < plain->len; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "plain-%u", i);
      put_frame (name, 0, plain->pdata[i]);
      g_snprintf (name, sizeof name, "radiotap-%u", i);
      put_frame (name, 1, rt->pdata[i]);
      g_snprintf (name, sizeof name, "ppi-%u", i);
      put_frame (name, 2, pp->pdata[i]);
    }
  put_frame ("radiotap-fcs", 1, rt->pdata[plain->len]);
  put_frame ("radiotap-bad-fcs", 1, rt->pdata[plain->len + 1]);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      g_printerr ("usage: make-seeds OUTDIR STAMP\n");
      return 2;
    }
  outdir = argv[1];
  country_ie_seeds ();
  nl80211_seeds ();
  capture_seeds ();
  if (!g_file_set_contents (argv[2], "", 0, NULL))
    g_error ("cannot write %s", argv[2]);
  return 0;
}
