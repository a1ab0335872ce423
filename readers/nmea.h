/* NMEA 0183 reader (pure: memory in, fixes out; no I/O, no global state).
 *
 * Reads GGA, RMC, GNS and GLL for position, GSA for fix mode and HDOP, GST
 * for error estimates, from any talker (GP, GN, GL, GA, GB, …).  Sentences
 * of one epoch (same time of day) are merged into one fix; the date comes
 * from RMC or ZDA.  Checksums are required and verified.  Bytes between sentences
 * (binary receiver output) are skipped and counted as noise; lines that
 * start with '#' (comments of gpsd test logs, loggers and people) are
 * skipped and counted as comments, and a UTF-8 byte order mark at the
 * start is skipped; bad sentences are counted by reason and skipped.
 * Android's GnssLogger export is read too: a sentence in its
 * "NMEA,<sentence>,<unix ms>" record is read as any other (the time in ms,
 * the phone's clock, is not used) and counted, and its other records
 * (Fix, Raw, Status, the sensors) are counted as ignored.  The time
 * `gpspipe -t -r` writes before each line is taken off and counted
 * (readers/gpspipe-time.h). */
#pragma once

#include <glib.h>
#include "core/gps-fix.h"

G_BEGIN_DECLS

/* Appends RlGpsFix values to @fixes in file order and fills @stats
 * (zeroed first).  Never fails: a file with nothing usable gives no fixes. */
void rl_nmea_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats);

/* The same as a pull iterator: one fix at a time, in file order, from
 * @data (which must outlive the reader).  Fixes before the first RMC or
 * ZDA are dated from it as rl_nmea_parse() does.  The stats are complete once
 * rl_nmea_reader_next() returned FALSE. */
typedef struct RlNmeaReader RlNmeaReader;
RlNmeaReader *rl_nmea_reader_new (const char *data, gsize len);
gboolean rl_nmea_reader_next (RlNmeaReader *reader, RlGpsFix *fix);
/* For a log whose clock is broken (every sentence stamped alike): an
 * epoch ends where a position sentence type repeats, and times are
 * neither checked nor dated, only passed on for the caller to judge. */
RlNmeaReader *rl_nmea_reader_new_in_file_order (const char *data, gsize len);
/* TRUE when the log says its date somewhere (every fix will be dated). */
gboolean rl_nmea_reader_dated (const RlNmeaReader *reader);
/* Bytes of @data read so far: nothing before it is looked at again. */
gsize rl_nmea_reader_offset (const RlNmeaReader *reader);
const RlGpsParseStats *rl_nmea_reader_stats (const RlNmeaReader *reader);
void rl_nmea_reader_free (RlNmeaReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlNmeaReader, rl_nmea_reader_free)

/* TRUE when @data looks like NMEA: a checksummed sentence near the start,
 * or three whole lines of sentences without their checksums. */
gboolean rl_nmea_sniff (const char *data, gsize len);

G_END_DECLS
