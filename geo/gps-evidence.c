#include "geo/gps-evidence.h"

#include <math.h>
#include <string.h>

void
rl_gps_evidence_params_init (RlGpsEvidenceParams *params, const RlConfig *config,
                             RlGpsLookupFunc lookup, const RlBoundaryIndex *index)
{
  params->lookup = lookup;
  params->index = index;
  params->uere_m = config->gps_uere_m;
  params->border_margin_m = config->gps_border_margin_m;
  params->max_age_s = config->policy.max_age_s[RL_SOURCE_GPS];
  params->unknown_error_m = config->gps_unknown_error_m;
}

#define MAX_ERROR_M 1e7

static gboolean
usable_error (double v)
{
  return isfinite (v) && v > 0 && v < MAX_ERROR_M;
}

double
rl_gps_fix_error_m (const RlGpsFix *fix, double uere_m, double unknown_error_m, gboolean *assumed)
{
  *assumed = FALSE;
  /* 0 is how some receivers and gpsd say "not known"; beyond 10,000 km an
   * estimate says nothing either (and would not print as a number) */
  if (usable_error (fix->eph))
    return fix->eph;
  if (usable_error (fix->epx) && usable_error (fix->epy))
    return sqrt (fix->epx * fix->epx + fix->epy * fix->epy);
  if (usable_error (fix->hdop) && fix->hdop * uere_m < MAX_ERROR_M)
    return fix->hdop * uere_m;
  *assumed = TRUE;
  return unknown_error_m;
}

/* Fixed-point text without printf's floating-point machinery, which is the
 * single largest cost of a replay otherwise: "48.57", "7.80". */
static char *
put_fixed (char *p, double v, int decimals)
{
  static const gint64 scale[] = { 1, 10, 100 };
  /* absurd radii (eph 1e300 from a broken log) print as the clamp, never overflow */
  double a = isfinite (v) ? MIN (fabs (v), 1e12) : 0;
  gint64 n = (gint64) llround (a * scale[decimals]);
  gint64 ip = n / scale[decimals];
  char tmp[24];
  int len = 0;

  do
    tmp[len++] = (char) ('0' + ip % 10);
  while ((ip /= 10) > 0 && len < 20);
  while (len > 0)
    *p++ = tmp[--len];
  if (decimals > 0)
    {
      gint64 frac = n % scale[decimals];
      *p++ = '.';
      for (gint64 d = scale[decimals] / 10; d > 0; d /= 10)
        *p++ = (char) ('0' + (frac / d) % 10);
    }
  *p = '\0';
  return p;
}

static char *
put_str (char *p, const char *s)
{
  gsize n = strlen (s);

  memcpy (p, s, n + 1);
  return p + n;
}

static char *
format_distance (char *p, double m)
{
  if (m < 1000)
    return put_str (put_fixed (p, m, 0), " m");
  if (m < 100000)
    return put_str (put_fixed (p, m / 1000, 1), " km");
  return put_str (put_fixed (p, m / 1000, 0), " km");
}

/* Metres between nearby points (equirectangular: exact enough below 100 km). */
static double
short_distance_m (double lat1, double lon1, double lat2, double lon2)
{
  const double r = 6371008.8, rad = G_PI / 180;
  double dlon = fabs (lon2 - lon1);
  double x, y;

  if (dlon > 180)
    dlon = 360 - dlon;
  x = dlon * rad * cos ((lat1 + lat2) / 2 * rad);
  y = (lat2 - lat1) * rad;
  return r * sqrt (x * x + y * y);
}

/* @bound: out->border_m is a lower bound, not a distance: no border lies
 * within the lookup's exact range of the point looked up, or the result
 * is the last lookup's, carried over.  That is reused only when the fix
 * moved less than a tenth of the last border distance (the country cannot
 * have changed) and the bound still lies beyond @reach, the error radius
 * plus the border margin: whether the fix names the neighbour, and whether
 * its circle reaches the border, are then the same as with the distance
 * itself.  Nearer, the distance is looked up: a bound taken as exact would
 * put a border inside an error circle it is not in. */
static gboolean
cached_lookup (const RlGpsEvidenceParams *params, RlGpsLookupCache *cache,
               double lat, double lon, double reach, RlBoundaryResult *out, gboolean *bound)
{
  if (cache != NULL && cache->valid && cache->result.border_m > 0 && isfinite (lat) && isfinite (lon))
    {
      double moved = short_distance_m (cache->lat, cache->lon, lat, lon);
      if (moved <= cache->result.border_m / 10 && cache->result.border_m - moved > reach)
        {
          *out = cache->result;
          *bound = TRUE;
          out->border_m = cache->result.border_m - moved;
          cache->reused++;
          return TRUE;
        }
    }
  if (!params->lookup (params->index, lat, lon, out))
    return FALSE;
  *bound = out->border_m >= RL_BOUNDARY_EXACT_M && out->neighbour == RL_COUNTRY_NONE;
  if (cache != NULL)
    {
      cache->valid = TRUE;
      cache->lat = lat;
      cache->lon = lon;
      cache->result = *out;
      cache->lookups++;
    }
  return TRUE;
}

gboolean
rl_gps_evidence_from_fix (const RlGpsEvidenceParams *params, const RlGpsFix *fix,
                          gint64 observed_at, RlEvidence *ev)
{
  return rl_gps_evidence_from_fix_cached (params, NULL, fix, observed_at, ev);
}

gboolean
rl_gps_evidence_from_fix_cached (const RlGpsEvidenceParams *params, RlGpsLookupCache *cache,
                                 const RlGpsFix *fix, gint64 observed_at, RlEvidence *ev)
{
  RlBoundaryResult where = { RL_COUNTRY_NONE, -1, RL_COUNTRY_NONE };
  gboolean assumed, bound = FALSE;
  double error_m;
  char cc[3], *p;

  g_return_val_if_fail (params->lookup != NULL, FALSE);

  error_m = rl_gps_fix_error_m (fix, params->uere_m, params->unknown_error_m, &assumed);
  if (!cached_lookup (params, cache, fix->lat, fix->lon, error_m + params->border_margin_m, &where, &bound))
    return FALSE;

  rl_evidence_init (ev, RL_SOURCE_GPS, "gps", observed_at,
                    rl_expiry_after (observed_at, params->max_age_s));
  ev->strength = 1.0;
  ev->gps.lat = fix->lat;
  ev->gps.lon = fix->lon;
  ev->gps.error_m = error_m;
  ev->gps.border_m = where.border_m;
  ev->gps.altitude_m = fix->altitude_m;
  ev->gps.speed_mps = fix->speed_mps;

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

  /* "GPS fix 48.57N 7.80E ±5 m, 120 m from FR border", assembled by hand:
   * printf is the largest cost of replaying a long log otherwise. */
  p = ev->detail;
  p = put_str (p, "GPS fix ");
  p = put_fixed (p, fix->lat, 2);
  *p++ = fix->lat >= 0 ? 'N' : 'S';
  *p++ = ' ';
  p = put_fixed (p, fix->lon, 2);
  *p++ = fix->lon >= 0 ? 'E' : 'W';
  p = put_str (p, " ±");
  p = put_fixed (p, error_m, 0);
  p = put_str (p, assumed ? " m (accuracy unknown)" : " m");
  if (where.country == RL_COUNTRY_NONE)
    p = put_str (p, " at sea");
  if (where.border_m >= 0 && bound && where.neighbour == RL_COUNTRY_NONE)
    {
      /* "more than 4.9 km from any border": a bound, rounded down */
      p = put_str (p, ", more than ");
      p = format_distance (p, floor (where.border_m / 100) * 100);
      p = put_str (p, where.country == RL_COUNTRY_NONE ? " from any country's waters" : " from any border");
    }
  else if (where.border_m >= 0)
    {
      /* a bound carried over from the last lookup: "more than 1.2 km from FR border" */
      p = put_str (p, bound ? ", more than " : ", ");
      p = format_distance (p, !bound ? where.border_m
                                   : where.border_m < 1000 ? floor (where.border_m / 10) * 10
                                                           : floor (where.border_m / 100) * 100);
      if (where.neighbour == RL_COUNTRY_NONE)
        p = put_str (p, where.country == RL_COUNTRY_NONE ? " from any country's waters" : " from the nearest border");
      else
        {
          p = put_str (p, " from ");
          p = put_str (p, rl_country_to_string (where.neighbour, cc));
          p = put_str (p, where.country == RL_COUNTRY_NONE ? " waters" : " border");
        }
    }
  return TRUE;
}
