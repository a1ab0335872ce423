#include "replay/replay-scans.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include "core/engine.h"
#include "readers/country-ie.h"
#include "readers/nl80211-scan.h"
#include "readers/pcap-scans.h"
#include "readers/scanlog.h"

/* An AP beacons ten times a second: in a capture, one evidence item per
 * BSS every few seconds says the same, and the expiry moves by at most
 * this.  The same window as the live BSS table (core/engine.h). */
#define RL_SCANS_REPEAT_US RL_BEACON_REPEAT_US

/* A scan log holds the BSSs each scan heard, stamped with when each was
 * heard: one scan's lines lie within seconds of each other (a passive scan
 * of every 5 GHz channel takes a few), and scans are further apart than
 * this.  A longer silence starts the next scan. */
#define RL_SCANS_GAP_US (5 * G_USEC_PER_SEC)

typedef struct {
  RlReplay *replay;
  guint max_age_s;
  GHashTable *last;       /* bssid text → LastSeen */
  gint64 merge_us;        /* captures only: scan logs hold one line per new observation */
  /* scan logs: the scan being read (see RL_SCANS_GAP_US) */
  gboolean in_scan;
  gint64 scan_start, scan_last;
  guint scan_bands;       /* RlBand mask of what it heard */
} Feed;

typedef struct {
  gint64 time;
  RlCountry country;
} LastSeen;

static void
count_skip (Feed *feed, const char *reason)
{
  g_autofree char *name = g_strconcat ("scans.skipped.", reason, NULL);
  rl_replay_count (feed->replay, name, 1);
}

static void
feed_bss (Feed *feed, gint64 time, const guint8 bssid[6], guint32 freq, gboolean has_signal, gint32 signal_mbm,
          const guint8 *ies, gsize ies_len)
{
  RlEvidence ev;
  RlCountryIeResult res = rl_beacon_evidence_build (&ev, bssid, has_signal ? signal_mbm : 0, freq, ies, ies_len,
                                                    NULL, 0, time, feed->max_age_s);
  if (res != RL_COUNTRY_IE_OK)
    {
      count_skip (feed, rl_country_ie_result_to_string (res));
      return;
    }
  LastSeen *last = g_hash_table_lookup (feed->last, ev.key);
  if (last == NULL)
    {
      last = g_new0 (LastSeen, 1);
      g_hash_table_insert (feed->last, g_strdup (ev.key), last);
      rl_replay_count (feed->replay, "scans.bss_used", 1);
    }
  else if (last->country == ev.countries[0] && time >= last->time && time - last->time < feed->merge_us)
    {
      rl_replay_count (feed->replay, "scans.repeats_merged", 1);
      return;
    }
  last->time = time;
  last->country = ev.countries[0];
  rl_replay_count (feed->replay, "scans.observations", 1);
  rl_replay_add_evidence (feed->replay, &ev);
}

/* The scan read so far is complete: what it did not hear on its bands is gone. */
static void
end_scan (Feed *feed)
{
  if (!feed->in_scan)
    return;
  feed->in_scan = FALSE;
  if (feed->scan_bands == 0)
    return;   /* no frequency known: it says nothing about any band */
  rl_replay_add_scan (feed->replay, feed->scan_start, feed->scan_last, feed->scan_bands);
  rl_replay_count (feed->replay, "scans.scans", 1);
}

static void
note_heard (Feed *feed, gint64 time, guint32 freq_mhz)
{
  if (feed->in_scan && (time < feed->scan_last || time - feed->scan_last > RL_SCANS_GAP_US))
    end_scan (feed);
  if (!feed->in_scan)
    {
      feed->in_scan = TRUE;
      feed->scan_start = time;
      feed->scan_bands = 0;
    }
  feed->scan_last = time;
  feed->scan_bands |= rl_band_from_freq (freq_mhz);
}

static gboolean
load_json_lines (Feed *feed, const char *path, const char *text, gsize len, GError **error)
{
  const char *p = text, *end = text + len;
  guint line_no = 0, good = 0, bad = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *eol = nl != NULL ? nl : end;
      line_no++;
      gsize n = (gsize) (eol - p);
      gboolean blank = TRUE;
      for (gsize i = 0; i < n && blank; i++)
        blank = g_ascii_isspace (p[i]);
      if (!blank)
        {
          RlScanLogEntry e;
          g_autoptr (GError) local = NULL;
          if (rl_scanlog_parse (p, (gssize) n, &e, &local))
            {
              note_heard (feed, e.time, e.freq_mhz);
              feed_bss (feed, e.time, e.bssid, e.freq_mhz, e.has_signal, e.signal_mbm, e.ies, e.ies_len);
              rl_scanlog_entry_clear (&e);
              good++;
            }
          else
            {
              count_skip (feed, rl_scanlog_error_to_string ((RlScanLogError) local->code));
              if (bad++ == 0)
                rl_replay_note (feed->replay, "%s:%u: skipped: %s", path, line_no, local->message);
            }
        }
      p = eol + 1;
    }
  end_scan (feed);
  if (good == 0 && bad > 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no line is a scan log entry (%u bad lines)", path, bad);
      return FALSE;
    }
  rl_replay_count (feed->replay, "scans.lines", good + bad);
  return TRUE;
}

static void
on_frame (gint64 time, const RlHeardFrame *f, gpointer user_data)
{
  Feed *feed = user_data;
  rl_replay_count (feed->replay, f->probe_response ? "scans.probe_responses" : "scans.beacons", 1);
  feed_bss (feed, time, f->bssid, f->freq_mhz, f->has_signal, f->signal_mbm, f->ies, f->ies_len);
}

static void
on_skip (RlFrameResult why, gpointer user_data)
{
  count_skip (user_data, rl_frame_result_to_string (why));
}

static gboolean
is_capture (const guint8 *d, gsize len)
{
  static const guint32 magics[] = { 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1, 0x0a0d0d0a };
  if (len < 4)
    return FALSE;
  guint32 m = (guint32) d[0] << 24 | (guint32) d[1] << 16 | (guint32) d[2] << 8 | d[3];
  for (guint i = 0; i < G_N_ELEMENTS (magics); i++)
    if (m == magics[i])
      return TRUE;
  return FALSE;
}

gboolean
rl_replay_load_scan_file (RlReplay *replay, const char *path, const RlConfig *config, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  Feed feed = { .replay = replay, .max_age_s = config->policy.max_age_s[RL_SOURCE_BEACON] };
  gboolean ok;
  guint8 head[4];
  gsize head_len = 0;
  FILE *f = fopen (path, "rb");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path, g_strerror (saved));
      return FALSE;
    }
  head_len = fread (head, 1, sizeof head, f);
  fclose (f);
  feed.last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (is_capture (head, head_len))
    {
      feed.merge_us = RL_SCANS_REPEAT_US;
      g_autoptr (GError) local = NULL;
      ok = rl_pcap_read (path, on_frame, on_skip, &feed, &local);
      if (!ok && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
        {
          /* a capture cut off mid-frame: what came before still counts */
          rl_replay_note (replay, "%s", local->message);
          rl_replay_count (replay, "scans.skipped.truncated_file", 1);
          ok = TRUE;
        }
      else if (!ok)
        g_propagate_error (error, g_steal_pointer (&local));
    }
  else if (!g_file_get_contents (path, &text, &len, error))
    ok = FALSE;
  else
    {
      gsize i = 0;
      while (i < len && g_ascii_isspace (text[i]))
        i++;
      if (i < len && text[i] != '{')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: neither a scan log (JSON lines) nor a packet capture (pcap, pcapng)", path);
          ok = FALSE;
        }
      else
        ok = load_json_lines (&feed, path, text, len, error);
    }
  g_hash_table_unref (feed.last);
  return ok;
}
