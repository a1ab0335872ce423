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

static gboolean
valid_collection (const guint8 *data, gsize len, gsize off, GError **error)
{
  if (off + 3 > len)
    return corrupt (error, "rule collection at offset %zu lies outside the file", off);
  guint8 coll_len = data[off], n_rules = data[off + 1];
  if (coll_len < 2)
    return corrupt (error, "rule collection at offset %zu is too short", off);
  gsize rules = off + ((coll_len + 1u) & ~1u);
  if (rules + (gsize) n_rules * 2 > len)
    return corrupt (error, "rule pointers of the collection at offset %zu run past the end", off);
  for (guint r = 0; r < n_rules; r++)
    {
      gsize rule = (gsize) be16 (data + rules + 2 * r) << 2;
      if (rule + 1 > len || data[rule] < RULE_MIN_LEN || rule + data[rule] > len)
        return corrupt (error, "frequency rule at offset %zu is truncated or outside the file", rule);
      if (be32 (data + rule + 4) >= be32 (data + rule + 8))
        return corrupt (error, "frequency rule at offset %zu has its start after its end", rule);
    }
  return TRUE;
}

gboolean
rl_regdb_parse (const guint8 *data, gsize len, GHashTable *countries_out, GError **error)
{
  g_autoptr (GHashTable) found = g_hash_table_new (g_direct_hash, g_direct_equal);
  gsize off;

  if (len < 8 || be32 (data) != RGDB_MAGIC)
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT, "not a regulatory database (no RGDB magic)");
      return FALSE;
    }
  if (be32 (data + 4) != RGDB_VERSION)
    {
      g_set_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT,
                   "regulatory database version %u, this reader knows version %u", be32 (data + 4), RGDB_VERSION);
      return FALSE;
    }
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
      if (!valid_collection (data, len, (gsize) be16 (data + off + 2) << 2, error))
        return FALSE;
      g_hash_table_add (found, GUINT_TO_POINTER ((guint) c));
    }
  if (!g_hash_table_contains (found, GUINT_TO_POINTER ((guint) RL_COUNTRY_WORLD)))
    return corrupt (error, "the country table (ending at offset %zu) has no world entry 00", off);

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
