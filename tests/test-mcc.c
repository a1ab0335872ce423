/* Mobile country codes: the serviceproviders.xml reader (readers/mcc.c),
 * the code parsers, and what a cell item weighs in the policy. */
#include "readers/mcc.h"
#include "core/neighbours.h"
#include "core/policy.h"
#include "readers/scanlog.h"

#include <stdio.h>
#include <string.h>

#define CC(s) RL_COUNTRY ((s)[0], (s)[1])
#define NOW_FOR_LOG (G_GINT64_CONSTANT (1773128700) * RL_USEC_PER_SEC + 250000)

static RlMccTable *
load_fixture (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "mcc", "serviceproviders.xml", NULL);
  g_autoptr (GError) error = NULL;
  RlMccTable *t = rl_mcc_table_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (t);
  return t;
}

static char *
lookup (const RlMccTable *t, guint mcc, const char *mnc)
{
  RlCountry out[RL_MAX_CANDIDATES];
  guint n = rl_mcc_table_lookup (t, mcc, mnc, out);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      char cc[3];
      g_string_append_printf (s, "%s%s", i ? "," : "", rl_country_to_string (out[i], cc));
    }
  return g_string_free (s, FALSE);
}

#define ASSERT_LOOKUP(t, mcc, mnc, want) \
  do { g_autofree char *got_ = lookup ((t), (mcc), (mnc)); g_assert_cmpstr (got_, ==, (want)); } while (0)

static void
test_fixture_table (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();
  const RlMccStats *st = rl_mcc_table_stats (t);

  g_assert_cmpuint (st->networks, ==, 13);
  g_assert_cmpuint (st->skipped_bad_code, ==, 4);
  g_assert_cmpuint (st->skipped_bad_country, ==, 1);     /* code="int" */
  g_assert_cmpuint (st->skipped_no_country_mcc, ==, 2);  /* 901-18, 001-01 */
  g_assert_cmpuint (st->skipped_no_country, ==, 1);      /* a provider outside <country> */
  g_assert_cmpuint (rl_mcc_table_n_codes (t), ==, 8);    /* 262 204 234 238 310 330 334 338 */

  ASSERT_LOOKUP (t, 262, "01", "DE");
  ASSERT_LOOKUP (t, 262, NULL, "DE");
  ASSERT_LOOKUP (t, 262, "99", "DE");      /* an unlisted network of a known MCC */
  ASSERT_LOOKUP (t, 204, "04", "NL");
  /* one MCC, several countries: all of them, unless the network is listed */
  ASSERT_LOOKUP (t, 234, "", "GB,JE");
  ASSERT_LOOKUP (t, 234, "50", "JE");
  ASSERT_LOOKUP (t, 234, "15", "GB");
  ASSERT_LOOKUP (t, 310, "410", "PR,US");
  ASSERT_LOOKUP (t, 310, "260", "PR,US");
  /* "01" and "001" are different networks */
  ASSERT_LOOKUP (t, 262, "001", "DE");
  /* international, test, unknown: nothing */
  ASSERT_LOOKUP (t, 901, "18", "");
  ASSERT_LOOKUP (t, 1, "01", "");
  ASSERT_LOOKUP (t, 999, "99", "");
  ASSERT_LOOKUP (t, 208, "10", "");
}

static void
test_bad_documents (void)
{
  static const char *const bad[] = {
    "", "not xml", "<serviceproviders>", "<other><country code=\"de\"/></other>",
    "<serviceproviders><country code=\"de\"><provider/></country></serviceproviders>",
    "<serviceproviders><country code=\"1x\"><network-id mcc=\"262\" mnc=\"01\"/></country></serviceproviders>",
    "<serviceproviders><country code=\"de\"><network-id mcc=\"901\" mnc=\"01\"/></country></serviceproviders>",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RlMccTable) t = rl_mcc_table_parse (bad[i], strlen (bad[i]), &error);
      g_assert_null (t);
      g_assert_nonnull (error);
    }
  {
    /* a valid network inside elements nested past the limit: refused whole */
    g_autoptr (GString) deep = g_string_new ("<serviceproviders><country code=\"de\">"
                                             "<network-id mcc=\"262\" mnc=\"01\"/>");
    g_autoptr (GError) error = NULL;
    for (int i = 0; i < 300; i++)
      g_string_append (deep, "<p>");
    for (int i = 0; i < 300; i++)
      g_string_append (deep, "</p>");
    g_string_append (deep, "</country></serviceproviders>");
    g_assert_null (rl_mcc_table_parse (deep->str, deep->len, &error));
    g_assert_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE);
  }
  {
    /* not UTF-8, an unknown entity, a truncated end tag */
    static const char *const broken[] = {
      "<serviceproviders><country code=\"de\"><network-id mcc=\"262\" mnc=\"01\"/>\xff</country></serviceproviders>",
      "<serviceproviders><country code=\"de&nbsp;\"><network-id mcc=\"262\" mnc=\"01\"/></country></serviceproviders>",
      "<serviceproviders><country code=\"de\"><network-id mcc=\"262\" mnc=\"01\"/></country></servicepro",
    };
    for (gsize i = 0; i < G_N_ELEMENTS (broken); i++)
      {
        g_autoptr (GError) error = NULL;
        g_assert_null (rl_mcc_table_parse (broken[i], strlen (broken[i]), &error));
        g_assert_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE);
      }
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_null (rl_mcc_table_load ("/nonexistent/serviceproviders.xml", &error));
    g_assert_error (error, RL_MCC_ERROR, RL_MCC_ERROR_READ);
  }
}

static void
test_system_file (void)
{
  const char *path = "/usr/share/mobile-broadband-provider-info/serviceproviders.xml";
  g_autoptr (GError) error = NULL;
  g_autoptr (RlMccTable) t = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("mobile-broadband-provider-info is not installed");
      return;
    }
  t = rl_mcc_table_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rl_mcc_table_n_codes (t), >, 100);
  ASSERT_LOOKUP (t, 262, "01", "DE");
  ASSERT_LOOKUP (t, 204, "08", "NL");
  ASSERT_LOOKUP (t, 228, "01", "CH");
  ASSERT_LOOKUP (t, 901, "", "");
}

static void
test_code_parsers (void)
{
  guint mcc = 0;
  char mnc[4];

  g_assert_true (rl_mcc_parse_operator_code ("26201", &mcc, mnc));
  g_assert_cmpuint (mcc, ==, 262);
  g_assert_cmpstr (mnc, ==, "01");
  g_assert_true (rl_mcc_parse_operator_code ("310410", &mcc, mnc));
  g_assert_cmpuint (mcc, ==, 310);
  g_assert_cmpstr (mnc, ==, "410");
  for (const char *const *bad = (const char *const[]) { "", "2620", "2620112", "2620a", " 26201", NULL }; *bad; bad++)
    g_assert_false (rl_mcc_parse_operator_code (*bad, &mcc, mnc));

  g_assert_true (rl_mcc_parse_network ("204", &mcc, mnc));
  g_assert_cmpuint (mcc, ==, 204);
  g_assert_cmpstr (mnc, ==, "");
  g_assert_true (rl_mcc_parse_network ("204-08", &mcc, mnc));
  g_assert_cmpstr (mnc, ==, "08");
  for (const char *const *bad = (const char *const[]) { "20", "2044", "204-", "204-8", "204-0808", "-08", "a04-08", NULL }; *bad; bad++)
    g_assert_false (rl_mcc_parse_network (*bad, &mcc, mnc));

  g_assert_true (rl_mcc_parse_3gpp_location ("262,01,7D2,1A2B3C4", &mcc, mnc));
  g_assert_cmpuint (mcc, ==, 262);
  g_assert_cmpstr (mnc, ==, "01");
  g_assert_true (rl_mcc_parse_3gpp_location ("204,08,FFFE,C0FFEE,3A", &mcc, mnc));
  g_assert_cmpuint (mcc, ==, 204);
  for (const char *const *bad = (const char *const[]) { "", "262,01", "262,01,7D2", "262,1,7D2,1", "262,01,,1",
                                                        "262,01,XYZ,1", "262,01,1,2,3,4", NULL }; *bad; bad++)
    g_assert_false (rl_mcc_parse_3gpp_location (*bad, &mcc, mnc));
}

static void
test_scanlog_cell_records (void)
{
  RlScanLogCell c;
  g_autoptr (GError) error = NULL;
  g_autofree char *line = rl_scanlog_format_cell (NOW_FOR_LOG, "0", TRUE, 204, "08");
  g_autofree char *lost = rl_scanlog_format_cell (NOW_FOR_LOG + 1, "1", FALSE, 0, NULL);
  static const char *const bad[] = {
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":{\"mcc\":26}}",
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":{\"mcc\":\"2620\"}}",
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":{\"mcc\":\"262\",\"mnc\":\"1\"}}",
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":{\"modem\":\"../0\",\"mcc\":\"262\"}}",
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":{}}",
    "{\"time\":\"2026-03-10T07:45:00Z\",\"cell\":[]}",
    "{\"time\":\"yesterday\",\"cell\":{\"mcc\":\"262\"}}",
  };

  g_assert_true (rl_scanlog_parse_cell (line, -1, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpint (c.time, ==, NOW_FOR_LOG);
  g_assert_cmpstr (c.modem, ==, "0");
  g_assert_true (c.registered);
  g_assert_cmpuint (c.mcc, ==, 204);
  g_assert_cmpstr (c.mnc, ==, "08");
  g_assert_true (rl_scanlog_parse_cell (lost, -1, &c, &error));
  g_assert_false (c.registered);
  g_assert_cmpstr (c.modem, ==, "1");
  /* a BSS line is no cell record, and no error */
  g_assert_false (rl_scanlog_parse_cell ("{\"time\":\"2026-03-10T07:45:00Z\",\"bssid\":\"3c:a6:2f:00:00:01\",\"ies\":\"\"}",
                                         -1, &c, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_assert_false (rl_scanlog_parse_cell (bad[i], -1, &c, &e));
      g_assert_nonnull (e);
    }
}

/* --- the policy --------------------------------------------------------- */

#define NOW (G_GINT64_CONSTANT (1767225600) * RL_USEC_PER_SEC)

static void
add_cell (GArray *a, const RlMccTable *t, const char *key, guint mcc, const char *mnc)
{
  RlEvidence ev;

  g_assert_true (rl_mcc_evidence (t, key, mcc, mnc, NOW - RL_USEC_PER_SEC, RL_NEVER, &ev));
  g_assert_cmpint (ev.kind, ==, RL_SOURCE_CELL);
  g_array_append_val (a, ev);
}

static void
add_simple (GArray *a, RlSourceKind kind, const char *key, const char *countries)
{
  g_auto (GStrv) list = g_strsplit (countries, ",", -1);
  RlEvidence ev;

  rl_evidence_init (&ev, kind, key, NOW - RL_USEC_PER_SEC, RL_NEVER);
  for (guint i = 0; list[i]; i++)
    rl_evidence_add_country (&ev, CC (list[i]));
  ev.gps.error_m = 10;
  ev.gps.border_m = 5000;
  g_array_append_val (a, ev);
}

static void
add_ap (GArray *a, const char *bssid, const char *cc, const char *ssid, guint32 mhz)
{
  RlEvidence ev;
  g_autofree char *key = g_strdup_printf ("beacon:%s", bssid);

  rl_evidence_init (&ev, RL_SOURCE_BEACON, key, NOW - RL_USEC_PER_SEC, RL_NEVER);
  rl_evidence_add_country (&ev, CC (cc));
  g_assert_cmpint (sscanf (bssid, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &ev.beacon.bssid[0], &ev.beacon.bssid[1],
                           &ev.beacon.bssid[2], &ev.beacon.bssid[3], &ev.beacon.bssid[4], &ev.beacon.bssid[5]), ==, 6);
  g_strlcpy (ev.beacon.ssid, ssid, sizeof ev.beacon.ssid);
  ev.beacon.freq_mhz = mhz;
  g_array_append_val (a, ev);
}

static void
add_beacons (GArray *a, const char *cc, guint n)
{
  /* n APs of n operators */
  static const char *const ouis[] = { "3c:a6:2f", "00:1f:3f", "f4:ca:e5", "00:0d:b9", "44:4e:6d" };

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *bssid = g_strdup_printf ("%s:10:00:%02x", ouis[i % G_N_ELEMENTS (ouis)], i);
      g_autofree char *ssid = g_strdup_printf ("net-%u", i);
      add_ap (a, bssid, cc, ssid, 2412);
    }
}

/* One operator's network: @n devices of one SSID on @n channels. */
static void
add_network (GArray *a, const char *cc, const char *ssid, guint n)
{
  static const guint32 chan[] = { 2412, 2437, 2462, 5180, 5220, 5260 };

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *bssid = g_strdup_printf ("24:5a:4c:10:%02x:10", 0x20 + i);
      add_ap (a, bssid, cc, ssid, chan[i % G_N_ELEMENTS (chan)]);
    }
}

static RlDecision *
decide (GArray *a)
{
  RlPolicyParams p;

  rl_policy_params_init (&p);
  p.hold_down_s = 0;
  p.hold_down_unheard_s = 0;   /* no scan to wait for: decided at once */
  return rl_policy_decide (&p, NULL, NULL, NULL, (const RlEvidence *) a->data, a->len, NULL, NOW);
}

/* Rule 12: a trusted fix whose circle does not reach the network's country
 * makes the cell no witness for it.  A Strasbourg resident on the Rhine
 * bank, fix ±6 m 64 m inside France, the modem still on Vodafone DE's Kehl
 * mast, three German routers of two operators across the river. */
static void
test_policy_fix_outside (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));

  add_cell (a, t, "cell:0", 262, "02");
  add_simple (a, RL_SOURCE_GPS, "gps", "FR,DE");
  g_array_index (a, RlEvidence, 1).gps.error_m = 6;
  g_array_index (a, RlEvidence, 1).gps.border_m = 64;
  add_ap (a, "3c:a6:2f:4d:10:20", "DE", "FRITZ!Box 7590 KQ", 2437);
  add_ap (a, "3c:a6:2f:4d:10:21", "DE", "FRITZ!Box 7590 KQ", 5180);
  add_ap (a, "a4:91:b1:77:20:30", "DE", "Vodafone-99B7", 2412);
  {
    g_autoptr (RlDecision) d = decide (a);
    const RlCandidate *de = NULL;
    for (guint i = 0; i < d->candidates->len; i++)
      if (g_array_index (d->candidates, RlCandidate, i).country == CC ("DE"))
        de = &g_array_index (d->candidates, RlCandidate, i);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
    g_assert_nonnull (de);
    g_assert_true (de->cell);
    g_assert_cmpuint (de->witnesses, ==, 1);     /* the routers only: the fix is dissent */
    g_test_message ("%s", d->explanation);
  }
  /* the border inside the circle (±80 m): the fix names DE too, the mast
   * may serve the machine there, and the cell confirms DE again */
  g_array_index (a, RlEvidence, 1).gps.error_m = 80;
  {
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
  }
}

static void
test_policy_cell (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();

  /* a cell alone: one witness, never decides */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "01");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
    g_assert_cmpint (d->reason, ==, RL_REASON_SINGLE_WITNESS);
  }
  /* two modems on the same country's networks: still one witness */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "01");
    add_cell (a, t, "cell:1", 262, "02");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
  }
  /* cell + timezone: two witnesses, 1 - 0.3 × 0.6 = 0.82 → decided (like 3 APs + timezone) */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "01");
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "DE");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
    g_assert_cmpfloat_with_epsilon (d->confidence, 0.82, 1e-9);
    g_assert_nonnull (strstr (d->explanation, "mobile network"));
  }
  /* cell + GPS fix */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 204, "08");
    add_simple (a, RL_SOURCE_GPS, "gps", "NL");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("NL"));
  }
  /* a Dutch cell heard across the border from Germany is no conflict, and
   * GPS + access points in DE decide DE */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 204, "04");
    add_simple (a, RL_SOURCE_GPS, "gps", "DE");
    add_beacons (a, "DE", 2);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
  }
  /* … and a Dutch cell + Dutch timezone against a German beacon consensus
   * (4 APs, 3 operators: two witnesses, 0.91) → DE, never a conflict */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 204, "04");
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "NL");
    add_beacons (a, "DE", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
  }
  /* an MCC of several countries confirms, never decides: with the
   * timezone (confirming too) nothing is decided */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 234, NULL);
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "GB");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
    const RlCandidate *c = &g_array_index (d->candidates, RlCandidate, 0);
    g_assert_cmpuint (c->country, ==, CC ("GB"));
    g_assert_true (c->cell && c->cell_ambiguous);
    g_assert_cmpuint (c->deciding, ==, 0);
  }
  /* … but with a GPS fix naming one of them, two witnesses */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 234, NULL);
    add_simple (a, RL_SOURCE_GPS, "gps", "GB");
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("GB"));
  }
}

/* Rule 12: a network of several access points is installed in the place:
 * beside it, a SIM on a mast across the border only confirms, though the
 * visitors' own routers outvote the place's (one network, one vote).  A
 * Dutch family's caravan on a German campsite by the border: three Dutch
 * routers, the campsite's network on five access points and a German box,
 * the Dutch SIM, a Dutch clock. */
static void
test_policy_cell_beside_network (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));

  add_cell (a, t, "cell:0", 204, "04");
  add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "NL");
  add_beacons (a, "NL", 3);
  {
    /* the Dutch routers alone: the cell decides, the clock confirms */
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("NL"));
  }
  add_network (a, "DE", "Campingplatz-Gast", 5);
  add_ap (a, "e0:28:6d:61:00:11", "DE", "MagentaWLAN-6100", 2437);   /* the reception's box */
  {
    g_autoptr (RlDecision) d = decide (a);
    const RlCandidate *nl = &g_array_index (d->candidates, RlCandidate, 0);
    g_test_message ("%s", d->explanation);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
    g_assert_cmpuint (nl->country, ==, CC ("NL"));
    g_assert_cmpuint (nl->deciding, ==, 0);
    g_assert_nonnull (strstr (d->explanation, "but access points here say DE (the two countries touch: a mast across the border may reach the machine)"));
  }
}

/* Rule 12: a network the list does not carry, of a code it knows, names
 * no country: ITU gives some codes to several countries (425: IL and PS,
 * where the list carries Israel's networks only).  It conflicts with
 * access points out of reach of the code's countries. */
static void
test_policy_unlisted_network (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();
  RlEvidence ev;

  g_assert_true (rl_mcc_evidence (t, "cell:0", 262, "99", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unlisted);
  g_assert_false (ev.cell.unknown);
  g_assert_cmpuint (ev.n_countries, ==, 0);
  g_assert_cmpuint (ev.cell.n_near, ==, 1);
  g_assert_cmpuint (ev.cell.near[0], ==, CC ("DE"));
  /* a listed one, and a code without a network, name the country */
  g_assert_true (rl_mcc_evidence (t, "cell:0", 262, "02", NOW, RL_NEVER, &ev));
  g_assert_false (ev.cell.unlisted);
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_true (rl_mcc_evidence (t, "cell:0", 262, NULL, NOW, RL_NEVER, &ev));
  g_assert_false (ev.cell.unlisted);
  g_assert_cmpuint (ev.n_countries, ==, 1);
  /* the list writes Mexico's three-digit MNCs with two digits (Telcel,
   * 334-020, as "02"): a modem's "020" is that network, "021" is not;
   * where the list writes three digits (Digicel Jamaica, 338-050), a
   * modem's "05" is "050"; a code whose MNCs the list writes in both
   * lengths (310 here: "410" and "26") is looked up as given. */
  g_assert_true (rl_mcc_evidence (t, "cell:0", 334, "020", NOW, RL_NEVER, &ev));
  g_assert_false (ev.cell.unlisted);
  g_assert_cmpuint (ev.n_countries, ==, 1);
  g_assert_cmpuint (ev.countries[0], ==, CC ("MX"));
  g_assert_true (rl_mcc_evidence (t, "cell:0", 334, "021", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unlisted);
  g_assert_true (rl_mcc_evidence (t, "cell:0", 338, "05", NOW, RL_NEVER, &ev));
  g_assert_false (ev.cell.unlisted);
  g_assert_cmpuint (ev.countries[0], ==, CC ("JM"));
  g_assert_true (rl_mcc_evidence (t, "cell:0", 338, "06", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unlisted);
  g_assert_true (rl_mcc_evidence (t, "cell:0", 310, "260", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unlisted);
  g_assert_true (rl_mcc_evidence (t, "cell:0", 310, "41", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unlisted);
  /* two German routers and a German clock: the unlisted network is no
   * second witness (a listed one is) */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "99");
    add_beacons (a, "DE", 2);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_WORLD);
    g_assert_cmpint (d->reason, ==, RL_REASON_SINGLE_WITNESS);
  }
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "02");
    add_beacons (a, "DE", 2);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
  }
  /* out of reach of Germany: a conflict, and the text says why */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 262, "99");
    add_beacons (a, "US", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_CONFLICT);
    g_assert_nonnull (strstr (d->explanation, "262-99, which the provider list does not carry; its code is listed for DE"));
  }
}

/* Which countries' masts reach each other: the table generated from the
 * shipped boundary data (tools/neighbours.py). */
static void
test_neighbours (void)
{
  /* by land, by sea (Øresund, the Channel, the Strait of Gibraltar, the
   * Irish Sea), around a territory inside its sovereign's feature */
  g_assert_true (rl_countries_within_reach (CC ("DE"), CC ("NL")));
  g_assert_true (rl_countries_within_reach (CC ("DK"), CC ("SE")));
  g_assert_true (rl_countries_within_reach (CC ("GB"), CC ("FR")));
  g_assert_true (rl_countries_within_reach (CC ("ES"), CC ("MA")));
  g_assert_true (rl_countries_within_reach (CC ("IM"), CC ("GB")));
  g_assert_true (rl_countries_within_reach (CC ("HK"), CC ("CN")));
  g_assert_true (rl_countries_within_reach (CC ("CH"), CC ("LI")));
  g_assert_true (rl_countries_within_reach (CC ("GL"), CC ("CA")));
  /* symmetric, and a country reaches itself */
  g_assert_true (rl_countries_within_reach (CC ("NL"), CC ("DE")));
  g_assert_true (rl_countries_within_reach (CC ("MT"), CC ("MT")));
  /* not: Greenland and the Faroes from Denmark, Germany from Italy (the
   * Alps between), Malta from Sicily (80 km of sea), Korea from the US */
  g_assert_false (rl_countries_within_reach (CC ("DK"), CC ("GL")));
  g_assert_false (rl_countries_within_reach (CC ("FO"), CC ("DK")));
  g_assert_false (rl_countries_within_reach (CC ("DE"), CC ("IT")));
  g_assert_false (rl_countries_within_reach (CC ("MT"), CC ("IT")));
  g_assert_false (rl_countries_within_reach (CC ("KR"), CC ("US")));
  /* where one touches a sovereign only through one of its territories:
   * Brazil and Suriname touch France only in French Guiana, Canada only at
   * Saint-Pierre-et-Miquelon; Spain, Germany and Brazil's own neighbours
   * touch directly or not at all, Dominica two territories */
  g_assert_cmpuint (rl_neighbours_only_through (CC ("BR"), CC ("FR")), ==, CC ("GF"));
  g_assert_cmpuint (rl_neighbours_only_through (CC ("SR"), CC ("FR")), ==, CC ("GF"));
  g_assert_cmpuint (rl_neighbours_only_through (CC ("CA"), CC ("FR")), ==, CC ("PM"));
  g_assert_cmpuint (rl_neighbours_only_through (CC ("ES"), CC ("FR")), ==, RL_COUNTRY_NONE);
  g_assert_cmpuint (rl_neighbours_only_through (CC ("DE"), CC ("FR")), ==, RL_COUNTRY_NONE);
  g_assert_cmpuint (rl_neighbours_only_through (CC ("FR"), CC ("BR")), ==, RL_COUNTRY_NONE);
  g_assert_cmpuint (rl_neighbours_only_through (CC ("AR"), CC ("BR")), ==, RL_COUNTRY_NONE);
  g_assert_cmpuint (rl_neighbours_only_through (CC ("DM"), CC ("FR")), ==, RL_COUNTRY_NONE);
  g_assert_cmpuint (rl_neighbours_only_through (CC ("MX"), CC ("US")), ==, RL_COUNTRY_NONE);
  /* a code the data does not know: no claim */
  g_assert_true (rl_neighbours_know (CC ("DK")));
  g_assert_false (rl_neighbours_know (CC ("XX")));
  g_assert_true (rl_countries_within_reach (CC ("XX"), CC ("DK")));
}

/* A country's code the provider list does not know (Tusass, 290) names no
 * country, but it is not nothing: access points far from the countries of
 * the codes next to it conflict with it (docs/policy.md rule 12). */
static void
test_unknown_code (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();
  RlEvidence ev;
  char cc[3];

  /* 208 is not in the fixture; 204 (NL) is 4 away */
  g_assert_true (rl_mcc_evidence (t, "cell:0", 208, "10", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unknown);
  g_assert_cmpuint (ev.n_countries, ==, 0);
  g_assert_cmpuint (ev.cell.n_near, ==, 1);
  g_assert_cmpstr (rl_country_to_string (ev.cell.near[0], cc), ==, "NL");
  g_assert_cmpstr (ev.cell.network, ==, "208-10");
  /* nothing known within 6 */
  g_assert_true (rl_mcc_evidence (t, "cell:0", 290, "01", NOW, RL_NEVER, &ev));
  g_assert_true (ev.cell.unknown);
  g_assert_cmpuint (ev.cell.n_near, ==, 0);
  /* it carries the countries the list has networks of: the code may be
   * one of the others' (GL's) */
  g_assert_true (rl_country_set_has (&ev.cell.listed, CC ("DK")));
  g_assert_true (rl_country_set_has (&ev.cell.listed, CC ("JE")));
  g_assert_false (rl_country_set_has (&ev.cell.listed, CC ("GL")));
  g_assert_false (rl_country_set_has (&ev.cell.listed, RL_COUNTRY_WORLD));
  /* international, test and private codes still name nothing at all */
  g_assert_false (rl_mcc_evidence (t, "cell:0", 901, "18", NOW, RL_NEVER, &ev));
  g_assert_false (rl_mcc_evidence (t, "cell:0", 1, "01", NOW, RL_NEVER, &ev));
  g_assert_false (rl_mcc_evidence (t, "cell:0", 999, "99", NOW, RL_NEVER, &ev));
  /* a known code is no unknown one */
  g_assert_true (rl_mcc_evidence (t, "cell:0", 262, "01", NOW, RL_NEVER, &ev));
  g_assert_false (ev.cell.unknown);
  g_assert_true (rl_country_set_is_empty (&ev.cell.listed));
}

static void
test_policy_far_network (void)
{
  g_autoptr (RlMccTable) t = load_fixture ();

  /* Ilulissat: Danish routers and a Danish clock, the modem on Tusass
   * (290, unknown): no Danish mast or a neighbour's is near → conflict */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 290, "01");
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "DK");
    add_beacons (a, "DK", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_CONFLICT);
    g_assert_cmpuint (d->country, ==, RL_COUNTRY_WORLD);
    g_assert_nonnull (strstr (d->explanation, "290-01, a code the provider list does not know"));
  }
  /* Nuuk: Tusass's own routers (GL) beside the same modem.  The list
   * carries no network of Greenland, so 290 may be its own: GL, and the
   * text says why the modem does not count */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 290, "01");
    add_beacons (a, "GL", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("GL"));
    g_assert_nonnull (strstr (d->explanation, "the list carries no network of GL: it may be GL's own"));
  }
  /* … without the modem: DK, as before */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "DK");
    add_beacons (a, "DK", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DK"));
  }
  /* an unknown code next to NL's (208): German routers are within reach
   * of a Dutch mast, British ones are not */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 208, "10");
    add_beacons (a, "DE", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
  }
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 208, "10");
    add_beacons (a, "GB", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_CONFLICT);
  }
  /* a known network far from the routers' country: Puerto Rico's (330)
   * beside German routers is no mast across a border */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 330, "110");
    add_simple (a, RL_SOURCE_TIMEZONE, "timezone", "DE");
    add_beacons (a, "DE", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_CONFLICT);
    g_assert_nonnull (strstr (d->explanation, "neither by land nor by sea"));
  }
  /* … but a trusted fix places the machine: the registration is stale */
  {
    g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (RlEvidence));
    add_cell (a, t, "cell:0", 330, "110");
    add_simple (a, RL_SOURCE_GPS, "gps", "DE");
    add_beacons (a, "DE", 4);
    g_autoptr (RlDecision) d = decide (a);
    g_assert_cmpint (d->state, ==, RL_STATE_DECIDED);
    g_assert_cmpuint (d->country, ==, CC ("DE"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mcc/fixture-table", test_fixture_table);
  g_test_add_func ("/mcc/bad-documents", test_bad_documents);
  g_test_add_func ("/mcc/system-file", test_system_file);
  g_test_add_func ("/mcc/code-parsers", test_code_parsers);
  g_test_add_func ("/mcc/scanlog-cell-records", test_scanlog_cell_records);
  g_test_add_func ("/mcc/policy", test_policy_cell);
  g_test_add_func ("/mcc/policy-fix-outside", test_policy_fix_outside);
  g_test_add_func ("/mcc/unknown-code", test_unknown_code);
  g_test_add_func ("/mcc/policy-far-network", test_policy_far_network);
  g_test_add_func ("/mcc/policy-cell-beside-network", test_policy_cell_beside_network);
  g_test_add_func ("/mcc/policy-unlisted-network", test_policy_unlisted_network);
  g_test_add_func ("/neighbours/table", test_neighbours);
  return g_test_run ();
}
