/* libFuzzer target: regulatory.db images, the country list and the rules
 * (of 00 and of the first country entry), and the comparison against 00. */
#include "fuzz/fuzz-common.h"
#include "core/regdb.h"
#include "core/regrules.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL, e00 = NULL, ecc = NULL;
  g_autoptr (GHashTable) set = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean ok = rl_regdb_parse (data, size, set, &error);
  g_autoptr (RlRegDomain) world = rl_regdb_parse_domain (data, size, RL_COUNTRY_WORLD, &e00);
  RlCountry first = size >= 10 ? RL_COUNTRY (data[8], data[9]) : RL_COUNTRY_WORLD;
  g_autoptr (RlRegDomain) country = rl_regdb_parse_domain (data, size, first, &ecc);

  g_assert (ok == (error == NULL));
  g_assert (!ok || g_hash_table_contains (set, GUINT_TO_POINTER ((guint) RL_COUNTRY_WORLD)));
  /* one parser: the rules load exactly when the image does */
  g_assert (ok == (world != NULL));
  g_assert ((country == NULL) == (ecc != NULL));
  g_assert (country == NULL || ok);
  if (world != NULL && country != NULL)
    {
      g_autoptr (GPtrArray) changes = rl_reg_domain_changes (country, world);
      g_assert (changes->len > 0);
    }
  return 0;
}
