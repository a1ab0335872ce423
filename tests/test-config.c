/* regloc.conf: defaults, the shipped file, and a clear error for every kind
 * of bad input (naming file, group, key and the expected form). */
#include <string.h>
#include <glib.h>

#include "core/config.h"
#include "rl-test-config.h"

static void
test_defaults (void)
{
  g_autoptr (RlConfig) c = rl_config_new_default ();

  g_assert_true (c->apply);
  g_assert_cmpuint (c->policy.min_witnesses, ==, 2);
  g_assert_cmpfloat (c->policy.confidence_threshold, ==, 0.8);
  g_assert_cmpuint (c->policy.hold_down_s, ==, 30);
  g_assert_cmpuint (c->policy.max_age_s[RL_SOURCE_GPS], ==, 600);
  g_assert_cmpuint (c->policy.max_age_s[RL_SOURCE_BEACON], ==, 900);
  g_assert_cmpuint (c->policy.max_age_s[RL_SOURCE_TIMEZONE], ==, 0);
  g_assert_cmpstr (c->gps_host, ==, "localhost");
  g_assert_cmpuint (c->gps_port, ==, 2947);
  g_assert_cmpuint (c->beacons_scan_interval_s, ==, 0);
  g_assert_cmpuint (c->override_country, ==, RL_COUNTRY_NONE);
  g_assert_null (c->boundary_index);
}

/* The shipped file writes out every key with its default, and nothing else. */
static void
test_shipped_file (void)
{
  g_autofree char *path = g_build_filename (RL_SOURCE_DATADIR, "regloc.conf", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  gsize n;
  const RlConfigKeyInfo *keys = rl_config_schema (&n);
  gsize in_file = 0;

  g_assert_true (g_key_file_load_from_file (kf, path, G_KEY_FILE_KEEP_COMMENTS, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = g_key_file_get_value (kf, keys[i].group, keys[i].key, &error);
      g_autofree char *comment = g_key_file_get_comment (kf, keys[i].group, keys[i].key, NULL);
      if (error != NULL)
        g_error ("data/regloc.conf lacks [%s] %s", keys[i].group, keys[i].key);
      g_assert_cmpstr (v, ==, keys[i].default_value);
      g_assert_nonnull (comment);
      g_assert_cmpuint (strlen (comment), >, 8);
    }
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g]; g++)
    {
      g_auto (GStrv) names = g_key_file_get_keys (kf, groups[g], NULL, NULL);
      in_file += g_strv_length (names);
    }
  g_assert_cmpuint (in_file, ==, n);

  g_autoptr (RlConfig) c = rl_config_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (RlConfig) d = rl_config_new_default ();
  g_assert_cmpmem (&c->policy, sizeof c->policy, &d->policy, sizeof d->policy);
}

static void
test_values (void)
{
  const char *text = "[policy]\nhold_down=0\nconfidence_threshold=0.9\n[override]\ncountry=fr\n"
                     "[general]\napply=false\n[gps]\nhost=gps.local\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) c = rl_config_load_data (text, strlen (text), "t.conf", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (c->policy.hold_down_s, ==, 0);
  g_assert_cmpfloat (c->policy.confidence_threshold, ==, 0.9);
  g_assert_cmpuint (c->override_country, ==, RL_COUNTRY ('F', 'R'));
  g_assert_false (c->apply);
  g_assert_cmpstr (c->gps_host, ==, "gps.local");
}

typedef struct {
  const char *text;
  int code;
  const char *message;   /* must appear in the error */
} Bad;

static const Bad bad[] = {
  { "[policy]\nhold_dwn=3\n", RL_CONFIG_ERROR_UNKNOWN_KEY, "bad.conf: [policy] hold_dwn: unknown key" },
  { "[polcy]\nhold_down=3\n", RL_CONFIG_ERROR_UNKNOWN_KEY, "unknown group [polcy]" },
  { "[policy]\nhold_down=-1\n", RL_CONFIG_ERROR_BAD_VALUE, "[policy] hold_down=-1: expected a whole number from 0 to 86400" },
  { "[policy]\nhold_down=30s\n", RL_CONFIG_ERROR_BAD_VALUE, "hold_down=30s" },
  { "[policy]\nhold_down=99999999999999999999\n", RL_CONFIG_ERROR_BAD_VALUE, "expected a whole number" },
  { "[policy]\nconfidence_threshold=1.5\n", RL_CONFIG_ERROR_BAD_VALUE, "confidence_threshold=1.5: expected a number from 0 to 1" },
  { "[policy]\nconfidence_threshold=nan\n", RL_CONFIG_ERROR_BAD_VALUE, "confidence_threshold=nan" },
  { "[policy]\nbeacon_min_fraction=0.4\n", RL_CONFIG_ERROR_BAD_VALUE, "beacon_min_fraction" },
  { "[policy]\nbeacon_strong_aps=1\nbeacon_min_aps=2\n", RL_CONFIG_ERROR_BAD_VALUE, "beacon_strong_aps=1: expected at least beacon_min_aps" },
  { "[policy]\nhold_down=60\nflap_hold_down_max=45\n", RL_CONFIG_ERROR_BAD_VALUE, "flap_hold_down_max=45: expected at least hold_down (60)" },
  { "[policy]\nbeacon_network_min_bands=4\n", RL_CONFIG_ERROR_BAD_VALUE, "beacon_network_min_bands=4: expected a whole number from 1 to 3" },
  { "[policy]\nbeacon_eu_weight=2\n", RL_CONFIG_ERROR_BAD_VALUE, "beacon_eu_weight=2: expected a number from 0 to 1" },
  { "[general]\napply=yes\n", RL_CONFIG_ERROR_BAD_VALUE, "[general] apply=yes: expected true or false" },
  { "[gps]\nport=70000\n", RL_CONFIG_ERROR_BAD_VALUE, "[gps] port=70000" },
  { "[override]\ncountry=Germany\n", RL_CONFIG_ERROR_BAD_VALUE, "[override] country=Germany: expected two letters" },
  { "[override]\ncountry=D1\n", RL_CONFIG_ERROR_BAD_VALUE, "country=D1" },
  { "not a key file\n", RL_CONFIG_ERROR_PARSE, "bad.conf:" },
};

static void
test_bad (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RlConfig) c = rl_config_load_data (bad[i].text, strlen (bad[i].text), "bad.conf", &error);
      g_assert_null (c);
      g_assert_error (error, RL_CONFIG_ERROR, bad[i].code);
      if (strstr (error->message, bad[i].message) == NULL)
        g_error ("error for %s lacks '%s': %s", bad[i].text, bad[i].message, error->message);
    }
}

static void
test_missing_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) c = rl_config_load ("/nonexistent/regloc.conf", &error);

  g_assert_null (c);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent/regloc.conf"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/config/defaults", test_defaults);
  g_test_add_func ("/config/shipped-file", test_shipped_file);
  g_test_add_func ("/config/values", test_values);
  g_test_add_func ("/config/bad", test_bad);
  g_test_add_func ("/config/missing-file", test_missing_file);
  return g_test_run ();
}
