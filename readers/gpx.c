#include "readers/gpx.h"

#include <math.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include "readers/lazy-lib.h"

G_DEFINE_QUARK (rl-gpx-error-quark, rl_gpx_error)

/* libxml2 is opened on the first GPX document (readers/lazy-lib.h): these
 * are all of it the reader uses. */
#define LIBXML2_FUNCTIONS(F) \
  F (xmlInitParser) \
  F (xmlReaderForMemory) \
  F (xmlFreeTextReader) \
  F (xmlTextReaderSetStructuredErrorHandler) \
  F (xmlTextReaderRead) \
  F (xmlTextReaderNext) \
  F (xmlTextReaderNodeType) \
  F (xmlTextReaderDepth) \
  F (xmlTextReaderIsEmptyElement) \
  F (xmlTextReaderConstLocalName) \
  F (xmlTextReaderConstName) \
  F (xmlTextReaderReadString) \
  F (xmlTextReaderGetAttribute) \
  F (xmlTextReaderGetParserLineNumber) \
  F (xmlTextReaderCurrentNode) \
  F (xmlGetLineNo) \
  F (xmlTextReaderByteConsumed) \
  F (xmlFree)

static struct { LIBXML2_FUNCTIONS (RL_LAZY_FIELD) } lx;
#define XML_SYMBOL(fn) RL_LAZY_SYMBOL (fn, lx.fn),
static const RlLazySymbol xml_symbols[] = { LIBXML2_FUNCTIONS (XML_SYMBOL) };

/* libxml2 asks a program whose threads parse (regloc replay --batch -j) to
 * set up its globals once, before they do; the first parse would otherwise. */
static void
init_libxml2 (void)
{
  lx.xmlInitParser ();
}

static RlLazyLib libxml2 = RL_LAZY_LIB_INIT ("libxml2", RL_LIBXML2_SONAME, xml_symbols, init_libxml2);

/* A whole-string decimal (g_ascii_strtod is locale-independent). */
static gboolean
parse_double (const char *text, double *out)
{
  char *end = NULL;
  double v;

  if (text == NULL || *text == '\0')
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

/* GPX nests four levels deep; a deeper document is not worth walking into. */
#define MAX_DEPTH 16

struct RlGpxReader {
  xmlTextReader *xml;
  GTimeZone *utc;
  RlGpsParseStats stats;
  gboolean done, failed;
  gboolean advanced;        /* the cursor is already on the next node */
  int next_rc;
  gboolean has_meta_time;
  gint64 meta_time;
  GError *error;
  gboolean file_order;
  /* the point being read: its <pdop> (stands in for a missing <hdop>) */
  double pdop;
  /* the fix before, for a speed when a point has none */
  gboolean have_prev;
  double prev_lat, prev_lon;
  gint64 prev_time;
};

static gboolean
name_is (xmlTextReader *x, const char *name)
{
  const xmlChar *n = lx.xmlTextReaderConstLocalName (x);
  return n != NULL && strcmp ((const char *) n, name) == 0;
}

/* The text of the element under the cursor, stripped (owned). */
static char *
element_text (xmlTextReader *x)
{
  xmlChar *content = lx.xmlTextReaderReadString (x);
  char *text = g_strstrip (g_strdup (content != NULL ? (const char *) content : ""));

  (*lx.xmlFree) (content);
  return text;
}

static gboolean
attr_double (xmlTextReader *x, const char *name, double *out)
{
  xmlChar *value = lx.xmlTextReaderGetAttribute (x, (const xmlChar *) name);
  g_autofree char *text = NULL;

  if (value == NULL)
    return FALSE;
  text = g_strstrip (g_strdup ((const char *) value));
  (*lx.xmlFree) (value);
  return parse_double (text, out);
}

static gboolean
parse_time_any (GTimeZone *utc, const char *text, gint64 *out, gboolean before_1970)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (text, utc);

  if (dt == NULL || (g_date_time_get_year (dt) < 1970 && !before_1970))
    return FALSE;
  *out = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

static gboolean
parse_time (GTimeZone *utc, const char *text, gint64 *out)
{
  return parse_time_any (utc, text, out, FALSE);
}

/* The next node; after skip_subtree() the cursor already is on it. */
static int
advance (RlGpxReader *r)
{
  if (r->advanced)
    {
      r->advanced = FALSE;
      return r->next_rc;
    }
  return lx.xmlTextReaderRead (r->xml);
}

/* Moves past the subtree under the cursor. */
static void
skip_subtree (RlGpxReader *r)
{
  r->next_rc = lx.xmlTextReaderNext (r->xml);
  r->advanced = TRUE;
}

/* One child of a point: the first verdict of the point's children wins
 * (@why: its words for a replay's note, when the reason alone does not say). */
static void
point_child (RlGpxReader *r, RlGpsFix *fix, RlGpsReject *verdict, const char **why, gboolean *have_time)
{
  g_autofree char *text = NULL;
  double v;

  if (*verdict != RL_GPS_N_REJECTS || name_is (r->xml, "extensions"))
    return;
  if (name_is (r->xml, "time"))
    {
      text = element_text (r->xml);
      if (!parse_time_any (r->utc, text, &fix->time, r->file_order))
        {
          *verdict = RL_GPS_REJECT_BAD_VALUE;
          *why = "a <time> that is not an ISO 8601 time from 1970 on";
        }
      else
        *have_time = TRUE;
    }
  else if (name_is (r->xml, "hdop"))
    {
      text = element_text (r->xml);
      if (parse_double (text, &v) && v >= 0)
        fix->hdop = v;
    }
  else if (name_is (r->xml, "pdop"))
    {
      /* HDOP ≤ PDOP: an upper bound when HDOP is missing */
      text = element_text (r->xml);
      if (parse_double (text, &v) && v >= 0)
        r->pdop = v;
    }
  else if (name_is (r->xml, "ele"))
    {
      text = element_text (r->xml);
      if (parse_double (text, &v) && fabs (v) < 1e6)
        fix->altitude_m = v;
    }
  else if (name_is (r->xml, "speed"))
    {
      /* GPX 1.0 <speed>, metres per second */
      text = element_text (r->xml);
      if (parse_double (text, &v) && v >= 0 && v < 1e6)
        fix->speed_mps = v;
    }
  else if (name_is (r->xml, "fix"))
    {
      /* GPX <fix>: none | 2d | 3d | dgps | pps */
      text = element_text (r->xml);
      if (g_strcmp0 (text, "none") == 0)
        *verdict = RL_GPS_REJECT_NO_FIX;
      else if (g_strcmp0 (text, "3d") == 0)
        fix->mode = 3;
    }
}

/* Points further apart in time than this say nothing about the speed. */
#define SPEED_MAX_GAP_US (60 * G_USEC_PER_SEC)

/* Great-circle metres (haversine). */
static double
distance_m (double lat1, double lon1, double lat2, double lon2)
{
  const double rad = G_PI / 180;
  double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
  double a = sin (dlat / 2) * sin (dlat / 2) + cos (lat1 * rad) * cos (lat2 * rad) * sin (dlon / 2) * sin (dlon / 2);
  return 2 * 6371008.8 * asin (sqrt (MIN (1.0, a)));
}

/* Most GPX 1.1 tracks carry no speed: the distance from the fix before
 * over the time between them gives it. */
static void
derive_speed (RlGpxReader *r, RlGpsFix *fix)
{
  gint64 dt = fix->time - r->prev_time;

  if (isnan (fix->speed_mps) && r->have_prev && !(fix->flags & RL_GPS_FIX_NO_TIME) && dt > 0 &&
      dt <= SPEED_MAX_GAP_US)
    fix->speed_mps = distance_m (r->prev_lat, r->prev_lon, fix->lat, fix->lon) / ((double) dt / G_USEC_PER_SEC);
  r->have_prev = !(fix->flags & RL_GPS_FIX_NO_TIME);
  r->prev_lat = fix->lat;
  r->prev_lon = fix->lon;
  r->prev_time = fix->time;
}

/* libxml2 keeps an element's line in 16 bits: 65535 stands for every line
 * from there on.  (XML_PARSE_BIG_LINES helps only where the element's
 * first child is already parsed, which in a stream reader it often is not.) */
#define LINE_NOT_KEPT 65535

/* The line (from 1) of the start tag under the cursor (where it ends, when
 * it runs over several lines); 0 when libxml2 does not know it, and past
 * line 65534, where it no longer says. */
static guint64
element_line (RlGpxReader *r)
{
  xmlNode *node = lx.xmlTextReaderCurrentNode (r->xml);
  long line = node != NULL ? lx.xmlGetLineNo (node) : -1;

  return line > 0 && line < LINE_NOT_KEPT ? (guint64) line : 0;
}

/* The point under the cursor, read to its end; FALSE when it is no fix. */
static gboolean
read_point (RlGpxReader *r, RlGpsFix *fix)
{
  RlGpsReject verdict = RL_GPS_N_REJECTS;
  const char *why = NULL;
  gboolean have_time = FALSE;
  double lat = 0, lon = 0;
  int depth = lx.xmlTextReaderDepth (r->xml), rc;
  guint64 line = element_line (r);

  r->stats.records++;
  rl_gps_fix_init (fix);
  fix->mode = 2;
  r->pdop = NAN;
  if (!attr_double (r->xml, "lat", &lat) || !attr_double (r->xml, "lon", &lon))
    {
      verdict = RL_GPS_REJECT_MALFORMED;
      why = "no lat and lon attributes that are numbers";
    }
  else if (fabs (lat) > 90 || fabs (lon) > 180)
    {
      verdict = RL_GPS_REJECT_BAD_VALUE;
      why = "a latitude beyond 90 or a longitude beyond 180 degrees";
    }
  if (!lx.xmlTextReaderIsEmptyElement (r->xml))
    {
      while ((rc = advance (r)) == 1 && lx.xmlTextReaderDepth (r->xml) > depth)
        if (lx.xmlTextReaderNodeType (r->xml) == XML_READER_TYPE_ELEMENT)
          {
            point_child (r, fix, &verdict, &why, &have_time);
            skip_subtree (r);
          }
      if (rc != 1)
        return FALSE;   /* the document broke off: rl_gpx_reader_next() says so */
    }
  if (verdict == RL_GPS_REJECT_NO_FIX && have_time && !r->file_order)
    {
      /* <fix>none</fix> at a time: the receiver lost its fix then */
      rl_gps_fix_init_lost (fix, fix->time, 0, RL_GPS_FIX_HAS_DATE);
      r->have_prev = FALSE;
      r->stats.fixes++;
      r->stats.fix_lost++;
      return TRUE;
    }
  if (verdict == RL_GPS_N_REJECTS && !have_time)
    {
      if (r->file_order)
        fix->flags |= RL_GPS_FIX_NO_TIME;
      else
        verdict = RL_GPS_REJECT_NO_TIME;
    }
  if (verdict != RL_GPS_N_REJECTS)
    {
      rl_gps_parse_stats_reject (&r->stats, verdict, line, why);
      return FALSE;
    }
  fix->flags |= RL_GPS_FIX_HAS_DATE;
  fix->lat = lat;
  fix->lon = lon;
  if (isnan (fix->hdop) && !isnan (r->pdop))
    fix->hdop = r->pdop;
  derive_speed (r, fix);
  r->stats.fixes++;
  return TRUE;
}

/* <metadata><time>: the document's own time (for points that have none). */
static void
read_metadata (RlGpxReader *r)
{
  int depth = lx.xmlTextReaderDepth (r->xml);

  if (lx.xmlTextReaderIsEmptyElement (r->xml))
    return;
  while (advance (r) == 1 && lx.xmlTextReaderDepth (r->xml) > depth)
    if (lx.xmlTextReaderNodeType (r->xml) == XML_READER_TYPE_ELEMENT)
      {
        if (name_is (r->xml, "time") && !r->has_meta_time)
          {
            g_autofree char *text = element_text (r->xml);
            r->has_meta_time = parse_time (r->utc, text, &r->meta_time);
          }
        skip_subtree (r);
      }
}

static void
on_xml_error (void *user_data, const xmlError *e)
{
  RlGpxReader *r = user_data;

  if (r->error == NULL && e != NULL && e->level >= XML_ERR_ERROR)
    {
      g_autofree char *msg = g_strchomp (g_strdup (e->message ? e->message : "error"));
      g_set_error (&r->error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, "not XML: %s (line %d)", msg, e->line);
    }
}

RlGpxReader *
rl_gpx_reader_new (const char *data, gsize len, GError **error)
{
  RlGpxReader *r;

  if (len > G_MAXINT || len == 0)
    {
      g_set_error (error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, len ? "file too large for GPX" : "not XML: empty");
      return NULL;
    }
  if (!rl_lazy_lib_load (&libxml2, error))
    return NULL;
  r = g_new0 (RlGpxReader, 1);
  /* No network, no entity expansion, no messages on stderr. */
  r->xml = lx.xmlReaderForMemory (data, (int) len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (r->xml != NULL)
    lx.xmlTextReaderSetStructuredErrorHandler (r->xml, (xmlStructuredErrorFunc) (void (*) (void)) on_xml_error, r);
  while (r->xml != NULL && lx.xmlTextReaderRead (r->xml) == 1)
    if (lx.xmlTextReaderNodeType (r->xml) == XML_READER_TYPE_ELEMENT)
      {
        if (!name_is (r->xml, "gpx"))
          {
            g_clear_error (&r->error);
            g_set_error (&r->error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_GPX, "XML but not GPX (root element <%s>)",
                         (const char *) lx.xmlTextReaderConstName (r->xml));
            break;
          }
        r->utc = g_time_zone_new_utc ();
        r->done = lx.xmlTextReaderIsEmptyElement (r->xml);
        return r;
      }
  if (r->error == NULL)
    g_set_error (&r->error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, "not XML");
  g_propagate_error (error, g_steal_pointer (&r->error));
  rl_gpx_reader_free (r);
  return NULL;
}

RlGpxReader *
rl_gpx_reader_new_in_file_order (const char *data, gsize len, GError **error)
{
  RlGpxReader *r = rl_gpx_reader_new (data, len, error);

  if (r != NULL)
    r->file_order = TRUE;
  return r;
}

void
rl_gpx_reader_free (RlGpxReader *r)
{
  if (r == NULL)
    return;
  if (r->xml != NULL)
    lx.xmlFreeTextReader (r->xml);
  if (r->utc != NULL)
    g_time_zone_unref (r->utc);
  g_clear_error (&r->error);
  g_free (r);
}

/* One element at the level of points: TRUE when it was a fix. */
static gboolean
visit (RlGpxReader *r, RlGpsFix *fix)
{
  int depth = lx.xmlTextReaderDepth (r->xml);

  /* track points sit in trk/trkseg; waypoints (wpt) and route points
   * (rte/rtept) are places named or planned, not where the receiver was */
  if (depth - 1 > MAX_DEPTH)
    skip_subtree (r);
  else if (name_is (r->xml, "metadata") && depth == 1)
    read_metadata (r);
  else if (name_is (r->xml, "extensions") || name_is (r->xml, "metadata"))
    skip_subtree (r);
  else if (name_is (r->xml, "trkpt"))
    return read_point (r, fix);
  else if (name_is (r->xml, "wpt") || name_is (r->xml, "rtept"))
    {
      r->stats.records++;
      r->stats.planned++;
      skip_subtree (r);
    }
  else if (!name_is (r->xml, "trk") && !name_is (r->xml, "trkseg") && !name_is (r->xml, "rte"))
    {
      /* GPX 1.0 puts the document's time right under <gpx> */
      if (depth == 1 && name_is (r->xml, "time") && !r->has_meta_time)
        {
          g_autofree char *text = element_text (r->xml);
          r->has_meta_time = parse_time (r->utc, text, &r->meta_time);
        }
      r->stats.ignored++;
      skip_subtree (r);
    }
  return FALSE;
}

gboolean
rl_gpx_reader_next (RlGpxReader *r, RlGpsFix *fix)
{
  int rc;

  while (!r->done)
    {
      rc = advance (r);
      if (rc != 1)
        {
          r->done = TRUE;
          if (rc < 0 && r->error == NULL)
            g_set_error (&r->error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, "not XML (line %d)",
                         lx.xmlTextReaderGetParserLineNumber (r->xml));
          break;
        }
      if (lx.xmlTextReaderNodeType (r->xml) == XML_READER_TYPE_ELEMENT && visit (r, fix))
        return TRUE;
    }
  r->stats.date_source = r->stats.fixes > 0 ? RL_GPS_DATE_FROM_FILE : RL_GPS_DATE_NONE;
  return FALSE;
}

const GError *
rl_gpx_reader_error (const RlGpxReader *r)
{
  return r->error;
}

gboolean
rl_gpx_reader_metadata_time (const RlGpxReader *r, gint64 *time)
{
  if (r->has_meta_time)
    *time = r->meta_time;
  return r->has_meta_time;
}

const RlGpsParseStats *
rl_gpx_reader_stats (const RlGpxReader *r)
{
  return &r->stats;
}

gsize
rl_gpx_reader_offset (const RlGpxReader *r)
{
  long n = lx.xmlTextReaderByteConsumed (r->xml);
  return n > 0 ? (gsize) n : 0;
}

gboolean
rl_gpx_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats, GError **error)
{
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (RlGpsFix));
  RlGpxReader *r;
  RlGpsFix fix;

  memset (stats, 0, sizeof *stats);
  r = rl_gpx_reader_new (data, len, error);
  if (r == NULL)
    return FALSE;
  while (rl_gpx_reader_next (r, &fix))
    g_array_append_val (got, fix);
  *stats = r->stats;
  if (r->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      rl_gpx_reader_free (r);
      return FALSE;
    }
  g_array_append_vals (fixes, got->data, got->len);
  rl_gpx_reader_free (r);
  return TRUE;
}

/* How far in the root element is looked for, in characters. */
#define SNIFF_CHARS 4096

static gboolean
sniff_ascii (const char *data, gsize len)
{
  gsize limit = MIN (len, (gsize) SNIFF_CHARS);

  /* The root element comes after the XML declaration and comments; it may
   * carry a namespace prefix (<g:gpx xmlns:g="http://www.topografix.com/…">). */
  for (gsize i = 0; i + 4 <= limit; i++)
    if (data[i] == '<')
      {
        gsize k = i + 1, name;
        while (k < limit && (g_ascii_isalnum (data[k]) || data[k] == '_' || data[k] == '-' || data[k] == '.'))
          k++;
        name = k < limit && data[k] == ':' && k > i + 1 ? k + 1 : i + 1;
        if (name + 3 <= limit && memcmp (data + name, "gpx", 3) == 0 &&
            (name + 3 == limit || data[name + 3] == ' ' || data[name + 3] == '\n' || data[name + 3] == '\r' ||
             data[name + 3] == '\t' || data[name + 3] == '>'))
          return TRUE;
      }
  return FALSE;
}

/* The characters after a UTF-16 byte order mark at the start of @data
 * (little or big endian) into @out as ASCII, anything else as '?': enough
 * to find the root element.  0 when there is no such mark. */
static gsize
utf16_head (const char *data, gsize len, char *out, gsize size)
{
  const guchar *u = (const guchar *) data;
  gboolean le;
  gsize n = 0;

  if (len < 2 || !((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff)))
    return 0;
  le = u[0] == 0xff;
  for (gsize i = 2; i + 1 < len && n < size; i += 2)
    {
      guint c = le ? (guint) u[i] | (guint) u[i + 1] << 8 : (guint) u[i] << 8 | (guint) u[i + 1];
      out[n++] = c < 0x80 ? (char) c : '?';
    }
  return n;
}

gboolean
rl_gpx_sniff (const char *data, gsize len)
{
  char head[SNIFF_CHARS];
  gsize n = utf16_head (data, len, head, sizeof head);

  /* Windows Notepad and some exporters save UTF-16 with its mark, which
   * libxml2 reads as it reads UTF-8 */
  if (n > 0)
    return sniff_ascii (head, n);
  return sniff_ascii (data, len);
}
