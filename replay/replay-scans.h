/* Scan logs (JSON lines) and packet captures (pcap, pcapng) as replay input. */
#pragma once

#include <glib.h>
#include "replay/replay.h"

G_BEGIN_DECLS

/* Tells the formats apart by content, turns every heard BSS with a usable
 * Country element into beacon evidence and counts the rest
 * ("scans.bss_used", "scans.observations", "scans.skipped.<reason>"). */
gboolean rl_replay_load_scan_file (RlReplay *replay, const char *path, const RlConfig *config, GError **error);

/* TRUE when @data, the start of a file, is what rl_replay_load_scan_file()
 * reads: a capture's magic (pcap, pcapng), or a first line (past a byte
 * order mark, blanks and '#' comments) that is a scan log entry. */
gboolean rl_replay_scans_sniff (const char *data, gsize len);

G_END_DECLS
