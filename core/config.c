/* regloc.conf: one table describes every key; loading walks the file and
 * the table, so an unknown key or a bad value is always caught and named. */
#include "core/config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (rl-config-error-quark, rl_config_error)

typedef enum { T_BOOL, T_UINT, T_DOUBLE, T_STRING, T_COUNTRY } KeyType;

typedef struct {
  RlConfigKeyInfo info;
  KeyType type;
  gsize offset;
  double min, max;   /* numbers: inclusive range */
} KeyDef;

#define OFF(field) offsetof (RlConfig, field)
#define POL(field) (offsetof (RlConfig, policy) + offsetof (RlPolicyParams, field))
#define AGE(kind) (offsetof (RlConfig, policy) + offsetof (RlPolicyParams, max_age_s) + (kind) * sizeof (guint))

static const KeyDef keys[] = {
  { { "general", "apply", "bool", "true", "Set the kernel's regulatory domain (false: decide and publish only)" }, T_BOOL, OFF (apply), 0, 0 },
  { { "general", "regulatory_db", "string", "/lib/firmware/regulatory.db", "The kernel's regulatory database: the countries that can be applied" }, T_STRING, OFF (regulatory_db), 0, 0 },
  { { "general", "boundary_index", "string", "", "Country boundary index (empty: the one installed with regloc)" }, T_STRING, OFF (boundary_index), 0, 0 },
  { { "general", "territories", "string", "", "Territory table: ISO codes without rules of their own (empty: the installed one)" }, T_STRING, OFF (territories), 0, 0 },
  { { "general", "zoneinfo_dir", "string", "/usr/share/zoneinfo", "Where tzdata's zone.tab, zone1970.tab and tzdata.zi are" }, T_STRING, OFF (zoneinfo_dir), 0, 0 },

  { { "policy", "min_witnesses", "uint", "2", "Independent witnesses needed to leave 00" }, T_UINT, POL (min_witnesses), 1, 10 },
  { { "policy", "confidence_threshold", "double", "0.8", "Combined confidence needed to leave 00 (0..1)" }, T_DOUBLE, POL (confidence_threshold), 0, 1 },
  { { "policy", "hold_down", "uint", "30", "Seconds agreement must hold before leaving 00 (0 disables)" }, T_UINT, POL (hold_down_s), 0, 86400 },
  { { "policy", "hold_down_unheard", "uint", "90", "Seconds agreement resting on a modem's network, with no access point heard and no GPS fix, must hold before leaving 00: the Wi-Fi's first scan may still be to come (at least hold_down)" }, T_UINT, POL (hold_down_unheard_s), 0, 86400 },
  { { "policy", "gps_weight", "double", "0.8", "Confidence one good GPS fix adds (0..1)" }, T_DOUBLE, POL (gps_weight), 0, 1 },
  { { "policy", "gps_max_error", "double", "250", "Metres: a fix with a larger error radius is no witness" }, T_DOUBLE, POL (gps_max_error_m), 1, 100000 },
  { { "policy", "beacon_weight", "double", "0.7", "Confidence each beacon witness adds (0..1)" }, T_DOUBLE, POL (beacon_weight), 0, 1 },
  { { "policy", "beacon_min_aps", "uint", "2", "Distinct access points for one beacon witness" }, T_UINT, POL (beacon_min_aps), 1, 1000 },
  { { "policy", "beacon_min_fraction", "double", "0.666", "Share of the beacon votes a country needs for one witness: 2/3 (0.5..1)" }, T_DOUBLE, POL (beacon_min_fraction), 0, 1 },
  { { "policy", "beacon_strong_aps", "uint", "4", "Distinct access points for two beacon witnesses (with no dissent)" }, T_UINT, POL (beacon_strong_aps), 1, 1000 },
  { { "policy", "beacon_strong_operators", "uint", "3", "Distinct operators (OUIs) for two beacon witnesses" }, T_UINT, POL (beacon_strong_operators), 1, 1000 },
  { { "policy", "beacon_max_aps_per_operator", "uint", "2", "Votes one operator can give one country (0: no cap)" }, T_UINT, POL (beacon_max_aps_per_operator), 0, 1000 },
  { { "policy", "timezone_weight", "double", "0.4", "Confidence the timezone adds; it can confirm, never decide (0..1)" }, T_DOUBLE, POL (timezone_weight), 0, 1 },
  { { "policy", "max_age_gps", "uint", "600", "Seconds a GPS fix counts (0: forever)" }, T_UINT, AGE (RL_SOURCE_GPS), 0, 31536000 },
  { { "policy", "max_age_beacons", "uint", "900", "Seconds an access point counts after it was last seen (0: forever)" }, T_UINT, AGE (RL_SOURCE_BEACON), 0, 31536000 },
  { { "policy", "max_age_timezone", "uint", "0", "Seconds the timezone counts after it was read (0: forever)" }, T_UINT, AGE (RL_SOURCE_TIMEZONE), 0, 31536000 },
  { { "policy", "max_age_override", "uint", "0", "Seconds an override lasts (0: until cleared)" }, T_UINT, AGE (RL_SOURCE_OVERRIDE), 0, 31536000 },
  { { "policy", "beacon_network_min_devices", "uint", "6", "Devices (first five BSSID octets) of one operator that make its network one witness on its own (0: never)" }, T_UINT, POL (beacon_network_min_devices), 0, 100000 },
  { { "policy", "beacon_network_min_channels", "uint", "3", "Distinct channels such a network must be heard on at once" }, T_UINT, POL (beacon_network_min_channels), 1, 64 },
  { { "policy", "beacon_network_min_bands", "uint", "2", "Bands (2.4, 5, 6 GHz) such a network must be heard in at once" }, T_UINT, POL (beacon_network_min_bands), 1, 3 },
  { { "policy", "beacon_eu_weight", "double", "0.4", "Confidence access points advertising EU add to a member state a GPS fix names; they confirm, never decide (0..1)" }, T_DOUBLE, POL (beacon_eu_weight), 0, 1 },
  { { "policy", "flap_hold_down_max", "uint", "300", "Seconds: the hold-down doubles with each conflict up to this (flapping at a border)" }, T_UINT, POL (flap_hold_down_max_s), 0, 86400 },
  { { "policy", "flap_calm", "uint", "600", "Seconds without a conflict after which the hold-down is back to hold_down" }, T_UINT, POL (flap_calm_s), 0, 86400 },
  { { "policy", "support_grace", "uint", "120", "Seconds a decided country down to one deciding witness (a beacon witness or a fix naming only it), with no other country's witness, stays decided (0: back to 00 at once)" }, T_UINT, POL (support_grace_s), 0, 3600 },
  { { "policy", "resume_wait", "uint", "120", "Seconds a new decision after a resume waits at most for the GPS and the Wi-Fi, when they delivered before the sleep, to report again (0: no wait)" }, T_UINT, OFF (resume_wait_s), 0, 3600 },

  { { "gps", "enabled", "bool", "true", "Use gpsd fixes" }, T_BOOL, OFF (gps_enabled), 0, 0 },
  { { "gps", "host", "string", "localhost", "gpsd host" }, T_STRING, OFF (gps_host), 0, 0 },
  { { "gps", "port", "uint", "2947", "gpsd port" }, T_UINT, OFF (gps_port), 1, 65535 },
  { { "gps", "uere", "double", "5", "Metres per unit of HDOP when gpsd reports no error estimate" }, T_DOUBLE, OFF (gps_uere_m), 0.1, 1000 },
  { { "gps", "control_socket", "string", "/run/gpsd.sock", "gpsd's control socket (its -F, or gpsd.socket's): while a local gpsd is absent, its appearance here is watched instead of retrying (empty: retry with a back-off)" }, T_STRING, OFF (gps_control_socket), 0, 0 },
  { { "gps", "border_margin", "double", "100", "Metres added to the error radius before a nearby border's country is named too" }, T_DOUBLE, OFF (gps_border_margin_m), 0, 100000 },

  { { "beacons", "enabled", "bool", "true", "Use the Country IEs of access points in nl80211 scan results" }, T_BOOL, OFF (beacons_enabled), 0, 0 },
  { { "beacons", "scan_interval", "uint", "0", "Seconds between passive scans regloc requests itself (0: never; NetworkManager scans)" }, T_UINT, OFF (beacons_scan_interval_s), 0, 86400 },
  { { "beacons", "max_bss", "uint", "512", "Most access points remembered at once (when full, the oldest of the largest OUI group is dropped)" }, T_UINT, OFF (beacons_max_bss), 8, 100000 },

  { { "timezone", "enabled", "bool", "true", "Use the configured timezone as weak evidence" }, T_BOOL, OFF (timezone_enabled), 0, 0 },
  { { "timezone", "localtime", "string", "/etc/localtime", "The localtime link or file to read and watch" }, T_STRING, OFF (localtime_path), 0, 0 },

  { { "override", "country", "country", "", "Force this country (two letters, or 00 for world); empty: no override" }, T_COUNTRY, OFF (override_country), 0, 0 },

  /* freshness and moving platforms */
  { { "policy", "gps_max_speed_kmh", "double", "1200", "km/h: a fix further from the last trusted one than this speed allows is no witness until others confirm it (0: off)" }, T_DOUBLE, OFF (gps_max_speed_kmh), 0, 100000 },
  { { "policy", "airborne_altitude", "double", "2000", "Metres above sea level: higher and faster than airborne_speed_kmh is in flight, 00" }, T_DOUBLE, POL (airborne_min_altitude_m), -500, 100000 },
  { { "policy", "airborne_speed_kmh", "double", "150", "km/h: faster and higher than airborne_altitude is in flight, 00" }, T_DOUBLE, POL (airborne_min_speed_kmh), 0, 100000 },
  { { "policy", "beacon_faint_dbm", "double", "-85", "dBm: a country whose access points are all heard at or below this forms no beacon witness (they still count in the shares)" }, T_DOUBLE, POL (beacon_faint_dbm), -200, 0 },
  { { "policy", "beacon_faint_margin", "double", "30", "dB: … nor one whose access points are all this far below the strongest access point heard (taken as at most -45 dBm)" }, T_DOUBLE, POL (beacon_faint_margin_db), 0, 200 },
  { { "policy", "beacon_ride_along_window", "uint", "600", "Seconds: an access point heard without a break this long, while the others around it came and went, travels with the machine and does not vote; while one does, access points heard for less than half this long, phone hotspots and the clock do not count either (0: off)" }, T_UINT, POL (beacon_ride_along_window_s), 0, 86400 },
  { { "policy", "beacon_ride_along_lost", "uint", "4", "… when at least this many other networks (OUI and SSID; and twice as many as devices were heard that long) were lost in the last three windows, and at most three networks were heard that long (more only when what was lost names at most two countries, neither its own nor one touching it)" }, T_UINT, POL (beacon_ride_along_lost), 1, 10000 },
  { { "gps", "still_speed_kmh", "double", "2", "km/h: a fix reporting at most this speed, like the last trusted one, that lies in another country beyond both error radii is untrusted (multipath; 0: off)" }, T_DOUBLE, OFF (gps_still_speed_kmh), 0, 1000 },
  { { "gps", "still_window", "uint", "600", "Seconds after the last trusted fix during which still_speed_kmh applies" }, T_UINT, OFF (gps_still_window_s), 0, 86400 },
  { { "gps", "best_fix_window", "uint", "10", "Seconds a fix with a larger error radius does not replace a better one (0: off)" }, T_UINT, OFF (gps_best_fix_window_s), 0, 3600 },
  { { "gps", "unknown_error", "double", "100", "Metres of error assumed for a fix with neither an error estimate nor an HDOP" }, T_DOUBLE, OFF (gps_unknown_error_m), 1, 100000 },

  /* the mobile network (issue 13) */
  { { "policy", "cell_weight", "double", "0.7", "Confidence a modem's registered network adds: one witness, like a beacon witness (0..1)" }, T_DOUBLE, POL (cell_weight), 0, 1 },
  { { "policy", "max_age_cell", "uint", "0", "Seconds a modem's registration counts after it was reported (0: until the modem reports a change)" }, T_UINT, AGE (RL_SOURCE_CELL), 0, 31536000 },
  { { "cell", "enabled", "bool", "true", "Use the mobile network a modem is registered on (ModemManager)" }, T_BOOL, OFF (cell_enabled), 0, 0 },
  { { "cell", "providers", "string", "/usr/share/mobile-broadband-provider-info/serviceproviders.xml", "Mobile network codes (MCC) to countries: mobile-broadband-provider-info's serviceproviders.xml" }, T_STRING, OFF (cell_providers), 0, 0 },

  /* self-managed cards and other setters of the kernel's domain (issue 12) */
  { { "driver", "enabled", "bool", "true", "Use the country a self-managed card's firmware chose as weak evidence: it confirms, never decides" }, T_BOOL, OFF (driver_enabled), 0, 0 },
  { { "policy", "driver_weight", "double", "0.4", "Confidence a self-managed card's country adds beside a GPS fix or a mobile network; it confirms, never decides (0..1)" }, T_DOUBLE, POL (driver_weight), 0, 1 },
  { { "policy", "max_age_driver", "uint", "0", "Seconds a card's country counts after it was reported (0: until the card reports a change)" }, T_UINT, AGE (RL_SOURCE_DRIVER), 0, 31536000 },
  { { "apply", "foreign_change", "string", "yield", "When someone else sets the kernel's domain (iw reg set, wpa_supplicant, a driver): yield (show it, leave it) or reassert (set the decided country again)" }, T_STRING, OFF (apply_foreign_change), 0, 0 },
  { { "apply", "reassert_max", "uint", "3", "Reasserts in any 60 s at most; beyond that regloc yields, so two setters cannot loop" }, T_UINT, OFF (apply_reassert_max), 0, 60 },
  /* where a decision goes besides the kernel (issue 12) */
  { { "apply", "wpa_supplicant", "bool", "true", "Also set the Country of every wpa_supplicant interface (fi.w1.wpa_supplicant1) when it is on the system bus" }, T_BOOL, OFF (apply_wpa_supplicant), 0, 0 },
};

gboolean
rl_config_reasserts (const RlConfig *config)
{
  return g_strcmp0 (config->apply_foreign_change, "reassert") == 0;
}

const RlConfigKeyInfo *
rl_config_schema (gsize *n_keys)
{
  static RlConfigKeyInfo infos[G_N_ELEMENTS (keys)];

  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    infos[i] = keys[i].info;
  *n_keys = G_N_ELEMENTS (keys);
  return infos;
}

static gboolean
set_value (RlConfig *config, const KeyDef *k, const char *value, const char *file, GError **error)
{
  guint8 *base = (guint8 *) config;
  g_autofree char *v = g_strstrip (g_strdup (value));
  char *end = NULL;

  switch (k->type)
    {
    case T_BOOL:
      if (g_strcmp0 (v, "true") == 0 || g_strcmp0 (v, "false") == 0)
        {
          *(gboolean *) (base + k->offset) = v[0] == 't';
          return TRUE;
        }
      break;
    case T_UINT:
      {
        errno = 0;
        guint64 n = g_ascii_strtoull (v, &end, 10);
        if (v[0] != '\0' && v[0] != '-' && v[0] != '+' && *end == '\0' && errno == 0 && n >= k->min && n <= k->max)
          {
            *(guint *) (base + k->offset) = (guint) n;
            return TRUE;
          }
        g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                     "%s: [%s] %s=%s: expected a whole number from %.0f to %.0f",
                     file, k->info.group, k->info.key, v, k->min, k->max);
        return FALSE;
      }
    case T_DOUBLE:
      {
        errno = 0;
        double d = g_ascii_strtod (v, &end);
        if (v[0] != '\0' && *end == '\0' && errno == 0 && isfinite (d) && d >= k->min && d <= k->max)
          {
            *(double *) (base + k->offset) = d;
            return TRUE;
          }
        g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                     "%s: [%s] %s=%s: expected a number from %g to %g",
                     file, k->info.group, k->info.key, v, k->min, k->max);
        return FALSE;
      }
    case T_STRING:
      {
        char **slot = (char **) (base + k->offset);
        g_free (*slot);
        *slot = v[0] ? g_strdup (v) : NULL;
        return TRUE;
      }
    case T_COUNTRY:
      {
        RlCountry c = RL_COUNTRY_NONE;
        if (v[0] == '\0' || rl_country_parse (v, &c))
          {
            *(RlCountry *) (base + k->offset) = c;
            return TRUE;
          }
        g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                     "%s: [%s] %s=%s: expected two letters (ISO 3166-1 alpha-2), 00 or nothing",
                     file, k->info.group, k->info.key, v);
        return FALSE;
      }
    }
  g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
               "%s: [%s] %s=%s: expected true or false", file, k->info.group, k->info.key, v);
  return FALSE;
}

RlConfig *
rl_config_new_default (void)
{
  g_autoptr (RlConfig) config = g_new0 (RlConfig, 1);

  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!set_value (config, &keys[i], keys[i].info.default_value, "(defaults)", NULL))
      g_assert_not_reached ();
  return g_steal_pointer (&config);
}

static const KeyDef *
find_key (const char *group, const char *key)
{
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].info.group, group) == 0 && strcmp (keys[i].info.key, key) == 0)
      return &keys[i];
  return NULL;
}

static gboolean
check_policy (const RlConfig *c, const char *file, GError **error)
{
  const RlPolicyParams *p = &c->policy;

  if (p->beacon_strong_aps < p->beacon_min_aps)
    {
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                   "%s: [policy] beacon_strong_aps=%u: expected at least beacon_min_aps (%u)",
                   file, p->beacon_strong_aps, p->beacon_min_aps);
      return FALSE;
    }
  if (p->beacon_min_fraction <= 0.5)
    {
      /* below a majority two countries could each have a beacon witness */
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                   "%s: [policy] beacon_min_fraction=%g: expected more than 0.5 (a majority)", file, p->beacon_min_fraction);
      return FALSE;
    }
  if (g_strcmp0 (c->apply_foreign_change, "yield") != 0 && !rl_config_reasserts (c))
    {
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                   "%s: [apply] foreign_change=%s: expected yield or reassert", file,
                   c->apply_foreign_change ? c->apply_foreign_change : "");
      return FALSE;
    }
  if (p->flap_hold_down_max_s < p->hold_down_s)
    {
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE,
                   "%s: [policy] flap_hold_down_max=%u: expected at least hold_down (%u)",
                   file, p->flap_hold_down_max_s, p->hold_down_s);
      return FALSE;
    }
  return TRUE;
}

RlConfig *
rl_config_load_data (const char *data, gsize len, const char *name, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) groups = NULL;

  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_PARSE, "%s: %s", name, local->message);
      return NULL;
    }
  groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g] != NULL; g++)
    {
      g_auto (GStrv) names = g_key_file_get_keys (kf, groups[g], NULL, NULL);
      gboolean known_group = FALSE;

      for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
        known_group |= strcmp (keys[i].info.group, groups[g]) == 0;
      if (!known_group)
        {
          g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_UNKNOWN_KEY,
                       "%s: unknown group [%s]: expected general, policy, gps, beacons, timezone, cell, driver, override or apply",
                       name, groups[g]);
          return NULL;
        }
      for (guint k = 0; names != NULL && names[k] != NULL; k++)
        {
          const KeyDef *def = find_key (groups[g], names[k]);
          g_autofree char *value = NULL;

          if (def == NULL)
            {
              g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_UNKNOWN_KEY,
                           "%s: [%s] %s: unknown key (see regloc.conf(5) or `regloc check-config --list`)",
                           name, groups[g], names[k]);
              return NULL;
            }
          value = g_key_file_get_value (kf, groups[g], names[k], NULL);
          if (!set_value (config, def, value ? value : "", name, error))
            return NULL;
        }
    }
  if (!check_policy (config, name, error))
    return NULL;
  config->path = g_strdup (name);
  return g_steal_pointer (&config);
}

RlConfig *
rl_config_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;

  if (path == NULL)
    return rl_config_new_default ();
  if (!g_file_get_contents (path, &data, &len, &local))
    {
      g_set_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_PARSE, "%s", local->message);
      return NULL;
    }
  return rl_config_load_data (data, len, path, error);
}

static gboolean
key_value_equal (const RlConfig *a, const RlConfig *b, const KeyDef *def)
{
  const guint8 *pa = (const guint8 *) a + def->offset, *pb = (const guint8 *) b + def->offset;

  switch (def->type)
    {
    case T_BOOL:
      return !*(const gboolean *) pa == !*(const gboolean *) pb;
    case T_UINT:
      return *(const guint *) pa == *(const guint *) pb;
    case T_DOUBLE:
      return *(const double *) pa == *(const double *) pb;
    case T_STRING:
      return g_strcmp0 (*(char *const *) pa, *(char *const *) pb) == 0;
    case T_COUNTRY:
      return *(const RlCountry *) pa == *(const RlCountry *) pb;
    default:
      return FALSE;
    }
}

gboolean
rl_config_keys_equal (const RlConfig *a, const RlConfig *b, const char *group, const char *key_prefix)
{
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].info.group, group) == 0 &&
        (key_prefix == NULL || g_str_has_prefix (keys[i].info.key, key_prefix)) &&
        !key_value_equal (a, b, &keys[i]))
      return FALSE;
  return TRUE;
}

void
rl_config_free (RlConfig *config)
{
  if (config == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (keys[i].type == T_STRING)
      g_free (*(char **) ((guint8 *) config + keys[i].offset));
  g_free (config->path);
  g_free (config);
}
