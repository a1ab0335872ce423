/* libFuzzer target: whole element streams (the body of a beacon or probe
 * response after its fixed fields, NL80211_BSS_*_IES, a scan log's "ies"),
 * through the Country element parser and the beacon evidence built on it. */
#include <string.h>
#include "fuzz/fuzz-common.h"
#include "readers/country-ie.h"
#include "readers/nl80211-scan.h"

static void
check_printable (const char *s, gsize max)
{
  gsize n = strlen (s);

  g_assert (n <= max);
  for (gsize i = 0; i < n; i++)
    g_assert (g_ascii_isprint (s[i]));
}

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  static const guint8 bssid[6] = { 0x02, 0, 0, 0, 0, 1 };
  RlCountryIe ie, whole;
  RlEvidence ev;
  char ssid[33], env[64];
  gsize body_len = 0;
  gboolean truncated = FALSE;
  RlCountryIeResult res = rl_country_ie_find (data, size, &ie);

  g_assert ((guint) res < RL_COUNTRY_IE_N_RESULTS);
  if (res == RL_COUNTRY_IE_OK)
    {
      g_assert (ie.n_triplets <= RL_COUNTRY_IE_MAX_TRIPLETS);
      check_printable (ie.alpha2, 2);
      rl_country_ie_environment_to_string (ie.environment, env, sizeof env);
      g_assert (env[0] != '\0');
    }
  const guint8 *body = rl_ies_find (data, size, RL_IE_COUNTRY, &body_len, &truncated);
  g_assert (body == NULL || (body >= data && body + body_len <= data + size));
  /* the bytes alone, as if they were one element's body */
  if (rl_country_ie_parse_body (data, size, &whole) == RL_COUNTRY_IE_OK)
    g_assert (whole.n_triplets <= RL_COUNTRY_IE_MAX_TRIPLETS);
  rl_ies_ssid (data, size, ssid);
  check_printable (ssid, 32);

  /* the same bytes as a BSS's last frame and as its beacon: one verdict */
  RlCountryIeResult built = rl_beacon_evidence_build (&ev, bssid, -4200, 2412, data, size, data, size, 0, 60);
  g_assert (built == res);
  if (built == RL_COUNTRY_IE_OK)
    {
      g_assert (ev.n_countries == 1 && ev.countries[0] == ie.country);
      check_printable (ev.beacon.ssid, 32);
      g_assert (g_utf8_validate (ev.detail, -1, NULL));
    }
  return 0;
}
