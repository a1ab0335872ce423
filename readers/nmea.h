/* NMEA 0183 reader (pure: memory in, fixes out; no I/O, no global state).
 *
 * Reads GGA, RMC, GNS and GLL for position, GSA for fix mode and HDOP, GST
 * for error estimates, from any talker (GP, GN, GL, GA, GB, …).  Sentences
 * of one epoch (same time of day) are merged into one fix; the date comes
 * from RMC.  Checksums are required and verified.  Bytes between sentences
 * (binary receiver output, '#' comment lines of gpsd test logs) are
 * skipped, bad sentences counted by reason and skipped. */
#pragma once

#include <glib.h>
#include "core/gps-fix.h"

G_BEGIN_DECLS

/* Appends RlGpsFix values to @fixes in file order and fills @stats
 * (zeroed first).  Never fails: a file with nothing usable gives no fixes. */
void rl_nmea_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats);

/* TRUE when @data looks like NMEA: a checksummed sentence near the start. */
gboolean rl_nmea_sniff (const char *data, gsize len);

G_END_DECLS
