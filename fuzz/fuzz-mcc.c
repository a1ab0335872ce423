/* libFuzzer target: mobile-broadband-provider-info's serviceproviders.xml
 * (readers/mcc.c) and the code parsers fed the same bytes. */
#include "fuzz/fuzz-common.h"
#include "readers/mcc.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlMccTable) table = rl_mcc_table_parse ((const char *) data, size, &error);
  g_autofree char *text = g_strndup ((const char *) data, MIN (size, 64));
  RlCountry out[RL_MAX_CANDIDATES];
  guint mcc;
  char mnc[4];

  g_assert ((table == NULL) == (error != NULL));
  if (table != NULL)
    {
      const RlMccStats *st = rl_mcc_table_stats (table);
      g_assert (st->networks > 0);
      g_assert (rl_mcc_table_n_codes (table) <= st->networks);
      for (guint code = 0; code < 1000; code++)
        {
          guint n = rl_mcc_table_lookup (table, code, NULL, out);
          g_assert (n <= RL_MAX_CANDIDATES);
          g_assert (n == 0 || rl_mcc_names_country (code));
          for (guint i = 0; i < n; i++)
            g_assert (out[i] != RL_COUNTRY_NONE && out[i] != RL_COUNTRY_WORLD);
        }
    }
  if (rl_mcc_parse_operator_code (text, &mcc, mnc) || rl_mcc_parse_network (text, &mcc, mnc) ||
      rl_mcc_parse_3gpp_location (text, &mcc, mnc))
    g_assert (mcc < 1000 && strlen (mnc) <= 3);
  return 0;
}
