/* What the kernel can apply: the country list of the installed
 * regulatory.db (docs/design.md §9), plus data/territories.tsv for the ISO codes
 * the database lacks (AX → FI, XK → stays 00, …). */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "core/territory.h"

G_BEGIN_DECLS

#define RL_REGDB_ERROR (rl_regdb_error_quark ())
GQuark rl_regdb_error_quark (void);

typedef enum {
  RL_REGDB_ERROR_MISSING,
  RL_REGDB_ERROR_CORRUPT,
  RL_REGDB_ERROR_TERRITORIES,
  RL_REGDB_ERROR_UNKNOWN_COUNTRY,   /* the database has no entry for it */
} RlRegdbError;

#define RL_REGDB_DEFAULT_PATH "/lib/firmware/regulatory.db"

typedef struct RlRegulatory RlRegulatory;

/* The DFS region of a collection (the kernel's enum nl80211_dfs_regions). */
typedef enum {
  RL_DFS_UNSET = 0,
  RL_DFS_FCC = 1,
  RL_DFS_ETSI = 2,
  RL_DFS_JP = 3,
} RlDfsRegion;

/* The flag bits of a rule as the file stores them (fewer than nl80211's:
 * the format has no NO-CCK, NO-INDOOR, PTP-ONLY or PTMP-ONLY). */
typedef enum {
  RL_RULE_NO_OFDM = 1u << 0,
  RL_RULE_NO_OUTDOOR = 1u << 1,
  RL_RULE_DFS = 1u << 2,
  RL_RULE_NO_IR = 1u << 3,
  RL_RULE_AUTO_BW = 1u << 4,
} RlRuleFlags;
#define RL_RULE_N_FLAGS 5

/* One frequency rule.  The format stores no antenna gain (the kernel uses 0). */
typedef struct {
  guint32 start_khz, end_khz, max_bw_khz;
  guint16 max_eirp_mbm;      /* 100 × dBm */
  guint8 flags;              /* RlRuleFlags; unknown bits kept as read */
  gboolean has_cac;          /* the rule is long enough to carry a CAC time */
  guint16 cac_s;             /* 0: the driver's default */
  gboolean has_wmm;          /* it points to WMM limits (ETSI), not decoded here */
} RlRegRule;

typedef struct {
  RlCountry country;
  guint8 dfs_region;         /* RlDfsRegion; other values kept as read */
  guint n_rules;
  RlRegRule *rules;
} RlRegDomain;

/* Parses a regulatory.db image (pure; fuzzable): checks all of it (every
 * country, collection, rule and WMM pointer) and fills @countries_out. */
gboolean rl_regdb_parse (const guint8 *data, gsize len, GHashTable *countries_out, GError **error);
/* The same checks, then the rules of @country (RL_REGDB_ERROR_UNKNOWN_COUNTRY
 * when the image has no entry for it). */
RlRegDomain *rl_regdb_parse_domain (const guint8 *data, gsize len, RlCountry country, GError **error);
void rl_reg_domain_free (RlRegDomain *domain);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlRegDomain, rl_reg_domain_free)

/* "NO-OFDM", "NO-OUTDOOR", "DFS", "NO-IR", "AUTO-BW"; NULL for other bits. */
const char *rl_rule_flag_name (RlRuleFlags flag);
gboolean rl_rule_flag_from_name (const char *name, RlRuleFlags *flag);
/* "unset", "FCC", "ETSI", "JP", or "unknown-N" for a value the kernel does
 * not define; written to @buf when it is not one of the four. */
const char *rl_dfs_region_to_string (guint8 region, char buf[16]);
gboolean rl_dfs_region_from_string (const char *name, guint8 *region);

/* Loads @regdb_path and @territories_path (NULL = built-in default).  Never
 * returns NULL: on error the result allows only "00" and carries the error
 * text for status output; @error is set too. */
RlRegulatory *rl_regulatory_load (const char *regdb_path, const char *territories_path, GError **error);
RlRegulatory *rl_regulatory_new_world_only (const char *why);
void rl_regulatory_free (RlRegulatory *reg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlRegulatory, rl_regulatory_free)

gboolean rl_regulatory_has (const RlRegulatory *reg, RlCountry country);
guint rl_regulatory_n_countries (const RlRegulatory *reg);
const char *rl_regulatory_problem (const RlRegulatory *reg);   /* NULL when fine */
/* The rules of @country from the loaded image: RL_REGDB_ERROR_MISSING (or
 * _CORRUPT) when there is no usable database, _UNKNOWN_COUNTRY when it
 * lacks the code. */
RlRegDomain *rl_regulatory_domain (const RlRegulatory *reg, RlCountry country, GError **error);
/* The code to apply for a location country: itself when the database has it,
 * the sovereign's when the territory table says so, else RL_COUNTRY_NONE.
 * Signature fits RlRegulatoryMap. */
RlCountry rl_regulatory_map (RlCountry location, gpointer reg);
/* Why a territory maps where it does (for explanations); NULL if not in the table. */
const char *rl_regulatory_territory_note (const RlRegulatory *reg, RlCountry location);

/* The territory → sovereign table (core/territory.h) loaded with the
 * database ($REGLOC_TERRITORY_SOVEREIGNS or the installed one); NULL when
 * it could not be read (the problem text says so). */
const RlTerritories *rl_regulatory_territories (const RlRegulatory *reg);

G_END_DECLS
