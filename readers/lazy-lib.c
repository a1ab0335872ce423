#include "readers/lazy-lib.h"

#include <string.h>
#include <gio/gio.h>
#include <gmodule.h>

static gpointer
open_library (gpointer data)
{
  RlLazyLib *lib = data;
  /* BIND_LOCAL: its symbols do not resolve those of libraries opened later */
  GModule *module = g_module_open (lib->soname, G_MODULE_BIND_LOCAL);
  gpointer address;

  if (module == NULL)
    {
      g_set_error (&lib->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "cannot load %s (%s): %s", lib->what,
                   lib->soname, g_module_error ());
      return NULL;
    }
  for (gsize i = 0; i < lib->n_symbols; i++)
    {
      if (!g_module_symbol (module, lib->symbols[i].name, &address) || address == NULL)
        {
          g_set_error (&lib->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "cannot load %s (%s): no symbol %s",
                       lib->what, lib->soname, lib->symbols[i].name);
          g_module_close (module);
          return NULL;
        }
      /* a data pointer into a function pointer (POSIX makes them alike) */
      memcpy (lib->symbols[i].slot, &address, sizeof address);
    }
  /* never closed: the pointers stay valid for the life of the process */
  g_module_make_resident (module);
  if (lib->on_loaded != NULL)
    lib->on_loaded ();
  return module;
}

gboolean
rl_lazy_lib_load (RlLazyLib *lib, GError **error)
{
  if (g_once (&lib->once, open_library, lib) != NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (lib->error));
  return FALSE;
}
