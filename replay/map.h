/* A map of a replay: the track over the borders of the boundary index,
 * coloured by the decision in force, as SVG, GeoJSON or KML.
 *
 * The replay streams its inputs, so the track is collected as the run
 * goes (rl_track_attach before rl_replay_run) and stays bounded: every
 * fix is kept until max_points, then the kept points are thinned to twice
 * the spacing (and so on), so a 10-hour trip keeps about max_points points
 * spread along its length; the fixes next to a decision change are always
 * kept.  The timeline (decision changes only) comes from the replay. */
#pragma once

#include <glib.h>
#include "replay/replay.h"
#include "geo/boundary.h"

G_BEGIN_DECLS

typedef struct {
  gint64 time;
  double lat, lon;
} RlTrackPoint;

typedef struct RlTrack RlTrack;

#define RL_TRACK_DEFAULT_POINTS 20000

RlTrack *rl_track_new (guint max_points);
void rl_track_free (RlTrack *track);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlTrack, rl_track_free)
/* Collects the GPS fixes @replay applies (replaces its event func). */
void rl_track_attach (RlTrack *track, RlReplay *replay);
/* The kept points in time order (the last fix included). */
const RlTrackPoint *rl_track_points (const RlTrack *track, guint *n);
/* Every fix seen, kept or not. */
guint64 rl_track_n_fixes (const RlTrack *track);
/* Metres between kept points (0 while every fix is kept). */
double rl_track_spacing_m (const RlTrack *track);

/* The documents; @index may be NULL (no borders drawn). */
char *rl_map_svg (const RlTrack *track, const RlReplay *replay, const RlBoundaryIndex *index);
char *rl_map_geojson (const RlTrack *track, const RlReplay *replay);
char *rl_map_kml (const RlTrack *track, const RlReplay *replay);

G_END_DECLS
