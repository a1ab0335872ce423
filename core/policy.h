/* The voting engine (docs/design.md §4): evidence in, decision out.
 *
 * rl_policy_decide() is a pure function.  It reads no clock, does no I/O and
 * logs nothing: time comes in as @now, reasons go out in the decision for the
 * caller to log.  The same input always gives the same decision, whatever
 * the order of the evidence. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

typedef enum {
  RL_STATE_WORLD,      /* "00": no candidate has agreement */
  RL_STATE_TENTATIVE,  /* "00" while agreement waits out the hold-down */
  RL_STATE_DECIDED,
  RL_STATE_OVERRIDE,
  RL_STATE_CONFLICT,   /* strong witnesses disagree: "00" */
} RlState;

const char *rl_state_to_string (RlState state);
gboolean rl_state_from_string (const char *text, RlState *out);

/* The one key reason for a decision; tests assert on it, people read the text. */
typedef enum {
  RL_REASON_NO_EVIDENCE,
  RL_REASON_SINGLE_WITNESS,     /* only one witness (timezone alone, one AP, …) */
  RL_REASON_TIMEZONE_ONLY,      /* the timezone supports it, nothing else does */
  RL_REASON_BELOW_THRESHOLD,    /* two witnesses but combined confidence too low */
  RL_REASON_HOLD_DOWN,          /* agreement reached, waiting for hold_down */
  RL_REASON_AGREEMENT,          /* decided: witnesses agree */
  RL_REASON_CONFLICT,           /* strong witnesses name different countries */
  RL_REASON_AT_SEA,             /* a good GPS fix outside every country's waters */
  RL_REASON_NOT_IN_REGDB,       /* the winner is unknown to the regulatory database */
  RL_REASON_OVERRIDE,
  RL_REASON_SUPPORT_LOST,       /* the decided country lost its support: back to 00 */
  RL_REASON_TIE,                /* candidates with equal support: the evidence cannot tell them apart */
  RL_REASON_AIRBORNE,           /* a good GPS fix high and fast: in flight, 00 whatever the APs say */
  RL_REASON_SUPPORT_WANING,     /* decided: one deciding witness left, no rival, kept for support_grace */
} RlReason;

#define RL_REASON_LAST RL_REASON_SUPPORT_WANING

const char *rl_reason_to_string (RlReason reason);
gboolean rl_reason_from_string (const char *text, RlReason *out);

/* Every threshold of the [policy] group.  Defaults: rl_policy_params_init(). */
typedef struct {
  guint min_witnesses;              /* 2 */
  double confidence_threshold;      /* 0.8 */
  guint hold_down_s;                /* 30; 0 disables */
  guint hold_down_unheard_s;        /* 90: the hold-down of a modem's network with no access point heard */
  double gps_weight;                /* 0.8: one good fix */
  double gps_max_error_m;           /* 250: a fix with a larger error radius is no witness */
  double beacon_weight;             /* 0.7 per beacon witness */
  guint beacon_min_aps;             /* 2: distinct APs for one witness */
  double beacon_min_fraction;       /* 2/3 of the beacon votes */
  guint beacon_strong_aps;          /* 4 distinct APs … */
  guint beacon_strong_operators;    /* … from 3 operators, no dissent: two witnesses */
  guint beacon_max_aps_per_operator;/* 2: one operator cannot outvote the rest */
  double timezone_weight;           /* 0.4: confirms, never decides */
  guint max_age_s[RL_N_SOURCE_KINDS]; /* gps 600, beacons 900, timezone 0 = never, override 0 */
  /* One operator's large network is one witness on its own (docs/policy.md): */
  guint beacon_network_min_devices; /* 6 distinct devices (first five BSSID octets) … */
  guint beacon_network_min_channels;/* … on 3 channels … */
  guint beacon_network_min_bands;   /* … in 2 bands (2.4, 5, 6 GHz); 0 devices disables */
  double beacon_eu_weight;          /* 0.4: APs advertising "EU" confirm a member state, never decide */
  guint flap_hold_down_max_s;       /* 300: the hold-down doubles per conflict up to this */
  guint flap_calm_s;                /* 600: seconds without a conflict that reset the doubling */
  guint support_grace_s;            /* 120 (0: off): a decision down to one deciding witness is kept this long */
  /* moving platforms and freshness (issue 10 items 4-5) */
  double airborne_min_altitude_m;   /* 2000: above mean sea level … */
  double airborne_min_speed_kmh;    /* 150: … and faster than this: airborne */
  /* the mobile network (issue 13) */
  double driver_weight;             /* 0.4: a self-managed card's country confirms beside a fix or a cell, never decides */
  double cell_weight;               /* 0.7: a registered cell is one witness, like a beacon witness */
  /* faint access points (docs/policy.md, rule 4) */
  double beacon_faint_dbm;          /* -85: a country heard only at or below this … */
  double beacon_faint_margin_db;    /* 30: … or this far below the strongest AP heard forms no witness */
  /* access points that travel with the machine (docs/policy.md, rule 4c;
   * judged by the evidence set, rl_evidence_set_set_ride_along) */
  guint beacon_ride_along_window_s; /* 600 (0: off): heard without a break this long … */
  guint beacon_ride_along_lost;     /* 4: … while at least this many other devices were lost */
} RlPolicyParams;

void rl_policy_params_init (RlPolicyParams *params);
/* The hold-down after @conflicts conflicts: hold_down doubled per conflict,
 * at most flap_hold_down_max (never below hold_down). */
guint rl_policy_hold_down (const RlPolicyParams *params, guint conflicts);

/* Which regulatory code a location country uses (AX → FI); RL_COUNTRY_NONE
 * when the regulatory database has no rules for it (the decision stays 00).
 * NULL means every country maps to itself. */
typedef RlCountry (*RlRegulatoryMap) (RlCountry location, gpointer user_data);

typedef struct {
  RlCountry country;
  guint witnesses;
  double confidence;
  guint beacon_aps;        /* distinct APs (after grouping) naming it */
  guint beacon_operators;
  gboolean gps, timezone;  /* supported by the GPS fix / the timezone */
  gboolean gps_ambiguous;  /* the fix also names other countries: it confirms, never decides */
  gboolean eu;             /* confirmed by access points advertising "EU" */
  guint beacon_devices;    /* access-point groups (devices, networks) naming it, before the cap */
  guint beacon_bssids;     /* BSSIDs naming it */
  gboolean beacon_network; /* one operator's large network is a witness for it */
  guint deciding;          /* witnesses that may decide: a GPS fix naming only it, beacon witnesses, a cell */
  gboolean cell;           /* a modem's registered network names it (its MCC) */
  gboolean cell_ambiguous; /* … and other countries too (MCC 310: US and its territories): confirms only */
  gboolean driver;         /* a self-managed card's firmware names it, beside a fix or a cell: confirms only */
  gboolean heard_well;     /* one of its access points is not faint (rule 4b); the next decision's
                            * faint test gives it a few dB of slack (hysteresis) */
} RlCandidate;

typedef struct {
  RlCountry country;       /* RL_COUNTRY_WORLD unless decided or overridden */
  RlState state;
  RlReason reason;
  double confidence;       /* support of the reported country or leading candidate */
  RlCountry candidate;     /* leading candidate with agreement, or NONE */
  gint64 candidate_since;  /* evidence time agreement on @candidate began */
  gint64 candidate_heard;  /* began as a scan withdrew a dissenter: the last scan then; 0: not so */
  gboolean candidate_once; /* … a dissenter that scan's forerunner alone had heard (RlPolicyAir) */
  gint64 changed_at;       /* evidence time @country/@state last changed */
  gint64 next_check;       /* earliest instant this may change with no new evidence; RL_NEVER */
  GArray *candidates;      /* RlCandidate, best first */
  char *explanation;       /* one paragraph for people */
  char *summary;           /* one line: the key reason in words */
  /* Flapping at a line: conflicts seen since the last calm period, each
   * doubling the hold-down of the next entry into a country. */
  guint conflicts;
  gint64 last_conflict_at; /* evidence time a conflict was last in force; 0: never */
  gboolean in_conflict;    /* strong witnesses disagreed (also while overridden) */
  guint hold_down_s;       /* the hold-down in force for entering a country */
  gint64 waning_since;     /* evidence time the decided country fell to one witness; 0: not waning */
  /* The territory the last good GPS fix placed the machine in, kept while
   * no fix is live (a fix lost indoors in Guadeloupe does not send the
   * FR access points back to FR); RL_COUNTRY_NONE: none (core/territory.h). */
  RlCountry fix_place;
  /* Access points a good GPS fix contradicted (RlSuspect, by key): no
   * witness while they are heard, carried from decision to decision
   * (core/contradiction.h). */
  GArray *suspects;
  /* @explanation and @summary at RL_DETAIL_PUBLIC (core/evidence.h): no
   * position, border distance, BSSID or SSID; counts and countries stay.
   * @explanation/@summary are the full level, for callers allowed to read
   * the location, logs and replays.  Both are built from the typed
   * decision by the same functions (policy.c, "the words"). */
  char *explanation_public;
  char *summary_public;
} RlDecision;

RlDecision *rl_decision_new_initial (void);
void rl_decision_free (RlDecision *decision);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlDecision, rl_decision_free)

/* What the Wi-Fi's last scan heard besides the evidence items. */
typedef struct {
  /* The loudest globally administered access point that sends no usable
   * Country element (100 * dBm; 0: none, or no signal known).  Rule 4b
   * measures faintness from it too where other evidence names another
   * country: a family's own box on the desk often sends none. */
  gint32 silent_mbm;
  /* The last scan withdrew an access point that only the scan before had
   * heard: agreement beginning as it went waits for the next scan (rule 8). */
  gboolean withdrew_once_heard;
} RlPolicyAir;

/* @previous may be NULL (first decision).  @evidence is not modified.
 * @air may be NULL: nothing heard besides the items. */
RlDecision *rl_policy_decide (const RlPolicyParams *params,
                              RlRegulatoryMap regmap,
                              gpointer regmap_data,
                              const RlDecision *previous,
                              const RlEvidence *evidence,
                              gsize n_evidence,
                              const RlPolicyAir *air,
                              gint64 now);

G_END_DECLS
