#include "core/evidence.h"
#include "core/eu-members.h"

#include <math.h>
#include <string.h>
#include "core/enum-names.h"

gboolean
rl_country_parse (const char *text, RlCountry *out)
{
  if (text == NULL || text[0] == '\0' || text[1] == '\0' || text[2] != '\0')
    return FALSE;
  if (text[0] == '0' && text[1] == '0')
    {
      *out = RL_COUNTRY_WORLD;
      return TRUE;
    }
  if (!g_ascii_isalpha (text[0]) || !g_ascii_isalpha (text[1]))
    return FALSE;
  *out = RL_COUNTRY (g_ascii_toupper (text[0]), g_ascii_toupper (text[1]));
  return TRUE;
}

gboolean
rl_beacon_heard_once (const RlEvidence *ev)
{
  return ev->kind == RL_SOURCE_BEACON && ev->beacon.heard_since == ev->observed_at;
}

const char *
rl_country_to_string (RlCountry country, char out[3])
{
  if (country == RL_COUNTRY_NONE)
    {
      out[0] = out[1] = '-';
    }
  else
    {
      out[0] = (char) (country >> 8);
      out[1] = (char) (country & 0xff);
    }
  out[2] = '\0';
  return out;
}

static const char *const source_kind_names[RL_N_SOURCE_KINDS] = {
  [RL_SOURCE_BEACON] = "beacons",
  [RL_SOURCE_GPS] = "gps",
  [RL_SOURCE_TIMEZONE] = "timezone",
  [RL_SOURCE_OVERRIDE] = "override",
  [RL_SOURCE_CELL] = "cell",
  [RL_SOURCE_DRIVER] = "driver",
};

const char *
rl_source_kind_to_string (RlSourceKind kind)
{
  return RL_ENUM_NAME (source_kind_names, kind, "?");
}

gboolean
rl_source_kind_from_string (const char *text, RlSourceKind *out)
{
  guint value;

  if (RL_ENUM_PARSE (source_kind_names, text, &value))
    {
      *out = (RlSourceKind) value;
      return TRUE;
    }
  /* "beacon" reads naturally in scenario files too */
  if (g_strcmp0 (text, "beacon") == 0)
    {
      *out = RL_SOURCE_BEACON;
      return TRUE;
    }
  return FALSE;
}

void
rl_evidence_init (RlEvidence *ev, RlSourceKind kind, const char *key, gint64 observed_at, gint64 expires_at)
{
  memset (ev, 0, sizeof *ev);
  ev->kind = kind;
  g_strlcpy (ev->key, key, sizeof ev->key);
  ev->strength = 1.0;
  ev->observed_at = observed_at;
  ev->expires_at = expires_at;
  ev->gps.border_m = -1;
  ev->gps.altitude_m = ev->gps.speed_mps = NAN;
}

static gboolean
set_index (RlCountry country, guint *index)
{
  guint a = (guint) country >> 8, b = (guint) country & 0xff;

  if (a < 'A' || a > 'Z' || b < 'A' || b > 'Z')
    return FALSE;
  *index = (a - 'A') * 26 + (b - 'A');
  return TRUE;
}

void
rl_country_set_add (RlCountrySet *set, RlCountry country)
{
  guint i;

  if (set_index (country, &i))
    set->bits[i / 32] |= 1u << (i % 32);
}

gboolean
rl_country_set_has (const RlCountrySet *set, RlCountry country)
{
  guint i;

  return set_index (country, &i) && (set->bits[i / 32] & (1u << (i % 32))) != 0;
}

gboolean
rl_country_set_is_empty (const RlCountrySet *set)
{
  for (gsize i = 0; i < G_N_ELEMENTS (set->bits); i++)
    if (set->bits[i] != 0)
      return FALSE;
  return TRUE;
}

gboolean
rl_evidence_has_country (const RlEvidence *ev, RlCountry country)
{
  for (guint i = 0; i < ev->n_countries; i++)
    if (ev->countries[i] == country)
      return TRUE;
  return FALSE;
}

gboolean
rl_gps_circle_reaches_border (const RlEvidence *fix)
{
  return !(fix->gps.border_m >= 0 && fix->gps.border_m > fix->gps.error_m);
}

void
rl_evidence_add_country (RlEvidence *ev, RlCountry country)
{
  if (country == RL_COUNTRY_NONE || ev->n_countries >= RL_MAX_CANDIDATES ||
      rl_evidence_has_country (ev, country))
    return;
  ev->countries[ev->n_countries++] = country;
}

gboolean
rl_beacon_scan_done (gboolean heard, guint32 *heard_scans, guint32 *missed_scans)
{
  if (heard)
    {
      *heard_scans = MIN (*heard_scans + 1, RL_STEADY_SCANS);
      return FALSE;
    }
  /* heard by scans before and missed once: kept, until the next covering
   * scan misses it too */
  return *heard_scans < RL_STEADY_SCANS || ++*missed_scans >= RL_SCANS_MISSED_GONE;
}

const char *
rl_evidence_countries_to_string (const RlEvidence *ev, char *buf, gsize len)
{
  gsize used = 0;

  if (len == 0)
    return buf;
  buf[0] = '\0';
  if (ev->kind == RL_SOURCE_CELL && ev->cell.unknown)
    {
      g_strlcpy (buf, "a code the provider list does not know", len);
      return buf;
    }
  if (ev->kind == RL_SOURCE_CELL && ev->cell.unlisted)
    {
      g_strlcpy (buf, "a network the provider list does not carry", len);
      return buf;
    }
  if (ev->n_countries == 0)
    {
      g_strlcpy (buf, "sea", len);
      return buf;
    }
  for (guint i = 0; i < ev->n_countries && used + 4 <= len; i++)
    {
      char cc[3];
      used += (gsize) g_snprintf (buf + used, len - used, "%s%s", i ? "," : "",
                                  rl_country_to_string (ev->countries[i], cc));
    }
  return buf;
}

gint64
rl_expiry_after (gint64 observed_at, guint max_age_s)
{
  if (max_age_s == 0)
    return RL_NEVER;
  return observed_at + (gint64) max_age_s * RL_USEC_PER_SEC;
}

guint32
rl_bssid_eviction_group (const guint8 bssid[6])
{
  /* bit 1 of the first octet: locally administered (IEEE 802 U/L bit) */
  if (bssid[0] & 0x02)
    return RL_BSSID_GROUP_LOCAL;
  return ((guint32) bssid[0] << 16) | ((guint32) bssid[1] << 8) | bssid[2];
}

void
rl_signal_keep_louder (gint32 *loudest, gint32 signal_mbm)
{
  if (signal_mbm != 0 && (*loudest == 0 || signal_mbm > *loudest))
    *loudest = signal_mbm;
}

void
rl_keep_silent (gint32 *loudest, const guint8 bssid[6], gint32 signal_mbm)
{
  if (!RL_BSSID_IS_LOCAL (bssid))
    rl_signal_keep_louder (loudest, signal_mbm);
}

RlBand
rl_band_from_freq (guint32 freq_mhz)
{
  if (freq_mhz >= 2400 && freq_mhz <= 2500)
    return RL_BAND_2GHZ;
  /* 4.9 GHz public-safety and Japanese channels count with 5 GHz */
  if (freq_mhz >= 4900 && freq_mhz < 5925)
    return RL_BAND_5GHZ;
  if (freq_mhz >= 5925 && freq_mhz <= 7125)
    return RL_BAND_6GHZ;
  if (freq_mhz >= 57000 && freq_mhz <= 71000)
    return RL_BAND_60GHZ;
  return RL_BAND_UNKNOWN;
}

gboolean
rl_band_covered (guint bands, RlBand band)
{
  if (bands == RL_BANDS_ANY)
    return TRUE;
  return band != RL_BAND_UNKNOWN && (bands & band) != 0;
}

gboolean
rl_scan_covers (const guint32 *freqs, guint n_freqs, guint heard_bands, guint32 freq_mhz)
{
  if (n_freqs == 0)
    return rl_band_covered (heard_bands, rl_band_from_freq (freq_mhz));
  for (guint i = 0; i < n_freqs; i++)
    if (freqs[i] == freq_mhz)
      return TRUE;
  return FALSE;
}

gboolean
rl_country_is_eu_member (RlCountry country)
{
  char cc[3];

  rl_country_to_string (country, cc);
  for (gsize i = 0; i < G_N_ELEMENTS (rl_eu_member_codes); i++)
    if (memcmp (rl_eu_member_codes[i], cc, 2) == 0)
      return TRUE;
  return FALSE;
}

/* ---- text from typed fields (RlDetailLevel) ---------------------------- */

static const char *
band_name (RlBand band)
{
  switch (band)
    {
    case RL_BAND_2GHZ: return "2.4 GHz";
    case RL_BAND_5GHZ: return "5 GHz";
    case RL_BAND_6GHZ: return "6 GHz";
    case RL_BAND_60GHZ: return "60 GHz";
    case RL_BAND_UNKNOWN:
    default: return NULL;
    }
}

static void
describe_beacon (GString *s, const RlEvidence *ev, gboolean private_ok, const char *countries)
{
  const RlBeaconInfo *b = &ev->beacon;
  const char *band = band_name (rl_band_from_freq (b->freq_mhz));

  if (private_ok)
    g_string_append_printf (s, "AP %02x:%02x:%02x:%02x:%02x:%02x, ESS '%s', IE '%s'", b->bssid[0], b->bssid[1],
                            b->bssid[2], b->bssid[3], b->bssid[4], b->bssid[5], b->ssid, countries);
  else
    g_string_append_printf (s, "access point, IE '%s'", countries);
  if (band != NULL)
    g_string_append_printf (s, ", %s", band);
  if (b->signal_mbm != 0)
    g_string_append_printf (s, ", %.0f dBm", b->signal_mbm / 100.0);
}

static void
describe_gps (GString *s, const RlEvidence *ev, gboolean private_ok, const char *countries)
{
  const RlGpsInfo *g = &ev->gps;

  g_string_append (s, "GPS fix");
  if (private_ok && isfinite (g->lat) && isfinite (g->lon))
    g_string_append_printf (s, " %.5f%c %.5f%c", fabs (g->lat), g->lat >= 0 ? 'N' : 'S',
                            fabs (g->lon), g->lon >= 0 ? 'E' : 'W');
  g_string_append_printf (s, ev->n_countries == 0 ? " at %s" : " in %s", countries);
  if (isfinite (g->error_m))
    g_string_append_printf (s, " ±%.0f m", g->error_m);
  if (private_ok && g->border_m >= 0)
    g_string_append_printf (s, ", %.0f m from a border", g->border_m);
  if (g->flags & RL_GPS_INFO_UNTRUSTED)
    g_string_append (s, " (untrusted)");
}

const char *
rl_evidence_describe (const RlEvidence *ev, guint level, char *buf, gsize len)
{
  g_autoptr (GString) s = g_string_new (NULL);
  gboolean private_ok = (level & RL_DETAIL_PRIVATE) != 0;
  char countries[RL_MAX_CANDIDATES * 3 + 8];

  g_return_val_if_fail (ev != NULL && buf != NULL && len > 0, buf);
  rl_evidence_countries_to_string (ev, countries, sizeof countries);
  switch (ev->kind)
    {
    case RL_SOURCE_BEACON:
      describe_beacon (s, ev, private_ok, countries);
      break;
    case RL_SOURCE_GPS:
      describe_gps (s, ev, private_ok, countries);
      break;
    case RL_SOURCE_TIMEZONE:
      g_string_append_printf (s, "%s (%s)", ev->zone[0] ? ev->zone : "timezone", countries);
      break;
    case RL_SOURCE_OVERRIDE:
      g_string_append_printf (s, "override %s", countries);
      break;
    case RL_SOURCE_CELL:
      g_string_append_printf (s, "mobile network %s%s%s%s (%s)", ev->cell.network[0] ? ev->cell.network : "?",
                              ev->cell.roaming ? ", roaming" : "", ev->cell.serving_cell ? ", serving cell" : "",
                              ev->cell.unlisted ? ", not in the provider list" : "", countries);
      break;
    case RL_SOURCE_DRIVER:
      g_string_append_printf (s, "self-managed card%s%s (%s)", ev->radio[0] ? " " : "", ev->radio, countries);
      break;
    case RL_N_SOURCE_KINDS:
    default:
      /* a kind without its own words: its name and countries, never more */
      g_string_append_printf (s, "%s: %s", rl_source_kind_to_string (ev->kind), countries);
      break;
    }
  g_strlcpy (buf, s->str, len);
  return buf;
}

gboolean
rl_driver_evidence (RlEvidence *ev, const char *phy, const char *driver, RlCountry country,
                    gint64 observed_at, guint max_age_s)
{
  char key[48];

  if (country == RL_COUNTRY_NONE || country == RL_COUNTRY_WORLD || !g_ascii_isupper ((char) (country >> 8)) ||
      !g_ascii_isupper ((char) (country & 0xff)))
    return FALSE;
  g_snprintf (key, sizeof key, "driver:%s", phy);
  rl_evidence_init (ev, RL_SOURCE_DRIVER, key, observed_at, rl_expiry_after (observed_at, max_age_s));
  rl_evidence_add_country (ev, country);
  ev->strength = 1.0;
  g_snprintf (ev->radio, sizeof ev->radio, "%s%s%s", phy, driver && driver[0] ? " " : "", driver ? driver : "");
  g_strlcpy (ev->detail, ev->radio, sizeof ev->detail);
  return TRUE;
}
