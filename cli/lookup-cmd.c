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
#include <unistd.h>

#define ISO3166_TAB "/usr/share/zoneinfo/iso3166.tab"

static void
usage_hint (void)
{
  g_printerr ("Usage: regloc lookup LAT LON [--json] | regloc lookup - [--country-only] [--index FILE]\n");
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

/* ---- bulk: one point a line, without libc's slow paths ---------------- */

/* The bulk loop reads stdin in large blocks, splits the fields and parses
 * the numbers by hand and writes the answers into one buffer: strtok,
 * strtod and printf per point cost more than the lookup itself. */

static const double pow10_exact[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A plain decimal number ([+-]digits[.digits]) in [min, max], exactly as
 * g_ascii_strtod would read it: the digits as an integer below 2^53 over an
 * exact power of ten is one correctly rounded division.  Anything else
 * (an exponent, more than 15 significant digits) goes the slow way. */
static gboolean
parse_field (const char *p, const char *end, double min, double max, double *out)
{
  const char *q = p;
  guint64 mant = 0;
  int frac = 0, significant = 0, n_digits = 0;
  gboolean neg = FALSE, dot = FALSE;
  double v;

  if (q < end && (*q == '-' || *q == '+'))
    neg = *q++ == '-';
  for (; q < end && significant < 18; q++)
    {
      if (*q >= '0' && *q <= '9')
        {
          mant = mant * 10 + (guint64) (*q - '0');
          significant += mant != 0;
          frac += dot;
          n_digits++;
        }
      else if (*q == '.' && !dot)
        dot = TRUE;
      else
        break;
    }
  if (q != end || n_digits == 0 || mant >= (G_GUINT64_CONSTANT (1) << 53) || frac > 22)
    {
      char buf[64];
      if (end - p >= (ptrdiff_t) sizeof buf)
        return FALSE;
      memcpy (buf, p, end - p);
      buf[end - p] = '\0';
      return parse_coord (buf, min, max, out);
    }
  v = (double) mant / pow10_exact[frac];
  v = neg ? -v : v;
  if (!(v >= min && v <= max))
    return FALSE;
  *out = v;
  return TRUE;
}

/* "%.0f" of a distance: round half to even (the current rounding mode, as
 * printf rounds), then the digits. */
static void
append_metres (GString *out, double m)
{
  char buf[24];
  int i = sizeof buf;
  guint64 v;

  if (!(m >= 0 && m < 1e15))
    {
      g_string_append_printf (out, "%.0f", m);
      return;
    }
  v = (guint64) nearbyint (m);
  do
    {
      buf[--i] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  g_string_append_len (out, buf + i, sizeof buf - i);
}

static inline gboolean
is_sep (char c)
{
  return c == ' ' || c == '\t' || c == ',';
}

/* One line of bulk input (without its newline); writes the answer line. */
static void
bulk_line (const RlBoundaryIndex *index, const char *line, const char *end, gboolean country_only, GString *out)
{
  const char *f[2][2];
  guint n = 0;
  double lat, lon;
  char cc[3];
  const char *p = line;

  while (end > line && end[-1] == '\r')
    end--;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && *p == '#')
    return;
  for (p = line; p < end;)
    {
      const char *tok;
      while (p < end && is_sep (*p))
        p++;
      if (p == end)
        break;
      tok = p;
      while (p < end && !is_sep (*p))
        p++;
      if (n == 2)
        {
          g_string_append (out, "ERR\texpected two fields: LAT LON\n");
          return;
        }
      f[n][0] = tok;
      f[n][1] = p;
      n++;
    }
  if (n == 0)
    return;
  if (n != 2)
    {
      g_string_append (out, "ERR\texpected two fields: LAT LON\n");
      return;
    }
  if (!parse_field (f[0][0], f[0][1], -90.0, 90.0, &lat))
    {
      g_string_append (out, "ERR\tlatitude is not a number in [-90, 90]\n");
      return;
    }
  if (!parse_field (f[1][0], f[1][1], -180.0, 180.0, &lon))
    {
      g_string_append (out, "ERR\tlongitude is not a number in [-180, 180]\n");
      return;
    }
  if (country_only)
    {
      RlCountry c;
      if (!rl_boundary_lookup_country (index, lat, lon, &c))
        {
          g_string_append (out, "ERR\tlookup failed (corrupt index)\n");
          return;
        }
      g_string_append_len (out, rl_country_to_string (c, cc), 2);
      g_string_append_c (out, '\n');
      return;
    }
  {
    RlBoundaryResult r;
    if (!rl_boundary_lookup (index, lat, lon, &r))
      {
        g_string_append (out, "ERR\tlookup failed (corrupt index)\n");
        return;
      }
    g_string_append_len (out, rl_country_to_string (r.country, cc), 2);
    g_string_append_c (out, '\t');
    append_metres (out, r.border_m);
    g_string_append_c (out, '\n');
  }
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      ssize_t w = write (fd, data, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      data += w;
      len -= (gsize) w;
    }
  return TRUE;
}

static int
bulk (const RlBoundaryIndex *index, gboolean country_only)
{
  g_autoptr(GString) out = g_string_sized_new (1 << 17);
  gsize cap = 1 << 20, have = 0;
  g_autofree char *buf = g_malloc (cap);
  gboolean eof = FALSE, ok = TRUE;

  while (!eof)
    {
      ssize_t got = read (STDIN_FILENO, buf + have, cap - have);
      const char *p = buf, *nl, *stop;
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        eof = TRUE;
      else
        have += (gsize) got;
      stop = buf + have;
      while ((nl = memchr (p, '\n', stop - p)) != NULL)
        {
          bulk_line (index, p, nl, country_only, out);
          p = nl + 1;
          if (out->len > (1 << 16))
            {
              ok = ok && write_all (STDOUT_FILENO, out->str, out->len);
              g_string_truncate (out, 0);
            }
        }
      if (eof && p < stop)
        {
          bulk_line (index, p, stop, country_only, out);
          p = stop;
        }
      have = stop - p;
      memmove (buf, p, have);
      if (have == cap)   /* a line longer than the buffer */
        {
          cap *= 2;
          buf = g_realloc (buf, cap);
        }
    }
  ok = ok && write_all (STDOUT_FILENO, out->str, out->len);
  if (!ok)
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
  gboolean json = FALSE, from_stdin = FALSE, country_only = FALSE;
  double lat = 0, lon = 0;
  RlBoundaryResult r;

  /* Hand-parsed: negative coordinates ("-33.9") must not look like options. */
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        json = TRUE;
      else if (strcmp (argv[i], "--country-only") == 0)
        country_only = TRUE;
      else if (strcmp (argv[i], "--index") == 0 && i + 1 < argc)
        index_path = argv[++i];
      else if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage_hint ();
          g_print ("Prints the country at a point (ISO 3166-1 alpha-2, \"--\" at sea) and the\n"
                   "distance in metres to the nearest border (exact below %.0f m).\n"
                   "With \"-\", reads LAT LON lines from stdin and prints CC<TAB>DISTANCE_M\n"
                   "(CC alone with --country-only).\n",
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
    return bulk (index, country_only);
  if (!rl_boundary_lookup (index, lat, lon, &r))
    {
      g_printerr ("regloc lookup: error: lookup failed (corrupt index)\n");
      return RL_EXIT_FAILURE;
    }
  print_one (&r, lat, lon, json);
  return RL_EXIT_OK;
}
