/* GPS fix → evidence: error radius, the border rule, sea, expiry, words. */
#include <math.h>
#include <string.h>
#include "geo/gps-evidence.h"
#include "tests/gps-test-util.h"

/* A fake map: west of 7.80°E is FR, east is DE, the Rhine border at 7.80°E;
 * south of 40°N is open sea (with FR waters 1 km further south). */
static gboolean
fake_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  const double m_per_deg_lon = 111320.0 * cos (lat * G_PI / 180);

  if (isnan (lat) || isnan (lon) || fabs (lat) > 90 || fabs (lon) > 180)
    return FALSE;
  if (lat < 40)
    {
      out->country = RL_COUNTRY_NONE;
      out->neighbour = RL_COUNTRY ('F', 'R');
      out->border_m = (40 - lat) * 111320.0;
      return TRUE;
    }
  out->country = lon < 7.80 ? RL_COUNTRY ('F', 'R') : RL_COUNTRY ('D', 'E');
  out->neighbour = lon < 7.80 ? RL_COUNTRY ('D', 'E') : RL_COUNTRY ('F', 'R');
  out->border_m = fabs (lon - 7.80) * m_per_deg_lon;
  return TRUE;
}

static void
params_init (RlGpsEvidenceParams *p)
{
  p->lookup = fake_lookup;
  p->index = NULL;
  p->uere_m = 5;
  p->border_margin_m = 100;
  p->max_age_s = 600;
  p->unknown_error_m = 100;
}

static RlGpsFix
fix_at (double lat, double lon)
{
  RlGpsFix f;

  rl_gps_fix_init (&f);
  f.flags = RL_GPS_FIX_HAS_DATE;
  f.time = utc_us (2024, 6, 1, 10, 0, 0);
  f.lat = lat;
  f.lon = lon;
  f.mode = 3;
  return f;
}

static void
test_error_radius (void)
{
  RlGpsFix f = fix_at (48.5, 8.5);
  gboolean assumed;

  f.hdop = 1.5;
  g_assert_cmpfloat_with_epsilon (rl_gps_fix_error_m (&f, 5, 100, &assumed), 7.5, 1e-9);
  g_assert_false (assumed);
  f.epx = 3;
  f.epy = 4;
  g_assert_cmpfloat_with_epsilon (rl_gps_fix_error_m (&f, 5, 100, &assumed), 5, 1e-9);
  f.eph = 12;
  g_assert_cmpfloat_with_epsilon (rl_gps_fix_error_m (&f, 5, 100, &assumed), 12, 1e-9);
  f = fix_at (48.5, 8.5);
  g_assert_cmpfloat_with_epsilon (rl_gps_fix_error_m (&f, 5, 100, &assumed), 100, 1e-9);
  g_assert_true (assumed);
}

static void
test_inland (void)
{
  RlGpsEvidenceParams p;
  RlGpsFix f = fix_at (48.5, 9.5);
  RlEvidence ev;

  params_init (&p);
  f.eph = 8;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpint (ev.kind, ==, RL_SOURCE_GPS);
  g_assert_cmpstr (ev.key, ==, "gps");
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_cmpuint (ev.countries[0], ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpfloat (ev.strength, ==, 1.0);
  g_assert_cmpint (ev.observed_at, ==, f.time);
  g_assert_cmpint (ev.expires_at, ==, f.time + 600 * G_GINT64_CONSTANT (1000000));
  g_assert_cmpfloat_with_epsilon (ev.gps.error_m, 8, 1e-9);
  g_assert_cmpfloat (ev.gps.border_m, >, 100000);
  g_assert_true (g_str_has_prefix (ev.detail, "GPS fix 48.50N 9.50E ±8 m, "));
  g_assert_nonnull (strstr (ev.detail, "from FR border"));
}

static void
test_border_rule (void)
{
  RlGpsEvidenceParams p;
  const double m_per_deg = 111320.0 * cos (48.5 * G_PI / 180);
  RlEvidence ev;
  RlGpsFix f;

  params_init (&p);
  /* 140 m east of the border, ±50 m: within 50 + 100, both named */
  f = fix_at (48.5, 7.80 + 140 / m_per_deg);
  f.eph = 50;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 2);
  g_assert_true (rl_evidence_has_country (&ev, RL_COUNTRY ('D', 'E')));
  g_assert_true (rl_evidence_has_country (&ev, RL_COUNTRY ('F', 'R')));
  g_assert_nonnull (strstr (ev.detail, "140 m from FR border"));

  /* 160 m: outside 50 + 100, only DE */
  f = fix_at (48.5, 7.80 + 160 / m_per_deg);
  f.eph = 50;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_cmpuint (ev.countries[0], ==, RL_COUNTRY ('D', 'E'));

  /* a larger error radius reaches it again; the margin is configurable */
  f.eph = 70;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 2);
  p.border_margin_m = 0;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 1);
}

static void
test_sea (void)
{
  RlGpsEvidenceParams p;
  RlGpsFix f = fix_at (39.5, 5.0);
  RlEvidence ev;
  char buf[32];

  params_init (&p);
  f.hdop = 1.0;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 0);
  g_assert_cmpstr (rl_evidence_countries_to_string (&ev, buf, sizeof buf), ==, "sea");
  g_assert_nonnull (strstr (ev.detail, "at sea"));
  g_assert_nonnull (strstr (ev.detail, "FR waters"));
  /* near the waters, still "sea": never a guess toward a country */
  f = fix_at (39.9995, 5.0);
  f.hdop = 10;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpuint (ev.n_countries, ==, 0);
}

static void
test_refused_and_expiry (void)
{
  RlGpsEvidenceParams p;
  RlGpsFix f = fix_at (48.5, 9.5);
  RlEvidence ev;

  params_init (&p);
  f.lat = 95;
  g_assert_false (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  f.lat = 48.5;
  p.max_age_s = 0;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_cmpint (ev.expires_at, ==, RL_NEVER);
  g_assert_nonnull (strstr (ev.detail, "accuracy unknown"));
  /* southern and western hemispheres in the words */
  f = fix_at (41.0, -3.25);
  f.lat = -41.0;
  p.lookup = fake_lookup;
  g_assert_true (rl_gps_evidence_from_fix (&p, &f, f.time, &ev));
  g_assert_true (g_str_has_prefix (ev.detail, "GPS fix 41.00S 3.25W"));
}

/* The lookup cache carries a border distance over as a lower bound only
 * where the bound decides the same as the distance: a Saint-Gingolph café
 * 167 m from the border, then 14 m further from it with a ±160 m indoor fix
 * — the bound (153 m) would put the border inside the circle, the
 * distance (181 m) does not.  Far from the border the lookup is skipped and
 * the text says it is a bound. */
static void
test_cache_bound (void)
{
  RlGpsEvidenceParams p;
  RlGpsLookupCache cache = { 0 };
  const double m_per_deg_lon = 111320.0 * cos (46.388 * G_PI / 180);
  RlGpsFix a = fix_at (46.388, 7.80 + 167 / m_per_deg_lon), b = fix_at (46.388, 7.80 + 181 / m_per_deg_lon);
  RlGpsFix far = fix_at (46.388, 7.80 + 3000 / m_per_deg_lon), near_far = fix_at (46.388, 7.80 + 2990 / m_per_deg_lon);
  RlEvidence ev;

  params_init (&p);
  a.hdop = 14;   /* ±70 m */
  b.hdop = 32;   /* ±160 m */
  g_assert_true (rl_gps_evidence_from_fix_cached (&p, &cache, &a, 0, &ev));
  g_assert_true (rl_gps_evidence_from_fix_cached (&p, &cache, &b, 0, &ev));
  g_assert_cmpfloat_with_epsilon (ev.gps.border_m, 181, 0.5);
  g_assert_false (rl_gps_circle_reaches_border (&ev));
  g_assert_cmpuint (cache.reused, ==, 0);

  far.hdop = near_far.hdop = 2;
  g_assert_true (rl_gps_evidence_from_fix_cached (&p, &cache, &far, 0, &ev));
  g_assert_true (rl_gps_evidence_from_fix_cached (&p, &cache, &near_far, 0, &ev));
  g_assert_cmpuint (cache.reused, ==, 1);
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_cmpfloat (ev.gps.border_m, <=, 2990.5);
  g_assert_nonnull (strstr (ev.detail, "more than 2.9 km from FR border"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gps-evidence/error-radius", test_error_radius);
  g_test_add_func ("/gps-evidence/inland", test_inland);
  g_test_add_func ("/gps-evidence/border-rule", test_border_rule);
  g_test_add_func ("/gps-evidence/sea", test_sea);
  g_test_add_func ("/gps-evidence/cache-bound", test_cache_bound);
  g_test_add_func ("/gps-evidence/refused-expiry", test_refused_and_expiry);
  return g_test_run ();
}
