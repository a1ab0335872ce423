/* A regloc client in C: the proxy is generated from the installed interface
 * XML with gdbus-codegen.  It prints the country in force and, with
 * --follow, every change until Ctrl-C.
 *
 *   xml=$(pkg-config --variable=dbus_interface regloc)
 *   gdbus-codegen --interface-prefix net.regloc.RegLoc1. --c-namespace Regloc \
 *                 --generate-c-code regloc-dbus "$xml"
 *   cc -o regloc-client regloc-client.c regloc-dbus.c $(pkg-config --cflags --libs gio-2.0)
 */
#include <stdio.h>
#include <string.h>
#include "regloc-dbus.h"

static void
print_decision (ReglocManager *manager)
{
  printf ("Country: %s\nState: %s\nConfidence: %.2f\nReason: %s\n",
          regloc_manager_get_country (manager), regloc_manager_get_state (manager),
          regloc_manager_get_confidence (manager), regloc_manager_get_reason (manager));
  fflush (stdout);
}

static void
on_country_changed (ReglocManager *manager, const char *old_country, const char *new_country,
                    const char *reason, gpointer user_data)
{
  printf ("Changed: %s -> %s (%s)\n", old_country, new_country, reason);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ReglocManager) manager = NULL;
  g_autofree char *owner = NULL;
  gboolean follow = argc > 1 && strcmp (argv[1], "--follow") == 0;

  manager = regloc_manager_proxy_new_for_bus_sync (G_BUS_TYPE_SYSTEM, G_DBUS_PROXY_FLAGS_NONE,
                                                   "net.regloc.RegLoc1", "/net/regloc/RegLoc1/Manager",
                                                   NULL, &error);
  if (manager == NULL)
    {
      fprintf (stderr, "Cannot reach reglocd: %s\n", error->message);
      return 1;
    }
  /* Creating the proxy starts reglocd by D-Bus activation; nobody owning
   * the name afterwards means it is not installed or did not start. */
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (manager));
  if (owner == NULL)
    {
      fprintf (stderr, "reglocd is not running\n");
      return 1;
    }
  print_decision (manager);
  if (follow)
    {
      g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
      g_signal_connect (manager, "country-changed", G_CALLBACK (on_country_changed), NULL);
      g_main_loop_run (loop);
    }
  return 0;
}
