#include "readers/gpsd-json.h"

#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

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
      /* With a time it is an event: the receiver lost its fix then.
       * (MODE_NOT_SEEN is no such statement: nothing was said.) */
      if (f->mode == MODE_NO_FIX && (data->set & TIME_SET) && f->time.tv_sec > 0 &&
          f->time.tv_sec <= G_GINT64_CONSTANT (253402300799) && f->time.tv_nsec >= 0 &&
          f->time.tv_nsec < 1000000000)
        {
          rl_gps_fix_init_lost (fix, (gint64) f->time.tv_sec * G_USEC_PER_SEC + f->time.tv_nsec / 1000, 0,
                                RL_GPS_FIX_HAS_DATE);
          return TRUE;
        }
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
  /* above mean sea level; the ellipsoid height (within ~100 m of it) when
   * that is all the receiver gives */
  if ((data->set & ALTITUDE_SET) && f->mode >= MODE_3D)
    fix->altitude_m = isfinite (f->altMSL) ? f->altMSL : (isfinite (f->altHAE) ? f->altHAE : NAN);
  if ((data->set & SPEED_SET) && isfinite (f->speed) && f->speed >= 0)
    fix->speed_mps = f->speed;
  return TRUE;
}

/* Reads a number member; FALSE when absent or not a number. */
static gboolean
member_double (JsonObject *obj, const char *name, double *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return FALSE;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *out = (double) json_node_get_int (node);
      return TRUE;
    case G_TYPE_DOUBLE:
      *out = json_node_get_double (node);
      return isfinite (*out);
    default:
      return FALSE;
    }
}

/* A string member, or NULL; never a critical for a member of another type. */
static const char *
member_string (JsonObject *obj, const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* A TPV object as libgps would have unpacked it, so that the live source
 * and the replay judge fixes with the very same function.  (libgps's own
 * unpacker is not used on files: gps_unpack() 3.22 never returns on some
 * damaged lines, e.g. a SKY report cut off and glued to the next one.) */
static void
tpv_to_gps_data (JsonObject *obj, struct gps_data_t *gd)
{
  double v;
  const char *t = member_string (obj, "time");

  gd->set = MODE_SET;
  gd->fix.mode = member_double (obj, "mode", &v) && v >= 0 && v <= 3 ? (int) v : MODE_NOT_SEEN;
  gd->fix.latitude = gd->fix.longitude = NAN;
  gd->fix.eph = gd->fix.epx = gd->fix.epy = NAN;
  gd->fix.altMSL = gd->fix.altHAE = gd->fix.speed = NAN;
  /* gpsd < 3.20 wrote "alt" (above mean sea level); later ones altMSL and altHAE */
  if (member_double (obj, "altMSL", &gd->fix.altMSL) || member_double (obj, "alt", &gd->fix.altMSL) ||
      member_double (obj, "altHAE", &gd->fix.altHAE))
    gd->set |= ALTITUDE_SET;
  if (member_double (obj, "speed", &gd->fix.speed))
    gd->set |= SPEED_SET;
  if (t != NULL)
    {
      g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
      g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (t, utc);
      if (dt != NULL)
        {
          gd->fix.time.tv_sec = (time_t) g_date_time_to_unix (dt);
          gd->fix.time.tv_nsec = (long) g_date_time_get_microsecond (dt) * 1000;
          gd->set |= TIME_SET;
        }
    }
  if (member_double (obj, "lat", &gd->fix.latitude) && member_double (obj, "lon", &gd->fix.longitude))
    gd->set |= LATLON_SET;
  if (!member_double (obj, "eph", &gd->fix.eph))
    gd->fix.eph = NAN;
  if (!member_double (obj, "epx", &gd->fix.epx))
    gd->fix.epx = NAN;
  if (!member_double (obj, "epy", &gd->fix.epy))
    gd->fix.epy = NAN;
}

void
rl_gpsd_json_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats)
{
  /* struct gps_data_t is large (skyview tables): keep it off the stack. */
  g_autofree struct gps_data_t *gd = g_new0 (struct gps_data_t, 1);
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
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
      JsonObject *obj;
      const char *cls;
      double hdop;

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
      if (!json_parser_load_from_data (parser, start, (gssize) n, NULL) ||
          !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          stats->rejected[RL_GPS_REJECT_MALFORMED]++;
          continue;
        }
      obj = json_node_get_object (json_parser_get_root (parser));
      cls = member_string (obj, "class");
      if (cls == NULL)
        {
          stats->rejected[RL_GPS_REJECT_MALFORMED]++;
          continue;
        }
      if (strcmp (cls, "SKY") == 0)
        {
          /* its HDOP goes with the TPV reports that follow, as in libgps */
          if (member_double (obj, "hdop", &hdop) && hdop > 0)
            gd->dop.hdop = hdop;
          stats->ignored++;
          continue;
        }
      if (strcmp (cls, "TPV") != 0)
        {
          /* VERSION, DEVICES, WATCH, …: no position */
          stats->ignored++;
          continue;
        }
      tpv_to_gps_data (obj, gd);
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
      if (rl_gps_fix_is_lost (&fix))
        stats->fix_lost++;
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
