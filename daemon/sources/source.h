/* The one abstraction every live evidence source implements.
 *
 * A source owns its I/O (a socket in the main loop, a file monitor …) and
 * reports through its sink: put() an item (replacing any with the same key),
 * withdraw() one by key, or say its availability changed.  The daemon owns
 * the evidence set and the policy; a source never decides anything.
 * Adding a source = one new file + one line in sources/registry.c. */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "core/config.h"

G_BEGIN_DECLS

typedef struct RlSource RlSource;

typedef struct {
  void (*put) (RlSource *source, const RlEvidence *evidence, gpointer user_data);
  void (*withdraw) (RlSource *source, const char *key, gpointer user_data);
  void (*status_changed) (RlSource *source, gpointer user_data);
  gpointer user_data;
} RlSourceSink;

typedef struct {
  const char *name;                 /* "beacons", "gps", "timezone", "override" */
  RlSourceKind kind;
  /* Allocates the source; returns NULL (and no error) when disabled in @config. */
  RlSource *(*create) (const RlConfig *config, const RlSourceSink *sink);
  /* Starts I/O.  A source whose device or service is missing starts anyway,
   * marks itself unavailable and retries on its own. */
  void (*start) (RlSource *source);
  void (*stop) (RlSource *source);
  void (*free) (RlSource *source);
  /* Optional: the machine resumed from sleep and the engine dropped the
   * observations from before it; a source that reports only changes puts
   * what it observes now again (the modem's registration). */
  void (*resumed) (RlSource *source);
} RlSourceOps;

struct RlSource {
  const RlSourceOps *ops;
  RlSourceSink sink;
  gboolean available;
  gint64 last_evidence;             /* evidence time of the last put(); 0 none */
  /* One line for `regloc status`, published as is in the public Sources
   * property: never a position, border distance, BSSID or SSID (counts,
   * countries, the gpsd address and errors only; docs/design.md). */
  char detail[160];
};

/* Helpers for implementations. */
void rl_source_init (RlSource *source, const RlSourceOps *ops, const RlSourceSink *sink);
void rl_source_put (RlSource *source, const RlEvidence *evidence);
void rl_source_withdraw (RlSource *source, const char *key);
void rl_source_set_status (RlSource *source, gboolean available, const char *detail_fmt, ...) G_GNUC_PRINTF (3, 4);

/* The registry: NULL-terminated, in the order sources start. */
extern const RlSourceOps *const rl_source_registry[];

G_END_DECLS
