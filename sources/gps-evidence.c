#include "gps-evidence.h"

#include <math.h>

void
rl_gps_evidence_params_init (RlGpsEvidenceParams *params, const RlConfig *config,
                             RlGpsLookupFunc lookup, const RlBoundaryIndex *index)
{
  params->lookup = lookup;
  params->index = index;
  params->uere_m = config->gps_uere_m;
  params->border_margin_m = config->gps_border_margin_m;
  params->max_age_s = config->policy.max_age_s[RL_SOURCE_GPS];
}

double
rl_gps_fix_error_m (const RlGpsFix *fix, double uere_m, gboolean *assumed)
{
  *assumed = FALSE;
  if (isfinite (fix->eph))
    return fix->eph;
  if (isfinite (fix->epx) && isfinite (fix->epy))
    return sqrt (fix->epx * fix->epx + fix->epy * fix->epy);
  if (isfinite (fix->hdop))
    return fix->hdop * uere_m;
  *assumed = TRUE;
  return RL_GPS_ASSUMED_HDOP * uere_m;
}

static void
format_distance (char *buf, gsize len, double m)
{
  if (m < 1000)
    g_snprintf (buf, len, "%.0f m", m);
  else if (m < 100000)
    g_snprintf (buf, len, "%.1f km", m / 1000);
  else
    g_snprintf (buf, len, "%.0f km", m / 1000);
}

gboolean
rl_gps_evidence_from_fix (const RlGpsEvidenceParams *params, const RlGpsFix *fix,
                          gint64 observed_at, RlEvidence *ev)
{
  RlBoundaryResult where = { RL_COUNTRY_NONE, -1, RL_COUNTRY_NONE };
  gboolean assumed;
  double error_m;
  char dist[32], err[48], cc[3], across[64] = "";

  g_return_val_if_fail (params->lookup != NULL, FALSE);

  if (!params->lookup (params->index, fix->lat, fix->lon, &where))
    return FALSE;
  error_m = rl_gps_fix_error_m (fix, params->uere_m, &assumed);

  rl_evidence_init (ev, RL_SOURCE_GPS, "gps", observed_at,
                    rl_expiry_after (observed_at, params->max_age_s));
  ev->strength = 1.0;
  ev->gps.lat = fix->lat;
  ev->gps.lon = fix->lon;
  ev->gps.error_m = error_m;
  ev->gps.border_m = where.border_m;

  /* At sea the candidate set stays empty: "no country" is the witness.
   * Even near a coast, a fix outside the waters says "sea", which keeps the
   * decision on 00 rather than guessing the coastal state. */
  if (where.country != RL_COUNTRY_NONE)
    {
      rl_evidence_add_country (ev, where.country);
      if (where.neighbour != RL_COUNTRY_NONE && where.border_m >= 0 &&
          where.border_m <= error_m + params->border_margin_m)
        rl_evidence_add_country (ev, where.neighbour);
    }

  if (assumed)
    g_snprintf (err, sizeof err, "±%.0f m (accuracy unknown)", error_m);
  else
    g_snprintf (err, sizeof err, "±%.0f m", error_m);
  if (where.border_m >= 0)
    {
      format_distance (dist, sizeof dist, where.border_m);
      if (where.country == RL_COUNTRY_NONE)
        g_snprintf (across, sizeof across, " at sea, %s from %s waters", dist,
                    where.neighbour != RL_COUNTRY_NONE ? rl_country_to_string (where.neighbour, cc) : "any");
      else if (where.neighbour == RL_COUNTRY_NONE)
        g_snprintf (across, sizeof across, ", %s from the nearest border", dist);
      else
        g_snprintf (across, sizeof across, ", %s from %s border", dist,
                    rl_country_to_string (where.neighbour, cc));
    }
  else if (where.country == RL_COUNTRY_NONE)
    g_strlcpy (across, " at sea", sizeof across);
  g_snprintf (ev->detail, sizeof ev->detail, "GPS fix %.2f%c %.2f%c %s%s",
              fabs (fix->lat), fix->lat >= 0 ? 'N' : 'S',
              fabs (fix->lon), fix->lon >= 0 ? 'E' : 'W', err, across);
  return TRUE;
}
