/* Boundary lookup: labelled points (enclaves, coasts, antimeridian, poles),
 * a round trip of the index against the source polygons, corrupt indexes
 * and the bulk interface of `regloc lookup -`. */
#include "geo/boundary.h"
#include "geo/boundary-private.h"
#include "geo/boundary-format.h"
#include "tools/boundary-gen/boundary-source.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static RlBoundaryIndex *index_;

static const char *
index_path (void)
{
  return rl_boundary_index_default_path ();
}

static char *
code (RlCountry c)
{
  char s[3];
  return g_strdup (rl_country_to_string (c, s));
}

/* ---- labelled points -------------------------------------------------- */

typedef struct {
  double lat, lon;
  const char *cc;      /* "--" for no country */
  const char *what;
} Labelled;

static const Labelled labelled[] = {
  /* enclaves and exclaves */
  { 47.6969, 8.6903, "DE", "Büsingen am Hochrhein (German exclave in Switzerland)" },
  { 47.6960, 8.6340, "CH", "Schaffhausen, just west of Büsingen" },
  { 45.9686, 8.9727, "IT", "Campione d'Italia (Italian exclave in Switzerland)" },
  { 46.0037, 8.9511, "CH", "Lugano" },
  { 42.4635, 1.9682, "ES", "Llívia (Spanish exclave in France)" },
  { 42.4580, 2.0390, "FR", "Saillagouse, east of Llívia" },
  { 51.4385, 4.9305, "BE", "Baarle-Hertog town hall (Belgian enclave H1)" },
  { 51.4350, 4.9300, "BE", "Baarle-Hertog, south of the centre (enclave H1)" },
  { 51.4425, 4.9250, "BE", "a Belgian enclave west of the centre" },
  { 51.4460, 4.9290, "NL", "Baarle-Nassau between the enclaves" },
  { 51.4370, 4.9310, "NL", "a Dutch counter-enclave inside H1" },
  { 51.4550, 4.9000, "NL", "north-west of Baarle" },
  { 54.7104, 20.4522, "RU", "Kaliningrad" },
  { 35.8890, -5.3213, "ES", "Ceuta" },
  { 35.5720, -5.3680, "MA", "Tétouan" },
  { 35.2923, -2.9381, "ES", "Melilla" },
  { 36.1408, -5.3536, "GI", "Gibraltar" },
  { 36.1650, -5.3480, "ES", "La Línea de la Concepción" },
  { 43.7384, 7.4246, "MC", "Monaco" },
  { 43.7102, 7.2620, "FR", "Nice" },
  { 43.9424, 12.4578, "SM", "San Marino" },
  { 44.0594, 12.5683, "IT", "Rimini" },
  { 41.9022, 12.4539, "VA", "St Peter's Basilica, Vatican" },
  { 41.8902, 12.4922, "IT", "Colosseum, Rome" },
  /* territories under their own codes (the sovereign's feature covers them too) */
  { 4.9330, -52.3300, "GF", "Cayenne" },
  { -21.1151, 55.5364, "RE", "Saint-Denis, Réunion" },
  { 18.4655, -66.1057, "PR", "San Juan" },
  { 13.4443, 144.7937, "GU", "Hagåtña, Guam" },
  { 22.3193, 114.1694, "HK", "Hong Kong" },
  { 22.1987, 113.5439, "MO", "Macau" },
  { 25.0330, 121.5654, "TW", "Taipei" },
  { 78.2232, 15.6267, "SJ", "Longyearbyen, Svalbard" },
  { 60.0973, 19.9348, "AX", "Mariehamn" },
  { 12.1091, -68.9316, "CW", "Willemstad (feature with alpha-3 only)" },
  { 12.1443, -68.2655, "BQ", "Kralendijk (feature with alpha-3 only)" },
  { 18.0260, -63.0458, "SX", "Philipsburg (feature with alpha-3 only)" },
  { 18.0708, -63.0863, "MF", "Marigot" },
  { 48.8566, 2.3522, "FR", "Paris" },
  /* territorial sea that only the sovereign's feature covers */
  { -20.9177, 55.1802, "RE", "sea off Réunion (in FR's feature only)" },
  { 16.3500, -61.8500, "GP", "sea off Guadeloupe (in FR's feature only)" },
  { 18.5500, -66.3000, "PR", "sea off Puerto Rico (in US's feature only)" },
  { 15.2000, 145.6000, "MP", "sea off Saipan (in US's feature only)" },
  /* coasts: the territorial sea counts, beyond 12 nm is no country */
  { 52.4000, 4.4200, "NL", "8 km off Zandvoort" },
  { 52.4000, 4.2400, "NL", "20 km off Zandvoort" },
  { 52.4000, 4.0000, "--", "36 km off Zandvoort" },
  { 0.0, 0.0, "--", "Gulf of Guinea" },
  { 30.0, -40.0, "--", "mid-Atlantic" },
  /* antimeridian */
  { -18.1416, 178.4419, "FJ", "Suva" },
  { -18.2000, -178.8000, "FJ", "Lakeba, Lau islands (east of 180°)" },
  { 64.7337, 177.5089, "RU", "Anadyr" },
  { 66.1600, -169.8000, "RU", "Uelen, Chukotka (west of 180°)" },
  { 1.4200, 173.0000, "KI", "Tarawa" },
  { 1.8700, -157.4000, "KI", "Kiritimati" },
  /* poles: AQ covers 60°S–85.05°S in the data (Mercator-clipped), the
   * poles themselves have no country */
  { 90.0, 0.0, "--", "North Pole" },
  { 89.0, 123.0, "--", "Arctic Ocean" },
  { -80.0, 0.0, "AQ", "Antarctica" },
  { -89.0, 45.0, "--", "south of the data's Antarctica (85.05°S)" },
  { -90.0, 0.0, "--", "South Pole" },
  { 72.0, -40.0, "GL", "Greenland ice sheet" },
};

static void
test_labelled (void)
{
  guint failures = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (labelled); i++)
    {
      RlBoundaryResult r;
      g_autofree char *got = NULL;

      RlCountry alone;

      g_assert_true (rl_boundary_lookup (index_, labelled[i].lat, labelled[i].lon, &r));
      g_assert_true (rl_boundary_lookup_country (index_, labelled[i].lat, labelled[i].lon, &alone));
      g_assert_cmpuint (alone, ==, r.country);
      got = code (r.country);
      if (strcmp (got, labelled[i].cc) != 0)
        {
          g_printerr ("%s (%.4f, %.4f): got %s, want %s\n", labelled[i].what, labelled[i].lat,
                      labelled[i].lon, got, labelled[i].cc);
          failures++;
        }
      g_assert_true (r.border_m >= 0 && r.border_m <= RL_BOUNDARY_EXACT_M);
    }
  g_assert_cmpuint (failures, ==, 0);
}

static void
test_bad_coordinates (void)
{
  RlBoundaryResult r;

  g_assert_false (rl_boundary_lookup (index_, 90.0001, 0, &r));
  g_assert_false (rl_boundary_lookup (index_, -91, 0, &r));
  g_assert_false (rl_boundary_lookup (index_, 0, 180.5, &r));
  g_assert_false (rl_boundary_lookup (index_, 0, -181, &r));
  g_assert_false (rl_boundary_lookup (index_, NAN, 0, &r));
  g_assert_false (rl_boundary_lookup (index_, 0, INFINITY, &r));
  g_assert_true (rl_boundary_lookup (index_, 0, 180, &r));
  g_assert_true (rl_boundary_lookup (index_, 0, -180, &r));

  {
    const double bad[][2] = { { 90.0001, 0 }, { -91, 0 }, { 0, 180.5 }, { 0, -181 }, { NAN, 0 }, { 0, INFINITY } };
    RlCountry c;

    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        c = RL_COUNTRY ('Z', 'Z');
        g_assert_false (rl_boundary_lookup_country (index_, bad[i][0], bad[i][1], &c));
        g_assert_cmpuint (c, ==, RL_COUNTRY_NONE);
      }
    g_assert_true (rl_boundary_lookup_country (index_, 0, 180, &c));
    g_assert_true (rl_boundary_lookup_country (index_, 0, -180, &c));
  }
}

/* The border between Canada and the United States follows a parallel for
 * 2000 km: the distance to it is known in advance.  At 100°W the source
 * data puts it at 48.99925°N (between 48.9992 and 48.9993). */
static void
test_border_distance (void)
{
  static const struct { double lat; const char *cc, *other; } cases[] = {
    { 49.0090, "CA", "US" },
    { 49.0018, "CA", "US" },
    { 48.9990, "US", "CA" },
    { 48.9910, "US", "CA" },
    { 48.9550, "US", "CA" },
    { 49.0400, "CA", "US" },
    { 49.0800, "CA", "--" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RlBoundaryResult r;
      g_autofree char *cc = NULL, *other = NULL;

      double metres = fabs (cases[i].lat - 48.99925) * 111195.0;

      g_assert_true (rl_boundary_lookup (index_, cases[i].lat, -100.0, &r));
      cc = code (r.country);
      other = code (r.neighbour);
      g_assert_cmpstr (cc, ==, cases[i].cc);
      if (metres >= RL_BOUNDARY_EXACT_M)
        {
          /* Beyond the exact range: the bound, and no neighbour named. */
          g_assert_cmpfloat (r.border_m, ==, RL_BOUNDARY_EXACT_M);
          g_assert_cmpint (r.neighbour, ==, RL_COUNTRY_NONE);
          continue;
        }
      g_assert_cmpstr (other, ==, cases[i].other);
      g_assert_cmpfloat (fabs (r.border_m - metres), <, 15);
    }
}

/* Territorial waters: the border of a coastal point is the edge of the
 * waters (neighbour: none); at sea the nearest country is named. */
static void
test_sea_edges (void)
{
  RlBoundaryResult r;
  g_autofree char *inside = NULL, *outside = NULL;

  /* 20 km off Zandvoort: ~2 km inside the 12 nm line. */
  g_assert_true (rl_boundary_lookup (index_, 52.4, 4.24, &r));
  inside = code (r.country);
  g_assert_cmpstr (inside, ==, "NL");
  g_assert_cmpint (r.neighbour, ==, RL_COUNTRY_NONE);
  g_assert_cmpfloat (r.border_m, >, 500);
  g_assert_cmpfloat (r.border_m, <, 4000);
  /* 26 km off: just outside, the Netherlands' waters are nearest. */
  g_assert_true (rl_boundary_lookup (index_, 52.4, 4.15, &r));
  g_assert_cmpint (r.country, ==, RL_COUNTRY_NONE);
  outside = code (r.neighbour);
  g_assert_cmpstr (outside, ==, "NL");
  g_assert_cmpfloat (r.border_m, <, 3000);
}

/* The data splits Fiji, Chukotka and Antarctica at ±180°: that seam is
 * not a border.  Antarctica's feature stops at 85.05°S (a straight edge). */
static void
test_seams_and_poles (void)
{
  static const struct { double lat, lon; const char *cc; double min_m, max_m; } cases[] = {
    { -16.5, 179.9999, "FJ", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
    { -16.5, -179.9999, "FJ", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
    { -16.5, 180.0, "FJ", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
    { 65.0, 180.0, "RU", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
    { -75.0, 180.0, "AQ", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
    { -85.04, 10.0, "AQ", 1112 - 5, 1112 + 5 },
    { -85.06, 10.0, "--", 1112 - 5, 1112 + 5 },
    { 89.9999, 179.9999, "--", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RlBoundaryResult r;
      g_autofree char *cc = NULL;

      g_assert_true (rl_boundary_lookup (index_, cases[i].lat, cases[i].lon, &r));
      cc = code (r.country);
      g_assert_cmpstr (cc, ==, cases[i].cc);
      if (r.border_m < RL_BOUNDARY_EXACT_M)
        g_assert_cmpint (r.neighbour, !=, r.country);
      else
        g_assert_cmpint (r.neighbour, ==, RL_COUNTRY_NONE);
      g_assert_cmpfloat (r.border_m, >=, cases[i].min_m);
      g_assert_cmpfloat (r.border_m, <=, cases[i].max_m);
    }
}

/* Büsingen is 1–2 km across: every point in it is near the Swiss border. */
static void
test_enclave_border (void)
{
  RlBoundaryResult r;
  g_autofree char *cc = NULL, *other = NULL;

  g_assert_true (rl_boundary_lookup (index_, 47.6969, 8.6903, &r));
  cc = code (r.country);
  other = code (r.neighbour);
  g_assert_cmpstr (cc, ==, "DE");
  g_assert_cmpstr (other, ==, "CH");
  g_assert_cmpfloat (r.border_m, <, 1500);
}

/* Borders that the search used to miss.  The nearest edge counts as a
 * border only where a point just past it has another country; at the tip
 * of a narrow spike of the neighbour, seen from outside the spike, no point
 * straight on from the query nor square off the edge lies inside it, only
 * one just beside the edge: such a tip counted as no border, and the search
 * went on to farther edges, up to a budget, then answered the last one's
 * distance with no neighbour.  Where the nearest edges lie inside one
 * country (a larger neighbour's edge inside a smaller one's, where the
 * source's polygons overlap; a territory's coast inside its own sea) the
 * budget ran out on them; and a skipped edge could be found again (its
 * distance squared from the rounded root fell a hair below the measure)
 * until the budget was spent. */
static void
test_border_past_inner_edges (void)
{
  static const struct { double lat, lon; const char *cc, *other; double min_m, max_m; const char *what; } cases[] = {
    /* spike tips */
    { 26.454126, 87.892237, "IN", "NP", 800, 880, "Bihar by the Nepalese border (was 841 m, no neighbour)" },
    { 53.674512, 32.492502, "RU", "BY", 340, 400, "Smolensk oblast by Belarus (was 369 m, no neighbour)" },
    { 46.210318, 20.726605, "HU", "RO", 300, 360, "Makó by the Romanian border (was 332 m, no neighbour)" },
    { 26.256855, 88.674396, "BD", "IN", 540, 600, "Panchagarh by the Indian border (was 569 m, no neighbour)" },
    { 49.492377, 5.968289, "LU", "FR", 60, 85, "Esch-sur-Alzette by the French border (was 71 m, no neighbour)" },
    { 2.329398, 9.805934, "GQ", "CM", 1100, 1180, "Rio Ntem by the Cameroonian border (was 1139 m, no neighbour)" },
    { 54.065473, 73.765558, "RU", "KZ", 1250, 1300, "Omsk oblast by the Kazakh border (was 1411 m)" },
    { 55.167042, 136.715432, "--", "RU", 1820, 1900, "Sea of Okhotsk off Khabarovsk krai (was 1863 m, no neighbour)" },
    /* inner edges first */
    { 49.386374, 20.327852, "SK", "PL", 5, 15, "Tatra foothills by the Polish border (was 3 m, no neighbour)" },
    /* an edge of Israel's feature runs inside the Palestinian one */
    { 31.390461, 34.951745, "PS", "IL", 4500, 4700, "south of Hebron (was 122 m, no neighbour)" },
    /* Guadeloupe's land lies inside its own sea: the coast is no border;
     * the edge of its waters is farther than the exact range */
    { 15.834033, -61.685360, "GP", "--", RL_BOUNDARY_EXACT_M, RL_BOUNDARY_EXACT_M, "off Basse-Terre (was 4107 m)" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RlBoundaryResult r;
      g_autofree char *cc = NULL, *other = NULL;

      g_test_message ("%s", cases[i].what);
      g_assert_true (rl_boundary_lookup (index_, cases[i].lat, cases[i].lon, &r));
      cc = code (r.country);
      other = code (r.neighbour);
      g_assert_cmpstr (cc, ==, cases[i].cc);
      g_assert_cmpstr (other, ==, cases[i].other);
      g_assert_cmpfloat (r.border_m, >=, cases[i].min_m);
      g_assert_cmpfloat (r.border_m, <=, cases[i].max_m);
    }
}

/* The distance against the labels alone: no point of a circle a little
 * inside the reported distance has another country than the point's (the
 * search never reports a border farther than the nearest one), and a point
 * of a circle a little outside it has (it reports a border that is there:
 * the circle is sampled finely, as the tip of a neighbour's narrow spike
 * touches it only over a short arc).  Random points of three areas with
 * many borders; gaps of the source (border_area) left out. */
static gboolean
ring_has_other (double lat, double lon, double r_m, guint n, RlCountry own, RlCountry *seen)
{
  for (guint k = 0; k < n; k++)
    {
      double a = 2 * G_PI * k / n;
      double y = lat + r_m * sin (a) / (6371008.8 * G_PI / 180);
      double x = lon + r_m * cos (a) / (6371008.8 * G_PI / 180 * cos (lat * G_PI / 180));
      RlCountry c;

      g_assert_true (rl_boundary_lookup_country (index_, y, x, &c));
      if (c != own)
        {
          *seen = c;
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_distance_rings (void)
{
  static const struct { double lat0, lat1, lon0, lon1; } areas[] = {
    { 45, 52, 2, 24 },      /* central Europe */
    { 0, 16, -17, 30 },     /* West and Central Africa */
    { 20, 45, 60, 100 },    /* Central and South Asia */
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (314);
  guint checked = 0, outer_checked = 0;

  for (gsize a = 0; a < G_N_ELEMENTS (areas); a++)
    for (guint k = 0; k < 4000; k++)
      {
        double lat = g_rand_double_range (rand, areas[a].lat0, areas[a].lat1);
        double lon = g_rand_double_range (rand, areas[a].lon0, areas[a].lon1);
        RlBoundaryResult r;
        RlCountry seen = RL_COUNTRY_NONE;
        char c1[3], c2[3];

        g_assert_true (rl_boundary_lookup (index_, lat, lon, &r));
        if (r.border_area || r.border_m < 10 || r.border_m >= RL_BOUNDARY_EXACT_M)
          continue;
        if (ring_has_other (lat, lon, r.border_m - 3, 360, r.country, &seen))
          g_error ("%.6f %.6f: %s, border %.1f m, but %s %.0f m away", lat, lon, rl_country_to_string (r.country, c1),
                   r.border_m, rl_country_to_string (seen, c2), r.border_m - 3);
        checked++;
        if (outer_checked < 30)
          {
            if (!ring_has_other (lat, lon, r.border_m + 3, 20000, r.country, &seen))
              g_error ("%.6f %.6f: %s, border %.1f m, but nothing else %.0f m away", lat, lon,
                       rl_country_to_string (r.country, c1), r.border_m, r.border_m + 3);
            outer_checked++;
          }
      }
  g_test_message ("%u points within %.0f m of a border checked, %u of them outside too", checked,
                  RL_BOUNDARY_EXACT_M, outer_checked);
  g_assert_cmpuint (checked, >, 500);
}

/* ---- gaps of the source ------------------------------------------------ */

/* Where the source's polygons of two neighbours do not quite touch (rivers,
 * bridges, tripoints) the thin strip between them is a border area between
 * the two, never open sea; a point beside such a strip names the country
 * across it.  Real open sea stays sea, even just outside the waters. */
static void
test_gaps (void)
{
  static const struct { double lat, lon; const char *cc, *other; gboolean area; const char *what; } cases[] = {
    /* in a strip the source leaves between two countries */
    { 47.5896, 7.5888, "FR", "CH", TRUE, "Rhine at the Basel tripoint (FR/CH/DE)" },
    { 47.5902, 7.5892, "DE", "FR", TRUE, "Rhine at the Basel tripoint, German side" },
    { 31.7500, -106.4750, "US", "MX", TRUE, "Rio Grande between El Paso and Ciudad Juárez" },
    { 31.7215, -106.3760, "MX", "US", TRUE, "Rio Grande, east of El Paso" },
    { 54.1939, 63.4108, "KZ", "RU", TRUE, "Russia–Kazakhstan border south of Troitsk" },
    /* beside a strip: the country across it is the neighbour */
    { 47.5896, 7.5891, "CH", "FR", FALSE, "Basel, 17 m from the strip in the Rhine" },
    { 31.7600, -106.4500, "MX", "US", FALSE, "Ciudad Juárez, 360 m from the Rio Grande strip" },
    /* no gap: a bridge where the polygons touch */
    { 48.5686, 7.8020, "FR", "DE", FALSE, "Europabrücke Strasbourg–Kehl" },
    { 52.3470, 14.5530, "DE", "PL", FALSE, "Stadtbrücke Frankfurt (Oder)–Słubice" },
    /* open sea stays sea, even close to the edge of the waters */
    { 52.4000, 4.1500, "--", "NL", FALSE, "26 km off Zandvoort, 2 km outside the waters" },
    { 38.7000, -9.9500, "--", "--", FALSE, "40 km off Cabo da Roca" },
    { 50.2000, -0.5000, "--", "--", FALSE, "mid-Channel, Newhaven–Dieppe ferry route" },
    /* a harbour is inside the country's waters */
    { 43.2950, 5.3600, "FR", "--", FALSE, "Marseille, Vieux-Port basin" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RlBoundaryResult r;
      RlCountry alone;
      g_autofree char *cc = NULL, *other = NULL;

      g_assert_true (rl_boundary_lookup (index_, cases[i].lat, cases[i].lon, &r));
      g_assert_true (rl_boundary_lookup_country (index_, cases[i].lat, cases[i].lon, &alone));
      cc = code (r.country);
      other = code (r.neighbour);
      g_test_message ("%s: %s, %s, %.0f m%s", cases[i].what, cc, other, r.border_m, r.border_area ? ", border area" : "");
      g_assert_cmpstr (cc, ==, cases[i].cc);
      g_assert_cmpuint (alone, ==, r.country);
      if (cases[i].other[0] != '-' || r.border_m < RL_BOUNDARY_EXACT_M)
        g_assert_cmpstr (other, ==, cases[i].other);
      g_assert_cmpint (r.border_area, ==, cases[i].area);
      if (r.border_area)
        g_assert_cmpfloat (r.border_m, ==, 0);
    }
}

/* ---- round trip against the source polygons --------------------------- */

#define BAND_DEG 0.1
#define N_BANDS 1800   /* 180 / BAND_DEG */

typedef struct {
  const RlBsrc *src;
  GArray *bands[N_BANDS];   /* edge ids (guint32) whose latitude span meets the band */
} Truth;

static int
band_of (double lat)
{
  int b = (int) floor ((lat + 90) / BAND_DEG);
  return CLAMP (b, 0, N_BANDS - 1);
}

static Truth *
truth_new (const char *path)
{
  Truth *t = g_new0 (Truth, 1);

  t->src = rl_bsrc_load (path);
  for (int b = 0; b < N_BANDS; b++)
    t->bands[b] = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (size_t i = 0; i + 1 < t->src->n_pts; i++)
    {
      double y0, y1;
      if (t->src->feat[i] < 0)
        continue;
      y0 = MIN (t->src->pts[i].y, t->src->pts[i + 1].y);
      y1 = MAX (t->src->pts[i].y, t->src->pts[i + 1].y);
      for (int b = band_of (y0); b <= band_of (y1); b++)
        {
          guint32 id = (guint32) i;
          g_array_append_val (t->bands[b], id);
        }
    }
  return t;
}

/* Brute-force label: parity of every feature on a ray towards +lon, the
 * smallest feature holding the point wins. */
static RlCountry
truth_label (const Truth *t, double lat, double lon)
{
  guint8 parity[RL_BSRC_MAX_FEATURES] = { 0 };
  GArray *band = t->bands[band_of (lat)];
  int best = -1;

  for (guint k = 0; k < band->len; k++)
    {
      guint32 i = g_array_index (band, guint32, k);
      RlBsrcPt a = t->src->pts[i], b = t->src->pts[i + 1];
      if ((a.y > lat) != (b.y > lat) && a.x + (lat - a.y) * (b.x - a.x) / (b.y - a.y) > lon)
        parity[t->src->feat[i]] ^= 1;
    }
  for (unsigned f = 0; f < t->src->n_feats; f++)
    if (parity[f] && (best < 0 || t->src->feats[f].rank < t->src->feats[best].rank))
      best = (int) f;
  return best < 0 ? RL_COUNTRY_NONE : RL_COUNTRY (t->src->feats[best].a2[0], t->src->feats[best].a2[1]);
}

/* Does the truth near (lat, lon) — within metres — include country? */
static gboolean
truth_near (const Truth *t, double lat, double lon, double metres, RlCountry country)
{
  double dlat = metres / 111195.0, dlon = dlat / MAX (cos (lat * G_PI / 180), 1e-6);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      {
        double y = CLAMP (lat + dy * dlat, -90, 90), x = lon + dx * dlon;
        if (x > 180 || x < -180)
          continue;
        if (truth_label (t, y, x) == country)
          return TRUE;
      }
  return FALSE;
}

static void
check_points (const Truth *t, GRand *rand, guint n, gboolean near_border)
{
  guint mismatch = 0, near_edge = 0, bad_distance = 0, gaps = 0;

  for (guint k = 0; k < n; k++)
    {
      double lat, lon;
      RlBoundaryResult r;
      RlCountry want;

      if (near_border)
        {
          /* A random vertex, moved up to ~2 km in a random direction. */
          gsize i;
          do
            i = (gsize) g_rand_int_range (rand, 0, (gint32) t->src->n_pts);
          while (t->src->feat[i] < 0);
          lat = t->src->pts[i].y + g_rand_double_range (rand, -0.02, 0.02);
          lon = t->src->pts[i].x + g_rand_double_range (rand, -0.02, 0.02);
          lat = CLAMP (lat, -90, 90);
          lon = CLAMP (lon, -180, 180);
        }
      else
        {
          lat = asin (g_rand_double_range (rand, -1, 1)) * 180 / G_PI;
          lon = g_rand_double_range (rand, -180, 180);
        }
      if (!rl_boundary_lookup (index_, lat, lon, &r))
        g_error ("lookup refused %.7f %.7f", lat, lon);
      /* The country-only lookup gives the same country. */
      {
        RlCountry alone;
        g_assert_true (rl_boundary_lookup_country (index_, lat, lon, &alone));
        g_assert_cmpuint (alone, ==, r.country);
      }
      want = truth_label (t, lat, lon);
      if (r.border_m < RL_BOUNDARY_EXACT_M)
        g_assert_cmpint (r.neighbour, !=, r.country);
      /* No border nearer than reported: the source agrees with the index
       * on points 90 % of the way there, in four directions. */
      if (k % 10 == 0 && r.country == want && r.border_m > 20)
        for (int dir = 0; dir < 4; dir++)
          {
            double d = 0.9 * r.border_m / 111195.0;
            double dlat = (dir == 0 ? d : dir == 2 ? -d : 0);
            double dlon = (dir == 1 ? d : dir == 3 ? -d : 0) / MAX (cos (lat * G_PI / 180), 1e-6);
            double y = lat + dlat, x = lon + dlon;
            if (y > 89.9 || y < -89.9 || x >= 180 || x <= -180 || r.border_m >= RL_BOUNDARY_EXACT_M)
              continue;
            if (truth_label (t, y, x) != want)
              {
                char a[3];
                g_printerr ("border nearer than %.1f m from %.7f %.7f (%s)\n", r.border_m, lat, lon,
                            rl_country_to_string (want, a));
                bad_distance++;
              }
          }
      if (r.country == want)
        continue;
      /* A gap of the source between two countries is reported as the
       * border between them (test_gaps checks them). */
      if (r.border_area && want == RL_COUNTRY_NONE && r.border_m == 0 && r.neighbour != RL_COUNTRY_NONE)
        {
          gaps++;
          continue;
        }
      /* The index stores coordinates to ~1 m (16 bits per leaf); a point
       * that close to an edge may fall either way. */
      if (truth_near (t, lat, lon, 3.0, r.country))
        {
          near_edge++;
          continue;
        }
      {
        char a[3], b[3];
        g_printerr ("mismatch at %.7f %.7f: index %s, source %s (border %.1f m)\n", lat, lon,
                    rl_country_to_string (r.country, a), rl_country_to_string (want, b), r.border_m);
      }
      mismatch++;
    }
  g_test_message ("%u %s points: %u mismatches, %u within 3 m of an edge, %u in gaps", n,
                  near_border ? "near-border" : "uniform", mismatch, near_edge, gaps);
  g_assert_cmpuint (gaps, <=, n / 1000 + 1);
  g_assert_cmpuint (mismatch, ==, 0);
  g_assert_cmpuint (near_edge, <=, n / 1000 + 1);
  g_assert_cmpuint (bad_distance, ==, 0);
}

static void
test_round_trip (void)
{
  const char *source = g_getenv ("REGLOC_BOUNDARY_SOURCE");
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261203);
  Truth *t;

  if (source == NULL || !g_file_test (source, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("REGLOC_BOUNDARY_SOURCE (the decompressed GeoJSON) is not set: meson test sets it");
      return;
    }
  t = truth_new (source);
  check_points (t, rand, 20000, FALSE);
  check_points (t, rand, 20000, TRUE);
  for (int b = 0; b < N_BANDS; b++)
    g_array_unref (t->bands[b]);
  g_free (t);
}

/* ---- shortcuts -------------------------------------------------------- */

/* The generator's far/own flags, the own-leaf bound and the search up the
 * query's own path (rather than down from the grid) only spare work: every
 * answer must be exactly the full search's, and rl_boundary_lookup_distance
 * ()'s the same but the neighbour.  Uniform
 * points, and dense ones where coasts and borders are intricate (so that
 * many points lie in flagged parts a few km from an edge). */
static void
test_shortcuts (void)
{
  static const struct { double lat0, lat1, lon0, lon1; guint n; } areas[] = {
    { -90, 90, -180, 180, 400000 },   /* uniform on the sphere (see below) */
    { 35, 60, -10, 30, 300000 },      /* Europe */
    { -10, 10, 95, 140, 300000 },     /* the Indonesian and Philippine islands */
    { 55, 72, -140, -60, 200000 },    /* Canada's Arctic coast and fjords */
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (5000);
  guint searched_near = 0;

  for (gsize a = 0; a < G_N_ELEMENTS (areas); a++)
    for (guint k = 0; k < areas[a].n; k++)
      {
        RlBoundaryResult fast, full;
        double lat, lon;

        if (a == 0)
          lat = asin (g_rand_double_range (rand, -1, 1)) * 180 / G_PI;
        else
          lat = g_rand_double_range (rand, areas[a].lat0, areas[a].lat1);
        lon = g_rand_double_range (rand, areas[a].lon0, areas[a].lon1);
        g_assert_true (rl_boundary_lookup (index_, lat, lon, &fast));
        g_assert_true (rl_boundary_lookup_searching (index_, lat, lon, &full));
        if (fast.country != full.country || fast.neighbour != full.neighbour || fast.border_m != full.border_m ||
            fast.border_area != full.border_area)
          {
            char a1[3], a2[3], b1[3], b2[3];
            g_error ("%.9f %.9f: %s %.17g m (%s) with shortcuts, %s %.17g m (%s) searching", lat, lon,
                     rl_country_to_string (fast.country, a1), fast.border_m, rl_country_to_string (fast.neighbour, a2),
                     rl_country_to_string (full.country, b1), full.border_m, rl_country_to_string (full.neighbour, b2));
          }
        /* the lookup without the neighbour: the rest the same */
        g_assert_true (rl_boundary_lookup_distance (index_, lat, lon, &fast));
        if (fast.country != full.country || fast.border_m != full.border_m || fast.border_area != full.border_area ||
            fast.neighbour != RL_COUNTRY_NONE)
          g_error ("%.9f %.9f: rl_boundary_lookup_distance () %.17g m, searching %.17g m", lat, lon, fast.border_m,
                   full.border_m);
        if (full.border_m < RL_BOUNDARY_EXACT_M)
          searched_near++;
      }
  g_test_message ("%u points within %.0f m of an edge", searched_near, RL_BOUNDARY_EXACT_M);
  /* The areas must hold many points near edges, or the test proves little. */
  g_assert_cmpuint (searched_near, >, 20000);
}

/* ---- many points at once ---------------------------------------------- */

/* rl_boundary_lookup_many () against one call a point on @n points
 * (lat, lon interleaved): the same ok, country and (with distances)
 * border_m for each.  Returns how many it refused. */
static guint
check_many (const RlBoundaryIndex *idx, const double *latlon, gsize n)
{
  g_autofree RlCountry *country = g_new (RlCountry, n);
  g_autofree double *border_m = g_new (double, n);
  g_autofree gboolean *ok = g_new (gboolean, n);
  guint refused = 0;

  rl_boundary_lookup_many (idx, n, latlon, country, NULL, ok);
  for (gsize i = 0; i < n; i++)
    {
      RlCountry c;
      gboolean one = rl_boundary_lookup_country (idx, latlon[2 * i], latlon[2 * i + 1], &c);
      if (one != ok[i] || (one && c != country[i]))
        g_error ("%.9f %.9f: country %s/%u alone, %s/%u among many", latlon[2 * i], latlon[2 * i + 1],
                 one ? "ok" : "refused", c, ok[i] ? "ok" : "refused", country[i]);
      refused += !one;
    }
  rl_boundary_lookup_many (idx, n, latlon, country, border_m, ok);
  for (gsize i = 0; i < n; i++)
    {
      RlBoundaryResult r;
      gboolean one = rl_boundary_lookup_distance (idx, latlon[2 * i], latlon[2 * i + 1], &r);
      if (one != ok[i] || (one && (r.country != country[i] || r.border_m != border_m[i])))
        g_error ("%.9f %.9f: %s %u %.17g m alone, %s %u %.17g m among many", latlon[2 * i], latlon[2 * i + 1],
                 one ? "ok" : "refused", r.country, r.border_m, ok[i] ? "ok" : "refused", country[i], border_m[i]);
    }
  return refused;
}

static guint32
z_key (const double *p)
{
  guint32 x = (guint32) CLAMP ((p[1] + 180.0) / 360.0 * 65535.0, 0, 65535);
  guint32 y = (guint32) CLAMP ((p[0] + 90.0) / 180.0 * 65535.0, 0, 65535);
  guint32 k = 0;

  for (guint b = 0; b < 16; b++)
    k |= ((x >> b) & 1u) << (2 * b) | ((y >> b) & 1u) << (2 * b + 1);
  return k;
}

static int
compare_z (const void *a, const void *b)
{
  guint32 ka = z_key (a), kb = z_key (b);
  return ka < kb ? -1 : ka > kb;
}

/* The bulk lookup interleaves the walks of eight points: each answer must
 * be the one-point lookup's, whatever the points around it (out of range,
 * NaN, the antimeridian and the poles among them, a count that is no
 * multiple of eight, in input order and in the quadtree's). */
static void
test_many (void)
{
  static const double odd[][2] = { { 91, 0 }, { 0, 181 }, { -90, -180 }, { 90, 180 }, { 0, 180 }, { 0, -180 },
                                   { NAN, 0 }, { 0, NAN }, { -90.5, 10 }, { 47.5596, 7.5886 } };
  const gsize n = 100003;
  g_autofree double *latlon = g_new (double, 2 * n);
  g_autoptr(GRand) rand = g_rand_new_with_seed (8);

  for (gsize i = 0; i < n; i++)
    {
      if (i % 97 == 0)
        {
          latlon[2 * i] = odd[(i / 97) % G_N_ELEMENTS (odd)][0];
          latlon[2 * i + 1] = odd[(i / 97) % G_N_ELEMENTS (odd)][1];
        }
      else if (i % 2)   /* the Rhine and the Alps: many borders */
        {
          latlon[2 * i] = g_rand_double_range (rand, 45.5, 49.5);
          latlon[2 * i + 1] = g_rand_double_range (rand, 5.5, 11.0);
        }
      else
        {
          latlon[2 * i] = asin (g_rand_double_range (rand, -1, 1)) * 180 / G_PI;
          latlon[2 * i + 1] = g_rand_double_range (rand, -180, 180);
        }
    }
  g_assert_cmpuint (check_many (index_, latlon, n), >, 0);
  /* neighbours in the index's order (a point and the next share nodes) */
  {
    g_autofree double *sorted = g_memdup2 (latlon, 2 * n * sizeof (double));
    qsort (sorted, n, 2 * sizeof (double), compare_z);
    check_many (index_, sorted, n);
  }
  check_many (index_, latlon, 0);
  check_many (index_, latlon, 5);
}

/* ---- corrupt indexes -------------------------------------------------- */

static GBytes *
read_index (void)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (index_path (), &data, &len, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}

static char *
write_temp (const void *data, gsize len)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("regloc-bidx-XXXXXX", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, &error));
  g_assert_no_error (error);
  return path;
}

static void
reseal (guint8 *data, gsize len)
{
  RlBidxHeader *h = (RlBidxHeader *) data;
  h->checksum = rl_bidx_checksum (data, len);
}

static void
expect_open_error (const guint8 *data, gsize len, int code_, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_temp (data, len);
  RlBoundaryIndex *idx = rl_boundary_index_open (path, &error);

  if (idx != NULL)
    g_error ("%s: a corrupt index was accepted", what);
  g_assert_error (error, RL_BOUNDARY_ERROR, code_);
  g_test_message ("%s: %s", what, error->message);
  g_unlink (path);
}

/* An index opened to be checked later fails that check, whether the check
 * reads the file (pread) or the mapping every page of which was mapped
 * first (a bulk lookup); a sound one passes both ways. */
static void
expect_verify_later (const guint8 *data, gsize len, gboolean sound, const char *what)
{
  g_autofree char *path = write_temp (data, len);

  for (int populate = 0; populate < 2; populate++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RlBoundaryIndex) idx = rl_boundary_index_open_full (path, RL_BOUNDARY_OPEN_VERIFY_LATER, &error);

      g_assert_no_error (error);
      g_assert_nonnull (idx);
      if (populate)
        rl_boundary_index_populate (idx);
      if (rl_boundary_index_verify (idx, &error) != sound)
        g_error ("%s (%s): the later check said %s", what, populate ? "mapping" : "file", sound ? "corrupt" : "sound");
      if (!sound)
        g_assert_error (error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_CORRUPT);
    }
  g_unlink (path);
}

static void
test_corrupt (void)
{
  g_autoptr(GBytes) bytes = read_index ();
  gsize len;
  const guint8 *orig = g_bytes_get_data (bytes, &len);
  g_autofree guint8 *buf = g_memdup2 (orig, len);
  RlBidxHeader *h = (RlBidxHeader *) buf;
  g_autoptr(GError) error = NULL;

  g_assert_null (rl_boundary_index_open ("/nonexistent/boundaries.idx", &error));
  g_assert_error (error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_MISSING);

  expect_open_error (buf, 0, RL_BOUNDARY_ERROR_CORRUPT, "empty file");
  expect_open_error (buf, 40, RL_BOUNDARY_ERROR_CORRUPT, "shorter than the header");
  expect_open_error (buf, len / 2, RL_BOUNDARY_ERROR_CORRUPT, "truncated to half");
  expect_open_error (buf, len - 1, RL_BOUNDARY_ERROR_CORRUPT, "one byte short");

  expect_verify_later (buf, len, TRUE, "the index as built");
  buf[len - 3] ^= 0x40;
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "one bit flipped in the last leaf");
  expect_verify_later (buf, len, FALSE, "one bit flipped in the last leaf");
  buf[len - 3] ^= 0x40;
  buf[len / 3] ^= 0x01;   /* in the middle of a 256 kB piece of the file check */
  expect_verify_later (buf, len, FALSE, "one bit flipped a third of the way in");
  memcpy (buf, orig, len);
  buf[h->grid_offset + 12345] ^= 0x01;
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "one bit flipped in the grid");
  memcpy (buf, orig, len);
  buf[0] = 'X';
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "bad magic");
  memcpy (buf, orig, len);
  h->version++;
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "future version");

  /* A consistent checksum does not make offsets trustworthy. */
  memcpy (buf, orig, len);
  h->leaves_words += 1000;
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "leaf section past the end");
  memcpy (buf, orig, len);
  ((guint32 *) (buf + h->grid_offset))[777] = RL_BIDX_ENTRY (RL_BIDX_TYPE_NODE, h->n_nodes);
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "grid entry to a node past the end");
  memcpy (buf, orig, len);
  ((guint32 *) (buf + h->nodes_offset))[5] = RL_BIDX_ENTRY (RL_BIDX_TYPE_LEAF, h->leaves_words);
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "node entry to a leaf past the end");
  memcpy (buf, orig, len);
  ((guint32 *) (buf + h->grid_offset))[0] = RL_BIDX_ENTRY (RL_BIDX_TYPE_UNIFORM, 4000);
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "label of no feature");
  memcpy (buf, orig, len);
  h->features_offset = (guint32) len - 2;
  reseal (buf, len);
  expect_open_error (buf, len, RL_BOUNDARY_ERROR_CORRUPT, "feature table past the end");
}

static void
count_chain (RlCountry country, const double *lonlat, guint n_points, gpointer user_data)
{
  guint *n = user_data;

  g_assert_cmpuint (n_points, >=, 2);
  (*n)++;
}

/* Leaves are not walked at open: garbage inside one, with a good checksum,
 * must make lookups refuse (or answer), never read out of bounds. */
static void
test_corrupt_leaves (void)
{
  g_autoptr(GBytes) bytes = read_index ();
  gsize len;
  const guint8 *orig = g_bytes_get_data (bytes, &len);
  g_autofree guint8 *buf = g_memdup2 (orig, len);
  RlBidxHeader *h = (RlBidxHeader *) buf;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  guint refused = 0, refused_country = 0, refused_distance = 0, chains = 0;

  /* Scribble over the last leaves, where counts run into the end. */
  for (gsize i = len - 4096; i < len; i++)
    buf[i] = (guint8) g_rand_int_range (rand, 0, 256);
  for (guint32 i = h->leaves_offset; i < h->leaves_offset + 4096; i++)
    buf[i] = 0xff;
  reseal (buf, len);
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *path = write_temp (buf, len);
    g_autoptr(RlBoundaryIndex) idx = rl_boundary_index_open (path, &error);

    g_assert_no_error (error);
    for (guint k = 0; k < 200000; k++)
      {
        RlBoundaryResult r;
        double lat = g_rand_double_range (rand, -90, 90), lon = g_rand_double_range (rand, -180, 180);
        RlCountry c;
        if (!rl_boundary_lookup (idx, lat, lon, &r))
          refused++;
        if (!rl_boundary_lookup_country (idx, lat, lon, &c))
          refused_country++;
        if (!rl_boundary_lookup_distance (idx, lat, lon, &r))
          refused_distance++;
      }
    /* the bulk lookup refuses the same points */
    {
      g_autofree double *latlon = g_new (double, 2 * 20000);
      for (guint k = 0; k < 2 * 20000; k += 2)
        {
          latlon[k] = g_rand_double_range (rand, -90, 90);
          latlon[k + 1] = g_rand_double_range (rand, -180, 180);
        }
      check_many (idx, latlon, 20000);
    }
    /* the maps read the leaves with the same reader: they refuse too */
    g_assert_false (rl_boundary_foreach_chain (idx, -90, -180, 90, 180, count_chain, &chains));
    g_unlink (path);
  }
  g_test_message ("%u of 200000 lookups refused, %u country-only lookups, %u without the neighbour; %u chains read",
                  refused, refused_country, refused_distance, chains);
  g_assert_cmpuint (refused, >, 0);
  g_assert_cmpuint (refused_country, >, 0);
  g_assert_cmpuint (refused_distance, >, 0);
}

/* The index in memory (what the fuzz target opens) answers as the mapped
 * file does and refuses what the file would be refused for. */
static void
test_from_bytes (void)
{
  static const double points[][2] = { { 52.52, 13.405 }, { 47.6969, 8.6903 }, { 0.0, 0.0 }, { 49.0090, 8.2 } };
  g_autoptr(GBytes) bytes = read_index ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RlBoundaryIndex) mem = rl_boundary_index_new_from_bytes (bytes, "memory", &error);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    {
      RlBoundaryResult a, b;
      g_assert_true (rl_boundary_lookup (index_, points[i][0], points[i][1], &a));
      g_assert_true (rl_boundary_lookup (mem, points[i][0], points[i][1], &b));
      g_assert_cmpuint (a.country, ==, b.country);
      g_assert_cmpfloat (a.border_m, ==, b.border_m);
      g_assert_cmpuint (a.neighbour, ==, b.neighbour);
    }
  {
    g_autoptr(GBytes) cut = g_bytes_new_from_bytes (bytes, 0, len - 1);
    g_autoptr(GError) cut_error = NULL;
    g_assert_null (rl_boundary_index_new_from_bytes (cut, "memory", &cut_error));
    g_assert_error (cut_error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_CORRUPT);
  }
  {
    g_autoptr(GBytes) empty = g_bytes_new (data, 0);
    g_autoptr(GError) empty_error = NULL;
    g_assert_null (rl_boundary_index_new_from_bytes (empty, "memory", &empty_error));
    g_assert_error (empty_error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_CORRUPT);
  }
}

/* ---- regloc lookup - -------------------------------------------------- */

static void
test_cli_bulk (void)
{
  const char *driver = g_getenv ("REGLOC_LOOKUP_DRIVER");
  const char *input =
    "# comment\n"
    "47.6969 8.6903\n"
    "41.9022\t12.4539\n"
    "0,0\n"
    "\n"
    "91 0\n"
    "1 2 3\n"
    "abc 1\n"
    "0x10 0\n"
    "45.9686 , 8.9727\r\n"
    "49.0090 -100\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;

  if (driver == NULL)
    {
      g_test_skip ("REGLOC_LOOKUP_DRIVER is not set: meson test sets it");
      return;
    }
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                           G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, driver, "lookup", "-", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (proc, input, NULL, &out, &err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 10);
  g_assert_true (g_str_has_prefix (lines[0], "DE\t"));
  g_assert_true (g_str_has_prefix (lines[1], "VA\t"));
  {
    g_autofree char *far = g_strdup_printf ("--\t%.0f", RL_BOUNDARY_EXACT_M);
    g_assert_cmpstr (lines[2], ==, far);
  }
  g_assert_cmpstr (lines[3], ==, "ERR\tlatitude is not a number in [-90, 90]");
  g_assert_cmpstr (lines[4], ==, "ERR\texpected two fields: LAT LON");
  g_assert_cmpstr (lines[5], ==, "ERR\tlatitude is not a number in [-90, 90]");
  g_assert_cmpstr (lines[6], ==, "ERR\tlatitude is not a number in [-90, 90]");
  g_assert_true (g_str_has_prefix (lines[7], "IT\t"));
  g_assert_true (g_str_has_prefix (lines[8], "CA\t"));
  g_assert_cmpint (abs (atoi (lines[8] + 3) - 1084), <, 15);
  g_assert_cmpstr (lines[9], ==, "");
}

static void
test_cli_single (void)
{
  const char *driver = g_getenv ("REGLOC_LOOKUP_DRIVER");
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autofree char *out = NULL, *err = NULL;

  if (driver == NULL)
    {
      g_test_skip ("REGLOC_LOOKUP_DRIVER is not set: meson test sets it");
      return;
    }
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           driver, "lookup", "47.6969", "8.6903", "--json", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_nonnull (strstr (out, "\"country\": \"DE\""));
  g_assert_nonnull (strstr (out, "\"neighbour\": \"CH\""));
  g_assert_nonnull (strstr (out, "\"border_area\": false"));
  g_clear_object (&proc);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* In the strip the data leaves in the Rhine at Basel: a border area. */
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           driver, "lookup", "47.5896", "7.5888", "--json", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_nonnull (strstr (out, "\"country\": \"FR\""));
  g_assert_nonnull (strstr (out, "\"neighbour\": \"CH\""));
  g_assert_nonnull (strstr (out, "\"border_area\": true"));
  g_clear_object (&proc);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* A negative latitude is a coordinate, not an option. */
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           driver, "lookup", "-33.8568", "151.2153", NULL);
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_true (g_str_has_prefix (out, "country: AU"));
  g_clear_object (&proc);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           driver, "lookup", "95", "0", NULL);
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 2);
  g_assert_true (g_str_has_prefix (err, "regloc lookup: error:"));
  g_clear_object (&proc);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           driver, "lookup", "--index", "/nonexistent.idx", "1", "2", NULL);
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 1);
  g_assert_true (g_str_has_prefix (err, "regloc lookup: error:"));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  index_ = rl_boundary_index_open (index_path (), &error);
  if (index_ == NULL)
    {
      g_printerr ("cannot open the boundary index (%s): %s\n", index_path (), error->message);
      return 1;
    }
  g_test_add_func ("/boundary/labelled", test_labelled);
  g_test_add_func ("/boundary/bad-coordinates", test_bad_coordinates);
  g_test_add_func ("/boundary/border-distance", test_border_distance);
  g_test_add_func ("/boundary/sea-edges", test_sea_edges);
  g_test_add_func ("/boundary/enclave-border", test_enclave_border);
  g_test_add_func ("/boundary/border-past-inner-edges", test_border_past_inner_edges);
  g_test_add_func ("/boundary/distance-rings", test_distance_rings);
  g_test_add_func ("/boundary/seams-and-poles", test_seams_and_poles);
  g_test_add_func ("/boundary/gaps", test_gaps);
  g_test_add_func ("/boundary/round-trip", test_round_trip);
  g_test_add_func ("/boundary/shortcuts", test_shortcuts);
  g_test_add_func ("/boundary/many", test_many);
  g_test_add_func ("/boundary/corrupt", test_corrupt);
  g_test_add_func ("/boundary/corrupt-leaves", test_corrupt_leaves);
  g_test_add_func ("/boundary/from-bytes", test_from_bytes);
  g_test_add_func ("/boundary/cli-bulk", test_cli_bulk);
  g_test_add_func ("/boundary/cli-single", test_cli_single);
  ret = g_test_run ();
  rl_boundary_index_free (index_);
  return ret;
}
