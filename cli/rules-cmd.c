/* regloc rules [CC] [--json]: the regulatory rules of a country and what
 * they change against 00.  With CC it reads regulatory.db itself (no daemon
 * needed); without, it asks reglocd for the rules of the country in force. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "cli/commands.h"
#include "cli/client.h"
#include "core/config.h"
#include "core/paths.h"
#include "core/regdb.h"
#include "core/regrules.h"

typedef struct {
  RlRegDomain *domain;
  char **changes;
  char *source;              /* the file, or "reglocd" */
  char *asked;               /* a territory without an entry of its own ("JE"), or NULL */
  char *note;                /* why its rules are another code's (data/territories.tsv) */
} Rules;

static void
rules_clear (Rules *r)
{
  rl_reg_domain_free (r->domain);
  g_strfreev (r->changes);
  g_free (r->source);
  g_free (r->asked);
  g_free (r->note);
}

/* A code the database lacks but the territory table names (JE → GB,
 * BQ → 00): the rules that apply there, as the daemon applies them. */
static RlRegDomain *
territory_domain (const char *source, const RlConfig *config, RlCountry country, const guint8 *data, gsize len,
                  Rules *out, GError **error)
{
  g_autoptr (RlRegulatory) reg = rl_regulatory_load (source, config->territories, NULL);
  const char *note = rl_regulatory_territory_note (reg, country);
  RlCountry rules;
  char cc[3];

  if (note == NULL)
    return NULL;
  rules = rl_regulatory_map (country, reg);
  if (rules == RL_COUNTRY_NONE)
    rules = RL_COUNTRY_WORLD;
  out->asked = g_strdup (rl_country_to_string (country, cc));
  out->note = g_strdup (note);
  g_clear_error (error);
  return rl_regdb_parse_domain (data, len, rules, error);
}

static char **
changes_strv (GPtrArray *changes)
{
  g_ptr_array_add (changes, NULL);
  return (char **) g_ptr_array_free (changes, FALSE);
}

static int fail (int code, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static int
fail (int code, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "regloc rules: error: %s\n", msg);
  return code;
}

/* From the file: @regdb, else $REGLOC_REGDB, else the config's (or default) path. */
static int
rules_from_file (const char *text, const char *regdb, const char *config_path, Rules *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) config = rl_config_load (config_path, &error);
  g_autoptr (RlRegDomain) world = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  RlCountry country;

  if (strlen (text) != 2 || !rl_country_parse (text, &country))
    return fail (RL_EXIT_USAGE, "'%s' is not a country code: give two letters (ISO 3166-1 alpha-2) or 00", text);
  if (config == NULL)
    return fail (RL_EXIT_FAILURE, "%s", error->message);
  out->source = rl_data_path (RL_DATA_REGULATORY_DB, regdb ? regdb : config_path ? config->regulatory_db : NULL);
  if (!g_file_get_contents (out->source, &data, &len, &error))
    return fail (RL_EXIT_FAILURE, "cannot read the regulatory database: %s", error->message);
  out->domain = rl_regdb_parse_domain ((const guint8 *) data, len, country, &error);
  if (out->domain == NULL && g_error_matches (error, RL_REGDB_ERROR, RL_REGDB_ERROR_UNKNOWN_COUNTRY))
    out->domain = territory_domain (out->source, config, country, (const guint8 *) data, len, out, &error);
  if (out->domain != NULL)
    world = rl_regdb_parse_domain ((const guint8 *) data, len, RL_COUNTRY_WORLD, &error);
  if (world == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%s: %s", out->source, error->message);
      gboolean unknown = g_error_matches (error, RL_REGDB_ERROR, RL_REGDB_ERROR_UNKNOWN_COUNTRY);
      return fail (unknown ? RL_EXIT_USAGE : RL_EXIT_FAILURE, "%s", msg);
    }
  out->changes = changes_strv (rl_reg_domain_changes (out->domain, world));
  return RL_EXIT_OK;
}

/* From reglocd: GetRules(""), the country in force. */
static int
rules_from_daemon (gboolean session_bus, Rules *out)
{
  g_autoptr (RlDBusManager) m = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) rules = NULL;
  g_autofree char *country = NULL, *region = NULL;
  GVariantIter iter;
  guint32 start, end, bw, eirp, flags;
  gint32 cac;
  gboolean wmm;
  int code;

  m = rl_client_connect ("rules", session_bus, &code);
  if (m == NULL)
    return code;
  if (!rl_dbus_manager_call_get_rules_sync (m, "", &country, &region, &rules, &out->changes, NULL, &error))
    return rl_client_fail ("rules", error);
  out->source = g_strdup ("reglocd");
  out->domain = g_new0 (RlRegDomain, 1);
  if (!rl_country_parse (country, &out->domain->country) || !rl_dfs_region_from_string (region, &out->domain->dfs_region))
    return fail (RL_EXIT_FAILURE, "reglocd answered with a country or DFS region this regloc does not know (%s)", country);
  out->domain->rules = g_new0 (RlRegRule, g_variant_n_children (rules) + 1);
  g_variant_iter_init (&iter, rules);
  while (g_variant_iter_next (&iter, "(uuuuuib)", &start, &end, &bw, &eirp, &flags, &cac, &wmm))
    {
      RlRegRule *r = &out->domain->rules[out->domain->n_rules++];
      *r = (RlRegRule) { start, end, bw, (guint16) eirp, (guint8) flags, cac >= 0, (guint16) MAX (cac, 0), wmm };
    }
  return RL_EXIT_OK;
}

static char *
flags_text (guint8 flags)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < 8; i++)
    if (flags & (1u << i))
      {
        const char *name = rl_rule_flag_name ((RlRuleFlags) (1u << i));
        if (s->len > 0)
          g_string_append (s, ", ");
        if (name != NULL)
          g_string_append (s, name);
        else
          g_string_append_printf (s, "0x%02x", 1u << i);
      }
  return g_string_free (s, FALSE);
}

static void
print_text (const Rules *r)
{
  char cc[3], region[16];

  if (r->asked != NULL)
    printf ("%s has no entry in the database; these rules apply there: %s\n", r->asked, r->note);
  printf ("Country %s, DFS region %s (%s)\n", rl_country_to_string (r->domain->country, cc),
          rl_dfs_region_to_string (r->domain->dfs_region, region), r->source);
  printf ("Rules (frequencies, max bandwidth, max EIRP, flags):\n");
  for (guint i = 0; i < r->domain->n_rules; i++)
    {
      const RlRegRule *rule = &r->domain->rules[i];
      g_autofree char *range = g_strdup_printf ("%g-%g MHz", rule->start_khz / 1000.0, rule->end_khz / 1000.0);
      g_autofree char *bw = g_strdup_printf ("%g MHz", rule->max_bw_khz / 1000.0);
      g_autofree char *power = rl_reg_format_power (rule->max_eirp_mbm);
      g_autofree char *flags = flags_text (rule->flags);

      g_autofree char *cac = rule->has_cac && rule->cac_s > 0 ? g_strdup_printf ("CAC %u s", rule->cac_s)
                             : g_strdup ((rule->flags & RL_RULE_DFS) ? "CAC: kernel default (60 s)" : "");
      g_autofree char *line = g_strdup_printf ("  %-19s max %-9s %-19s %s%s%s", range, bw, power, flags,
                                               flags[0] && cac[0] ? ", " : "", cac);

      g_strchomp (line);
      printf ("%s\n", line);
    }
  printf ("Against 00:\n");
  for (guint i = 0; r->changes[i] != NULL; i++)
    printf ("  - %s\n", r->changes[i]);
}

static void
add_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void
add_rule_json (JsonBuilder *b, const RlRegRule *rule)
{
  json_builder_begin_object (b);
  add_int (b, "start_khz", rule->start_khz);
  add_int (b, "end_khz", rule->end_khz);
  add_int (b, "max_bandwidth_khz", rule->max_bw_khz);
  add_int (b, "max_eirp_mbm", rule->max_eirp_mbm);
  json_builder_set_member_name (b, "max_eirp_dbm");
  json_builder_add_double_value (b, rule->max_eirp_mbm / 100.0);
  json_builder_set_member_name (b, "max_eirp_mw");
  json_builder_add_double_value (b, rl_reg_mbm_to_mw (rule->max_eirp_mbm));
  add_int (b, "flags_bits", rule->flags);
  json_builder_set_member_name (b, "flags");
  json_builder_begin_array (b);
  for (guint f = 0; f < 8; f++)
    if ((rule->flags & (1u << f)) && rl_rule_flag_name ((RlRuleFlags) (1u << f)) != NULL)
      json_builder_add_string_value (b, rl_rule_flag_name ((RlRuleFlags) (1u << f)));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "cac_s");
  if (rule->has_cac)
    json_builder_add_int_value (b, rule->cac_s);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "wmm");
  json_builder_add_boolean_value (b, rule->has_wmm);
  json_builder_end_object (b);
}

static void
print_json (const Rules *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  char cc[3], region[16];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "country");
  json_builder_add_string_value (b, rl_country_to_string (r->domain->country, cc));
  json_builder_set_member_name (b, "dfs_region");
  json_builder_add_string_value (b, rl_dfs_region_to_string (r->domain->dfs_region, region));
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, r->source);
  if (r->asked != NULL)
    {
      /* the code asked for, a territory that uses "country"'s rules */
      json_builder_set_member_name (b, "territory");
      json_builder_add_string_value (b, r->asked);
      json_builder_set_member_name (b, "territory_note");
      json_builder_add_string_value (b, r->note);
    }
  json_builder_set_member_name (b, "rules");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->domain->n_rules; i++)
    add_rule_json (b, &r->domain->rules[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "changes");
  json_builder_begin_array (b);
  for (guint i = 0; r->changes[i] != NULL; i++)
    json_builder_add_string_value (b, r->changes[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

int
rl_cmd_rules (int argc, char **argv)
{
  gboolean session_bus = FALSE, json = FALSE;
  g_autofree char *regdb = NULL, *config = NULL;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (stable keys)", NULL },
    { "regdb", 0, 0, G_OPTION_ARG_FILENAME, &regdb, "Read this regulatory.db (with CC; also: REGLOC_REGDB)", "FILE" },
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Take regulatory_db from this regloc.conf (with CC)", "FILE" },
    RL_CLIENT_OPTION_ENTRY (session_bus),
    { NULL }
  };
  Rules r = { 0 };
  int code;

  if (!rl_client_parse_options ("rules", "[CC]", entries, &argc, &argv))
    return RL_EXIT_USAGE;
  if (argc > 2)
    return fail (RL_EXIT_USAGE, "unexpected argument '%s' (give at most one country code)", argv[2]);
  if (argc == 2)
    code = rules_from_file (argv[1], regdb, config, &r);
  else if (regdb != NULL || config != NULL)
    code = fail (RL_EXIT_USAGE, "%s", "--regdb and --config need a country code (without one, reglocd answers)");
  else
    code = rules_from_daemon (session_bus, &r);
  if (code == RL_EXIT_OK && json)
    print_json (&r);
  else if (code == RL_EXIT_OK)
    print_text (&r);
  rules_clear (&r);
  return code;
}
