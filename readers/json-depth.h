/* A bound on JSON nesting, checked before a line reaches json-glib.
 *
 * json-glib's parser recurses once per nesting level, so a line of 100,000
 * '[' overflows the stack.  Our JSON inputs (scan logs, gpsd reports) are
 * two or three levels deep; anything deeper is refused as a bad line. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Deepest nesting any reader accepts; gpsd's SKY reports reach 3. */
#define RL_JSON_MAX_DEPTH 16

/* TRUE when no array or object in @text (@len bytes) is nested deeper than
 * @max_depth.  Brackets inside strings do not count.  Linear, no allocation. */
gboolean rl_json_depth_ok (const char *text, gsize len, guint max_depth);

G_END_DECLS
