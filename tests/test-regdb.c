/* regulatory.db reader (docs/design.md §9) and the territory table: the real file,
 * synthetic images, and every truncation and bit flip of one. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "core/regdb.h"
#include "core/regrules.h"
#include "core/policy.h"
#include "core/territory.h"
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

/* ---- the rules ----------------------------------------------------------- */

static void
put32 (guint8 *p, guint32 v)
{
  p[0] = (guint8) (v >> 24);
  p[1] = (guint8) (v >> 16);
  p[2] = (guint8) (v >> 8);
  p[3] = (guint8) v;
}

static void
put16 (guint8 *p, guint16 v)
{
  p[0] = (guint8) (v >> 8);
  p[1] = (guint8) v;
}

/* Offsets of the image make_rules_db builds. */
enum { R_COLL00 = 20, R_COLLDE = 28, R_RULE00 = 40, R_RULE_DE1 = 56, R_RULE_DE2 = 76, R_WMM = 96, R_LEN = 128 };

static void
put_rule (guint8 *p, guint8 len, guint8 flags, guint16 eirp, guint32 start, guint32 end, guint32 bw)
{
  p[0] = len;
  p[1] = flags;
  put16 (p + 2, eirp);
  put32 (p + 4, start);
  put32 (p + 8, end);
  put32 (p + 12, bw);
}

/* 00: 5170-5250 NO-IR 20 dBm; DE (ETSI): 5170-5250 23 dBm and 5490-5730
 * DFS 27 dBm with CAC 600 s and WMM limits. */
static GByteArray *
make_rules_db (void)
{
  GByteArray *b = g_byte_array_new ();

  g_byte_array_set_size (b, R_LEN);
  memset (b->data, 0, R_LEN);
  memcpy (b->data, "RGDB\0\0\0\x14" "00", 10);
  put16 (b->data + 10, R_COLL00 / 4);
  memcpy (b->data + 12, "DE", 2);
  put16 (b->data + 14, R_COLLDE / 4);
  /* collections: len 3, n_rules, dfs_region, pad; rule pointers */
  b->data[R_COLL00] = 3, b->data[R_COLL00 + 1] = 1;
  put16 (b->data + R_COLL00 + 4, R_RULE00 / 4);
  b->data[R_COLLDE] = 3, b->data[R_COLLDE + 1] = 2, b->data[R_COLLDE + 2] = RL_DFS_ETSI;
  put16 (b->data + R_COLLDE + 4, R_RULE_DE1 / 4);
  put16 (b->data + R_COLLDE + 6, R_RULE_DE2 / 4);
  put_rule (b->data + R_RULE00, 16, RL_RULE_NO_IR, 2000, 5170000, 5250000, 80000);
  put_rule (b->data + R_RULE_DE1, 16, 0, 2300, 5170000, 5250000, 80000);
  put_rule (b->data + R_RULE_DE2, 20, RL_RULE_DFS, 2700, 5490000, 5730000, 160000);
  put16 (b->data + R_RULE_DE2 + 16, 600);
  put16 (b->data + R_RULE_DE2 + 18, R_WMM / 4);
  for (guint i = 0; i < 8; i++)
    b->data[R_WMM + 4 * i] = 0x2a, b->data[R_WMM + 4 * i + 1] = 2;   /* cw 3..1023, aifsn 2 */
  return b;
}

static void
test_rules_synthetic (void)
{
  g_autoptr (GByteArray) db = make_rules_db ();
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegDomain) de = rl_regdb_parse_domain (db->data, db->len, RL_COUNTRY ('D', 'E'), &error);
  g_autoptr (RlRegDomain) world = rl_regdb_parse_domain (db->data, db->len, RL_COUNTRY_WORLD, NULL);
  g_autoptr (GPtrArray) changes = NULL;
  g_autoptr (GError) e2 = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (de->dfs_region, ==, RL_DFS_ETSI);
  g_assert_cmpuint (de->n_rules, ==, 2);
  g_assert_cmpuint (de->rules[1].start_khz, ==, 5490000);
  g_assert_cmpuint (de->rules[1].end_khz, ==, 5730000);
  g_assert_cmpuint (de->rules[1].max_bw_khz, ==, 160000);
  g_assert_cmpuint (de->rules[1].max_eirp_mbm, ==, 2700);
  g_assert_cmpuint (de->rules[1].flags, ==, RL_RULE_DFS);
  g_assert_true (de->rules[1].has_cac && de->rules[1].has_wmm);
  g_assert_cmpuint (de->rules[1].cac_s, ==, 600);
  g_assert_false (de->rules[0].has_cac);
  g_assert_nonnull (world);
  g_assert_null (rl_regdb_parse_domain (db->data, db->len, RL_COUNTRY ('F', 'R'), &e2));
  g_assert_error (e2, RL_REGDB_ERROR, RL_REGDB_ERROR_UNKNOWN_COUNTRY);
  g_assert_nonnull (strstr (e2->message, "FR"));

  changes = rl_reg_domain_changes (de, world);
  g_assert_cmpuint (changes->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (changes, 0), ==,
                   "5 GHz channels 36-48 become usable (00: passive (NO-IR)); max EIRP rises from 20 dBm (100 mW) "
                   "to 23 dBm (200 mW).");
  g_assert_cmpstr (g_ptr_array_index (changes, 1), ==,
                   "5 GHz channels 100-144 become usable with DFS (00: not allowed); max EIRP 27 dBm (501 mW).");
}

/* Every truncation fails cleanly; every bit flip is an answer or an error. */
static void
test_rules_truncations_and_flips (void)
{
  g_autoptr (GByteArray) db = make_rules_db ();

  for (gsize len = 0; len < db->len; len++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree guint8 *copy = g_memdup2 (db->data, len ? len : 1);
      g_autoptr (RlRegDomain) d = rl_regdb_parse_domain (copy, len, RL_COUNTRY ('D', 'E'), &error);
      if (len < R_WMM + 32)     /* the WMM block ends the image */
        {
          g_assert_null (d);
          g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT);
        }
    }
  for (gsize i = 0; i < db->len; i++)
    for (guint bit = 0; bit < 8; bit++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree guint8 *copy = g_memdup2 (db->data, db->len);
        copy[i] ^= (guint8) (1u << bit);
        g_autoptr (RlRegDomain) d = rl_regdb_parse_domain (copy, db->len, RL_COUNTRY ('D', 'E'), &error);
        g_assert_true ((d == NULL) == (error != NULL));
      }
}

static void
expect_corrupt (GByteArray *db, const char *what)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (rl_regdb_parse_domain (db->data, db->len, RL_COUNTRY ('D', 'E'), &error));
  g_assert_false (rl_regdb_parse (db->data, db->len, NULL, NULL));
  g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_CORRUPT);
  if (strstr (error->message, what) == NULL)
    g_error ("'%s' does not say '%s'", error->message, what);
}

static void
test_rules_corrupt (void)
{
  g_autoptr (GByteArray) a = make_rules_db (), b = make_rules_db (), c = make_rules_db (), d = make_rules_db ();
  g_autoptr (GByteArray) e = make_rules_db (), f = make_rules_db ();

  a->data[R_RULE_DE2] = 15;                       /* shorter than the mandatory fields */
  expect_corrupt (a, "truncated");
  put16 (b->data + R_RULE_DE2 + 18, 0xffff);      /* WMM limits outside the file */
  expect_corrupt (b, "WMM");
  c->data[R_WMM + 4] = 0xa2;                      /* cw_min above cw_max */
  expect_corrupt (c, "WMM");
  d->data[R_COLLDE] = 2;                          /* no DFS region */
  expect_corrupt (d, "too short");
  put16 (e->data + R_COLLDE + 6, 0x7fff);         /* a rule pointer past the end */
  expect_corrupt (e, "outside the file");
  put32 (f->data + R_RULE_DE1 + 8, 5100000);      /* ends before it starts */
  expect_corrupt (f, "start after its end");
}

static RlRegDomain *
system_domain (RlRegulatory *reg, const char *cc, GPtrArray **changes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegDomain) world = rl_regulatory_domain (reg, RL_COUNTRY_WORLD, &error);
  RlRegDomain *d = rl_regulatory_domain (reg, RL_COUNTRY (cc[0], cc[1]), &error);

  g_assert_no_error (error);
  *changes = rl_reg_domain_changes (d, world);
  return d;
}

static gboolean
has_change (GPtrArray *changes, const char *prefix)
{
  for (guint i = 0; i < changes->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (changes, i), prefix))
      return TRUE;
  for (guint i = 0; i < changes->len; i++)
    g_printerr ("  %s\n", (char *) g_ptr_array_index (changes, i));
  return FALSE;
}

/* Facts of the installed database (wireless-regdb), through the words. */
static void
test_rules_system (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = NULL;
  g_autoptr (GPtrArray) de_c = NULL, us_c = NULL, jp_c = NULL, w_c = NULL;
  g_autoptr (RlRegDomain) de = NULL, us = NULL, jp = NULL, w = NULL;
  gboolean de_dfs = FALSE;

  if (!g_file_test (RL_REGDB_DEFAULT_PATH, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("SKIPPED: " RL_REGDB_DEFAULT_PATH " is missing (install wireless-regdb)");
      return;
    }
  reg = rl_regulatory_load (RL_REGDB_DEFAULT_PATH, NULL, &error);
  de = system_domain (reg, "DE", &de_c);
  us = system_domain (reg, "US", &us_c);
  jp = system_domain (reg, "JP", &jp_c);
  w = system_domain (reg, "00", &w_c);
  g_assert_cmpuint (de->dfs_region, ==, RL_DFS_ETSI);
  g_assert_cmpuint (us->dfs_region, ==, RL_DFS_FCC);
  g_assert_cmpuint (jp->dfs_region, ==, RL_DFS_JP);
  for (guint i = 0; i < de->n_rules; i++)
    de_dfs |= de->rules[i].start_khz == 5470000 && de->rules[i].end_khz == 5725000 && (de->rules[i].flags & RL_RULE_DFS);
  g_assert_true (de_dfs);
  g_assert_true (has_change (de_c, "5 GHz channels 100-140 become usable with DFS (00: passive (NO-IR) with DFS)"));
  g_assert_true (has_change (de_c, "5 GHz channels 36-48 become usable indoors only"));
  g_assert_true (has_change (us_c, "5 GHz channels 149-165 become usable (00: passive (NO-IR)); max EIRP rises"));
  g_assert_true (has_change (us_c, "2.4 GHz channels 12-13 are not allowed"));
  g_assert_true (has_change (jp_c, "5 GHz channels 149-165 are not allowed"));
  g_assert_true (has_change (jp_c, "2.4 GHz channel 14 becomes usable without OFDM"));
  g_assert_cmpuint (w_c->len, ==, 1);
  g_assert_true (has_change (w_c, "These are the world rules"));
}

static void
test_rules_no_database (void)
{
  g_autoptr (RlRegulatory) reg = rl_regulatory_new_world_only ("missing");
  g_autoptr (GError) error = NULL;

  g_assert_null (rl_regulatory_domain (reg, RL_COUNTRY_WORLD, &error));
  g_assert_error (error, RL_REGDB_ERROR, RL_REGDB_ERROR_MISSING);
}

static void
test_rules_names (void)
{
  char buf[16];
  guint8 region = 0;
  RlRuleFlags flag = 0;

  g_assert_cmpstr (rl_dfs_region_to_string (RL_DFS_JP, buf), ==, "JP");
  g_assert_cmpstr (rl_dfs_region_to_string (7, buf), ==, "unknown-7");
  g_assert_true (rl_dfs_region_from_string ("unknown-7", &region) && region == 7);
  g_assert_true (rl_dfs_region_from_string ("ETSI", &region) && region == RL_DFS_ETSI);
  g_assert_false (rl_dfs_region_from_string ("unknown-2", &region));
  g_assert_false (rl_dfs_region_from_string ("EU", &region));
  g_assert_true (rl_rule_flag_from_name ("NO-IR", &flag) && flag == RL_RULE_NO_IR);
  g_assert_null (rl_rule_flag_name (1u << 5));
  g_autofree char *p = rl_reg_format_power (2301);
  g_assert_cmpstr (p, ==, "23.01 dBm (200 mW)");
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

/* ---- territories and their sovereigns (core/territory.h) --------------- */

#define CC(s) RL_COUNTRY ((s)[0], (s)[1])

/* The table generated from iso-codes at build time: the places ISO 3166-2
 * lists as overseas regions/collectivities or outlying areas, and none of
 * the subdivisions whose code only looks like a country code. */
static void
test_sovereigns_generated (void)
{
  static const char *const yes[][2] = {
    { "PR", "US" }, { "GU", "US" }, { "VI", "US" }, { "AS", "US" }, { "MP", "US" }, { "UM", "US" },
    { "RE", "FR" }, { "GP", "FR" }, { "MQ", "FR" }, { "GF", "FR" }, { "YT", "FR" }, { "PM", "FR" },
    { "BL", "FR" }, { "MF", "FR" }, { "NC", "FR" }, { "PF", "FR" }, { "WF", "FR" }, { "TF", "FR" },
    /* mobile-broadband-provider-info numbers all of IM's networks under 234 */
    { "IM", "GB" },
  };
  /* HK, MO: special administrative regions (own regulators); TW: listed as
   * a province; AW/CW/SX: constituent countries of the Netherlands; CA, BE,
   * SE, BO: US-CA California, CH-BE Bern, BQ-SE Sint Eustatius, BQ-BO Bonaire */
  /* GG, JE: numbered under 234 too, but their own codes already mean GB's
   * rules (data/territories.tsv); UG: some Crimean networks under 250, most
   * under its own 641 */
  static const char *const no[] = { "HK", "MO", "TW", "AW", "CW", "SX", "CA", "BE", "SE", "BO", "US", "FR", "DE",
                                    "GG", "JE", "GB", "UG", "RU" };
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTerritories) t = rl_territories_load (NULL, &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (yes); i++)
    if (rl_territories_sovereign (t, CC (yes[i][0])) != CC (yes[i][1]))
      g_error ("%s should be a territory of %s", yes[i][0], yes[i][1]);
  for (gsize i = 0; i < G_N_ELEMENTS (no); i++)
    if (rl_territories_sovereign (t, CC (no[i])) != RL_COUNTRY_NONE)
      g_error ("%s must not be a territory", no[i]);
  g_assert_cmpuint (rl_territories_size (t), ==, G_N_ELEMENTS (yes));
  g_assert_cmpstr (rl_territories_kind (t, CC ("PR")), ==, "Outlying area");
  g_assert_cmpstr (rl_territories_kind (t, CC ("IM")), ==, RL_TERRITORY_NUMBERED_KIND "234");
}

static void
test_sovereigns_parse (void)
{
  static const char *const bad[] = {
    "PR\tUS\n",                      /* no type */
    "PR\tUSA\tOutlying area\n",      /* not two letters */
    "PR\tPR\tOutlying area\n",       /* its own sovereign */
    "PR\t00\tOutlying area\n",       /* the world domain */
    "PR\tUS\tOutlying area\nPR\tUS\tOutlying area\n",   /* twice */
    "PR US Outlying area\n",         /* spaces, not tabs */
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTerritories) t = rl_territories_new_from_text ("# comment\n\nRE\tFR\tOverseas region\tLa Réunion\n", "t", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rl_territories_sovereign (t, CC ("RE")), ==, CC ("FR"));
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (RlTerritories) u = rl_territories_new_from_text (bad[i], "bad", &e);
      g_assert_null (u);
      g_assert_error (e, RL_TERRITORY_ERROR, RL_TERRITORY_ERROR_PARSE);
    }
  {
    g_autoptr (GError) e = NULL;
    g_assert_null (rl_territories_load ("/nonexistent/territory-sovereigns.tsv", &e));
    g_assert_nonnull (e);
  }
}

static const char sovereigns[] =
  "PR\tUS\tOutlying area\tPuerto Rico\n"
  "VI\tUS\tOutlying area\tVirgin Islands, U.S.\n"
  "GU\tUS\tOutlying area\tGuam\n"
  "GP\tFR\tOverseas region\tGuadeloupe\n"
  "MF\tFR\tOverseas collectivity\tSaint-Martin\n"
  "RE\tFR\tOverseas region\tLa Réunion\n"
  "GF\tFR\tOverseas region\tGuyane (française)\n"
  "PM\tFR\tOverseas collectivity\tSaint-Pierre-et-Miquelon\n"
  "IM\tGB\t" RL_TERRITORY_NUMBERED_KIND "234\tIsle of Man\n";

#define T0 (G_GINT64_CONSTANT (1780000000) * RL_USEC_PER_SEC)

static void
add_beacon (GArray *ev, const char *bssid, const char *cc)
{
  RlEvidence e;
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);

  rl_evidence_init (&e, RL_SOURCE_BEACON, key, T0, T0 + 900 * RL_USEC_PER_SEC);
  rl_evidence_add_country (&e, CC (cc));
  e.strength = 1;
  g_assert_cmpint (sscanf (bssid, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &e.beacon.bssid[0], &e.beacon.bssid[1],
                           &e.beacon.bssid[2], &e.beacon.bssid[3], &e.beacon.bssid[4], &e.beacon.bssid[5]), ==, 6);
  g_array_append_val (ev, e);
}

/* countries: "PR,AG,CA" (a zone: primary first) */
static void
add_item (GArray *ev, RlSourceKind kind, const char *countries, double error_m, gint64 expires)
{
  RlEvidence e;
  g_auto (GStrv) list = g_strsplit (countries, ",", -1);

  rl_evidence_init (&e, kind, kind == RL_SOURCE_GPS ? "gps" : kind == RL_SOURCE_CELL ? "cell" : "timezone", T0, expires);
  for (guint i = 0; list[i] && list[i][0]; i++)
    rl_evidence_add_country (&e, CC (list[i]));
  e.strength = 1;
  e.gps.error_m = error_m;
  g_array_append_val (ev, e);
}

/* A modem on a network the provider list does not know (@unlisted: of a
 * code it knows) whose code's region is @near ("CA,US") */
static void
add_code_cell (GArray *ev, const char *near, gboolean unlisted, gint64 expires)
{
  RlEvidence e;
  g_auto (GStrv) list = g_strsplit (near, ",", -1);

  rl_evidence_init (&e, RL_SOURCE_CELL, "cell", T0, expires);
  e.strength = 1;
  e.cell.unknown = !unlisted;
  e.cell.unlisted = unlisted;
  for (guint i = 0; list[i] && list[i][0] && e.cell.n_near < G_N_ELEMENTS (e.cell.near); i++)
    e.cell.near[e.cell.n_near++] = CC (list[i]);
  g_array_append_val (ev, e);
}

/* Three US access points and a French one (Puerto Rico, Réunion, …) */
static void
add_us_fr_beacons (GArray *ev)
{
  add_beacon (ev, "14:c0:3e:5a:21:07", "US");
  add_beacon (ev, "30:fb:b8:0c:4e:91", "US");
  add_beacon (ev, "88:15:44:7d:10:2a", "US");
  add_beacon (ev, "84:a0:6e:31:5c:02", "FR");
}

/* Two UK-firmware routers (the Isle of Man) */
static void
add_gb_beacons (GArray *ev)
{
  add_beacon (ev, "00:23:f8:4c:12:a0", "GB");
  add_beacon (ev, "30:fb:b8:71:9e:30", "GB");
}

/* RlDecision.fix_place of the previous decision, for shifted_to () */
static RlCountry last_fix_place = RL_COUNTRY_NONE;

static RlCountry
shifted_to (const RlTerritories *t, GArray *ev, guint *n)
{
  RlTerritoryShift shift;
  g_autofree RlEvidence *out = rl_territory_attribute (t, (RlEvidence *) (gpointer) ev->data, ev->len, T0 + 1, 250,
                                                       last_fix_place, &shift);

  g_assert_true ((out == NULL) == (shift.place == RL_COUNTRY_NONE));
  if (n)
    *n = shift.n_beacons;
  for (guint i = 0; out && i < ev->len; i++)
    {
      const RlEvidence *a = &g_array_index (ev, RlEvidence, i);
      /* only the sovereign's beacons change, and only their country */
      if (a->kind == RL_SOURCE_BEACON && a->countries[0] == shift.sovereign)
        g_assert_cmpuint (out[i].countries[0], ==, shift.place);
      else
        g_assert_cmpmem (&out[i], sizeof out[i], a, sizeof *a);
    }
  return shift.place;
}

static void
test_attribute (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlTerritories) t = rl_territories_new_from_text (sovereigns, "t", &error);
  const gint64 live = T0 + 600 * RL_USEC_PER_SEC, gone = T0;
  guint n = 0;

  /* one case: the access points @heard add, what @build adds, the place */
#define CASE_HEARING(heard, build, want)                                    \
  do                                                                        \
    {                                                                       \
      g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence)); \
      heard (ev);                                                           \
      build;                                                                \
      g_assert_cmpuint (shifted_to (t, ev, &n), ==, want);                  \
    }                                                                       \
  while (0)
#define CASE(build, want) CASE_HEARING (add_us_fr_beacons, build, want)

  g_assert_no_error (error);
  /* Ohio: US access points alone, or with a US zone, stay US */
  CASE ((void) 0, RL_COUNTRY_NONE);
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "US", 0, live), RL_COUNTRY_NONE);
  /* San Juan: the zone's primary country is PR and it does not name US */
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "PR,AG,CA,AI,AW,BL,GP,MF,VI", 0, live), CC ("PR"));
  g_assert_cmpuint (n, ==, 3);
  /* a zone that names the sovereign too places nobody */
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "PR,US", 0, live), RL_COUNTRY_NONE);
  /* Guam by GPS */
  CASE (add_item (ev, RL_SOURCE_GPS, "GU", 10, live), CC ("GU"));
  /* the fix decides where there is one: in Ohio, a PR clock does nothing */
  CASE ({ add_item (ev, RL_SOURCE_GPS, "US", 10, live); add_item (ev, RL_SOURCE_TIMEZONE, "PR,AG", 0, live); },
        RL_COUNTRY_NONE);
  /* … unless it is too poor to be a witness, or gone: then the zone */
  CASE ({ add_item (ev, RL_SOURCE_GPS, "US", 900, live); add_item (ev, RL_SOURCE_TIMEZONE, "PR,AG", 0, live); },
        CC ("PR"));
  CASE ({ add_item (ev, RL_SOURCE_GPS, "US", 10, gone); add_item (ev, RL_SOURCE_TIMEZONE, "PR,AG", 0, live); },
        CC ("PR"));
  /* a fix at the sea border of two territories of one sovereign: no place */
  CASE (add_item (ev, RL_SOURCE_GPS, "GP,MF", 10, live), RL_COUNTRY_NONE);
  /* Réunion: only the FR access point counts for RE; the US ones stay */
  CASE (add_item (ev, RL_SOURCE_GPS, "RE", 10, live), CC ("RE"));
  g_assert_cmpuint (n, ==, 1);
  /* Saint-Gilles without a fix: a modem on SFR Réunion (647) places the
   * machine in RE though the clock was left on Paris … */
  CASE ({ add_item (ev, RL_SOURCE_CELL, "RE", 0, live); add_item (ev, RL_SOURCE_TIMEZONE, "FR,MC", 0, live); },
        CC ("RE"));
  /* … a fix still decides where there is one … */
  CASE ({ add_item (ev, RL_SOURCE_GPS, "US", 10, live); add_item (ev, RL_SOURCE_CELL, "PR", 0, live); },
        RL_COUNTRY_NONE);
  /* … a network naming the sovereign too (310: the US and its territories)
   * places nobody, and the zone speaks … */
  CASE ({ add_item (ev, RL_SOURCE_CELL, "US,PR,GU,VI", 0, live); add_item (ev, RL_SOURCE_TIMEZONE, "GU", 0, live); },
        CC ("GU"));
  /* … and two modems on two territories' networks place nobody either */
  CASE ({ add_item (ev, RL_SOURCE_CELL, "GP", 0, live); add_item (ev, RL_SOURCE_CELL, "MF", 0, live); },
        RL_COUNTRY_NONE);
  /* Saint-Georges-de-l'Oyapock without a fix: the modem on Vivo (BR),
   * whose country touches France only in French Guiana, places the machine
   * there; only the FR access point moves */
  CASE (add_item (ev, RL_SOURCE_CELL, "BR", 0, live), CC ("GF"));
  g_assert_cmpuint (n, ==, 1);
  /* … a Brazilian clock does not (a visitor's laptop in Paris) … */
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "BR", 0, live), RL_COUNTRY_NONE);
  /* … a fix decides where there is one … */
  CASE ({ add_item (ev, RL_SOURCE_GPS, "FR", 10, live); add_item (ev, RL_SOURCE_CELL, "BR", 0, live); },
        RL_COUNTRY_NONE);
  /* … a network of a country that touches mainland France places nobody,
   * nor does one of a territory the table does not list (Saint Lucia
   * touches France only at Martinique, not in this table) … */
  CASE (add_item (ev, RL_SOURCE_CELL, "DE", 0, live), RL_COUNTRY_NONE);
  CASE (add_item (ev, RL_SOURCE_CELL, "LC", 0, live), RL_COUNTRY_NONE);
  /* … and a second modem on a German network places nobody either */
  CASE ({ add_item (ev, RL_SOURCE_CELL, "BR", 0, live); add_item (ev, RL_SOURCE_CELL, "DE", 0, live); },
        RL_COUNTRY_NONE);
  /* Saint-Pierre without a fix: SPM Télécom's 308, which the provider list
   * does not know, lies between Canada's and the US's codes; Canada touches
   * France only at Saint-Pierre-et-Miquelon, the US nowhere: PM, over a
   * Paris clock … */
  CASE ({ add_code_cell (ev, "CA,US", FALSE, live); add_item (ev, RL_SOURCE_TIMEZONE, "FR,MC", 0, live); },
        CC ("PM"));
  g_assert_cmpuint (n, ==, 1);
  /* … not where a country of the region touches mainland France too … */
  CASE (add_code_cell (ev, "CA,DE", FALSE, live), RL_COUNTRY_NONE);
  /* … nor with a region that reaches France nowhere (it conflicts) */
  CASE (add_code_cell (ev, "JM,BB", FALSE, live), RL_COUNTRY_NONE);
  /* an unlisted network of a code listed for Réunion alone (Orange
   * Mayotte's 647-01: 647 holds SFR Réunion): RE, as SFR's network would */
  CASE (add_code_cell (ev, "RE", TRUE, live), CC ("RE"));
  /* a Guadeloupean's laptop in Paris on Orange France: the modem on the
   * sovereign's own network says more than the clock set at home */
  CASE ({ add_item (ev, RL_SOURCE_TIMEZONE, "GP", 0, live); add_item (ev, RL_SOURCE_CELL, "FR", 0, live); },
        RL_COUNTRY_NONE);
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "GP", 0, live), CC ("GP"));
  /* a fix in Guadeloupe, then lost indoors: the place it gave stays, over
   * a Paris clock, until a fix places the machine elsewhere */
  last_fix_place = CC ("GP");
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "FR,MC", 0, live), CC ("GP"));
  CASE ({ add_item (ev, RL_SOURCE_GPS, "US", 10, live); add_item (ev, RL_SOURCE_TIMEZONE, "FR,MC", 0, live); },
        RL_COUNTRY_NONE);
  last_fix_place = RL_COUNTRY_NONE;
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "FR,MC", 0, live), RL_COUNTRY_NONE);
  /* Hong Kong is no territory of CN here: nothing moves */
  CASE ({ add_beacon (ev, "08:60:83:7e:41:c9", "CN"); add_item (ev, RL_SOURCE_GPS, "HK", 10, live); }, RL_COUNTRY_NONE);
#undef CASE
  /* Douglas: UK-firmware routers (GB) count for the Isle of Man when a
   * modem on Manx Telecom (234-58: IM) or the Manx clock places the
   * machine there; not when the modem is on a UK network (a Manx laptop in
   * Liverpool), nor for a network code the list does not pin (234 alone
   * names GB, GG, IM and JE: then the clock speaks) */
#define CASE(build, want) CASE_HEARING (add_gb_beacons, build, want)
  CASE (add_item (ev, RL_SOURCE_CELL, "IM", 0, live), CC ("IM"));
  g_assert_cmpuint (n, ==, 2);
  CASE ({ add_item (ev, RL_SOURCE_CELL, "IM", 0, live); add_item (ev, RL_SOURCE_TIMEZONE, "GB,GG,IM,JE", 0, live); },
        CC ("IM"));
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "IM", 0, live), CC ("IM"));
  CASE ({ add_item (ev, RL_SOURCE_TIMEZONE, "IM", 0, live); add_item (ev, RL_SOURCE_CELL, "GB", 0, live); },
        RL_COUNTRY_NONE);
  CASE ({ add_item (ev, RL_SOURCE_TIMEZONE, "IM", 0, live); add_item (ev, RL_SOURCE_CELL, "GB,GG,IM,JE", 0, live); },
        CC ("IM"));
  CASE (add_item (ev, RL_SOURCE_CELL, "GB,GG,IM,JE", 0, live), RL_COUNTRY_NONE);
  /* Sure's 234-55 is listed for Guernsey and the Isle of Man: no place */
  CASE (add_item (ev, RL_SOURCE_CELL, "GG,IM", 0, live), RL_COUNTRY_NONE);
  CASE (add_item (ev, RL_SOURCE_TIMEZONE, "GB,GG,IM,JE", 0, live), RL_COUNTRY_NONE);
  CASE ({ add_item (ev, RL_SOURCE_GPS, "GB", 10, live); add_item (ev, RL_SOURCE_CELL, "IM", 0, live); },
        RL_COUNTRY_NONE);
#undef CASE
#undef CASE_HEARING
  {
    g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
    g_autofree RlEvidence *out = NULL;
    g_autofree char *text = NULL;
    RlTerritoryShift shift;

    add_beacon (ev, "00:23:f8:4c:12:a0", "GB");
    add_item (ev, RL_SOURCE_CELL, "IM", 0, live);
    out = rl_territory_attribute (t, (RlEvidence *) (gpointer) ev->data, ev->len, T0 + 1, 250, RL_COUNTRY_NONE, &shift);
    text = rl_territory_shift_describe (&shift);
    g_assert_cmpstr (text, ==, "1 access point advertising GB counts for IM: the provider list numbers IM's mobile "
                               "networks under GB's country code 234, and the mobile network places the machine there.");
  }
  /* no table, no evidence */
  {
    RlTerritoryShift shift;
    g_assert_null (rl_territory_attribute (NULL, NULL, 0, T0, 250, RL_COUNTRY_NONE, &shift));
    g_assert_cmpuint (shift.place, ==, RL_COUNTRY_NONE);
  }
}

/* Through the policy with a database that has rules for PR, the US access
 * points and the zone decide PR, and the explanation says why. */
static void
test_policy_territory (void)
{
  static const char *const db_codes[] = { "00", "US", "PR", "FR", NULL };
  g_autoptr (GByteArray) db = make_db (db_codes);
  g_autofree char *path = write_tmp (db->data, db->len, "regulatory.db");
  g_autofree char *spath = write_tmp ((const guint8 *) sovereigns, strlen (sovereigns), "territory-sovereigns.tsv");
  g_autoptr (GError) error = NULL;
  g_autoptr (RlRegulatory) reg = NULL;
  g_autoptr (GArray) ev = g_array_new (FALSE, TRUE, sizeof (RlEvidence));
  RlPolicyParams params;

  g_setenv ("REGLOC_TERRITORY_SOVEREIGNS", spath, TRUE);
  reg = rl_regulatory_load (path, NULL, &error);
  g_unsetenv ("REGLOC_TERRITORY_SOVEREIGNS");
  g_assert_no_error (error);
  g_assert_nonnull (rl_regulatory_territories (reg));
  rl_policy_params_init (&params);
  params.hold_down_s = 0;
  params.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
  add_beacon (ev, "14:c0:3e:5a:21:07", "US");
  add_beacon (ev, "30:fb:b8:0c:4e:91", "US");
  add_beacon (ev, "88:15:44:7d:10:2a", "US");
  add_beacon (ev, "9c:3d:cf:41:aa:0e", "US");
  {
    g_autoptr (RlDecision) d = rl_policy_decide (&params, rl_regulatory_map, reg, NULL,
                                                 (RlEvidence *) (gpointer) ev->data, ev->len, NULL, T0 + 1);
    g_assert_cmpuint (d->country, ==, CC ("US"));
    g_assert_null (strstr (d->explanation, "ISO 3166-2"));
  }
  add_item (ev, RL_SOURCE_TIMEZONE, "PR,AG,CA,VI", 0, RL_NEVER);
  {
    g_autoptr (RlDecision) d = rl_policy_decide (&params, rl_regulatory_map, reg, NULL,
                                                 (RlEvidence *) (gpointer) ev->data, ev->len, NULL, T0 + 1);
    g_assert_cmpuint (d->country, ==, CC ("PR"));
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_nonnull (strstr (d->explanation, "advertising US count for PR"));
  }
  /* without the table (another regmap), the same evidence stays US */
  {
    g_autoptr (RlDecision) d = rl_policy_decide (&params, NULL, NULL, NULL,
                                                 (RlEvidence *) (gpointer) ev->data, ev->len, NULL, T0 + 1);
    g_assert_cmpuint (d->country, ==, CC ("US"));
  }
  g_unlink (spath);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/regdb/synthetic", test_synthetic);
  g_test_add_func ("/regdb/truncations-and-flips", test_truncations_and_flips);
  g_test_add_func ("/regdb/bad-headers", test_bad_headers);
  g_test_add_func ("/regdb/rules/synthetic", test_rules_synthetic);
  g_test_add_func ("/regdb/rules/truncations-and-flips", test_rules_truncations_and_flips);
  g_test_add_func ("/regdb/rules/corrupt", test_rules_corrupt);
  g_test_add_func ("/regdb/rules/system-db", test_rules_system);
  g_test_add_func ("/regdb/rules/no-database", test_rules_no_database);
  g_test_add_func ("/regdb/rules/names", test_rules_names);
  g_test_add_func ("/regdb/missing-is-world-only", test_missing_is_world_only);
  g_test_add_func ("/regdb/corrupt-is-world-only", test_corrupt_is_world_only);
  g_test_add_func ("/regdb/territories", test_territories);
  g_test_add_func ("/regdb/table-complete", test_table_complete);
  g_test_add_func ("/regdb/system-db", test_system_db);
  g_test_add_func ("/regdb/sovereigns-generated", test_sovereigns_generated);
  g_test_add_func ("/regdb/sovereigns-parse", test_sovereigns_parse);
  g_test_add_func ("/regdb/territory-attribute", test_attribute);
  g_test_add_func ("/regdb/territory-policy", test_policy_territory);
  return g_test_run ();
}
