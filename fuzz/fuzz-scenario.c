/* libFuzzer target: scenario files, parsed and run through the policy. */
#include "fuzz/fuzz-common.h"
#include "replay/scenario.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  static RlTzMap *tzmap;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr (GArray) expects = g_array_new (FALSE, FALSE, sizeof (RlScenarioExpect));
  g_autoptr (RlReplay) replay = rl_fuzz_replay_new ();
  gboolean settle;

  if (tzmap == NULL)
    tzmap = rl_tzmap_new (NULL, NULL);
  RlScenarioContext ctx = { rl_fuzz_config (), tzmap, NULL, NULL };
  if (rl_scenario_parse (text, "fuzz.scn", &ctx, replay, expects, &settle, &error))
    {
      g_autoptr (GString) report = g_string_new (NULL);
      rl_fuzz_replay_run (replay, settle);
      rl_scenario_check (replay, expects, report);
      const RlDecision *d = rl_replay_final (replay);
      /* whatever the input, a decided country has agreement behind it */
      g_assert (d->state != RL_STATE_DECIDED || d->country != RL_COUNTRY_WORLD);
    }
  else
    g_assert (error != NULL);
  return 0;
}
