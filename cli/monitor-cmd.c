/* regloc monitor: one line per change, as it happens, until Ctrl-C; with
 * --json one JSON object per line (an "event" member names its kind). */
#include <stdio.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>

#include "cli/commands.h"
#include "cli/client.h"

typedef struct {
  gboolean json;
  GHashTable *seen;   /* source name → its last line, to print changes only */
} Monitor;

static void
stamp (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *text = g_date_time_format (now, "%H:%M:%S");
  printf ("%s  ", text);
}

/* A JSON line: {"event": EVENT, "time": "…Z", …}; the caller adds members. */
static JsonBuilder *
json_event (const char *event)
{
  JsonBuilder *b = json_builder_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *time = g_date_time_format_iso8601 (now);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, event);
  json_builder_set_member_name (b, "time");
  json_builder_add_string_value (b, time);
  return b;
}

static void
json_string_or_null (JsonBuilder *b, const char *member, const char *value)
{
  json_builder_set_member_name (b, member);
  if (value != NULL && value[0] != '\0')
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
json_print (JsonBuilder *b)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  fflush (stdout);
  g_object_unref (b);
}

static void
print_state (Monitor *mon, RlDBusManager *m, gboolean initial)
{
  const char *kernel = rl_dbus_manager_get_kernel_country (m);
  const char *override = rl_dbus_manager_get_override (m);

  if (mon->json)
    {
      JsonBuilder *b = json_event ("state");
      json_builder_set_member_name (b, "initial");
      json_builder_add_boolean_value (b, initial);
      json_string_or_null (b, "country", rl_dbus_manager_get_country (m));
      json_string_or_null (b, "state", rl_dbus_manager_get_state (m));
      json_builder_set_member_name (b, "confidence");
      json_builder_add_double_value (b, rl_dbus_manager_get_confidence (m));
      json_string_or_null (b, "kernel_country", kernel);
      json_string_or_null (b, "override", override);
      json_string_or_null (b, "reason", rl_dbus_manager_get_reason (m));
      json_print (b);
      return;
    }
  stamp ();
  printf ("%s%s %s confidence %.2f, kernel %s, override %s: %s\n", initial ? "now " : "",
          rl_dbus_manager_get_country (m), rl_dbus_manager_get_state (m),
          rl_dbus_manager_get_confidence (m), kernel && kernel[0] ? kernel : "unknown",
          override && override[0] ? override : "none", rl_dbus_manager_get_reason (m));
  fflush (stdout);
}

/* One line per source whose state changed since the last look. */
static void
print_sources (Monitor *mon, RlDBusManager *m)
{
  GVariant *sources = rl_dbus_manager_get_sources (m);
  GVariantIter iter;
  const char *name, *detail;
  gboolean available;
  guint64 last;

  if (sources == NULL)
    return;
  g_variant_iter_init (&iter, sources);
  while (g_variant_iter_next (&iter, "(&sbt&s)", &name, &available, &last, &detail))
    {
      g_autofree char *line = g_strdup_printf ("%s, %s", available ? "available" : "unavailable", detail);
      if (g_strcmp0 (g_hash_table_lookup (mon->seen, name), line) == 0)
        continue;
      if (mon->json)
        {
          JsonBuilder *b = json_event ("source");
          json_string_or_null (b, "name", name);
          json_builder_set_member_name (b, "available");
          json_builder_add_boolean_value (b, available);
          json_builder_set_member_name (b, "detail");
          json_builder_add_string_value (b, detail);
          json_print (b);
        }
      else
        {
          stamp ();
          printf ("source %s: %s\n", name, line);
        }
      g_hash_table_insert (mon->seen, g_strdup (name), g_steal_pointer (&line));
    }
  fflush (stdout);
}

static void
on_properties_changed (GDBusProxy *proxy, GVariant *changed, GStrv invalidated, gpointer user_data)
{
  Monitor *mon = user_data;
  GVariantDict dict;

  g_variant_dict_init (&dict, changed);
  /* Sources change with every piece of evidence: one short line for them. */
  if (g_variant_dict_contains (&dict, "Country") || g_variant_dict_contains (&dict, "State") ||
      g_variant_dict_contains (&dict, "Reason") || g_variant_dict_contains (&dict, "Override") ||
      g_variant_dict_contains (&dict, "KernelCountry") || g_variant_dict_contains (&dict, "Confidence"))
    print_state (mon, RL_DBUS_MANAGER (proxy), FALSE);
  if (g_variant_dict_contains (&dict, "Sources"))
    print_sources (mon, RL_DBUS_MANAGER (proxy));
  g_variant_dict_clear (&dict);
}

static void
on_country_changed (RlDBusManager *m, const char *old, const char *new_country, const char *reason, gpointer user_data)
{
  Monitor *mon = user_data;

  if (mon->json)
    {
      JsonBuilder *b = json_event ("country-changed");
      json_string_or_null (b, "old", old);
      json_string_or_null (b, "new", new_country);
      json_string_or_null (b, "reason", reason);
      json_print (b);
      return;
    }
  stamp ();
  printf ("country changed %s → %s: %s\n", old, new_country, reason);
  fflush (stdout);
}

static void
on_owner (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  Monitor *mon = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (object));

  if (mon->json)
    {
      JsonBuilder *b = json_event ("daemon");
      json_builder_set_member_name (b, "running");
      json_builder_add_boolean_value (b, owner != NULL);
      json_print (b);
      return;
    }
  stamp ();
  if (owner == NULL)
    printf ("reglocd went away; waiting for it to come back\n");
  else
    printf ("reglocd is back\n");
  fflush (stdout);
}

static gboolean
on_signal (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

int
rl_cmd_monitor (int argc, char **argv)
{
  gboolean session_bus = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "One JSON object per line (see regloc(1))", NULL },
    RL_CLIENT_OPTION_ENTRY (session_bus), { NULL } };
  g_autoptr(RlDBusManager) m = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  Monitor mon = { 0 };
  int code;

  if (!rl_client_parse_options ("monitor", "", entries, &argc, &argv))
    return RL_EXIT_USAGE;
  if (argc > 1)
    {
      fprintf (stderr, "regloc monitor: error: unexpected argument '%s'\nTry 'regloc monitor --help'.\n", argv[1]);
      return RL_EXIT_USAGE;
    }
  m = rl_client_connect ("monitor", session_bus, &code);
  if (m == NULL)
    return code;
  mon.json = json;
  mon.seen = seen;
  loop = g_main_loop_new (NULL, FALSE);
  print_state (&mon, m, TRUE);
  print_sources (&mon, m);
  g_signal_connect (m, "g-properties-changed", G_CALLBACK (on_properties_changed), &mon);
  g_signal_connect (m, "country-changed", G_CALLBACK (on_country_changed), &mon);
  g_signal_connect (m, "notify::g-name-owner", G_CALLBACK (on_owner), &mon);
  g_unix_signal_add (SIGINT, on_signal, loop);
  g_unix_signal_add (SIGTERM, on_signal, loop);
  g_main_loop_run (loop);
  return RL_EXIT_OK;
}
