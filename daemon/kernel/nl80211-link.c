#include "daemon/kernel/nl80211-link.h"

#include <errno.h>
#include <string.h>
#include <glib-unix.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/nl80211.h>

struct RlNlLink {
  struct nl_sock *events;
  struct nl_sock *cmd;
  int family;
  guint watch;
  RlNlEventFunc on_event;
  RlNlOverrunFunc on_overrun;
  gpointer user_data;
};

static void
forward (struct nl_msg *msg, void (*func) (guint8, const guint8 *, gsize, gpointer), gpointer user_data)
{
  struct nlmsghdr *nlh = nlmsg_hdr (msg);
  struct genlmsghdr *gnlh;

  /* a message too short for its genetlink header is dropped, not read */
  if (!genlmsg_valid_hdr (nlh, 0))
    return;
  gnlh = nlmsg_data (nlh);
  func (gnlh->cmd, (const guint8 *) genlmsg_attrdata (gnlh, 0), (gsize) genlmsg_attrlen (gnlh, 0), user_data);
}

static int
on_event_msg (struct nl_msg *msg, void *arg)
{
  RlNlLink *link = arg;
  forward (msg, link->on_event, link->user_data);
  return NL_OK;
}

static gboolean
on_events_readable (gint fd, GIOCondition cond, gpointer user_data)
{
  RlNlLink *link = user_data;
  int err = nl_recvmsgs_default (link->events);

  if (err == -NLE_NOMEM || err == -NLE_MSG_OVERFLOW)
    {
      /* ENOBUFS: the kernel dropped events for us; only a resync is safe */
      g_debug ("nl80211 event socket overrun: %s", nl_geterror (err));
      if (link->on_overrun != NULL)
        link->on_overrun (link->user_data);
    }
  else if (err < 0 && err != -NLE_AGAIN)
    g_debug ("nl80211 event socket: %s", nl_geterror (err));
  return G_SOURCE_CONTINUE;
}

RlNlLink *
rl_nl_link_new (const char *const *groups,
                RlNlEventFunc on_event,
                RlNlOverrunFunc on_overrun,
                gpointer user_data,
                GError **error)
{
  g_autoptr (RlNlLink) link = g_new0 (RlNlLink, 1);
  int err;

  link->on_event = on_event;
  link->on_overrun = on_overrun;
  link->user_data = user_data;
  link->cmd = nl_socket_alloc ();
  link->events = nl_socket_alloc ();
  if (link->cmd == NULL || link->events == NULL)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_FAILED, "out of memory for netlink sockets");
      return NULL;
    }
  if ((err = genl_connect (link->cmd)) < 0 || (err = genl_connect (link->events)) < 0)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_UNAVAILABLE,
                   "cannot open a generic netlink socket: %s", nl_geterror (err));
      return NULL;
    }
  /* big scan dumps: let libnl size its buffer to each message */
  nl_socket_enable_msg_peek (link->cmd);
  nl_socket_enable_msg_peek (link->events);
  link->family = genl_ctrl_resolve (link->cmd, NL80211_GENL_NAME);
  if (link->family < 0)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_UNAVAILABLE,
                   "the kernel has no nl80211 (is cfg80211 loaded?)");
      return NULL;
    }
  for (guint i = 0; groups != NULL && groups[i] != NULL; i++)
    {
      int id = genl_ctrl_resolve_grp (link->cmd, NL80211_GENL_NAME, groups[i]);
      if (id < 0 || (err = nl_socket_add_membership (link->events, id)) < 0)
        {
          g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_UNAVAILABLE,
                       "cannot join the nl80211 \"%s\" multicast group", groups[i]);
          return NULL;
        }
    }
  nl_socket_disable_seq_check (link->events);
  nl_socket_modify_cb (link->events, NL_CB_VALID, NL_CB_CUSTOM, on_event_msg, link);
  nl_socket_set_nonblocking (link->events);
  /* scan bursts on several radios: room for them while the loop is busy */
  nl_socket_set_buffer_size (link->events, 1 << 20, 0);
  link->watch = g_unix_fd_add (nl_socket_get_fd (link->events), G_IO_IN, on_events_readable, link);
  return g_steal_pointer (&link);
}

void
rl_nl_link_free (RlNlLink *link)
{
  if (link == NULL)
    return;
  if (link->watch != 0)
    g_source_remove (link->watch);
  if (link->events != NULL)
    nl_socket_free (link->events);
  if (link->cmd != NULL)
    nl_socket_free (link->cmd);
  g_free (link);
}

struct nl_msg *
rl_nl_link_msg (RlNlLink *link, guint8 cmd, int flags)
{
  struct nl_msg *msg = nlmsg_alloc ();
  if (msg == NULL)
    return NULL;
  if (genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, link->family, 0, flags, cmd, 0) == NULL)
    {
      nlmsg_free (msg);
      return NULL;
    }
  return msg;
}

typedef struct {
  RlNlDumpFunc func;
  gpointer user_data;
  gboolean done;
  int error;
} Transaction;

static int
on_valid (struct nl_msg *msg, void *arg)
{
  Transaction *t = arg;
  if (t->func != NULL)
    forward (msg, t->func, t->user_data);
  return NL_OK;
}

static int
on_finish (struct nl_msg *msg, void *arg)
{
  Transaction *t = arg;
  t->done = TRUE;
  return NL_STOP;
}

static int
on_error (struct sockaddr_nl *nla, struct nlmsgerr *nlerr, void *arg)
{
  Transaction *t = arg;
  t->error = nlerr->error;
  t->done = TRUE;
  return NL_STOP;
}

static gboolean
transact (RlNlLink *link, struct nl_msg *msg, Transaction *t, int *errno_out, GError **error)
{
  struct nl_cb *cb = nl_cb_alloc (NL_CB_DEFAULT);
  int err;

  if (errno_out != NULL)
    *errno_out = 0;
  if (cb == NULL || msg == NULL)
    {
      if (cb != NULL)
        nl_cb_put (cb);
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  nl_cb_set (cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, t);
  nl_cb_set (cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, t);
  nl_cb_set (cb, NL_CB_ACK, NL_CB_CUSTOM, on_finish, t);
  nl_cb_err (cb, NL_CB_CUSTOM, on_error, t);
  err = nl_send_auto (link->cmd, msg);
  while (err >= 0 && !t->done)
    err = nl_recvmsgs (link->cmd, cb);
  nl_cb_put (cb);
  if (err < 0 && !t->done)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_FAILED, "nl80211: %s", nl_geterror (err));
      return FALSE;
    }
  if (t->error < 0)
    {
      if (errno_out != NULL)
        *errno_out = -t->error;
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_FAILED, "nl80211: %s", g_strerror (-t->error));
      return FALSE;
    }
  return TRUE;
}

/* Sends one dump request and frees it; a NULL @msg (it could not be built)
 * is the error transact () reports. */
static gboolean
dump_message (RlNlLink *link, struct nl_msg *msg, RlNlDumpFunc func, gpointer user_data, GError **error)
{
  Transaction t = { func, user_data, FALSE, 0 };
  gboolean ok = transact (link, msg, &t, NULL, error);

  if (msg != NULL)
    nlmsg_free (msg);
  return ok;
}

gboolean
rl_nl_link_dump (RlNlLink *link, guint8 cmd, int ifindex,
                 RlNlDumpFunc func, gpointer user_data, GError **error)
{
  struct nl_msg *msg = rl_nl_link_msg (link, cmd, NLM_F_DUMP);

  if (msg != NULL && ifindex > 0 && nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) ifindex) < 0)
    {
      nlmsg_free (msg);
      msg = NULL;
    }
  return dump_message (link, msg, func, user_data, error);
}

gboolean
rl_nl_link_dump_flag (RlNlLink *link, guint8 cmd, int flag_attr,
                      RlNlDumpFunc func, gpointer user_data, GError **error)
{
  struct nl_msg *msg = rl_nl_link_msg (link, cmd, NLM_F_DUMP);

  if (msg != NULL && nla_put_flag (msg, flag_attr) < 0)
    {
      nlmsg_free (msg);
      msg = NULL;
    }
  return dump_message (link, msg, func, user_data, error);
}

gboolean
rl_nl_link_request (RlNlLink *link, struct nl_msg *msg, int *errno_out, GError **error)
{
  Transaction t = { NULL, NULL, FALSE, 0 };
  /* ask for the ack explicitly: it is how a refusal reaches us */
  nlmsg_hdr (msg)->nlmsg_flags |= NLM_F_ACK;
  return transact (link, msg, &t, errno_out, error);
}

/* --- the nl80211 family appearing ---------------------------------------- */

struct RlNlFamilyWatch {
  struct nl_sock *sock;
  guint watch;
  void (*appeared) (gpointer user_data);
  gpointer user_data;
  gboolean seen;
};

gboolean
rl_nl_ctrl_announces_nl80211 (guint8 cmd, const guint8 *attrs, gsize len)
{
  struct nlattr *tb[CTRL_ATTR_MAX + 1];

  if (cmd != CTRL_CMD_NEWFAMILY && cmd != CTRL_CMD_NEWMCAST_GRP)
    return FALSE;
  if (len > G_MAXINT || nla_parse (tb, CTRL_ATTR_MAX, (struct nlattr *) attrs, (int) len, NULL) < 0)
    return FALSE;
  if (tb[CTRL_ATTR_FAMILY_NAME] == NULL)
    return FALSE;
  /* the name is a NUL-terminated string inside the attribute, or it is not ours */
  const char *name = nla_data (tb[CTRL_ATTR_FAMILY_NAME]);
  int n = nla_len (tb[CTRL_ATTR_FAMILY_NAME]);
  return n == (int) sizeof NL80211_GENL_NAME && memcmp (name, NL80211_GENL_NAME, sizeof NL80211_GENL_NAME) == 0;
}

static void
on_ctrl_event (guint8 cmd, const guint8 *attrs, gsize len, gpointer user_data)
{
  RlNlFamilyWatch *watch = user_data;

  if (rl_nl_ctrl_announces_nl80211 (cmd, attrs, len))
    watch->seen = TRUE;
}

static int
on_ctrl_msg (struct nl_msg *msg, void *arg)
{
  forward (msg, on_ctrl_event, arg);
  return NL_OK;
}

static gboolean
on_ctrl_readable (gint fd, GIOCondition cond, gpointer user_data)
{
  RlNlFamilyWatch *watch = user_data;
  int err;

  watch->seen = FALSE;
  err = nl_recvmsgs_default (watch->sock);
  /* a lost announcement is made good by trying once; @appeared may free
   * the watch, so it is the last thing done here */
  if (watch->seen || err == -NLE_NOMEM || err == -NLE_MSG_OVERFLOW)
    watch->appeared (watch->user_data);
  return G_SOURCE_CONTINUE;
}

RlNlFamilyWatch *
rl_nl_family_watch_new (void (*appeared) (gpointer user_data), gpointer user_data, GError **error)
{
  RlNlFamilyWatch *watch = g_new0 (RlNlFamilyWatch, 1);
  int err, group;

  watch->appeared = appeared;
  watch->user_data = user_data;
  watch->sock = nl_socket_alloc ();
  if (watch->sock == NULL || (err = genl_connect (watch->sock)) < 0
      || (group = genl_ctrl_resolve_grp (watch->sock, "nlctrl", "notify")) < 0
      || nl_socket_add_membership (watch->sock, group) < 0)
    {
      g_set_error (error, RL_NL80211_ERROR, RL_NL80211_ERROR_UNAVAILABLE,
                   "cannot follow the generic netlink controller's announcements");
      rl_nl_family_watch_free (watch);
      return NULL;
    }
  nl_socket_disable_seq_check (watch->sock);
  nl_socket_modify_cb (watch->sock, NL_CB_VALID, NL_CB_CUSTOM, on_ctrl_msg, watch);
  nl_socket_set_nonblocking (watch->sock);
  watch->watch = g_unix_fd_add (nl_socket_get_fd (watch->sock), G_IO_IN, on_ctrl_readable, watch);
  return watch;
}

void
rl_nl_family_watch_free (RlNlFamilyWatch *watch)
{
  if (watch == NULL)
    return;
  if (watch->watch != 0)
    g_source_remove (watch->watch);
  if (watch->sock != NULL)
    nl_socket_free (watch->sock);
  g_free (watch);
}
