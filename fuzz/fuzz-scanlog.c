/* libFuzzer target: scan log files (JSON lines), through the loader that
 * `regloc replay --scans` uses, then the replay and its JSON report.  Every
 * line that parses, a BSS line or a scan record, must also survive the trip
 * `regloc record` makes: formatted again and parsed back, it says the same. */
#include <string.h>
#include "fuzz/fuzz-common.h"
#include "replay/replay-scans.h"
#include "readers/scanlog.h"

static void
check_round_trip (const char *line, gsize len)
{
  RlScanLogEntry a, b;
  g_autoptr (GError) error = NULL;

  if (!rl_scanlog_parse (line, (gssize) len, &a, NULL))
    return;
  g_autofree char *again = rl_scanlog_format (a.time, a.ifname, a.bssid, a.freq_mhz, a.has_signal, a.signal_mbm,
                                              a.ssid, a.ies, a.ies_len);
  if (!rl_scanlog_parse (again, -1, &b, &error))
    g_error ("a formatted line does not parse (%s): %s", error->message, again);
  g_assert (a.time == b.time && memcmp (a.bssid, b.bssid, 6) == 0 && a.freq_mhz == b.freq_mhz);
  g_assert (a.has_signal == b.has_signal && (!a.has_signal || a.signal_mbm == b.signal_mbm));
  g_assert (strcmp (a.ifname, b.ifname) == 0 && strcmp (a.ssid, b.ssid) == 0);
  g_assert (a.ies_len == b.ies_len && (a.ies_len == 0 || memcmp (a.ies, b.ies, a.ies_len) == 0));
  rl_scanlog_entry_clear (&a);
  rl_scanlog_entry_clear (&b);
}

static void
check_scan_round_trip (const char *line, gsize len)
{
  RlScanLogScan a, b;
  g_autoptr (GError) error = NULL;

  if (!rl_scanlog_parse_scan (line, (gssize) len, &a, NULL))
    return;
  g_autofree char *again = rl_scanlog_format_scan (a.time, a.ifname, a.freqs, a.n_freqs);
  if (!rl_scanlog_parse_scan (again, -1, &b, &error))
    g_error ("a formatted scan record does not parse (%s): %s", error != NULL ? error->message : "not one", again);
  g_assert (a.time == b.time && strcmp (a.ifname, b.ifname) == 0 && a.n_freqs == b.n_freqs);
  g_assert (memcmp (a.freqs, b.freqs, a.n_freqs * sizeof (guint32)) == 0);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlReplay) replay = rl_fuzz_replay_new ();
  const char *text = (const char *) data, *end = text + size;

  if (rl_replay_load_scan_file (replay, rl_fuzz_as_file (data, size), rl_fuzz_config (), &error))
    rl_fuzz_replay_run (replay, FALSE);
  else
    g_assert (error != NULL);
  for (const char *p = text; p < end;)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *eol = nl != NULL ? nl : end;
      check_round_trip (p, (gsize) (eol - p));
      check_scan_round_trip (p, (gsize) (eol - p));
      p = eol + 1;
    }
  return 0;
}
