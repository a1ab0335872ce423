/* The live GPS source: gpsd over a GSocket in the GLib main loop, its reports
 * judged by the gpsd JSON reader (readers/gpsd-json.h). */
#pragma once

#include <glib.h>
#include "daemon/sources/source.h"
#include "geo/gps-evidence.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_gps_source_ops;

/* What the ops' create() does with an explicit lookup (tests place points
 * without a boundary index).  Returns NULL when [gps] enabled=false. */
RlSource *rl_gps_source_new (const RlConfig *config, const RlSourceSink *sink,
                             RlGpsLookupFunc lookup, const RlBoundaryIndex *index);

/* Counters for status output and tests. */
typedef struct {
  guint64 connects;        /* successful connections to gpsd */
  guint64 disconnects;     /* connections lost */
  guint64 connect_failures;/* attempts that found no gpsd (connection refused, timed out, no such host) */
  guint64 fixes_used;
  guint64 rejected[RL_GPS_N_REJECTS];
  guint retry_in_s;        /* next reconnect attempt, 0 while connected */
  guint64 fix_lost;        /* the receiver lost its fix: the GPS item withdrawn */
  guint64 gpsd_errors;     /* gpsd's ERROR reports ("Can't open /dev/ttyUSB0: Permission denied") */
} RlGpsSourceStats;

void rl_gps_source_get_stats (RlSource *source, RlGpsSourceStats *out);

G_END_DECLS
