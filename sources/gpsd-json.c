#include "gpsd-json.h"

#include <math.h>
#include <string.h>

/* gpsd's own limit for one JSON report is GPS_JSON_RESPONSE_MAX (4096);
 * anything far longer is not a report. */
#define MAX_LINE 8192

#if GPSD_API_MAJOR_VERSION < 9
#error "libgps with GPSD_API_MAJOR_VERSION >= 9 (gpsd 3.20+, timespec_t times) is required"
#endif

static double
finite_or_nan (double v)
{
  return isfinite (v) && v >= 0 ? v : NAN;
}

gboolean
rl_gps_fix_from_gps_data (const struct gps_data_t *data, RlGpsFix *fix, RlGpsReject *why)
{
  const struct gps_fix_t *f = &data->fix;

  rl_gps_fix_init (fix);
  if (f->mode < MODE_2D)
    {
      *why = RL_GPS_REJECT_NO_FIX;
      return FALSE;
    }
  if (!(data->set & TIME_SET) || f->time.tv_sec <= 0)
    {
      *why = RL_GPS_REJECT_NO_TIME;
      return FALSE;
    }
  if (!(data->set & LATLON_SET) || !isfinite (f->latitude) || !isfinite (f->longitude))
    {
      *why = RL_GPS_REJECT_MALFORMED;
      return FALSE;
    }
  /* Year 9999 at the latest keeps the µs arithmetic far from overflow. */
  if (fabs (f->latitude) > 90 || fabs (f->longitude) > 180 ||
      f->time.tv_sec > G_GINT64_CONSTANT (253402300799) || f->time.tv_nsec < 0 ||
      f->time.tv_nsec >= 1000000000)
    {
      *why = RL_GPS_REJECT_BAD_VALUE;
      return FALSE;
    }
  fix->time = (gint64) f->time.tv_sec * G_USEC_PER_SEC + f->time.tv_nsec / 1000;
  fix->flags = RL_GPS_FIX_HAS_DATE;
  fix->lat = f->latitude;
  fix->lon = f->longitude;
  fix->mode = f->mode;
  fix->eph = finite_or_nan (f->eph);
  fix->epx = finite_or_nan (f->epx);
  fix->epy = finite_or_nan (f->epy);
  /* libgps fills dop from SKY reports; 0 means never set. */
  fix->hdop = data->dop.hdop > 0 ? finite_or_nan (data->dop.hdop) : NAN;
  return TRUE;
}

/* The report class ("TPV", "SKY", …) without a full parse: gpsd always writes
 * "class" first and without spaces, and only two classes matter here. */
static const char *
find_class (const char *line, gsize n, gsize *class_len)
{
  static const char key[] = "\"class\":\"";
  const gsize klen = sizeof key - 1;

  for (gsize i = 0; i + klen < n; i++)
    if (memcmp (line + i, key, klen) == 0)
      {
        const char *start = line + i + klen;
        const char *end = memchr (start, '"', n - i - klen);
        if (end == NULL)
          return NULL;
        *class_len = (gsize) (end - start);
        return start;
      }
  return NULL;
}

void
rl_gpsd_json_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats)
{
  /* struct gps_data_t is large (skyview tables): keep it off the stack. */
  g_autofree struct gps_data_t *gd = g_new0 (struct gps_data_t, 1);
  g_autofree char *line = g_malloc (MAX_LINE + 1);
  gboolean have_last = FALSE;
  gint64 last_time = 0;
  gsize pos = 0;

  g_return_if_fail (data != NULL || len == 0);
  memset (stats, 0, sizeof *stats);

  while (pos < len)
    {
      const char *start = data + pos;
      const char *nl = memchr (start, '\n', len - pos);
      gsize n = nl ? (gsize) (nl - start) : len - pos;
      RlGpsFix fix;
      RlGpsReject why;
      const char *cls;
      gsize cls_len = 0;

      pos += n + (nl ? 1 : 0);
      while (n > 0 && g_ascii_isspace (start[n - 1]))
        n--;
      while (n > 0 && g_ascii_isspace (start[0]))
        start++, n--;
      if (n == 0)
        continue;
      stats->records++;
      if (start[0] != '{' || n > MAX_LINE || memchr (start, '\0', n) != NULL)
        {
          stats->rejected[RL_GPS_REJECT_MALFORMED]++;
          continue;
        }
      if (start[n - 1] != '}')
        {
          stats->rejected[RL_GPS_REJECT_TRUNCATED]++;
          continue;
        }
      cls = find_class (start, n, &cls_len);
      if (cls == NULL)
        {
          stats->rejected[RL_GPS_REJECT_MALFORMED]++;
          continue;
        }
      /* VERSION, DEVICES, WATCH, … carry no position (and libgps 3.22
       * cannot unpack every one gpsd writes, e.g. DEVICE "activated":0). */
      if (!(cls_len == 3 && (memcmp (cls, "TPV", 3) == 0 || memcmp (cls, "SKY", 3) == 0)))
        {
          stats->ignored++;
          continue;
        }
      memcpy (line, start, n);
      line[n] = '\0';
      gd->set = 0;
      if (gps_unpack (line, gd) != 0 || gd->set == 0)
        {
          stats->rejected[RL_GPS_REJECT_MALFORMED]++;
          continue;
        }
      if (!(gd->set & MODE_SET))
        {
          /* SKY (its HDOP stays in gd->dop for the next TPV), VERSION, … */
          stats->ignored++;
          continue;
        }
      if (!rl_gps_fix_from_gps_data (gd, &fix, &why))
        {
          stats->rejected[why]++;
          continue;
        }
      if (have_last && fix.time <= last_time)
        {
          stats->rejected[RL_GPS_REJECT_TIME_BACKWARDS]++;
          continue;
        }
      have_last = TRUE;
      last_time = fix.time;
      g_array_append_val (fixes, fix);
      stats->fixes++;
    }
  stats->date_source = stats->fixes > 0 ? RL_GPS_DATE_FROM_FILE : RL_GPS_DATE_NONE;
}

gboolean
rl_gpsd_json_sniff (const char *data, gsize len)
{
  gsize i = 0, end;

  while (i < len && g_ascii_isspace (data[i]))
    i++;
  if (i >= len || data[i] != '{')
    return FALSE;
  end = MIN (len, i + 512);
  for (gsize j = i; j + 8 <= end; j++)
    if (memcmp (data + j, "\"class\"", 7) == 0)
      return TRUE;
  return FALSE;
}
