/* Territories and their sovereigns (docs/territories.md).
 *
 * Access points in Puerto Rico, Réunion or Guam mostly advertise their
 * sovereign's code (US, FR).  ISO 3166-2 lists those places as subdivisions
 * of the sovereign (US-PR "outlying area", FR-RE "overseas region"); the
 * table built from Debian's iso-codes at build time
 * (tools/iso-territories.py) says which.  Where the other evidence places the
 * machine in such a territory, the sovereign's access points are counted as
 * evidence for the territory; anywhere else they stay the sovereign's. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_TERRITORY_ERROR (rl_territory_error_quark ())
GQuark rl_territory_error_quark (void);

typedef enum {
  RL_TERRITORY_ERROR_PARSE,
} RlTerritoryError;

typedef struct RlTerritories RlTerritories;

/* Parses the generated table (place, sovereign, type, name; TAB-separated,
 * '#' comments).  @name is used in messages. */
RlTerritories *rl_territories_new_from_text (const char *text, const char *name, GError **error);
/* Reads @path (NULL: $REGLOC_TERRITORY_SOVEREIGNS, else the installed
 * table, else the one of the build tree). */
RlTerritories *rl_territories_load (const char *path, GError **error);
void rl_territories_free (RlTerritories *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlTerritories, rl_territories_free)

guint rl_territories_size (const RlTerritories *t);
/* The sovereign ISO 3166-2 lists @place under (or whose MCC numbers its
 * networks), or RL_COUNTRY_NONE. */
RlCountry rl_territories_sovereign (const RlTerritories *t, RlCountry place);
/* The kind of a place whose mobile networks are all numbered under another
 * country's MCC (IM under GB's 234), followed by the MCC. */
#define RL_TERRITORY_NUMBERED_KIND "Mobile networks numbered under MCC "
/* The subdivision type ("Outlying area") or RL_TERRITORY_NUMBERED_KIND
 * and the MCC, or NULL. */
const char *rl_territories_kind (const RlTerritories *t, RlCountry place);

/* What rl_territory_attribute () did. */
typedef struct {
  RlCountry place;          /* RL_COUNTRY_NONE: nothing */
  RlCountry sovereign;
  guint n_beacons;          /* beacon items that now count for @place */
  const char *by;           /* what placed it: "GPS fix", "last GPS fix", "mobile network" or "timezone" */
  RlCountry fix_place;      /* the territory a fix (live or remembered) places the machine in, whether or
                             * not an access point moves now: carried as RlDecision.fix_place */
  RlCountry network_of;     /* a network of this country reaches the sovereign only at @place */
  char kind[64];            /* the ISO 3166-2 type, or RL_TERRITORY_NUMBERED_KIND + MCC */
} RlTerritoryShift;

/* Where the live evidence (now) places the machine in a territory whose
 * sovereign its access points name, a copy of @evidence in which those
 * access points name the territory; NULL when nothing changes (then
 * @shift->place is RL_COUNTRY_NONE).  The place is the one the newest live
 * GPS fix with an error of at most @gps_max_error_m names, unless that fix
 * also names the sovereign; without such a fix, the territory a modem's
 * network names (all modems agreeing, the sovereign not named too) or the
 * one territory where the network's country touches the sovereign of live
 * access points (BR touches FR only in GF); else
 * the timezone's primary country (zone.tab), unless the zone also names
 * the sovereign.  One place
 * at most per call: a fix or zone naming two territories of one sovereign
 * changes nothing.  @last_fix_place: the territory a fix placed the machine
 * in before (RlDecision.fix_place), which stands in for a fix while none
 * is live.  Pure: no clock, no I/O. */
RlEvidence *rl_territory_attribute (const RlTerritories *t, const RlEvidence *evidence, gsize n_evidence,
                                    gint64 now, double gps_max_error_m, RlCountry last_fix_place,
                                    RlTerritoryShift *shift);

/* One sentence for the decision's explanation (NULL: nothing to say). */
char *rl_territory_shift_describe (const RlTerritoryShift *shift);
/* Appends that sentence to *@explanation (a g_malloc'ed string). */
void rl_territory_note (const RlTerritoryShift *shift, char **explanation);

G_END_DECLS
