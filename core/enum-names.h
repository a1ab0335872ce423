/* Enum ↔ string, one way for every enum with names: the names sit in one
 * designated-initializer array indexed by the value,
 *
 *   static const char *const mode_names[] = { [MODE_A] = "a", [MODE_B] = "b" };
 *
 * and are read only through these, which answer @unknown for a value out
 * of range or without a name, and FALSE for a name not in the array. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

const char *rl_enum_name (const char *const *names, gsize n_names, guint value, const char *unknown);
gboolean rl_enum_parse (const char *const *names, gsize n_names, const char *text, guint *value);

#define RL_ENUM_NAME(names, value, unknown) \
  rl_enum_name ((names), G_N_ELEMENTS (names), (guint) (value), (unknown))
#define RL_ENUM_PARSE(names, text, value) \
  rl_enum_parse ((names), G_N_ELEMENTS (names), (text), (value))

G_END_DECLS
