/* The helpers written once: the back-off timer, enum names, data paths. */
#include <string.h>
#include <glib.h>

#include "core/enum-names.h"
#include "core/event.h"
#include "core/evidence.h"
#include "core/paths.h"
#include "core/regdb.h"
#include "daemon/backoff.h"

static void
never (gpointer user_data)
{
  g_assert_not_reached ();
}

static void
test_backoff (void)
{
  RlBackoff b;
  const guint waits[] = { 1, 2, 4, 8, 16, 32, 60, 60 };

  rl_backoff_init (&b, 1, 60, never, NULL);
  g_assert_false (rl_backoff_pending (&b));
  for (gsize i = 0; i < G_N_ELEMENTS (waits); i++)
    {
      g_assert_cmpuint (rl_backoff_next_s (&b), ==, waits[i]);
      g_assert_cmpuint (rl_backoff_schedule (&b), ==, waits[i]);
      g_assert_true (rl_backoff_pending (&b));
      /* one attempt at a time: asking again names the pending one */
      g_assert_cmpuint (rl_backoff_schedule (&b), ==, waits[i]);
      rl_backoff_cancel (&b);
      g_assert_false (rl_backoff_pending (&b));
    }
  rl_backoff_reset (&b);
  g_assert_cmpuint (rl_backoff_schedule (&b), ==, 1);
  rl_backoff_cancel (&b);

  /* a minimum of 0 would spin: it is 1 s */
  rl_backoff_init (&b, 0, 0, never, NULL);
  g_assert_cmpuint (rl_backoff_next_s (&b), ==, 1);
}

static void
fire (gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_backoff_fires (void)
{
  RlBackoff b;
  guint fired = 0;

  rl_backoff_init (&b, 1, 1, fire, &fired);
  rl_backoff_schedule (&b);
  while (fired == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (rl_backoff_pending (&b));
  g_assert_cmpuint (fired, ==, 1);
}

typedef enum { COLOUR_RED, COLOUR_GREEN, COLOUR_GAP, COLOUR_BLUE } Colour;

static const char *const colour_names[] = {
  [COLOUR_RED] = "red", [COLOUR_GREEN] = "green", [COLOUR_BLUE] = "blue",
};

static void
test_enum_names (void)
{
  guint v = 99;

  g_assert_cmpstr (RL_ENUM_NAME (colour_names, COLOUR_GREEN, "?"), ==, "green");
  g_assert_cmpstr (RL_ENUM_NAME (colour_names, COLOUR_GAP, "?"), ==, "?");
  g_assert_cmpstr (RL_ENUM_NAME (colour_names, 17, "none"), ==, "none");
  g_assert_true (RL_ENUM_PARSE (colour_names, "blue", &v));
  g_assert_cmpuint (v, ==, COLOUR_BLUE);
  g_assert_false (RL_ENUM_PARSE (colour_names, "Blue", &v));
  g_assert_false (RL_ENUM_PARSE (colour_names, NULL, &v));
  g_assert_cmpuint (v, ==, COLOUR_BLUE);

  /* one of the tables on it */
  RlSourceKind kind;
  g_assert_true (rl_source_kind_from_string ("gps", &kind));
  g_assert_cmpuint (kind, ==, RL_SOURCE_GPS);
  g_assert_cmpstr (rl_source_kind_to_string (RL_SOURCE_BEACON), ==, "beacons");
  g_assert_cmpstr (rl_source_kind_to_string ((RlSourceKind) 42), ==, "?");
  g_assert_cmpstr (rl_event_type_to_string (RL_EVENT_RESUME), ==, "resume");
  g_assert_cmpstr (rl_event_type_to_string ((RlEventType) 42), ==, "unknown");
}

static void
test_data_paths (void)
{
  g_autofree char *configured = rl_data_path (RL_DATA_BOUNDARY_INDEX, "/srv/maps/b.idx");
  g_autofree char *empty = NULL, *env = NULL, *fallback = NULL, *regdb = NULL, *territories = NULL;
  g_autofree char *trip = NULL, *missing = NULL;

  g_assert_cmpstr (configured, ==, "/srv/maps/b.idx");
  g_setenv ("REGLOC_BOUNDARY_INDEX", "/tmp/from-env.idx", TRUE);
  env = rl_data_path (RL_DATA_BOUNDARY_INDEX, NULL);
  g_assert_cmpstr (env, ==, "/tmp/from-env.idx");
  empty = rl_data_path (RL_DATA_BOUNDARY_INDEX, "");
  g_assert_cmpstr (empty, ==, "/tmp/from-env.idx");
  g_unsetenv ("REGLOC_BOUNDARY_INDEX");
  fallback = rl_data_path (RL_DATA_BOUNDARY_INDEX, NULL);
  g_assert_true (g_str_has_suffix (fallback, "/boundaries.idx"));
  regdb = rl_data_path (RL_DATA_REGULATORY_DB, NULL);
  g_assert_cmpstr (regdb, ==, RL_REGDB_DEFAULT_PATH);
  g_unsetenv ("REGLOC_TERRITORIES");
  territories = rl_data_path (RL_DATA_TERRITORIES, NULL);
  g_assert_true (g_file_test (territories, G_FILE_TEST_IS_REGULAR));
  trip = rl_data_find ("trips/sample-trip.scn");
  g_assert_nonnull (trip);
  missing = rl_data_find ("trips/no-such-trip.scn");
  g_assert_null (missing);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helpers/backoff", test_backoff);
  g_test_add_func ("/helpers/backoff-fires", test_backoff_fires);
  g_test_add_func ("/helpers/enum-names", test_enum_names);
  g_test_add_func ("/helpers/data-paths", test_data_paths);
  return g_test_run ();
}
