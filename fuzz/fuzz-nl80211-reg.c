/* libFuzzer target: the attributes of a regulatory message the applier
 * reads (NL80211_CMD_REG_CHANGE, WIPHY_REG_CHANGE, the GET_REG answer). */
#include "fuzz/fuzz-common.h"
#include "daemon/kernel/applier.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  RlRegMessage m;

  if (rl_applier_parse_reg_message (data, size, &m) && m.country != RL_COUNTRY_NONE)
    {
      /* a country is two upper-case letters or digits ("00", "98", "99") */
      char c[3];
      rl_country_to_string (m.country, c);
      g_assert ((g_ascii_isupper (c[0]) || g_ascii_isdigit (c[0])) &&
                (g_ascii_isupper (c[1]) || g_ascii_isdigit (c[1])));
    }
  return 0;
}
