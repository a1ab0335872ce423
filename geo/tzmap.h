/* Timezone name → countries, from the system's tzdata tables (docs/design.md §3, §7):
 * zone.tab names the primary country, zone1970.tab every country that keeps
 * the same clock, tzdata.zi's links resolve old names (Europe/Kiev). */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_TZMAP_DEFAULT_DIR "/usr/share/zoneinfo"

typedef struct RlTzMap RlTzMap;

/* Reads the tables under @zoneinfo_dir (NULL = default).  Fails only when
 * neither zone.tab nor zone1970.tab can be read. */
RlTzMap *rl_tzmap_new (const char *zoneinfo_dir, GError **error);
void rl_tzmap_free (RlTzMap *map);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlTzMap, rl_tzmap_free)

/* Fills @countries (primary first) for @zone; returns how many (0 for
 * UTC, Etc/…, unknown zones).  *@canonical (may be NULL) gets the zone
 * name after following links; free with g_free. */
guint rl_tzmap_lookup (const RlTzMap *map, const char *zone, RlCountry countries[RL_MAX_CANDIDATES], char **canonical);

/* FALSE when @zone is no zone or link of the installed tzdata (a typo such
 * as Europe/Berlinn, or a name newer than the package): it is then not "a
 * zone that names no country" like UTC.  TRUE when tzdata.zi is missing and
 * the question cannot be answered. */
gboolean rl_tzmap_knows (const RlTzMap *map, const char *zone);

/* The zone name of a localtime file: the symlink target below "zoneinfo/";
 * for a plain TZif copy, the zone in @map's directory with identical bytes.
 * NULL (with @error) when unreadable or no zone matches. */
char *rl_tzmap_zone_from_localtime (const RlTzMap *map, const char *localtime_path, GError **error);

/* Builds the timezone evidence item for @zone (no country → FALSE). */
gboolean rl_tzmap_evidence (const RlTzMap *map, const char *zone, gint64 observed_at, gint64 expires_at, RlEvidence *out);

G_END_DECLS
