/* What the libFuzzer targets share: the entry point's prototype, a quiet
 * log, a file view of the input for loaders that take a path, one replay
 * set-up, and the invariants every GPS reader keeps. */
#pragma once

#include <glib.h>
#include "replay/replay.h"
#include "core/gps-fix.h"

int LLVMFuzzerTestOneInput (const guint8 *data, gsize size);
/* libFuzzer calls it once (fuzz-common.c): warnings about bad input are
 * expected by the thousand and dropped; a critical (a g_return_if_fail
 * that outside input can reach) aborts, so the fuzzer reports it. */
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* A path that reads back the input's bytes (a memfd), for the loaders that
 * open files themselves.  Valid until the next call. */
const char *rl_fuzz_as_file (const guint8 *data, gsize size);

/* The default configuration and the system's regulatory.db, loaded once. */
const RlConfig *rl_fuzz_config (void);
RlReplay *rl_fuzz_replay_new (void);
/* Runs the replay and formats its report as text and as JSON; the JSON
 * must parse (names, SSIDs and notes come from the input). */
void rl_fuzz_replay_run (RlReplay *replay, gboolean settle);

/* What every GPS reader promises: one fix per counted fix, coordinates in
 * range, mode 2 or 3; with @increasing, times strictly increase. */
void rl_fuzz_check_fixes (const GArray *fixes, const RlGpsParseStats *stats, gboolean increasing);
