/* The daemon without the bus: persisted override, the applier seam, the
 * live loop over a replay feed, the timezone source's fallbacks and the
 * authorization table. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/state.h"
#include "daemon/daemon.h"
#include "daemon/auth.h"
#include "daemon/sources/timezone.h"
#include "rl-test-config.h"

/* Temporary directories go away after each test, whatever they hold. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
remove_tree_and_free (gpointer path)
{
  remove_tree (path);
  g_free (path);
}

/* Owned by the test framework: removed and freed when the test ends. */
static const char *
make_tmp (void)
{
  char *dir = g_dir_make_tmp ("regloc-test-XXXXXX", NULL);

  g_assert_nonnull (dir);
  g_test_queue_destroy (remove_tree_and_free, dir);
  return dir;
}

/* --- state ------------------------------------------------------------------ */

static void
test_state_roundtrip (void)
{
  const char *dir = make_tmp ();
  g_autofree char *sub = g_build_filename (dir, "made", "on", "demand", NULL);
  g_autofree char *file = g_build_filename (sub, RL_STATE_OVERRIDE_FILE, NULL);
  g_autoptr(GError) error = NULL;
  RlCountry c = RL_COUNTRY_WORLD;

  /* No file: no override, no error. */
  g_assert_true (rl_state_load_override (sub, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c, ==, RL_COUNTRY_NONE);

  g_assert_true (rl_state_save_override (sub, RL_COUNTRY ('F', 'R'), &error));
  g_assert_no_error (error);
  g_assert_true (rl_state_load_override (sub, &c, &error));
  g_assert_cmpuint (c, ==, RL_COUNTRY ('F', 'R'));

  g_assert_true (rl_state_save_override (sub, RL_COUNTRY_WORLD, &error));
  g_assert_true (rl_state_load_override (sub, &c, &error));
  g_assert_cmpuint (c, ==, RL_COUNTRY_WORLD);

  g_assert_true (rl_state_save_override (sub, RL_COUNTRY_NONE, &error));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  /* Clearing twice is fine. */
  g_assert_true (rl_state_save_override (sub, RL_COUNTRY_NONE, &error));
  g_assert_no_error (error);
}

static void
test_state_corrupt (void)
{
  static const char *const bad[] = {
    "country=FR\n",                          /* no group */
    "[override]\n",                          /* no key */
    "[override]\ncountry=F\n",
    "[override]\ncountry=FRA\n",
    "[override]\ncountry=1F\n",
    "\xff\xfe garbage",
  };
  const char *dir = make_tmp ();
  g_autofree char *file = g_build_filename (dir, RL_STATE_OVERRIDE_FILE, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      RlCountry c = RL_COUNTRY_WORLD;

      g_assert_true (g_file_set_contents (file, bad[i], -1, NULL));
      g_assert_false (rl_state_load_override (dir, &c, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, file));
      g_assert_cmpuint (c, ==, RL_COUNTRY_NONE);
    }
}

static void
test_state_dir_env (void)
{
  g_autofree char *def = NULL, *one = NULL, *first = NULL;

  g_unsetenv ("STATE_DIRECTORY");
  def = rl_state_dir ();
  g_assert_cmpstr (def, ==, RL_STATE_DEFAULT_DIR);
  g_setenv ("STATE_DIRECTORY", "/run/x", TRUE);
  one = rl_state_dir ();
  g_assert_cmpstr (one, ==, "/run/x");
  /* systemd joins several StateDirectory= entries with ':' */
  g_setenv ("STATE_DIRECTORY", "/var/lib/regloc:/var/lib/other", TRUE);
  first = rl_state_dir ();
  g_assert_cmpstr (first, ==, "/var/lib/regloc");
  g_unsetenv ("STATE_DIRECTORY");
}

/* --- the live loop over a replay feed, with a counting applier ------------- */

typedef struct {
  GArray *applied;              /* RlCountry */
  RlApplierHooks hooks;
} FakeApplier;

static FakeApplier *fake;

static gpointer
fake_create (const RlApplierHooks *hooks, gboolean apply, GError **error)
{
  RlKernelState k = { .alpha2 = "00", .reachable = TRUE, .status = "steerable", .set_by = "" };

  fake->hooks = *hooks;
  hooks->kernel_changed (&k, hooks->user_data);
  return fake;
}

static gboolean
fake_apply (gpointer applier, RlCountry country, GError **error)
{
  FakeApplier *self = applier;
  char cc[3];
  RlKernelState k = { .alpha2 = rl_country_to_string (country, cc), .reachable = TRUE, .status = "steerable",
                      .set_by = "regloc" };

  g_array_append_val (self->applied, country);
  /* The kernel reports back, as nl80211's regulatory events would. */
  self->hooks.kernel_changed (&k, self->hooks.user_data);
  return TRUE;
}

static void fake_free (gpointer applier) { }

static const RlApplierOps fake_ops = { "fake", fake_create, fake_apply, fake_free };

typedef struct {
  guint decisions;
  guint country_changes;
  guint kernel_changes;
  GMainLoop *loop;
} Seen;

static void
on_changed (RlDaemon *daemon, RlDaemonChanges changes, RlCountry old, gpointer user_data)
{
  Seen *seen = user_data;
  const RlDecision *d = rl_daemon_decision (daemon);

  if (changes & RL_DAEMON_CHANGED_DECISION)
    seen->decisions++;
  if (changes & RL_DAEMON_CHANGED_KERNEL)
    seen->kernel_changes++;
  if ((changes & RL_DAEMON_CHANGED_DECISION) && d->country == RL_COUNTRY ('D', 'E') && d->state == RL_STATE_DECIDED)
    g_main_loop_quit (seen->loop);
}

static gboolean
on_timeout (gpointer user_data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

static RlDaemon *
replay_daemon (const char *config_text, gboolean no_apply, const char *state_dir, GError **error)
{
  g_autofree char *trip = g_build_filename (RL_SOURCE_DATADIR, "trips", "sample-trip.scn", NULL);
  g_autofree char *config = g_build_filename (state_dir, "regloc.conf", NULL);
  const char *replay[] = { trip, NULL };
  RlDaemonOptions opts = { config, no_apply, replay, 500.0, &fake_ops };

  g_assert_true (g_file_set_contents (config, config_text, -1, NULL));
  g_setenv ("STATE_DIRECTORY", state_dir, TRUE);
  return rl_daemon_new (&opts, error);
}

/* Runs @daemon's replay until it decides DE (20 s at most), the timer
 * starting @late_us late as on a busy machine. */
static void
run_until_de (RlDaemon *daemon, Seen *seen, gulong late_us)
{
  guint timeout;

  rl_daemon_set_listener (daemon, on_changed, seen);
  rl_daemon_start (daemon);
  if (late_us > 0)
    g_usleep (late_us);
  timeout = g_timeout_add_seconds (20, on_timeout, NULL);
  g_main_loop_run (seen->loop);
  g_source_remove (timeout);
}

/* A replay daemon on @applier with @config_text in a fresh state directory,
 * run until it decides DE; @seen (the caller's, with its loop) stays its
 * listener. */
static RlDaemon *
decided_daemon (const char *config_text, gboolean no_apply, FakeApplier *applier, Seen *seen, gulong late_us)
{
  g_autoptr(GError) error = NULL;
  RlDaemon *daemon;

  fake = applier;
  daemon = replay_daemon (config_text, no_apply, make_tmp (), &error);
  g_assert_no_error (error);
  run_until_de (daemon, seen, late_us);
  return daemon;
}

/* Someone else's user hint, as the applier reports it, with two radios. */
static void
foreign_hint (const char *alpha2, const char *set_by)
{
  const RlRadioInfo radios[] = {
    { "phy0", "iwlwifi", TRUE, "DE", FALSE },
    { "phy1", "mac80211_hwsim", FALSE, "", TRUE },
  };
  RlKernelState k = { .alpha2 = alpha2, .reachable = TRUE, .status = "active", .set_by = set_by,
                      .radios = radios, .n_radios = G_N_ELEMENTS (radios) };

  fake->hooks.kernel_changed (&k, fake->hooks.user_data);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static RlCountry
last_applied (const FakeApplier *applier)
{
  return g_array_index (applier->applied, RlCountry, applier->applied->len - 1);
}

static void
test_foreign_change_yield (void)
{
  g_autoptr(RlDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  FakeApplier applier = { g_array_new (FALSE, FALSE, sizeof (RlCountry)) };
  Seen seen = { 0, 0, 0, loop };
  guint n_radios = 0;

  daemon = decided_daemon ("[gps]\nenabled=false\n[beacons]\nenabled=false\n", FALSE, &applier, &seen, 0);
  g_assert_cmpstr (rl_daemon_kernel_set_by (daemon), ==, "regloc");
  guint before = applier.applied->len;

  /* the default: shown, never fought */
  foreign_hint ("US", "user");
  g_assert_cmpuint (applier.applied->len, ==, before);
  g_assert_cmpstr (rl_daemon_kernel_country (daemon), ==, "US");
  g_assert_cmpstr (rl_daemon_kernel_set_by (daemon), ==, "user");
  const RlRadioInfo *radios = rl_daemon_radios (daemon, &n_radios);
  g_assert_cmpuint (n_radios, ==, 2);
  g_assert_cmpstr (radios[0].driver, ==, "iwlwifi");
  g_assert_true (radios[0].self_managed);
  g_assert_false (radios[0].steerable);
  g_array_unref (applier.applied);
}

/* The warning that regloc yields after reassert_max: expected, counted,
 * not printed (a printed fatal-level message fails the TAP run). */
static gboolean
bound_warning_not_fatal (const char *domain, GLogLevelFlags level, const char *message, gpointer user_data)
{
  return strstr (message, "reasserts in the last minute ([apply] reassert_max); yielding") == NULL;
}

static void
count_bound_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer user_data)
{
  gboolean *held = user_data;

  if (bound_warning_not_fatal (domain, level, message, NULL))
    g_log_default_handler (domain, level, message, NULL);
  else
    *held = TRUE;
}

static void
test_foreign_change_reassert (void)
{
  gboolean held = FALSE;
  guint handler = 0;
  g_autoptr(RlDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  FakeApplier applier = { g_array_new (FALSE, FALSE, sizeof (RlCountry)) };
  Seen seen = { 0, 0, 0, loop };

  daemon = decided_daemon ("[gps]\nenabled=false\n[beacons]\nenabled=false\n"
                            "[apply]\nforeign_change=reassert\nreassert_max=2\n", FALSE, &applier, &seen, 0);
  guint before = applier.applied->len;

  /* cfg80211 itself (a restore re-applies our hint by itself): not answered */
  foreign_hint ("00", "core");
  g_assert_cmpuint (applier.applied->len, ==, before);
  /* another daemon's hint: DE again, twice, then regloc yields */
  for (guint i = 0; i < 3; i++)
    {
      if (i == 2)
        {
          g_test_log_set_fatal_handler (bound_warning_not_fatal, NULL);
          handler = g_log_set_handler ("reglocd", G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL, count_bound_warning, &held);
        }
      foreign_hint (i % 2 ? "FR" : "US", "user");
      g_assert_cmpuint (applier.applied->len, ==, before + MIN (i + 1, 2));
    }
  g_log_remove_handler ("reglocd", handler);
  g_test_log_set_fatal_handler (NULL, NULL);
  g_assert_true (held);   /* the bound was said, as a warning */
  g_assert_cmpuint (last_applied (&applier), ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpstr (rl_daemon_kernel_country (daemon), ==, "US");
  g_array_unref (applier.applied);
}

static void
test_loop_applies_each_change (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RlDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  FakeApplier applier = { g_array_new (FALSE, FALSE, sizeof (RlCountry)) };
  Seen seen = { 0, 0, 0, loop };

  daemon = decided_daemon ("[gps]\nenabled=false\n[beacons]\nenabled=false\n", FALSE, &applier, &seen, 0);

  /* Every change of country, and only those, reached the kernel. */
  g_assert_cmpuint (applier.applied->len, ==, 4);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 0), ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 1), ==, RL_COUNTRY ('F', 'R'));
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 2), ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 3), ==, RL_COUNTRY ('D', 'E'));
  g_assert_cmpstr (rl_daemon_kernel_country (daemon), ==, "DE");
  g_assert_cmpuint (seen.kernel_changes, >=, 3);
  g_assert_cmpuint (rl_daemon_last_change (daemon), >, 0);

  /* An override is validated, persisted, and wins. */
  g_assert_false (rl_daemon_set_override (daemon, "FRA", &error));
  g_assert_error (error, RL_DAEMON_ERROR, RL_DAEMON_ERROR_INVALID_COUNTRY);
  g_clear_error (&error);
  g_assert_true (rl_daemon_set_override (daemon, "ch", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rl_daemon_decision (daemon)->country, ==, RL_COUNTRY ('C', 'H'));
  g_assert_cmpuint (rl_daemon_decision (daemon)->state, ==, RL_STATE_OVERRIDE);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, applier.applied->len - 1), ==, RL_COUNTRY ('C', 'H'));
  g_assert_true (rl_daemon_clear_override (daemon, &error));
  g_assert_cmpuint (rl_daemon_override (daemon, NULL), ==, RL_COUNTRY_NONE);

  g_array_unref (applier.applied);
}

/* A machine too busy to run the timer on time: the whole trip is due at
 * once, and the decisions are still the recorded timeline, in order. */
static void
test_loop_late_timer (void)
{
  g_autoptr(RlDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  FakeApplier applier = { g_array_new (FALSE, FALSE, sizeof (RlCountry)) };
  Seen seen = { 0, 0, 0, loop };

  /* the timer a second late: 500 recorded seconds, past the end of the trip */
  daemon = decided_daemon ("[gps]\nenabled=false\n[beacons]\nenabled=false\n", FALSE, &applier, &seen, G_USEC_PER_SEC);

  g_assert_cmpuint (applier.applied->len, ==, 4);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 1), ==, RL_COUNTRY ('F', 'R'));
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 2), ==, RL_COUNTRY_WORLD);
  g_assert_cmpuint (g_array_index (applier.applied, RlCountry, 3), ==, RL_COUNTRY ('D', 'E'));
  g_array_unref (applier.applied);
}

static void
test_loop_no_apply (void)
{
  g_autoptr(RlDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  FakeApplier applier = { g_array_new (FALSE, FALSE, sizeof (RlCountry)) };
  Seen seen = { 0, 0, 0, loop };
  g_autofree char *explain = NULL;

  daemon = decided_daemon ("[gps]\nenabled=false\n", TRUE, &applier, &seen, 0);
  g_assert_cmpuint (applier.applied->len, ==, 0);
  explain = rl_daemon_explain (daemon);
  g_assert_nonnull (strstr (explain, "observe mode"));
  g_array_unref (applier.applied);
}

static void
test_bad_config_and_replay (void)
{
  const char *dir = make_tmp ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RlDaemon) daemon = replay_daemon ("[policy]\nhold_down=-1\n", FALSE, dir, &error);
  const char *replay[] = { "/nonexistent/trip.scn", NULL };
  const char *not_scenario[] = { "trip.nmea", NULL };
  RlDaemonOptions opts = { NULL, TRUE, replay, 1.0, NULL };

  g_assert_null (daemon);
  g_assert_error (error, RL_CONFIG_ERROR, RL_CONFIG_ERROR_BAD_VALUE);
  g_clear_error (&error);
  g_assert_null (rl_daemon_new (&opts, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  opts.replay = not_scenario;
  g_assert_null (rl_daemon_new (&opts, &error));
  g_assert_nonnull (strstr (error->message, "scenario"));
}

/* --- timezone ----------------------------------------------------------------- */

static void
test_timezone_zone (void)
{
  const char *dir = make_tmp ();
  g_autofree char *link = g_build_filename (dir, "localtime", NULL);
  g_autofree char *copy_dir = g_build_filename (dir, "etc", NULL);
  g_autofree char *copy = g_build_filename (copy_dir, "localtime", NULL);
  g_autofree char *sibling = g_build_filename (copy_dir, "timezone", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RlTzMap) map = rl_tzmap_new (NULL, &error);
  g_autofree char *zone = NULL, *zone2 = NULL, *zone3 = NULL;

  if (map == NULL)
    {
      g_test_skip ("no tzdata tables under " RL_TZMAP_DEFAULT_DIR " (Debian package tzdata)");
      return;
    }
  g_assert_cmpint (symlink (RL_TZMAP_DEFAULT_DIR "/Europe/Lisbon", link), ==, 0);
  zone = rl_timezone_read_zone (map, link, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zone, ==, "Europe/Lisbon");

  /* A TZif file that matches nothing byte for byte: /etc/timezone names it. */
  g_assert_cmpint (g_mkdir (copy_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (copy, "TZif2 not a real zone file", -1, NULL));
  g_assert_null (rl_timezone_read_zone (map, copy, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (sibling, "Europe/Oslo\n", -1, NULL));
  zone2 = rl_timezone_read_zone (map, copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zone2, ==, "Europe/Oslo");

  /* Not a TZif file, and a sibling that tries to escape: no zone. */
  g_assert_true (g_file_set_contents (copy, "hello", -1, NULL));
  g_assert_true (g_file_set_contents (sibling, "../../etc/passwd\n", -1, NULL));
  zone3 = rl_timezone_read_zone (map, copy, &error);
  g_assert_null (zone3);
  g_assert_nonnull (error);
}

/* --- authorization ------------------------------------------------------------ */

static void
test_auth_table (void)
{
  gboolean known = FALSE;

  g_assert_cmpstr (rl_auth_action_for ("SetOverride", &known), ==, "net.regloc.override");
  g_assert_true (known);
  g_assert_cmpstr (rl_auth_action_for ("ClearOverride", &known), ==, "net.regloc.override");
  g_assert_cmpstr (rl_auth_action_for ("GetEvidence", &known), ==, "net.regloc.read-location");
  /* open, but listed: the rules of the country in force tell no more than Country */
  known = FALSE;
  g_assert_null (rl_auth_action_for ("GetRules", &known));
  g_assert_true (known);
  /* Deny by default: a method nobody listed is unknown, so refused. */
  g_assert_null (rl_auth_action_for ("Frobnicate", &known));
  g_assert_false (known);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/state/roundtrip", test_state_roundtrip);
  g_test_add_func ("/state/corrupt", test_state_corrupt);
  g_test_add_func ("/state/dir-env", test_state_dir_env);
  g_test_add_func ("/daemon/applies-each-change", test_loop_applies_each_change);
  g_test_add_func ("/daemon/late-timer", test_loop_late_timer);
  g_test_add_func ("/daemon/foreign-change-yield", test_foreign_change_yield);
  g_test_add_func ("/daemon/foreign-change-reassert", test_foreign_change_reassert);
  g_test_add_func ("/daemon/no-apply", test_loop_no_apply);
  g_test_add_func ("/daemon/bad-config-and-replay", test_bad_config_and_replay);
  g_test_add_func ("/timezone/zone", test_timezone_zone);
  g_test_add_func ("/auth/table", test_auth_table);
  return g_test_run ();
}
