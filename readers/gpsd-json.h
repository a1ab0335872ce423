/* gpsd JSON reader: the lines `gpspipe -w` writes (TPV, SKY, and the
 * VERSION/DEVICES/WATCH chatter), with or without the time `gpspipe -t`
 * writes before each (readers/gpspipe-time.h; taken off and counted).
 * Each TPV is judged by the same function as a report from the live gpsd
 * socket. */
#pragma once

#include <glib.h>
#include <gps.h>
#include "core/gps-fix.h"

G_BEGIN_DECLS

/* Pure: memory in, fixes out (appended to @fixes; @stats zeroed first). */
void rl_gpsd_json_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats);

/* The same as a pull iterator over @data (which must outlive it); the
 * stats are complete once rl_gpsd_json_reader_next() returned FALSE. */
typedef struct RlGpsdJsonReader RlGpsdJsonReader;
RlGpsdJsonReader *rl_gpsd_json_reader_new (const char *data, gsize len);
/* For a log whose clock is broken: times before 1970 and times that do
 * not move forward are passed on as they are, for the caller to judge. */
RlGpsdJsonReader *rl_gpsd_json_reader_new_in_file_order (const char *data, gsize len);
gboolean rl_gpsd_json_reader_next (RlGpsdJsonReader *reader, RlGpsFix *fix);

/* A live gpsd connection's reports, fed one line (without its newline) at
 * a time, judged by the same code as a file; the stats count them.  The
 * receiver's clock may step back (a live fix is dated by the wall clock),
 * so unlike a file no fix is refused for that. */
typedef enum {
  RL_GPSD_LINE_IGNORED,     /* no position to judge: VERSION, DEVICES, WATCH, SKY, blank */
  RL_GPSD_LINE_FIX,         /* @fix is a usable fix */
  RL_GPSD_LINE_LOST,        /* the receiver says it has no fix (TPV mode 1) */
  RL_GPSD_LINE_REJECTED,    /* counted in the stats' rejected[] by reason */
} RlGpsdLine;
RlGpsdJsonReader *rl_gpsd_json_reader_new_live (void);
RlGpsdLine rl_gpsd_json_reader_feed_line (RlGpsdJsonReader *reader, const char *line, gsize n, RlGpsFix *fix);
gsize rl_gpsd_json_reader_offset (const RlGpsdJsonReader *reader);
/* gpsd's ERROR reports ("Can't open /dev/ttyUSB0: Permission denied"),
 * counted as ignored: how many were read, and the first few with their
 * lines (from 1), the words made safe to print (NULL past the last kept). */
#define RL_GPSD_ERRORS_KEPT 3
guint64 rl_gpsd_json_reader_n_errors (const RlGpsdJsonReader *reader);
const char *rl_gpsd_json_reader_error (const RlGpsdJsonReader *reader, guint i, guint64 *line);
/* The words of the last ERROR report read (made safe to print), NULL
 * before the first: what a live gpsd says now. */
const char *rl_gpsd_json_reader_last_error (const RlGpsdJsonReader *reader);
const RlGpsParseStats *rl_gpsd_json_reader_stats (const RlGpsdJsonReader *reader);
void rl_gpsd_json_reader_free (RlGpsdJsonReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlGpsdJsonReader, rl_gpsd_json_reader_free)

/* TRUE when the first line that is neither blank, a '#' comment nor gpsd's
 * banner (VERSION, DEVICES, DEVICE, WATCH: what `gpspipe -r` also writes
 * before its NMEA) is a gpsd JSON object ("class":…), or when there is
 * nothing but the banner.  Past a UTF-8 byte order mark, and past the
 * time `gpspipe -t` writes before each line. */
gboolean rl_gpsd_json_sniff (const char *data, gsize len);
/* Bytes of that banner (with the mark, blanks and comments among it) at
 * the start of @data: where another format's sniffing starts. */
gsize rl_gpsd_json_banner_length (const char *data, gsize len);

/* The one place a gpsd report (in libgps's struct) becomes a fix.
 * Call after a TPV (MODE_SET in @data->set).  FALSE with @why when the
 * report is no usable fix. */
gboolean rl_gps_fix_from_gps_data (const struct gps_data_t *data, RlGpsFix *fix, RlGpsReject *why);

G_END_DECLS
