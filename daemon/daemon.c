#define G_LOG_DOMAIN "reglocd"

#include "daemon/daemon.h"
#include "core/engine.h"
#include "replay/replay-feed.h"
#include "daemon/sources/source.h"
#include "daemon/sources/override.h"
#include "daemon/sources/beacons.h"
#include "daemon/state.h"
#include "daemon/kernel/wpa-bridge.h"
#include "rl-build-config.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* journald MESSAGE_ID of "regulatory country changed" records. */
#define RL_MESSAGE_ID_COUNTRY_CHANGED "6b3d1f0c9a2e4e57b8d94c1a7f02e5d3"
/* ... and of "same country, new state" records (world → tentative, …),
 * logged at info level: evidence that flaps must not flood the journal. */
#define RL_MESSAGE_ID_STATE_CHANGED "0d6c2b8e5f9a4c1d93e7a2b4c6d8e0f1"
/* ... and of "someone else set the kernel's domain" records. */
#define RL_MESSAGE_ID_FOREIGN_CHANGE "51a7eda878ab4ed9a95a3f1a354aec17"
/* The window [apply] reassert_max counts in. */
#define RL_REASSERT_WINDOW_US (60 * RL_USEC_PER_SEC)
/* A difference between the wall clock and the boot clock that moves by
 * more than this was someone setting the clock, not NTP slewing it. */
#define RL_CLOCK_JUMP_US (2 * RL_USEC_PER_SEC)

G_DEFINE_QUARK (rl-daemon-error-quark, rl_daemon_error)

typedef struct {
  const RlSourceOps *ops;
  RlSource *source;               /* NULL: disabled in the config, or replay mode */
} RlSourceSlot;

struct RlDaemon {
  RlDaemonOptions options;
  char *config_path;
  RlConfig *config;
  RlRegulatory *regulatory;
  RlEngine *engine;               /* the evidence and the decision in force */
  gint64 last_change_wall;

  GArray *slots;                  /* RlSourceSlot, registry order */
  RlReplayFeed *feed;             /* --replay */

  /* Evidence time: the wall clock as it read at the start, advanced by
   * the boot clock, which nobody sets (so evidence ages correctly when the
   * wall clock is set back or forward) and which counts a suspend (so
   * evidence ages across one).  In replay mode, the recorded time running
   * @speed times faster from the moment the feed started. */
  gint64 origin_wall, origin_boot, origin_evidence;
  double speed;
  gint64 clock_shift;             /* evidence time - wall clock, last seen */

  guint idle_id;                  /* pending re-decision */
  RlDaemonChanges pending;        /* to announce with it */
  guint timer_id;                 /* the one timer: next_check of the decision */
  gint64 timer_at;
  gint64 sleep_started;           /* evidence time of PrepareForSleep(true), 0 awake */

  gpointer applier;
  char *kernel_country;
  char *kernel_status;
  gboolean kernel_reachable;    /* as the applier last said */
  RlCountry applied;              /* what we last asked the kernel for */
  char *apply_problem;            /* last apply error, logged once */
  char *kernel_set_by;            /* "regloc", "user", …; "" unknown */
  GArray *radios;                 /* RlRadioInfo, as the applier last said */
  GArray *reasserts;              /* gint64 monotonic µs of the reasserts in the window */
  guint reassert_id;              /* pending reassert (idle) */
  gboolean reassert_held;         /* the bound was hit: said once */
  RlWpaBridge *wpa;               /* [apply] wpa_supplicant; NULL off */

  RlDaemonListener listener;
  gpointer listener_data;
};

static void daemon_redecide (RlDaemon *self);

static gboolean
daemon_may_apply (RlDaemon *self)
{
  return !self->options.no_apply && self->config->apply;
}

static gint64
boot_clock (RlDaemon *self)
{
  struct timespec ts;

  if (self->options.clock != NULL)
    return self->options.clock (self->options.clock_data);
  if (clock_gettime (CLOCK_BOOTTIME, &ts) != 0)
    return g_get_monotonic_time ();
  return (gint64) ts.tv_sec * RL_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gint64
wall_clock (RlDaemon *self)
{
  return self->options.clock != NULL ? self->options.clock (self->options.clock_data) : g_get_real_time ();
}

static void
daemon_set_origin (RlDaemon *self)
{
  self->origin_wall = wall_clock (self);
  self->origin_boot = boot_clock (self);
  self->clock_shift = 0;
}

static gint64
daemon_now (RlDaemon *self)
{
  gint64 wall = self->origin_wall + (boot_clock (self) - self->origin_boot);

  if (self->feed == NULL)
    return wall;
  return self->origin_evidence + (gint64) ((double) (wall - self->origin_wall) * self->speed);
}

static gint64
evidence_to_wall (RlDaemon *self, gint64 t)
{
  if (t == 0 || t == RL_NEVER)
    return t;
  if (self->feed == NULL)
    return t - (daemon_now (self) - wall_clock (self));
  return self->origin_wall + (gint64) ((double) (t - self->origin_evidence) / self->speed);
}

static void
daemon_notify (RlDaemon *self, RlDaemonChanges changes, RlCountry old_country)
{
  if (changes != 0 && self->listener != NULL)
    self->listener (self, changes, old_country, self->listener_data);
}

static gboolean
on_idle_redecide (gpointer user_data)
{
  RlDaemon *self = user_data;

  self->idle_id = 0;
  daemon_redecide (self);
  return G_SOURCE_REMOVE;
}

/* Many items can arrive in one turn (a scan dump): decide once after them. */
static void
daemon_queue_redecide (RlDaemon *self)
{
  if (self->idle_id == 0)
    self->idle_id = g_idle_add (on_idle_redecide, self);
}

static gboolean daemon_feed (RlDaemon *self);
static void daemon_schedule_next (RlDaemon *self);

static gboolean
on_timer (gpointer user_data)
{
  RlDaemon *self = user_data;

  self->timer_id = 0;
  if (self->feed != NULL)
    {
      /* a scan's results are decided on at its end (rl_replay_scan_hold) */
      if (daemon_feed (self))
        {
          daemon_schedule_next (self);
          return G_SOURCE_REMOVE;
        }
    }
  daemon_redecide (self);
  return G_SOURCE_REMOVE;
}

gint64
rl_daemon_timer_due (RlDaemon *self)
{
  return self->timer_id != 0 ? self->timer_at : RL_NEVER;
}

void
rl_daemon_fire_timer (RlDaemon *self)
{
  g_clear_handle_id (&self->timer_id, g_source_remove);
  on_timer (self);
}

static void
daemon_schedule (RlDaemon *self, gint64 at)
{
  gint64 now = daemon_now (self);
  gint64 delay_us;
  guint delay_ms;

  if (self->timer_id != 0 && self->timer_at == at)
    return;
  g_clear_handle_id (&self->timer_id, g_source_remove);
  self->timer_at = at;
  if (at == RL_NEVER)
    return;
  /* The policy promises next_check > now; if it ever does not, wait a
   * second rather than spin. */
  delay_us = at > now ? (gint64) ceil ((double) (at - now) / self->speed) : RL_USEC_PER_SEC;
  delay_ms = (guint) MIN ((delay_us + 999) / 1000, (gint64) G_MAXUINT32 / 2);
  self->timer_id = g_timeout_add (delay_ms, on_timer, self);
}

/* The timer for the next instant the decision may change by itself, or
 * the next recorded event of a replay. */
static void
daemon_schedule_next (RlDaemon *self)
{
  gint64 next = rl_engine_next_instant (self->engine);

  if (self->feed != NULL)
    next = MIN (next, rl_replay_feed_next_time (self->feed));
  daemon_schedule (self, next);
}

static void
daemon_log_change (RlDaemon *self, const RlDecision *old, const RlDecision *dec)
{
  char cc[3], old_cc[3], confidence[G_ASCII_DTOSTR_BUF_SIZE];

  /* Every field but MESSAGE is a plain string to g_log_structured. */
  g_ascii_formatd (confidence, sizeof confidence, "%.2f", dec->confidence);
  rl_country_to_string (dec->country, cc);
  rl_country_to_string (old ? old->country : RL_COUNTRY_WORLD, old_cc);
  gboolean country_changed = old == NULL || old->country != dec->country;
  g_log_structured (G_LOG_DOMAIN, country_changed ? G_LOG_LEVEL_MESSAGE : G_LOG_LEVEL_INFO,
                    "MESSAGE_ID", country_changed ? RL_MESSAGE_ID_COUNTRY_CHANGED : RL_MESSAGE_ID_STATE_CHANGED,
                    "RL_COUNTRY", cc,
                    "RL_PREVIOUS_COUNTRY", old_cc,
                    "RL_STATE", rl_state_to_string (dec->state),
                    "RL_REASON", rl_reason_to_string (dec->reason),
                    "RL_CONFIDENCE", confidence,
                    "MESSAGE", "Decision: country=%s state=%s reason=%s confidence=%s (%s)",
                    cc, rl_state_to_string (dec->state), rl_reason_to_string (dec->reason),
                    confidence, dec->summary ? dec->summary : "");
}

static void
daemon_apply (RlDaemon *self, RlCountry country)
{
  g_autoptr(GError) error = NULL;
  char cc[3];

  /* wpa_supplicant too, whatever the kernel says: it sets the kernel itself. */
  if (self->wpa != NULL)
    rl_wpa_bridge_set_country (self->wpa, country);
  if (!daemon_may_apply (self) || self->applier == NULL || country == self->applied)
    return;
  if (!self->options.applier->apply (self->applier, country, &error))
    {
      /* Said once until it works again (no CAP_NET_ADMIN stays so). */
      rl_country_to_string (country, cc);
      if (self->apply_problem == NULL)
        g_warning ("Cannot set the kernel's country to %s: %s; deciding and publishing only",
                   cc, error->message);
      else
        g_debug ("Cannot set the kernel's country to %s: %s", cc, error->message);
      g_free (self->apply_problem);
      self->apply_problem = g_strdup (error->message);
      return;
    }
  g_clear_pointer (&self->apply_problem, g_free);
  self->applied = country;
}

/* The changes a new decision brings, logged and applied. */
static RlDaemonChanges
daemon_take_decision (RlDaemon *self, const RlDecision *old, const RlDecision *dec)
{
  if (old == NULL || old->country != dec->country || old->state != dec->state)
    {
      self->last_change_wall = wall_clock (self);
      daemon_log_change (self, old, dec);
      daemon_apply (self, dec->country);
      return RL_DAEMON_CHANGED_DECISION;
    }
  if (old->reason != dec->reason || fabs (old->confidence - dec->confidence) > 1e-9 ||
      g_strcmp0 (old->summary, dec->summary) != 0)
    {
      g_debug ("Decision unchanged (%s), reason now %s", rl_state_to_string (dec->state),
               dec->summary ? dec->summary : rl_reason_to_string (dec->reason));
      return RL_DAEMON_CHANGED_DECISION;
    }
  return 0;
}

static void
daemon_decide_at (RlDaemon *self, gint64 now)
{
  g_autoptr(RlDecision) old = NULL;
  RlDaemonChanges changes = self->pending;
  const RlDecision *before = rl_engine_decision (self->engine);
  RlCountry old_country = before ? before->country : RL_COUNTRY_WORLD;
  guint expired = 0;

  g_clear_handle_id (&self->idle_id, g_source_remove);
  self->pending = 0;
  if (rl_engine_decide_at (self->engine, now, &old, &expired))
    changes |= daemon_take_decision (self, old, rl_engine_decision (self->engine));
  if (expired > 0)
    changes |= RL_DAEMON_CHANGED_SOURCES;

  daemon_schedule_next (self);
  daemon_notify (self, changes, old_country);
}

static void
daemon_redecide (RlDaemon *self)
{
  daemon_decide_at (self, daemon_now (self));
}

/* --- the sources' sink -------------------------------------------------- */

/* Sources stamp evidence with the wall clock; the evidence set runs on
 * evidence time (see origin_boot), or in replay mode on the replay clock. */
static void
restamp (RlDaemon *self, RlEvidence *ev)
{
  gint64 shift;

  if (self->feed == NULL)
    {
      shift = daemon_now (self) - wall_clock (self);
      if (ABS (shift - self->clock_shift) > RL_CLOCK_JUMP_US)
        g_message ("The system clock was set %s by %.0f s; evidence keeps ageing by the time since boot",
                   shift > self->clock_shift ? "back" : "forward",
                   fabs ((double) (shift - self->clock_shift)) / RL_USEC_PER_SEC);
      self->clock_shift = shift;
    }
  else
    shift = daemon_now (self) - ev->observed_at;
  ev->observed_at += shift;
  if (ev->expires_at != RL_NEVER)
    ev->expires_at += shift;
}

static void
on_source_put (RlSource *source, const RlEvidence *evidence, gpointer user_data)
{
  RlDaemon *self = user_data;
  RlEvidence ev = *evidence;

  restamp (self, &ev);
  rl_engine_add (self->engine, &ev);
  /* The source's last-evidence time moved: published with the decision. */
  self->pending |= RL_DAEMON_CHANGED_SOURCES;
  daemon_queue_redecide (self);
}

static void
on_source_withdraw (RlSource *source, const char *key, gpointer user_data)
{
  RlDaemon *self = user_data;

  if (rl_engine_withdraw (self->engine, key))
    daemon_queue_redecide (self);
}

static void
on_source_status (RlSource *source, gpointer user_data)
{
  RlDaemon *self = user_data;

  self->pending |= RL_DAEMON_CHANGED_SOURCES;
  daemon_queue_redecide (self);
}

static RlSource *
daemon_find_source (RlDaemon *self, const RlSourceOps *ops)
{
  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);
      if (slot->ops == ops)
        return slot->source;
    }
  return NULL;
}

static void
daemon_stop_sources (RlDaemon *self)
{
  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);
      if (slot->source == NULL)
        continue;
      slot->ops->stop (slot->source);
      slot->ops->free (slot->source);
      slot->source = NULL;
      /* A stopped source's evidence no longer stands. */
      if (self->feed == NULL || slot->ops->kind == RL_SOURCE_OVERRIDE)
        rl_engine_withdraw_kind (self->engine, slot->ops->kind);
    }
  g_array_set_size (self->slots, 0);
}

/* The Wi-Fi's scan ended: its results are in (docs/policy.md, rule 8c). */
static void
on_scan_done (const char *ifname, const guint32 *freqs, guint n_freqs, gint64 done_at, gint32 silent_mbm,
              gpointer user_data)
{
  RlDaemon *self = user_data;

  rl_engine_heard_silent (self->engine, silent_mbm);
  rl_engine_scan_ended (self->engine);
  daemon_queue_redecide (self);
}

static RlSource *
daemon_create_source (RlDaemon *self, const RlSourceOps *ops)
{
  RlSourceSink sink = { on_source_put, on_source_withdraw, on_source_status, self };
  RlSource *source;

  /* Replay feeds stand in for every live source but the override,
   * which stays so a recorded trip can be overridden like a live one. */
  if (self->feed != NULL && ops->kind != RL_SOURCE_OVERRIDE)
    return NULL;
  source = ops->create (self->config, &sink);
  if (source != NULL)
    {
      if (ops == &rl_beacons_source_ops)
        rl_beacons_set_scan_observer (source, NULL, on_scan_done, self);
      g_debug ("Starting source %s", ops->name);
      ops->start (source);
    }
  return source;
}

static void
daemon_start_sources (RlDaemon *self)
{
  for (guint i = 0; rl_source_registry[i] != NULL; i++)
    {
      RlSourceSlot slot = { rl_source_registry[i], NULL };

      slot.source = daemon_create_source (self, slot.ops);
      g_array_append_val (self->slots, slot);
    }
}

/* The settings a source reads when it is created: its own group, and the
 * [general] and [policy] keys named here.  A reload that changes none of
 * them keeps the source running, and its evidence standing. */
static gboolean
source_settings_unchanged (const RlSourceOps *ops, const RlConfig *old, const RlConfig *new)
{
  static const struct {
    const char *name;
    const char *general_key;        /* NULL: none */
    const char *policy_prefixes[3];
  } deps[] = {
    { "beacons", NULL, { "max_age_beacons", NULL } },
    { "gps", "boundary_index", { "max_age_gps", "gps_", "air" } },
    { "timezone", "zoneinfo_dir", { "max_age_timezone", NULL } },
    { "override", NULL, { "max_age_override", NULL } },
    { "cell", NULL, { "max_age_cell", NULL } },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (deps); i++)
    {
      if (strcmp (deps[i].name, ops->name) != 0)
        continue;
      if (!rl_config_keys_equal (old, new, ops->name, NULL) ||
          (deps[i].general_key != NULL && !rl_config_keys_equal (old, new, "general", deps[i].general_key)))
        return FALSE;
      for (gsize k = 0; k < G_N_ELEMENTS (deps[i].policy_prefixes) && deps[i].policy_prefixes[k]; k++)
        if (!rl_config_keys_equal (old, new, "policy", deps[i].policy_prefixes[k]))
          return FALSE;
      return TRUE;
    }
  /* A source not listed here: every key counts. */
  return FALSE;
}

/* Stops the sources whose settings @config changes, and those that are
 * unavailable; returns how many. */
static guint
daemon_stop_changed_sources (RlDaemon *self, const RlConfig *config)
{
  guint stopped = 0;

  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);

      if (slot->source == NULL ||
          (slot->source->available && source_settings_unchanged (slot->ops, self->config, config)))
        continue;
      /* An unavailable source is retried too: SIGHUP is how an administrator
       * says a data file (the boundary index) was replaced. */
      g_message ("Restarting source %s: %s", slot->ops->name,
                 slot->source->available ? "its settings changed" : "it was unavailable");
      slot->ops->stop (slot->source);
      slot->ops->free (slot->source);
      slot->source = NULL;
      if (self->feed == NULL || slot->ops->kind == RL_SOURCE_OVERRIDE)
        rl_engine_withdraw_kind (self->engine, slot->ops->kind);
      stopped++;
    }
  return stopped;
}

/* --- replay -------------------------------------------------------------- */

static void
on_feed_event (const RlEvent *event, gpointer user_data)
{
  RlDaemon *self = user_data;

  rl_engine_apply (self->engine, event);
}

/* Hands over every recorded event that is due on the replay clock, instant
 * by instant, deciding at each one and at every instant in between where
 * the decision may change by itself: a timer that fires late (a loaded
 * machine) gives the very timeline `regloc replay` prints, only later.
 * TRUE: the last instant handed over was a scan's results, decided on at
 * its end (rl_replay_scan_hold). */
static gboolean
daemon_feed (RlDaemon *self)
{
  RlReplayFeedHooks hooks = { on_feed_event, self };
  gint64 now = daemon_now (self);
  gint64 t;
  gboolean joins = FALSE;

  while ((t = rl_replay_feed_next_time (self->feed)) <= now)
    {
      gint64 due;

      while ((due = rl_engine_next_due (self->engine, t)) != RL_NEVER)
        daemon_decide_at (self, due);
      rl_replay_feed_deliver (self->feed, t, &hooks);
      self->pending |= RL_DAEMON_CHANGED_SOURCES;
      joins = rl_replay_feed_joins_scan (self->feed);
      if (!joins)
        daemon_decide_at (self, t);
    }
  return joins;
}

/* --- kernel -------------------------------------------------------------- */

/* A self-managed card's own country is evidence (docs/policy.md, "driver"):
 * one item per card, replaced when its country changes, gone with the card. */
static void
daemon_update_driver_evidence (RlDaemon *self)
{
  gint64 now = daemon_now (self);
  guint n = 0;

  if (self->feed != NULL)
    return;   /* a replay stands in for every live source */
  n = rl_engine_withdraw_kind (self->engine, RL_SOURCE_DRIVER);
  for (guint i = 0; self->config->driver_enabled && i < self->radios->len; i++)
    {
      const RlRadioInfo *r = &g_array_index (self->radios, RlRadioInfo, i);
      RlCountry c;
      RlEvidence ev;

      if (r->self_managed && rl_country_parse (r->country, &c) &&
          rl_driver_evidence (&ev, r->name, r->driver, c, now, self->config->policy.max_age_s[RL_SOURCE_DRIVER]))
        {
          rl_engine_add (self->engine, &ev);
          n++;
        }
    }
  if (n > 0)
    daemon_queue_redecide (self);
}

static gboolean
daemon_take_radios (RlDaemon *self, const RlKernelState *k)
{
  if (rl_radio_infos_equal (k->radios, k->n_radios, (const RlRadioInfo *) self->radios->data, self->radios->len))
    return FALSE;
  g_array_set_size (self->radios, 0);
  g_array_append_vals (self->radios, k->radios, k->n_radios);
  /* no card to scan: nothing to wait for from Wi-Fi (until the kernel
   * names one, every machine is taken to have one) */
  if (self->feed == NULL)
    rl_engine_set_has_wifi (self->engine, k->n_radios > 0);
  for (guint i = 0; i < k->n_radios; i++)
    g_info ("Radio %s (%s): %s, country %s", k->radios[i].name, k->radios[i].driver[0] ? k->radios[i].driver : "?",
            k->radios[i].self_managed ? "self-managed" : "follows the kernel's domain",
            k->radios[i].country[0] ? k->radios[i].country : "unknown");
  return TRUE;
}

static gboolean
on_reassert (gpointer user_data)
{
  RlDaemon *self = user_data;
  const RlDecision *dec = rl_engine_decision (self->engine);
  gint64 now = g_get_monotonic_time ();
  char cc[3];

  self->reassert_id = 0;
  while (self->reasserts->len > 0 && now - g_array_index (self->reasserts, gint64, 0) > RL_REASSERT_WINDOW_US)
    g_array_remove_index (self->reasserts, 0);
  if (dec == NULL || !daemon_may_apply (self))
    return G_SOURCE_REMOVE;
  if (self->reasserts->len >= self->config->apply_reassert_max)
    {
      if (!self->reassert_held)
        g_warning ("Not setting %s again: %u reasserts in the last minute ([apply] reassert_max); yielding",
                   rl_country_to_string (dec->country, cc), self->reasserts->len);
      self->reassert_held = TRUE;
      return G_SOURCE_REMOVE;
    }
  self->reassert_held = FALSE;
  g_array_append_val (self->reasserts, now);
  g_message ("Setting the kernel's domain to %s again (reassert %u of at most %u a minute)",
             rl_country_to_string (dec->country, cc), self->reasserts->len, self->config->apply_reassert_max);
  self->applied = RL_COUNTRY_NONE;
  daemon_apply (self, dec->country);
  return G_SOURCE_REMOVE;
}

/* Someone else set the kernel's domain: said once per change, and yielded
 * to or, with [apply] foreign_change=reassert, answered with ours. */
static void
daemon_foreign_change (RlDaemon *self, const char *alpha2, const char *set_by)
{
  gboolean reassert = rl_config_reasserts (self->config) && daemon_may_apply (self) &&
                      self->applied != RL_COUNTRY_NONE && strcmp (set_by, "core") != 0;
  char ours[3];

  rl_country_to_string (self->applied, ours);
  if (self->applied != RL_COUNTRY_NONE && strcmp (alpha2, ours) == 0)
    reassert = FALSE;   /* the same country: nothing to answer */
  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                    "MESSAGE_ID", RL_MESSAGE_ID_FOREIGN_CHANGE,
                    "RL_KERNEL_COUNTRY", alpha2,
                    "RL_SET_BY", set_by,
                    "RL_COUNTRY", self->applied != RL_COUNTRY_NONE ? ours : "",
                    "RL_ACTION", reassert ? "reassert" : "yield",
                    "MESSAGE", "Kernel regulatory domain set to %s by %s, not by regloc (regloc's: %s); %s",
                    alpha2[0] ? alpha2 : "?", set_by,
                    self->applied != RL_COUNTRY_NONE ? ours : "none", reassert ? "setting ours again" : "yielding");
  if (reassert && self->reassert_id == 0)
    self->reassert_id = g_idle_add (on_reassert, self);
}

static void
on_kernel_changed (const RlKernelState *k, gpointer user_data)
{
  RlDaemon *self = user_data;
  const char *alpha2 = k->alpha2 ? k->alpha2 : "", *status = k->status ? k->status : "";
  const char *set_by = k->set_by ? k->set_by : "";
  gboolean radios_changed = daemon_take_radios (self, k);
  gboolean setter_news = g_strcmp0 (self->kernel_set_by, set_by) != 0 || g_strcmp0 (self->kernel_country, alpha2) != 0;

  if (g_strcmp0 (self->kernel_country, alpha2) != 0 || g_strcmp0 (self->kernel_status, status) != 0
      || self->kernel_reachable != k->reachable)
    g_message ("Kernel regulatory domain: %s (%s%s%s)", alpha2[0] ? alpha2 : "unknown", status,
               set_by[0] ? "; set by " : "", set_by);
  else if (!radios_changed && !setter_news)
    return;
  if (setter_news && set_by[0] && strcmp (set_by, "regloc") != 0)
    daemon_foreign_change (self, alpha2, set_by);
  self->kernel_reachable = k->reachable;
  g_free (self->kernel_country);
  self->kernel_country = g_strdup (alpha2);
  g_free (self->kernel_status);
  self->kernel_status = g_strdup (status);
  g_free (self->kernel_set_by);
  self->kernel_set_by = g_strdup (set_by);
  if (radios_changed)
    daemon_update_driver_evidence (self);
  daemon_notify (self, RL_DAEMON_CHANGED_KERNEL, RL_COUNTRY_NONE);
}

/* --- life cycle ---------------------------------------------------------- */

static void
daemon_start_applier (RlDaemon *self)
{
  g_free (self->kernel_status);
  self->kernel_status = g_strdup (daemon_may_apply (self) ? "no applier in this build" : "not applying (observe mode)");
  if (self->options.applier != NULL)
    {
      g_autoptr(GError) error = NULL;
      RlApplierHooks hooks = { on_kernel_changed, self };

      /* Created in observe mode too: the kernel's country is worth showing. */
      self->applier = self->options.applier->create (&hooks, daemon_may_apply (self), &error);
      if (self->applier == NULL)
        {
          g_warning ("Not applying decisions to the kernel: %s", error->message);
          g_free (self->kernel_status);
          self->kernel_status = g_strdup (error->message);
        }
    }
}

/* The wpa_supplicant bridge: only where the daemon may apply (setting
 * wpa_supplicant's country moves the kernel's too) and [apply] says so. */
static void
daemon_start_wpa (RlDaemon *self)
{
  const RlDecision *decision = rl_engine_decision (self->engine);

  if (!self->options.wpa_supplicant || !daemon_may_apply (self) || !self->config->apply_wpa_supplicant ||
      self->wpa != NULL)
    return;
  self->wpa = rl_wpa_bridge_new ();
  if (decision != NULL)
    rl_wpa_bridge_set_country (self->wpa, decision->country);
}

static void
daemon_stop_wpa (RlDaemon *self)
{
  g_clear_pointer (&self->wpa, rl_wpa_bridge_free);
}

static void
daemon_stop_applier (RlDaemon *self)
{
  if (self->applier != NULL)
    self->options.applier->free (self->applier);
  self->applier = NULL;
  self->applied = RL_COUNTRY_NONE;
  /* the cards' countries came from it (the caller re-decides) */
  if (self->radios != NULL)
    g_array_set_size (self->radios, 0);
  if (self->engine != NULL)
    rl_engine_withdraw_kind (self->engine, RL_SOURCE_DRIVER);
}


static RlConfig *
daemon_load_config (const char *path, GError **error)
{
  return rl_config_load (path, error);
}

static RlRegulatory *
daemon_load_regulatory (const RlConfig *config)
{
  g_autoptr(GError) error = NULL;
  RlRegulatory *reg = rl_regulatory_load (config->regulatory_db, config->territories, &error);

  if (error != NULL)
    g_warning ("Regulatory database: %s; only the world domain 00 can be decided", error->message);
  return reg;
}

/* A persisted override must name a country SetOverride would accept: a
 * code the installed regulatory.db lacks (a file edited by hand, a database
 * downgraded) is ignored with a warning, as a damaged file is.  Without a
 * readable database nothing can be checked, and the override stands. */
static void
daemon_check_persisted_override (RlDaemon *self)
{
  RlSource *source = daemon_find_source (self, &rl_override_source_ops);
  gboolean from_config = FALSE;
  RlCountry country;
  char cc[3];

  if (source == NULL || rl_regulatory_problem (self->regulatory) != NULL)
    return;
  country = rl_override_source_current (source, &from_config);
  if (country == RL_COUNTRY_NONE || country == RL_COUNTRY_WORLD || from_config ||
      rl_regulatory_has (self->regulatory, country))
    return;
  g_warning ("Ignoring the persisted override: %s is not in the regulatory database",
             rl_country_to_string (country, cc));
  rl_override_source_set_dbus (source, RL_COUNTRY_NONE);
}

RlDaemon *
rl_daemon_new (const RlDaemonOptions *options, GError **error)
{
  g_autoptr(RlDaemon) self = g_new0 (RlDaemon, 1);

  self->options = *options;
  self->config_path = g_strdup (options->config_path);
  self->options.config_path = self->config_path;
  self->speed = options->replay_speed >= 1.0 ? options->replay_speed : 1.0;
  self->slots = g_array_new (FALSE, TRUE, sizeof (RlSourceSlot));
  self->kernel_country = g_strdup ("");
  self->kernel_set_by = g_strdup ("");
  self->radios = g_array_new (FALSE, TRUE, sizeof (RlRadioInfo));
  self->reasserts = g_array_new (FALSE, FALSE, sizeof (gint64));
  daemon_set_origin (self);

  self->config = daemon_load_config (self->config_path, error);
  if (self->config == NULL)
    return NULL;
  self->regulatory = daemon_load_regulatory (self->config);
  self->engine = rl_engine_new (self->config, self->regulatory);
  if (options->replay != NULL && options->replay[0] != NULL)
    {
      self->feed = rl_replay_feed_load (options->replay, self->config, self->regulatory, error);
      if (self->feed == NULL)
        return NULL;
      rl_engine_set_has_wifi (self->engine, rl_replay_feed_has_wifi (self->feed));
    }
  return g_steal_pointer (&self);
}

void
rl_daemon_set_listener (RlDaemon *self, RlDaemonListener listener, gpointer user_data)
{
  self->listener = listener;
  self->listener_data = user_data;
}

void
rl_daemon_start (RlDaemon *self)
{
  g_return_if_fail (self != NULL);

  daemon_set_origin (self);
  self->origin_evidence = self->feed ? rl_replay_feed_start_time (self->feed) : self->origin_wall;

  daemon_start_applier (self);
  daemon_start_wpa (self);
  daemon_start_sources (self);
  daemon_check_persisted_override (self);
  if (self->feed != NULL)
    {
      g_message ("Replaying %s at %g× from %s", rl_replay_feed_describe (self->feed), self->speed,
                 rl_replay_feed_start_text (self->feed));
      daemon_feed (self);
    }
  daemon_redecide (self);
}

void
rl_daemon_free (RlDaemon *self)
{
  if (self == NULL)
    return;
  g_clear_handle_id (&self->idle_id, g_source_remove);
  g_clear_handle_id (&self->timer_id, g_source_remove);
  g_clear_handle_id (&self->reassert_id, g_source_remove);
  if (self->slots != NULL)
    daemon_stop_sources (self);
  g_clear_pointer (&self->slots, g_array_unref);
  daemon_stop_wpa (self);
  daemon_stop_applier (self);
  g_clear_pointer (&self->feed, rl_replay_feed_free);
  g_clear_pointer (&self->engine, rl_engine_free);
  g_clear_pointer (&self->regulatory, rl_regulatory_free);
  g_clear_pointer (&self->config, rl_config_free);
  g_free (self->config_path);
  g_free (self->kernel_country);
  g_free (self->kernel_status);
  g_free (self->apply_problem);
  g_free (self->kernel_set_by);
  g_clear_pointer (&self->radios, g_array_unref);
  g_clear_pointer (&self->reasserts, g_array_unref);
  g_free (self);
}

gboolean
rl_daemon_reload (RlDaemon *self, GError **error)
{
  g_autoptr(GError) local = NULL;
  RlConfig *config = daemon_load_config (self->config_path, &local);
  gboolean apply_changed, wpa_changed;

  if (config == NULL)
    {
      g_warning ("Keeping the old configuration: %s", local->message);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* Only what a changed setting concerns restarts: the evidence of every
   * other source stands, and a changed policy re-decides on it. */
  daemon_stop_changed_sources (self, config);
  apply_changed = !rl_config_keys_equal (self->config, config, "general", "apply");
  wpa_changed = apply_changed || !rl_config_keys_equal (self->config, config, "apply", "wpa_supplicant");
  if (apply_changed)
    daemon_stop_applier (self);
  if (wpa_changed)
    daemon_stop_wpa (self);
  rl_config_free (self->config);
  self->config = config;
  rl_regulatory_free (self->regulatory);
  self->regulatory = daemon_load_regulatory (self->config);
  rl_engine_set_config (self->engine, self->config, self->regulatory);
  if (apply_changed)
    daemon_start_applier (self);   /* the decision is re-sent */
  else
    daemon_update_driver_evidence (self);   /* [driver] enabled, max_age_driver */
  if (wpa_changed)
    daemon_start_wpa (self);
  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);
      if (slot->source == NULL)
        slot->source = daemon_create_source (self, slot->ops);
    }
  /* Last: tests and people read everything the reload did above this line. */
  g_message ("Reloaded the configuration from %s", self->config_path ? self->config_path : "built-in defaults");
  daemon_redecide (self);
  daemon_notify (self, RL_DAEMON_CHANGED_SOURCES | RL_DAEMON_CHANGED_OVERRIDE, RL_COUNTRY_NONE);
  return TRUE;
}

void
rl_daemon_prepare_for_sleep (RlDaemon *self, gboolean sleeping)
{
  gint64 now = daemon_now (self);
  guint dropped;

  if (sleeping)
    {
      self->sleep_started = now;
      return;
    }
  /* The machine may have moved while it slept: what was seen before the
   * resume no longer says where it is. */
  dropped = rl_engine_resume (self->engine, now);
  g_message ("Resumed from sleep: dropped %u observations from before it", dropped);
  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);
      if (slot->source != NULL && slot->ops->resumed != NULL)
        slot->ops->resumed (slot->source);
    }
  self->sleep_started = 0;
  daemon_redecide (self);
  daemon_notify (self, RL_DAEMON_CHANGED_SOURCES, RL_COUNTRY_NONE);
}

static gboolean
daemon_change_override (RlDaemon *self, RlCountry country, GError **error)
{
  RlSource *source = daemon_find_source (self, &rl_override_source_ops);
  g_autofree char *dir = rl_state_dir ();
  g_autoptr(GError) local = NULL;
  char cc[3];

  if (source == NULL)
    {
      g_set_error_literal (error, RL_DAEMON_ERROR, RL_DAEMON_ERROR_FAILED,
                           "The override source is not running");
      return FALSE;
    }
  /* Persist first: an override that would vanish on restart is not what
   * the administrator asked for. */
  if (!rl_state_save_override (dir, country, &local))
    {
      g_set_error (error, RL_DAEMON_ERROR, RL_DAEMON_ERROR_FAILED,
                   "Cannot persist the override: %s", local->message);
      return FALSE;
    }
  g_message ("Override %s", country == RL_COUNTRY_NONE ? "cleared" : rl_country_to_string (country, cc));
  rl_override_source_set_dbus (source, country);
  daemon_redecide (self);
  daemon_notify (self, RL_DAEMON_CHANGED_OVERRIDE | RL_DAEMON_CHANGED_SOURCES, RL_COUNTRY_NONE);
  return TRUE;
}

gboolean
rl_daemon_validate_override (RlDaemon *self, const char *text, RlCountry *out, GError **error)
{
  RlCountry country;

  if (text == NULL || strlen (text) != 2 || !rl_country_parse (text, &country))
    {
      gsize len = text ? strlen (text) : 0;
      /* Quote at most 16 bytes, still valid UTF-8, so the error stays one short line. */
      g_autofree char *quoted = g_utf8_make_valid (text ? text : "", (gssize) MIN (len, 16));
      g_set_error (error, RL_DAEMON_ERROR, RL_DAEMON_ERROR_INVALID_COUNTRY,
                   "'%s%s' is not a country code: give two letters (ISO 3166-1 alpha-2) or 00%s",
                   quoted, len > 16 ? "…" : "", len > 2 ? " (too long)" : "");
      return FALSE;
    }
  if (country != RL_COUNTRY_WORLD && !rl_regulatory_has (self->regulatory, country))
    {
      char cc[3];
      const char *problem = rl_regulatory_problem (self->regulatory);
      g_set_error (error, RL_DAEMON_ERROR, RL_DAEMON_ERROR_UNKNOWN_COUNTRY,
                   "%s is not in the regulatory database%s%s", rl_country_to_string (country, cc),
                   problem ? ": " : " (see 'regloc explain' for the countries it knows)",
                   problem ? problem : "");
      return FALSE;
    }
  *out = country;
  return TRUE;
}

gboolean
rl_daemon_set_override (RlDaemon *self, const char *text, GError **error)
{
  RlCountry country;

  if (!rl_daemon_validate_override (self, text, &country, error))
    return FALSE;
  return daemon_change_override (self, country, error);
}

gboolean
rl_daemon_clear_override (RlDaemon *self, GError **error)
{
  return daemon_change_override (self, RL_COUNTRY_NONE, error);
}

RlRegDomain *
rl_daemon_rules (RlDaemon *self, const char *text, GError **error)
{
  const RlDecision *dec = rl_daemon_decision (self);
  RlCountry country = dec != NULL ? dec->country : RL_COUNTRY_WORLD;
  g_autoptr (GError) local = NULL;
  RlRegDomain *domain;

  /* the same checks, and messages, as for an override */
  if (text != NULL && text[0] != '\0' && !rl_daemon_validate_override (self, text, &country, error))
    return NULL;
  if (country == RL_COUNTRY_NONE)
    country = RL_COUNTRY_WORLD;
  domain = rl_regulatory_domain (self->regulatory, country, &local);
  if (domain == NULL)
    g_set_error_literal (error, RL_DAEMON_ERROR,
                         g_error_matches (local, RL_REGDB_ERROR, RL_REGDB_ERROR_UNKNOWN_COUNTRY)
                           ? RL_DAEMON_ERROR_UNKNOWN_COUNTRY : RL_DAEMON_ERROR_FAILED,
                         local->message);
  return domain;
}

/* --- facts ----------------------------------------------------------------- */

const RlDecision *
rl_daemon_decision (RlDaemon *self)
{
  return rl_engine_decision (self->engine);
}

gint64
rl_daemon_last_change (RlDaemon *self)
{
  return self->last_change_wall;
}

const char *
rl_daemon_kernel_country (RlDaemon *self)
{
  return self->kernel_country;
}

const char *
rl_daemon_kernel_set_by (RlDaemon *self)
{
  return self->kernel_set_by;
}

const RlRadioInfo *
rl_daemon_radios (RlDaemon *self, guint *n_radios)
{
  *n_radios = self->radios->len;
  return (const RlRadioInfo *) (gconstpointer) self->radios->data;
}

RlCountry
rl_daemon_override (RlDaemon *self, gboolean *from_config)
{
  RlSource *source = daemon_find_source (self, &rl_override_source_ops);

  if (from_config != NULL)
    *from_config = FALSE;
  return source ? rl_override_source_current (source, from_config) : RL_COUNTRY_NONE;
}

GArray *
rl_daemon_source_status (RlDaemon *self)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RlSourceStatus));

  for (guint i = 0; i < self->slots->len; i++)
    {
      RlSourceSlot *slot = &g_array_index (self->slots, RlSourceSlot, i);
      RlSourceStatus st = { slot->ops->name, FALSE, 0, NULL };

      if (slot->source != NULL)
        {
          st.available = slot->source->available;
          /* Live sources stamp it with the wall clock already. */
          st.last_evidence = self->feed ? evidence_to_wall (self, slot->source->last_evidence)
                                        : slot->source->last_evidence;
          st.detail = slot->source->detail;
        }
      else if (self->feed != NULL)
        st.detail = "replaced by the replay feed";
      else
        st.detail = "disabled in regloc.conf";
      g_array_append_val (out, st);
    }
  if (self->feed != NULL)
    {
      RlSourceStatus st = { "replay", TRUE,
                            evidence_to_wall (self, rl_replay_feed_last_time (self->feed)),
                            rl_replay_feed_status (self->feed) };
      g_array_append_val (out, st);
    }
  if (self->applier != NULL || self->options.applier != NULL)
    {
      RlSourceStatus st = { "kernel", self->applier != NULL && self->kernel_reachable, 0, self->kernel_status };
      g_array_append_val (out, st);
    }
  return out;
}

const RlEvidence *
rl_daemon_evidence (RlDaemon *self, gsize *n_items)
{
  return rl_engine_items (self->engine, n_items);
}

gint64
rl_daemon_evidence_wall_time (RlDaemon *self, gint64 t)
{
  return self->feed == NULL ? evidence_to_wall (self, t) : t;
}

char *
rl_daemon_explain_at (RlDaemon *self, guint level)
{
  GString *s = g_string_new (NULL);
  gboolean from_config = FALSE;
  RlCountry ov = rl_daemon_override (self, &from_config);
  const RlDecision *decision = rl_engine_decision (self->engine);
  const char *text = NULL;
  char cc[3];

  if (decision != NULL)
    text = (level & RL_DETAIL_PRIVATE) ? decision->explanation : decision->explanation_public;
  g_string_append (s, text ? text : "No decision yet.");
  if (ov != RL_COUNTRY_NONE)
    g_string_append_printf (s, "\nOverride %s is set (%s).", rl_country_to_string (ov, cc),
                            from_config ? "in regloc.conf" : "with SetOverride; persisted");
  if (self->options.no_apply || !self->config->apply)
    g_string_append (s, "\nThe kernel is not touched (observe mode).");
  else if (self->applier == NULL)
    g_string_append_printf (s, "\nThe kernel is not set: %s.", self->kernel_status);
  if (self->wpa != NULL)
    g_string_append_printf (s, "\n%s.", rl_wpa_bridge_status (self->wpa));
  if (rl_regulatory_problem (self->regulatory) != NULL)
    g_string_append_printf (s, "\nRegulatory database: %s.", rl_regulatory_problem (self->regulatory));
  if (self->feed != NULL)
    g_string_append_printf (s, "\nEvidence comes from a replay: %s.", rl_replay_feed_status (self->feed));
  return g_string_free (s, FALSE);
}

char *
rl_daemon_explain (RlDaemon *self)
{
  return rl_daemon_explain_at (self, RL_DETAIL_FULL);
}

char *
rl_daemon_find_config (void)
{
  /* systemd's ConfigurationDirectory=regloc, else the build's sysconfdir. */
  const char *dir = g_getenv ("CONFIGURATION_DIRECTORY");
  g_autofree char *path = g_build_filename (dir && dir[0] ? dir : RL_SYSCONFDIR, "regloc.conf", NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS) ? g_steal_pointer (&path) : NULL;
}

void
rl_daemon_use_user_state_dir (void)
{
  /* A user's demo daemon keeps its override in the user's state directory. */
  if (g_getenv ("STATE_DIRECTORY") == NULL)
    {
      g_autofree char *dir = g_build_filename (g_get_user_state_dir (), "regloc", NULL);
      g_setenv ("STATE_DIRECTORY", dir, TRUE);
    }
}
