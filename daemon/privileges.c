#define G_LOG_DOMAIN "reglocd"

#include "daemon/privileges.h"

#include <errno.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

G_DEFINE_QUARK (rl-privileges-error-quark, rl_privileges_error)

#define NET_ADMIN_MASK (G_GUINT64_CONSTANT (1) << CAP_NET_ADMIN)
/* The kernel's capability numbers fit in 64 bits (two 32-bit words of
 * _LINUX_CAPABILITY_VERSION_3); PR_CAPBSET_READ says EINVAL past the last. */
#define RL_CAP_MAX 64

/* Names as capabilities(7) and /proc's users spell them, for the log. */
static const char *const cap_names[] = {
  [CAP_CHOWN] = "cap_chown",
  [CAP_DAC_OVERRIDE] = "cap_dac_override",
  [CAP_DAC_READ_SEARCH] = "cap_dac_read_search",
  [CAP_FOWNER] = "cap_fowner",
  [CAP_FSETID] = "cap_fsetid",
  [CAP_KILL] = "cap_kill",
  [CAP_SETGID] = "cap_setgid",
  [CAP_SETUID] = "cap_setuid",
  [CAP_SETPCAP] = "cap_setpcap",
  [CAP_LINUX_IMMUTABLE] = "cap_linux_immutable",
  [CAP_NET_BIND_SERVICE] = "cap_net_bind_service",
  [CAP_NET_BROADCAST] = "cap_net_broadcast",
  [CAP_NET_ADMIN] = "cap_net_admin",
  [CAP_NET_RAW] = "cap_net_raw",
  [CAP_IPC_LOCK] = "cap_ipc_lock",
  [CAP_IPC_OWNER] = "cap_ipc_owner",
  [CAP_SYS_MODULE] = "cap_sys_module",
  [CAP_SYS_RAWIO] = "cap_sys_rawio",
  [CAP_SYS_CHROOT] = "cap_sys_chroot",
  [CAP_SYS_PTRACE] = "cap_sys_ptrace",
  [CAP_SYS_PACCT] = "cap_sys_pacct",
  [CAP_SYS_ADMIN] = "cap_sys_admin",
  [CAP_SYS_BOOT] = "cap_sys_boot",
  [CAP_SYS_NICE] = "cap_sys_nice",
  [CAP_SYS_RESOURCE] = "cap_sys_resource",
  [CAP_SYS_TIME] = "cap_sys_time",
  [CAP_SYS_TTY_CONFIG] = "cap_sys_tty_config",
  [CAP_MKNOD] = "cap_mknod",
  [CAP_LEASE] = "cap_lease",
  [CAP_AUDIT_WRITE] = "cap_audit_write",
  [CAP_AUDIT_CONTROL] = "cap_audit_control",
  [CAP_SETFCAP] = "cap_setfcap",
  [CAP_MAC_OVERRIDE] = "cap_mac_override",
  [CAP_MAC_ADMIN] = "cap_mac_admin",
  [CAP_SYSLOG] = "cap_syslog",
  [CAP_WAKE_ALARM] = "cap_wake_alarm",
  [CAP_BLOCK_SUSPEND] = "cap_block_suspend",
  [CAP_AUDIT_READ] = "cap_audit_read",
#ifdef CAP_PERFMON
  [CAP_PERFMON] = "cap_perfmon",
#endif
#ifdef CAP_BPF
  [CAP_BPF] = "cap_bpf",
#endif
#ifdef CAP_CHECKPOINT_RESTORE
  [CAP_CHECKPOINT_RESTORE] = "cap_checkpoint_restore",
#endif
};

char *
rl_privileges_mask_to_string (guint64 mask)
{
  GString *s = g_string_new (NULL);

  for (guint cap = 0; cap < RL_CAP_MAX; cap++)
    {
      if ((mask & (G_GUINT64_CONSTANT (1) << cap)) == 0)
        continue;
      if (s->len > 0)
        g_string_append_c (s, ',');
      /* A kernel newer than our headers: its number still says which. */
      if (cap < G_N_ELEMENTS (cap_names) && cap_names[cap] != NULL)
        g_string_append (s, cap_names[cap]);
      else
        g_string_append_printf (s, "cap_%u", cap);
    }
  if (s->len == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

static gboolean
fail_errno (GError **error, int saved, const char *what)
{
  g_set_error (error, RL_PRIVILEGES_ERROR, RL_PRIVILEGES_ERROR_FAILED,
               "Cannot drop privileges: %s: %s", what, g_strerror (saved));
  return FALSE;
}

static gboolean
caps_get (struct __user_cap_data_struct data[2], GError **error)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };

  memset (data, 0, 2 * sizeof *data);
  if (syscall (SYS_capget, &header, data) < 0)
    return fail_errno (error, errno, "capget");
  return TRUE;
}

static guint64
join (guint32 lo, guint32 hi)
{
  return (guint64) lo | ((guint64) hi << 32);
}

gboolean
rl_privileges_get (RlPrivileges *out, GError **error)
{
  struct __user_cap_data_struct data[2];
  int nnp;

  if (!caps_get (data, error))
    return FALSE;
  out->effective = join (data[0].effective, data[1].effective);
  out->permitted = join (data[0].permitted, data[1].permitted);
  out->inheritable = join (data[0].inheritable, data[1].inheritable);
  out->bounding = 0;
  for (guint cap = 0; cap < RL_CAP_MAX; cap++)
    {
      int r = prctl (PR_CAPBSET_READ, (unsigned long) cap, 0, 0, 0);
      if (r < 0 && errno == EINVAL)
        break;   /* past the kernel's last capability */
      if (r < 0)
        return fail_errno (error, errno, "PR_CAPBSET_READ");
      if (r == 1)
        out->bounding |= G_GUINT64_CONSTANT (1) << cap;
    }
  if ((nnp = prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)) < 0)
    return fail_errno (error, errno, "PR_GET_NO_NEW_PRIVS");
  out->no_new_privs = nnp == 1;
  return TRUE;
}

/* The bounding set limits what an execve() could ever give back; taking
 * from it needs CAP_SETPCAP, so it goes first, while we still have that. */
static gboolean
drop_bounding (const RlPrivileges *before, guint64 *dropped, GError **error)
{
  guint64 extra = before->bounding & ~NET_ADMIN_MASK;

  *dropped = 0;
  if (extra == 0)
    return TRUE;
  if ((before->effective & (G_GUINT64_CONSTANT (1) << CAP_SETPCAP)) == 0)
    {
      /* A container that withheld CAP_SETPCAP: no_new_privs below still
       * keeps every execve() from gaining what the bounding set allows. */
      g_autofree char *names = rl_privileges_mask_to_string (extra);
      g_warning ("Cannot shrink the capability bounding set without CAP_SETPCAP; "
                 "it keeps %s (no_new_privs still stops any gain)", names);
      return TRUE;
    }
  for (guint cap = 0; cap < RL_CAP_MAX; cap++)
    {
      if ((extra & (G_GUINT64_CONSTANT (1) << cap)) == 0)
        continue;
      if (prctl (PR_CAPBSET_DROP, (unsigned long) cap, 0, 0, 0) < 0)
        return fail_errno (error, errno, "PR_CAPBSET_DROP");
      *dropped |= G_GUINT64_CONSTANT (1) << cap;
    }
  return TRUE;
}

static gboolean
set_sets (const RlPrivileges *before, GError **error)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  guint64 keep = before->permitted & NET_ADMIN_MASK;

  if (before->permitted == keep && before->effective == keep && before->inheritable == 0)
    return TRUE;   /* nothing to change: spare a filtered capset() */
  memset (data, 0, sizeof data);
  data[0].permitted = data[0].effective = (guint32) keep;
  data[1].permitted = data[1].effective = (guint32) (keep >> 32);
  /* The daemon runs no programs: nothing to hand down. */
  data[0].inheritable = data[1].inheritable = 0;
  if (syscall (SYS_capset, &header, data) < 0)
    return fail_errno (error, errno, "capset");
  return TRUE;
}

gboolean
rl_privileges_drop (GError **error)
{
  RlPrivileges before, after;
  guint64 bounding_dropped = 0;
  g_autofree char *dropped = NULL;
  g_autofree char *bounding = NULL;
  g_autofree char *kept = NULL;

  if (!rl_privileges_get (&before, error))
    return FALSE;
  if (geteuid () != 0 && getuid () != 0 &&
      ((before.permitted | before.effective | before.inheritable) & ~NET_ADMIN_MASK) == 0)
    return TRUE;   /* an ordinary user: there is nothing to give up */

  if (!drop_bounding (&before, &bounding_dropped, error))
    return FALSE;
  /* Ambient capabilities survive execve() of unprivileged programs. */
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return fail_errno (error, errno, "PR_CAP_AMBIENT_CLEAR_ALL");
  if (!set_sets (&before, error))
    return FALSE;
  if (!before.no_new_privs && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return fail_errno (error, errno, "PR_SET_NO_NEW_PRIVS");

  if (!rl_privileges_get (&after, error))
    return FALSE;
  /* Trust but verify: a kernel that said yes and did otherwise is an error. */
  if ((after.permitted | after.effective | after.inheritable) & ~NET_ADMIN_MASK || !after.no_new_privs)
    {
      g_set_error (error, RL_PRIVILEGES_ERROR, RL_PRIVILEGES_ERROR_FAILED,
                   "Cannot drop privileges: capabilities beyond CAP_NET_ADMIN remain after capset");
      return FALSE;
    }

  dropped = rl_privileges_mask_to_string ((before.permitted | before.effective) & ~after.permitted);
  bounding = rl_privileges_mask_to_string (bounding_dropped);
  kept = rl_privileges_mask_to_string (after.effective);
  if (((before.permitted | before.effective) & ~after.permitted) == 0 && bounding_dropped == 0 &&
      before.no_new_privs)
    g_debug ("Privileges: %s only already (systemd's CapabilityBoundingSet=), no_new_privs already set", kept);
  else if (g_strcmp0 (dropped, bounding) == 0)
    g_message ("Privileges: keeping %s; dropped %s from the permitted and bounding sets; no_new_privs set",
               kept, dropped);
  else
    g_message ("Privileges: keeping %s; dropped %s from the permitted set and %s from the bounding set; "
               "no_new_privs set", kept, dropped, bounding);
  if ((after.effective & NET_ADMIN_MASK) == 0)
    g_message ("Without CAP_NET_ADMIN the kernel's regulatory domain cannot be set: deciding and publishing only");
  return TRUE;
}
