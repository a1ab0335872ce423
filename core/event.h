/* One timestamped thing that happens to the evidence: the unit that replay
 * readers produce, that `reglocd --replay` feeds to the live loop, and that
 * the decision engine (core/engine.h) applies.  One type for every path, so
 * the daemon and `regloc replay` cannot read the same recording differently. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

typedef enum {
  RL_EVENT_EVIDENCE,       /* @ev is a new or newer item */
  RL_EVENT_WITHDRAW,       /* the item @ev.key no longer stands */
  RL_EVENT_WITHDRAW_KIND,  /* every item of @ev.kind no longer stands */
  RL_EVENT_RESUME,         /* logind PrepareForSleep(false) at @time */
  RL_EVENT_TICK,           /* nothing happened; the decision is looked at (scenario "check") */
  RL_EVENT_SCAN,           /* a Wi-Fi scan covering @bands ran from @since to @time: the access
                            * points on those bands it did not hear are gone */
} RlEventType;

typedef struct {
  gint64 time;             /* µs, evidence time */
  RlEventType type;
  /* EVIDENCE: the item.  WITHDRAW: only .key.  WITHDRAW_KIND: only .kind. */
  RlEvidence ev;
  /* EVIDENCE of an access point: one result of a scan that a SCAN event
   * closes (a scenario with scan lines, a scan log), not a capture's frame */
  gboolean in_scan;
  /* SCAN only */
  gint64 since;
  guint bands;             /* RlBand mask, or RL_BANDS_ANY */
  gint32 silent_mbm;       /* the loudest globally administered AP it heard sending no country; 0: none */
} RlEvent;

const char *rl_event_type_to_string (RlEventType type);

/* @event becomes "the item @key no longer stands" at @time. */
void rl_event_init_withdraw (RlEvent *event, gint64 time, const char *key);

G_END_DECLS
