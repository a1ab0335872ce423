/* Shared by the GPS reader tests: sentence building, fixtures, UTC times. */
#pragma once

#include <glib.h>
#include <string.h>

/* "$" BODY "*" checksum CR LF, so tests read like the sentences they feed. */
static inline char *
nmea_sentence (const char *body)
{
  guint8 sum = 0;

  for (const char *p = body; *p; p++)
    sum ^= (guint8) *p;
  return g_strdup_printf ("$%s*%02X\r\n", body, sum);
}

static inline char *
read_fixture (const char *name, gsize *len)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "gps", name, NULL);
  char *data = NULL;
  g_autoptr (GError) error = NULL;

  if (!g_file_get_contents (path, &data, len, &error))
    g_error ("fixture %s: %s", path, error->message);
  return data;
}

static inline gint64
utc_us (int y, int mo, int d, int h, int mi, double s)
{
  g_autoptr (GDateTime) dt = g_date_time_new_utc (y, mo, d, h, mi, s);
  return g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
}
