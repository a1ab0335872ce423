#include "geo/tzmap.h"

#include <string.h>

struct RlTzMap {
  char *dir;
  GHashTable *primary;     /* zone → GUINT (RlCountry), from zone.tab */
  GHashTable *shared;      /* zone → GArray of RlCountry, from zone1970.tab */
  GHashTable *links;       /* link name → target, from tzdata.zi */
  GHashTable *zones;       /* every zone tzdata.zi defines (CET, EST5EDT and those of countries) */
};

static void
array_free (gpointer p)
{
  g_array_unref (p);
}

static void
read_tab (RlTzMap *map, const char *file, gboolean multi)
{
  g_autofree char *path = g_build_filename (map->dir, file, NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) cols = NULL;
      g_auto (GStrv) codes = NULL;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      cols = g_strsplit (lines[i], "\t", 4);
      if (g_strv_length (cols) < 3)
        continue;   /* a malformed line costs that zone only */
      codes = g_strsplit (cols[0], ",", -1);
      GArray *list = g_array_new (FALSE, FALSE, sizeof (RlCountry));
      for (guint c = 0; codes[c] != NULL; c++)
        {
          RlCountry cc;
          if (rl_country_parse (codes[c], &cc) && cc != RL_COUNTRY_WORLD)
            g_array_append_val (list, cc);
        }
      if (list->len == 0)
        {
          g_array_unref (list);
          continue;
        }
      if (multi)
        g_hash_table_replace (map->shared, g_strdup (cols[2]), list);
      else
        {
          g_hash_table_replace (map->primary, g_strdup (cols[2]),
                                GUINT_TO_POINTER ((guint) g_array_index (list, RlCountry, 0)));
          g_array_unref (list);
        }
    }
}

static void
read_links (RlTzMap *map)
{
  g_autofree char *path = g_build_filename (map->dir, "tzdata.zi", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) cols = NULL;

      if (lines[i][0] == 'Z' && lines[i][1] == ' ')
        {
          const char *name = lines[i] + 2, *end = strchr (name, ' ');
          if (end != NULL && end > name)
            g_hash_table_add (map->zones, g_strndup (name, (gsize) (end - name)));
          continue;
        }
      if (lines[i][0] != 'L' || lines[i][1] != ' ')
        continue;
      cols = g_strsplit (lines[i], " ", 4);
      if (g_strv_length (cols) == 3)
        g_hash_table_replace (map->links, g_strdup (cols[2]), g_strdup (cols[1]));
    }
}

RlTzMap *
rl_tzmap_new (const char *zoneinfo_dir, GError **error)
{
  g_autoptr (RlTzMap) map = g_new0 (RlTzMap, 1);

  map->dir = g_strdup (zoneinfo_dir ? zoneinfo_dir : RL_TZMAP_DEFAULT_DIR);
  map->primary = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  map->shared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, array_free);
  map->links = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  map->zones = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  read_tab (map, "zone.tab", FALSE);
  read_tab (map, "zone1970.tab", TRUE);
  read_links (map);
  if (g_hash_table_size (map->primary) == 0 && g_hash_table_size (map->shared) == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "%s: neither zone.tab nor zone1970.tab could be read (package tzdata)", map->dir);
      return NULL;
    }
  return g_steal_pointer (&map);
}

void
rl_tzmap_free (RlTzMap *map)
{
  if (map == NULL)
    return;
  g_free (map->dir);
  g_hash_table_unref (map->primary);
  g_hash_table_unref (map->shared);
  g_hash_table_unref (map->links);
  g_hash_table_unref (map->zones);
  g_free (map);
}

static gboolean
is_countryless (const char *zone)
{
  return g_str_has_prefix (zone, "Etc/") || strcmp (zone, "UTC") == 0 || strcmp (zone, "GMT") == 0 ||
         strcmp (zone, "UCT") == 0 || strcmp (zone, "Universal") == 0 || strcmp (zone, "Zulu") == 0 ||
         strcmp (zone, "Factory") == 0;
}

gboolean
rl_tzmap_knows (const RlTzMap *map, const char *zone)
{
  if (zone == NULL || zone[0] == '\0')
    return FALSE;
  /* without tzdata.zi only the tables' zones are known: say nothing else is a typo */
  return g_hash_table_size (map->zones) == 0 || is_countryless (zone) || g_hash_table_contains (map->zones, zone) ||
         g_hash_table_contains (map->links, zone) || g_hash_table_contains (map->primary, zone) ||
         g_hash_table_contains (map->shared, zone);
}

guint
rl_tzmap_lookup (const RlTzMap *map, const char *zone, RlCountry countries[RL_MAX_CANDIDATES], char **canonical)
{
  const char *name = zone;
  guint n = 0;

  if (canonical != NULL)
    *canonical = NULL;
  if (zone == NULL || zone[0] == '\0')
    return 0;
  /* follow links, at most a few hops (the data has chains of two) */
  for (guint hops = 0; hops < 8; hops++)
    {
      const char *target = g_hash_table_lookup (map->links, name);
      if (target == NULL)
        break;
      name = target;
    }
  if (canonical != NULL)
    *canonical = g_strdup (name);
  if (is_countryless (zone) || is_countryless (name))
    return 0;

  gpointer primary = g_hash_table_lookup (map->primary, zone);
  const GArray *list = g_hash_table_lookup (map->shared, name);
  /* tzdata.zi flattens link chains, so an old name missing from zone.tab
   * (Africa/Asmera, Atlantic/Jan_Mayen, Iceland) reaches a zone whose own
   * country is another one's (Africa/Nairobi: KE; Europe/Berlin: DE):
   * where the zone serves several countries the name says none of them */
  if (primary == NULL && strcmp (zone, name) != 0 && list != NULL && list->len > 1)
    return 0;
  if (primary == NULL)
    primary = g_hash_table_lookup (map->primary, name);
  if (primary != NULL)
    countries[n++] = (RlCountry) GPOINTER_TO_UINT (primary);

  for (guint i = 0; list != NULL && i < list->len && n < RL_MAX_CANDIDATES; i++)
    {
      RlCountry c = g_array_index (list, RlCountry, i);
      gboolean dup = FALSE;
      for (guint k = 0; k < n; k++)
        dup |= countries[k] == c;
      if (!dup)
        countries[n++] = c;
    }
  return n;
}

static char *
zone_below_zoneinfo (const char *target)
{
  const char *p = strstr (target, "zoneinfo/");

  if (p == NULL)
    return NULL;
  p += strlen ("zoneinfo/");
  if (g_str_has_prefix (p, "posix/"))
    p += strlen ("posix/");
  else if (g_str_has_prefix (p, "right/"))
    p += strlen ("right/");
  return p[0] ? g_strdup (p) : NULL;
}

static int
cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static char *
zone_by_content (const RlTzMap *map, const char *data, gsize len)
{
  GHashTable *tables[] = { map->primary, map->shared };

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      GHashTableIter it;
      gpointer key;
      g_autoptr (GPtrArray) names = g_ptr_array_new ();

      g_hash_table_iter_init (&it, tables[t]);
      while (g_hash_table_iter_next (&it, &key, NULL))
        g_ptr_array_add (names, key);
      /* sorted, so two identical files always give the same answer */
      g_ptr_array_sort (names, cmp_names);
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *path = g_build_filename (map->dir, (const char *) names->pdata[i], NULL);
          g_autofree char *other = NULL;
          gsize olen = 0;
          if (g_file_get_contents (path, &other, &olen, NULL) && olen == len && memcmp (other, data, len) == 0)
            return g_strdup (names->pdata[i]);
        }
    }
  return NULL;
}

char *
rl_tzmap_zone_from_localtime (const RlTzMap *map, const char *localtime_path, GError **error)
{
  g_autofree char *target = g_file_read_link (localtime_path, NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  char *zone;

  if (target != NULL && (zone = zone_below_zoneinfo (target)) != NULL)
    return zone;
  if (!g_file_get_contents (localtime_path, &data, &len, error))
    return NULL;
  if (len < 4 || memcmp (data, "TZif", 4) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a TZif file", localtime_path);
      return NULL;
    }
  zone = zone_by_content (map, data, len);
  if (zone == NULL)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                 "%s: a TZif copy that matches no zone in %s", localtime_path, map->dir);
  return zone;
}

gboolean
rl_tzmap_evidence (const RlTzMap *map, const char *zone, gint64 observed_at, gint64 expires_at, RlEvidence *out)
{
  RlCountry countries[RL_MAX_CANDIDATES];
  guint n = rl_tzmap_lookup (map, zone, countries, NULL);
  char list[RL_MAX_CANDIDATES * 3 + 8];

  if (n == 0)
    return FALSE;
  rl_evidence_init (out, RL_SOURCE_TIMEZONE, "timezone", observed_at, expires_at);
  for (guint i = 0; i < n; i++)
    rl_evidence_add_country (out, countries[i]);
  g_strlcpy (out->zone, zone, sizeof out->zone);
  g_snprintf (out->detail, sizeof out->detail, "%s (%s)", zone,
              rl_evidence_countries_to_string (out, list, sizeof list));
  return TRUE;
}
