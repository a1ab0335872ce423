/* Reader for the boundary GeoJSON: see boundary-source.h. */
#include "tools/boundary-gen/boundary-source.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RL_PI 3.14159265358979323846

int rl_bsrc_verbose;
static RlBsrc *S;
static size_t cap_pts, cap_polys;

void
rl_bsrc_fail (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("boundary-gen: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (1);
}

void *
rl_bsrc_realloc (void *p, size_t n)
{
  p = realloc (p, n ? n : 1);
  if (p == NULL)
    rl_bsrc_fail ("out of memory");
  return p;
}

/* ---- JSON reader ------------------------------------------------------ */

typedef struct {
  const char *p, *end;
} Json;

static void
ws (Json *j)
{
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
    j->p++;
}

static void
expect (Json *j, char c)
{
  ws (j);
  if (j->p >= j->end || *j->p != c)
    rl_bsrc_fail ("JSON: expected '%c' at byte %ld", c, (long) (j->end - j->p));
  j->p++;
}

static bool
peek (Json *j, char c)
{
  ws (j);
  return j->p < j->end && *j->p == c;
}

/* Strings here are keys and ISO codes: no escapes needed beyond skipping. */
static void
string (Json *j, char *out, size_t len)
{
  size_t n = 0;
  expect (j, '"');
  while (j->p < j->end && *j->p != '"')
    {
      if (*j->p == '\\')
        j->p++;
      if (out && n + 1 < len)
        out[n++] = *j->p;
      j->p++;
    }
  if (j->p >= j->end)
    rl_bsrc_fail ("JSON: unterminated string");
  j->p++;
  if (out)
    out[n] = '\0';
}

static double
number (Json *j)
{
  char *e;
  double v;
  ws (j);
  errno = 0;
  v = strtod (j->p, &e);
  if (e == j->p || e > j->end || errno != 0 || !isfinite (v))
    rl_bsrc_fail ("JSON: bad number");
  j->p = e;
  return v;
}

static void
skip_value (Json *j)
{
  ws (j);
  if (j->p >= j->end)
    rl_bsrc_fail ("JSON: unexpected end");
  if (*j->p == '"')
    string (j, NULL, 0);
  else if (*j->p == '{' || *j->p == '[')
    {
      char close = *j->p == '{' ? '}' : ']';
      bool obj = *j->p == '{';
      j->p++;
      if (peek (j, close))
        {
          j->p++;
          return;
        }
      for (;;)
        {
          if (obj)
            {
              string (j, NULL, 0);
              expect (j, ':');
            }
          skip_value (j);
          if (peek (j, ','))
            j->p++;
          else
            break;
        }
      expect (j, close);
    }
  else
    {
      while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']')
        j->p++;
    }
}

static void
add_point (double x, double y, int32_t feat)
{
  if (S->n_pts == cap_pts)
    {
      cap_pts = cap_pts ? cap_pts * 2 : 1 << 20;
      S->pts = rl_bsrc_realloc (S->pts, cap_pts * sizeof *S->pts);
      S->feat = rl_bsrc_realloc (S->feat, cap_pts * sizeof *S->feat);
    }
  S->pts[S->n_pts].x = x;
  S->pts[S->n_pts].y = y;
  S->feat[S->n_pts] = feat;
  S->n_pts++;
}

/* Area in km² of a ring (spherical excess approximation good enough to rank). */
static double
ring_area (size_t first, size_t last)
{
  double a = 0;
  for (size_t i = first; i < last; i++)
    {
      double x0 = S->pts[i].x * RL_PI / 180, x1 = S->pts[i + 1].x * RL_PI / 180;
      double y0 = S->pts[i].y * RL_PI / 180, y1 = S->pts[i + 1].y * RL_PI / 180;
      a += (x1 - x0) * (2 + sin (y0) + sin (y1));
    }
  return fabs (a * 6371.0 * 6371.0 / 2);
}

/* A ring: array of [lon, lat] positions.  Returns its area. */
static double
ring (Json *j, int32_t feat)
{
  size_t first = S->n_pts;
  expect (j, '[');
  while (!peek (j, ']'))
    {
      double x, y;
      expect (j, '[');
      x = number (j);
      expect (j, ',');
      y = number (j);
      while (peek (j, ','))
        {
          j->p++;
          number (j);
        }
      expect (j, ']');
      if (x < -180 || x > 180 || y < -90 || y > 90)
        rl_bsrc_fail ("coordinate out of range: %f %f", x, y);
      add_point (x, y, feat);
      if (peek (j, ','))
        j->p++;
    }
  expect (j, ']');
  if (S->n_pts - first < 4)
    rl_bsrc_fail ("ring with %zu points", S->n_pts - first);
  if (S->pts[first].x != S->pts[S->n_pts - 1].x || S->pts[first].y != S->pts[S->n_pts - 1].y)
    add_point (S->pts[first].x, S->pts[first].y, feat);
  S->feat[S->n_pts - 1] = -1;
  return ring_area (first, S->n_pts - 1);
}

/* Nested coordinate arrays of any depth: a ring is an array whose elements
 * are positions; a polygon is an array of rings (first outer, then holes). */
static int
array_depth (Json *j)
{
  const char *p = j->p;
  int d = 0;
  while (p < j->end && (*p == '[' || *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
    if (*p++ == '[')
      d++;
  return d;
}

static double
coordinates (Json *j, int32_t feat)
{
  int d;
  double area = 0;

  ws (j);
  d = array_depth (j);
  if (d == 2)
    return ring (j, feat);
  if (d < 2)
    rl_bsrc_fail ("JSON: coordinates too shallow");
  size_t first_pt = S->n_pts;
  expect (j, '[');
  for (bool first = true; !peek (j, ']'); first = false)
    {
      double a = coordinates (j, feat);
      /* In a polygon (depth 3) the rings after the first are holes. */
      area += (d == 3 && !first) ? -a : a;
      if (peek (j, ','))
        j->p++;
    }
  expect (j, ']');
  if (d == 3)
    {
      if (S->n_polys == cap_polys)
        {
          cap_polys = cap_polys ? cap_polys * 2 : 1024;
          S->polys = rl_bsrc_realloc (S->polys, cap_polys * sizeof *S->polys);
        }
      S->polys[S->n_polys++] = (RlBsrcPolygon) { first_pt, S->n_pts, feat, area };
    }
  return area;
}

static double
geometry (Json *j, int32_t feat)
{
  char key[32];
  double area = 0;
  expect (j, '{');
  while (!peek (j, '}'))
    {
      string (j, key, sizeof key);
      expect (j, ':');
      if (strcmp (key, "coordinates") == 0)
        area += coordinates (j, feat);
      else if (strcmp (key, "geometries") == 0)
        {
          expect (j, '[');
          while (!peek (j, ']'))
            {
              area += geometry (j, feat);
              if (peek (j, ','))
                j->p++;
            }
          expect (j, ']');
        }
      else
        skip_value (j);
      if (peek (j, ','))
        j->p++;
    }
  expect (j, '}');
  return area;
}

static void
properties (Json *j, RlBsrcFeature *f)
{
  char key[32], val[16];
  expect (j, '{');
  while (!peek (j, '}'))
    {
      string (j, key, sizeof key);
      expect (j, ':');
      if (peek (j, '"') && (strcmp (key, "isoA2") == 0 || strcmp (key, "isoA3") == 0))
        {
          string (j, val, sizeof val);
          if (key[4] == '2' && strlen (val) < sizeof f->a2)
            memcpy (f->a2, val, strlen (val) + 1);
          else if (key[4] == '3' && strlen (val) < sizeof f->a3)
            memcpy (f->a3, val, strlen (val) + 1);
        }
      else
        skip_value (j);
      if (peek (j, ','))
        j->p++;
    }
  expect (j, '}');
}

/* Features without an alpha-2 code that ISO nevertheless gives one. */
static const struct { const char *a3, *a2; } alpha3_only[] = {
  { "BES", "BQ" }, { "CUW", "CW" }, { "SXM", "SX" },
};

static void
feature (Json *j)
{
  char key[32];
  RlBsrcFeature *f;
  if (S->n_feats == RL_BSRC_MAX_FEATURES)
    rl_bsrc_fail ("too many features");
  f = &S->feats[S->n_feats];
  memset (f, 0, sizeof *f);
  expect (j, '{');
  while (!peek (j, '}'))
    {
      string (j, key, sizeof key);
      expect (j, ':');
      if (strcmp (key, "properties") == 0)
        properties (j, f);
      else if (strcmp (key, "geometry") == 0)
        f->area = geometry (j, (int32_t) S->n_feats);
      else
        skip_value (j);
      if (peek (j, ','))
        j->p++;
    }
  expect (j, '}');
  if (f->a2[0] == '\0' || strcmp (f->a2, "-99") == 0)
    for (size_t i = 0; i < sizeof alpha3_only / sizeof alpha3_only[0]; i++)
      if (strcmp (f->a3, alpha3_only[i].a3) == 0)
        memcpy (f->a2, alpha3_only[i].a2, 3);
  if (strlen (f->a2) != 2 || f->a2[0] < 'A' || f->a2[0] > 'Z' || f->a2[1] < 'A' || f->a2[1] > 'Z')
    rl_bsrc_fail ("feature %u (%s) has no usable ISO alpha-2 code", S->n_feats, f->a3);
  S->n_feats++;
}

static void
parse (const char *buf, size_t len)
{
  char key[32];
  Json j = { buf, buf + len };
  expect (&j, '{');
  while (!peek (&j, '}'))
    {
      string (&j, key, sizeof key);
      expect (&j, ':');
      if (strcmp (key, "features") == 0)
        {
          expect (&j, '[');
          while (!peek (&j, ']'))
            {
              feature (&j);
              if (peek (&j, ','))
                j.p++;
            }
          expect (&j, ']');
        }
      else
        skip_value (&j);
      if (peek (&j, ','))
        j.p++;
    }
  expect (&j, '}');
}

/* ---- territorial sea held by the sovereign's feature ------------------ */

typedef struct { double x0, y0, x1, y1; } BBox;

static BBox
poly_bbox (const RlBsrcPolygon *p)
{
  BBox b = { 1e9, 1e9, -1e9, -1e9 };
  for (size_t i = p->first; i < p->end; i++)
    {
      b.x0 = fmin (b.x0, S->pts[i].x);
      b.y0 = fmin (b.y0, S->pts[i].y);
      b.x1 = fmax (b.x1, S->pts[i].x);
      b.y1 = fmax (b.y1, S->pts[i].y);
    }
  return b;
}

static bool
poly_contains (const RlBsrcPolygon *p, RlBsrcPt q)
{
  bool in = false;
  for (size_t i = p->first; i + 1 < p->end; i++)
    {
      RlBsrcPt a = S->pts[i], b = S->pts[i + 1];
      if (S->feat[i] >= 0 && (a.y > q.y) != (b.y > q.y) && a.x + (q.y - a.y) * (b.x - a.x) / (b.y - a.y) > q.x)
        in = !in;
    }
  return in;
}

static double
km2 (RlBsrcPt a, RlBsrcPt b)
{
  double dx = (a.x - b.x) * 111.2 * cos ((a.y + b.y) / 2 * RL_PI / 180), dy = (a.y - b.y) * 111.2;
  return dx * dx + dy * dy;
}

/* Is every vertex of p within RL_BSRC_WATERS_KM of a vertex of feature t
 * (of any of its islands)? */
static bool
poly_hugs (const RlBsrcPolygon *p, int32_t t)
{
  double r2 = RL_BSRC_WATERS_KM * RL_BSRC_WATERS_KM;
  size_t hit = SIZE_MAX;   /* consecutive vertices are usually near the same one */

  for (size_t i = p->first; i < p->end; i++)
    {
      bool near = hit != SIZE_MAX && km2 (S->pts[i], S->pts[hit]) <= r2;
      for (size_t q = 0; q < S->n_polys && !near; q++)
        if (S->polys[q].feat == t)
          for (size_t k = S->polys[q].first; k < S->polys[q].end && !near; k++)
            if (km2 (S->pts[i], S->pts[k]) <= r2)
              {
                near = true;
                hit = k;
              }
      if (!near)
        return false;
    }
  return true;
}

static void
give_waters_to_territories (void)
{
  size_t n = S->n_polys;
  BBox *bb = rl_bsrc_realloc (NULL, n * sizeof *bb);
  double pad = RL_BSRC_WATERS_KM / 111.2;

  BBox fb[RL_BSRC_MAX_FEATURES];

  for (unsigned f = 0; f < S->n_feats; f++)
    fb[f] = (BBox) { 1e9, 1e9, -1e9, -1e9 };
  for (size_t i = 0; i < n; i++)
    {
      BBox *f = &fb[S->polys[i].feat];
      bb[i] = poly_bbox (&S->polys[i]);
      f->x0 = fmin (f->x0, bb[i].x0);
      f->y0 = fmin (f->y0, bb[i].y0);
      f->x1 = fmax (f->x1, bb[i].x1);
      f->y1 = fmax (f->y1, bb[i].y1);
    }
  for (size_t t = 0; t < n; t++)
    for (size_t p = 0; p < n; p++)
      {
        RlBsrcPolygon *tp = &S->polys[t], *pp = &S->polys[p];
        const RlBsrcFeature *tf = &S->feats[tp->feat];
        RlBsrcFeature *nf;
        double lat_pad;

        if (pp->feat == tp->feat || S->feats[pp->feat].area <= tf->area || pp->area <= tp->area)
          continue;
        if (strcmp (S->feats[pp->feat].a2, tf->a2) == 0)
          continue;
        /* p must contain the territory's polygon and stay near the territory. */
        lat_pad = pad / fmax (0.05, cos (fmax (fabs (bb[t].y0), fabs (bb[t].y1)) * RL_PI / 180));
        if (bb[p].x0 > bb[t].x0 || bb[p].y0 > bb[t].y0 || bb[p].x1 < bb[t].x1 || bb[p].y1 < bb[t].y1 ||
            bb[p].x0 < fb[tp->feat].x0 - lat_pad || bb[p].x1 > fb[tp->feat].x1 + lat_pad ||
            bb[p].y0 < fb[tp->feat].y0 - pad || bb[p].y1 > fb[tp->feat].y1 + pad)
          continue;
        if (!poly_contains (pp, S->pts[tp->first]) || !poly_hugs (pp, tp->feat))
          continue;
        if (S->n_feats == RL_BSRC_MAX_FEATURES)
          rl_bsrc_fail ("too many features");
        nf = &S->feats[S->n_feats];
        *nf = *tf;
        nf->area = pp->area;
        if (rl_bsrc_verbose)
          fprintf (stderr, "boundary-gen: %s polygon of %.0f km² around %s (%.0f km²) is %s's sea\n",
                 S->feats[pp->feat].a2, pp->area, tf->a2, tp->area, tf->a2);
        for (size_t i = pp->first; i < pp->end; i++)
          if (S->feat[i] >= 0)
            S->feat[i] = (int32_t) S->n_feats;
        pp->feat = (int32_t) S->n_feats;
        S->n_feats++;
      }
  free (bb);
}

static int
cmp_area (const void *a, const void *b)
{
  const RlBsrcFeature *x = *(RlBsrcFeature *const *) a, *y = *(RlBsrcFeature *const *) b;
  return x->area < y->area ? -1 : x->area > y->area;
}

RlBsrc *
rl_bsrc_load (const char *path)
{
  FILE *in;
  char *buf;
  long len;
  RlBsrcFeature *order[RL_BSRC_MAX_FEATURES];

  S = calloc (1, sizeof *S);
  if (S == NULL)
    rl_bsrc_fail ("out of memory");
  cap_pts = 0;
  in = fopen (path, "rb");
  if (in == NULL)
    rl_bsrc_fail ("%s: %s", path, strerror (errno));
  if (fseek (in, 0, SEEK_END) != 0 || (len = ftell (in)) < 0 || fseek (in, 0, SEEK_SET) != 0)
    rl_bsrc_fail ("%s: cannot size", path);
  buf = rl_bsrc_realloc (NULL, (size_t) len + 1);
  if (fread (buf, 1, (size_t) len, in) != (size_t) len)
    rl_bsrc_fail ("%s: short read", path);
  fclose (in);
  parse (buf, (size_t) len);
  free (buf);
  if (S->n_feats == 0)
    rl_bsrc_fail ("%s: no features", path);
  give_waters_to_territories ();

  /* Smallest first: where features overlap (a sovereign also covers its
   * territories) the most specific one wins by having the lowest rank. */
  for (unsigned i = 0; i < S->n_feats; i++)
    order[i] = &S->feats[i];
  qsort (order, S->n_feats, sizeof order[0], cmp_area);
  for (unsigned i = 0; i < S->n_feats; i++)
    order[i]->rank = (uint16_t) i;
  return S;
}
