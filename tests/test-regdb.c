/* regulatory.db reader (DESIGN §12) and the territory table: the real file,
 * synthetic images, and every truncation and bit flip of one. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "core/regdb.h"
#include "rl-test-config.h"

/* A minimal valid image: header, countries, one collection with one rule. */
static GByteArray *
make_db (const char *const *codes)
{
  GByteArray *b = g_byte_array_new ();
  const guint8 header[] = { 'R', 'G', 'D', 'B', 0, 0, 0, 20 };
  guint n = g_strv_length ((char **) codes);
  gsize coll = 8 + 4 * (n + 1);        /* after the table and its terminator */
  gsize rule = coll + 4;               /* collection: len 3, 1 rule, dfs 0, pad; rule ptr */

  coll = (coll + 3) & ~(gsize) 3;
  rule = (coll + 4 + 2 + 3) & ~(gsize) 3;
  g_byte_array_append (b, header, sizeof header);
  for (guint i = 0; i < n; i++)
    {
      guint8 e[4] = { (guint8) codes[i][0], (guint8) codes[i][1], (guint8) ((coll >> 2) >> 8), (guint8) (coll >> 2) };
      g_byte_array_append (b, e, 4);
    }
  g_byte_array_set_size (b, rule + 16);
  memset (b->data + 8 + 4 * n, 0, b->len - (8 + 4 * n));
  b->data[coll] = 3;      /* len */
  b->data[coll + 1] = 1;  /* n_rules */
  b->data[coll + 4] = (guint8) ((rule >> 2) >> 8);
  b->data[coll + 5] = (guint8) (rule >> 2);
  guint8 r[16] = { 16, 0, 0x07, 0xd0, 0x00, 0x24, 0xf0, 0x00 /* 2402000 kHz */, 0x00, 0x25, 0xd4, 0x50, 0, 0, 0x4e, 0x20 };
  memcpy (b->data + rule, r, sizeof r);
  return b;
}

static const char *const codes[] = { "00", "DE", "FI", "GB", "FR", NULL };

static void
test_synthetic (void)
{
  g_autoptr (GByteArray) db = make_db (codes);
  g_autoptr (GHashTable) set = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GError) error = NULL;

  g_assert_true (rl_regdb_parse (db->data, db->len, set, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (set), ==, 5);
  g_assert_true (g_hash_table_contains (set, GUINT_TO_POINTER ((guint) RL_COUNTRY ('F', 'I'))));
}

static void
test_truncations_and_flips (void)
{
  g_autoptr (GByteArray) db = make_db (codes);
  guint accepted_flips = 0;

  for (gsize len = 0; len < db->len; len++)
    {
      g_autoptr (GError) error = NULL;
      /* a copy of exactly @len bytes, so ASan sees any read past the end */
      g_autofree guint8 *copy = g_memdup2 (db->data, len ? len : 1);
      g_assert_false (rl_regdb_parse (copy, len, NULL, &error));
      g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT);
    }
  for (gsize i = 0; i < db->len; i++)
    for (guint bit = 0; bit < 8; bit++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree guint8 *copy = g_memdup2 (db->data, db->len);
        copy[i] ^= (guint8) (1u << bit);
        if (rl_regdb_parse (copy, db->len, NULL, &error))
          accepted_flips++;
        else
          g_assert_nonnull (error);
      }
  /* flips in the rule's power or the padding are still valid images */
  g_assert_cmpuint (accepted_flips, <, db->len * 8);
}

static void
test_bad_headers (void)
{
  g_autoptr (GByteArray) db = make_db (codes);
  g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL;
  const char *const no_world[] = { "DE", "FR", NULL };
  g_autoptr (GByteArray) nw = make_db (no_world);

  db->data[0] = 'X';
  g_assert_false (rl_regdb_parse (db->data, db->len, NULL, &e1));
  g_assert_nonnull (strstr (e1->message, "RGDB"));
  db->data[0] = 'R';
  db->data[7] = 19;
  g_assert_false (rl_regdb_parse (db->data, db->len, NULL, &e2));
  g_assert_nonnull (strstr (e2->message, "version 19"));
  g_assert_false (rl_regdb_parse (nw->data, nw->len, NULL, &e3));
  g_assert_nonnull (strstr (e3->message, "no world entry"));
}

static char *
write_tmp (const guint8 *data, gsize len, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("regloc-regdb-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, (const char *) data, (gssize) len, NULL));
  return path;
}

static void
test_missing_is_world_only (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = rl_regulatory_load ("/nonexistent/regulatory.db", NULL, &error);

  g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_MISSING);
  g_assert_nonnull (reg);
  g_assert_cmpuint (rl_regulatory_n_countries (reg), ==, 1);
  g_assert_true (rl_regulatory_has (reg, RL_COUNTRY_WORLD));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('D', 'E'), reg), ==, RL_COUNTRY_NONE);
  g_assert_nonnull (strstr (rl_regulatory_problem (reg), "only the world domain 00"));
}

static void
test_corrupt_is_world_only (void)
{
  g_autoptr (GByteArray) db = make_db (codes);
  g_autofree char *path = write_tmp (db->data, db->len - 9, "regulatory.db");
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = rl_regulatory_load (path, NULL, &error);

  g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT);
  g_assert_cmpuint (rl_regulatory_n_countries (reg), ==, 1);
  g_assert_false (rl_regulatory_has (reg, RL_COUNTRY ('D', 'E')));
}

static void
test_territories (void)
{
  g_autoptr (GByteArray) db = make_db (codes);
  g_autofree char *path = write_tmp (db->data, db->len, "regulatory.db");
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = rl_regulatory_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_null (rl_regulatory_problem (reg));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('D', 'E'), reg), ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('A', 'X'), reg), ==, RL_COUNTRY ('F', 'I'));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('J', 'E'), reg), ==, RL_COUNTRY ('G', 'B'));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('X', 'K'), reg), ==, RL_COUNTRY_NONE);
  /* SJ maps to NO, which this small database lacks: stays 00 */
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('S', 'J'), reg), ==, RL_COUNTRY_NONE);
  g_assert_nonnull (strstr (rl_regulatory_territory_note (reg, RL_COUNTRY ('X', 'K')), "Kosovo"));

  /* a broken territory table: countries still load, territories do not map */
  const char *bad = "AX\tFI\n";
  g_autofree char *tpath = write_tmp ((const guint8 *) bad, strlen (bad), "territories.tsv");
  g_autoptr (GError) e2 = NULL;
  g_autoptr (RlRegulatory) reg2 = rl_regulatory_load (path, tpath, &e2);
  g_assert_error (e2, RL_REGDB_ERROR, RL_REGDB_ERROR_TERRITORIES);
  g_assert_true (rl_regulatory_has (reg2, RL_COUNTRY ('D', 'E')));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('A', 'X'), reg2), ==, RL_COUNTRY_NONE);
}

/* The shipped table covers every ISO code of the boundary data that the
 * reference database (wireless-regdb db.txt) lacks. */
static void
test_table_complete (void)
{
  g_autofree char *path = g_build_filename (RL_SOURCE_DATADIR, "territories.tsv", NULL);
  g_autofree char *text = NULL;
  const char *expected = "AG AO AQ AX BI BJ BQ BV CC CD CG CK CM CV CW DJ EH ER FJ FK GA GG GM GN GQ GS GW HM IO IQ JE KG KI "
                         "KM LA LR LY MG ML MM MS MZ NC NE NF NR NU PN PS SB SC SD SH SJ SL SO SS ST SZ TF TJ TK TL TM TO TV VG XK ZM";
  g_auto (GStrv) want = g_strsplit (expected, " ", -1);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpuint (g_strv_length (want), ==, 69);
  for (guint i = 0; want[i]; i++)
    {
      g_autofree char *needle = g_strdup_printf ("\n%s\t", want[i]);
      if (strstr (text, needle) == NULL)
        g_error ("territories.tsv has no line for %s", want[i]);
    }
}

static void
test_system_db (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = NULL;

  if (!g_file_test (RL_REGDB_DEFAULT_PATH, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("SKIPPED: " RL_REGDB_DEFAULT_PATH " is missing (install wireless-regdb)");
      return;
    }
  reg = rl_regulatory_load (RL_REGDB_DEFAULT_PATH, NULL, &error);
  g_assert_no_error (error);
  /* Debian's database holds about 180 entries including 00 */
  g_assert_cmpuint (rl_regulatory_n_countries (reg), >, 150);
  g_assert_true (rl_regulatory_has (reg, RL_COUNTRY ('D', 'E')));
  g_assert_false (rl_regulatory_has (reg, RL_COUNTRY ('X', 'K')));
  g_assert_cmpuint (rl_regulatory_map (RL_COUNTRY ('A', 'X'), reg), ==, RL_COUNTRY ('F', 'I'));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/regdb/synthetic", test_synthetic);
  g_test_add_func ("/regdb/truncations-and-flips", test_truncations_and_flips);
  g_test_add_func ("/regdb/bad-headers", test_bad_headers);
  g_test_add_func ("/regdb/missing-is-world-only", test_missing_is_world_only);
  g_test_add_func ("/regdb/corrupt-is-world-only", test_corrupt_is_world_only);
  g_test_add_func ("/regdb/territories", test_territories);
  g_test_add_func ("/regdb/table-complete", test_table_complete);
  g_test_add_func ("/regdb/system-db", test_system_db);
  return g_test_run ();
}
