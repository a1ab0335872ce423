/* Deeply nested JSON is a bad line, never a stack overflow inside the JSON
 * parser: the scan-log and gpsd readers bound the nesting first. */
#include <string.h>
#include <gio/gio.h>
#include "readers/gpsd-json.h"
#include "readers/json-depth.h"
#include "readers/scanlog.h"

/* @depth '[' (or '{"a":') openings, closed again, as one line. */
static char *
nested (const char *open, const char *close, guint depth)
{
  GString *s = g_string_new ("{\"x\":");
  for (guint i = 0; i < depth; i++)
    g_string_append (s, open);
  g_string_append (s, "1");
  for (guint i = 0; i < depth; i++)
    g_string_append (s, close);
  g_string_append (s, "}");
  return g_string_free (s, FALSE);
}

static void
test_bound (void)
{
  const char *flat = "{\"class\":\"SKY\",\"satellites\":[{\"PRN\":1,\"used\":true}]}";
  /* brackets inside strings are text, not nesting */
  const char *quoted = "{\"ssid\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{{\"}";
  /* the outer object is one level: RL_JSON_MAX_DEPTH - 1 inside it is the most */
  g_autofree char *deep = nested ("[", "]", RL_JSON_MAX_DEPTH - 1);
  g_autofree char *deeper = nested ("[", "]", RL_JSON_MAX_DEPTH);
  const char *ok[] = { flat, quoted, deep };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (rl_json_load_line (parser, ok[i], strlen (ok[i]), &error));
      g_assert_no_error (error);
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_false (rl_json_load_line (parser, deeper, strlen (deeper), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

/* What json-glib would take silently is a bad line: a member named twice
 * (the last would win: another AP's BSSID, another country's elements)
 * and two values on one line (the second would be dropped uncounted). */
static void
test_load_line_strict (void)
{
  static const char *const bad[] = {
    "{\"bssid\":\"3c:a6:2f:00:00:01\",\"bssid\":\"00:1f:3f:00:00:02\"}",
    "{\"a\":{\"ies\":\"00\",\"ies\":\"01\"}}",
    "{\"a\":1}{\"b\":2}",
    "{\"a\":1} {\"b\":2}",
    "{\"a\":1}[2]",
  };
  static const char *const good[] = {
    "{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}",
    "  {\"ssid\":\"}{\\\"}\"}  ",
    "[1,2]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_false (rl_json_load_line (parser, bad[i], strlen (bad[i]), &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    }
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (rl_json_load_line (parser, good[i], strlen (good[i]), &error));
      g_assert_no_error (error);
    }

  /* through the scan-log reader: the line is refused, not half used */
  RlScanLogEntry entry;
  g_autoptr (GError) error = NULL;
  g_assert_false (rl_scanlog_parse (bad[0], -1, &entry, &error));
  g_assert_error (error, RL_SCANLOG_ERROR, RL_SCANLOG_ERROR_NOT_JSON);
  g_assert_nonnull (strstr (error->message, "\"bssid\" is given twice"));
}

static void
test_scanlog_deep (void)
{
  g_autofree char *arrays = nested ("[", "]", 100000);
  g_autofree char *objects = nested ("{\"a\":", "}", 100000);
  const char *lines[] = { arrays, objects };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr (GError) error = NULL;
      RlScanLogEntry entry;

      g_assert_false (rl_scanlog_parse (lines[i], -1, &entry, &error));
      g_assert_error (error, RL_SCANLOG_ERROR, RL_SCANLOG_ERROR_NOT_JSON);
      rl_scanlog_entry_clear (&entry);
    }
}

static void
test_gpsd_deep (void)
{
  g_autofree char *deep = nested ("[", "]", 100000);
  const char *tpv1 = "{\"class\":\"TPV\",\"device\":\"/dev/ttyUSB0\",\"mode\":3,"
                     "\"time\":\"2026-05-01T10:00:00.000Z\",\"lat\":48.5734,\"lon\":7.7521,\"eph\":8.0}";
  const char *tpv2 = "{\"class\":\"TPV\",\"device\":\"/dev/ttyUSB0\",\"mode\":3,"
                     "\"time\":\"2026-05-01T10:00:01.000Z\",\"lat\":48.5735,\"lon\":7.7522,\"eph\":8.0}";
  g_autofree char *log = g_strdup_printf ("%s\n%s\n%s\n", tpv1, deep, tpv2);
  g_autoptr (GArray) fixes = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;

  rl_gpsd_json_parse (log, strlen (log), fixes, &stats);
  g_assert_cmpuint (stats.records, ==, 3);
  g_assert_cmpuint (stats.rejected[RL_GPS_REJECT_MALFORMED], ==, 1);
  /* the fixes on either side of the bad line still count */
  g_assert_cmpuint (fixes->len, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-depth/bound", test_bound);
  g_test_add_func ("/json-depth/load-line-strict", test_load_line_strict);
  g_test_add_func ("/json-depth/scanlog", test_scanlog_deep);
  g_test_add_func ("/json-depth/gpsd", test_gpsd_deep);
  return g_test_run ();
}
