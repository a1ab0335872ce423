/* regulatory.db reader and the territory table.  The checks follow what the
 * kernel itself accepts (net/wireless/reg.c: valid_regdb): every pointer is
 * bounds-checked before it is read. */
#include "core/regdb.h"

#include <stdarg.h>
#include <string.h>
#include "core/paths.h"

G_DEFINE_QUARK (rl-regdb-error-quark, rl_regdb_error)

#define RGDB_MAGIC 0x52474442u
#define RGDB_VERSION 20u
#define RULE_MIN_LEN 16u   /* len, flags, max_eirp, start, end, max_bw */

struct RlRegulatory {
  GHashTable *countries;     /* RlCountry → TRUE */
  GHashTable *territories;   /* RlCountry → Territory* */
  char *problem;
  GBytes *image;             /* the checked file, for the rules; NULL when unusable */
  RlTerritories *sovereigns; /* territory → sovereign (ISO 3166-2), or NULL */
};

typedef struct {
  RlCountry rules;           /* RL_COUNTRY_WORLD: stay on 00 */
  char *reason;
} Territory;

static void
territory_free (gpointer p)
{
  Territory *t = p;
  g_free (t->reason);
  g_free (t);
}

static guint32
be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

static guint16
be16 (const guint8 *p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static gboolean corrupt (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
corrupt (GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT, msg);
  return FALSE;
}

#define WMM_LEN 32u         /* 4 access categories × (client, AP) × 4 bytes */

static gboolean
valid_wmm (const guint8 *data, gsize len, gsize off)
{
  if (off + WMM_LEN > len)
    return FALSE;
  for (guint i = 0; i < 8; i++)
    {
      const guint8 *ac = data + off + 4 * i;
      guint cw_min = (1u << (ac[0] >> 4)) - 1, cw_max = (1u << (ac[0] & 0x0f)) - 1;
      if (cw_min >= cw_max || ac[1] < 1)
        return FALSE;
    }
  return TRUE;
}

/* The rule at @off: len, flags, max_eirp, start, end, max_bw, then the
 * optional cac_timeout (len ≥ 18) and wmm_ptr (len ≥ 20). */
static gboolean
read_rule (const guint8 *data, gsize len, gsize off, RlRegRule *out, GError **error)
{
  guint8 rule_len;

  if (off + 1 > len || data[off] < RULE_MIN_LEN || off + data[off] > len)
    return corrupt (error, "frequency rule at offset %zu is truncated or outside the file", off);
  rule_len = data[off];
  out->flags = data[off + 1];
  out->max_eirp_mbm = be16 (data + off + 2);
  out->start_khz = be32 (data + off + 4);
  out->end_khz = be32 (data + off + 8);
  out->max_bw_khz = be32 (data + off + 12);
  if (out->start_khz >= out->end_khz)
    return corrupt (error, "frequency rule at offset %zu has its start after its end", off);
  out->has_cac = rule_len >= 18;
  out->cac_s = out->has_cac ? be16 (data + off + 16) : 0;
  out->has_wmm = rule_len >= 20;
  if (out->has_wmm && !valid_wmm (data, len, (gsize) be16 (data + off + 18) << 2))
    return corrupt (error, "the WMM limits of the frequency rule at offset %zu are invalid or outside the file", off);
  return TRUE;
}

/* The collection at @off: len, n_rules, dfs_region, padded to 2, then the
 * rule pointers (in units of 4 bytes).  Fills @domain when not NULL. */
static gboolean
read_collection (const guint8 *data, gsize len, gsize off, RlRegDomain *domain, GError **error)
{
  if (off + 3 > len)
    return corrupt (error, "rule collection at offset %zu lies outside the file", off);
  guint8 coll_len = data[off], n_rules = data[off + 1];
  if (coll_len < 3)
    return corrupt (error, "rule collection at offset %zu is too short", off);
  gsize rules = off + ((coll_len + 1u) & ~1u);
  if (rules + (gsize) n_rules * 2 > len)
    return corrupt (error, "rule pointers of the collection at offset %zu run past the end", off);
  if (domain != NULL)
    {
      domain->dfs_region = data[off + 2];
      domain->n_rules = n_rules;
      domain->rules = g_new0 (RlRegRule, MAX (n_rules, 1));
    }
  for (guint r = 0; r < n_rules; r++)
    {
      RlRegRule rule;
      if (!read_rule (data, len, (gsize) be16 (data + rules + 2 * r) << 2, &rule, error))
        return FALSE;
      if (domain != NULL)
        domain->rules[r] = rule;
    }
  return TRUE;
}

/* The one walk over an image: every entry is checked; the rules of @want
 * (its first entry) go to *@domain. */
static gboolean
parse_image (const guint8 *data, gsize len, GHashTable *found, RlCountry want, RlRegDomain **domain,
             GError **error)
{
  gsize off;

  if (len < 8 || be32 (data) != RGDB_MAGIC)
    return corrupt (error, "not a regulatory database (no RGDB magic)");
  if (be32 (data + 4) != RGDB_VERSION)
    return corrupt (error, "regulatory database version %u, this reader knows version %u", be32 (data + 4),
                    RGDB_VERSION);
  for (off = 8;; off += 4)
    {
      RlCountry c;
      char code[3];

      if (off + 4 > len)
        return corrupt (error, "country table runs past the end of the file at offset %zu", off);
      if (data[off] == 0 && data[off + 1] == 0)
        break;
      code[0] = (char) data[off];
      code[1] = (char) data[off + 1];
      code[2] = '\0';
      if (!(g_ascii_isupper (code[0]) && g_ascii_isupper (code[1])) && strcmp (code, "00") != 0)
        return corrupt (error, "country table entry at offset %zu is not two letters", off);
      if (!rl_country_parse (code, &c))
        return corrupt (error, "country table entry at offset %zu is not two letters", off);
      gboolean wanted = c == want && *domain == NULL;
      if (wanted)
        {
          *domain = g_new0 (RlRegDomain, 1);
          (*domain)->country = c;
        }
      if (!read_collection (data, len, (gsize) be16 (data + off + 2) << 2, wanted ? *domain : NULL, error))
        return FALSE;
      g_hash_table_add (found, GUINT_TO_POINTER ((guint) c));
    }
  if (!g_hash_table_contains (found, GUINT_TO_POINTER ((guint) RL_COUNTRY_WORLD)))
    return corrupt (error, "the country table (ending at offset %zu) has no world entry 00", off);
  return TRUE;
}

gboolean
rl_regdb_parse (const guint8 *data, gsize len, GHashTable *countries_out, GError **error)
{
  g_autoptr (GHashTable) found = g_hash_table_new (g_direct_hash, g_direct_equal);
  RlRegDomain *none = NULL;

  if (!parse_image (data, len, found, RL_COUNTRY_NONE, &none, error))
    return FALSE;
  if (countries_out != NULL)
    {
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, found);
      while (g_hash_table_iter_next (&it, &key, NULL))
        g_hash_table_add (countries_out, key);
    }
  return TRUE;
}

RlRegDomain *
rl_regdb_parse_domain (const guint8 *data, gsize len, RlCountry country, GError **error)
{
  g_autoptr (GHashTable) found = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (RlRegDomain) domain = NULL;
  char cc[3];

  if (!parse_image (data, len, found, country, &domain, error))
    return NULL;
  if (domain == NULL)
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_UNKNOWN_COUNTRY,
                   "the regulatory database has no entry for %s", rl_country_to_string (country, cc));
      return NULL;
    }
  return g_steal_pointer (&domain);
}

void
rl_reg_domain_free (RlRegDomain *domain)
{
  if (domain == NULL)
    return;
  g_free (domain->rules);
  g_free (domain);
}

static const char *const flag_names[RL_RULE_N_FLAGS] = { "NO-OFDM", "NO-OUTDOOR", "DFS", "NO-IR", "AUTO-BW" };
static const char *const dfs_names[] = { "unset", "FCC", "ETSI", "JP" };

const char *
rl_rule_flag_name (RlRuleFlags flag)
{
  for (guint i = 0; i < RL_RULE_N_FLAGS; i++)
    if ((guint) flag == 1u << i)
      return flag_names[i];
  return NULL;
}

gboolean
rl_rule_flag_from_name (const char *name, RlRuleFlags *flag)
{
  for (guint i = 0; i < RL_RULE_N_FLAGS; i++)
    if (g_strcmp0 (name, flag_names[i]) == 0)
      {
        *flag = (RlRuleFlags) (1u << i);
        return TRUE;
      }
  return FALSE;
}

const char *
rl_dfs_region_to_string (guint8 region, char buf[16])
{
  if (region < G_N_ELEMENTS (dfs_names))
    return dfs_names[region];
  g_snprintf (buf, 16, "unknown-%u", region);
  return buf;
}

gboolean
rl_dfs_region_from_string (const char *name, guint8 *region)
{
  guint64 n;

  for (guint i = 0; i < G_N_ELEMENTS (dfs_names); i++)
    if (g_strcmp0 (name, dfs_names[i]) == 0)
      {
        *region = (guint8) i;
        return TRUE;
      }
  if (name == NULL || !g_str_has_prefix (name, "unknown-") ||
      !g_ascii_string_to_unsigned (name + 8, 10, G_N_ELEMENTS (dfs_names), 255, &n, NULL))
    return FALSE;
  *region = (guint8) n;
  return TRUE;
}

static gboolean
parse_territories (const char *text, const char *name, GHashTable *out, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      g_auto (GStrv) cols = NULL;
      RlCountry code, rules;

      if (line[0] == '#' || line[0] == '\0')
        continue;
      cols = g_strsplit (line, "\t", 3);
      if (g_strv_length (cols) != 3 || !rl_country_parse (cols[0], &code) || !rl_country_parse (cols[1], &rules) ||
          cols[2][0] == '\0')
        {
          g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_TERRITORIES,
                       "%s:%u: expected CODE<TAB>RULES<TAB>reason (two letters, two letters or 00, text)", name, i + 1);
          return FALSE;
        }
      Territory *t = g_new0 (Territory, 1);
      t->rules = rules;
      t->reason = g_strdup (cols[2]);
      g_hash_table_replace (out, GUINT_TO_POINTER ((guint) code), t);
    }
  return TRUE;
}

static RlRegulatory *
regulatory_new (void)
{
  RlRegulatory *reg = g_new0 (RlRegulatory, 1);

  reg->countries = g_hash_table_new (g_direct_hash, g_direct_equal);
  reg->territories = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, territory_free);
  g_hash_table_add (reg->countries, GUINT_TO_POINTER ((guint) RL_COUNTRY_WORLD));
  return reg;
}

RlRegulatory *
rl_regulatory_new_world_only (const char *why)
{
  RlRegulatory *reg = regulatory_new ();

  reg->problem = g_strdup (why);
  return reg;
}

RlRegulatory *
rl_regulatory_load (const char *regdb_path, const char *territories_path, GError **error)
{
  g_autoptr (RlRegulatory) reg = regulatory_new ();
  g_autofree char *data = NULL, *tdata = NULL, *tpath = NULL, *rpath = NULL;
  g_autoptr (GError) local = NULL;
  gsize len = 0;

  regdb_path = rpath = rl_data_path (RL_DATA_REGULATORY_DB, regdb_path);
  tpath = rl_data_path (RL_DATA_TERRITORIES, territories_path);

  if (!g_file_get_contents (regdb_path, &data, &len, &local))
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_MISSING,
                   "cannot read the regulatory database: %s; only the world domain 00 is allowed", local->message);
      return rl_regulatory_new_world_only ((*error)->message);
    }
  if (!rl_regdb_parse ((const guint8 *) data, len, reg->countries, &local))
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT,
                   "%s: %s; only the world domain 00 is allowed", regdb_path, local->message);
      return rl_regulatory_new_world_only ((*error)->message);
    }
  reg->image = g_bytes_new_take (g_steal_pointer (&data), len);
  /* Without the territory table a location in AX would stay 00 instead of
   * FI: safe, so this only warns through the problem text. */
  if (!g_file_get_contents (tpath, &tdata, NULL, &local) ||
      !parse_territories (tdata, tpath, reg->territories, &local))
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_TERRITORIES, "territory table: %s", local->message);
      reg->problem = g_strdup ((*error)->message);
      g_hash_table_remove_all (reg->territories);
    }
  /* Without the sovereign table a territory's access points keep naming
   * the sovereign (the decision may stay 00 there): safe, so only a warning. */
  g_clear_error (&local);
  reg->sovereigns = rl_territories_load (NULL, &local);
  if (reg->sovereigns == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("territory sovereigns: %s", local->message);
      if (reg->problem == NULL)
        reg->problem = g_steal_pointer (&msg);
    }
  return g_steal_pointer (&reg);
}

void
rl_regulatory_free (RlRegulatory *reg)
{
  if (reg == NULL)
    return;
  g_hash_table_unref (reg->countries);
  g_hash_table_unref (reg->territories);
  rl_territories_free (reg->sovereigns);
  g_clear_pointer (&reg->image, g_bytes_unref);
  g_free (reg->problem);
  g_free (reg);
}

gboolean
rl_regulatory_has (const RlRegulatory *reg, RlCountry country)
{
  return g_hash_table_contains (reg->countries, GUINT_TO_POINTER ((guint) country));
}

guint
rl_regulatory_n_countries (const RlRegulatory *reg)
{
  return g_hash_table_size (reg->countries);
}

const char *
rl_regulatory_problem (const RlRegulatory *reg)
{
  return reg->problem;
}

RlRegDomain *
rl_regulatory_domain (const RlRegulatory *reg, RlCountry country, GError **error)
{
  gsize len = 0;
  const guint8 *data;

  if (reg->image == NULL)
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_MISSING, "no regulatory database: %s",
                   reg->problem ? reg->problem : "none was loaded");
      return NULL;
    }
  data = g_bytes_get_data (reg->image, &len);
  return rl_regdb_parse_domain (data, len, country, error);
}

RlCountry
rl_regulatory_map (RlCountry location, gpointer data)
{
  const RlRegulatory *reg = data;
  const Territory *t;

  if (rl_regulatory_has (reg, location))
    return location;
  t = g_hash_table_lookup (reg->territories, GUINT_TO_POINTER ((guint) location));
  if (t != NULL && t->rules != RL_COUNTRY_WORLD && rl_regulatory_has (reg, t->rules))
    return t->rules;
  return RL_COUNTRY_NONE;
}

const char *
rl_regulatory_territory_note (const RlRegulatory *reg, RlCountry location)
{
  const Territory *t = g_hash_table_lookup (reg->territories, GUINT_TO_POINTER ((guint) location));

  return t ? t->reason : NULL;
}

const RlTerritories *
rl_regulatory_territories (const RlRegulatory *reg)
{
  return reg ? reg->sovereigns : NULL;
}
