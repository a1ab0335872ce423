/* regloc lookup: the offline point → country lookup with border distance.
 *
 *   regloc lookup LAT LON [--json]   one point, human or JSON output
 *   regloc lookup -                  bulk: one "LAT LON" per line on stdin,
 *                                    one "CC<TAB>DISTANCE_M" per line out
 *
 * The bulk format is an interface scripts and tests rely on: keep it stable. */
#include "core/paths.h"
#include "cli/commands.h"

#include "geo/boundary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ISO3166_TAB "/usr/share/zoneinfo/iso3166.tab"

static void
usage_hint (void)
{
  g_printerr ("Usage: regloc lookup LAT LON [--json] | regloc lookup - [--index FILE]\n");
}

/* Country names come from tzdata's ISO 3166 table, read when needed. */
static GHashTable *
load_names (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *path = g_getenv ("REGLOC_ISO3166_TAB");

  if (!g_file_get_contents (path ? path : ISO3166_TAB, &text, NULL, NULL))
    return names;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *tab = strchr (lines[i], '\t');
      if (lines[i][0] == '#' || tab == NULL || tab - lines[i] != 2)
        continue;
      g_hash_table_insert (names, g_strndup (lines[i], 2), g_strdup (tab + 1));
    }
  return names;
}

static const char *
country_name (GHashTable *names, RlCountry country)
{
  char code[3];
  const char *name;

  if (country == RL_COUNTRY_NONE)
    return NULL;
  name = g_hash_table_lookup (names, rl_country_to_string (country, code));
  return name ? name : "";
}

static gboolean
parse_coord (const char *text, double min, double max, double *out)
{
  char *end = NULL;
  double v;

  /* Plain decimal degrees only: g_ascii_strtod would also take hex. */
  if (text == NULL || *text == '\0' || strpbrk (text, "xXpP") != NULL)
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite (v) || v < min || v > max)
    return FALSE;
  *out = v;
  return TRUE;
}

static void
print_json_string (const char *s)
{
  if (s == NULL)
    {
      fputs ("null", stdout);
      return;
    }
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        printf ("\\%c", *s);
      else if ((unsigned char) *s < 0x20)
        printf ("\\u%04x", (unsigned) (unsigned char) *s);
      else
        putchar (*s);
    }
  putchar ('"');
}

static void
print_one (const RlBoundaryResult *r, double lat, double lon, gboolean json)
{
  g_autoptr(GHashTable) names = load_names ();
  char cc[3], nc[3];
  gboolean exact = r->border_m < RL_BOUNDARY_EXACT_M;

  rl_country_to_string (r->country, cc);
  rl_country_to_string (r->neighbour, nc);
  if (json)
    {
      printf ("{\"lat\": %.7f, \"lon\": %.7f, \"country\": ", lat, lon);
      print_json_string (r->country ? cc : NULL);
      fputs (", \"name\": ", stdout);
      print_json_string (country_name (names, r->country));
      printf (", \"border_m\": %.1f, \"border_exact\": %s, \"neighbour\": ", r->border_m,
              exact ? "true" : "false");
      print_json_string (r->neighbour ? nc : NULL);
      fputs (", \"neighbour_name\": ", stdout);
      print_json_string (country_name (names, r->neighbour));
      printf (", \"border_area\": %s}\n", r->border_area ? "true" : "false");
      return;
    }
  if (r->country != RL_COUNTRY_NONE)
    printf ("country: %s (%s)\n", cc, country_name (names, r->country));
  else
    printf ("country: -- (no country: international waters)\n");
  if (r->border_area)
    printf ("border: on it, with %s (%s): a gap in the boundary data between the two\n", nc,
            country_name (names, r->neighbour));
  else if (!exact)
    printf ("border: more than %.0f m away\n", RL_BOUNDARY_EXACT_M);
  else if (r->neighbour != RL_COUNTRY_NONE)
    printf ("border: %.0f m, with %s (%s)\n", r->border_m, nc, country_name (names, r->neighbour));
  else if (r->country != RL_COUNTRY_NONE)
    printf ("border: %.0f m, to the edge of the territorial waters\n", r->border_m);
  else
    printf ("border: %.0f m\n", r->border_m);
}

/* One line of bulk input; writes the answer line. */
static void
bulk_line (const RlBoundaryIndex *index, char *line, GString *out)
{
  char *fields[3] = { NULL, NULL, NULL };
  guint n = 0;
  double lat, lon;
  RlBoundaryResult r;
  char cc[3];

  for (char *tok = strtok (line, " \t,"); tok != NULL; tok = strtok (NULL, " \t,"))
    {
      if (n == 2)
        {
          g_string_append (out, "ERR\texpected two fields: LAT LON\n");
          return;
        }
      fields[n++] = tok;
    }
  if (n != 2)
    {
      g_string_append (out, "ERR\texpected two fields: LAT LON\n");
      return;
    }
  if (!parse_coord (fields[0], -90.0, 90.0, &lat))
    {
      g_string_append (out, "ERR\tlatitude is not a number in [-90, 90]\n");
      return;
    }
  if (!parse_coord (fields[1], -180.0, 180.0, &lon))
    {
      g_string_append (out, "ERR\tlongitude is not a number in [-180, 180]\n");
      return;
    }
  if (!rl_boundary_lookup (index, lat, lon, &r))
    {
      g_string_append (out, "ERR\tlookup failed (corrupt index)\n");
      return;
    }
  g_string_append_printf (out, "%s\t%.0f\n", rl_country_to_string (r.country, cc), r.border_m);
}

static int
bulk (const RlBoundaryIndex *index)
{
  g_autofree char *line = NULL;
  g_autoptr(GString) out = g_string_sized_new (1 << 16);
  size_t cap = 0;
  ssize_t len;

  while ((len = getline (&line, &cap, stdin)) >= 0)
    {
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
      if (line[strspn (line, " \t")] == '#' || line[strspn (line, " \t,")] == '\0')
        continue;
      bulk_line (index, line, out);
      if (out->len > (1 << 15))
        {
          fwrite (out->str, 1, out->len, stdout);
          g_string_truncate (out, 0);
        }
    }
  fwrite (out->str, 1, out->len, stdout);
  if (fflush (stdout) != 0)
    {
      g_printerr ("regloc lookup: error: cannot write output: %s\n", g_strerror (errno));
      return RL_EXIT_FAILURE;
    }
  return RL_EXIT_OK;
}

int
rl_cmd_lookup (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RlBoundaryIndex) index = NULL;
  const char *positional[2] = { NULL, NULL };
  const char *index_path = NULL;
  guint n_positional = 0;
  gboolean json = FALSE, from_stdin = FALSE;
  double lat = 0, lon = 0;
  RlBoundaryResult r;

  /* Hand-parsed: negative coordinates ("-33.9") must not look like options. */
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        json = TRUE;
      else if (strcmp (argv[i], "--index") == 0 && i + 1 < argc)
        index_path = argv[++i];
      else if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage_hint ();
          g_print ("Prints the country at a point (ISO 3166-1 alpha-2, \"--\" at sea) and the\n"
                   "distance in metres to the nearest border (exact below %.0f m).\n"
                   "With \"-\", reads LAT LON lines from stdin and prints CC<TAB>DISTANCE_M.\n",
                   RL_BOUNDARY_EXACT_M);
          return RL_EXIT_OK;
        }
      else if (strcmp (argv[i], "-") == 0 && n_positional == 0)
        from_stdin = TRUE;
      else if (n_positional < 2 && !from_stdin)
        positional[n_positional++] = argv[i];
      else
        {
          g_printerr ("regloc lookup: error: unexpected argument '%s'\n", argv[i]);
          usage_hint ();
          return RL_EXIT_USAGE;
        }
    }
  if (!from_stdin)
    {
      if (n_positional != 2)
        {
          g_printerr ("regloc lookup: error: need LAT and LON (or '-' to read points from stdin)\n");
          usage_hint ();
          return RL_EXIT_USAGE;
        }
      if (!parse_coord (positional[0], -90.0, 90.0, &lat))
        {
          g_printerr ("regloc lookup: error: latitude '%s' is not a number in [-90, 90]\n", positional[0]);
          return RL_EXIT_USAGE;
        }
      if (!parse_coord (positional[1], -180.0, 180.0, &lon))
        {
          g_printerr ("regloc lookup: error: longitude '%s' is not a number in [-180, 180]\n", positional[1]);
          return RL_EXIT_USAGE;
        }
    }

  {
    g_autofree char *path = rl_data_path (RL_DATA_BOUNDARY_INDEX, index_path);
    index = rl_boundary_index_open (path, &error);
  }
  if (index == NULL)
    {
      g_printerr ("regloc lookup: error: %s\n", error->message);
      return RL_EXIT_FAILURE;
    }
  if (from_stdin)
    return bulk (index);
  if (!rl_boundary_lookup (index, lat, lon, &r))
    {
      g_printerr ("regloc lookup: error: lookup failed (corrupt index)\n");
      return RL_EXIT_FAILURE;
    }
  print_one (&r, lat, lon, json);
  return RL_EXIT_OK;
}
