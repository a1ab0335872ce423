/* A connection to the kernel's nl80211 family for one user (the beacon
 * source, the applier): an event socket subscribed to multicast groups and
 * watched by the GLib main loop (no polling), plus a command socket for
 * requests and dumps, whose answers the kernel sends at once. */
#pragma once

#include <glib.h>
#include <netlink/msg.h>
#include "readers/nl80211-scan.h"

G_BEGIN_DECLS

typedef struct RlNlLink RlNlLink;

/* Called for every multicast message; @attrs is the attribute stream after
 * the genetlink header. */
typedef void (*RlNlEventFunc) (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data);
/* Called for every message of a dump. */
typedef void (*RlNlDumpFunc) (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data);
/* The event socket lost messages (receive buffer overrun): resynchronise. */
typedef void (*RlNlOverrunFunc) (gpointer user_data);

/* Resolves nl80211 and joins @groups (NULL-terminated multicast group
 * names).  Fails with RL_NL80211_ERROR_UNAVAILABLE when the kernel has no
 * nl80211 (no cfg80211 loaded). */
RlNlLink *rl_nl_link_new (const char *const *groups,
                          RlNlEventFunc on_event,
                          RlNlOverrunFunc on_overrun,
                          gpointer user_data,
                          GError **error);
void rl_nl_link_free (RlNlLink *link);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlNlLink, rl_nl_link_free)

/* A dump (NLM_F_DUMP) of @cmd, limited to @ifindex when > 0. */
gboolean rl_nl_link_dump (RlNlLink *link, guint8 cmd, int ifindex,
                          RlNlDumpFunc func, gpointer user_data, GError **error);
/* A dump of @cmd carrying the flag attribute @flag_attr
 * (NL80211_ATTR_SPLIT_WIPHY_DUMP for GET_WIPHY). */
gboolean rl_nl_link_dump_flag (RlNlLink *link, guint8 cmd, int flag_attr,
                               RlNlDumpFunc func, gpointer user_data, GError **error);
/* Sends @msg (built with rl_nl_link_msg) and waits for the kernel's
 * acknowledgement; a refusal sets @error with the errno text and
 * @errno_out (EPERM without CAP_NET_ADMIN). */
gboolean rl_nl_link_request (RlNlLink *link, struct nl_msg *msg, int *errno_out, GError **error);
/* A new request message for @cmd with the family header filled in. */
struct nl_msg *rl_nl_link_msg (RlNlLink *link, guint8 cmd, int flags);

/* Calls @appeared whenever the kernel registers the nl80211 family (cfg80211
 * loaded after we started: a module load, a USB Wi-Fi stick), from the
 * generic netlink controller's "notify" group, so nobody polls for it. */
typedef struct RlNlFamilyWatch RlNlFamilyWatch;
RlNlFamilyWatch *rl_nl_family_watch_new (void (*appeared) (gpointer user_data), gpointer user_data,
                                         GError **error);
void rl_nl_family_watch_free (RlNlFamilyWatch *watch);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlNlFamilyWatch, rl_nl_family_watch_free)

/* Whether a generic netlink controller message (@cmd and its attributes)
 * announces the nl80211 family or one of its groups; pure, for tests. */
gboolean rl_nl_ctrl_announces_nl80211 (guint8 cmd, const guint8 *attrs, gsize len);

G_END_DECLS
