#include "replay/scenario.h"
#include "core/engine.h"
#include "geo/boundary.h"
#include "geo/gps-evidence.h"
#include "readers/country-ie.h"
#include "readers/mcc.h"
#include "readers/nl80211-scan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (rl-scenario-error-quark, rl_scenario_error)

/* Beyond this many refused beacon lines and cell lines naming no country
 * the notes stop; the counters go on. */
#define MAX_SKIP_NOTES 20

/* A GPS line's place: the context's lookup, or what countries= / border=
 * say.  Handed to rl_gps_evidence_from_fix() in place of the boundary index,
 * so scenario fixes are judged by the same code as every other fix. */
typedef struct {
  const RlScenarioContext *ctx;
  gboolean fixed;
  RlBoundaryResult fixed_result;
} PointSource;

typedef struct {
  const char *name;
  guint line;
  GError **error;
  const RlScenarioContext *ctx;
  RlReplay *replay;
  GArray *expects;
  gint64 start;
  guint skip_notes;
  PointSource points;
  RlGpsEvidenceParams gps_params;     /* lookups through the index or @points */
  RlGpsEvidenceParams fixed_params;   /* countries= lines: @points, no cache */
  RlGpsLookupCache cache;             /* one receiver: as the live source and the log replays */
  GHashTable *heard;                  /* BSSID (guint64) → time of its last observation (gint64) */
  gboolean have_scan;                 /* a scan line came before */
  gint64 last_scan;                   /* its time */
  gint32 silent_mbm;                  /* the loudest GA beacon line sending no country since (RlEvent) */
  gint64 last_at;                     /* the latest `at` line's time; G_MININT64: none yet */
  guint last_at_line;
  gint64 end_at;                      /* the `end` line's time; G_MAXINT64: none yet */
  RlMccTable **mcc;                   /* cell lines: read at the first one */
} Parser;

static gboolean fail (const Parser *p, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (const Parser *p, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (p->error, RL_SCENARIO_ERROR, 0, "%s:%u: %s", p->name, p->line, msg);
  return FALSE;
}

/* "90", "1.5", "10s", "2m", "1h" → µs */
static gboolean
parse_offset (const char *text, gint64 *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  double mul = 1;

  if (end == text || !isfinite (v) || v < 0)
    return FALSE;
  if (*end == 's')
    end++;
  else if (*end == 'm')
    mul = 60, end++;
  else if (*end == 'h')
    mul = 3600, end++;
  if (*end != '\0' || v * mul > 1e9)
    return FALSE;
  *out = (gint64) llround (v * mul * RL_USEC_PER_SEC);
  return TRUE;
}

static gboolean
parse_double (const char *text, double lo, double hi, double *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0' || !isfinite (v) || v < lo || v > hi)
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
parse_uint (const char *text, guint lo, guint hi, guint *out)
{
  guint64 v;

  if (!g_ascii_isdigit (text[0]) || !g_ascii_string_to_unsigned (text, 10, lo, hi, &v, NULL))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* Splits a line into words at blanks.  A double quote anywhere starts a
 * quoted part that runs to the next unescaped quote and may hold blanks;
 * inside it \" is a quote and \\ a backslash.  Outside quotes a backslash is
 * an ordinary character. */
static gboolean
split_words (const Parser *p, const char *line, GPtrArray *words)
{
  const char *s = line;

  for (;;)
    {
      g_autoptr (GString) word = NULL;

      while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
      if (*s == '\0')
        break;
      word = g_string_new (NULL);
      while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\r')
        {
          if (*s != '"')
            {
              g_string_append_c (word, *s++);
              continue;
            }
          for (s++; *s != '"'; s++)
            {
              if (*s == '\0')
                return fail (p, "a quoted value is not closed (missing \")");
              if (*s == '\\')
                {
                  s++;
                  if (*s != '"' && *s != '\\')
                    return fail (p, "in quotes only \\\" and \\\\ are escapes");
                }
              g_string_append_c (word, *s);
            }
          s++;
        }
      g_ptr_array_add (words, g_string_free (g_steal_pointer (&word), FALSE));
    }
  g_ptr_array_add (words, NULL);
  return TRUE;
}

static int
option_index (const char *word, const char *const *keys)
{
  for (int i = 0; keys[i] != NULL; i++)
    {
      gsize n = strlen (keys[i]);
      if (strncmp (word, keys[i], n) == 0 && word[n] == '=')
        return i;
    }
  return -1;
}

/* Reads the key=value options of one line: @words[@first…] must all be
 * options named in @keys, each at most once; @values[i] gets the value of
 * @keys[i] or NULL.  Nothing is silently dropped: a stray word is an error
 * (most often an SSID with blanks that was not quoted). */
static gboolean
take_options (const Parser *p, const char *what, char **words, guint first, const char *const *keys,
              const char **values)
{
  for (guint i = 0; keys[i] != NULL; i++)
    values[i] = NULL;
  for (guint i = first; words[i] != NULL; i++)
    {
      int k = option_index (words[i], keys);
      if (k < 0)
        {
          if (i > first && strchr (words[i], '=') == NULL)
            return fail (p, "%s: unexpected '%s' after %s (a value with blanks must be quoted: "
                         "ssid=\"Hotel Guest\")", what, words[i], words[i - 1]);
          if (keys[0] == NULL)
            return fail (p, "%s: unexpected '%s'", what, words[i]);
          {
            g_autofree char *list = g_strjoinv ("=, ", (char **) keys);
            return fail (p, "%s: unexpected '%s' (options: %s=)", what, words[i], list);
          }
        }
      if (values[k] != NULL)
        return fail (p, "%s: %s= given twice", what, keys[k]);
      values[k] = words[i] + strlen (keys[k]) + 1;
    }
  return TRUE;
}

/* Positional words before the options. */
static guint
count_positional (char **words, const char *const *keys)
{
  guint n = 0;

  while (words[n] != NULL && option_index (words[n], keys) < 0)
    n++;
  return n;
}

static const char *const no_keys[] = { NULL };

/* ---- beacons ------------------------------------------------------------ */

enum { BAND_NONE, BAND_2G4, BAND_5G, BAND_6G };

static int
band_of_freq (guint f)
{
  if (f >= 2400 && f <= 2500)
    return BAND_2G4;
  if (f >= 4900 && f < 5925)
    return BAND_5G;
  if (f >= 5925 && f <= 7125)
    return BAND_6G;
  return BAND_NONE;
}

/* Centre frequency of @ch in @band (IEEE 802.11 channel numbering); 0 when
 * the band has no such channel. */
static guint
freq_of_channel (int band, guint ch)
{
  switch (band)
    {
    case BAND_2G4:
      if (ch >= 1 && ch <= 13)
        return 2407 + 5 * ch;
      return ch == 14 ? 2484 : 0;
    case BAND_5G:
      return ch >= 1 && ch <= 184 ? 5000 + 5 * ch : 0;
    case BAND_6G:
      if (ch == 2)
        return 5935;
      return ch >= 1 && ch <= 233 && ch % 4 == 1 ? 5950 + 5 * ch : 0;
    default:
      return 0;
    }
}

static const char *
band_name (int band)
{
  return band == BAND_2G4 ? "2.4" : band == BAND_5G ? "5" : "6";
}

/* channel=, freq= and band= → the frequency in MHz (0 = unknown). */
static gboolean
parse_radio (const Parser *p, const char *channel, const char *freq, const char *band, guint *freq_out)
{
  int b = BAND_NONE;
  guint ch = 0, f = 0;

  *freq_out = 0;
  if (band != NULL)
    {
      if (strcmp (band, "2.4") == 0)
        b = BAND_2G4;
      else if (strcmp (band, "5") == 0)
        b = BAND_5G;
      else if (strcmp (band, "6") == 0)
        b = BAND_6G;
      else
        return fail (p, "beacon: band=%s: expected 2.4, 5 or 6 (GHz)", band);
      if (channel == NULL && freq == NULL)
        return fail (p, "beacon: band= needs channel= (or checks freq=)");
    }
  if (freq != NULL)
    {
      if (!parse_uint (freq, 2400, 7125, &f) || band_of_freq (f) == BAND_NONE)
        return fail (p, "beacon: freq=%s: expected MHz in the 2.4, 5 or 6 GHz band (2412, 5180, 5955 …)", freq);
      if (b != BAND_NONE && band_of_freq (f) != b)
        return fail (p, "beacon: freq=%s is not in the %s GHz band", freq, band);
      b = band_of_freq (f);
    }
  if (channel != NULL)
    {
      guint cf;
      if (!parse_uint (channel, 1, 233, &ch))
        return fail (p, "beacon: channel=%s: expected a channel number (1, 6, 36, 149 …)", channel);
      if (b == BAND_NONE)
        {
          if (ch <= 14)
            b = BAND_2G4;
          else if (ch >= 32 && ch <= 177)
            b = BAND_5G;
          else
            return fail (p, "beacon: channel=%s: say which band (band=5 or band=6)", channel);
        }
      cf = freq_of_channel (b, ch);
      if (cf == 0)
        return fail (p, "beacon: the %s GHz band has no channel %s", band_name (b), channel);
      if (f != 0 && f != cf)
        return fail (p, "beacon: channel=%s is %u MHz, not freq=%u", channel, cf, f);
      f = cf;
    }
  *freq_out = f;
  return TRUE;
}

/* "scan [band=2.4,5,6]": a Wi-Fi scan covering those bands (all, and APs
 * of unknown band, without band=) ended at @t.  It heard the beacon lines
 * since the previous scan line (all before it, for the first); the access
 * points on its bands listed only before that are gone — as the live BSS
 * table and scan logs read a scan that no longer hears an AP. */
static gboolean
parse_scan (Parser *p, char **words, gint64 t)
{
  static const char *const keys[] = { "band", NULL };
  const char *v[G_N_ELEMENTS (keys)];
  guint bands = 0;

  if (!take_options (p, "scan", words, 0, keys, v))
    return FALSE;
  if (v[0] == NULL)
    bands = RL_BANDS_ANY;
  else
    {
      g_auto (GStrv) parts = g_strsplit (v[0], ",", -1);
      for (guint i = 0; parts[i] != NULL; i++)
        {
          if (strcmp (parts[i], "2.4") == 0)
            bands |= RL_BAND_2GHZ;
          else if (strcmp (parts[i], "5") == 0)
            bands |= RL_BAND_5GHZ;
          else if (strcmp (parts[i], "6") == 0)
            bands |= RL_BAND_6GHZ;
          else
            return fail (p, "scan: band=%s: expected 2.4, 5 and/or 6 (GHz), comma-separated", v[0]);
        }
    }
  /* the first scan heard everything listed before it */
  rl_replay_add_scan (p->replay, p->have_scan ? MIN (p->last_scan + 1, t) : G_MININT64, t, bands, p->silent_mbm);
  p->silent_mbm = 0;
  p->have_scan = TRUE;
  p->last_scan = t;
  return TRUE;
}

/* env=: the third byte of the country string. */
static gboolean
parse_environment (const char *text, guint8 *out)
{
  static const struct { const char *name; char byte; } names[] = {
    { "any", ' ' }, { "indoor", 'I' }, { "outdoor", 'O' }, { "non-country", 'X' },
  };
  guint64 v;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (text, names[i].name) == 0)
      {
        *out = (guint8) names[i].byte;
        return TRUE;
      }
  if (text[0] != '\0' && text[1] == '\0')
    {
      *out = (guint8) text[0];
      return TRUE;
    }
  if ((text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) && g_ascii_isxdigit (text[2]) &&
      g_ascii_string_to_unsigned (text + 2, 16, 0, 255, &v, NULL))
    {
      *out = (guint8) v;
      return TRUE;
    }
  return FALSE;
}

/* A subband triplet that suits the band: the parser needs one (a body of at
 * least 6 bytes) and reads none of it for the country. */
static void
put_triplet (guint8 *t, guint freq)
{
  switch (band_of_freq (freq))
    {
    case BAND_5G: t[0] = 36, t[1] = 8, t[2] = 23; break;
    case BAND_6G: t[0] = 1, t[1] = 59, t[2] = 23; break;
    default: t[0] = 1, t[1] = 13, t[2] = 20; break;
    }
}

static guint64
bssid_id (const guint8 bssid[6])
{
  guint64 id = 0;

  for (guint i = 0; i < 6; i++)
    id = id << 8 | bssid[i];
  return id;
}

/* The live BSS table's rule: a sighting within RL_BEACON_REPEAT_US of the
 * last one of the same BSS is the same observation (whatever it says), not
 * new evidence.  Counted ("scenario.repeats_merged"). */
static gboolean
same_observation (Parser *p, const guint8 bssid[6], gint64 t)
{
  guint64 id = bssid_id (bssid);
  gint64 *last = g_hash_table_lookup (p->heard, &id);

  if (last != NULL && t >= *last && t - *last < RL_BEACON_REPEAT_US)
    {
      rl_replay_count (p->replay, "scenario.repeats_merged", 1);
      return TRUE;
    }
  if (last == NULL)
    {
      guint64 *k = g_new (guint64, 1);
      *k = id;
      last = g_new (gint64, 1);
      g_hash_table_insert (p->heard, k, last);
    }
  *last = t;
  return FALSE;
}

/* The elements an AP would send: SSID, then Country (the two characters,
 * the environment byte, one triplet).  The real parser reads them, so a
 * scenario and the air can never disagree on what counts. */
static gsize
build_ies (guint8 ies[2 + 32 + 2 + 6], const char *ssid, gsize ssid_len, const char cc[2], guint8 env, guint freq)
{
  gsize n = 0;

  if (ssid != NULL)
    {
      ies[n++] = RL_IE_SSID;
      ies[n++] = (guint8) ssid_len;
      memcpy (ies + n, ssid, ssid_len);
      n += ssid_len;
    }
  ies[n++] = RL_IE_COUNTRY;
  ies[n++] = 6;
  ies[n++] = (guint8) cc[0];
  ies[n++] = (guint8) cc[1];
  ies[n++] = env;
  put_triplet (ies + n, freq);
  return n + 3;
}

/* A country string the parser refuses: no vote, counted and noted.  As the
 * live BSS table does, an AP that stops advertising a usable country no
 * longer votes for the one it named before. */
static void
refuse_beacon (Parser *p, const guint8 bssid[6], gint64 t, const char cc[2], guint8 env, RlCountryIeResult res)
{
  g_autofree char *counter = g_strconcat ("scenario.skipped.", rl_country_ie_result_to_string (res), NULL);
  char key[RL_BEACON_KEY_LEN], text[18], envbuf[48];

  rl_bssid_to_string (bssid, text);
  rl_beacon_key (bssid, key);
  rl_replay_add_withdraw (p->replay, t, key);
  rl_replay_count (p->replay, counter, 1);
  if (p->skip_notes++ < MAX_SKIP_NOTES)
    rl_replay_note (p->replay, "%s:%u: AP %s: country string '%c%c' (%s) is no country (%s): no vote", p->name,
                    p->line, text, g_ascii_isprint (cc[0]) ? cc[0] : '?', g_ascii_isprint (cc[1]) ? cc[1] : '?',
                    rl_country_ie_environment_to_string ((char) env, envbuf, sizeof envbuf),
                    rl_country_ie_result_to_string (res));
}

static gboolean
parse_beacon (Parser *p, char **words, gint64 t)
{
  static const char *const keys[] = { "ssid", "signal", "env", "channel", "freq", "band", NULL };
  enum { K_SSID, K_SIGNAL, K_ENV, K_CHANNEL, K_FREQ, K_BAND };
  const char *v[G_N_ELEMENTS (keys)];
  guint8 bssid[6], ies[2 + 32 + 2 + 6], env = ' ';
  gsize n_ies, ssid_len = 0;
  gint32 signal_mbm = 0;
  guint freq = 0;
  RlEvidence ev;
  RlCountryIeResult res;

  if (words[0] == NULL || !rl_bssid_parse (words[0], bssid))
    return fail (p, "beacon: expected a BSSID like 3c:a6:2f:01:02:03");
  if (words[1] == NULL || option_index (words[1], keys) >= 0 || strlen (words[1]) != 2)
    return fail (p, "beacon: expected the two characters of the advertised country string after the BSSID "
                 "(DE, de, XX, 00 …)");
  if (!take_options (p, "beacon", words, 2, keys, v))
    return FALSE;
  if (v[K_SSID] != NULL && (ssid_len = strlen (v[K_SSID])) > 32)
    return fail (p, "beacon: ssid is %zu bytes; a beacon carries at most 32", ssid_len);
  if (v[K_SIGNAL] != NULL)
    {
      double dbm;
      if (!parse_double (v[K_SIGNAL], -150, 30, &dbm))
        return fail (p, "beacon: signal=%s: expected dBm (-150 … 30)", v[K_SIGNAL]);
      signal_mbm = (gint32) lround (dbm * 100);
    }
  if (v[K_ENV] != NULL && !parse_environment (v[K_ENV], &env))
    return fail (p, "beacon: env=%s: expected I, O, X, \" \", any, indoor, outdoor, non-country "
                 "or a byte 0x00…0xff", v[K_ENV]);
  if (!parse_radio (p, v[K_CHANNEL], v[K_FREQ], v[K_BAND], &freq))
    return FALSE;

  if (same_observation (p, bssid, t))
    return TRUE;

  n_ies = build_ies (ies, v[K_SSID], ssid_len, words[1], env, freq);
  res = rl_beacon_evidence_build (&ev, bssid, signal_mbm, freq, ies, n_ies, NULL, 0, t,
                                  p->ctx->config->policy.max_age_s[RL_SOURCE_BEACON]);
  if (res == RL_COUNTRY_IE_OK)
    rl_replay_add_evidence (p->replay, &ev);
  else
    {
      refuse_beacon (p, bssid, t, words[1], env, res);
      rl_keep_silent (&p->silent_mbm, bssid, signal_mbm);
    }
  return TRUE;
}

/* ---- GPS ------------------------------------------------------------------ */

static gboolean
point_source_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  /* not an index: the PointSource that init_gps_params() passed in its place */
  const PointSource *ps = (const PointSource *) (const void *) index;

  if (ps->fixed)
    {
      *out = ps->fixed_result;
      return TRUE;
    }
  memset (out, 0, sizeof *out);
  out->country = RL_COUNTRY_NONE;
  out->border_m = -1;
  out->neighbour = RL_COUNTRY_NONE;
  return ps->ctx->lookup (ps->ctx->lookup_data, lat, lon, &out->country, &out->border_m, &out->neighbour);
}

static void
init_gps_params (Parser *p)
{
  const RlScenarioContext *ctx = p->ctx;

  p->points.ctx = ctx;
  rl_gps_evidence_params_init (&p->fixed_params, ctx->config, point_source_lookup,
                               (const RlBoundaryIndex *) (const void *) &p->points);
  /* over the boundary index: the very lookup the GPS log replays use */
  if (ctx->lookup == rl_scenario_boundary_lookup && ctx->lookup_data != NULL)
    rl_gps_evidence_params_init (&p->gps_params, ctx->config, rl_boundary_lookup, ctx->lookup_data);
  else
    p->gps_params = p->fixed_params;
}

static gboolean
parse_countries (const char *text, RlEvidence *ev)
{
  g_auto (GStrv) parts = NULL;

  if (strcmp (text, "sea") == 0)
    return TRUE;
  parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      RlCountry c;
      if (!rl_country_parse (parts[i], &c) || c == RL_COUNTRY_WORLD)
        return FALSE;
      rl_evidence_add_country (ev, c);
    }
  return ev->n_countries > 0;
}

static gboolean
parse_gps (Parser *p, char **words, gint64 t)
{
  static const char *const keys[] = { "error", "hdop", "alt", "speed", "countries", "border", NULL };
  enum { K_ERROR, K_HDOP, K_ALT, K_SPEED, K_COUNTRIES, K_BORDER };
  const char *v[G_N_ELEMENTS (keys)];
  RlGpsFix fix;
  RlEvidence ev, listed;
  double kmh, border = -1;

  if (g_strcmp0 (words[0], "lost") == 0)
    {
      /* the receiver lost its fix (gpsd mode < 2, NMEA status V): its item goes */
      if (!take_options (p, "gps lost", words, 1, no_keys, v))
        return FALSE;
      rl_replay_add_withdraw (p->replay, t, "gps");
      return TRUE;
    }
  rl_gps_fix_init (&fix);
  fix.time = t;
  fix.flags = RL_GPS_FIX_HAS_DATE;
  if (count_positional (words, keys) != 2 || !parse_double (words[0], -90, 90, &fix.lat) ||
      !parse_double (words[1], -180, 180, &fix.lon))
    return fail (p, "gps: expected LAT LON in degrees (-90..90, -180..180) or 'lost'");
  if (!take_options (p, "gps", words, 2, keys, v))
    return FALSE;
  if (v[K_ERROR] != NULL && !parse_double (v[K_ERROR], 0, 1e6, &fix.eph))
    return fail (p, "gps: error=%s: expected metres", v[K_ERROR]);
  if (v[K_HDOP] != NULL && (!parse_double (v[K_HDOP], 0, 100, &fix.hdop) || fix.hdop <= 0))
    return fail (p, "gps: hdop=%s: expected a dilution above 0 (0.8, 1.2, 5 …)", v[K_HDOP]);
  if (v[K_ALT] != NULL && !parse_double (v[K_ALT], -1000, 100000, &fix.altitude_m))
    return fail (p, "gps: alt=%s: expected metres above sea level (-1000 … 100000)", v[K_ALT]);
  if (v[K_SPEED] != NULL)
    {
      if (!parse_double (v[K_SPEED], 0, 100000, &kmh))
        return fail (p, "gps: speed=%s: expected km/h (0 … 100000)", v[K_SPEED]);
      fix.speed_mps = kmh / 3.6;
    }
  if (v[K_BORDER] != NULL && !parse_double (v[K_BORDER], 0, 1e8, &border))
    return fail (p, "gps: border=%s: expected metres", v[K_BORDER]);
  fix.mode = isfinite (fix.altitude_m) ? 3 : 2;

  /* what a receiver says before its first fix is skipped as the GPS
   * readers skip it */
  if (rl_gps_fix_judge (&fix) == RL_GPS_REJECT_NULL_ISLAND)
    {
      rl_replay_count (p->replay, "gps.rejected.null_island", 1);
      return TRUE;
    }
  if (v[K_COUNTRIES] != NULL)
    {
      /* the place as written: the fix is judged as any other, then its
       * candidate set is exactly the list */
      rl_evidence_init (&listed, RL_SOURCE_GPS, "gps", t, t);
      if (!parse_countries (v[K_COUNTRIES], &listed))
        return fail (p, "gps: countries=%s: expected CC[,CC…] or sea", v[K_COUNTRIES]);
      p->points.fixed = TRUE;
      p->points.fixed_result.country = listed.n_countries > 0 ? listed.countries[0] : RL_COUNTRY_NONE;
      p->points.fixed_result.neighbour = listed.n_countries > 1 ? listed.countries[1] : RL_COUNTRY_NONE;
      p->points.fixed_result.border_m = border;
      if (!rl_gps_evidence_from_fix (&p->fixed_params, &fix, t, &ev))
        return fail (p, "gps: the fix was refused");
      ev.n_countries = 0;
      for (guint i = 0; i < listed.n_countries; i++)
        rl_evidence_add_country (&ev, listed.countries[i]);
    }
  else
    {
      if (p->ctx->lookup == NULL)
        return fail (p, "gps: countries= is needed when no boundary index is loaded");
      if (v[K_BORDER] != NULL)
        return fail (p, "gps: border= only goes with countries= (the boundary index measures it)");
      p->points.fixed = FALSE;
      if (!rl_gps_evidence_from_fix_cached (&p->gps_params, &p->cache, &fix, t, &ev))
        return fail (p, "gps: no boundary index to look up %.5f %.5f; give countries=", fix.lat, fix.lon);
    }
  rl_replay_add_evidence (p->replay, &ev);
  return TRUE;
}

/* ---- events and expectations --------------------------------------------- */

/* An AP removed by hand is gone from the table: its next sighting is new. */
static void
forget_bssid (Parser *p, const guint8 bssid[6])
{
  guint64 id = bssid_id (bssid);

  g_hash_table_remove (p->heard, &id);
}

/* ---- the mobile network ------------------------------------------------- */

/* cell MCC[-MNC] [modem=N] | cell lost [modem=N]: what the modem source
 * reports (readers/mcc.h maps the code to countries, as live). */
static gboolean
parse_cell (Parser *p, char **words, gint64 t)
{
  static const char *const keys[] = { "modem", NULL };
  const char *v[G_N_ELEMENTS (keys)];
  char key[48], mnc[4];
  guint mcc, modem = 0;
  RlEvidence ev;
  const char *providers = p->ctx->config->cell_providers ? p->ctx->config->cell_providers : RL_MCC_DEFAULT_PROVIDERS;

  if (words[0] == NULL || option_index (words[0], keys) >= 0)
    return fail (p, "cell: expected MCC, MCC-MNC (262, 262-01) or 'lost'");
  if (!take_options (p, "cell", words, 1, keys, v))
    return FALSE;
  if (v[0] != NULL && !parse_uint (v[0], 0, 999, &modem))
    return fail (p, "cell: modem=%s: expected a modem number (0 … 999)", v[0]);
  g_snprintf (key, sizeof key, "cell:%u", modem);
  if (strcmp (words[0], "lost") == 0)
    {
      /* out of service, emergency only, modem disabled or gone */
      rl_replay_add_withdraw (p->replay, t, key);
      return TRUE;
    }
  if (!rl_mcc_parse_network (words[0], &mcc, mnc))
    return fail (p, "cell: '%s': expected MCC, MCC-MNC (262, 262-01) or 'lost'", words[0]);
  if (*p->mcc == NULL)
    {
      g_autoptr (GError) error = NULL;
      *p->mcc = rl_mcc_table_load (providers, &error);
      if (*p->mcc == NULL)
        return fail (p, "cell: no mobile network codes (Debian package mobile-broadband-provider-info): %s",
                     error->message);
    }
  if (rl_mcc_evidence (*p->mcc, key, mcc, mnc, t, rl_expiry_after (t, p->ctx->config->policy.max_age_s[RL_SOURCE_CELL]), &ev))
    {
      rl_replay_add_evidence (p->replay, &ev);
      /* a code the list does not know, or a network of a known code it
       * does not carry: kept, naming no country */
      if (ev.cell.unknown || ev.cell.unlisted)
        {
          rl_replay_count (p->replay, ev.cell.unknown ? "scenario.cell.unknown_code" : "scenario.cell.unlisted_network", 1);
          if (p->skip_notes++ < MAX_SKIP_NOTES)
            rl_replay_note (p->replay, "%s:%u: cell %s: the mobile network codes (%s) %s: it names no country, but "
                            "access points far from %s conflict with it (docs/policy.md rule 12)", p->name, p->line,
                            words[0], providers,
                            ev.cell.unknown ? "do not know it" : "do not carry this network of a code they know",
                            ev.cell.unknown ? "the countries of the codes next to it" : "the code's countries");
        }
    }
  else
    {
      /* 901, 001 and 999 name no country */
      rl_replay_add_withdraw (p->replay, t, key);
      rl_replay_count (p->replay, "scenario.cell.names_no_country", 1);
      if (p->skip_notes++ < MAX_SKIP_NOTES)
        rl_replay_note (p->replay, "%s:%u: cell %s: the mobile network codes (%s) name no country for it: "
                        "the modem's item is withdrawn", p->name, p->line, words[0],
                        providers);
    }
  return TRUE;
}

/* A wiphy or driver name: printable ASCII, as the kernel names them. */
static gboolean
printable_word (const char *w, gsize max)
{
  gsize n = 0;

  for (; w[n] != '\0'; n++)
    if (!g_ascii_isgraph (w[n]) || n >= max)
      return FALSE;
  return n > 0;
}

/* driver CC [radio=phy0] [name=iwlwifi] | driver lost [radio=phy0]: a
 * self-managed card's own country, as the applier reports it live. */
static gboolean
parse_driver (Parser *p, char **words, gint64 t)
{
  static const char *const keys[] = { "radio", "name", NULL };
  const char *v[G_N_ELEMENTS (keys)];
  const char *phy;
  char key[48];
  RlCountry c = RL_COUNTRY_NONE;
  RlEvidence ev;

  if (words[0] == NULL || option_index (words[0], keys) >= 0)
    return fail (p, "driver: expected two letters (the card's country) or 'lost'");
  if (!take_options (p, "driver", words, 1, keys, v))
    return FALSE;
  phy = v[0] ? v[0] : "phy0";
  if (!printable_word (phy, 31) || strchr (phy, ':') != NULL)
    return fail (p, "driver: radio=: expected a wiphy name like phy0 (printable ASCII, at most 31 characters)");
  if (v[1] != NULL && !printable_word (v[1], 31))
    return fail (p, "driver: name=: expected a driver name like iwlwifi (printable ASCII, at most 31 characters)");
  g_snprintf (key, sizeof key, "driver:%s", phy);
  if (strcmp (words[0], "lost") == 0)
    {
      rl_replay_add_withdraw (p->replay, t, key);
      return TRUE;
    }
  if (!rl_country_parse (words[0], &c))
    return fail (p, "driver: '%s': expected two letters, 00 or 'lost'", words[0]);
  if (rl_driver_evidence (&ev, phy, v[1] ? v[1] : "", c, t,
                          p->ctx->config->policy.max_age_s[RL_SOURCE_DRIVER]))
    rl_replay_add_evidence (p->replay, &ev);
  else
    rl_replay_add_withdraw (p->replay, t, key);   /* 00 names no place */
  return TRUE;
}

static gboolean
parse_event (Parser *p, char **words, gint64 t)
{
  const char *what = words[0];
  const char *v[1];
  RlEvidence ev;

  if (what == NULL)
    return fail (p, "expected an event after the time");
  words++;
  if (strcmp (what, "gps") == 0)
    return parse_gps (p, words, t);
  if (strcmp (what, "beacon") == 0)
    return parse_beacon (p, words, t);
  if (strcmp (what, "cell") == 0)
    return parse_cell (p, words, t);
  if (strcmp (what, "driver") == 0)
    return parse_driver (p, words, t);
  if (strcmp (what, "timezone") == 0)
    {
      if (words[0] == NULL)
        return fail (p, "timezone: expected a zone name like Europe/Berlin");
      if (!take_options (p, "timezone", words, 1, no_keys, v))
        return FALSE;
      if (p->ctx->tzmap == NULL)
        return fail (p, "timezone: the tzdata tables could not be read");
      if (rl_tzmap_evidence (p->ctx->tzmap, words[0], t,
                             rl_expiry_after (t, p->ctx->config->policy.max_age_s[RL_SOURCE_TIMEZONE]), &ev))
        rl_replay_add_evidence (p->replay, &ev);
      else
        {
          rl_replay_add_withdraw (p->replay, t, "timezone");   /* UTC & co. name no country */
          if (!rl_tzmap_knows (p->ctx->tzmap, words[0]))
            {
              /* a typo names no country either, but should not pass unsaid */
              rl_replay_count (p->replay, "scenario.timezone.unknown_zone", 1);
              if (p->skip_notes++ < MAX_SKIP_NOTES)
                rl_replay_note (p->replay, "%s:%u: timezone %s is no zone of the installed tzdata (a typo?): "
                                "no country from it", p->name, p->line, words[0]);
            }
        }
      return TRUE;
    }
  if (strcmp (what, "override") == 0)
    {
      RlCountry c;
      if (words[0] == NULL || (strcmp (words[0], "clear") != 0 && !rl_country_parse (words[0], &c)))
        return fail (p, "override: expected two letters, 00 or clear");
      if (!take_options (p, "override", words, 1, no_keys, v))
        return FALSE;
      if (strcmp (words[0], "clear") == 0)
        {
          rl_replay_add_withdraw (p->replay, t, "override");
          return TRUE;
        }
      rl_evidence_init (&ev, RL_SOURCE_OVERRIDE, "override", t,
                        rl_expiry_after (t, p->ctx->config->policy.max_age_s[RL_SOURCE_OVERRIDE]));
      rl_evidence_add_country (&ev, c);
      g_snprintf (ev.detail, sizeof ev.detail, "override %s", words[0]);
      rl_replay_add_evidence (p->replay, &ev);
      return TRUE;
    }
  if (strcmp (what, "remove") == 0)
    {
      RlSourceKind kind;
      guint8 bssid[6];
      if (g_strcmp0 (words[0], "beacon") == 0)
        {
          char key[RL_BEACON_KEY_LEN];
          if (words[1] == NULL || !rl_bssid_parse (words[1], bssid))
            return fail (p, "remove beacon: expected a BSSID like 3c:a6:2f:01:02:03");
          if (!take_options (p, "remove beacon", words, 2, no_keys, v))
            return FALSE;
          rl_beacon_key (bssid, key);
          rl_replay_add_withdraw (p->replay, t, key);
          forget_bssid (p, bssid);
          return TRUE;
        }
      if (words[0] == NULL || !rl_source_kind_from_string (words[0], &kind))
        return fail (p, "remove: expected 'beacon BSSID' or a source (beacons, gps, timezone, override, cell, driver)");
      if (!take_options (p, "remove", words, 1, no_keys, v))
        return FALSE;
      rl_replay_add_withdraw_kind (p->replay, t, kind);
      if (kind == RL_SOURCE_BEACON)
        g_hash_table_remove_all (p->heard);
      return TRUE;
    }
  if (strcmp (what, "scan") == 0)
    return parse_scan (p, words, t);
  if (strcmp (what, "resume") == 0 || strcmp (what, "check") == 0)
    {
      if (!take_options (p, what, words, 0, no_keys, v))
        return FALSE;
      if (what[0] == 'r')
        rl_replay_add_resume (p->replay, t);
      else
        rl_replay_add_tick (p->replay, t);
      return TRUE;
    }
  return fail (p, "unknown event '%s': expected gps, beacon, cell, driver, timezone, override, remove, scan, resume or check", what);
}

/* CC [STATE|any [REASON]] */
static gboolean
parse_expect (Parser *p, const char *what, char **words, RlScenarioExpectKind kind, gint64 t)
{
  RlScenarioExpect e = { .time = t, .line = p->line, .kind = kind, .start = p->start };
  const char *v[1];

  if (words[0] == NULL || !rl_country_parse (words[0], &e.country))
    return fail (p, "%s: expected a country (two letters or 00)", what);
  if (words[1] != NULL && strcmp (words[1], "any") != 0)
    {
      if (!rl_state_from_string (words[1], &e.state))
        return fail (p, "%s: expected a state (world, tentative, decided, override, conflict or any), not '%s'",
                     what, words[1]);
      e.has_state = TRUE;
    }
  if (words[1] != NULL && words[2] != NULL)
    {
      if (!rl_reason_from_string (words[2], &e.reason))
        return fail (p, "%s: unknown reason '%s'", what, words[2]);
      e.has_reason = TRUE;
      if (!take_options (p, what, words, 3, no_keys, v))
        return FALSE;
    }
  g_array_append_val (p->expects, e);
  return TRUE;
}

static gboolean
parse_line (Parser *p, char **words, gboolean *seen_event, gboolean *settle)
{
  const char *v[1];
  gint64 off;

  if (strcmp (words[0], "start") == 0)
    {
      g_autoptr (GDateTime) dt = words[1] ? g_date_time_new_from_iso8601 (words[1], NULL) : NULL;
      if (dt == NULL || *seen_event)
        return fail (p, "start: expected one ISO 8601 time with zone (2026-05-01T10:00:00Z) before any event");
      if (!take_options (p, "start", words, 2, no_keys, v))
        return FALSE;
      p->start = g_date_time_to_unix (dt) * RL_USEC_PER_SEC;
      return TRUE;
    }
  if (strcmp (words[0], "expect") == 0)
    return parse_expect (p, "expect", words + 1, RL_SCENARIO_EXPECT_FINAL, RL_NEVER);
  if (strcmp (words[0], "expect-never") == 0)
    return parse_expect (p, "expect-never", words + 1, RL_SCENARIO_EXPECT_NEVER, RL_NEVER);
  if (words[1] == NULL || !parse_offset (words[1], &off))
    {
      if (strcmp (words[0], "at") != 0 && strcmp (words[0], "expect-at") != 0 &&
          strcmp (words[0], "expect-within") != 0 && strcmp (words[0], "end") != 0)
        return fail (p, "unknown line '%s': expected start, at, expect, expect-at, expect-within, expect-never "
                     "or end", words[0]);
      return fail (p, "%s: expected seconds from the start (90, 1.5, 10s, 2m, 1h)", words[0]);
    }
  if (strcmp (words[0], "at") == 0)
    {
      *seen_event = TRUE;
      if (p->start + off > p->end_at)
        return fail (p, "at %s: after the end line; a replay ends at its last event, so end must come last in time",
                     words[1]);
      if (p->start + off >= p->last_at)
        p->last_at = p->start + off, p->last_at_line = p->line;
      return parse_event (p, words + 2, p->start + off);
    }
  if (strcmp (words[0], "expect-at") == 0 || strcmp (words[0], "expect-within") == 0)
    {
      gboolean at = words[0][7] == 'a';
      /* the engine evaluates at T, so what falls due by then (a hold-down,
       * an expiry) has happened */
      rl_replay_add_tick (p->replay, p->start + off);
      return parse_expect (p, words[0], words + 2, at ? RL_SCENARIO_EXPECT_AT : RL_SCENARIO_EXPECT_WITHIN,
                           p->start + off);
    }
  if (strcmp (words[0], "end") == 0)
    {
      if (!take_options (p, "end", words, 2, no_keys, v))
        return FALSE;
      if (p->start + off < p->last_at)
        return fail (p, "end %s: before the event of line %u; a replay ends at its last event, so end must come "
                     "last in time", words[1], p->last_at_line);
      p->end_at = p->start + off;
      rl_replay_add_tick (p->replay, p->start + off);
      *settle = FALSE;
      return TRUE;
    }
  return fail (p, "unknown line '%s': expected start, at, expect, expect-at, expect-within, expect-never or end",
               words[0]);
}

gboolean
rl_scenario_parse (const char *text, const char *name, const RlScenarioContext *ctx,
                   RlReplay *replay, GArray *expects, gboolean *settle, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GDateTime) start_dt = g_date_time_new_utc (2026, 1, 1, 0, 0, 0);
  g_autofree Parser *p = g_new0 (Parser, 1);
  g_autoptr (GHashTable) heard = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (RlMccTable) mcc = NULL;
  gboolean seen_event = FALSE;

  p->name = name;
  p->last_at = G_MININT64;
  p->end_at = G_MAXINT64;
  p->mcc = &mcc;
  p->error = error;
  p->ctx = ctx;
  p->replay = replay;
  p->expects = expects;
  p->start = g_date_time_to_unix (start_dt) * RL_USEC_PER_SEC;
  p->heard = heard;
  init_gps_params (p);
  *settle = TRUE;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      g_autoptr (GPtrArray) words = g_ptr_array_new_with_free_func (g_free);

      p->line = i + 1;
      if (line[0] == '\0' || line[0] == '#')
        continue;
      if (!split_words (p, line, words))
        return FALSE;
      if (!parse_line (p, (char **) words->pdata, &seen_event, settle))
        return FALSE;
    }
  return TRUE;
}

/* ---- checking ------------------------------------------------------------- */

typedef struct {
  gint64 time;
  RlCountry country;
  RlState state;
  RlReason reason;
} InForce;

/* The decision in force at @time (RL_NEVER: the last one), from the
 * timeline; before its first entry the machine is on 00, world, no evidence. */
static InForce
in_force_at (const GArray *tl, gint64 time)
{
  InForce f = { G_MININT64, RL_COUNTRY_WORLD, RL_STATE_WORLD, RL_REASON_NO_EVIDENCE };

  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (time != RL_NEVER && e->time > time)
        break;
      f = (InForce) { e->time, e->country, e->state, e->reason };
    }
  return f;
}

static gboolean
matches (const RlScenarioExpect *x, const InForce *f)
{
  return f->country == x->country && (!x->has_state || f->state == x->state) &&
         (!x->has_reason || f->reason == x->reason);
}

/* "90s", "1.5s" from the start; "the start" before it */
static const char *
offset_text (const RlScenarioExpect *x, gint64 time, char *buf, gsize len)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  if (time <= x->start)
    return g_strlcpy (buf, "0s", len), buf;
  g_ascii_formatd (num, sizeof num, "%.6g", (double) (time - x->start) / RL_USEC_PER_SEC);
  g_snprintf (buf, len, "%ss", num);
  return buf;
}

static void
describe_expect (GString *out, const RlScenarioExpect *x)
{
  char cc[3];

  g_string_append (out, rl_country_to_string (x->country, cc));
  if (x->has_state || x->has_reason)
    g_string_append_printf (out, " %s", x->has_state ? rl_state_to_string (x->state) : "any");
  if (x->has_reason)
    g_string_append_printf (out, " %s", rl_reason_to_string (x->reason));
}

static void
describe_in_force (GString *out, const InForce *f)
{
  char cc[3];

  g_string_append_printf (out, "%s %s %s", rl_country_to_string (f->country, cc), rl_state_to_string (f->state),
                          rl_reason_to_string (f->reason));
}

/* expect-within / expect-never: every decision in force from the start to
 * @until (RL_NEVER: the end); the first that matches, if any. */
static gboolean
first_match (const GArray *tl, const RlScenarioExpect *x, gint64 until, InForce *found)
{
  InForce f = { x->start, RL_COUNTRY_WORLD, RL_STATE_WORLD, RL_REASON_NO_EVIDENCE };

  /* the implicit 00 before the first evaluation, unless that replaced it at once */
  if ((tl->len == 0 || g_array_index (tl, RlTimelineEntry, 0).time > x->start) && matches (x, &f))
    {
      *found = f;
      return TRUE;
    }
  for (guint i = 0; i < tl->len; i++)
    {
      const RlTimelineEntry *e = &g_array_index (tl, RlTimelineEntry, i);
      if (until != RL_NEVER && e->time > until)
        break;
      f = (InForce) { e->time, e->country, e->state, e->reason };
      if (matches (x, &f))
        {
          *found = f;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
check_one (const RlReplay *replay, const RlScenarioExpect *x, GString *line)
{
  const GArray *tl = rl_replay_timeline (replay);
  char a[24], b[24];
  InForce f;
  gboolean ok;

  switch (x->kind)
    {
    case RL_SCENARIO_EXPECT_WITHIN:
      ok = first_match (tl, x, x->time, &f);
      g_string_append (line, "expected ");
      describe_expect (line, x);
      g_string_append_printf (line, " within %s", offset_text (x, x->time, a, sizeof a));
      if (ok)
        g_string_append_printf (line, ": from %s", offset_text (x, f.time, b, sizeof b));
      else
        {
          InForce then = in_force_at (tl, x->time);
          g_string_append (line, ", got ");
          describe_in_force (line, &then);
          g_string_append_printf (line, " at %s", a);
          if (first_match (tl, x, RL_NEVER, &f))
            g_string_append_printf (line, " (reached only at %s)", offset_text (x, f.time, b, sizeof b));
          else
            g_string_append (line, " (never reached)");
        }
      return ok;
    case RL_SCENARIO_EXPECT_NEVER:
      ok = !first_match (tl, x, RL_NEVER, &f);
      g_string_append (line, "expected never ");
      describe_expect (line, x);
      if (!ok)
        {
          g_string_append (line, ", got ");
          describe_in_force (line, &f);
          g_string_append_printf (line, " at %s", offset_text (x, f.time, a, sizeof a));
        }
      return ok;
    case RL_SCENARIO_EXPECT_AT:
    case RL_SCENARIO_EXPECT_FINAL:
    default:
      if (x->kind == RL_SCENARIO_EXPECT_AT)
        f = in_force_at (tl, x->time);
      else
        {
          const RlDecision *fin = rl_replay_final (replay);
          f = (InForce) { RL_NEVER, fin->country, fin->state, fin->reason };
        }
      ok = matches (x, &f);
      g_string_append (line, "expected ");
      describe_expect (line, x);
      if (x->kind == RL_SCENARIO_EXPECT_AT)
        g_string_append_printf (line, " at %s", offset_text (x, x->time, a, sizeof a));
      g_string_append (line, ", got ");
      describe_in_force (line, &f);
      return ok;
    }
}

guint
rl_scenario_check (const RlReplay *replay, const GArray *expects, GString *report)
{
  guint failed = 0;

  for (guint i = 0; i < expects->len; i++)
    {
      const RlScenarioExpect *x = &g_array_index (expects, RlScenarioExpect, i);
      g_autoptr (GString) line = g_string_new (NULL);
      gboolean ok = check_one (replay, x, line);

      if (!ok)
        failed++;
      g_string_append_printf (report, "%s line %u: %s\n", ok ? "ok  " : "FAIL", x->line, line->str);
    }
  return failed;
}

gboolean
rl_scenario_boundary_lookup (gpointer data, double lat, double lon, RlCountry *country, double *border_m,
                             RlCountry *neighbour)
{
  RlBoundaryResult r;

  if (data == NULL || !rl_boundary_lookup (data, lat, lon, &r))
    return FALSE;
  *country = r.country;
  *border_m = r.border_m;
  *neighbour = r.neighbour;
  return TRUE;
}
