/* The daemon and `regloc replay` tell the same story.
 *
 * Every shipped scenario (data/scenarios) and trip (data/trips) runs twice:
 * through the path of `regloc replay` (scenario reader → RlReplay →
 * rl_replay_run) and through the path of `reglocd --replay` (the same
 * reader → replay feed → the daemon's live loop, its one timer driven on a
 * fake clock).  The timelines must be identical: the same changes at the
 * same instants, with the same country, state, candidate and reason. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "core/config.h"
#include "core/regdb.h"
#include "daemon/daemon.h"
#include "geo/boundary.h"
#include "geo/tzmap.h"
#include "replay/replay.h"
#include "replay/scenario.h"
#include "rl-test-config.h"

typedef struct {
  gint64 time;
  RlCountry country, candidate;
  RlState state;
  RlReason reason;
} Change;

/* The timeline rule of replay.c: a change of country, state, candidate or
 * reason is a new entry; two at one instant, only the later one stands. */
static void
add_change (GArray *changes, gint64 time, RlCountry country, RlState state, RlCountry candidate, RlReason reason)
{
  Change c = { time, country, candidate, state, reason };
  Change *last = changes->len ? &g_array_index (changes, Change, changes->len - 1) : NULL;

  if (last != NULL && last->country == country && last->state == state && last->candidate == candidate &&
      last->reason == reason)
    return;
  if (last != NULL && last->time == time)
    g_array_set_size (changes, changes->len - 1);
  g_array_append_val (changes, c);
}

static char *
describe (const Change *c, gint64 start)
{
  char cc[3], cand[3];

  return g_strdup_printf ("+%" G_GINT64_FORMAT " s %s %s cand %s %s", (c->time - start) / RL_USEC_PER_SEC,
                          rl_country_to_string (c->country, cc), rl_state_to_string (c->state),
                          rl_country_to_string (c->candidate, cand), rl_reason_to_string (c->reason));
}

/* --- the path of `regloc replay` ------------------------------------------ */

static GArray *
replay_path (const char *path, const RlConfig *config, const RlRegulatory *regulatory, gint64 *first, gint64 *last)
{
  g_autoptr (RlTzMap) tzmap = rl_tzmap_new (config->zoneinfo_dir, NULL);
  g_autoptr (RlBoundaryIndex) index = rl_boundary_index_open (rl_boundary_index_default_path (), NULL);
  g_autoptr (RlReplay) replay = rl_replay_new (config, regulatory);
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  RlScenarioContext ctx = { config, tzmap, rl_scenario_boundary_lookup, index };
  gboolean settle = TRUE;
  const GArray *tl;
  GArray *changes = g_array_new (FALSE, FALSE, sizeof (Change));

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_true (rl_scenario_parse (text, path, &ctx, replay, expects, &settle, &error));
  g_assert_no_error (error);
  rl_replay_run (replay, settle);
  rl_replay_span (replay, first, last);
  tl = rl_replay_timeline (replay);
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      add_change (changes, e->time, e->country, e->state, e->candidate, e->reason);
    }
  return changes;
}

/* --- the path of `reglocd --replay`, on a fake clock ---------------------- */

#define WALL0 (G_GINT64_CONSTANT (1800000000) * RL_USEC_PER_SEC)

typedef struct {
  gint64 wall;           /* the fake clock */
  gint64 start;          /* recorded time of the first event: the clock's WALL0 */
  GArray *changes;
} Run;

static gint64
fake_clock (gpointer user_data)
{
  return ((Run *) user_data)->wall;
}

static void
on_changed (RlDaemon *daemon, RlDaemonChanges changes, RlCountry old, gpointer user_data)
{
  Run *run = user_data;
  const RlDecision *d = rl_daemon_decision (daemon);

  if ((changes & RL_DAEMON_CHANGED_DECISION) && d != NULL)
    add_change (run->changes, run->start + (run->wall - WALL0), d->country, d->state, d->candidate, d->reason);
}

static GArray *
daemon_path (const char *path, gint64 first, gint64 last)
{
  const char *replay[] = { path, NULL };
  Run run = { WALL0, first, g_array_new (FALSE, FALSE, sizeof (Change)) };
  RlDaemonOptions opts = { NULL, TRUE, replay, 1.0, NULL, fake_clock, &run };
  g_autoptr (GError) error = NULL;
  g_autoptr (RlDaemon) daemon = rl_daemon_new (&opts, &error);
  gint64 due;

  g_assert_no_error (error);
  /* the daemon's first word is 00 at the first instant, as replay's */
  add_change (run.changes, first, RL_COUNTRY_WORLD, RL_STATE_WORLD, RL_COUNTRY_NONE, RL_REASON_NO_EVIDENCE);
  rl_daemon_set_listener (daemon, on_changed, &run);
  rl_daemon_start (daemon);
  while ((due = rl_daemon_timer_due (daemon)) != RL_NEVER && due <= last)
    {
      run.wall = WALL0 + MAX (due - first, run.wall - WALL0);
      rl_daemon_fire_timer (daemon);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  return run.changes;
}

static void
test_same_timeline (gconstpointer data)
{
  const char *path = data;
  g_autoptr (RlConfig) config = rl_config_new_default ();
  g_autoptr (RlRegulatory) regulatory = rl_regulatory_load (config->regulatory_db, config->territories, NULL);
  gint64 first = 0, last = 0;
  g_autoptr (GArray) batch = replay_path (path, config, regulatory, &first, &last);
  g_autoptr (GArray) live = daemon_path (path, first, last);
  g_autoptr (GString) diff = g_string_new (NULL);

  for (guint i = 0; i < MAX (batch->len, live->len); i++)
    {
      g_autofree char *a = i < batch->len ? describe (&g_array_index (batch, Change, i), first) : g_strdup ("-");
      g_autofree char *b = i < live->len ? describe (&g_array_index (live, Change, i), first) : g_strdup ("-");
      if (strcmp (a, b) != 0)
        g_string_append_printf (diff, "  #%u replay: %s | daemon: %s\n", i, a, b);
    }
  if (diff->len > 0)
    g_test_message ("%s: the timelines differ:\n%s", path, diff->str);
  g_assert_cmpuint (diff->len, ==, 0);
}

static int
cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
add_dir (const char *sub, const char *prefix)
{
  g_autofree char *dir = g_build_filename (RL_SOURCE_DATADIR, sub, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".scn"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, cmp_names);
  g_assert_cmpuint (names->len, >, 0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = names->pdata[i];
      g_autofree char *test = g_strdup_printf ("/engine-paths/%s/%.*s", prefix, (int) strlen (n) - 4, n);
      g_test_add_data_func_full (test, g_build_filename (dir, n, NULL), test_same_timeline, g_free);
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *state = g_dir_make_tmp ("regloc-paths-XXXXXX", NULL);
  int rc;

  g_test_init (&argc, &argv, NULL);
  /* the override source keeps its state here, not in the user's */
  g_setenv ("STATE_DIRECTORY", state, TRUE);
  add_dir ("scenarios", "scenario");
  add_dir ("trips", "trip");
  rc = g_test_run ();
  g_rmdir (state);
  return rc;
}
