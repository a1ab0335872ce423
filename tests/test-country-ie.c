/* The Country element parser on captured element bytes (docs/design.md §9). */
#include <string.h>
#include "readers/country-ie.h"
#include "readers/nl80211-scan.h"

/* A home router in Germany: SSID, rates, DS, then 'DE ' with 2.4 GHz
 * channels 1-13 at 20 dBm and the three 5 GHz subbands, padded to even. */
static const guint8 ies_de_router[] = {
  0x00, 0x08, 'F', 'R', 'I', 'T', 'Z', '!', 'B', 'x',
  0x01, 0x08, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24,
  0x03, 0x01, 0x06,
  0x07, 0x10, 'D', 'E', ' ', 0x01, 0x0d, 0x14, 0x24, 0x04, 0x17, 0x34, 0x04, 0x14, 0x64, 0x0b, 0x1b, 0x00,
  0x2a, 0x01, 0x00,
};

/* An enterprise AP using global operating classes (environment 0x04). */
static const guint8 ies_us_opclass[] = {
  0x00, 0x04, 'c', 'o', 'r', 'p',
  0x07, 0x0a, 'U', 'S', 0x04, 0xc9, 0x51, 0x00, 0xc9, 0x73, 0x00, 0x00,
};

/* The Country element claims 16 bytes, the frame ends after 9. */
static const guint8 ies_truncated[] = {
  0x00, 0x02, 'a', 'p',
  0x07, 0x10, 'D', 'E', ' ', 0x01, 0x0d, 0x14, 0x24, 0x04, 0x17,
};

static void
test_de_router (void)
{
  RlCountryIe ie;
  g_assert_cmpint (rl_country_ie_find (ies_de_router, sizeof ies_de_router, &ie), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpuint (ie.country, ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpint (ie.environment, ==, ' ');
  g_assert_cmpuint (ie.n_triplets, ==, 4);
  g_assert_cmpint (ie.triplets[0].kind, ==, RL_TRIPLET_SUBBAND);
  g_assert_cmpuint (ie.triplets[0].a, ==, 1);
  g_assert_cmpuint (ie.triplets[0].b, ==, 13);
  g_assert_cmpint (ie.triplets[0].max_power_dbm, ==, 20);
  g_assert_cmpuint (ie.triplets[3].a, ==, 100);
  g_assert_cmpuint (ie.triplets[3].b, ==, 11);
  g_assert_cmpint (ie.triplets[3].max_power_dbm, ==, 27);

  char ssid[33];
  rl_ies_ssid (ies_de_router, sizeof ies_de_router, ssid);
  g_assert_cmpstr (ssid, ==, "FRITZ!Bx");
}

static void
test_operating_class (void)
{
  RlCountryIe ie;
  char buf[64];
  g_assert_cmpint (rl_country_ie_find (ies_us_opclass, sizeof ies_us_opclass, &ie), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpuint (ie.country, ==, RL_COUNTRY ('U', 'S'));
  g_assert_cmpint (ie.environment, ==, 0x04);
  g_assert_cmpstr (rl_country_ie_environment_to_string (ie.environment, buf, sizeof buf), ==,
                   "table 4 (global operating classes)");
  g_assert_cmpuint (ie.n_triplets, ==, 2);
  g_assert_cmpint (ie.triplets[0].kind, ==, RL_TRIPLET_OPERATING_CLASS);
  g_assert_cmpuint (ie.triplets[0].a, ==, 201);
  g_assert_cmpuint (ie.triplets[0].b, ==, 81);
  g_assert_cmpuint (ie.triplets[1].b, ==, 115);
}

static void
test_truncated (void)
{
  RlCountryIe ie;
  g_assert_cmpint (rl_country_ie_find (ies_truncated, sizeof ies_truncated, &ie), ==, RL_COUNTRY_IE_TRUNCATED);
  g_assert_cmpuint (ie.country, ==, RL_COUNTRY_NONE);
  /* every shorter cut of a good stream: never a crash, never a wrong country */
  for (gsize n = 0; n < sizeof ies_de_router; n++)
    {
      RlCountryIeResult r = rl_country_ie_find (ies_de_router, n, &ie);
      g_assert_true (r == RL_COUNTRY_IE_ABSENT || r == RL_COUNTRY_IE_TRUNCATED || r == RL_COUNTRY_IE_OK);
      if (r == RL_COUNTRY_IE_OK)
        g_assert_cmpuint (ie.country, ==, RL_COUNTRY ('D', 'E'));
      /* the country element ends at byte 41 */
      g_assert_true ((r == RL_COUNTRY_IE_OK) == (n >= 41));
    }
}

typedef struct {
  const char *name;
  guint8 body[12];
  gsize len;
  RlCountryIeResult want;
  RlCountry country;
} BodyCase;

static void
test_bodies (void)
{
  static const BodyCase cases[] = {
    { "minimal", { 'F', 'R', ' ', 1, 13, 20 }, 6, RL_COUNTRY_IE_OK, RL_COUNTRY ('F', 'R') },
    { "indoor", { 'G', 'B', 'I', 1, 13, 20 }, 6, RL_COUNTRY_IE_OK, RL_COUNTRY ('G', 'B') },
    { "lower case", { 'd', 'e', 'O', 1, 13, 20 }, 6, RL_COUNTRY_IE_OK, RL_COUNTRY ('D', 'E') },
    { "short", { 'D', 'E', ' ', 1 }, 4, RL_COUNTRY_IE_SHORT, 0 },
    { "empty", { 0 }, 0, RL_COUNTRY_IE_SHORT, 0 },
    { "odd", { 'D', 'E', ' ', 1, 13, 20, 36 }, 7, RL_COUNTRY_IE_ODD_LENGTH, 0 },
    { "XX", { 'X', 'X', ' ', 1, 13, 20 }, 6, RL_COUNTRY_IE_NOT_A_COUNTRY, 0 },
    { "00", { '0', '0', ' ', 1, 13, 20 }, 6, RL_COUNTRY_IE_NOT_A_COUNTRY, 0 },
    { "digits", { 'D', '1', ' ', 1, 13, 20 }, 6, RL_COUNTRY_IE_NOT_A_COUNTRY, 0 },
    { "NUL", { 0, 0, ' ', 1, 13, 20 }, 6, RL_COUNTRY_IE_NOT_A_COUNTRY, 0 },
    { "non-country entity", { 'D', 'E', 'X', 1, 13, 20 }, 6, RL_COUNTRY_IE_NON_COUNTRY_ENV, 0 },
    { "signed power", { 'J', 'P', ' ', 1, 14, 0xfe, 0, 0, 0 }, 10, RL_COUNTRY_IE_OK, RL_COUNTRY ('J', 'P') },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RlCountryIe ie;
      g_test_message ("case %s", cases[i].name);
      g_assert_cmpint (rl_country_ie_parse_body (cases[i].body, cases[i].len, &ie), ==, cases[i].want);
      g_assert_cmpuint (ie.country, ==, cases[i].country);
    }
  RlCountryIe ie;
  rl_country_ie_parse_body (cases[11].body, cases[11].len, &ie);
  g_assert_cmpint (ie.triplets[0].max_power_dbm, ==, -2);
  /* 3 + 6 + 1 pad: two triplets, the pad byte is not a third */
  g_assert_cmpuint (ie.n_triplets, ==, 2);
}

static void
test_no_country (void)
{
  static const guint8 ies[] = { 0x00, 0x03, 'a', 'b', 'c', 0x03, 0x01, 0x01 };
  RlCountryIe ie;
  g_assert_cmpint (rl_country_ie_find (ies, sizeof ies, &ie), ==, RL_COUNTRY_IE_ABSENT);
  g_assert_cmpint (rl_country_ie_find (NULL, 0, &ie), ==, RL_COUNTRY_IE_ABSENT);
  g_assert_cmpstr (rl_country_ie_result_to_string (RL_COUNTRY_IE_TRUNCATED), ==, "ies_truncated");
}

/* The kernel reads the first Country element; a frame whose second one
 * names another country gets no vote (a broken or forged frame), the
 * same element twice does. */
static void
test_two_elements (void)
{
  static const guint8 de_fr[] = { 0x07, 0x06, 'D', 'E', ' ', 1, 13, 20, 0x07, 0x06, 'F', 'R', ' ', 1, 13, 20 };
  static const guint8 de_de[] = { 0x07, 0x06, 'D', 'E', ' ', 1, 13, 20, 0x00, 0x00, 0x07, 0x06, 'd', 'e', 'I', 1, 13, 20 };
  static const guint8 de_short[] = { 0x07, 0x06, 'D', 'E', ' ', 1, 13, 20, 0x07, 0x00 };
  RlCountryIe ie;

  g_assert_cmpint (rl_country_ie_find (de_fr, sizeof de_fr, &ie), ==, RL_COUNTRY_IE_TWO_COUNTRIES);
  g_assert_cmpuint (ie.country, ==, 0);
  g_assert_cmpstr (rl_country_ie_result_to_string (RL_COUNTRY_IE_TWO_COUNTRIES), ==, "two_countries");
  g_assert_cmpint (rl_country_ie_find (de_de, sizeof de_de, &ie), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpuint (ie.country, ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpint (rl_country_ie_find (de_short, sizeof de_short, &ie), ==, RL_COUNTRY_IE_TWO_COUNTRIES);
}

static void
test_hidden_ssid (void)
{
  static const guint8 ies[] = { 0x00, 0x04, 0, 0, 0, 0 };
  static const guint8 odd[] = { 0x00, 0x03, 'a', 0x01, 'b' };
  char ssid[33];
  rl_ies_ssid (ies, sizeof ies, ssid);
  g_assert_cmpstr (ssid, ==, "");
  rl_ies_ssid (odd, sizeof odd, ssid);
  g_assert_cmpstr (ssid, ==, "a?b");
}

static void
test_evidence (void)
{
  static const guint8 bssid[6] = { 0x3c, 0x84, 0x6a, 0x01, 0x02, 0x03 };
  RlEvidence ev;
  gint64 t = G_GINT64_CONSTANT (1700000000) * RL_USEC_PER_SEC;

  g_assert_cmpint (rl_beacon_evidence_build (&ev, bssid, -5500, 2437, ies_de_router, sizeof ies_de_router,
                                             NULL, 0, t, 900), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpstr (ev.key, ==, "beacon:3c:84:6a:01:02:03");
  g_assert_cmpint (ev.kind, ==, RL_SOURCE_BEACON);
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_cmpuint (ev.countries[0], ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpint (ev.expires_at, ==, t + 900 * RL_USEC_PER_SEC);
  g_assert_cmpstr (ev.beacon.ssid, ==, "FRITZ!Bx");
  g_assert_cmpint (ev.beacon.signal_mbm, ==, -5500);
  g_assert_cmpuint (ev.beacon.freq_mhz, ==, 2437);
  g_assert_cmpint (ev.beacon.environment, ==, ' ');
  g_assert_nonnull (strstr (ev.detail, "IE 'DE '"));

  /* a probe response without the element: the beacon's elements count */
  static const guint8 presp[] = { 0x00, 0x02, 'x', 'y' };
  g_assert_cmpint (rl_beacon_evidence_build (&ev, bssid, 0, 5180, presp, sizeof presp,
                                             ies_us_opclass, sizeof ies_us_opclass, t, 0), ==, RL_COUNTRY_IE_OK);
  g_assert_cmpuint (ev.countries[0], ==, RL_COUNTRY ('U', 'S'));
  g_assert_cmpint (ev.expires_at, ==, RL_NEVER);
  g_assert_cmpint (rl_beacon_evidence_build (&ev, bssid, 0, 5180, presp, sizeof presp, NULL, 0, t, 0), ==,
                   RL_COUNTRY_IE_ABSENT);
}

static void
test_bssid (void)
{
  guint8 b[6];
  char s[18];
  g_assert_true (rl_bssid_parse ("3C:84:6a:01:02:ff", b));
  rl_bssid_to_string (b, s);
  g_assert_cmpstr (s, ==, "3c:84:6a:01:02:ff");
  g_assert_false (rl_bssid_parse ("3c:84:6a:01:02", b));
  g_assert_false (rl_bssid_parse ("3c:84:6a:01:02:fg", b));
  g_assert_false (rl_bssid_parse (NULL, b));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/country-ie/de-router", test_de_router);
  g_test_add_func ("/country-ie/operating-class", test_operating_class);
  g_test_add_func ("/country-ie/truncated", test_truncated);
  g_test_add_func ("/country-ie/bodies", test_bodies);
  g_test_add_func ("/country-ie/no-country", test_no_country);
  g_test_add_func ("/country-ie/two-elements", test_two_elements);
  g_test_add_func ("/country-ie/hidden-ssid", test_hidden_ssid);
  g_test_add_func ("/country-ie/evidence", test_evidence);
  g_test_add_func ("/country-ie/bssid", test_bssid);
  return g_test_run ();
}
