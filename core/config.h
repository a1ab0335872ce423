/* regloc.conf: a GKeyFile loaded once into an immutable snapshot.
 *
 * Every key is described in one table in config.c (group, key, type, default,
 * range, one line of help); the shipped data/regloc.conf writes each of them
 * out with its default and tests/test-config.c checks the two agree.
 * Unknown groups or keys and bad values are errors that name the file, the
 * group, the key and the expected form. */
#pragma once

#include <glib.h>
#include "core/policy.h"

G_BEGIN_DECLS

#define RL_CONFIG_ERROR (rl_config_error_quark ())
GQuark rl_config_error_quark (void);

typedef enum {
  RL_CONFIG_ERROR_PARSE,
  RL_CONFIG_ERROR_UNKNOWN_KEY,
  RL_CONFIG_ERROR_BAD_VALUE,
} RlConfigError;

typedef struct {
  /* [general] */
  gboolean apply;                 /* set the kernel's domain */
  char *regulatory_db;            /* /lib/firmware/regulatory.db */
  char *boundary_index;           /* NULL: the built-in default */
  char *territories;              /* NULL: the built-in data/territories.tsv */
  char *zoneinfo_dir;             /* /usr/share/zoneinfo */

  /* [policy] */
  RlPolicyParams policy;

  /* [gps] */
  gboolean gps_enabled;
  char *gps_host;                 /* localhost */
  guint gps_port;                 /* 2947 */
  double gps_uere_m;              /* 5: error radius = HDOP × UERE when gpsd gives no eph */
  double gps_border_margin_m;     /* 100: name both countries within error + margin */

  /* [beacons] */
  gboolean beacons_enabled;
  guint beacons_scan_interval_s;  /* 0: never trigger scans ourselves */
  guint beacons_max_bss;          /* 512: cap of the per-BSS table */

  /* [timezone] */
  gboolean timezone_enabled;
  char *localtime_path;           /* /etc/localtime */

  /* [override] */
  RlCountry override_country;     /* RL_COUNTRY_NONE when unset */

  char *path;                     /* where it was loaded from, or NULL for defaults */

  /* freshness and moving platforms (issue 10, items 4-5) */
  double gps_max_speed_kmh;       /* [policy] 1200: a fix further away than this speed allows is distrusted */
  guint gps_best_fix_window_s;    /* [gps] 10: a worse fix does not replace a better one this recent */
  double gps_unknown_error_m;     /* [gps] 100: error radius of a fix that says nothing of its accuracy */
  double gps_still_speed_kmh;     /* [gps] 2: a receiver reporting at most this stands still … */
  guint gps_still_window_s;       /* [gps] 600: … and cannot jump across a border from a fix this recent */
  /* [policy], read by the engine (core/engine.h) */
  guint resume_wait_s;            /* 120: after a resume, wait this long at most for the sources that delivered before it */

  /* [cell]: the mobile network's country from ModemManager (issue 13) */
  gboolean cell_enabled;
  char *cell_providers;           /* mobile-broadband-provider-info's serviceproviders.xml */
  /* [gps] /run/gpsd.sock: gpsd's control socket, watched (inotify) while a local gpsd is absent; empty: retry instead */
  char *gps_control_socket;

  /* [driver]: self-managed cards' own countries as confirming evidence (issue 12) */
  gboolean driver_enabled;
  /* [apply]: what a change of the kernel's domain that regloc did not ask for brings */
  char *apply_foreign_change;     /* "yield" (show it, leave it) or "reassert" */
  guint apply_reassert_max;       /* 3: reasserts in any 60 s at most, so two setters cannot loop */
  /* [apply] wpa_supplicant: set wpa_supplicant's Country too (daemon/kernel/wpa-bridge.h) */
  gboolean apply_wpa_supplicant;
} RlConfig;

/* [apply] foreign_change = reassert */
gboolean rl_config_reasserts (const RlConfig *config);

RlConfig *rl_config_new_default (void);
/* Loads @path over the defaults; NULL path = defaults only. */
RlConfig *rl_config_load (const char *path, GError **error);
RlConfig *rl_config_load_data (const char *data, gsize len, const char *name, GError **error);
void rl_config_free (RlConfig *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlConfig, rl_config_free)

/* The schema, for tests and `regloc check-config --list`. */
typedef struct {
  const char *group;
  const char *key;
  const char *type;          /* "bool", "uint", "double", "string", "country" */
  const char *default_value;
  const char *help;
} RlConfigKeyInfo;

const RlConfigKeyInfo *rl_config_schema (gsize *n_keys);

/* TRUE when @a and @b hold the same value for every key of @group whose
 * name starts with @key_prefix ("" or NULL: every key of the group).  A
 * reload restarts only what a changed key concerns. */
gboolean rl_config_keys_equal (const RlConfig *a, const RlConfig *b, const char *group, const char *key_prefix);

G_END_DECLS
