/* The live loop of reglocd: sources → evidence set → policy → applier, and
 * the facts the D-Bus layer publishes.
 *
 * The daemon re-decides when evidence changes (once per main-loop turn,
 * however many items arrived) and when the policy says the decision may
 * change by itself (hold-down over, an item expiring): one timer at that
 * earliest instant, never a periodic tick, so an idle daemon never wakes. */
#pragma once

#include <glib.h>
#include "core/policy.h"
#include "core/evidence-set.h"
#include "core/config.h"
#include "core/regdb.h"
#include "daemon/kernel/applier-iface.h"

G_BEGIN_DECLS

#define RL_DAEMON_ERROR (rl_daemon_error_quark ())
GQuark rl_daemon_error_quark (void);

typedef enum {
  RL_DAEMON_ERROR_INVALID_COUNTRY,   /* not two letters / "00" */
  RL_DAEMON_ERROR_UNKNOWN_COUNTRY,   /* not in the regulatory database */
  RL_DAEMON_ERROR_FAILED,            /* e.g. the state file cannot be written */
} RlDaemonError;

typedef enum {
  RL_DAEMON_CHANGED_DECISION = 1 << 0,   /* country, state, reason, confidence, last change */
  RL_DAEMON_CHANGED_KERNEL = 1 << 1,
  RL_DAEMON_CHANGED_OVERRIDE = 1 << 2,
  RL_DAEMON_CHANGED_SOURCES = 1 << 3,
} RlDaemonChanges;

typedef struct RlDaemon RlDaemon;

/* @country_changed: the decided country changed from @old (also on the first decision). */
typedef void (*RlDaemonListener) (RlDaemon *daemon, RlDaemonChanges changes,
                                  RlCountry old_country, gpointer user_data);

typedef struct {
  const char *config_path;     /* NULL: built-in defaults */
  gboolean no_apply;           /* never touch the kernel */
  const char *const *replay;   /* NULL: live sources; else files fed in place of them */
  double replay_speed;         /* evidence seconds per wall second (≥ 1) */
  const RlApplierOps *applier; /* NULL: none (KernelCountry stays unknown) */
  /* Tests: a fake clock (µs) read in place of both the wall clock and the
   * boot clock; NULL: the real ones. */
  gint64 (*clock) (gpointer user_data);
  gpointer clock_data;
  /* Follow wpa_supplicant on the system bus and set its interfaces' Country
   * ([apply] wpa_supplicant, daemon/kernel/wpa-bridge.h); FALSE: never (tests). */
  gboolean wpa_supplicant;
} RlDaemonOptions;

typedef struct {
  const char *name;
  gboolean available;
  gint64 last_evidence;        /* µs since the epoch, 0 none */
  const char *detail;
} RlSourceStatus;

/* The config file to read when none is named: $CONFIGURATION_DIRECTORY's
 * or the sysconfdir's regloc.conf; NULL when neither exists (defaults). */
char *rl_daemon_find_config (void);
/* --session-bus: persist in $XDG_STATE_HOME/regloc unless STATE_DIRECTORY is set. */
void rl_daemon_use_user_state_dir (void);

/* Loads the config, the regulatory database and (for --replay) the files;
 * FALSE with @error for a bad config or an unreadable replay file. */
RlDaemon *rl_daemon_new (const RlDaemonOptions *options, GError **error);
void rl_daemon_free (RlDaemon *daemon);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlDaemon, rl_daemon_free)

/* Starts the sources (or the replay feed) and makes the first decision. */
void rl_daemon_start (RlDaemon *daemon);
void rl_daemon_set_listener (RlDaemon *daemon, RlDaemonListener listener, gpointer user_data);

/* SIGHUP: a config that does not load is rejected (FALSE, @error) and the
 * old one stays in force. */
gboolean rl_daemon_reload (RlDaemon *daemon, GError **error);
/* logind PrepareForSleep: going to sleep (TRUE) / resumed (FALSE). */
void rl_daemon_prepare_for_sleep (RlDaemon *daemon, gboolean sleeping);

/* The override over D-Bus: validated, persisted, then in force. */
gboolean rl_daemon_validate_override (RlDaemon *daemon, const char *country, RlCountry *out, GError **error);
gboolean rl_daemon_set_override (RlDaemon *daemon, const char *country, GError **error);
gboolean rl_daemon_clear_override (RlDaemon *daemon, GError **error);

/* The rules of @country ("" for the one in force) from the loaded
 * regulatory database; RL_DAEMON_ERROR_INVALID_COUNTRY, _UNKNOWN_COUNTRY,
 * or _FAILED when there is no usable database. */
RlRegDomain *rl_daemon_rules (RlDaemon *daemon, const char *country, GError **error);

/* The facts to publish.  Valid until the next main-loop turn. */
const RlDecision *rl_daemon_decision (RlDaemon *daemon);
gint64 rl_daemon_last_change (RlDaemon *daemon);       /* wall clock µs, 0 none */
const char *rl_daemon_kernel_country (RlDaemon *daemon);
/* Who set the kernel's domain last ("regloc", "user", "driver", "core", "country-ie"; "" unknown). */
const char *rl_daemon_kernel_set_by (RlDaemon *daemon);
/* The wiphys as the applier last reported them. */
const RlRadioInfo *rl_daemon_radios (RlDaemon *daemon, guint *n_radios);
RlCountry rl_daemon_override (RlDaemon *daemon, gboolean *from_config);
GArray *rl_daemon_source_status (RlDaemon *daemon);     /* RlSourceStatus; free the array */
const RlEvidence *rl_daemon_evidence (RlDaemon *daemon, gsize *n_items);
/* An item's observed_at / expires_at as the wall clock reads now (they
 * differ once the clock has been set); in replay mode the recorded time. */
gint64 rl_daemon_evidence_wall_time (RlDaemon *daemon, gint64 t);
/* Tests on a fake clock: the evidence time the one timer is set for
 * (RL_NEVER: none), and firing it now instead of waiting. */
gint64 rl_daemon_timer_due (RlDaemon *daemon);
void rl_daemon_fire_timer (RlDaemon *daemon);

/* The explanation paragraph, with the sources' state and what is applied,
 * at a detail level (RlDetailLevel, core/evidence.h): RL_DETAIL_PUBLIC
 * names no position, BSSID or SSID.  rl_daemon_explain() is the full level. */
char *rl_daemon_explain_at (RlDaemon *daemon, guint level);
char *rl_daemon_explain (RlDaemon *daemon);

G_END_DECLS
