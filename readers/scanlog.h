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
  char ifname[17];
  guint8 bssid[6];
  guint32 freq_mhz;         /* 0 unknown */
  gboolean has_signal;
  gint32 signal_mbm;
  char ssid[33];
  guint8 *ies;              /* owned */
  gsize ies_len;
} RlScanLogEntry;

void rl_scanlog_entry_clear (RlScanLogEntry *entry);

/* One line, without the newline. */
char *rl_scanlog_format (gint64 time, const char *ifname, const guint8 bssid[6], guint32 freq_mhz,
                         gboolean has_signal, gint32 signal_mbm, const char *ssid,
                         const guint8 *ies, gsize ies_len);
/* Parses one line (pure); on failure @error carries an RlScanLogError. */
gboolean rl_scanlog_parse (const char *line, gssize len, RlScanLogEntry *out, GError **error);

G_END_DECLS
