/* A bound on JSON nesting, checked before a line reaches json-glib, and
 * a strict load of one line.
 *
 * json-glib's parser recurses once per nesting level, so a line of 100,000
 * '[' overflows the stack.  Our JSON inputs (scan logs, gpsd reports) are
 * two or three levels deep; anything deeper is refused as a bad line. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Deepest nesting any reader accepts; gpsd's SKY reports reach 3. */
#define RL_JSON_MAX_DEPTH 16

/* Loads one line of JSON (@len bytes) into @parser, refusing with
 * G_IO_ERROR_INVALID_DATA what json-glib would take silently:
 * - nesting deeper than RL_JSON_MAX_DEPTH;
 * - a second value after the first (`{…}{…}`, a lost newline): json-glib
 *   reads the first and drops the rest;
 * - a member named twice in one object: json-glib keeps the last, so a
 *   line could carry two BSSIDs or two sets of elements and use one. */
gboolean rl_json_load_line (JsonParser *parser, const char *text, gsize len, GError **error);

/* The length of the UTF-8 byte order mark a JSON-lines file (a scan log, a
 * gpsd log) or an NMEA log begins with when an editor on Windows saved it,
 * else 0. */
gsize rl_json_lines_bom_length (const char *data, gsize len);

G_END_DECLS
