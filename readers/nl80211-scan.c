#include "readers/nl80211-scan.h"

#include <stdio.h>
#include <string.h>
#include <netlink/attr.h>
#include <linux/nl80211.h>

G_DEFINE_QUARK (rl-nl80211-error-quark, rl_nl80211_error)

static gboolean
attr_u32 (struct nlattr *a, guint32 *out)
{
  if (a == NULL || nla_len (a) != 4)
    return FALSE;
  *out = nla_get_u32 (a);
  return TRUE;
}

gboolean
rl_nl80211_parse_bss (const guint8 *attrs, gsize len, RlScanBss *out, GError **error)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *bss[NL80211_BSS_MAX + 1];

  memset (out, 0, sizeof *out);
  if (len > G_MAXINT)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_MALFORMED, "scan message too long");
      return FALSE;
    }
  /* libnl's nla_parse() only checks headers against the buffer with a NULL
   * policy; every payload size is checked below. */
  if (nla_parse (tb, NL80211_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_MALFORMED, "malformed scan message");
      return FALSE;
    }
  out->has_ifindex = attr_u32 (tb[NL80211_ATTR_IFINDEX], &out->ifindex);
  if (tb[NL80211_ATTR_BSS] == NULL)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_MISSING, "scan message without NL80211_ATTR_BSS");
      return FALSE;
    }
  if (nla_parse_nested (bss, NL80211_BSS_MAX, tb[NL80211_ATTR_BSS], NULL) < 0)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_MALFORMED, "malformed NL80211_ATTR_BSS");
      return FALSE;
    }
  if (bss[NL80211_BSS_BSSID] == NULL || nla_len (bss[NL80211_BSS_BSSID]) != 6)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_MISSING, "BSS without a 6-byte BSSID");
      return FALSE;
    }
  memcpy (out->bssid, nla_data (bss[NL80211_BSS_BSSID]), 6);
  attr_u32 (bss[NL80211_BSS_FREQUENCY], &out->freq_mhz);
  guint32 sig;
  if (attr_u32 (bss[NL80211_BSS_SIGNAL_MBM], &sig))
    {
      out->has_signal = TRUE;
      out->signal_mbm = (gint32) sig;
    }
  attr_u32 (bss[NL80211_BSS_SEEN_MS_AGO], &out->seen_ms_ago);
  if (bss[NL80211_BSS_INFORMATION_ELEMENTS] != NULL)
    {
      out->ies = nla_data (bss[NL80211_BSS_INFORMATION_ELEMENTS]);
      out->ies_len = (gsize) nla_len (bss[NL80211_BSS_INFORMATION_ELEMENTS]);
    }
  if (bss[NL80211_BSS_BEACON_IES] != NULL)
    {
      out->beacon_ies = nla_data (bss[NL80211_BSS_BEACON_IES]);
      out->beacon_ies_len = (gsize) nla_len (bss[NL80211_BSS_BEACON_IES]);
    }
  return TRUE;
}

void
rl_bssid_to_string (const guint8 bssid[6], char out[18])
{
  g_snprintf (out, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
              bssid[0], bssid[1], bssid[2], bssid[3], bssid[4], bssid[5]);
}

void
rl_beacon_key (const guint8 bssid[6], char out[RL_BEACON_KEY_LEN])
{
  char text[18];

  rl_bssid_to_string (bssid, text);
  g_snprintf (out, RL_BEACON_KEY_LEN, "beacon:%s", text);
}

gboolean
rl_bssid_parse (const char *text, guint8 out[6])
{
  if (text == NULL || strlen (text) != 17)
    return FALSE;
  for (guint i = 0; i < 6; i++)
    {
      const char *p = text + 3 * i;
      if (!g_ascii_isxdigit (p[0]) || !g_ascii_isxdigit (p[1]))
        return FALSE;
      if (i < 5 && p[2] != ':' && p[2] != '-')
        return FALSE;
      out[i] = (guint8) (g_ascii_xdigit_value (p[0]) << 4 | g_ascii_xdigit_value (p[1]));
    }
  return TRUE;
}

RlCountryIeResult
rl_beacon_evidence_build (RlEvidence *ev,
                          const guint8 bssid[6],
                          gint32 signal_mbm,
                          guint32 freq_mhz,
                          const guint8 *ies, gsize ies_len,
                          const guint8 *beacon_ies, gsize beacon_ies_len,
                          gint64 observed_at,
                          guint max_age_s)
{
  RlCountryIe cie;
  RlCountryIeResult res = RL_COUNTRY_IE_ABSENT;
  const guint8 *used = NULL;
  gsize used_len = 0;

  /* The last frame's elements first; a probe response may lack the
   * Country element its beacons carry, so fall back to those. */
  if (ies != NULL)
    {
      res = rl_country_ie_find (ies, ies_len, &cie);
      used = ies;
      used_len = ies_len;
    }
  if (res != RL_COUNTRY_IE_OK && beacon_ies != NULL)
    {
      RlCountryIeResult res2 = rl_country_ie_find (beacon_ies, beacon_ies_len, &cie);
      if (res2 == RL_COUNTRY_IE_OK || res == RL_COUNTRY_IE_ABSENT)
        {
          res = res2;
          used = beacon_ies;
          used_len = beacon_ies_len;
        }
    }
  if (res != RL_COUNTRY_IE_OK)
    return res;

  char bssid_text[18];
  char key[RL_BEACON_KEY_LEN];
  rl_bssid_to_string (bssid, bssid_text);
  rl_beacon_key (bssid, key);
  rl_evidence_init (ev, RL_SOURCE_BEACON, key, observed_at, rl_expiry_after (observed_at, max_age_s));
  rl_evidence_add_country (ev, cie.country);
  memcpy (ev->beacon.bssid, bssid, 6);
  rl_ies_ssid (used, used_len, ev->beacon.ssid);
  if (ev->beacon.ssid[0] == '\0' && used != ies && ies != NULL)
    rl_ies_ssid (ies, ies_len, ev->beacon.ssid);
  ev->beacon.signal_mbm = signal_mbm;
  ev->beacon.freq_mhz = freq_mhz;
  ev->beacon.environment = cie.environment;

  char env[8];
  if (cie.environment == ' ' || cie.environment == 'I' || cie.environment == 'O')
    g_snprintf (env, sizeof env, "%c", cie.environment);
  else
    g_snprintf (env, sizeof env, "\\x%02x", (guint) (guint8) cie.environment);
  g_snprintf (ev->detail, sizeof ev->detail, "AP %s, ESS '%s', IE '%s%s', %u MHz, %.0f dBm",
              bssid_text, ev->beacon.ssid, cie.alpha2, env, freq_mhz, signal_mbm / 100.0);
  return RL_COUNTRY_IE_OK;
}
