/* One position fix as the GPS readers hand it on, and what they skipped.
 *
 * Every reader (NMEA, gpsd JSON, GPX, the live gpsd socket) turns its input
 * into RlGpsFix values; geo/gps-evidence.c alone turns a fix into
 * evidence, so live and replay judge fixes the same way. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  /* @time counts from the Unix epoch.  Without it, @time is µs since
   * midnight UTC of day @day (NMEA GGA/GLL/GNS carry no date). */
  RL_GPS_FIX_HAS_DATE = 1 << 0,
  /* The date was carried over from another sentence of the log (RMC before
   * or after), not read from this epoch. */
  RL_GPS_FIX_DATE_INFERRED = 1 << 1,
  /* Readers in file-order mode only (a replay of a log whose clock is
   * broken): the record had no time at all; @time means nothing. */
  RL_GPS_FIX_NO_TIME = 1 << 2,
  /* Not a position: the receiver said at @time that it has no fix any more
   * (gpsd TPV mode < 2, NMEA RMC status V, GGA quality 0).  lat/lon are NAN
   * and mode is 1; consumers withdraw the GPS item instead of letting an
   * old fix age out. */
  RL_GPS_FIX_LOST = 1 << 3,
} RlGpsFixFlags;

typedef struct {
  gint64 time;        /* µs, see RL_GPS_FIX_HAS_DATE */
  gint32 day;         /* without a date: days since the first fix of the file (UTC rollovers) */
  guint32 flags;      /* RlGpsFixFlags */
  double lat, lon;    /* degrees WGS84 */
  int mode;           /* 2 = 2D, 3 = 3D; 1 only with RL_GPS_FIX_LOST */
  double eph;         /* horizontal error estimate, m; NAN unknown */
  double epx, epy;    /* longitude / latitude error, m; NAN unknown */
  double hdop;        /* NAN unknown */
  double altitude_m;  /* above mean sea level (GGA, TPV altMSL/alt, GPX ele); NAN unknown */
  double speed_mps;   /* over ground (RMC/VTG knots, TPV speed, GPX); NAN unknown */
} RlGpsFix;

void rl_gps_fix_init (RlGpsFix *fix);

/* Why a record did not become a fix.  Counted, never fatal. */
typedef enum {
  RL_GPS_REJECT_BAD_CHECKSUM,   /* NMEA checksum mismatch */
  RL_GPS_REJECT_TRUNCATED,      /* record cut short: no checksum, unbalanced JSON */
  RL_GPS_REJECT_MALFORMED,      /* fields missing or not numbers; not JSON; bad XML element */
  RL_GPS_REJECT_NO_FIX,         /* receiver says no fix (status V, quality 0, mode < 2) */
  RL_GPS_REJECT_NO_TIME,        /* position without any time */
  RL_GPS_REJECT_BAD_VALUE,      /* impossible values: lat 91°, minute 61, month 13 */
  RL_GPS_REJECT_TIME_BACKWARDS, /* earlier than the fix before it */
  RL_GPS_REJECT_NULL_ISLAND,    /* exactly 0°N 0°E: a receiver's placeholder, no position */
  RL_GPS_N_REJECTS
} RlGpsReject;

/* Values no receiver's real position has, whatever the reader: exactly
 * 0°N 0°E (receivers and gpsd report it before their first fix, some with
 * a status that says valid).  RL_GPS_N_REJECTS: none. */
RlGpsReject rl_gps_fix_judge (const RlGpsFix *fix);

/* "bad_checksum", "truncated", … (used in replay counter names). */
const char *rl_gps_reject_to_string (RlGpsReject reason);

typedef enum {
  RL_GPS_DATE_NONE,      /* the file never says the date: fixes carry time of day only */
  RL_GPS_DATE_FROM_FILE, /* every fix dated by the file itself */
  RL_GPS_DATE_PARTIAL,   /* some epochs got their date from a neighbouring RMC */
} RlGpsDateSource;

typedef struct {
  guint64 records;        /* sentences / JSON lines / points examined */
  guint64 fixes;          /* fixes produced (fix-lost events included) */
  guint64 ignored;        /* valid records that carry no position (GSV, VTG, SKY, …) */
  guint64 noise_bytes;    /* bytes outside any record (binary receiver output) */
  guint64 rejected[RL_GPS_N_REJECTS];
  RlGpsDateSource date_source;
  guint64 fix_lost;       /* of @fixes, how many are RL_GPS_FIX_LOST events */
  guint64 planned;        /* GPX <wpt>/<rtept>: places named or planned, not where the receiver was */
  guint64 comments;       /* gpsd JSON, NMEA: '#' lines someone wrote on the log, not records */
  guint64 gnsslogger;     /* NMEA: sentences read from Android GnssLogger's "NMEA,<sentence>,<ms>" records */
  guint64 timestamped;    /* gpsd JSON, NMEA: lines that began with gpspipe -t's time, taken off */
  /* the first record rejected, for a note: its line (from 1; 0 none or
   * unknown) and why, in words (a static string) */
  guint64 first_reject_line;
  const char *first_reject_why;
} RlGpsParseStats;

static inline gboolean
rl_gps_fix_is_lost (const RlGpsFix *fix)
{
  return (fix->flags & RL_GPS_FIX_LOST) != 0;
}

/* A fix-lost event at @time (same time conventions as a fix). */
void rl_gps_fix_init_lost (RlGpsFix *fix, gint64 time, gint32 day, guint32 flags);

guint64 rl_gps_parse_stats_rejected_total (const RlGpsParseStats *stats);

/* Counts a record rejected for @why; the first one's @line (from 1) and
 * @text (static; NULL: the reason's own words) are kept, so that a replay
 * can say where a file went wrong and not only how often. */
void rl_gps_parse_stats_reject (RlGpsParseStats *stats, RlGpsReject why, guint64 line, const char *text);

/* Makes @time absolute for a fix that has no date: @base_day_us is midnight
 * UTC (µs since epoch) of the file's first day. */
gint64 rl_gps_fix_absolute_time (const RlGpsFix *fix, gint64 base_day_us);

/* Days-from-civil: midnight UTC of @year-@month-@day in µs since the epoch;
 * FALSE when the date does not exist. */
gboolean rl_gps_civil_to_us (int year, int month, int day, gint64 *out);

G_END_DECLS
