/* Scenario files: hand-written, timestamped evidence for the policy (see
 * docs/scenario-format.md).  Parsed into an RlReplay; the `expect` lines
 * are returned for checking after the run. */
#pragma once

#include <glib.h>
#include "replay/replay.h"
#include "geo/tzmap.h"

G_BEGIN_DECLS

#define RL_SCENARIO_ERROR (rl_scenario_error_quark ())
GQuark rl_scenario_error_quark (void);

/* Where a GPS line without countries= gets its country; NULL = none. */
typedef gboolean (*RlPointLookup) (gpointer data, double lat, double lon,
                                   RlCountry *country, double *border_m, RlCountry *neighbour);

/* An RlPointLookup over the boundary index (@data: an RlBoundaryIndex). */
gboolean rl_scenario_boundary_lookup (gpointer data, double lat, double lon,
                                      RlCountry *country, double *border_m, RlCountry *neighbour);

/* What an expect line asks of the timeline (docs/scenario-format.md). */
typedef enum {
  RL_SCENARIO_EXPECT_FINAL,   /* expect CC …: the final decision */
  RL_SCENARIO_EXPECT_AT,      /* expect-at T CC …: the decision in force at T */
  RL_SCENARIO_EXPECT_WITHIN,  /* expect-within T CC …: in force at some instant in [0, T] */
  RL_SCENARIO_EXPECT_NEVER,   /* expect-never CC …: in force at no instant of the run */
} RlScenarioExpectKind;

typedef struct {
  gint64 time;             /* RL_NEVER: the final decision (and expect-never) */
  RlCountry country;
  RlState state;           /* only when has_state */
  gboolean has_reason;
  RlReason reason;
  guint line;
  RlScenarioExpectKind kind;
  gboolean has_state;      /* FALSE: any state ("expect 00", "expect 00 any") */
  gint64 start;            /* evidence time of offset 0, for the report */
} RlScenarioExpect;

typedef struct {
  const RlConfig *config;
  const RlTzMap *tzmap;    /* for timezone lines; may be NULL (then they fail) */
  RlPointLookup lookup;
  gpointer lookup_data;
} RlScenarioContext;

/* Parses @text into @replay; fills @expects (RlScenarioExpect).  Errors name
 * the file and line.  Beacon lines go through the Country element parser
 * and GPS lines through rl_gps_evidence_from_fix(), as the live sources and
 * the scan-log / GPS-log replays do; a beacon whose country string the
 * parser refuses (XX, 00, digits, environment X) is counted
 * ("scenario.skipped.<why>"), noted, and gives no vote. */
gboolean rl_scenario_parse (const char *text, const char *name, const RlScenarioContext *ctx,
                            RlReplay *replay, GArray *expects, gboolean *settle, GError **error);

/* Checks @expects against the replay; returns the number that failed and
 * appends one line per expectation ("ok   line N: …" / "FAIL line N: …")
 * to @report. */
guint rl_scenario_check (const RlReplay *replay, const GArray *expects, GString *report);


G_END_DECLS
