#include "core/enum-names.h"

#include <string.h>

const char *
rl_enum_name (const char *const *names, gsize n_names, guint value, const char *unknown)
{
  return value < n_names && names[value] != NULL ? names[value] : unknown;
}

gboolean
rl_enum_parse (const char *const *names, gsize n_names, const char *text, guint *value)
{
  if (text == NULL)
    return FALSE;
  for (gsize i = 0; i < n_names; i++)
    if (names[i] != NULL && strcmp (names[i], text) == 0)
      {
        *value = (guint) i;
        return TRUE;
      }
  return FALSE;
}
