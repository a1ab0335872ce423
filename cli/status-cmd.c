/* regloc status [--json]: what reglocd has decided and what it rests on. */
#include <stdio.h>
#include <json-glib/json-glib.h>

#include "cli/commands.h"
#include "cli/client.h"

static const char *
nonempty (const char *s, const char *fallback)
{
  return s != NULL && s[0] != '\0' ? s : fallback;
}

static void
print_radios_text (RlDBusManager *m)
{
  GVariant *radios = rl_dbus_manager_get_radios (m);
  GVariantIter iter;
  const char *name, *driver, *country;
  gboolean self_managed, steerable;

  if (radios == NULL || g_variant_n_children (radios) == 0)
    {
      printf ("Radios:         none\n");
      return;
    }
  printf ("Radios:\n");
  g_variant_iter_init (&iter, radios);
  while (g_variant_iter_next (&iter, "(&s&sb&sb)", &name, &driver, &self_managed, &country, &steerable))
    printf ("  %-9s %-16s %-13s country %-3s %s\n", name, nonempty (driver, "?"),
            self_managed ? "self-managed" : "global", nonempty (country, "?"),
            steerable ? "steered by regloc" : "keeps its own domain (ignores regloc)");
}

static void
add_radios_json (JsonBuilder *b, RlDBusManager *m)
{
  GVariant *radios = rl_dbus_manager_get_radios (m);
  GVariantIter iter;
  const char *name, *driver, *country;
  gboolean self_managed, steerable;

  json_builder_set_member_name (b, "radios");
  json_builder_begin_array (b);
  if (radios != NULL)
    {
      g_variant_iter_init (&iter, radios);
      while (g_variant_iter_next (&iter, "(&s&sb&sb)", &name, &driver, &self_managed, &country, &steerable))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "driver");
          if (driver[0]) json_builder_add_string_value (b, driver); else json_builder_add_null_value (b);
          json_builder_set_member_name (b, "self_managed");
          json_builder_add_boolean_value (b, self_managed);
          json_builder_set_member_name (b, "country");
          if (country[0]) json_builder_add_string_value (b, country); else json_builder_add_null_value (b);
          json_builder_set_member_name (b, "steerable");
          json_builder_add_boolean_value (b, steerable);
          json_builder_end_object (b);
        }
    }
  json_builder_end_array (b);
}

static void
print_text (RlDBusManager *m, gint64 now)
{
  GVariant *sources = rl_dbus_manager_get_sources (m);
  g_autofree char *when = rl_client_format_time (rl_dbus_manager_get_last_change (m));
  g_autofree char *ago = rl_client_format_age (rl_dbus_manager_get_last_change (m), now);
  const char *override = rl_dbus_manager_get_override (m);
  GVariantIter iter;
  const char *name, *detail;
  gboolean available;
  guint64 last;

  printf ("Country:        %s (%s)\n", nonempty (rl_dbus_manager_get_country (m), "?"),
          nonempty (rl_dbus_manager_get_state (m), "?"));
  printf ("Reason:         %s\n", nonempty (rl_dbus_manager_get_reason (m), "-"));
  printf ("Confidence:     %.2f\n", rl_dbus_manager_get_confidence (m));
  printf ("Kernel country: %s", nonempty (rl_dbus_manager_get_kernel_country (m), "unknown"));
  if (nonempty (rl_dbus_manager_get_kernel_set_by (m), NULL) != NULL)
    printf (" (set by %s)", rl_dbus_manager_get_kernel_set_by (m));
  printf ("\n");
  printf ("Override:       %s\n", nonempty (override, "none"));
  printf ("Last change:    %s (%s)\n", when, ago);
  print_radios_text (m);
  printf ("Sources:\n");
  if (sources == NULL)
    return;
  g_variant_iter_init (&iter, sources);
  while (g_variant_iter_next (&iter, "(&sbt&s)", &name, &available, &last, &detail))
    {
      g_autofree char *age = rl_client_format_age (last, now);
      printf ("  %-9s %-12s %-12s %s\n", name, available ? "available" : "unavailable",
              last ? age : "-", detail);
    }
}

static void
add_time (JsonBuilder *b, const char *member, guint64 usec)
{
  json_builder_set_member_name (b, member);
  if (usec == 0)
    json_builder_add_null_value (b);
  else
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc ((gint64) (usec / G_USEC_PER_SEC));
      g_autofree char *iso = dt ? g_date_time_format_iso8601 (dt) : NULL;
      if (iso)
        json_builder_add_string_value (b, iso);
      else
        json_builder_add_null_value (b);
    }
}

static void
print_json (RlDBusManager *m, gint64 now)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  GVariant *sources = rl_dbus_manager_get_sources (m);
  const char *override = rl_dbus_manager_get_override (m);
  const char *kernel = rl_dbus_manager_get_kernel_country (m);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "country");
  json_builder_add_string_value (b, nonempty (rl_dbus_manager_get_country (m), "00"));
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b, nonempty (rl_dbus_manager_get_state (m), "world"));
  json_builder_set_member_name (b, "reason");
  json_builder_add_string_value (b, nonempty (rl_dbus_manager_get_reason (m), ""));
  json_builder_set_member_name (b, "confidence");
  json_builder_add_double_value (b, rl_dbus_manager_get_confidence (m));
  json_builder_set_member_name (b, "kernel_country");
  if (kernel && kernel[0]) json_builder_add_string_value (b, kernel); else json_builder_add_null_value (b);
  json_builder_set_member_name (b, "kernel_set_by");
  if (nonempty (rl_dbus_manager_get_kernel_set_by (m), NULL))
    json_builder_add_string_value (b, rl_dbus_manager_get_kernel_set_by (m));
  else
    json_builder_add_null_value (b);
  add_radios_json (b, m);
  json_builder_set_member_name (b, "override");
  if (override && override[0]) json_builder_add_string_value (b, override); else json_builder_add_null_value (b);
  add_time (b, "last_change", rl_dbus_manager_get_last_change (m));
  json_builder_set_member_name (b, "sources");
  json_builder_begin_array (b);
  if (sources != NULL)
    {
      GVariantIter iter;
      const char *name, *detail;
      gboolean available;
      guint64 last;

      g_variant_iter_init (&iter, sources);
      while (g_variant_iter_next (&iter, "(&sbt&s)", &name, &available, &last, &detail))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "available");
          json_builder_add_boolean_value (b, available);
          add_time (b, "last_evidence", last);
          json_builder_set_member_name (b, "age_s");
          if (last == 0)
            json_builder_add_null_value (b);
          else
            json_builder_add_int_value (b, MAX (0, (now - (gint64) last) / G_USEC_PER_SEC));
          json_builder_set_member_name (b, "detail");
          json_builder_add_string_value (b, detail);
          json_builder_end_object (b);
        }
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

int
rl_cmd_status (int argc, char **argv)
{
  gboolean session_bus = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (stable keys)", NULL },
    RL_CLIENT_OPTION_ENTRY (session_bus),
    { NULL }
  };
  g_autoptr(RlDBusManager) m = NULL;
  int code;

  if (!rl_client_parse_options ("status", "", entries, &argc, &argv))
    return RL_EXIT_USAGE;
  if (argc > 1)
    {
      fprintf (stderr, "regloc status: error: unexpected argument '%s'\nTry 'regloc status --help'.\n", argv[1]);
      return RL_EXIT_USAGE;
    }
  m = rl_client_connect ("status", session_bus, &code);
  if (m == NULL)
    return code;
  if (json)
    print_json (m, g_get_real_time ());
  else
    print_text (m, g_get_real_time ());
  return RL_EXIT_OK;
}
