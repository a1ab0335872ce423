/* Maps of a replay (see map.h). */
#include "replay/map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay-private.h"

#define EARTH_R_M 6371008.8
#define DEG (G_PI / 180.0)

/* ---- the track --------------------------------------------------------- */

struct RlTrack {
  guint max_points;
  GArray *points;          /* RlTrackPoint, kept */
  RlTrackPoint last;       /* the newest fix, kept or not */
  gboolean have_last, last_kept;
  guint64 n_fixes;
  double spacing_m;
  const RlReplay *replay;
  guint timeline_len;      /* at the previous fix */
};

static double
distance_m (double lat1, double lon1, double lat2, double lon2)
{
  double dx = (lon2 - lon1) * DEG * cos ((lat1 + lat2) / 2 * DEG), dy = (lat2 - lat1) * DEG;
  return sqrt (dx * dx + dy * dy) * EARTH_R_M;
}

RlTrack *
rl_track_new (guint max_points)
{
  RlTrack *t = g_new0 (RlTrack, 1);

  t->max_points = MAX (max_points, 16u);
  t->points = g_array_new (FALSE, FALSE, sizeof (RlTrackPoint));
  return t;
}

void
rl_track_free (RlTrack *t)
{
  if (t == NULL)
    return;
  g_array_unref (t->points);
  g_free (t);
}

static void
keep (RlTrack *t, const RlTrackPoint *p)
{
  g_array_append_vals (t->points, p, 1);
}

/* Doubles the spacing and drops the points it no longer needs (the first
 * and last stay). */
static void
thin (RlTrack *t)
{
  GArray *a = t->points;
  guint out = 1;

  t->spacing_m = t->spacing_m > 0 ? t->spacing_m * 2 : 10.0;
  for (guint i = 1; i < a->len; i++)
    {
      const RlTrackPoint *prev = &g_array_index (a, RlTrackPoint, out - 1), *p = &g_array_index (a, RlTrackPoint, i);
      if (i == a->len - 1 || distance_m (prev->lat, prev->lon, p->lat, p->lon) >= t->spacing_m)
        g_array_index (a, RlTrackPoint, out++) = *p;
    }
  g_array_set_size (a, out);
}

static void
on_event (const RlEvent *e, gpointer user_data)
{
  RlTrack *t = user_data;
  RlTrackPoint p;
  guint len;
  gboolean changed;

  if (e->type != RL_EVENT_EVIDENCE || e->ev.kind != RL_SOURCE_GPS || !isfinite (e->ev.gps.lat) ||
      !isfinite (e->ev.gps.lon))
    return;
  t->n_fixes++;
  p = (RlTrackPoint) { e->time, e->ev.gps.lat, e->ev.gps.lon };
  len = t->replay->timeline->len;
  changed = len != t->timeline_len;
  /* the decision changed since the previous fix: keep it, and this one */
  if (t->have_last && !t->last_kept && changed)
    {
      keep (t, &t->last);
      t->last_kept = TRUE;
    }
  t->timeline_len = len;
  if (t->points->len == 0 || changed ||
      distance_m (g_array_index (t->points, RlTrackPoint, t->points->len - 1).lat,
                  g_array_index (t->points, RlTrackPoint, t->points->len - 1).lon, p.lat, p.lon) >= t->spacing_m)
    {
      keep (t, &p);
      t->last_kept = TRUE;
    }
  else
    t->last_kept = FALSE;
  t->last = p;
  t->have_last = TRUE;
  while (t->points->len >= t->max_points)
    thin (t);
}

void
rl_track_attach (RlTrack *t, RlReplay *replay)
{
  t->replay = replay;
  rl_replay_set_event_func (replay, on_event, t);
}

const RlTrackPoint *
rl_track_points (const RlTrack *t, guint *n)
{
  RlTrack *mt = (RlTrack *) t;

  /* the track ends at the last fix */
  if (t->have_last && !t->last_kept)
    {
      keep (mt, &t->last);
      mt->last_kept = TRUE;
    }
  *n = t->points->len;
  return (const RlTrackPoint *) t->points->data;
}

guint64
rl_track_n_fixes (const RlTrack *t)
{
  return t->n_fixes;
}

double
rl_track_spacing_m (const RlTrack *t)
{
  return t->spacing_m;
}

/* ---- what is in force when ---------------------------------------------- */

typedef enum { STYLE_WORLD, STYLE_DECIDED, STYLE_CONFLICT, STYLE_AIRBORNE, STYLE_SEA } Style;

static Style
entry_style (const RlTimelineEntry *e)
{
  if (e->state == RL_STATE_CONFLICT)
    return STYLE_CONFLICT;
  if (e->reason == RL_REASON_AIRBORNE)
    return STYLE_AIRBORNE;
  if (e->reason == RL_REASON_AT_SEA)
    return STYLE_SEA;
  if (e->state == RL_STATE_DECIDED || e->state == RL_STATE_OVERRIDE)
    return STYLE_DECIDED;
  return STYLE_WORLD;
}

/* Country colours: a stable hash of the code into a palette that keeps
 * clear of grey (00), red (conflict), purple (airborne) and blue (sea). */
static const char *const palette[] = {
  "#1b9e77", "#d95f02", "#e6ab02", "#66a61e", "#a6761d", "#e7298a", "#17becf", "#bcbd22", "#8c564b", "#f28e2b",
};

static const char *
country_colour (RlCountry c)
{
  guint32 h = 2166136261u;

  h = (h ^ (c >> 8)) * 16777619u;
  h = (h ^ (c & 0xff)) * 16777619u;
  return palette[h % G_N_ELEMENTS (palette)];
}

static const char *
entry_colour (const RlTimelineEntry *e)
{
  switch (entry_style (e))
    {
    case STYLE_CONFLICT: return "#d7191c";
    case STYLE_AIRBORNE: return "#7b3294";
    case STYLE_SEA: return "#2c7bb6";
    case STYLE_DECIDED: return country_colour (e->country);
    case STYLE_WORLD:
    default: return "#8a8a8a";
    }
}

static const char *
style_name (Style s)
{
  switch (s)
    {
    case STYLE_CONFLICT: return "conflict (00)";
    case STYLE_AIRBORNE: return "airborne (00)";
    case STYLE_SEA: return "at sea (00)";
    case STYLE_DECIDED: return "decided";
    case STYLE_WORLD:
    default: return "00: no decision yet";
    }
}

/* The timeline entry in force at @time (the last one at or before it). */
static guint
entry_at (const GArray *tl, gint64 time, guint from)
{
  guint i = from;

  while (i + 1 < tl->len && g_array_index (tl, RlTimelineEntry, i + 1).time <= time)
    i++;
  return i;
}

/* A change a reader wants on the map: the country reported changed, or the
 * state became conflict / airborne / at sea. */
static gboolean
is_marked (const GArray *tl, guint i)
{
  const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i), *p;

  if (i == 0)
    return FALSE;
  p = &g_array_index (tl, RlTimelineEntry, i - 1);
  return e->country != p->country || (entry_style (e) != entry_style (p) && entry_style (e) != STYLE_WORLD &&
                                      entry_style (e) != STYLE_DECIDED);
}

/* Where the machine was at @time: the last kept point at or before it. */
static const RlTrackPoint *
position_at (const RlTrackPoint *pts, guint n, gint64 time)
{
  guint lo = 0, hi = n;

  if (n == 0)
    return NULL;
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (pts[mid].time <= time)
        lo = mid;
      else
        hi = mid;
    }
  return &pts[lo];
}

static void
marker_position (const RlTimelineEntry *e, const RlTrackPoint *pts, guint n, double *lat, double *lon)
{
  const RlTrackPoint *p;

  if (e->has_position)
    {
      *lat = e->lat;
      *lon = e->lon;
      return;
    }
  p = position_at (pts, n, e->time);
  *lat = p ? p->lat : NAN;
  *lon = p ? p->lon : NAN;
}

static char *
time_of_day (gint64 t, gboolean seconds)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (t / RL_USEC_PER_SEC);
  return dt ? g_date_time_format (dt, seconds ? "%H:%M:%S" : "%H:%M") : g_strdup ("?");
}

static char *
iso_time (gint64 t)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (t / RL_USEC_PER_SEC);
  return dt ? g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ") : g_strdup ("?");
}

/* ---- SVG --------------------------------------------------------------- */

#define SVG_W 1000.0
#define MARGIN 10.0
#define STRIP_H 46.0
#define LINE_H 17.0

typedef struct {
  double west, east, south, north;
  double kx;               /* cos of the middle latitude */
  double x0, y0, w, h;     /* the map's frame in the picture */
  double scale;            /* px per degree of latitude */
} Frame;

static void
project (const Frame *f, double lat, double lon, double *x, double *y)
{
  *x = f->x0 + (lon - f->west) * f->kx * f->scale;
  *y = f->y0 + (f->north - lat) * f->scale;
}

static void
frame_for (Frame *f, const RlTrackPoint *pts, guint n, const GArray *tl)
{
  double s = 90, w = 180, nn = -90, e = -180, pad, mid, span_x, span_y;

  for (guint i = 0; i < n; i++)
    {
      s = MIN (s, pts[i].lat);
      nn = MAX (nn, pts[i].lat);
      w = MIN (w, pts[i].lon);
      e = MAX (e, pts[i].lon);
    }
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *t = &g_array_index (tl, RlTimelineEntry, i);
      if (t->has_position)
        {
          s = MIN (s, t->lat);
          nn = MAX (nn, t->lat);
          w = MIN (w, t->lon);
          e = MAX (e, t->lon);
        }
    }
  if (s > nn)
    s = nn = w = e = 0;
  mid = (s + nn) / 2;
  f->kx = MAX (cos (mid * DEG), 0.05);
  /* at least 2 km across; 8 % around the track */
  span_y = MAX (nn - s, 0.018);
  span_x = MAX ((e - w) * f->kx, 0.018);
  pad = 0.08 * MAX (span_x, span_y);
  f->south = MAX (mid - span_y / 2 - pad, -89.9);
  f->north = MIN (mid + span_y / 2 + pad, 89.9);
  f->west = (w + e) / 2 - (span_x / 2 + pad) / f->kx;
  f->east = (w + e) / 2 + (span_x / 2 + pad) / f->kx;
  f->w = SVG_W - 2 * MARGIN;
  f->scale = f->w / ((f->east - f->west) * f->kx);
  f->h = (f->north - f->south) * f->scale;
  /* a tall track: cap the height, widen the box instead */
  if (f->h > 760)
    {
      double extra;
      f->scale = 760 / (f->north - f->south);
      f->h = 760;
      extra = (f->w / f->scale / f->kx - (f->east - f->west)) / 2;
      f->west -= extra;
      f->east += extra;
    }
  if (f->h < 300)
    {
      double extra = (300 / f->scale - (f->north - f->south)) / 2;
      f->south -= extra;
      f->north += extra;
      f->h = 300;
    }
  f->x0 = MARGIN;
  f->y0 = MARGIN;
}

static void
xml_text (GString *s, const char *text)
{
  for (const char *p = text; *p; p++)
    switch (*p)
      {
      case '<': g_string_append (s, "&lt;"); break;
      case '>': g_string_append (s, "&gt;"); break;
      case '&': g_string_append (s, "&amp;"); break;
      case '"': g_string_append (s, "&quot;"); break;
      default:
        if ((guchar) *p >= 0x20 || *p == '\t')
          g_string_append_c (s, *p);
      }
}

/* The country areas: the index asked on a grid of cells, one rectangle per
 * run of cells in a row. */
#define CELL_PX 4.0

/* A pale, opaque shade of @rgb ("#rrggbb"): overlapping cells stay even. */
static void
tint (const char *rgb, char out[8])
{
  guint v = (guint) strtoul (rgb + 1, NULL, 16);
  guint c[3] = { v >> 16, (v >> 8) & 0xff, v & 0xff };

  for (guint i = 0; i < 3; i++)
    c[i] = 255 - (guint) ((255 - c[i]) * 0.16);
  g_snprintf (out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

typedef struct {
  RlCountry country;
  double sx, sy;
  guint n;
} Label;

static void
draw_areas (GString *s, const Frame *f, const RlBoundaryIndex *index, GArray *labels)
{
  guint cols = (guint) ceil (f->w / CELL_PX), rows = (guint) ceil (f->h / CELL_PX);

  g_string_append (s, "<g id=\"countries\" stroke=\"none\">\n");
  for (guint r = 0; r < rows; r++)
    {
      double lat = f->north - (r + 0.5) * CELL_PX / f->scale;
      RlCountry run = 0;
      guint start = 0;
      for (guint c = 0; c <= cols; c++)
        {
          RlCountry cc = RL_COUNTRY_NONE;
          if (c < cols)
            {
              double lon = f->west + (c + 0.5) * CELL_PX / f->scale / f->kx;
              if (lon > 180)
                lon -= 360;
              else if (lon < -180)
                lon += 360;
              if (!rl_boundary_lookup_country (index, lat, lon, &cc))
                cc = RL_COUNTRY_NONE;
            }
          if (c < cols && c > 0 && cc == run)
            continue;
          if (c > 0)
            {
              char fill[8];
              tint (run == RL_COUNTRY_NONE ? "#2c7bb6" : country_colour (run), fill);
              g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                                      f->x0 + start * CELL_PX, f->y0 + r * CELL_PX, (c - start) * CELL_PX + 0.3,
                                      CELL_PX + 0.3, fill);
              if (run != RL_COUNTRY_NONE)
                {
                  guint k;
                  for (k = 0; k < labels->len; k++)
                    if (g_array_index (labels, Label, k).country == run)
                      break;
                  if (k == labels->len)
                    {
                      Label l = { run, 0, 0, 0 };
                      g_array_append_val (labels, l);
                    }
                  Label *l = &g_array_index (labels, Label, k);
                  l->sx += (start + c) / 2.0 * (c - start);
                  l->sy += r * (double) (c - start);
                  l->n += c - start;
                }
            }
          run = cc;
          start = c;
        }
    }
  g_string_append (s, "</g>\n");
}

typedef struct {
  const Frame *f;
  GString *s;
  guint n;
} BorderDraw;

static void
on_chain (RlCountry country, const double *ll, guint n, gpointer user_data)
{
  BorderDraw *b = user_data;
  double lx = 0, ly = 0;
  guint drawn = 0;

  (void) country;
  for (guint i = 0; i < n; i++)
    {
      double x, y;
      project (b->f, ll[2 * i + 1], ll[2 * i], &x, &y);
      if (drawn > 0 && i + 1 < n && fabs (x - lx) + fabs (y - ly) < 1.0)
        continue;
      g_string_append_printf (b->s, drawn == 0 ? "M%.1f %.1f" : "L%.1f %.1f", x, y);
      lx = x;
      ly = y;
      drawn++;
    }
  b->n++;
}

static void
draw_borders (GString *s, const Frame *f, const RlBoundaryIndex *index)
{
  BorderDraw b = { f, s, 0 };

  g_string_append (s, "<path id=\"borders\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.2\" stroke-dasharray=\"5 2\" d=\"");
  rl_boundary_foreach_chain (index, f->south, f->west, f->north, f->east, on_chain, &b);
  g_string_append (s, "\"/>\n");
}

/* The track, one polyline per stretch under one decision, points closer
 * than a pixel to the last drawn one left out. */
static void
draw_track (GString *s, const Frame *f, const RlTrackPoint *pts, guint n, const GArray *tl)
{
  guint k = 0;

  g_string_append (s, "<g id=\"track\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n");
  for (guint pass = 0; pass < 2; pass++)
    {
      k = 0;
      for (guint i = 0; i + 1 < n;)
        {
          const RlTimelineEntry *e;
          double lx, ly, x, y;
          guint j;

          k = entry_at (tl, pts[i].time, k);
          e = &g_array_index (tl, RlTimelineEntry, k);
          project (f, pts[i].lat, pts[i].lon, &lx, &ly);
          if (pass == 0)
            g_string_append_printf (s, "<path stroke=\"#fff\" stroke-width=\"8\" d=\"M%.1f %.1f", lx, ly);
          else
            g_string_append_printf (s, "<path stroke=\"%s\" stroke-width=\"4.5\"%s d=\"M%.1f %.1f", entry_colour (e),
                                    entry_style (e) == STYLE_AIRBORNE || entry_style (e) == STYLE_SEA ? " stroke-dasharray=\"9 5\"" : "",
                                    lx, ly);
          /* up to the first point under the next decision (included) */
          for (j = i + 1; j < n; j++)
            {
              gboolean end = entry_at (tl, pts[j].time, k) != k || j == n - 1;
              project (f, pts[j].lat, pts[j].lon, &x, &y);
              if (end || fabs (x - lx) + fabs (y - ly) >= 1.5)
                {
                  g_string_append_printf (s, "L%.1f %.1f", x, y);
                  lx = x;
                  ly = y;
                }
              if (end)
                break;
            }
          g_string_append (s, "\"/>\n");
          i = j;
        }
    }
  g_string_append (s, "</g>\n");
}

static void
draw_scale (GString *s, const Frame *f)
{
  double m_per_px = EARTH_R_M * DEG / f->scale, want = m_per_px * f->w / 5, step = pow (10, floor (log10 (want))), len_m, px;
  double x = f->x0 + 14, y = f->y0 + f->h - 16;
  g_autofree char *label = NULL;

  len_m = want >= 5 * step ? 5 * step : want >= 2 * step ? 2 * step : step;
  px = len_m / m_per_px;
  label = len_m >= 1000 ? g_strdup_printf ("%g km", len_m / 1000) : g_strdup_printf ("%g m", len_m);
  g_string_append_printf (s,
                          "<g id=\"scale\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"22\" fill=\"#fff\" fill-opacity=\"0.8\"/>"
                          "<path d=\"M%.1f %.1fv6h%.1fv-6\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text></g>\n",
                          x - 6, y - 14, px + 12, x, y - 2, px, x + px / 2, y - 3, label);
}

static void
legend_row (GString *s, double x, double *y, const char *colour, gboolean dashed, const char *text)
{
  g_string_append_printf (s, "<path d=\"M%.1f %.1fh26\" stroke=\"%s\" stroke-width=\"5\"%s/>", x, *y - 4, colour,
                          dashed ? " stroke-dasharray=\"7 4\"" : "");
  g_string_append_printf (s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", x + 32, *y);
  xml_text (s, text);
  g_string_append (s, "</text>\n");
  *y += 16;
}

/* The corner of the map the track crosses least (the legend goes there). */
static guint
quiet_corner (const Frame *f, const RlTrackPoint *pts, guint n, double w, double h)
{
  guint count[4] = { 0 }, best = 1;

  for (guint i = 0; i < n; i++)
    {
      double x, y;
      project (f, pts[i].lat, pts[i].lon, &x, &y);
      for (guint c = 0; c < 4; c++)
        {
          double cx = (c & 1) ? f->x0 + f->w - w : f->x0, cy = (c & 2) ? f->y0 + f->h - h : f->y0;
          count[c] += x >= cx - 10 && x <= cx + w + 10 && y >= cy - 10 && y <= cy + h + 10;
        }
    }
  /* top right unless another corner is clearer (bottom left holds the scale) */
  for (guint c = 0; c < 4; c++)
    if (c != 2 && count[c] < count[best])
      best = c;
  return best;
}

static void
draw_legend (GString *s, const Frame *f, const GArray *tl, const RlTrackPoint *pts, guint n)
{
  guint corner;
  gboolean seen[5] = { 0 };
  GArray *countries = g_array_new (FALSE, FALSE, sizeof (RlCountry));
  guint rows;
  double x, y, h;

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      Style st = entry_style (e);
      seen[st] = TRUE;
      if (st == STYLE_DECIDED)
        {
          guint k;
          for (k = 0; k < countries->len && g_array_index (countries, RlCountry, k) != e->country; k++)
            ;
          if (k == countries->len)
            g_array_append_val (countries, e->country);
        }
    }
  rows = countries->len + seen[STYLE_WORLD] + seen[STYLE_CONFLICT] + seen[STYLE_AIRBORNE] + seen[STYLE_SEA] + 2;
  h = rows * 16 + 24;
  corner = quiet_corner (f, pts, n, 220, h + 8);
  x = (corner & 1) ? f->x0 + f->w - 220 : f->x0 + 8;
  y = (corner & 2) ? f->y0 + f->h - h - 8 : f->y0 + 8;
  g_string_append_printf (s, "<g id=\"legend\"><rect x=\"%.1f\" y=\"%.1f\" width=\"212\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#999\"/>\n",
                          x, y, h);
  g_string_append_printf (s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">decision in force</text>\n",
                          x + 8, y + 16);
  y += 34;
  for (guint i = 0; i < countries->len; i++)
    {
      char cc[3];
      RlCountry c = g_array_index (countries, RlCountry, i);
      g_autofree char *t = g_strdup_printf ("%s decided", rl_country_to_string (c, cc));
      legend_row (s, x + 8, &y, country_colour (c), FALSE, t);
    }
  for (Style st = STYLE_WORLD; st <= STYLE_SEA; st++)
    if (st != STYLE_DECIDED && seen[st])
      {
        RlTimelineEntry fake = { 0 };
        fake.state = st == STYLE_CONFLICT ? RL_STATE_CONFLICT : RL_STATE_WORLD;
        fake.reason = st == STYLE_AIRBORNE ? RL_REASON_AIRBORNE : st == STYLE_SEA ? RL_REASON_AT_SEA : RL_REASON_NO_EVIDENCE;
        legend_row (s, x + 8, &y, entry_colour (&fake), st == STYLE_AIRBORNE || st == STYLE_SEA, style_name (st));
      }
  g_string_append_printf (s, "<path d=\"M%.1f %.1fh26\" stroke=\"#555\" stroke-width=\"1.2\" stroke-dasharray=\"5 2\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">border (boundary data)</text>\n",
                          x + 8, y - 4, x + 40, y);
  y += 16;
  g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"#000\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#fff\" text-anchor=\"middle\">1</text>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">decision changed (list below)</text></g>\n",
                          x + 21, y - 4, x + 21, y - 0.5, x + 40, y);
  g_array_unref (countries);
}

static void
change_text (GString *s, const GArray *tl, guint i)
{
  const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i), *p = &g_array_index (tl, RlTimelineEntry, i - 1);
  char a[3], b[3];
  g_autofree char *t = time_of_day (e->time, TRUE);

  g_string_append_printf (s, "%s  %s → %s  %s (%s): ", t, rl_country_to_string (p->country, a),
                          rl_country_to_string (e->country, b), rl_state_to_string (e->state), rl_reason_to_string (e->reason));
}

char *
rl_map_svg (const RlTrack *track, const RlReplay *r, const RlBoundaryIndex *index)
{
  GString *s = g_string_new (NULL);
  const GArray *tl = r->timeline;
  guint n, n_marks = 0;
  const RlTrackPoint *pts = rl_track_points (track, &n);
  Frame f;
  double strip_y, list_y, total_h;
  gint64 t0 = r->first_time, t1 = MAX (r->last_time, r->first_time + 1);
  g_autoptr (GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));
  g_autofree char *a = iso_time (r->first_time), *z = iso_time (r->last_time);

  frame_for (&f, pts, n, tl);
  for (guint i = 1; i < tl->len; i++)
    n_marks += is_marked (tl, i);
  strip_y = f.y0 + f.h + 42;
  list_y = strip_y + STRIP_H + 26;
  total_h = list_y + MAX (n_marks, 1u) * LINE_H + 26;
  g_string_append_printf (s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                          "font-family=\"DejaVu Sans, Verdana, sans-serif\">\n",
                          SVG_W, total_h, SVG_W, total_h);
  g_string_append_printf (s, "<title>regloc replay %s .. %s</title>\n", a, z);
  g_string_append_printf (s, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
                          "<clipPath id=\"map\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n"
                          "<g clip-path=\"url(#map)\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f4f4f0\"/>\n",
                          f.x0, f.y0, f.w, f.h, f.x0, f.y0, f.w, f.h);
  if (index != NULL)
    {
      draw_areas (s, &f, index, labels);
      draw_borders (s, &f, index);
      for (guint i = 0; i < labels->len; i++)
        {
          const Label *l = &g_array_index (labels, Label, i);
          char cc[3];
          if (l->n < 40)
            continue;
          g_string_append_printf (s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"30\" font-weight=\"bold\" fill=\"%s\" fill-opacity=\"0.45\" text-anchor=\"middle\">%s</text>\n",
                                  f.x0 + l->sx / l->n * CELL_PX, f.y0 + (l->sy / l->n + 0.5) * CELL_PX + 10,
                                  country_colour (l->country), rl_country_to_string (l->country, cc));
        }
    }
  draw_track (s, &f, pts, n, tl);
  /* start and end */
  if (n > 0)
    {
      double x, y;
      project (&f, pts[0].lat, pts[0].lon, &x, &y);
      g_string_append_printf (s, "<g id=\"ends\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"2\"/>"
                              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">start</text>", x - 6, y - 6, x + 9, y - 8);
      project (&f, pts[n - 1].lat, pts[n - 1].lon, &x, &y);
      g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#000\"/>"
                              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">end</text></g>\n", x - 6, y - 6, x + 9, y - 8);
    }
  /* the changes, numbered */
  g_string_append (s, "<g id=\"changes\">\n");
  for (guint i = 1, k = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      double lat, lon, x, y;
      if (!is_marked (tl, i))
        continue;
      k++;
      marker_position (e, pts, n, &lat, &lon);
      if (!isfinite (lat))
        continue;
      project (&f, lat, lon, &x, &y);
      g_string_append_printf (s, "<g><title>");
      change_text (s, tl, i);
      xml_text (s, e->summary ? e->summary : "");
      g_string_append_printf (s, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"10\" fill=\"%s\" stroke=\"#000\" stroke-width=\"2\"/>"
                              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">%u</text></g>\n",
                              x, y, entry_colour (e), x, y + 4, k);
    }
  g_string_append (s, "</g>\n");
  draw_scale (s, &f);
  g_string_append (s, "</g>\n");
  g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
                          f.x0, f.y0, f.w, f.h);
  if (index != NULL)
    draw_legend (s, &f, tl, pts, n);

  /* the time strip: the decision in force over time */
  g_string_append_printf (s, "<g id=\"timestrip\"><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">decision over time (UTC)</text>\n",
                          f.x0, strip_y - 20);
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      gint64 end = i + 1 < tl->len ? g_array_index (tl, RlTimelineEntry, i + 1).time : t1;
      double xa = f.x0 + (double) (e->time - t0) / (t1 - t0) * f.w, xb = f.x0 + (double) (end - t0) / (t1 - t0) * f.w;
      g_string_append_printf (s, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" fill=\"%s\"><title>", xa, strip_y,
                              MAX (xb - xa, 0.0) + (i + 1 < tl->len ? 0.6 : 0.0), entry_colour (e));
      {
        char cc[3];
        g_autofree char *t = time_of_day (e->time, TRUE);
        g_string_append_printf (s, "%s %s %s (%s)", t, rl_country_to_string (e->country, cc), rl_state_to_string (e->state),
                                rl_reason_to_string (e->reason));
      }
      g_string_append (s, "</title></rect>\n");
    }
  g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\" fill=\"none\" stroke=\"#333\"/>\n",
                          f.x0, strip_y, f.w);
  for (guint q = 0; q <= 4; q++)
    {
      gint64 t = t0 + (t1 - t0) * q / 4;
      g_autofree char *label = time_of_day (t, t1 - t0 < 600 * RL_USEC_PER_SEC);
      double x = f.x0 + f.w * q / 4;
      g_string_append_printf (s, "<path d=\"M%.1f %.1fv5\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"%s\">%s</text>\n",
                              x, strip_y + 20, x, strip_y + 34, q == 0 ? "start" : q == 4 ? "end" : "middle", label);
    }
  for (guint i = 1, k = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      double x;
      if (!is_marked (tl, i))
        continue;
      k++;
      x = f.x0 + (double) (e->time - t0) / (t1 - t0) * f.w;
      g_string_append_printf (s, "<path d=\"M%.1f %.1fv26\" stroke=\"#000\" stroke-width=\"1.5\"/>"
                              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\">%u</text>\n",
                              x, strip_y - 3, x, strip_y - 5 + 0.0 * k, k);
    }
  g_string_append (s, "</g>\n");

  /* the changes in words */
  g_string_append_printf (s, "<g id=\"why\" font-size=\"12\"><text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">where the decision changed, and why</text>\n",
                          f.x0, list_y - 6);
  if (n_marks == 0)
    g_string_append_printf (s, "<text x=\"%.1f\" y=\"%.1f\">no change of decision</text>\n", f.x0, list_y + LINE_H - 4);
  for (guint i = 1, k = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      g_autoptr (GString) line = g_string_new (NULL);
      if (!is_marked (tl, i))
        continue;
      k++;
      change_text (line, tl, i);
      g_string_append (line, e->summary ? e->summary : "");
      if (g_utf8_strlen (line->str, -1) > 140)
        {
          char *cut = g_utf8_offset_to_pointer (line->str, 137);
          g_string_truncate (line, cut - line->str);
          g_string_append (line, "…");
        }
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#fff\" text-anchor=\"middle\" font-weight=\"bold\">%u</text>"
                              "<text x=\"%.1f\" y=\"%.1f\">",
                              f.x0 + 7, list_y + k * LINE_H - 8, entry_colour (e), f.x0 + 7, list_y + k * LINE_H - 4.5, k,
                              f.x0 + 20, list_y + k * LINE_H - 4);
      xml_text (s, line->str);
      g_string_append (s, "</text>\n");
    }
  g_string_append (s, "</g>\n</svg>\n");
  return g_string_free (s, FALSE);
}

/* ---- GeoJSON and KML: one piece of track per timeline entry ------------- */

typedef void (*SegmentFunc) (const RlTimelineEntry *e, gint64 start, gint64 end, const RlTrackPoint *pts, guint n,
                             gpointer user_data);

/* Calls @func for every stretch of the track under one decision; a stretch
 * starts at the last point of the one before, so the line is unbroken. */
static void
foreach_segment (const RlTrack *track, const RlReplay *r, SegmentFunc func, gpointer user_data)
{
  guint n, k = 0;
  const RlTrackPoint *pts = rl_track_points (track, &n);
  const GArray *tl = r->timeline;

  if (tl->len == 0)
    return;
  for (guint i = 0; i < n;)
    {
      guint j = i + 1;
      const RlTimelineEntry *e;
      gint64 end;

      k = entry_at (tl, pts[i].time, k);
      e = &g_array_index (tl, RlTimelineEntry, k);
      while (j < n && entry_at (tl, pts[j].time, k) == k)
        j++;
      end = j < n ? pts[j].time : pts[n - 1].time;
      func (e, pts[i].time, end, pts + i, MIN (j + 1, n) - i, user_data);
      if (j >= n)
        break;
      i = j;
    }
}

static void
json_string (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (s, "\\%c", *p);
      else if ((guchar) *p < 0x20)
        g_string_append_printf (s, "\\u%04x", *p);
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

static void
json_props (GString *s, const RlTimelineEntry *e, gint64 start, gint64 end)
{
  char cc[3];
  g_autofree char *a = iso_time (start), *z = iso_time (end);

  g_string_append_printf (s, "\"properties\":{\"start\":\"%s\",\"end\":\"%s\",\"country\":\"%s\",\"state\":\"%s\","
                          "\"reason\":\"%s\",\"colour\":\"%s\",\"detail\":",
                          a, z, rl_country_to_string (e->country, cc), rl_state_to_string (e->state),
                          rl_reason_to_string (e->reason), entry_colour (e));
  json_string (s, e->summary ? e->summary : "");
  g_string_append_c (s, '}');
}

typedef struct {
  GString *s;
  gboolean first;
} Doc;

static void
geojson_segment (const RlTimelineEntry *e, gint64 start, gint64 end, const RlTrackPoint *pts, guint n, gpointer user_data)
{
  Doc *d = user_data;

  g_string_append (d->s, d->first ? "\n" : ",\n");
  d->first = FALSE;
  g_string_append (d->s, "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
  for (guint i = 0; i < MAX (n, 2u); i++)
    {
      const RlTrackPoint *p = &pts[MIN (i, n - 1)];
      g_string_append_printf (d->s, "%s[%.7f,%.7f]", i ? "," : "", p->lon, p->lat);
    }
  g_string_append (d->s, "]},");
  json_props (d->s, e, start, end);
  g_string_append (d->s, "}");
}

char *
rl_map_geojson (const RlTrack *track, const RlReplay *r)
{
  Doc d = { g_string_new ("{\"type\":\"FeatureCollection\",\"features\":["), TRUE };
  guint n;
  const RlTrackPoint *pts = rl_track_points (track, &n);
  const GArray *tl = r->timeline;

  foreach_segment (track, r, geojson_segment, &d);
  for (guint i = 1; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      double lat, lon;
      char cc[3];
      if (!is_marked (tl, i))
        continue;
      marker_position (e, pts, n, &lat, &lon);
      if (!isfinite (lat))
        continue;
      g_string_append (d.s, d.first ? "\n" : ",\n");
      d.first = FALSE;
      g_string_append_printf (d.s, "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[%.7f,%.7f]},", lon, lat);
      json_props (d.s, e, e->time, e->time);
      g_string_truncate (d.s, d.s->len - 1);
      g_string_append_printf (d.s, ",\"change\":true,\"from\":\"%s\"}}",
                              rl_country_to_string (g_array_index (tl, RlTimelineEntry, i - 1).country, cc));
    }
  g_string_append (d.s, "\n]}\n");
  return g_string_free (d.s, FALSE);
}

/* KML colours are aabbggrr */
static void
kml_colour (GString *s, const char *rgb)
{
  g_string_append_printf (s, "ff%.2s%.2s%.2s", rgb + 5, rgb + 3, rgb + 1);
}

static void
kml_segment (const RlTimelineEntry *e, gint64 start, gint64 end, const RlTrackPoint *pts, guint n, gpointer user_data)
{
  Doc *d = user_data;
  char cc[3];
  g_autofree char *a = iso_time (start), *z = iso_time (end);

  g_string_append_printf (d->s, "<Placemark><name>%s %s</name><description>", rl_country_to_string (e->country, cc),
                          rl_state_to_string (e->state));
  xml_text (d->s, rl_reason_to_string (e->reason));
  g_string_append (d->s, ": ");
  xml_text (d->s, e->summary ? e->summary : "");
  g_string_append_printf (d->s, "</description><TimeSpan><begin>%s</begin><end>%s</end></TimeSpan>"
                          "<Style><LineStyle><color>", a, z);
  kml_colour (d->s, entry_colour (e));
  g_string_append (d->s, "</color><width>4</width></LineStyle></Style><LineString><tessellate>1</tessellate><coordinates>");
  for (guint i = 0; i < MAX (n, 2u); i++)
    {
      const RlTrackPoint *p = &pts[MIN (i, n - 1)];
      g_string_append_printf (d->s, "%s%.7f,%.7f", i ? " " : "", p->lon, p->lat);
    }
  g_string_append (d->s, "</coordinates></LineString></Placemark>\n");
}

char *
rl_map_kml (const RlTrack *track, const RlReplay *r)
{
  Doc d = { g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n"
                          "<Document><name>regloc replay</name>\n<Folder><name>track</name>\n"), TRUE };
  guint n;
  const RlTrackPoint *pts = rl_track_points (track, &n);
  const GArray *tl = r->timeline;

  foreach_segment (track, r, kml_segment, &d);
  g_string_append (d.s, "</Folder>\n<Folder><name>country changes</name>\n");
  for (guint i = 1; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      double lat, lon;
      g_autofree char *t = iso_time (e->time);
      g_autoptr (GString) name = g_string_new (NULL);
      if (!is_marked (tl, i))
        continue;
      marker_position (e, pts, n, &lat, &lon);
      if (!isfinite (lat))
        continue;
      change_text (name, tl, i);
      g_string_append (d.s, "<Placemark><name>");
      xml_text (d.s, name->str);
      g_string_append (d.s, "</name><description>");
      xml_text (d.s, e->summary ? e->summary : "");
      g_string_append_printf (d.s, "</description><TimeStamp><when>%s</when></TimeStamp><Point><coordinates>%.7f,%.7f</coordinates></Point></Placemark>\n",
                              t, lon, lat);
    }
  g_string_append (d.s, "</Folder>\n</Document>\n</kml>\n");
  return g_string_free (d.s, FALSE);
}
