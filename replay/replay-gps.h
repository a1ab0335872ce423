/* GPS files as replay input: NMEA 0183, gpsd JSON, GPX → evidence events. */
#pragma once

#include <glib.h>
#include "replay/replay.h"
#include "geo/boundary.h"
#include "core/gps-fix.h"
#include "geo/gps-evidence.h"

G_BEGIN_DECLS

#define RL_REPLAY_GPS_ERROR (rl_replay_gps_error_quark ())
GQuark rl_replay_gps_error_quark (void);

typedef enum {
  RL_REPLAY_GPS_ERROR_FORMAT,   /* unknown or unreadable as the format asked for */
  RL_REPLAY_GPS_ERROR_DATE,     /* --date is not YYYY-MM-DD */
  RL_REPLAY_GPS_ERROR_NO_INDEX, /* no boundary index to place fixes */
} RlReplayGpsError;

/* Opens @path (format NULL = detect from content, or "nmea", "gpsd", "gpx")
 * as an input of @replay: when it runs, one evidence item per usable fix,
 * read as the run goes, and the rest counted.  A log whose clock is broken
 * (every fix stamped alike, times before 1970, GPX points without time
 * but a time in the metadata) is replayed in file order, with a note.  @date
 * (YYYY-MM-DD or NULL) dates logs that carry only a time of day.  Several
 * files may be loaded into one replay: the engine merges them by time. */
gboolean rl_replay_load_gps_file (RlReplay *replay, const char *path, const char *format,
                                  const char *date, const RlConfig *config,
                                  const RlBoundaryIndex *index, GError **error);

/* The same from a mapped file (the replay holds a reference). */
gboolean rl_replay_load_gps_mapped (RlReplay *replay, const char *name, GMappedFile *map,
                                    const char *format, const char *date,
                                    const RlGpsEvidenceParams *params, double max_error_m,
                                    GError **error);

/* The same from bytes in memory (the replay holds a reference). */
gboolean rl_replay_load_gps_bytes (RlReplay *replay, const char *name, GBytes *bytes,
                                   const char *format, const char *date,
                                   const RlGpsEvidenceParams *params, double max_error_m,
                                   GError **error);

/* The same from memory (copied) with an injectable lookup (@name labels notes and errors). */
gboolean rl_replay_load_gps_data (RlReplay *replay, const char *name, const char *data, gsize len,
                                  const char *format, const char *date,
                                  const RlGpsEvidenceParams *params, double max_error_m,
                                  GError **error);

/* "nmea", "gpsd", "gpx", or NULL when @data is none of them. */
const char *rl_gps_detect_format (const char *data, gsize len);

G_END_DECLS
