#include "readers/country-ie.h"

#include <string.h>
#include "core/enum-names.h"

static const char *const result_names[RL_COUNTRY_IE_N_RESULTS] = {
  [RL_COUNTRY_IE_OK] = "ok",
  [RL_COUNTRY_IE_ABSENT] = "no_country_ie",
  [RL_COUNTRY_IE_TRUNCATED] = "ies_truncated",
  [RL_COUNTRY_IE_SHORT] = "country_ie_short",
  [RL_COUNTRY_IE_ODD_LENGTH] = "country_ie_odd_length",
  [RL_COUNTRY_IE_NOT_A_COUNTRY] = "not_a_country",
  [RL_COUNTRY_IE_NON_COUNTRY_ENV] = "non_country_environment",
  [RL_COUNTRY_IE_TWO_COUNTRIES] = "two_countries",
};

const char *
rl_country_ie_result_to_string (RlCountryIeResult result)
{
  return RL_ENUM_NAME (result_names, result, "unknown");
}

/* Operating-class triplets start with an extension identifier >= 201
 * (IEEE 802.11-2020 9.4.2.8). */
#define RL_OPERATING_EXTENSION_MIN 201

RlCountryIeResult
rl_country_ie_parse_body (const guint8 *body, gsize len, RlCountryIe *out)
{
  memset (out, 0, sizeof *out);
  /* Same acceptance as the kernel's regulatory_hint_country_ie(). */
  if (len < 6)
    return RL_COUNTRY_IE_SHORT;
  if (len & 1)
    return RL_COUNTRY_IE_ODD_LENGTH;

  out->alpha2[0] = g_ascii_isprint (body[0]) ? (char) body[0] : '?';
  out->alpha2[1] = g_ascii_isprint (body[1]) ? (char) body[1] : '?';
  out->alpha2[2] = '\0';
  out->environment = (char) body[2];

  /* The body is 3 + 3n bytes plus one pad byte when that is odd. */
  gsize n = (len - 3) / 3;
  out->n_triplets = (guint) MIN (n, (gsize) RL_COUNTRY_IE_MAX_TRIPLETS);
  for (guint i = 0; i < out->n_triplets; i++)
    {
      const guint8 *t = body + 3 + 3 * i;
      RlCountryTriplet *tr = &out->triplets[i];
      tr->a = t[0];
      tr->b = t[1];
      if (t[0] >= RL_OPERATING_EXTENSION_MIN)
        {
          tr->kind = RL_TRIPLET_OPERATING_CLASS;
          tr->coverage_class = t[2];
        }
      else
        {
          tr->kind = RL_TRIPLET_SUBBAND;
          tr->max_power_dbm = (gint8) t[2];
        }
    }

  if (!g_ascii_isalpha (body[0]) || !g_ascii_isalpha (body[1]))
    return RL_COUNTRY_IE_NOT_A_COUNTRY;
  char a = g_ascii_toupper ((char) body[0]);
  char b = g_ascii_toupper ((char) body[1]);
  /* "XX" is what vendors send when they do not know; never a country. */
  if (a == 'X' && b == 'X')
    return RL_COUNTRY_IE_NOT_A_COUNTRY;
  if (out->environment == 'X')
    return RL_COUNTRY_IE_NON_COUNTRY_ENV;
  out->country = RL_COUNTRY (a, b);
  return RL_COUNTRY_IE_OK;
}

const guint8 *
rl_ies_find (const guint8 *ies, gsize len, guint8 id, gsize *body_len, gboolean *truncated)
{
  gsize pos = 0;

  if (truncated != NULL)
    *truncated = FALSE;
  if (ies == NULL)
    return NULL;
  while (pos < len)
    {
      if (len - pos < 2)
        {
          if (truncated != NULL)
            *truncated = TRUE;
          return NULL;
        }
      guint8 eid = ies[pos];
      gsize elen = ies[pos + 1];
      if (len - pos - 2 < elen)
        {
          if (truncated != NULL)
            *truncated = TRUE;
          return NULL;
        }
      if (eid == id)
        {
          *body_len = elen;
          return ies + pos + 2;
        }
      pos += 2 + elen;
    }
  return NULL;
}

RlCountryIeResult
rl_country_ie_find (const guint8 *ies, gsize len, RlCountryIe *out)
{
  gsize body_len = 0;
  gboolean truncated = FALSE;
  const guint8 *body = rl_ies_find (ies, len, RL_IE_COUNTRY, &body_len, &truncated);

  if (body == NULL)
    {
      memset (out, 0, sizeof *out);
      return truncated ? RL_COUNTRY_IE_TRUNCATED : RL_COUNTRY_IE_ABSENT;
    }

  /* The kernel reads the first Country element.  A frame with a second
   * one naming another country (a broken or forged frame) says nothing
   * we could vote on; the same element twice is harmless. */
  const guint8 *rest = body + body_len;
  gsize rest_len = len - (gsize) (rest - ies), other_len = 0;
  const guint8 *other = rl_ies_find (rest, rest_len, RL_IE_COUNTRY, &other_len, NULL);
  if (other != NULL && (other_len < 2 || g_ascii_toupper (other[0]) != g_ascii_toupper (body_len > 0 ? body[0] : 0) ||
                        g_ascii_toupper (other[1]) != g_ascii_toupper (body_len > 1 ? body[1] : 0)))
    {
      memset (out, 0, sizeof *out);
      return RL_COUNTRY_IE_TWO_COUNTRIES;
    }
  return rl_country_ie_parse_body (body, body_len, out);
}

void
rl_ies_ssid (const guint8 *ies, gsize len, char out[33])
{
  gsize ssid_len = 0;
  const guint8 *ssid = rl_ies_find (ies, len, RL_IE_SSID, &ssid_len, NULL);
  gsize n = 0;

  if (ssid != NULL)
    {
      ssid_len = MIN (ssid_len, (gsize) 32);
      for (gsize i = 0; i < ssid_len; i++)
        {
          /* hidden networks send NULs: show them as empty */
          if (ssid[i] == 0)
            continue;
          out[n++] = g_ascii_isprint (ssid[i]) ? (char) ssid[i] : '?';
        }
    }
  out[n] = '\0';
}

const char *
rl_country_ie_environment_to_string (char environment, char *buf, gsize len)
{
  switch (environment)
    {
    case ' ':
      g_strlcpy (buf, "any", len);
      break;
    case 'I':
      g_strlcpy (buf, "indoor", len);
      break;
    case 'O':
      g_strlcpy (buf, "outdoor", len);
      break;
    case 'X':
      g_strlcpy (buf, "non-country", len);
      break;
    case 0x04:
      g_strlcpy (buf, "table 4 (global operating classes)", len);
      break;
    default:
      if (environment >= 0x01 && environment <= 0x1f)
        g_snprintf (buf, len, "table %d", environment);
      else
        g_snprintf (buf, len, "0x%02x", (guint) (guint8) environment);
      break;
    }
  return buf;
}
