/* Applies the decided country to the kernel (docs/design.md §5) and follows the
 * kernel's own regulatory state.
 *
 * A change of decision becomes one NL80211_CMD_REQ_SET_REG user hint (what
 * `iw reg set` sends).  The kernel acknowledges at once and announces the
 * new domain later on the "regulatory" multicast group; the applier keeps
 * that as the kernel's country, so status never claims what did not happen. */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "daemon/kernel/applier-iface.h"

G_BEGIN_DECLS

typedef enum {
  RL_APPLIER_ACTIVE,        /* sends user hints */
  RL_APPLIER_DISABLED,      /* apply=false / --no-apply: decides only */
  RL_APPLIER_OBSERVE_ONLY,  /* no CAP_NET_ADMIN: watches the kernel only */
  RL_APPLIER_UNAVAILABLE,   /* no nl80211 in this kernel */
} RlApplierMode;

const char *rl_applier_mode_to_string (RlApplierMode mode);

typedef struct RlApplier RlApplier;
typedef void (*RlApplierChangedFunc) (RlApplier *applier, gpointer user_data);

RlApplier *rl_applier_new (gboolean apply);
void rl_applier_free (RlApplier *applier);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlApplier, rl_applier_free)

/* Called whenever the kernel's country, the mode or the self-managed set changes. */
void rl_applier_set_changed_func (RlApplier *applier, RlApplierChangedFunc func, gpointer user_data);
/* Connects to nl80211 and reads the kernel's current domain (GET_REG). */
void rl_applier_start (RlApplier *applier);
/* Asks the kernel for @country (a user hint) unless the mode forbids it.
 * Returns TRUE when a hint was sent and acknowledged. */
gboolean rl_applier_apply (RlApplier *applier, RlCountry country);

RlApplierMode rl_applier_mode (const RlApplier *applier);
/* The global domain the kernel announced last: "00", "DE", "98" (intersection),
 * "99" (driver-built); RL_COUNTRY_NONE before the first answer. */
RlCountry rl_applier_kernel_country (const RlApplier *applier);
RlCountry rl_applier_requested (const RlApplier *applier);
/* Wiphys with their own regulatory domain that ignore user hints. */
guint rl_applier_n_self_managed (const RlApplier *applier);
/* Every wiphy, by index; valid until the next main-loop turn. */
const RlRadioInfo *rl_applier_radios (const RlApplier *applier, guint *n_radios);
/* nl80211 messages about wiphys or domains that were malformed and skipped. */
guint rl_applier_n_skipped (const RlApplier *applier);

/* Who set the kernel's global domain last (NL80211_ATTR_REG_INITIATOR of
 * the REG_CHANGE, and whether the change is the one regloc asked for). */
typedef enum {
  RL_SETTER_UNKNOWN,        /* no change seen since the start (GET_REG does not say) */
  RL_SETTER_REGLOC,
  RL_SETTER_USER,           /* a user hint regloc did not send: `iw reg set`, wpa_supplicant, iwd */
  RL_SETTER_DRIVER,         /* a driver's hint (its EEPROM country) */
  RL_SETTER_CORE,           /* cfg80211 itself: the world domain, ieee80211_regdom, a restore */
  RL_SETTER_COUNTRY_IE,     /* the Country IE of the access point a card is connected to */
} RlKernelSetter;

/* "regloc", "user", "driver", "core", "country-ie"; "" for unknown. */
const char *rl_kernel_setter_to_string (RlKernelSetter setter);
RlKernelSetter rl_applier_kernel_set_by (const RlApplier *applier);
/* Pure: a user hint naming @country is regloc's when a request of ours for
 * it is @pending (or it is the intersection "98" it led to), or when none is
 * pending and it is what we asked for last (@requested: the kernel re-applying
 * our hint after a restore); any other user hint is someone else's. */
RlKernelSetter rl_applier_classify_setter (guint8 initiator, RlCountry country,
                                           RlCountry pending, RlCountry requested);
/* One line for `regloc status`. */
const char *rl_applier_detail (const RlApplier *applier);

/* Pure: one REG_CHANGE / WIPHY_REG_CHANGE / GET_REG message's attributes. */
typedef struct {
  RlCountry country;        /* RL_COUNTRY_NONE when the message names none */
  gboolean has_wiphy;
  guint32 wiphy;
  gboolean self_managed;
  gboolean has_initiator;
  guint8 initiator;         /* enum nl80211_reg_initiator */
} RlRegMessage;

gboolean rl_applier_parse_reg_message (const guint8 *attrs, gsize len, RlRegMessage *out);
/* Whether a REG_CHANGE / WIPHY_REG_CHANGE / GET_REG message speaks of one
 * wiphy's own domain (a self-managed card) rather than the global one; a
 * driver's hint names its wiphy too, but changes the global domain. */
gboolean rl_reg_message_is_per_wiphy (guint8 cmd, const RlRegMessage *m);

/* Pure: one NEW_WIPHY message (a GET_WIPHY dump part or an event).  FALSE
 * when it has no wiphy index, or a name that is missing, unterminated,
 * empty, too long or not printable: the caller counts it and skips it. */
typedef struct {
  guint32 wiphy;
  char name[32];
  gboolean self_managed;    /* seen in this part (split dumps carry it once) */
} RlWiphyMessage;

gboolean rl_applier_parse_wiphy_message (const guint8 *attrs, gsize len, RlWiphyMessage *out);

G_END_DECLS
