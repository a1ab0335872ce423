#include "readers/nmea.h"

#include <math.h>
#include <string.h>
#include "readers/gpspipe-time.h"
#include "readers/json-depth.h"

/* NMEA 0183 caps a sentence at 82 characters; real receivers (u-blox PUBX,
 * Quectel GSV with signal IDs) go past it, so allow some room. */
#define MAX_SENTENCE 200
#define MAX_FIELDS 32
#define DAY_US (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC)
/* A time of day more than this far below the previous one is the next day. */
#define ROLLOVER_US (G_GINT64_CONSTANT (12) * 3600 * G_USEC_PER_SEC)

typedef struct {
  const char *p;
  gsize n;
} Field;

/* Everything the sentences of one epoch (one time of day) said. */
typedef struct {
  gboolean open;
  gint64 tod;
  gboolean has_pos;
  double lat, lon;
  gboolean said_no_fix;
  int gsa_mode;            /* 0 unknown */
  double hdop, epx, epy;
  double altitude_m, speed_mps;
  gboolean has_date;
  gint64 date_us;
  guint types;             /* file order: the position sentences it holds */
  guint64 line;            /* where its first sentence is */
} Epoch;

typedef struct {
  GArray *fixes;
  RlGpsParseStats *stats;
  guint64 line;            /* of the byte being read, from 1 */
  Epoch ep;
  gboolean have_last;
  gint64 last_tod;
  gint32 day;              /* days since the first fix, by rollovers and dates */
  gboolean have_anchor;
  gint64 anchor;           /* midnight UTC of day 0 */
  char date_cache[6];      /* the last RMC date field and its value */
  gint64 date_cache_us;
  char zda_cache[8];       /* the last ZDA day, month and year, and their value */
  gint64 zda_cache_us;
  /* file order (a log whose clock is broken): a repeated sentence type
   * starts the next epoch, and times are taken as they come */
  gboolean file_order;
  guint cur_type;
  /* Android's GnssLogger writes each sentence as "NMEA,<sentence>,<unix
   * ms>": the sentence being read is such a record's, and its time may
   * come on the next line when the sentence carried its own line end */
  gboolean gnss_record;
  gboolean gnss_tail;
} Parser;

typedef enum {
  VAL_OK,
  VAL_EMPTY,
  VAL_MALFORMED,
  VAL_RANGE,
} ValResult;

static RlGpsReject
val_reject (ValResult r)
{
  return r == VAL_RANGE ? RL_GPS_REJECT_BAD_VALUE : RL_GPS_REJECT_MALFORMED;
}

/* What a replay's note says of it (NULL: the reason's own words). */
static const char *
val_words (ValResult r)
{
  return r == VAL_MALFORMED ? "a time, date or position field in the wrong form" : NULL;
}

/* @text: what exactly was wrong, when the reason alone does not say */
static void
reject_as (Parser *ps, RlGpsReject why, const char *text)
{
  rl_gps_parse_stats_reject (ps->stats, why, ps->line, text);
}

static void
reject (Parser *ps, RlGpsReject why)
{
  reject_as (ps, why, NULL);
}

/* Plain decimal "123.456": no sign, exponent, inf or nan (strtod takes all
 * of those, and the field is not NUL-terminated anyway). */
static ValResult
parse_decimal (Field f, double *out)
{
  static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12 };
  guint64 mantissa = 0;
  int frac_digits = -1, digits = 0;

  if (f.n == 0)
    return VAL_EMPTY;
  /* Whole digits into an integer, one division at the end: exact for the
   * ≤ 12 significant digits receivers write, and fast. */
  for (gsize i = 0; i < f.n; i++)
    {
      char c = f.p[i];
      if (c >= '0' && c <= '9')
        {
          if (digits < 18)
            {
              mantissa = mantissa * 10 + (guint64) (c - '0');
              digits++;
              if (frac_digits >= 0)
                frac_digits++;
            }
          else if (frac_digits < 0)
            return VAL_RANGE;   /* 19+ integer digits: no real value */
        }
      else if (c == '.' && frac_digits < 0)
        frac_digits = 0;
      else
        return VAL_MALFORMED;
    }
  if (digits == 0)
    return VAL_MALFORMED;
  if (frac_digits > 12)
    {
      /* more decimals than any receiver writes: drop the excess */
      for (; frac_digits > 12; frac_digits--)
        mantissa /= 10;
    }
  *out = (double) mantissa / pow10[frac_digits > 0 ? frac_digits : 0];
  return VAL_OK;
}

static gboolean
two_digits (const char *p, int *out)
{
  if (!g_ascii_isdigit (p[0]) || !g_ascii_isdigit (p[1]))
    return FALSE;
  *out = (p[0] - '0') * 10 + (p[1] - '0');
  return TRUE;
}

/* "hhmmss" or "hhmmss.sss" → µs since midnight. */
static ValResult
parse_time (Field f, gint64 *out)
{
  int hh, mm, ss;
  gint64 frac = 0, unit = G_USEC_PER_SEC;

  if (f.n == 0)
    return VAL_EMPTY;
  if (f.n < 6 || !two_digits (f.p, &hh) || !two_digits (f.p + 2, &mm) || !two_digits (f.p + 4, &ss))
    return VAL_MALFORMED;
  if (f.n > 6)
    {
      if (f.p[6] != '.')
        return VAL_MALFORMED;
      for (gsize i = 7; i < f.n; i++)
        {
          if (!g_ascii_isdigit (f.p[i]))
            return VAL_MALFORMED;
          if (unit > 1)
            {
              unit /= 10;
              frac += (f.p[i] - '0') * unit;
            }
        }
    }
  /* 60 seconds is a leap second */
  if (hh > 23 || mm > 59 || ss > 60)
    return VAL_RANGE;
  if (hh == 23 && mm == 59 && ss == 60)
    {
      /* An inserted leap second (UTC 23:59:60, which u-blox and others
       * print) has no place in µs since midnight: read as the next day's
       * 00:00:00, it made the true 00:00:00 epoch "earlier than the fix
       * before it".  Squeezed into the last millisecond of its day, its
       * epochs keep their order and the next second stays free. */
      *out = (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC - 1000) + frac / 1000;
      return VAL_OK;
    }
  *out = ((gint64) hh * 3600 + mm * 60 + ss) * G_USEC_PER_SEC + frac;
  return VAL_OK;
}

/* "ddmmyy" → midnight UTC in µs.  Two-digit years: 80–99 are 19xx (GPS
 * began in 1980), the rest 20xx. */
static ValResult
parse_date (Parser *ps, Field f, gint64 *out)
{
  int dd, mo, yy;

  if (f.n == 0)
    return VAL_EMPTY;
  if (f.n != 6 || !two_digits (f.p, &dd) || !two_digits (f.p + 2, &mo) || !two_digits (f.p + 4, &yy))
    return VAL_MALFORMED;
  if (memcmp (ps->date_cache, f.p, 6) == 0)
    {
      *out = ps->date_cache_us;
      return VAL_OK;
    }
  if (!rl_gps_civil_to_us (yy >= 80 ? 1900 + yy : 2000 + yy, mo, dd, out))
    return VAL_RANGE;
  memcpy (ps->date_cache, f.p, 6);
  ps->date_cache_us = *out;
  return VAL_OK;
}

/* ZDA's day, month and four-digit year ("22", "04", "2024") → midnight
 * UTC in µs; all three empty: the receiver does not know the date yet. */
static ValResult
parse_zda_date (Parser *ps, Field d, Field m, Field y, gint64 *out)
{
  int dd, mo, cc, yy;
  char key[8];

  if (d.n == 0 && m.n == 0 && y.n == 0)
    return VAL_EMPTY;
  if (d.n != 2 || m.n != 2 || y.n != 4 || !two_digits (d.p, &dd) || !two_digits (m.p, &mo) ||
      !two_digits (y.p, &cc) || !two_digits (y.p + 2, &yy))
    return VAL_MALFORMED;
  memcpy (key, d.p, 2);
  memcpy (key + 2, m.p, 2);
  memcpy (key + 4, y.p, 4);
  if (memcmp (ps->zda_cache, key, 8) == 0)
    {
      *out = ps->zda_cache_us;
      return VAL_OK;
    }
  if (!rl_gps_civil_to_us (cc * 100 + yy, mo, dd, out))
    return VAL_RANGE;
  memcpy (ps->zda_cache, key, 8);
  ps->zda_cache_us = *out;
  return VAL_OK;
}

/* "ddmm.mmmm" / "dddmm.mmmm" and a hemisphere letter → signed degrees.
 * One pass: every digit into an integer, split into degrees and minutes
 * with integer arithmetic (coordinates are most of the parsing work). */
static ValResult
parse_coord (Field val, Field hemi, gboolean is_lat, double *out)
{
  static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10 };
  guint32 ipart = 0;
  guint64 fpart = 0;
  gsize i = 0, int_len, frac;
  double minutes, v;

  if (val.n == 0 && hemi.n == 0)
    return VAL_EMPTY;
  if (val.n == 0 || hemi.n != 1)
    return VAL_MALFORMED;
  for (; i < val.n && val.p[i] != '.'; i++)
    {
      if (val.p[i] < '0' || val.p[i] > '9' || i >= 5)
        return VAL_MALFORMED;
      ipart = ipart * 10 + (guint32) (val.p[i] - '0');
    }
  int_len = i;
  if (int_len < 3 || int_len > (is_lat ? 4u : 5u))
    return VAL_MALFORMED;
  frac = i < val.n ? val.n - i - 1 : 0;
  if (frac > 10)
    return VAL_MALFORMED;
  for (i++; i < val.n; i++)
    {
      if (val.p[i] < '0' || val.p[i] > '9')
        return VAL_MALFORMED;
      fpart = fpart * 10 + (guint64) (val.p[i] - '0');
    }
  minutes = (double) (ipart % 100) + (double) fpart / pow10[frac];
  if (minutes >= 60.0)
    return VAL_RANGE;
  v = (double) (ipart / 100) + minutes / 60.0;
  if (v > (is_lat ? 90.0 : 180.0))
    return VAL_RANGE;
  switch (hemi.p[0])
    {
    case 'N':
    case 'E':
      if ((hemi.p[0] == 'N') != is_lat)
        return VAL_MALFORMED;
      break;
    case 'S':
    case 'W':
      if ((hemi.p[0] == 'S') != is_lat)
        return VAL_MALFORMED;
      v = -v;
      break;
    default:
      return VAL_MALFORMED;
    }
  *out = v;
  return VAL_OK;
}

static void
epoch_reset (Epoch *ep)
{
  memset (ep, 0, sizeof *ep);
  ep->hdop = ep->epx = ep->epy = NAN;
  ep->altitude_m = ep->speed_mps = NAN;
}

/* The epoch being flushed lies behind the last one: a fix out of order is
 * rejected; a date alone behind the fixes (@date_only) is no fix lost, it
 * is dropped as a sentence that says nothing new. */
static void
drop_behind (Parser *ps, gboolean date_only)
{
  if (!date_only)
    rl_gps_parse_stats_reject (ps->stats, RL_GPS_REJECT_TIME_BACKWARDS, ps->ep.line, NULL);
  else
    ps->stats->ignored++;
  epoch_reset (&ps->ep);
}

static void
flush_epoch (Parser *ps)
{
  Epoch *ep = &ps->ep;
  RlGpsFix fix;
  gint32 day = ps->day;

  if (!ep->open)
    return;
  gboolean lost = ep->said_no_fix || ep->gsa_mode == 1;
  /* An epoch of only a ZDA is no fix, but its date dates the epochs
   * around it (a receiver may stamp its ZDA apart from its GGA). */
  gboolean date_only = !ep->has_pos && !lost && ep->has_date && !ps->file_order;

  /* An epoch of only GST, GSA or VTG says nothing. */
  if (!ep->has_pos && !lost && !date_only)
    {
      epoch_reset (ep);
      return;
    }

  if (ps->have_last && !ps->file_order)
    {
      gint64 last_abs = ps->anchor + (gint64) ps->day * DAY_US + ps->last_tod;

      if (ep->has_date && ps->have_anchor)
        {
          /* A date settles it, even across a gap of days in the log. */
          if (ep->date_us + ep->tod <= last_abs)
            {
              drop_behind (ps, date_only);
              return;
            }
          day = (gint32) ((ep->date_us - ps->anchor) / DAY_US);
        }
      else if (ep->tod <= ps->last_tod)
        {
          if (ps->last_tod - ep->tod > ROLLOVER_US)
            day++;
          else
            {
              drop_behind (ps, date_only);
              return;
            }
        }
    }
  if (ep->has_date && !ps->have_anchor)
    {
      ps->have_anchor = TRUE;
      ps->anchor = ep->date_us - (gint64) day * DAY_US;
    }
  ps->have_last = TRUE;
  ps->last_tod = ep->tod;
  ps->day = day;
  if (date_only)
    {
      epoch_reset (ep);
      return;
    }

  if (lost)
    {
      /* the receiver says it has no fix (RMC V, GGA quality 0, GSA mode 1):
       * an event, so that the position it gave before is withdrawn */
      rl_gps_fix_init_lost (&fix, ep->has_date ? ep->date_us + ep->tod : ep->tod, day,
                            ep->has_date ? RL_GPS_FIX_HAS_DATE : 0);
      ps->stats->fix_lost++;
    }
  else
    {
      rl_gps_fix_init (&fix);
      fix.day = day;
      if (ep->has_date)
        {
          fix.flags |= RL_GPS_FIX_HAS_DATE;
          fix.time = ep->date_us + ep->tod;
        }
      else
        fix.time = ep->tod;
      fix.lat = ep->lat;
      fix.lon = ep->lon;
      fix.mode = ep->gsa_mode >= 2 ? ep->gsa_mode : 2;
      fix.hdop = ep->hdop;
      fix.epx = ep->epx;
      fix.epy = ep->epy;
      fix.altitude_m = ep->altitude_m;
      fix.speed_mps = ep->speed_mps;
    }
  g_array_append_val (ps->fixes, fix);
  ps->stats->fixes++;
  epoch_reset (ep);
}

/* The epoch a sentence stamped @tod belongs to; a new time closes the old one. */
static Epoch *
epoch_at (Parser *ps, gint64 tod)
{
  if (ps->ep.open && (ps->ep.tod != tod || (ps->file_order && (ps->ep.types & ps->cur_type))))
    flush_epoch (ps);
  if (!ps->ep.open)
    {
      ps->ep.open = TRUE;
      ps->ep.tod = tod;
      ps->ep.line = ps->line;
    }
  ps->ep.types |= ps->cur_type;
  return &ps->ep;
}

static void
set_position (Epoch *ep, double lat, double lon)
{
  if (ep->has_pos)
    return;
  ep->has_pos = TRUE;
  ep->lat = lat;
  ep->lon = lon;
}

/* Position + time shared by GGA, GNS, GLL and RMC.  @valid says whether the
 * sentence's own status calls it a fix. */
/* TRUE when the sentence joined the epoch at its time (a fix or a "no fix"). */
static gboolean
take_position (Parser *ps, Field t, Field lat_f, Field ns, Field lon_f, Field ew,
               gboolean valid, double hdop)
{
  gint64 tod;
  double lat = 0, lon = 0;
  ValResult r;
  Epoch *ep;

  r = parse_time (t, &tod);
  if (r == VAL_EMPTY)
    {
      reject (ps, valid ? RL_GPS_REJECT_NO_TIME : RL_GPS_REJECT_NO_FIX);
      return FALSE;
    }
  if (r != VAL_OK)
    {
      reject_as (ps, val_reject (r), val_words (r));
      return FALSE;
    }
  if (valid)
    {
      ValResult rl = parse_coord (lat_f, ns, TRUE, &lat);
      ValResult rn = parse_coord (lon_f, ew, FALSE, &lon);
      if (rl != VAL_OK || rn != VAL_OK)
        {
          ValResult worst = rl == VAL_RANGE || rn == VAL_RANGE ? VAL_RANGE : VAL_MALFORMED;
          reject_as (ps, val_reject (worst), val_words (worst));
          return FALSE;
        }
    }
  ep = epoch_at (ps, tod);
  if (!valid)
    {
      ep->said_no_fix = TRUE;
      return TRUE;
    }
  set_position (ep, lat, lon);
  if (!isnan (hdop) && isnan (ep->hdop))
    ep->hdop = hdop;
  return TRUE;
}

static double
optional_decimal (Field f)
{
  double v;
  return parse_decimal (f, &v) == VAL_OK ? v : NAN;
}

/* Altitude can be below sea level (Dead Sea shore: -430 m). */
static double
optional_signed (Field f)
{
  if (f.n > 1 && f.p[0] == '-')
    {
      Field rest = { f.p + 1, f.n - 1 };
      return -optional_decimal (rest);
    }
  return optional_decimal (f);
}

static void
set_speed_knots (Epoch *ep, Field f)
{
  double kn = optional_decimal (f);

  if (isnan (ep->speed_mps) && !isnan (kn))
    ep->speed_mps = kn * 1852.0 / 3600.0;
}

static void
handle_gga (Parser *ps, const Field *f, guint n)
{
  char q;

  if (n < 9)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  /* 0 invalid, 6 dead reckoning, 7 manual input, 8 simulator: no fix. */
  q = f[6].n == 1 ? f[6].p[0] : '0';
  if (take_position (ps, f[1], f[2], f[3], f[4], f[5], q >= '1' && q <= '5', optional_decimal (f[8])) &&
      n > 10 && isnan (ps->ep.altitude_m) && (f[10].n == 0 || (f[10].n == 1 && f[10].p[0] == 'M')))
    ps->ep.altitude_m = optional_signed (f[9]);
}

/* The mode indicator of NMEA 2.3 (RMC, GLL): A autonomous, D differential
 * and NMEA 4.1's P precise, R RTK, F float RTK are fixes; N none, E dead
 * reckoning, M manual input and S simulator are not.  An empty field
 * (older receivers) says nothing. */
static gboolean
mode_is_fix (Field mode)
{
  return mode.n == 0 || (mode.n == 1 && strchr ("ADPRF", mode.p[0]) != NULL);
}

static void
handle_rmc (Parser *ps, const Field *f, guint n)
{
  gboolean valid;
  gint64 date_us = 0;
  ValResult r;

  if (n < 10)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  valid = f[2].n == 1 && f[2].p[0] == 'A';
  if (n > 12 && !mode_is_fix (f[12]))
    valid = FALSE;
  r = parse_date (ps, f[9], &date_us);
  if (r == VAL_MALFORMED || r == VAL_RANGE)
    {
      reject_as (ps, val_reject (r), val_words (r));
      return;
    }
  if (take_position (ps, f[1], f[3], f[4], f[5], f[6], valid, NAN))
    {
      if (r == VAL_OK)
        {
          ps->ep.has_date = TRUE;
          ps->ep.date_us = date_us;
        }
      if (valid)
        set_speed_knots (&ps->ep, f[7]);
    }
}

/* Time and date (UTC; the local zone fields after them are not needed).
 * Survey and timing receivers, marine units and gpsd's own NMEA send GGA
 * and ZDA and no RMC: the ZDA dates the epoch of its time as an RMC does,
 * and a bad date is counted as an RMC's is. */
static void
handle_zda (Parser *ps, const Field *f, guint n)
{
  gint64 tod = 0, date_us = 0;
  ValResult rt, rd;
  Epoch *ep;

  if (n < 5)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  rt = parse_time (f[1], &tod);
  rd = parse_zda_date (ps, f[2], f[3], f[4], &date_us);
  if (rt == VAL_MALFORMED || rt == VAL_RANGE || rd == VAL_MALFORMED || rd == VAL_RANGE)
    {
      ValResult worst = rt == VAL_RANGE || rd == VAL_RANGE ? VAL_RANGE : VAL_MALFORMED;
      reject_as (ps, val_reject (worst), val_words (worst));
      return;
    }
  if (rt == VAL_EMPTY || rd == VAL_EMPTY)
    {
      /* a receiver that does not know the time yet: nothing to date */
      ps->stats->ignored++;
      return;
    }
  ep = epoch_at (ps, tod);
  if (!ep->has_date)
    {
      ep->has_date = TRUE;
      ep->date_us = date_us;
    }
}

/* Course and speed over ground; no time: it belongs to the epoch being
 * assembled.  Speed in knots (field 5), else km/h (field 7). */
static void
handle_vtg (Parser *ps, const Field *f, guint n)
{
  double kmh;

  if (n < 9)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  if (!ps->ep.open)
    {
      ps->stats->ignored++;
      return;
    }
  /* NMEA 2.3 mode N: not valid */
  if (n > 9 && f[9].n == 1 && f[9].p[0] == 'N')
    return;
  set_speed_knots (&ps->ep, f[5]);
  kmh = optional_decimal (f[7]);
  if (isnan (ps->ep.speed_mps) && !isnan (kmh))
    ps->ep.speed_mps = kmh / 3.6;
}

static void
handle_gns (Parser *ps, const Field *f, guint n)
{
  gboolean valid = FALSE;

  if (n < 9)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  /* One mode letter per constellation; any real fix among them counts. */
  for (gsize i = 0; i < f[6].n; i++)
    if (strchr ("ADPRF", f[6].p[i]) != NULL)
      valid = TRUE;
  take_position (ps, f[1], f[2], f[3], f[4], f[5], valid, optional_decimal (f[8]));
}

static void
handle_gll (Parser *ps, const Field *f, guint n)
{
  gboolean valid;

  if (n < 7)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  valid = f[6].n == 1 && f[6].p[0] == 'A';
  if (n > 7 && !mode_is_fix (f[7]))
    valid = FALSE;
  take_position (ps, f[5], f[1], f[2], f[3], f[4], valid, NAN);
}

static void
handle_gsa (Parser *ps, const Field *f, guint n)
{
  int mode;
  double hdop;

  if (n < 18 || f[2].n != 1 || f[2].p[0] < '1' || f[2].p[0] > '3')
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "a GSA without its fields or fix mode");
      return;
    }
  /* No time in GSA: it belongs to the epoch being assembled. */
  if (!ps->ep.open)
    {
      ps->stats->ignored++;
      return;
    }
  mode = f[2].p[0] - '0';
  /* One GSA per constellation: the best mode among them is the fix's. */
  if (mode > ps->ep.gsa_mode)
    ps->ep.gsa_mode = mode;
  hdop = optional_decimal (f[16]);
  if (!isnan (hdop))
    ps->ep.hdop = hdop;
}

static void
handle_gst (Parser *ps, const Field *f, guint n)
{
  gint64 tod;
  ValResult r;
  Epoch *ep;

  if (n < 9)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "too few fields");
      return;
    }
  r = parse_time (f[1], &tod);
  if (r != VAL_OK)
    {
      reject_as (ps, r == VAL_EMPTY ? RL_GPS_REJECT_NO_TIME : val_reject (r), val_words (r));
      return;
    }
  ep = epoch_at (ps, tod);
  ep->epy = optional_decimal (f[6]);
  ep->epx = optional_decimal (f[7]);
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* A talker and sentence type (GPRMC), or a proprietary address: P, a
 * maker's code and its own type, 3 to 9 characters in all (PUBX, PMTK001,
 * PGRME, PQTMVER). */
static gboolean
looks_like_address (const char *p, gsize avail)
{
  gsize n = 0;

  while (n < avail && n < 10 && (g_ascii_isupper (p[n]) || g_ascii_isdigit (p[n])))
    n++;
  if (n >= avail || p[n] != ',')
    return FALSE;
  return n == 5 || (p[0] == 'P' && n >= 3);
}

static void
dispatch (Parser *ps, const char *s, const Field *fields, guint n_fields)
{
  const char *type;

  /* Proprietary sentences ($PUBX, $PQGSA, …) are valid but not ours. */
  if (fields[0].n != 5 || s[1] == 'P')
    {
      ps->stats->ignored++;
      return;
    }
  type = fields[0].p + 2;
  ps->cur_type = 0;
  for (guint k = 0; k < 5; k++)
    if (memcmp (type, "GGARMCGNSGLLGST" + 3 * k, 3) == 0)
      ps->cur_type = 1u << k;
  if (memcmp (type, "GGA", 3) == 0)
    handle_gga (ps, fields, n_fields);
  else if (memcmp (type, "RMC", 3) == 0)
    handle_rmc (ps, fields, n_fields);
  else if (memcmp (type, "GNS", 3) == 0)
    handle_gns (ps, fields, n_fields);
  else if (memcmp (type, "GLL", 3) == 0)
    handle_gll (ps, fields, n_fields);
  else if (memcmp (type, "GSA", 3) == 0)
    handle_gsa (ps, fields, n_fields);
  else if (memcmp (type, "GST", 3) == 0)
    handle_gst (ps, fields, n_fields);
  else if (memcmp (type, "VTG", 3) == 0)
    handle_vtg (ps, fields, n_fields);
  else if (memcmp (type, "ZDA", 3) == 0)
    handle_zda (ps, fields, n_fields);
  else
    ps->stats->ignored++;
}

#define SWAR_ONES G_GUINT64_CONSTANT (0x0101010101010101)
#define SWAR_LOW7 G_GUINT64_CONSTANT (0x7f7f7f7f7f7f7f7f)
#define SWAR_HIGH G_GUINT64_CONSTANT (0x8080808080808080)

/* 0x80 in every byte of @x that is zero, exactly (no borrow between bytes). */
static inline guint64
swar_zero (guint64 x)
{
  return ~(((x & SWAR_LOW7) + SWAR_LOW7) | x | SWAR_LOW7);
}

static inline guint64
swar_eq (guint64 x, char c)
{
  return swar_zero (x ^ (SWAR_ONES * (guint8) c));
}

/* Any byte that is not printable ASCII, or is '$' or '*'. */
static inline gboolean
swar_special (guint64 x)
{
  /* bytes ≥ 0x80, bytes < 0x20 (no bit of 0x60 set … or exactly), 0x7f */
  guint64 high = x & SWAR_HIGH;
  guint64 below_space = ((x & SWAR_LOW7) + SWAR_ONES * (0x80 - 0x20)) & SWAR_HIGH;
  guint64 del = swar_eq (x, 0x7f);

  return high != 0 || (below_space ^ SWAR_HIGH) != 0 || del != 0 ||
         swar_eq (x, '$') != 0 || swar_eq (x, '*') != 0;
}

static gboolean
ends_sentence (guchar b)
{
  return b < 0x20 || b > 0x7e || b == '$';
}

/* The ",<unix ms>" GnssLogger writes after the checksum of a sentence in
 * its "NMEA," record, up to the line end: its length, else 0. */
static gsize
gnsslogger_time_length (const char *p, gsize n)
{
  gsize k = 1;

  if (n < 2 || p[0] != ',')
    return 0;
  while (k < n && g_ascii_isdigit (p[k]))
    k++;
  return k > 1 && (k == n || p[k] == '\r' || p[k] == '\n') ? k : 0;
}

/* Reads the sentence whose '$' is at @data[@i] in one pass (checksum and
 * field boundaries together: this loop is most of a replay's parsing time)
 * and returns where it ended.  A sentence ends at the line end; a new '$'
 * or a byte that is not printable ASCII means it was cut short by noise. */
static gsize
read_sentence (Parser *ps, const char *data, gsize len, gsize i)
{
  Field fields[MAX_FIELDS];
  guint n_fields = 0;
  const char *s = data + i;
  const gsize avail = MIN (len - i, (gsize) MAX_SENTENCE);
  const char *field_start = s + 1;
  guint8 sum = 0;
  guint64 wide_sum = 0;
  gsize j, end;
  int hi, lo;

  ps->stats->records++;
  j = 1;
  /* Eight bytes at a time while none of them is special: XOR them into the
   * checksum and take the commas from a byte mask. */
  while (j + 8 <= avail)
    {
      guint64 x, commas;
      memcpy (&x, s + j, 8);
      if (swar_special (x))
        break;
      wide_sum ^= x;
      commas = swar_eq (x, ',');
      while (commas != 0)
        {
          guint k = (guint) __builtin_ctzll (commas) / 8;
          if (n_fields < MAX_FIELDS)
            {
              fields[n_fields].p = field_start;
              fields[n_fields].n = (gsize) (s + j + k - field_start);
              n_fields++;
            }
          field_start = s + j + k + 1;
          commas &= commas - 1;
        }
      j += 8;
    }
  for (; j < avail; j++)
    {
      guchar b = (guchar) s[j];
      if (b == '*')
        break;
      if (ends_sentence (b))
        {
          reject_as (ps, RL_GPS_REJECT_TRUNCATED, "ends before its checksum");
          return i + j;
        }
      sum ^= b;
      if (b == ',')
        {
          if (n_fields < MAX_FIELDS)
            {
              fields[n_fields].p = field_start;
              fields[n_fields].n = (gsize) (s + j - field_start);
              n_fields++;
            }
          field_start = s + j + 1;
        }
    }
  for (int shift = 0; shift < 64; shift += 8)
    sum ^= (guint8) (wide_sum >> shift);
  if (j >= avail)
    {
      /* no '*' within reach: cut off at the end of the data, or far too long */
      if (avail < MAX_SENTENCE)
        reject_as (ps, RL_GPS_REJECT_TRUNCATED, "cut off at the end of the file");
      else
        reject_as (ps, RL_GPS_REJECT_MALFORMED, "no checksum within " G_STRINGIFY (MAX_SENTENCE) " characters");
      return i + j;
    }
  if (j + 2 >= len - i || ends_sentence ((guchar) s[j + 1]) || ends_sentence ((guchar) s[j + 2]))
    {
      reject_as (ps, RL_GPS_REJECT_TRUNCATED, "cut off in its checksum");
      return i + j + 1;
    }
  end = j + 3;
  if (end < len - i && !ends_sentence ((guchar) s[end]))
    {
      gsize k = ps->gnss_record ? gnsslogger_time_length (s + end, len - i - end) : 0;
      if (k == 0)
        {
          /* something after the checksum: skip the rest of the line */
          k = end;
          while (k < len - i && !ends_sentence ((guchar) s[k]))
            k++;
          reject_as (ps, RL_GPS_REJECT_MALFORMED, "text after the checksum");
          return i + k;
        }
      end += k;
    }
  else if (ps->gnss_record)
    ps->gnss_tail = TRUE;
  hi = hex_value (s[j + 1]);
  lo = hex_value (s[j + 2]);
  if (hi < 0 || lo < 0)
    {
      reject_as (ps, RL_GPS_REJECT_MALFORMED, "the checksum is not two hex digits");
      return i + end;
    }
  if (sum != (guint8) (hi << 4 | lo))
    {
      reject (ps, RL_GPS_REJECT_BAD_CHECKSUM);
      return i + end;
    }
  if (n_fields < MAX_FIELDS)
    {
      fields[n_fields].p = field_start;
      fields[n_fields].n = (gsize) (s + j - field_start);
      n_fields++;
    }
  dispatch (ps, s, fields, n_fields);
  return i + end;
}

/* GnssLogger's records other than NMEA: sensor, raw measurement and
 * location lines, each starting with its type. */
static gboolean
is_gnsslogger_record (const char *p, gsize avail)
{
  static const char *const types[] = {
    "Raw", "Fix", "Nav", "Status", "Agc", "OrientationDeg", "UncalAccel", "Accel",
    "UncalGyro", "Gyro", "UncalMag", "Mag",
  };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      gsize n = strlen (types[t]);
      if (avail > n && memcmp (p, types[t], n) == 0 && p[n] == ',')
        return TRUE;
    }
  return FALSE;
}

/* What a line starts with when it is no sentence of its own: another
 * tool's layout around the NMEA, or its records beside it.  TRUE when it
 * took the bytes at @*i (to the line end, or a prefix before the line's
 * record). */
static gboolean
line_start_step (Parser *ps, const char *data, gsize len, gsize *i)
{
  const char *p = data + *i, *nl;
  gsize avail = len - *i, k;
  gboolean tail = ps->gnss_tail;

  ps->gnss_tail = FALSE;
  if (avail > 5 && memcmp (p, "NMEA,$", 6) == 0)
    {
      ps->gnss_record = TRUE;
      ps->stats->gnsslogger++;
      *i += 5;
      return TRUE;
    }
  if (tail && (k = gnsslogger_time_length (p, avail)) > 0)
    {
      /* the time of the record before, whose sentence ended its line */
      *i += k;
      return TRUE;
    }
  if (is_gnsslogger_record (p, avail))
    {
      nl = memchr (p, '\n', avail);
      ps->stats->records++;
      ps->stats->ignored++;
      *i = nl ? (gsize) (nl - data) : len;
      return TRUE;
    }
  if (g_ascii_isdigit (p[0]) && (k = rl_gpspipe_time_length (p, avail)) > 0)
    {
      /* `gpspipe -t -r`: the time it copied the line at, then the line
       * (a sentence, or one of gpsd's JSON lines) */
      ps->stats->timestamped++;
      *i += k;
      return TRUE;
    }
  return FALSE;
}

/* One step of the scan at @*i: a sentence, a comment line or a noise byte. */
static void
scan_step (Parser *ps, const char *data, gsize len, gsize *i, gboolean *line_start)
{
  char c = data[*i];

  if (c == '$' && looks_like_address (data + *i + 1, len - *i - 1))
    {
      *i = read_sentence (ps, data, len, *i);
      *line_start = FALSE;
      return;
    }
  if (*line_start && c != '\r' && c != '\n' && line_start_step (ps, data, len, i))
    return;
  if (c == '\n')
    {
      *line_start = TRUE;
      ps->gnss_record = FALSE;
      ps->line++;
    }
  else if (c == '{' && *line_start && len - *i >= 9 && memcmp (data + *i, "{\"class\":", 9) == 0)
    {
      /* a gpsd JSON report: `gpspipe -r` writes gpsd's banner (and its
       * DEVICE reports) among the NMEA it copies; valid, not ours */
      const char *nl = memchr (data + *i, '\n', len - *i);
      *i = nl ? (gsize) (nl - data) : len;
      ps->stats->records++;
      ps->stats->ignored++;
      return;
    }
  else if (c == '#' && *line_start)
    {
      /* gpsd test logs and some loggers carry '#' metadata lines, and
       * people annotate logs so: counted, neither noise nor a sentence */
      const char *nl = memchr (data + *i, '\n', len - *i);
      *i = nl ? (gsize) (nl - data) : len;
      ps->stats->comments++;
      return;
    }
  else if (c != '\r' && c != ' ' && c != '\t')
    {
      ps->stats->noise_bytes++;
      *line_start = FALSE;
    }
  (*i)++;
}

static void
parser_init (Parser *ps, GArray *queue, RlGpsParseStats *stats)
{
  memset (stats, 0, sizeof *stats);
  memset (ps, 0, sizeof *ps);
  ps->fixes = queue;
  ps->stats = stats;
  ps->line = 1;
  epoch_reset (&ps->ep);
}

struct RlNmeaReader {
  const char *data;
  gsize len, pos;
  gboolean line_start, done;
  Parser ps;
  RlGpsParseStats stats;
  GArray *queue;          /* the fix or two the last sentence completed */
  guint head;
  gboolean have_anchor;   /* midnight UTC of day 0, from the first dated epoch */
  gint64 anchor;
  guint64 own, inferred, none;
};

/* Fixes before the first RMC or ZDA are dated from it (counting the days
 * the log rolled over): a second parser runs ahead to that sentence, which is near
 * the start of nearly every log, so this costs a few sentences. */
static void
find_anchor (RlNmeaReader *r)
{
  g_autoptr (GArray) queue = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpsParseStats stats;
  Parser ps;
  gsize i = rl_json_lines_bom_length (r->data, r->len);
  gboolean line_start = TRUE;

  parser_init (&ps, queue, &stats);
  while (i < r->len && !ps.have_anchor)
    {
      scan_step (&ps, r->data, r->len, &i, &line_start);
      g_array_set_size (queue, 0);
    }
  if (!ps.have_anchor)
    flush_epoch (&ps);
  r->have_anchor = ps.have_anchor;
  r->anchor = ps.anchor;
}

static RlNmeaReader *
reader_new (const char *data, gsize len, gboolean file_order)
{
  RlNmeaReader *r;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  r = g_new0 (RlNmeaReader, 1);
  r->data = data;
  r->len = len;
  /* a log saved by an editor on Windows: the mark is no noise */
  r->pos = rl_json_lines_bom_length (data, len);
  r->line_start = TRUE;
  r->queue = g_array_sized_new (FALSE, FALSE, sizeof (RlGpsFix), 4);
  parser_init (&r->ps, r->queue, &r->stats);
  r->ps.file_order = file_order;
  if (!file_order)
    find_anchor (r);
  return r;
}

RlNmeaReader *
rl_nmea_reader_new (const char *data, gsize len)
{
  return reader_new (data, len, FALSE);
}

RlNmeaReader *
rl_nmea_reader_new_in_file_order (const char *data, gsize len)
{
  return reader_new (data, len, TRUE);
}

gboolean
rl_nmea_reader_dated (const RlNmeaReader *r)
{
  return r->have_anchor;
}

void
rl_nmea_reader_free (RlNmeaReader *r)
{
  if (r == NULL)
    return;
  g_array_unref (r->queue);
  g_free (r);
}

/* Counts how the file's fixes got their dates (once the reader is done). */
static void
finish_dates (RlNmeaReader *r)
{
  if (r->none > 0 || r->own + r->inferred == 0)
    r->stats.date_source = RL_GPS_DATE_NONE;
  else if (r->inferred > 0)
    r->stats.date_source = RL_GPS_DATE_PARTIAL;
  else
    r->stats.date_source = RL_GPS_DATE_FROM_FILE;
}

gboolean
rl_nmea_reader_next (RlNmeaReader *r, RlGpsFix *fix)
{
  if (r->head >= r->queue->len)
    {
      g_array_set_size (r->queue, 0);
      r->head = 0;
      while (r->queue->len == 0 && r->pos < r->len)
        scan_step (&r->ps, r->data, r->len, &r->pos, &r->line_start);
      if (r->queue->len == 0 && !r->done)
        {
          r->done = TRUE;
          flush_epoch (&r->ps);
          if (r->queue->len == 0)
            finish_dates (r);
        }
      if (r->queue->len == 0)
        return FALSE;
    }
  *fix = g_array_index (r->queue, RlGpsFix, r->head++);
  if (fix->flags & RL_GPS_FIX_HAS_DATE)
    r->own++;
  else if (r->have_anchor)
    {
      fix->time = r->anchor + (gint64) fix->day * DAY_US + fix->time;
      fix->flags |= RL_GPS_FIX_HAS_DATE | RL_GPS_FIX_DATE_INFERRED;
      r->inferred++;
    }
  else
    r->none++;
  if (r->done && r->head >= r->queue->len)
    finish_dates (r);
  return TRUE;
}

gsize
rl_nmea_reader_offset (const RlNmeaReader *r)
{
  return r->pos;
}

const RlGpsParseStats *
rl_nmea_reader_stats (const RlNmeaReader *r)
{
  return &r->stats;
}

void
rl_nmea_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats)
{
  RlNmeaReader *r;
  RlGpsFix fix;

  g_return_if_fail (data != NULL || len == 0);
  g_return_if_fail (fixes != NULL && stats != NULL);

  r = rl_nmea_reader_new (data, len);
  while (rl_nmea_reader_next (r, &fix))
    g_array_append_val (fixes, fix);
  *stats = r->stats;
  rl_nmea_reader_free (r);
}

gboolean
rl_nmea_sniff (const char *data, gsize len)
{
  /* A receiver log may open with binary noise: look a little way in. */
  gsize limit = MIN (len, (gsize) 4096);
  guint bare = 0;

  for (gsize i = 0; i < limit; i++)
    if (data[i] == '$' && looks_like_address (data + i + 1, len - i - 1))
      {
        const char *nl = memchr (data + i, '\n', len - i);
        const char *end = nl ? nl : data + len;
        const char *star = memchr (data + i, '*', (gsize) (end - data - i));
        if (star != NULL && end - star >= 3 && g_ascii_isxdigit (star[1]) && g_ascii_isxdigit (star[2]))
          return TRUE;
        /* Whole lines of sentences without their checksum are NMEA too
         * (the reader rejects each one, and the replay says why). */
        if (star == NULL && nl != NULL && (i == 0 || data[i - 1] == '\n') && ++bare == 3)
          return TRUE;
      }
  return FALSE;
}
