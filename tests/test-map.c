/* The replay's map (replay/map.c): the sample trip's SVG is well-formed XML
 * with its track, markers, legend and time strip; the GeoJSON parses and
 * every coordinate is a fix of the NMEA log (and every fix is there); the
 * KML is well-formed; a long trip keeps a bounded track; the boundary
 * index hands out its border chains for a box. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/config.h"
#include "core/paths.h"
#include "geo/boundary.h"
#include "replay/map.h"
#include "replay/replay.h"
#include "replay/replay-gps.h"
#include "replay/replay-scans.h"

typedef struct {
  RlConfig *config;
  RlBoundaryIndex *index;
  RlReplay *replay;
  RlTrack *track;
} Run;

static void
run_sample (Run *run, guint max_points)
{
  g_autofree char *nmea = g_test_build_filename (G_TEST_DIST, "..", "data", "samples", "trip-de-fr.nmea", NULL);
  g_autofree char *scans = g_test_build_filename (G_TEST_DIST, "..", "data", "samples", "trip-de-fr.scans.jsonl", NULL);
  g_autoptr (GError) error = NULL;

  run->config = rl_config_load (NULL, &error);
  g_assert_no_error (error);
  run->index = rl_boundary_index_open (rl_boundary_index_default_path (), &error);
  g_assert_no_error (error);
  run->replay = rl_replay_new (run->config, NULL);
  run->track = rl_track_new (max_points);
  rl_track_attach (run->track, run->replay);
  g_assert_true (rl_replay_load_gps_file (run->replay, nmea, NULL, NULL, run->config, run->index, &error));
  g_assert_no_error (error);
  g_assert_true (rl_replay_load_scan_file (run->replay, scans, run->config, &error));
  g_assert_no_error (error);
  rl_replay_run (run->replay, TRUE);
}

static void
run_clear (Run *run)
{
  rl_track_free (run->track);
  rl_replay_free (run->replay);
  rl_boundary_index_free (run->index);
  rl_config_free (run->config);
}

/* The GGA fixes of the log, read here by hand (not by the reader under test). */
static GArray *
gga_fixes (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "samples", "trip-de-fr.nmea", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  GArray *fixes = g_array_new (FALSE, FALSE, sizeof (double) * 2);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = NULL;
      double ll[2], v;
      if (!g_str_has_prefix (lines[i], "$GPGGA,"))
        continue;
      f = g_strsplit (lines[i], ",", -1);
      if (g_strv_length (f) < 7 || atoi (f[6]) == 0)
        continue;
      v = g_ascii_strtod (f[2], NULL);
      ll[1] = (f[3][0] == 'S' ? -1 : 1) * (floor (v / 100) + (v - 100 * floor (v / 100)) / 60);
      v = g_ascii_strtod (f[4], NULL);
      ll[0] = (f[5][0] == 'W' ? -1 : 1) * (floor (v / 100) + (v - 100 * floor (v / 100)) / 60);
      g_array_append_vals (fixes, ll, 1);
    }
  return fixes;
}

static void
test_svg (void)
{
  Run run = { 0 };
  g_autofree char *svg = NULL;
  xmlDocPtr doc;
  xmlNodePtr root;
  guint markers = 0, paths = 0;

  run_sample (&run, RL_TRACK_DEFAULT_POINTS);
  svg = rl_map_svg (run.track, run.replay, run.index);
  doc = xmlReadMemory (svg, (int) strlen (svg), "map.svg", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  root = xmlDocGetRootElement (doc);
  g_assert_cmpstr ((const char *) root->name, ==, "svg");
  for (xmlNodePtr g = root->children; g != NULL; g = g->next)
    {
      g_autofree char *id = NULL;
      xmlChar *raw;
      if (g->type != XML_ELEMENT_NODE)
        continue;
      for (xmlNodePtr inner = g->children; inner != NULL; inner = inner->next)
        {
          if (inner->type != XML_ELEMENT_NODE || (raw = xmlGetProp (inner, (const xmlChar *) "id")) == NULL)
            continue;
          if (strcmp ((char *) raw, "changes") == 0)
            for (xmlNodePtr m = inner->children; m != NULL; m = m->next)
              markers += m->type == XML_ELEMENT_NODE;
          if (strcmp ((char *) raw, "track") == 0)
            for (xmlNodePtr m = inner->children; m != NULL; m = m->next)
              paths += m->type == XML_ELEMENT_NODE;
          xmlFree (raw);
        }
    }
  xmlFreeDoc (doc);
  /* the sample trip: 00 → DE, DE → 00 on the bridge (the fix's circle no
   * longer reaches DE: support lost), the conflict there, 00 → FR */
  g_assert_cmpuint (markers, ==, 4);
  g_assert_cmpuint (paths, >=, 2 * 3);
  g_assert_nonnull (strstr (svg, "id=\"borders\""));
  g_assert_nonnull (strstr (svg, "id=\"legend\""));
  g_assert_nonnull (strstr (svg, "id=\"timestrip\""));
  g_assert_nonnull (strstr (svg, "00 → FR  decided (agreement)"));
  g_assert_nonnull (strstr (svg, "DE → 00  world (support-lost)"));
  g_assert_nonnull (strstr (svg, "00 → 00  conflict (conflict)"));
  run_clear (&run);
}

static void
test_geojson (void)
{
  Run run = { 0 };
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) fixes = gga_fixes ();
  g_autofree gboolean *seen = g_new0 (gboolean, fixes->len);
  JsonArray *features;
  guint lines = 0, changes = 0, hint = 0;

  run_sample (&run, RL_TRACK_DEFAULT_POINTS);
  text = rl_map_geojson (run.track, run.replay);
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)), "type"), ==,
                   "FeatureCollection");
  features = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "features");
  g_assert_cmpuint (fixes->len, >, 900);
  for (guint i = 0; i < json_array_get_length (features); i++)
    {
      JsonObject *f = json_array_get_object_element (features, i);
      JsonObject *geom = json_object_get_object_member (f, "geometry");
      JsonObject *props = json_object_get_object_member (f, "properties");
      const char *type = json_object_get_string_member (geom, "type");
      JsonArray *coords = json_object_get_array_member (geom, "coordinates");

      g_assert_true (json_object_has_member (props, "country"));
      g_assert_true (json_object_has_member (props, "state"));
      g_assert_true (json_object_has_member (props, "reason"));
      g_assert_true (json_object_has_member (props, "start"));
      if (strcmp (type, "Point") == 0)
        {
          const char *from = json_object_get_string_member (props, "from");
          const char *state = json_object_get_string_member (props, "state");

          changes++;
          /* a change of country, or into a conflict or at sea (00 all the same) */
          if (strcmp (from, json_object_get_string_member (props, "country")) == 0)
            g_assert_true (strcmp (state, "conflict") == 0 || strcmp (state, "at-sea") == 0);
          continue;
        }
      g_assert_cmpstr (type, ==, "LineString");
      lines++;
      for (guint k = 0; k < json_array_get_length (coords); k++)
        {
          JsonArray *c = json_array_get_array_element (coords, k);
          double lon = json_array_get_double_element (c, 0), lat = json_array_get_double_element (c, 1);
          guint j, tried;
          /* the fixes in order: look from where the last one was found */
          for (tried = 0, j = hint; tried < fixes->len; tried++, j = (j + 1) % fixes->len)
            {
              const double *ll = &g_array_index (fixes, double, 2 * j);
              if (fabs (ll[0] - lon) < 1e-6 && fabs (ll[1] - lat) < 1e-6)
                break;
            }
          g_assert_cmpuint (tried, <, fixes->len);   /* a coordinate that is no fix of the log */
          seen[j] = TRUE;
          hint = j;
        }
    }
  g_assert_cmpuint (changes, ==, 4);
  g_assert_cmpuint (lines, >=, 3);
  /* a short trip is not thinned: every fix is on the line */
  for (guint j = 0; j < fixes->len; j++)
    g_assert_true (seen[j]);
  g_assert_cmpfloat (rl_track_spacing_m (run.track), ==, 0.0);
  run_clear (&run);
}

static void
test_kml (void)
{
  Run run = { 0 };
  g_autofree char *kml = NULL;
  xmlDocPtr doc;

  run_sample (&run, RL_TRACK_DEFAULT_POINTS);
  kml = rl_map_kml (run.track, run.replay);
  doc = xmlReadMemory (kml, (int) strlen (kml), "map.kml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  g_assert_cmpstr ((const char *) xmlDocGetRootElement (doc)->name, ==, "kml");
  g_assert_cmpstr ((const char *) xmlDocGetRootElement (doc)->ns->href, ==, "http://www.opengis.net/kml/2.2");
  xmlFreeDoc (doc);
  g_assert_nonnull (strstr (kml, "<LineString>"));
  run_clear (&run);
}

/* A small cap: the track thins itself and stays under it, and still starts
 * at the first fix and ends at the last one. */
static void
test_bounded (void)
{
  Run run = { 0 };
  g_autoptr (GArray) fixes = gga_fixes ();
  const RlTrackPoint *pts;
  guint n;
  const double *first = &g_array_index (fixes, double, 0), *last = &g_array_index (fixes, double, 2 * (fixes->len - 1));

  run_sample (&run, 100);
  pts = rl_track_points (run.track, &n);
  g_assert_cmpuint (n, <=, 101);
  g_assert_cmpuint (n, >=, 20);
  g_assert_cmpuint (rl_track_n_fixes (run.track), >=, fixes->len);
  g_assert_cmpfloat (rl_track_spacing_m (run.track), >, 0.0);
  g_assert_cmpfloat (fabs (pts[0].lon - first[0]), <, 1e-6);
  g_assert_cmpfloat (fabs (pts[n - 1].lat - last[1]), <, 1e-6);
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (pts[i].time, >=, pts[i - 1].time);
  run_clear (&run);
}

typedef struct {
  guint chains, points;
  RlCountry seen[8];
  guint n_seen;
  double s, w, n, e;
  guint inside;
} ChainCount;

static void
count_chain (RlCountry country, const double *ll, guint n, gpointer user_data)
{
  ChainCount *c = user_data;
  guint k;

  c->chains++;
  c->points += n;
  for (guint i = 0; i < n; i++)
    c->inside += ll[2 * i] >= c->w - 1 && ll[2 * i] <= c->e + 1 && ll[2 * i + 1] >= c->s - 1 && ll[2 * i + 1] <= c->n + 1;
  for (k = 0; k < c->n_seen && c->seen[k] != country; k++)
    ;
  if (k == c->n_seen && k < G_N_ELEMENTS (c->seen))
    c->seen[c->n_seen++] = country;
}

static void
test_chains (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlBoundaryIndex) index = rl_boundary_index_open (rl_boundary_index_default_path (), &error);
  ChainCount rhine = { .s = 48.5, .w = 7.7, .n = 48.7, .e = 7.9 }, sahara = { .s = 24.0, .w = 10.5, .n = 24.2, .e = 10.7 };
  gboolean de = FALSE, fr = FALSE;

  g_assert_no_error (error);
  /* the Rhine at Kehl: the DE/FR border */
  g_assert_true (rl_boundary_foreach_chain (index, rhine.s, rhine.w, rhine.n, rhine.e, count_chain, &rhine));
  g_assert_cmpuint (rhine.chains, >, 0);
  g_assert_cmpuint (rhine.inside, ==, rhine.points);
  for (guint k = 0; k < rhine.n_seen; k++)
    {
      de |= rhine.seen[k] == RL_COUNTRY ('D', 'E');
      fr |= rhine.seen[k] == RL_COUNTRY ('F', 'R');
    }
  g_assert_true (de && fr);
  /* the middle of Algeria's desert, far from any border: nothing */
  g_assert_true (rl_boundary_foreach_chain (index, sahara.s, sahara.w, sahara.n, sahara.e, count_chain, &sahara));
  g_assert_cmpuint (sahara.chains, ==, 0);
  /* an empty box */
  g_assert_true (rl_boundary_foreach_chain (index, 10, 10, 9, 9, count_chain, &sahara));
  g_assert_cmpuint (sahara.chains, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/map/svg", test_svg);
  g_test_add_func ("/map/geojson", test_geojson);
  g_test_add_func ("/map/kml", test_kml);
  g_test_add_func ("/map/bounded", test_bounded);
  g_test_add_func ("/map/chains", test_chains);
  return g_test_run ();
}
