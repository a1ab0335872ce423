#include "readers/gpsd-json.h"
#include "readers/gpspipe-time.h"
#include "readers/json-depth.h"

#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

/* gpsd's own limit for one JSON report is GPS_JSON_RESPONSE_MAX (4096);
 * anything far longer is not a report. */
#define MAX_LINE 8192
/* An ERROR report's words are shown up to this many characters. */
#define MAX_ERROR_CHARS 160

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
  /* A position the receiver did not measure is no fix (as GGA quality 6-8
   * and the RMC modes E, M and S): dead reckoning alone, a position
   * surveyed in or typed (time only), a simulator.  GNSS aided by dead
   * reckoning (STATUS_GNSSDR) is a fix. */
  gboolean unmeasured = f->mode >= MODE_2D && (data->set & STATUS_SET) &&
                        (f->status == STATUS_DR || f->status == STATUS_TIME || f->status == STATUS_SIM);

  rl_gps_fix_init (fix);
  if (f->mode < MODE_2D || unmeasured)
    {
      /* With a time it is an event: the receiver lost its fix then.
       * (MODE_NOT_SEEN is no such statement: nothing was said.) */
      if ((f->mode == MODE_NO_FIX || unmeasured) && (data->set & TIME_SET) && f->time.tv_sec > 0 &&
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
 * damaged lines, e.g. a SKY report cut off and glued to the next one.)
 * FALSE when "time" is a number that is no time from 1970 to 9999. */
static gboolean
tpv_to_gps_data (JsonObject *obj, struct gps_data_t *gd)
{
  double v;
  const char *t = member_string (obj, "time");
  gboolean time_ok = TRUE;

  gd->set = MODE_SET;
  gd->fix.mode = member_double (obj, "mode", &v) && v >= 0 && v <= 3 ? (int) v : MODE_NOT_SEEN;
  /* gpsd writes "status" only when it is not a plain fix */
  if (member_double (obj, "status", &v) && v >= 0 && v <= 1000)
    {
      gd->fix.status = (int) v;
      gd->set |= STATUS_SET;
    }
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
  else if (member_double (obj, "time", &v))
    {
      /* gpsd up to 3.3 (protocol 3.0-3.3) wrote seconds since the epoch,
       * "time":1253334480.119; kept to the µs, as an ISO time is */
      if (v > 0 && v <= 253402300799.0)
        {
          gint64 us = (gint64) llround (v * G_USEC_PER_SEC);
          gd->fix.time.tv_sec = (time_t) (us / G_USEC_PER_SEC);
          gd->fix.time.tv_nsec = (long) (us % G_USEC_PER_SEC) * 1000;
          gd->set |= TIME_SET;
        }
      else
        time_ok = FALSE;
    }
  if (member_double (obj, "lat", &gd->fix.latitude) && member_double (obj, "lon", &gd->fix.longitude))
    gd->set |= LATLON_SET;
  if (!member_double (obj, "eph", &gd->fix.eph))
    gd->fix.eph = NAN;
  if (!member_double (obj, "epx", &gd->fix.epx))
    gd->fix.epx = NAN;
  if (!member_double (obj, "epy", &gd->fix.epy))
    gd->fix.epy = NAN;
  return time_ok;
}

struct RlGpsdJsonReader {
  const char *data;
  gsize len, pos;
  guint64 line;         /* of the line being read, from 1 */
  /* struct gps_data_t is large (skyview tables): keep it off the stack. */
  struct gps_data_t *gd;
  JsonParser *parser;
  gboolean have_last;
  gint64 last_time;
  RlGpsParseStats stats;
  gboolean file_order;
  gboolean live;        /* a gpsd socket: see rl_gpsd_json_reader_new_live() */
  guint64 n_errors;
  char *errors[RL_GPSD_ERRORS_KEPT];
  guint64 error_lines[RL_GPSD_ERRORS_KEPT];
  char *last_error;
};

RlGpsdJsonReader *
rl_gpsd_json_reader_new (const char *data, gsize len)
{
  RlGpsdJsonReader *r;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  r = g_new0 (RlGpsdJsonReader, 1);
  r->data = data;
  r->len = len;
  r->pos = rl_json_lines_bom_length (data, len);
  r->gd = g_new0 (struct gps_data_t, 1);
  r->parser = json_parser_new_immutable ();
  return r;
}

RlGpsdJsonReader *
rl_gpsd_json_reader_new_in_file_order (const char *data, gsize len)
{
  RlGpsdJsonReader *r = rl_gpsd_json_reader_new (data, len);

  r->file_order = TRUE;
  return r;
}

RlGpsdJsonReader *
rl_gpsd_json_reader_new_live (void)
{
  RlGpsdJsonReader *r = rl_gpsd_json_reader_new (NULL, 0);

  r->live = TRUE;
  return r;
}

/* File order: a report stamped before 1970 still gives its position, the
 * time passed on as it is (negative) for the caller to judge. */
static gboolean
fix_before_epoch (RlGpsdJsonReader *r, RlGpsFix *fix)
{
  struct timespec t = r->gd->fix.time;
  RlGpsReject why;
  gboolean ok;

  if (!(r->gd->set & TIME_SET) || t.tv_sec > 0)
    return FALSE;
  r->gd->fix.time.tv_sec = 1;
  ok = rl_gps_fix_from_gps_data (r->gd, fix, &why);
  r->gd->fix.time = t;
  if (ok)
    fix->time = (gint64) t.tv_sec * G_USEC_PER_SEC + t.tv_nsec / 1000;
  return ok;
}

void
rl_gpsd_json_reader_free (RlGpsdJsonReader *r)
{
  if (r == NULL)
    return;
  g_object_unref (r->parser);
  for (guint i = 0; i < RL_GPSD_ERRORS_KEPT; i++)
    g_free (r->errors[i]);
  g_free (r->last_error);
  g_free (r->gd);
  g_free (r);
}

/* gpsd's words as a terminal can show them: control characters (an
 * escape sequence in a damaged or crafted log) as '?', and not too many. */
static char *
printable_words (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (n++ == MAX_ERROR_CHARS)
        {
          g_string_append (out, "...");
          break;
        }
      if (g_unichar_iscntrl (c))
        g_string_append_c (out, '?');
      else
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

/* An ERROR report: gpsd could not do what the log's reader needed (open
 * the device, parse a request), which explains a log without fixes. */
static void
keep_error (RlGpsdJsonReader *r, JsonObject *obj)
{
  const char *message = member_string (obj, "message");

  g_free (r->last_error);
  r->last_error = printable_words (message != NULL ? message : "(no message)");
  if (r->n_errors < RL_GPSD_ERRORS_KEPT)
    {
      r->errors[r->n_errors] = g_strdup (r->last_error);
      r->error_lines[r->n_errors] = r->line;
    }
  r->n_errors++;
}

static void
reject (RlGpsdJsonReader *r, RlGpsReject why, const char *text)
{
  rl_gps_parse_stats_reject (&r->stats, why, r->line, text);
}

/* One line: TRUE when it gave @fix. */
static gboolean
read_line (RlGpsdJsonReader *r, const char *start, gsize n, RlGpsFix *fix)
{
  RlGpsParseStats *stats = &r->stats;
  RlGpsReject why;
  JsonObject *obj;
  const char *cls;
  double hdop;

  stats->records++;
  if (start[0] != '{')
    {
      /* gpspipe -t's time is taken off before; a -T format of one's own is not */
      reject (r, RL_GPS_REJECT_MALFORMED, "the line does not start with '{'");
      return FALSE;
    }
  if (n > MAX_LINE || memchr (start, '\0', n) != NULL)
    {
      reject (r, RL_GPS_REJECT_MALFORMED, n > MAX_LINE ? "longer than any gpsd report" : "a NUL byte in the line");
      return FALSE;
    }
  if (start[n - 1] != '}')
    {
      reject (r, RL_GPS_REJECT_TRUNCATED, "the line does not end with '}'");
      return FALSE;
    }
  if (!rl_json_load_line (r->parser, start, n, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (r->parser)))
    {
      reject (r, RL_GPS_REJECT_MALFORMED, "not one JSON object");
      return FALSE;
    }
  obj = json_node_get_object (json_parser_get_root (r->parser));
  cls = member_string (obj, "class");
  if (cls == NULL)
    {
      reject (r, RL_GPS_REJECT_MALFORMED, "no \"class\" string");
      return FALSE;
    }
  if (strcmp (cls, "SKY") == 0)
    {
      /* its HDOP goes with the TPV reports that follow, as in libgps */
      if (member_double (obj, "hdop", &hdop) && hdop > 0)
        r->gd->dop.hdop = hdop;
      stats->ignored++;
      return FALSE;
    }
  if (strcmp (cls, "TPV") != 0)
    {
      /* VERSION, DEVICES, WATCH, ERROR, …: no position */
      if (strcmp (cls, "ERROR") == 0)
        keep_error (r, obj);
      stats->ignored++;
      return FALSE;
    }
  if (!tpv_to_gps_data (obj, r->gd))
    {
      reject (r, RL_GPS_REJECT_BAD_VALUE, "a numeric \"time\" (gpsd up to 3.3) not from 1970 to 9999");
      return FALSE;
    }
  if (!rl_gps_fix_from_gps_data (r->gd, fix, &why) && !(r->file_order && fix_before_epoch (r, fix)))
    {
      reject (r, why, why == RL_GPS_REJECT_MALFORMED ? "a TPV without \"lat\" and \"lon\"" : NULL);
      return FALSE;
    }
  if (r->have_last && fix->time <= r->last_time && !r->file_order && !r->live)
    {
      reject (r, RL_GPS_REJECT_TIME_BACKWARDS, NULL);
      return FALSE;
    }
  r->have_last = TRUE;
  r->last_time = fix->time;
  stats->fixes++;
  if (rl_gps_fix_is_lost (fix))
    stats->fix_lost++;
  return TRUE;
}

gboolean
rl_gpsd_json_reader_next (RlGpsdJsonReader *r, RlGpsFix *fix)
{
  while (r->pos < r->len)
    {
      const char *start = r->data + r->pos;
      const char *nl = memchr (start, '\n', r->len - r->pos);
      gsize n = nl ? (gsize) (nl - start) : r->len - r->pos, stamp;

      r->pos += n + (nl ? 1 : 0);
      r->line++;
      while (n > 0 && g_ascii_isspace (start[n - 1]))
        n--;
      while (n > 0 && g_ascii_isspace (start[0]))
        start++, n--;
      /* `gpspipe -t` writes the time before each line it copies */
      if ((stamp = rl_gpspipe_time_length (start, n)) > 0)
        {
          r->stats.timestamped++;
          start += stamp, n -= stamp;
        }
      /* a note someone wrote on the log ("# Basel SBB, platform 7"): no
       * report, and gpsd never writes a line that starts so */
      if (n > 0 && start[0] == '#')
        r->stats.comments++;
      else if (n > 0 && read_line (r, start, n, fix))
        return TRUE;
    }
  r->stats.date_source = r->stats.fixes > 0 ? RL_GPS_DATE_FROM_FILE : RL_GPS_DATE_NONE;
  return FALSE;
}

RlGpsdLine
rl_gpsd_json_reader_feed_line (RlGpsdJsonReader *r, const char *line, gsize n, RlGpsFix *fix)
{
  RlGpsParseStats before = r->stats;

  r->line++;
  while (n > 0 && g_ascii_isspace (line[n - 1]))
    n--;
  while (n > 0 && g_ascii_isspace (line[0]))
    line++, n--;
  if (n == 0)
    return RL_GPSD_LINE_IGNORED;
  if (read_line (r, line, n, fix))
    return rl_gps_fix_is_lost (fix) ? RL_GPSD_LINE_LOST : RL_GPSD_LINE_FIX;
  /* mode 1 without a time: the receiver says it has no fix, just now */
  if (r->stats.rejected[RL_GPS_REJECT_NO_FIX] > before.rejected[RL_GPS_REJECT_NO_FIX] &&
      r->gd->fix.mode == MODE_NO_FIX)
    return RL_GPSD_LINE_LOST;
  return r->stats.ignored > before.ignored ? RL_GPSD_LINE_IGNORED : RL_GPSD_LINE_REJECTED;
}

gsize
rl_gpsd_json_reader_offset (const RlGpsdJsonReader *r)
{
  return r->pos;
}

guint64
rl_gpsd_json_reader_n_errors (const RlGpsdJsonReader *r)
{
  return r->n_errors;
}

const char *
rl_gpsd_json_reader_error (const RlGpsdJsonReader *r, guint i, guint64 *line)
{
  if (i >= RL_GPSD_ERRORS_KEPT || i >= r->n_errors)
    return NULL;
  if (line != NULL)
    *line = r->error_lines[i];
  return r->errors[i];
}

const char *
rl_gpsd_json_reader_last_error (const RlGpsdJsonReader *r)
{
  return r->last_error;
}

const RlGpsParseStats *
rl_gpsd_json_reader_stats (const RlGpsdJsonReader *r)
{
  return &r->stats;
}

void
rl_gpsd_json_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats)
{
  RlGpsdJsonReader *r;
  RlGpsFix fix;

  g_return_if_fail (data != NULL || len == 0);
  r = rl_gpsd_json_reader_new (data, len);
  while (rl_gpsd_json_reader_next (r, &fix))
    g_array_append_val (fixes, fix);
  *stats = r->stats;
  rl_gpsd_json_reader_free (r);
}

/* What gpsd says to a client before any report: its banner on connecting
 * and its answers to ?WATCH (gpsd_json(5)), as gpsd writes them. */
static gboolean
is_banner_line (const char *p, gsize n)
{
  static const char *const classes[] = { "VERSION", "DEVICES", "DEVICE", "WATCH" };
  static const char key[] = "{\"class\":\"";
  const gsize k = sizeof key - 1;

  if (n < k || memcmp (p, key, k) != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      gsize c = strlen (classes[i]);
      if (n > k + c && memcmp (p + k, classes[i], c) == 0 && p[k + c] == '"')
        return TRUE;
    }
  return FALSE;
}

/* Past a byte order mark, blanks, '#' comment lines (as the reader goes)
 * and up to MAX_BANNER_LINES of gpsd's banner; @banner: whether there
 * was any.  A session that reconnected many times is still gpsd's. */
#define MAX_BANNER_LINES 32
static gsize
skip_banner (const char *data, gsize len, gboolean *banner)
{
  gsize i = rl_json_lines_bom_length (data, len);
  guint n_banner = 0;

  *banner = FALSE;
  for (;;)
    {
      const char *nl;

      while (i < len && g_ascii_isspace (data[i]))
        i++;
      if (i >= len)
        break;
      nl = memchr (data + i, '\n', len - i);
      if (data[i] != '#')
        {
          gsize end = nl != NULL ? (gsize) (nl - data) : len;
          gsize stamp = rl_gpspipe_time_length (data + i, end - i);
          if (n_banner == MAX_BANNER_LINES || !is_banner_line (data + i + stamp, end - i - stamp))
            break;
          n_banner++;
          *banner = TRUE;
        }
      i = nl != NULL ? (gsize) (nl - data) : len;
    }
  return i;
}

gsize
rl_gpsd_json_banner_length (const char *data, gsize len)
{
  gboolean banner;

  return skip_banner (data, len, &banner);
}

gboolean
rl_gpsd_json_sniff (const char *data, gsize len)
{
  gboolean banner;
  gsize i = skip_banner (data, len, &banner), end;

  /* gpsd's banner alone is a session without reports; the line after it
   * decides, since `gpspipe -r` writes the banner before the NMEA */
  if (i >= len)
    return banner;
  /* gpspipe -t's time before the report */
  i += rl_gpspipe_time_length (data + i, len - i);
  if (i >= len || data[i] != '{')
    return FALSE;
  end = MIN (len, i + 512);
  for (gsize j = i; j + 8 <= end; j++)
    if (memcmp (data + j, "\"class\"", 7) == 0)
      return TRUE;
  return FALSE;
}
