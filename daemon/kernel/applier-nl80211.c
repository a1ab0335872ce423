/* The nl80211 applier (daemon/kernel/applier.c) behind the daemon's applier seam
 * (daemon/kernel/applier-iface.h). */
#define G_LOG_DOMAIN "reglocd"

#include "daemon/kernel/applier-nl80211.h"
#include "daemon/kernel/applier.h"

#include <gio/gio.h>

typedef struct {
  RlApplier *applier;
  RlApplierHooks hooks;
} Nl80211Glue;

static void
on_applier_changed (RlApplier *applier, gpointer user_data)
{
  Nl80211Glue *glue = user_data;
  RlCountry kernel = rl_applier_kernel_country (applier);
  char cc[3];
  RlKernelState state = {
    .alpha2 = kernel == RL_COUNTRY_NONE ? "" : rl_country_to_string (kernel, cc),
    .reachable = rl_applier_mode (applier) != RL_APPLIER_UNAVAILABLE,
    .status = rl_applier_detail (applier),
    .set_by = rl_kernel_setter_to_string (rl_applier_kernel_set_by (applier)),
  };

  state.radios = rl_applier_radios (applier, &state.n_radios);
  glue->hooks.kernel_changed (&state, glue->hooks.user_data);
}

static gpointer
nl80211_create (const RlApplierHooks *hooks, gboolean apply, GError **error)
{
  Nl80211Glue *glue = g_new0 (Nl80211Glue, 1);

  glue->hooks = *hooks;
  glue->applier = rl_applier_new (apply);
  rl_applier_set_changed_func (glue->applier, on_applier_changed, glue);
  /* A kernel without nl80211 leaves it "unavailable", which it reports. */
  rl_applier_start (glue->applier);
  on_applier_changed (glue->applier, glue);
  return glue;
}

static gboolean
nl80211_apply (gpointer data, RlCountry country, GError **error)
{
  Nl80211Glue *glue = data;

  if (rl_applier_apply (glue->applier, country))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s (%s)", rl_applier_detail (glue->applier),
               rl_applier_mode_to_string (rl_applier_mode (glue->applier)));
  return FALSE;
}

static void
nl80211_free (gpointer data)
{
  Nl80211Glue *glue = data;

  rl_applier_free (glue->applier);
  g_free (glue);
}

const RlApplierOps rl_nl80211_applier_ops = {
  .name = "nl80211",
  .create = nl80211_create,
  .apply = nl80211_apply,
  .free = nl80211_free,
};
