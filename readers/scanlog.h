/* Scan logs (docs/design.md §6): JSON lines, one heard BSS per line,
 *   {"time": ISO 8601, "ifname", "bssid", "freq", "signal_dbm", "ssid", "ies": hex}
 * with the raw element bytes, so a replay runs the same Country element
 * parser as the live source. */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

#define RL_SCANLOG_ERROR (rl_scanlog_error_quark ())
GQuark rl_scanlog_error_quark (void);

/* The codes name the replay skip counters ("scans.skipped.<name>"). */
typedef enum {
  RL_SCANLOG_ERROR_NOT_JSON,      /* "bad_json" */
  RL_SCANLOG_ERROR_BAD_TIME,      /* "bad_time" */
  RL_SCANLOG_ERROR_BAD_BSSID,     /* "bad_bssid" */
  RL_SCANLOG_ERROR_BAD_IES,       /* "bad_ies" */
  RL_SCANLOG_ERROR_BAD_FIELD,     /* "bad_field" */
} RlScanLogError;

const char *rl_scanlog_error_to_string (RlScanLogError code);

typedef struct {
  gint64 time;              /* µs since the epoch */
  gboolean time_no_zone;    /* "time" named no zone (no Z, no offset): read as UTC */
  char ifname[17];
  guint8 bssid[6];
  guint32 freq_mhz;         /* 0 unknown */
  gboolean has_signal;
  gint32 signal_mbm;
  /* "signal_dbm" above RL_SCANLOG_MAX_SIGNAL_DBM: no received signal, so
   * read as unknown (@has_signal FALSE, @signal_mbm the value written) */
  gboolean signal_unphysical;
  char ssid[33];
  guint8 *ies;              /* owned */
  gsize ies_len;
} RlScanLogEntry;

/* An access point sends at most about +30 dBm (1 W; less in most
 * countries), and what a receiver hears of it is far weaker: a signal
 * above this is no reading of one (a percentage, a sign lost).  Numbers
 * above +100 dBm or below -200 dBm are no signal in any unit: bad_field. */
#define RL_SCANLOG_MAX_SIGNAL_DBM 30

void rl_scanlog_entry_clear (RlScanLogEntry *entry);

/* One line, without the newline. */
char *rl_scanlog_format (gint64 time, const char *ifname, const guint8 bssid[6], guint32 freq_mhz,
                         gboolean has_signal, gint32 signal_mbm, const char *ssid,
                         const guint8 *ies, gsize ies_len);
/* Parses one line (pure); on failure @error carries an RlScanLogError. */
gboolean rl_scanlog_parse (const char *line, gssize len, RlScanLogEntry *out, GError **error);

/* Cell records (issue 13): what a modem is registered on, between the BSS
 * lines of the same log:
 *   {"time": ISO 8601, "cell": {"modem": "0", "mcc": "262", "mnc": "01"}}
 *   {"time": ISO 8601, "cell": {"modem": "0", "mcc": null}}      (lost)
 * "mnc" may be absent.  The replay maps the code with readers/mcc.h. */
typedef struct {
  gint64 time;
  gboolean time_no_zone;    /* as RlScanLogEntry's */
  char modem[41];           /* letters, digits, '-', '_' */
  gboolean registered;
  guint mcc;                /* when registered */
  char mnc[4];              /* "" unknown */
} RlScanLogCell;

char *rl_scanlog_format_cell (gint64 time, const char *modem, gboolean registered, guint mcc, const char *mnc);
/* FALSE without @error when @line is not a cell record (no "cell" member:
 * a BSS line or junk, for rl_scanlog_parse() to judge); FALSE with an
 * RlScanLogError for a bad cell record. */
gboolean rl_scanlog_parse_cell (const char *line, gssize len, RlScanLogCell *out, GError **error);

/* Scan records: a scan completed (NL80211_CMD_NEW_SCAN_RESULTS), after the
 * BSS lines of its results, with the channels it covered:
 *   {"time": ISO 8601, "scan": {"ifname": "wlan0", "freqs": [2412, 2437, 5180]}}
 * "freqs" absent (or empty): the kernel did not list them.  A BSS on a
 * covered channel that it did not hear is gone, in the live BSS table and
 * in a replay alike.
 * NEW_SCAN_RESULTS comes when a scan is over; a full passive scan of the
 * 2.4, 5 and 6 GHz channels takes up to ten seconds or so.  What it heard
 * was heard in the last this many µs; an AP on a channel it covered and
 * last heard before that is gone. */
#define RL_SCANLOG_SCAN_SPAN_US (15 * G_USEC_PER_SEC)
#define RL_SCANLOG_MAX_FREQS 256

typedef struct {
  gint64 time;
  gboolean time_no_zone;    /* as RlScanLogEntry's */
  char ifname[17];
  guint n_freqs;
  guint32 freqs[RL_SCANLOG_MAX_FREQS];   /* MHz */
} RlScanLogScan;

char *rl_scanlog_format_scan (gint64 time, const char *ifname, const guint32 *freqs, guint n_freqs);
/* FALSE without @error when @line is not a scan record (no "scan" member);
 * FALSE with an RlScanLogError for a bad one. */
gboolean rl_scanlog_parse_scan (const char *line, gssize len, RlScanLogScan *out, GError **error);

G_END_DECLS
