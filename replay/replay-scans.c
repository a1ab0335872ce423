#include "replay/replay-scans.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <sys/mman.h>
#include "core/engine.h"
#include "readers/country-ie.h"
#include "readers/json-depth.h"
#include "readers/nl80211-scan.h"
#include "readers/pcap-scans.h"
#include "readers/scanlog.h"
#include "readers/mcc.h"

/* An AP beacons ten times a second: in a capture, one evidence item per
 * BSS every few seconds says the same, and the expiry moves by at most
 * this.  The same window as the live BSS table (core/engine.h). */
#define RL_SCANS_REPEAT_US RL_BEACON_REPEAT_US

/* A scan log holds the BSSs each scan heard, stamped with when each was
 * heard, and (written since scan records exist) a record at the end of
 * each scan naming the channels it covered.  In a log without them, one
 * scan's lines lie within seconds of each other (a passive scan of every
 * 5 GHz channel takes a few), and scans are further apart than this: a
 * longer silence starts the next scan, and what a scan heard on tells the
 * bands it covered.  That misses the scans that heard nothing. */
#define RL_SCANS_GAP_US (5 * G_USEC_PER_SEC)

/* One scan log or capture, read while the replay runs. */
typedef struct {
  RlEventStream stream;
  RlReplay *replay;
  char *path;
  gpointer note_slot;
  guint max_age_s;
  GHashTable *last;       /* bssid text → LastSeen */
  gint64 merge_us;        /* captures only: scan logs hold one line per new observation */
  RlEvent event;
  /* scan logs: JSON lines in a mapped file */
  GMappedFile *map;
  const char *text;
  gsize len, pos, released;
  gsize start;            /* past a UTF-8 byte order mark */
  guint line_no, good, bad, comments;
  /* lines read with a value taken on trust or dropped: how many, the first */
  guint no_zone, no_zone_line;
  guint unphysical, unphysical_line;
  gint32 unphysical_mbm;
  /* scan logs: the scan being read (see RL_SCANS_GAP_US), and the event
   * that says it ended, handed out before the line that ended it */
  gboolean in_scan;
  gint64 scan_start, scan_last;
  guint scan_bands;       /* RlBand mask of what it heard */
  gint32 silent_mbm;      /* the loudest GA access point it heard sending no country (RlEvent) */
  RlEvent scan_event;
  gboolean evidence_pending;
  /* scan logs with scan records: the gaps no longer tell; the withdrawals
   * of a record, handed out after its scan event */
  gboolean scan_records;
  GArray *gone;           /* RlEvent */
  guint gone_next;
  /* captures */
  RlPcapReader *pcap;
  GError *pcap_error;
  /* cell records (scan logs only): the MCC table, read at the first */
  char *providers;
  guint cell_max_age_s;
  RlMccTable *mcc;
  gboolean mcc_failed;
} ScanStream;

/* What the log said of one BSS last: as the live BSS table keeps it. */
typedef struct {
  gint64 time;
  RlCountry country;      /* RL_COUNTRY_NONE: no usable country (withdrawn) */
  guint32 freq_mhz;
  guint32 heard_scans, missed_scans;   /* of scan records: rl_beacon_scan_done () */
} LastSeen;

static void
count_skip (ScanStream *s, const char *reason)
{
  g_autofree char *name = g_strconcat ("scans.skipped.", reason, NULL);
  rl_replay_count (s->replay, name, 1);
}

/* An AP heard without a usable country (XX, environment X, no element)
 * that gave one before: as the live BSS table does, its old word no
 * longer stands.  TRUE with s->event the withdrawal.  A probe response
 * without the element says nothing: the live table falls back to the
 * AP's beacons, which a capture holds as earlier frames. */
static gboolean
withdraw_bss (ScanStream *s, gint64 time, const guint8 bssid[6], gboolean probe_response, RlCountryIeResult res)
{
  char key[RL_BEACON_KEY_LEN];
  LastSeen *last;

  if (probe_response && res == RL_COUNTRY_IE_ABSENT)
    return FALSE;
  rl_beacon_key (bssid, key);
  last = g_hash_table_lookup (s->last, key);
  if (last == NULL || time < last->time)
    return FALSE;
  last->time = time;
  last->missed_scans = 0;
  if (last->country == RL_COUNTRY_NONE)
    return FALSE;
  last->country = RL_COUNTRY_NONE;
  rl_replay_count (s->replay, "scans.withdrawn_no_country", 1);
  rl_event_init_withdraw (&s->event, time, key);
  s->event.in_scan = s->pcap == NULL;
  return TRUE;
}

/* TRUE when the BSS gave an evidence item or took one back (in s->event).
 * @cut: the capture's snapshot length cut the frame, so elements missing
 * or running past its end may be there on the air: it says nothing of the
 * AP's country and takes no word back (tcpdump -s 128 on an AP whose
 * Country element comes late). */
static gboolean
feed_bss (ScanStream *s, gint64 time, const guint8 bssid[6], gboolean probe_response, gboolean cut, guint32 freq,
          gboolean has_signal, gint32 signal_mbm, const guint8 *ies, gsize ies_len)
{
  RlEvidence *ev = &s->event.ev;
  RlCountryIeResult res = rl_beacon_evidence_build (ev, bssid, has_signal ? signal_mbm : 0, freq, ies, ies_len,
                                                    NULL, 0, time, s->max_age_s);
  if (cut && (res == RL_COUNTRY_IE_ABSENT || res == RL_COUNTRY_IE_TRUNCATED))
    {
      count_skip (s, "cut_before_country");
      return FALSE;
    }
  if (res != RL_COUNTRY_IE_OK)
    {
      count_skip (s, rl_country_ie_result_to_string (res));
      rl_keep_silent (&s->silent_mbm, bssid, has_signal ? signal_mbm : 0);
      return withdraw_bss (s, time, bssid, probe_response, res);
    }
  LastSeen *last = g_hash_table_lookup (s->last, ev->key);
  if (last == NULL)
    {
      last = g_new0 (LastSeen, 1);
      g_hash_table_insert (s->last, g_strdup (ev->key), last);
      rl_replay_count (s->replay, "scans.bss_used", 1);
    }
  else if (last->country == ev->countries[0] && time >= last->time && time - last->time < s->merge_us)
    {
      rl_replay_count (s->replay, "scans.repeats_merged", 1);
      return FALSE;
    }
  last->time = time;
  last->country = ev->countries[0];
  last->freq_mhz = freq;
  last->missed_scans = 0;
  rl_replay_count (s->replay, "scans.observations", 1);
  s->event.type = RL_EVENT_EVIDENCE;
  s->event.time = time;
  s->event.in_scan = s->pcap == NULL;   /* a scan log's lines are its scans' results */
  return TRUE;
}

/* The next line that is neither blank nor a comment (first non-blank
 * character '#', counted), from its first non-blank character, or FALSE at
 * the end. */
static gboolean
next_line (ScanStream *s, const char **line, gsize *n)
{
  while (s->pos < s->len)
    {
      const char *p = s->text + s->pos;
      const char *nl = memchr (p, '\n', s->len - s->pos);
      gsize k = nl != NULL ? (gsize) (nl - p) : s->len - s->pos;
      gsize i = 0;

      s->pos += k + 1;
      s->line_no++;
      while (i < k && g_ascii_isspace (p[i]))
        i++;
      if (i < k && p[i] == '#')
        s->comments++;
      else if (i < k)
        {
          *line = p + i;
          *n = k - i;
          return TRUE;
        }
    }
  return FALSE;
}

/* A scan log is read once front to back: pages behind the reader go back
 * to the kernel (see replay-gps.c). */
static void
release_read_pages (ScanStream *s)
{
  const gsize step = 1u << 20;
  gsize at;

  if (s->map == NULL || s->pos < s->released + 2 * step)
    return;
  at = (s->pos - step) / 4096 * 4096;
  madvise ((char *) s->text + s->released, at - s->released, MADV_DONTNEED);
  s->released = at;
}

/* The scan read so far is complete: TRUE with s->scan_event saying that
 * what it did not hear on its bands is gone. */
static gboolean
end_scan (ScanStream *s)
{
  if (!s->in_scan)
    return FALSE;
  s->in_scan = FALSE;
  if (s->scan_bands == 0)
    return FALSE;   /* no frequency known: it says nothing about any band */
  memset (&s->scan_event, 0, sizeof s->scan_event);
  s->scan_event.type = RL_EVENT_SCAN;
  s->scan_event.time = s->scan_last;
  s->scan_event.since = MIN (s->scan_start, s->scan_last);
  s->scan_event.bands = s->scan_bands;
  s->scan_event.silent_mbm = s->silent_mbm;
  s->silent_mbm = 0;
  rl_replay_count (s->replay, "scans.scans", 1);
  return TRUE;
}

/* TRUE when the line heard at @time ended the scan before it. */
static gboolean
note_heard (ScanStream *s, gint64 time, guint32 freq_mhz)
{
  gboolean ended = FALSE;

  if (s->scan_records)
    return FALSE;
  if (s->in_scan && (time < s->scan_last || time - s->scan_last > RL_SCANS_GAP_US))
    ended = end_scan (s);
  if (!s->in_scan)
    {
      s->in_scan = TRUE;
      s->scan_start = time;
      s->scan_bands = 0;
    }
  s->scan_last = time;
  s->scan_bands |= rl_band_from_freq (freq_mhz);
  return ended;
}

/* A good line whose "time" named no zone (read as UTC: a log written in
 * local time would be hours off, which the counter and note bring up) or
 * whose "signal_dbm" was no received signal (read as unknown). */
static void
count_doubtful (ScanStream *s, gboolean no_zone, gboolean unphysical, gint32 signal_mbm)
{
  if (no_zone && s->no_zone++ == 0)
    s->no_zone_line = s->line_no;
  if (unphysical && s->unphysical++ == 0)
    s->unphysical_line = s->line_no, s->unphysical_mbm = signal_mbm;
}

/* The counters and notes of count_doubtful (), once, at the end. */
static void
note_doubtful (ScanStream *s)
{
  if (s->no_zone > 0)
    {
      rl_replay_count (s->replay, "scans.time_no_zone", s->no_zone);
      rl_replay_note_at (s->replay, s->note_slot, "%s:%u: \"time\" names no zone (no Z, no offset): read as UTC "
                         "(%u %s)", s->path, s->no_zone_line, s->no_zone, s->no_zone == 1 ? "line" : "lines, the first");
    }
  if (s->unphysical > 0)
    {
      rl_replay_count (s->replay, "scans.signal_unphysical", s->unphysical);
      rl_replay_note_at (s->replay, s->note_slot, "%s:%u: \"signal_dbm\" %.1f is above +%d dBm, no received signal: "
                         "read as unknown (%u %s)", s->path, s->unphysical_line, s->unphysical_mbm / 100.0,
                         RL_SCANLOG_MAX_SIGNAL_DBM, s->unphysical, s->unphysical == 1 ? "line" : "lines, the first");
    }
}

/* A cell record: TRUE with s->event the modem's item or its withdrawal. */
static gboolean
feed_cell (ScanStream *s, const RlScanLogCell *cell)
{
  char key[48];

  g_snprintf (key, sizeof key, "cell:%s", cell->modem);
  memset (&s->event, 0, sizeof s->event);
  s->event.time = cell->time;
  rl_replay_count (s->replay, "scans.cells", 1);
  if (cell->registered && s->mcc == NULL && !s->mcc_failed)
    {
      g_autoptr (GError) error = NULL;
      s->mcc = rl_mcc_table_load (s->providers, &error);
      if (s->mcc == NULL)
        {
          s->mcc_failed = TRUE;
          rl_replay_note_at (s->replay, s->note_slot, "%s:%u: cell records skipped: no mobile network codes: %s",
                             s->path, s->line_no, error->message);
        }
    }
  if (cell->registered && s->mcc == NULL)
    {
      count_skip (s, "no_mcc_table");
      return FALSE;
    }
  if (cell->registered && rl_mcc_evidence (s->mcc, key, cell->mcc, cell->mnc, cell->time,
                                           rl_expiry_after (cell->time, s->cell_max_age_s), &s->event.ev))
    {
      s->event.type = RL_EVENT_EVIDENCE;
      if (s->event.ev.cell.unknown)
        rl_replay_count (s->replay, "scans.cells_unknown_code", 1);
      else if (s->event.ev.cell.unlisted)
        rl_replay_count (s->replay, "scans.cells_unlisted_network", 1);
      return TRUE;
    }
  /* lost, or a network that names no country (901, 001, 999) */
  if (cell->registered)
    rl_replay_count (s->replay, "scans.cells_naming_no_country", 1);
  rl_event_init_withdraw (&s->event, cell->time, key);
  return TRUE;
}

/* A scan record: the live BSS table's work (rl_bss_table_scan_done ()) on
 * what this log heard.  A BSS on a channel the scan covered that it did not
 * hear is gone (a steady one after its second miss); without a channel
 * list, the bands it heard anything on count, and a scan that heard nothing
 * at all says nothing (rather a deaf radio than an empty world).  Sets
 * s->scan_event, the scan, and queues the withdrawals to come after it. */
static void
feed_scan (ScanStream *s, const RlScanLogScan *scan)
{
  gint64 since = scan->time - RL_SCANLOG_SCAN_SPAN_US;
  guint bands = 0;
  GHashTableIter it;
  gpointer k, v;

  /* from the first record on, the records tell where scans end */
  s->scan_records = TRUE;
  s->in_scan = FALSE;
  rl_replay_count (s->replay, "scans.scans", 1);
  rl_replay_count (s->replay, "scans.scan_records", 1);
  memset (&s->scan_event, 0, sizeof s->scan_event);
  s->scan_event.type = RL_EVENT_SCAN;
  s->scan_event.time = scan->time;
  s->scan_event.since = since;
  s->scan_event.bands = 0;   /* the withdrawals below are its whole effect */
  s->scan_event.silent_mbm = s->silent_mbm;
  s->silent_mbm = 0;
  g_array_set_size (s->gone, 0);
  s->gone_next = 0;
  if (scan->n_freqs == 0)
    {
      g_hash_table_iter_init (&it, s->last);
      while (g_hash_table_iter_next (&it, NULL, &v))
        if (((LastSeen *) v)->time >= since)
          bands |= rl_band_from_freq (((LastSeen *) v)->freq_mhz);
      if (bands == 0)
        return;
    }
  g_hash_table_iter_init (&it, s->last);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      LastSeen *last = v;
      RlEvent gone;

      if (last->country == RL_COUNTRY_NONE || !rl_scan_covers (scan->freqs, scan->n_freqs, bands, last->freq_mhz) ||
          !rl_beacon_scan_done (last->time >= since, &last->heard_scans, &last->missed_scans))
        continue;
      rl_event_init_withdraw (&gone, scan->time, k);
      g_array_append_val (s->gone, gone);
      rl_replay_count (s->replay, "scans.gone_unheard", 1);
      /* heard again, it starts afresh, as a new entry of the live table */
      last->country = RL_COUNTRY_NONE;
      last->heard_scans = 0;
    }
}

/* The time a line of the log gives (a BSS or a cell record), or FALSE. */
static gboolean
line_time (const char *p, gsize k, gint64 *time)
{
  RlScanLogEntry e;
  RlScanLogCell cell;
  RlScanLogScan scan;
  gsize i = 0;

  while (i < k && g_ascii_isspace (p[i]))
    i++;
  if (i == k || p[i] == '#')
    return FALSE;
  if (rl_scanlog_parse (p + i, (gssize) (k - i), &e, NULL))
    {
      *time = e.time;
      rl_scanlog_entry_clear (&e);
      return TRUE;
    }
  if (rl_scanlog_parse_cell (p + i, (gssize) (k - i), &cell, NULL))
    {
      *time = cell.time;
      return TRUE;
    }
  if (rl_scanlog_parse_scan (p + i, (gssize) (k - i), &scan, NULL))
    {
      *time = scan.time;
      return TRUE;
    }
  return FALSE;
}

/* How many lines at either end the look for the log's span reads. */
#define SPAN_LINES 64

/* The times of the first and the last good line (a log is in time order
 * but for the merge's window, so they are its span to within a minute). */
static gboolean
json_lines_span (RlEventStream *self, gint64 *first, gint64 *last)
{
  ScanStream *s = (ScanStream *) self;
  gsize at = s->start, end = s->len;
  gboolean have_first = FALSE, have_last = FALSE;

  for (guint n = 0; n < SPAN_LINES && at < s->len && !have_first; n++)
    {
      const char *nl = memchr (s->text + at, '\n', s->len - at);
      gsize k = nl != NULL ? (gsize) (nl - s->text) - at : s->len - at;

      have_first = line_time (s->text + at, k, first);
      at += k + 1;
    }
  for (guint n = 0; n < SPAN_LINES && end > s->start && !have_last; n++)
    {
      gsize from = end;

      while (from > s->start && s->text[from - 1] != '\n')
        from--;
      have_last = line_time (s->text + from, end - from, last);
      end = from > s->start ? from - 1 : from;
    }
  return have_first && have_last && *first <= *last;
}

static const RlEvent *
json_lines_next (RlEventStream *self)
{
  ScanStream *s = (ScanStream *) self;
  const char *line;
  gsize n;

  if (s->evidence_pending)
    {
      s->evidence_pending = FALSE;
      return &s->event;
    }
  if (s->gone_next < s->gone->len)
    return &g_array_index (s->gone, RlEvent, s->gone_next++);
  while (next_line (s, &line, &n))
    {
      RlScanLogEntry e;
      g_autoptr (GError) local = NULL;
      gboolean used, ended;

      if (!rl_scanlog_parse (line, (gssize) n, &e, &local))
        {
          RlScanLogCell cell;
          RlScanLogScan scan;
          g_autoptr (GError) record_error = NULL;
          if (rl_scanlog_parse_cell (line, (gssize) n, &cell, &record_error))
            {
              s->good++;
              count_doubtful (s, cell.time_no_zone, FALSE, 0);
              release_read_pages (s);
              if (feed_cell (s, &cell))
                return &s->event;
              continue;
            }
          if (record_error == NULL && rl_scanlog_parse_scan (line, (gssize) n, &scan, &record_error))
            {
              s->good++;
              count_doubtful (s, scan.time_no_zone, FALSE, 0);
              release_read_pages (s);
              feed_scan (s, &scan);
              return &s->scan_event;
            }
          if (record_error != NULL)
            {
              /* a cell or scan record with a bad field: its error, not the BSS line's */
              g_clear_error (&local);
              local = g_steal_pointer (&record_error);
            }
          count_skip (s, rl_scanlog_error_to_string ((RlScanLogError) local->code));
          if (s->bad++ == 0)
            rl_replay_note_at (s->replay, s->note_slot, "%s:%u: skipped: %s", s->path, s->line_no, local->message);
          continue;
        }
      s->good++;
      count_doubtful (s, e.time_no_zone, e.signal_unphysical, e.signal_mbm);
      ended = note_heard (s, e.time, e.freq_mhz);
      used = feed_bss (s, e.time, e.bssid, FALSE, FALSE, e.freq_mhz, e.has_signal, e.signal_mbm, e.ies, e.ies_len);
      rl_scanlog_entry_clear (&e);
      release_read_pages (s);
      if (ended)
        {
          s->evidence_pending = used;
          return &s->scan_event;
        }
      if (used)
        return &s->event;
    }
  return end_scan (s) ? &s->scan_event : NULL;
}

static const RlEvent *
capture_next (RlEventStream *self)
{
  ScanStream *s = (ScanStream *) self;
  RlHeardFrame f;
  RlFrameResult why;
  RlPcapNext n;
  gint64 t;

  while ((n = rl_pcap_reader_next (s->pcap, &t, &f, &why, &s->pcap_error)) != RL_PCAP_END)
    {
      if (n == RL_PCAP_SKIPPED)
        {
          count_skip (s, rl_frame_result_to_string (why));
          continue;
        }
      rl_replay_count (s->replay, f.probe_response ? "scans.probe_responses" : "scans.beacons", 1);
      if (f.fcs_unchecked)
        rl_replay_count (s->replay, "scans.fcs_unchecked", 1);
      if (feed_bss (s, t, f.bssid, f.probe_response, f.cut, f.freq_mhz, f.has_signal, f.signal_mbm, f.ies, f.ies_len))
        return &s->event;
    }
  return NULL;
}

static void
scan_finish (RlEventStream *self)
{
  ScanStream *s = (ScanStream *) self;

  if (s->pcap_error != NULL)
    {
      /* a capture cut off mid-frame: what came before still counts */
      rl_replay_note_at (s->replay, s->note_slot, "%s", s->pcap_error->message);
      rl_replay_count (s->replay, "scans.skipped.truncated_file", 1);
    }
  if (s->map != NULL)
    rl_replay_count (s->replay, "scans.lines", s->good + s->bad);
  if (s->comments > 0)
    rl_replay_count (s->replay, "scans.comment_lines", s->comments);
  note_doubtful (s);
  rl_replay_note_slot_close (s->replay, s->note_slot);
  s->note_slot = NULL;
}

static void
scan_free (RlEventStream *self)
{
  ScanStream *s = (ScanStream *) self;

  if (s->map != NULL)
    g_mapped_file_unref (s->map);
  rl_pcap_reader_free (s->pcap);
  g_clear_error (&s->pcap_error);
  g_hash_table_unref (s->last);
  g_array_unref (s->gone);
  rl_mcc_table_free (s->mcc);
  g_free (s->providers);
  g_free (s->path);
  g_free (s);
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

/* Is @line a scan log record: an access point, a cell or the end of a scan? */
static gboolean
is_record (const char *line, gsize n)
{
  RlScanLogEntry e;
  RlScanLogCell cell;
  RlScanLogScan scan;

  if (rl_scanlog_parse (line, (gssize) n, &e, NULL))
    {
      rl_scanlog_entry_clear (&e);
      return TRUE;
    }
  return rl_scanlog_parse_cell (line, (gssize) n, &cell, NULL) || rl_scanlog_parse_scan (line, (gssize) n, &scan, NULL);
}

gboolean
rl_replay_scans_sniff (const char *data, gsize len)
{
  ScanStream probe = { .text = data, .len = len, .pos = rl_json_lines_bom_length (data, len) };
  const char *line;
  gsize n;

  if (is_capture ((const guint8 *) data, len))
    return TRUE;
  /* the first line past blanks and comments, as the reader goes */
  return next_line (&probe, &line, &n) && line[0] == '{' && is_record (line, n);
}

/* A file of which no line is a scan log entry is refused before the run
 * (the look stops at the first good line, which is nearly always the first). */
static gboolean
check_json_lines (ScanStream *s, GError **error)
{
  const char *line;
  gsize n;
  guint bad = 0;

  while (next_line (s, &line, &n))
    {
      /* what comes first, past blanks and comments, tells text from anything else */
      if (bad == 0 && line[0] != '{')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: neither a scan log (JSON lines) nor a packet capture (pcap, pcapng)", s->path);
          return FALSE;
        }
      if (is_record (line, n))
        {
          s->pos = s->start;
          s->line_no = 0;
          s->comments = 0;
          return TRUE;
        }
      bad++;
    }
  s->pos = s->start;
  s->line_no = 0;
  s->comments = 0;
  if (bad > 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no line is a scan log entry (%u bad lines)",
                   s->path, bad);
      return FALSE;
    }
  return TRUE;
}

static gboolean
open_input (ScanStream *s, GError **error)
{
  guint8 head[4];
  gsize head_len;
  FILE *f = fopen (s->path, "rb");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", s->path, g_strerror (saved));
      return FALSE;
    }
  head_len = fread (head, 1, sizeof head, f);
  fclose (f);
  if (is_capture (head, head_len))
    {
      s->merge_us = RL_SCANS_REPEAT_US;
      s->stream.next = capture_next;
      s->pcap = rl_pcap_reader_open (s->path, error);
      return s->pcap != NULL;
    }
  s->stream.next = json_lines_next;
  s->stream.time_span = json_lines_span;
  s->map = g_mapped_file_new (s->path, FALSE, error);
  if (s->map == NULL)
    return FALSE;
  s->text = g_mapped_file_get_contents (s->map);
  s->len = g_mapped_file_get_length (s->map);
  s->start = s->pos = rl_json_lines_bom_length (s->text, s->len);
  return check_json_lines (s, error);
}

gboolean
rl_replay_load_scan_file (RlReplay *replay, const char *path, const RlConfig *config, GError **error)
{
  ScanStream *s = g_new0 (ScanStream, 1);

  /* scan logs and captures are not always in time order: the merge
   * re-orders them within its window */
  s->stream = (RlEventStream) { .finish = scan_finish, .free = scan_free, .ordered = FALSE,
                                .name = g_strdup (path) };
  s->replay = replay;
  s->path = g_strdup (path);
  s->max_age_s = config->policy.max_age_s[RL_SOURCE_BEACON];
  s->providers = g_strdup (config->cell_providers ? config->cell_providers : RL_MCC_DEFAULT_PROVIDERS);
  s->cell_max_age_s = config->policy.max_age_s[RL_SOURCE_CELL];
  s->last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->gone = g_array_new (FALSE, TRUE, sizeof (RlEvent));
  s->note_slot = rl_replay_note_slot (replay);
  if (!open_input (s, error))
    {
      rl_replay_note_slot_drop (replay, s->note_slot);
      rl_event_stream_free (&s->stream);
      return FALSE;
    }
  rl_replay_add_stream (replay, &s->stream);
  rl_replay_set_has_wifi (replay);
  return TRUE;
}
