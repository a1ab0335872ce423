#define G_LOG_DOMAIN "regloc-override"

#include "daemon/sources/override.h"
#include "daemon/state.h"

typedef struct {
  RlSource parent;
  RlCountry config_country;
  RlCountry dbus_country;
} RlOverrideSource;

static RlSource *
override_create (const RlConfig *config, const RlSourceSink *sink)
{
  RlOverrideSource *self = g_new0 (RlOverrideSource, 1);
  g_autofree char *dir = rl_state_dir ();
  g_autoptr(GError) error = NULL;

  rl_source_init (&self->parent, &rl_override_source_ops, sink);
  self->config_country = config->override_country;
  if (!rl_state_load_override (dir, &self->dbus_country, &error))
    {
      /* A corrupt file must not pin a country: run with none and say so. */
      g_warning ("Ignoring the persisted override: %s", error->message);
      self->dbus_country = RL_COUNTRY_NONE;
    }
  return &self->parent;
}

RlCountry
rl_override_source_current (RlSource *source, gboolean *from_config)
{
  RlOverrideSource *self = (RlOverrideSource *) source;

  g_return_val_if_fail (source != NULL && source->ops == &rl_override_source_ops, RL_COUNTRY_NONE);
  if (from_config != NULL)
    *from_config = self->dbus_country == RL_COUNTRY_NONE && self->config_country != RL_COUNTRY_NONE;
  return self->dbus_country != RL_COUNTRY_NONE ? self->dbus_country : self->config_country;
}

static void
override_publish (RlOverrideSource *self)
{
  gboolean from_config = FALSE;
  RlCountry country = rl_override_source_current (&self->parent, &from_config);
  const char *origin = from_config ? "regloc.conf [override]" : "SetOverride, persisted";
  RlEvidence ev;
  char cc[3];

  if (country == RL_COUNTRY_NONE)
    {
      rl_source_withdraw (&self->parent, "override");
      rl_source_set_status (&self->parent, TRUE, "no override");
      return;
    }
  rl_evidence_init (&ev, RL_SOURCE_OVERRIDE, "override", g_get_real_time (), RL_NEVER);
  rl_evidence_add_country (&ev, country);
  g_snprintf (ev.detail, sizeof ev.detail, "override %s (%s)", rl_country_to_string (country, cc), origin);
  rl_source_put (&self->parent, &ev);
  rl_source_set_status (&self->parent, TRUE, "%s from %s", cc, origin);
}

void
rl_override_source_set_dbus (RlSource *source, RlCountry country)
{
  RlOverrideSource *self = (RlOverrideSource *) source;

  g_return_if_fail (source != NULL && source->ops == &rl_override_source_ops);
  self->dbus_country = country;
  override_publish (self);
}

static void
override_start (RlSource *source)
{
  override_publish ((RlOverrideSource *) source);
}

static void
override_stop (RlSource *source)
{
}

static void
override_free (RlSource *source)
{
  g_free (source);
}

const RlSourceOps rl_override_source_ops = {
  .name = "override",
  .kind = RL_SOURCE_OVERRIDE,
  .create = override_create,
  .start = override_start,
  .stop = override_stop,
  .free = override_free,
};
