/* regloc record: what the radios hear, as a scan log (docs/design.md §6) a field
 * engineer can replay later with `regloc replay --scans`: the access points
 * of every scan and the end of each scan with the channels it covered (so a
 * replay forgets what a scan no longer heard, as the daemon does), and the
 * network each modem is registered on (cell records, from ModemManager
 * where it runs). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib-unix.h>
#include "cli/commands.h"
#include "core/config.h"
#include "daemon/sources/beacons.h"
#include "daemon/sources/modem.h"
#include "readers/scanlog.h"

typedef struct {
  GMainLoop *loop;
  FILE *out;
  guint64 lines;
  guint64 cells;
  guint64 scans;
  gboolean write_failed;
} Recorder;

static gboolean
write_line (Recorder *r, const char *line)
{
  if (fprintf (r->out, "%s\n", line) < 0 || fflush (r->out) != 0)
    {
      if (!r->write_failed)
        fprintf (stderr, "regloc record: error: cannot write the scan log: %s\n", g_strerror (errno));
      r->write_failed = TRUE;
      g_main_loop_quit (r->loop);
      return FALSE;
    }
  return TRUE;
}

static void
on_cell (const char *modem, gboolean registered, guint mcc, const char *mnc, gint64 observed_at, gpointer user_data)
{
  Recorder *r = user_data;
  g_autofree char *line = rl_scanlog_format_cell (observed_at, modem, registered, mcc, mnc);

  if (write_line (r, line))
    r->cells++;
}

static void
on_scan (const char *ifname, const RlScanBss *bss, gint64 observed_at, gpointer user_data)
{
  Recorder *r = user_data;
  char ssid[33];
  const guint8 *ies = bss->ies;
  gsize ies_len = bss->ies_len;
  RlCountryIe cie;

  /* one element list per line: the one that carries the Country element */
  if ((ies == NULL || rl_country_ie_find (ies, ies_len, &cie) == RL_COUNTRY_IE_ABSENT) && bss->beacon_ies != NULL)
    {
      ies = bss->beacon_ies;
      ies_len = bss->beacon_ies_len;
    }
  rl_ies_ssid (ies, ies_len, ssid);
  g_autofree char *line = rl_scanlog_format (observed_at, ifname, bss->bssid, bss->freq_mhz, bss->has_signal,
                                             bss->signal_mbm, ssid, ies, ies_len);
  if (write_line (r, line))
    r->lines++;
}

static void
on_scan_done (const char *ifname, const guint32 *freqs, guint n_freqs, gint64 done_at, gint32 silent_mbm,
              gpointer user_data)
{
  Recorder *r = user_data;
  g_autofree char *line = rl_scanlog_format_scan (done_at, ifname, freqs, n_freqs);

  if (write_line (r, line))
    r->scans++;
}

static void
on_status (RlSource *source, gpointer user_data)
{
  fprintf (stderr, "regloc record: %s %s: %s\n", source->ops->name, source->available ? "available" : "unavailable",
           source->detail);
}

static gboolean
on_stop (gpointer user_data)
{
  /* all three stop sources are removed together after the loop */
  g_main_loop_quit (((Recorder *) user_data)->loop);
  return G_SOURCE_CONTINUE;
}

int
rl_cmd_record (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *config_path = NULL;
  gint duration = 0;
  gint scan_interval = -1;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— write what the radios hear as a scan log");
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Append to FILE (default: standard output)", "FILE" },
    { "duration", 0, 0, G_OPTION_ARG_INT, &duration, "Stop after SECONDS (default: until interrupted)", "SECONDS" },
    { "scan-interval", 0, 0, G_OPTION_ARG_INT, &scan_interval, "Request a passive scan every SECONDS (default: the config's; 0 never)", "SECONDS" },
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path, "Read this regloc.conf", "FILE" },
    { NULL }
  };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "regloc record: error: %s (try --help)\n", error->message);
      return RL_EXIT_USAGE;
    }
  if (argc > 1)
    {
      fprintf (stderr, "regloc record: error: unexpected argument '%s' (try --help)\n", argv[1]);
      return RL_EXIT_USAGE;
    }
  if (duration < 0 || scan_interval < -1)
    {
      fprintf (stderr, "regloc record: error: --duration and --scan-interval take seconds >= 0\n");
      return RL_EXIT_USAGE;
    }
  g_autoptr (RlConfig) config = rl_config_load (config_path, &error);
  if (config == NULL)
    {
      fprintf (stderr, "regloc record: error: %s\n", error->message);
      return RL_EXIT_FAILURE;
    }
  /* record everything heard, whatever the daemon's switches say */
  config->beacons_enabled = TRUE;
  config->cell_enabled = TRUE;
  if (scan_interval >= 0)
    config->beacons_scan_interval_s = (guint) scan_interval;

  Recorder r = { 0 };
  r.out = stdout;
  if (output != NULL && (r.out = fopen (output, "a")) == NULL)
    {
      fprintf (stderr, "regloc record: error: cannot open %s: %s\n", output, g_strerror (errno));
      return RL_EXIT_FAILURE;
    }
  r.loop = g_main_loop_new (NULL, FALSE);
  RlSourceSink sink = { NULL, NULL, on_status, &r };
  RlSource *source = rl_beacons_source_ops.create (config, &sink);
  rl_beacons_set_scan_observer (source, on_scan, on_scan_done, &r);
  source->ops->start (source);
  RlSource *cell = rl_modem_source_ops.create (config, &sink);
  rl_modem_set_observer (cell, on_cell, &r);
  cell->ops->start (cell);
  guint sigint = g_unix_signal_add (SIGINT, on_stop, &r);
  guint sigterm = g_unix_signal_add (SIGTERM, on_stop, &r);
  guint timer = duration > 0 ? g_timeout_add_seconds ((guint) duration, on_stop, &r) : 0;
  g_main_loop_run (r.loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  if (timer != 0)
    g_source_remove (timer);
  gboolean available = source->available;
  source->ops->free (source);
  cell->ops->free (cell);
  g_main_loop_unref (r.loop);
  if (r.out != stdout)
    fclose (r.out);
  fprintf (stderr, "regloc record: %" G_GUINT64_FORMAT " BSS observations, %" G_GUINT64_FORMAT " scans and %"
           G_GUINT64_FORMAT " cell records written\n", r.lines, r.scans, r.cells);
  if (r.write_failed)
    return RL_EXIT_FAILURE;
  if (!available && r.lines == 0 && r.cells == 0)
    {
      fprintf (stderr, "regloc record: error: no nl80211 scan results could be read\n");
      return RL_EXIT_FAILURE;
    }
  return RL_EXIT_OK;
}
