#include "readers/gpx.h"

#include <math.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

G_DEFINE_QUARK (rl-gpx-error-quark, rl_gpx_error)

typedef struct {
  GArray *fixes;
  RlGpsParseStats *stats;
  GTimeZone *utc;
} Reader;

static gboolean
name_is (const xmlNode *node, const char *name)
{
  return node->type == XML_ELEMENT_NODE && strcmp ((const char *) node->name, name) == 0;
}

static char *
node_text (xmlNode *node)
{
  xmlChar *content = xmlNodeGetContent (node);
  char *text = g_strstrip (g_strdup ((const char *) content));

  xmlFree (content);
  return text;
}

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

static gboolean
attr_double (xmlNode *node, const char *name, double *out, gboolean *present)
{
  xmlChar *value = xmlGetProp (node, (const xmlChar *) name);
  g_autofree char *text = NULL;

  *present = value != NULL;
  if (value == NULL)
    return FALSE;
  text = g_strstrip (g_strdup ((const char *) value));
  xmlFree (value);
  return parse_double (text, out);
}

static void
read_point (Reader *r, xmlNode *pt)
{
  RlGpsFix fix;
  gboolean have_lat, have_lon, have_time = FALSE, no_fix = FALSE;
  double lat = 0, lon = 0, pdop = NAN;

  r->stats->records++;
  rl_gps_fix_init (&fix);
  fix.mode = 2;
  if (!attr_double (pt, "lat", &lat, &have_lat) || !attr_double (pt, "lon", &lon, &have_lon))
    {
      r->stats->rejected[RL_GPS_REJECT_MALFORMED]++;
      return;
    }
  if (fabs (lat) > 90 || fabs (lon) > 180)
    {
      r->stats->rejected[RL_GPS_REJECT_BAD_VALUE]++;
      return;
    }

  for (xmlNode *c = pt->children; c != NULL; c = c->next)
    {
      g_autofree char *text = NULL;

      if (c->type != XML_ELEMENT_NODE || name_is (c, "extensions"))
        continue;
      if (name_is (c, "time"))
        {
          g_autoptr (GDateTime) dt = NULL;

          text = node_text (c);
          dt = g_date_time_new_from_iso8601 (text, r->utc);
          if (dt == NULL || g_date_time_get_year (dt) < 1970)
            {
              r->stats->rejected[RL_GPS_REJECT_BAD_VALUE]++;
              return;
            }
          fix.time = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
          have_time = TRUE;
        }
      else if (name_is (c, "hdop"))
        {
          double v;
          text = node_text (c);
          if (parse_double (text, &v) && v >= 0)
            fix.hdop = v;
        }
      else if (name_is (c, "pdop"))
        {
          /* HDOP ≤ PDOP: an upper bound when HDOP is missing */
          double v;
          text = node_text (c);
          if (parse_double (text, &v) && v >= 0)
            pdop = v;
        }
      else if (name_is (c, "ele"))
        {
          double v;
          text = node_text (c);
          if (parse_double (text, &v) && fabs (v) < 1e6)
            fix.altitude_m = v;
        }
      else if (name_is (c, "speed"))
        {
          /* GPX 1.0 <speed>, metres per second */
          double v;
          text = node_text (c);
          if (parse_double (text, &v) && v >= 0 && v < 1e6)
            fix.speed_mps = v;
        }
      else if (name_is (c, "fix"))
        {
          /* GPX <fix>: none | 2d | 3d | dgps | pps */
          text = node_text (c);
          if (g_strcmp0 (text, "none") == 0)
            no_fix = TRUE;
          else if (g_strcmp0 (text, "3d") == 0)
            fix.mode = 3;
        }
    }
  if (no_fix && have_time)
    {
      /* <fix>none</fix> at a time: the receiver lost its fix then */
      gint64 t = fix.time;
      rl_gps_fix_init_lost (&fix, t, 0, RL_GPS_FIX_HAS_DATE);
      g_array_append_val (r->fixes, fix);
      r->stats->fixes++;
      r->stats->fix_lost++;
      return;
    }
  if (no_fix)
    {
      r->stats->rejected[RL_GPS_REJECT_NO_FIX]++;
      return;
    }
  if (!have_time)
    {
      r->stats->rejected[RL_GPS_REJECT_NO_TIME]++;
      return;
    }
  if (isnan (fix.hdop) && !isnan (pdop))
    fix.hdop = pdop;
  fix.flags = RL_GPS_FIX_HAS_DATE;
  fix.lat = lat;
  fix.lon = lon;
  g_array_append_val (r->fixes, fix);
  r->stats->fixes++;
}

/* Walks every element except <extensions> subtrees; points can sit in trk/trkseg,
 * rte or at the top level (wpt). */
static void
walk (Reader *r, xmlNode *node, guint depth)
{
  /* GPX nests four levels deep; a deeper document is not worth recursing into. */
  if (depth > 16)
    return;
  for (xmlNode *c = node; c != NULL; c = c->next)
    {
      if (c->type != XML_ELEMENT_NODE || name_is (c, "extensions") || name_is (c, "metadata"))
        continue;
      if (name_is (c, "trkpt") || name_is (c, "rtept") || name_is (c, "wpt"))
        read_point (r, c);
      else if (name_is (c, "trk") || name_is (c, "trkseg") || name_is (c, "rte"))
        walk (r, c->children, depth + 1);
      else
        r->stats->ignored++;
    }
}

/* Points further apart in time than this say nothing about the speed. */
#define SPEED_MAX_GAP_US (60 * G_USEC_PER_SEC)

/* Great-circle metres (haversine): points a second apart or a minute apart. */
static double
distance_m (double lat1, double lon1, double lat2, double lon2)
{
  const double rad = G_PI / 180;
  double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
  double a = sin (dlat / 2) * sin (dlat / 2) + cos (lat1 * rad) * cos (lat2 * rad) * sin (dlon / 2) * sin (dlon / 2);
  return 2 * 6371008.8 * asin (sqrt (MIN (1.0, a)));
}

/* Most GPX 1.1 tracks carry no speed: the distance from the point before
 * over the time between them gives it. */
static void
derive_speeds (GArray *fixes, guint first)
{
  for (guint i = first + 1; i < fixes->len; i++)
    {
      RlGpsFix *f = &g_array_index (fixes, RlGpsFix, i);
      const RlGpsFix *prev = &g_array_index (fixes, RlGpsFix, i - 1);
      gint64 dt = f->time - prev->time;

      if (!isnan (f->speed_mps) || rl_gps_fix_is_lost (f) || rl_gps_fix_is_lost (prev) ||
          dt <= 0 || dt > SPEED_MAX_GAP_US)
        continue;
      f->speed_mps = distance_m (prev->lat, prev->lon, f->lat, f->lon) / ((double) dt / G_USEC_PER_SEC);
    }
}

gboolean
rl_gpx_parse (const char *data, gsize len, GArray *fixes, RlGpsParseStats *stats, GError **error)
{
  xmlDoc *doc;
  xmlNode *root;
  Reader r = { fixes, stats, NULL };
  guint first = fixes->len;

  memset (stats, 0, sizeof *stats);
  if (len > G_MAXINT)
    {
      g_set_error (error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, "file too large for GPX");
      return FALSE;
    }
  /* No network, no entity expansion, no messages on stderr. */
  doc = xmlReadMemory (data, (int) len, NULL, NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL)
    {
      const xmlError *e = xmlGetLastError ();
      g_set_error (error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_XML, "not XML%s%s (line %d)",
                   e && e->message ? ": " : "", e && e->message ? g_strchomp (e->message) : "",
                   e ? e->line : 0);
      return FALSE;
    }
  root = xmlDocGetRootElement (doc);
  if (root == NULL || !name_is (root, "gpx"))
    {
      g_set_error (error, RL_GPX_ERROR, RL_GPX_ERROR_NOT_GPX, "XML but not GPX (root element <%s>)",
                   root ? (const char *) root->name : "");
      xmlFreeDoc (doc);
      return FALSE;
    }
  r.utc = g_time_zone_new_utc ();
  walk (&r, root->children, 0);
  derive_speeds (fixes, first);
  g_time_zone_unref (r.utc);
  xmlFreeDoc (doc);
  stats->date_source = stats->fixes > 0 ? RL_GPS_DATE_FROM_FILE : RL_GPS_DATE_NONE;
  return TRUE;
}

gboolean
rl_gpx_sniff (const char *data, gsize len)
{
  gsize limit = MIN (len, (gsize) 4096);

  /* The root element comes after the XML declaration and comments. */
  for (gsize i = 0; i + 4 <= limit; i++)
    if (memcmp (data + i, "<gpx", 4) == 0 && (i + 4 == limit || data[i + 4] == ' ' ||
                                               data[i + 4] == '\n' || data[i + 4] == '\r' ||
                                               data[i + 4] == '\t' || data[i + 4] == '>'))
      return TRUE;
  return FALSE;
}
