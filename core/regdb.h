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
} RlRegdbError;

#define RL_REGDB_DEFAULT_PATH "/lib/firmware/regulatory.db"

typedef struct RlRegulatory RlRegulatory;

/* Parses a regulatory.db image (pure; fuzzable). */
gboolean rl_regdb_parse (const guint8 *data, gsize len, GHashTable *countries_out, GError **error);

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
