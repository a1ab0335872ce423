/* GPX 1.0 / 1.1 reader (libxml2): trk/trkseg/trkpt, rte/rtept and wpt with
 * a <time>.  Namespaces, vendor extensions and metadata are ignored; a point
 * without a time cannot be placed on a timeline and is counted as such. */
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

/* TRUE when @data starts like an XML document with a <gpx> root. */
gboolean rl_gpx_sniff (const char *data, gsize len);

G_END_DECLS
