/* Timezone → countries from tzdata tables: multi-country zones, links,
 * countryless zones, and finding the zone of /etc/localtime. */
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "geo/tzmap.h"

static char *
lookup (const RlTzMap *map, const char *zone, char **canonical)
{
  RlCountry c[RL_MAX_CANDIDATES];
  guint n = rl_tzmap_lookup (map, zone, c, canonical);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      char cc[3];
      g_string_append_printf (s, "%s%s", i ? "," : "", rl_country_to_string (c[i], cc));
    }
  return g_string_free (s, FALSE);
}

static void
expect (const RlTzMap *map, const char *zone, const char *countries)
{
  g_autofree char *got = lookup (map, zone, NULL);
  g_assert_cmpstr (got, ==, countries);
}

static void
test_fixture (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "tz", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTzMap) map = rl_tzmap_new (dir, &error);
  g_autofree char *canon = NULL;

  g_assert_no_error (error);
  expect (map, "Europe/Berlin", "DE,DK,NO,SE,SJ");
  /* zone.tab names the primary country of the exact name */
  expect (map, "Europe/Stockholm", "SE,DE,DK,NO,SJ");
  expect (map, "Europe/Zurich", "CH,DE,LI");
  /* a link that zone.tab does not list, to a zone of several countries:
   * followed to the end, but it names none of them (Berlin's DE is not
   * its own country) */
  g_autofree char *chain = lookup (map, "Test/Chain", &canon);
  g_assert_cmpstr (chain, ==, "");
  g_assert_cmpstr (canon, ==, "Europe/Berlin");
  expect (map, "UTC", "");
  expect (map, "Etc/GMT+3", "");
  expect (map, "Mars/Olympus_Mons", "");
  g_assert_false (rl_tzmap_knows (map, "Mars/Olympus_Mons"));
  g_assert_true (rl_tzmap_knows (map, "Test/Chain"));
  expect (map, "", "");

  RlEvidence ev;
  g_assert_true (rl_tzmap_evidence (map, "Europe/Berlin", 5, RL_NEVER, &ev));
  g_assert_cmpint (ev.kind, ==, RL_SOURCE_TIMEZONE);
  g_assert_cmpuint (ev.n_countries, ==, 5);
  g_assert_nonnull (strstr (ev.detail, "Europe/Berlin"));
  g_assert_false (rl_tzmap_evidence (map, "Etc/UTC", 5, RL_NEVER, &ev));
}

static void
test_system_tables (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTzMap) map = rl_tzmap_new (NULL, &error);

  if (map == NULL)
    {
      g_test_skip ("SKIPPED: the system tzdata tables are missing (install tzdata)");
      return;
    }
  g_autofree char *berlin = lookup (map, "Europe/Berlin", NULL);
  g_assert_true (g_str_has_prefix (berlin, "DE"));
  g_assert_nonnull (strstr (berlin, "SE"));
  g_autofree char *kiev = lookup (map, "Europe/Kiev", NULL);   /* a backward link */
  g_assert_true (g_str_has_prefix (kiev, "UA"));
  g_autofree char *pr = lookup (map, "America/Puerto_Rico", NULL);
  g_assert_true (g_str_has_prefix (pr, "PR"));
  g_assert_cmpuint (strlen (pr), >, 30);
  /* an old name whose own country tzdata.zi's flattened links lose: not
   * Nairobi's KE for Eritrea, not Berlin's DE for Jan Mayen, not
   * Abidjan's CI for Iceland, not PR for the US Virgin Islands */
  expect (map, "Africa/Asmera", "");
  expect (map, "Atlantic/Jan_Mayen", "");
  expect (map, "Iceland", "");
  expect (map, "America/Virgin", "");
  /* … while one that reaches a one-country zone keeps it */
  expect (map, "Asia/Calcutta", "IN");
  g_autofree char *utc = lookup (map, "Etc/UTC", NULL);
  g_assert_cmpstr (utc, ==, "");

  /* no country is not the same as no zone: CET and EST5EDT are zones that
   * name none, Europe/Berlinn is a typo */
  g_assert_true (rl_tzmap_knows (map, "Europe/Berlin"));
  g_assert_true (rl_tzmap_knows (map, "Europe/Kiev"));
  g_assert_true (rl_tzmap_knows (map, "Etc/UTC"));
  g_assert_true (rl_tzmap_knows (map, "CET"));
  g_assert_true (rl_tzmap_knows (map, "EST5EDT"));
  g_assert_false (rl_tzmap_knows (map, "Europe/Berlinn"));
  g_assert_false (rl_tzmap_knows (map, "europe/berlin"));
  g_assert_false (rl_tzmap_knows (map, ""));
}

static void
test_localtime (void)
{
  g_autofree char *dir = g_dir_make_tmp ("regloc-tz-XXXXXX", NULL);
  g_autofree char *link = g_build_filename (dir, "localtime", NULL);
  g_autofree char *posix = g_build_filename (dir, "localtime-posix", NULL);
  g_autofree char *copy = g_build_filename (dir, "localtime-copy", NULL);
  g_autofree char *junk = g_build_filename (dir, "localtime-junk", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTzMap) map = rl_tzmap_new (NULL, &error);
  g_autofree char *data = NULL;
  gsize len;

  if (map == NULL)
    {
      g_test_skip ("SKIPPED: the system tzdata tables are missing (install tzdata)");
      return;
    }
  g_assert_cmpint (symlink ("../usr/share/zoneinfo/Europe/Berlin", link), ==, 0);
  g_autofree char *z1 = rl_tzmap_zone_from_localtime (map, link, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (z1, ==, "Europe/Berlin");

  g_assert_cmpint (symlink ("/usr/share/zoneinfo/posix/Europe/Paris", posix), ==, 0);
  g_autofree char *z2 = rl_tzmap_zone_from_localtime (map, posix, &error);
  g_assert_cmpstr (z2, ==, "Europe/Paris");

  /* a TZif copy (what some installers write) is matched by content */
  g_assert_true (g_file_get_contents ("/usr/share/zoneinfo/Europe/Lisbon", &data, &len, NULL));
  g_assert_true (g_file_set_contents (copy, data, (gssize) len, NULL));
  g_autofree char *z3 = rl_tzmap_zone_from_localtime (map, copy, &error);
  g_assert_no_error (error);
  g_autofree char *pt = lookup (map, z3, NULL);
  g_assert_nonnull (strstr (pt, "PT"));

  g_assert_true (g_file_set_contents (junk, "hello", 5, NULL));
  g_autofree char *z4 = rl_tzmap_zone_from_localtime (map, junk, &error);
  g_assert_null (z4);
  g_assert_nonnull (strstr (error->message, "not a TZif file"));
  g_clear_error (&error);
  g_autofree char *z5 = rl_tzmap_zone_from_localtime (map, "/nonexistent/localtime", &error);
  g_assert_null (z5);
  g_assert_nonnull (error);
}

static void
test_missing_dir (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTzMap) map = rl_tzmap_new ("/nonexistent", &error);

  g_assert_null (map);
  g_assert_nonnull (strstr (error->message, "zone.tab"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tzmap/fixture", test_fixture);
  g_test_add_func ("/tzmap/system-tables", test_system_tables);
  g_test_add_func ("/tzmap/localtime", test_localtime);
  g_test_add_func ("/tzmap/missing-dir", test_missing_dir);
  return g_test_run ();
}
