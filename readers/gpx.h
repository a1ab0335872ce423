/* GPX 1.0 / 1.1 reader (libxml2): the track points (trk/trkseg/trkpt) with
 * a <time>.  Waypoints (<wpt>: home, a planned stop, a photo spot) and route
 * points (<rte>/<rtept>: a plan) say where someone meant to be, not where the
 * receiver was: counted as planned, never read as fixes.  Namespaces, vendor
 * extensions and metadata are ignored; a track point without a time cannot
 * be placed on a timeline and is counted as such. */
#pragma once

#include <glib.h>
#include "core/gps-fix.h"

G_BEGIN_DECLS

#define RL_GPX_ERROR (rl_gpx_error_quark ())
GQuark rl_gpx_error_quark (void);

typedef enum {
  RL_GPX_ERROR_NOT_XML,
  RL_GPX_ERROR_NOT_GPX,
} RlGpxError;

/* Pure: memory in, fixes out (appended; @stats zeroed first).  FALSE when
 * @data is not XML or its root is not <gpx>. */
gboolean rl_gpx_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats, GError **error);

/* The same as a pull iterator (libxml2's stream reader: memory does not
 * grow with the file).  NULL with @error when @data is not XML or its root
 * is not <gpx>.  A document that breaks off later ends the points there:
 * rl_gpx_reader_error() says why. */
typedef struct RlGpxReader RlGpxReader;
RlGpxReader *rl_gpx_reader_new (const char *data, gsize len, GError **error);
/* For a document whose clock is broken: points without a time
 * (RL_GPS_FIX_NO_TIME) and times before 1970 are passed on. */
RlGpxReader *rl_gpx_reader_new_in_file_order (const char *data, gsize len, GError **error);
gboolean rl_gpx_reader_next (RlGpxReader *reader, RlGpsFix *fix);
const GError *rl_gpx_reader_error (const RlGpxReader *reader);
/* The document's own time (GPX 1.1 <metadata><time>, GPX 1.0 <time>), once
 * the reader has passed it. */
gboolean rl_gpx_reader_metadata_time (const RlGpxReader *reader, gint64 *time);
gsize rl_gpx_reader_offset (const RlGpxReader *reader);
const RlGpsParseStats *rl_gpx_reader_stats (const RlGpxReader *reader);
void rl_gpx_reader_free (RlGpxReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlGpxReader, rl_gpx_reader_free)

/* TRUE when @data starts like an XML document with a <gpx> root: in
 * UTF-8 (or ASCII), or in UTF-16 after its byte order mark. */
gboolean rl_gpx_sniff (const char *data, gsize len);

G_END_DECLS
