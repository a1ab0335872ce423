/* regloc monitor: one line per change, as it happens, until Ctrl-C. */
#include <stdio.h>
#include <glib-unix.h>

#include "cli/commands.h"
#include "cli/client.h"

static void
stamp (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *text = g_date_time_format (now, "%H:%M:%S");
  printf ("%s  ", text);
}

static void
print_state (RlDBusManager *m, const char *prefix)
{
  const char *kernel = rl_dbus_manager_get_kernel_country (m);
  const char *override = rl_dbus_manager_get_override (m);

  stamp ();
  printf ("%s%s %s confidence %.2f, kernel %s, override %s: %s\n", prefix,
          rl_dbus_manager_get_country (m), rl_dbus_manager_get_state (m),
          rl_dbus_manager_get_confidence (m), kernel && kernel[0] ? kernel : "unknown",
          override && override[0] ? override : "none", rl_dbus_manager_get_reason (m));
  fflush (stdout);
}

/* One line per source whose state changed since the last look. */
static void
print_sources (RlDBusManager *m, GHashTable *seen)
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
      if (g_strcmp0 (g_hash_table_lookup (seen, name), line) == 0)
        continue;
      stamp ();
      printf ("source %s: %s\n", name, line);
      g_hash_table_insert (seen, g_strdup (name), g_steal_pointer (&line));
    }
  fflush (stdout);
}

static void
on_properties_changed (GDBusProxy *proxy, GVariant *changed, GStrv invalidated, gpointer user_data)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, changed);
  /* Sources change with every piece of evidence: one short line for them. */
  if (g_variant_dict_contains (&dict, "Country") || g_variant_dict_contains (&dict, "State") ||
      g_variant_dict_contains (&dict, "Reason") || g_variant_dict_contains (&dict, "Override") ||
      g_variant_dict_contains (&dict, "KernelCountry") || g_variant_dict_contains (&dict, "Confidence"))
    print_state (RL_DBUS_MANAGER (proxy), "");
  if (g_variant_dict_contains (&dict, "Sources"))
    print_sources (RL_DBUS_MANAGER (proxy), user_data);
  g_variant_dict_clear (&dict);
}

static void
on_country_changed (RlDBusManager *m, const char *old, const char *new_country, const char *reason, gpointer user_data)
{
  stamp ();
  printf ("country changed %s → %s: %s\n", old, new_country, reason);
  fflush (stdout);
}

static void
on_owner (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (object));

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
  gboolean session_bus = FALSE;
  const GOptionEntry entries[] = { RL_CLIENT_OPTION_ENTRY (session_bus), { NULL } };
  g_autoptr(RlDBusManager) m = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
  loop = g_main_loop_new (NULL, FALSE);
  print_state (m, "now ");
  print_sources (m, seen);
  g_signal_connect (m, "g-properties-changed", G_CALLBACK (on_properties_changed), seen);
  g_signal_connect (m, "country-changed", G_CALLBACK (on_country_changed), NULL);
  g_signal_connect (m, "notify::g-name-owner", G_CALLBACK (on_owner), NULL);
  g_unix_signal_add (SIGINT, on_signal, loop);
  g_unix_signal_add (SIGTERM, on_signal, loop);
  g_main_loop_run (loop);
  return RL_EXIT_OK;
}
