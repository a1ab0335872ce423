/* libFuzzer target: regulatory.db images. */
#include "fuzz/fuzz-common.h"
#include "core/regdb.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) set = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean ok = rl_regdb_parse (data, size, set, &error);

  g_assert (ok == (error == NULL));
  g_assert (!ok || g_hash_table_contains (set, GUINT_TO_POINTER ((guint) RL_COUNTRY_WORLD)));
  return 0;
}
