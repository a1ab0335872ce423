#include "replay/replay-gps.h"

#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include "readers/nmea.h"
#include "readers/gpsd-json.h"
#include "readers/gpx.h"

G_DEFINE_QUARK (rl-replay-gps-error-quark, rl_replay_gps_error)

/* Logs with a time of day and no date anywhere are counted from this day
 * unless --date or the other inputs say otherwise; the summary says so. */
#define ARBITRARY_YEAR 2000

#define DAY_US (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC)
/* A GPS receiver counts weeks in 10 bits: one whose firmware did not
 * expect the rollover (the last on 2019-04-06) dates every fix 1024 weeks
 * early, to the day and second. */
#define ROLLOVER_US (G_GINT64_CONSTANT (1024) * 7 * DAY_US)
/* A log dated this much before the other inputs is no part of their trip. */
#define FAR_BEFORE_US (365 * DAY_US)
/* A log with a time of day only goes on the day that puts it nearest the
 * other inputs only when every other day puts it at least this much
 * further away: else which day it was is not clear. */
#define NEAREST_DAY_MARGIN_US (G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC)

const char *
rl_gps_detect_format (const char *data, gsize len)
{
  gsize banner;

  if (rl_gpx_sniff (data, len))
    return "gpx";
  if (rl_gpsd_json_sniff (data, len))
    return "gpsd";
  /* `gpspipe -r` copies gpsd's socket as it is: its JSON banner comes
   * before the NMEA, and may be longer than NMEA sniffing looks */
  banner = rl_gpsd_json_banner_length (data, len);
  if (rl_nmea_sniff (data + banner, len - banner))
    return "nmea";
  return NULL;
}

static gboolean
parse_date_arg (const char *date, gint64 *out, GError **error)
{
  int y, m, d;
  char tail;

  if (sscanf (date, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || strlen (date) != 10 ||
      !rl_gps_civil_to_us (y, m, d, out))
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE,
                   "'%s' is not a date (expected YYYY-MM-DD, from 1970 on)", date);
      return FALSE;
    }
  return TRUE;
}

/* Counts @n as "@format.@what"; @always: also when it is 0. */
static void
count_named (RlReplay *replay, const char *format, const char *what, guint64 n, gboolean always)
{
  char name[64];

  if (n == 0 && !always)
    return;
  g_snprintf (name, sizeof name, "%s.%s", format, what);
  rl_replay_count (replay, name, n);
}

static void
count_stats (RlReplay *replay, const char *format, const RlGpsParseStats *stats)
{
  count_named (replay, format, "records", stats->records, TRUE);
  count_named (replay, format, "ignored", stats->ignored, TRUE);
  count_named (replay, format, "noise_bytes", stats->noise_bytes, FALSE);
  count_named (replay, format, "comment_lines", stats->comments, FALSE);
  count_named (replay, format, "gnsslogger_records", stats->gnsslogger, FALSE);
  count_named (replay, format, "gpspipe_time_lines", stats->timestamped, FALSE);
  for (guint i = 0; i < RL_GPS_N_REJECTS; i++)
    count_named (replay, "gps.rejected", rl_gps_reject_to_string (i), stats->rejected[i], FALSE);
}

/* ---- one GPS file as a stream of evidence ------------------------------ */

typedef enum { FMT_NMEA, FMT_GPSD, FMT_GPX } Format;

/* Real logs whose clock is broken, replayed in file order (see below). */
typedef enum {
  TIME_OK,
  TIME_IDENTICAL,   /* every fix stamped with the same time */
  TIME_PRE_1970,    /* times before the epoch: a clock counted back from 0 */
  TIME_GPX_META,    /* GPX points without time, the document's metadata has one */
} TimeTrouble;

typedef struct {
  RlEventStream stream;
  RlReplay *replay;
  char *file;                     /* name for notes and errors */
  Format format;
  const char *format_name;
  GBytes *bytes;                  /* what the readers read (a copy or the mapping) */
  GMappedFile *map;               /* the file, when it is mapped */
  gsize released;                 /* mapped bytes handed back to the kernel */
  RlNmeaReader *nmea;
  RlGpsdJsonReader *gpsd;
  RlGpxReader *gpx;
  RlGpsEvidenceParams params;
  double max_error_m;
  RlGpsLookupCache cache;
  char *date;                     /* --date, or NULL */
  gint64 base;                    /* midnight UTC the undated fixes count from */
  gboolean undated;               /* the file never says the date */
  gboolean dated_by_others;       /* @base is the day nearest the other inputs, */
  gint64 others_first, others_last;   /* which span this */
  gboolean has_first;             /* the probe saw a fix: */
  gint64 first;                   /* its time (a dated log), or time of day (undated) */
  gint64 shift;                   /* added to every time: a week rollover undone */
  guint64 shifted;                /* fixes moved so (gps.week_rollover_moved) */
  gpointer note_slot;
  RlEvent event;
  guint64 used, inaccurate, outside, null_island;
  /* file order */
  TimeTrouble trouble;
  gboolean have_prev;
  gint64 raw_first, prev;
} GpsStream;

static gboolean
reader_next (GpsStream *g, RlGpsFix *fix)
{
  switch (g->format)
    {
    case FMT_NMEA:
      return rl_nmea_reader_next (g->nmea, fix);
    case FMT_GPSD:
      return rl_gpsd_json_reader_next (g->gpsd, fix);
    case FMT_GPX:
    default:
      return rl_gpx_reader_next (g->gpx, fix);
    }
}

static const RlGpsParseStats *
reader_stats (GpsStream *g)
{
  switch (g->format)
    {
    case FMT_NMEA:
      return rl_nmea_reader_stats (g->nmea);
    case FMT_GPSD:
      return rl_gpsd_json_reader_stats (g->gpsd);
    case FMT_GPX:
    default:
      return rl_gpx_reader_stats (g->gpx);
    }
}

static gsize
reader_offset (GpsStream *g)
{
  switch (g->format)
    {
    case FMT_NMEA:
      return rl_nmea_reader_offset (g->nmea);
    case FMT_GPSD:
      return rl_gpsd_json_reader_offset (g->gpsd);
    case FMT_GPX:
    default:
      return rl_gpx_reader_offset (g->gpx);
    }
}

/* A mapped log is read once, front to back: the pages behind the reader
 * go back to the kernel, so the resident size stays flat however long
 * the log is (a later touch would read them in again, so this is safe). */
#define RELEASE_STEP (1u << 20)

static void
release_read_pages (GpsStream *g)
{
  gsize at = reader_offset (g), page = 4096;
  const char *base;

  if (g->map == NULL || at < g->released + 2 * RELEASE_STEP)
    return;
  base = g_mapped_file_get_contents (g->map);
  at = (at - RELEASE_STEP) / page * page;
  madvise ((char *) base + g->released, at - g->released, MADV_DONTNEED);
  g->released = at;
}

/* The time a fix is replayed at: its own, or in file order when the
 * file's clock is broken: the first fix at the base, each later one where
 * the file's clock puts it when that moves forward, else one second on. */
static gint64
replay_time (GpsStream *g, const RlGpsFix *fix)
{
  gint64 t, raw;
  gboolean has_raw;

  if (g->trouble == TIME_OK)
    {
      if (g->shift != 0)
        g->shifted++;
      return g->shift + (g->undated ? rl_gps_fix_absolute_time (fix, g->base) : fix->time);
    }
  has_raw = !(fix->flags & RL_GPS_FIX_NO_TIME);
  raw = fix->flags & RL_GPS_FIX_HAS_DATE ? fix->time : rl_gps_fix_absolute_time (fix, 0);
  if (!g->have_prev)
    {
      g->have_prev = TRUE;
      g->raw_first = raw;
      g->prev = g->base;
      return g->prev;
    }
  t = g->prev + G_USEC_PER_SEC;
  if (has_raw && raw - g->raw_first > t - g->base)
    t = g->base + (raw - g->raw_first);
  g->prev = t;
  return t;
}

static const RlEvent *
gps_next (RlEventStream *self)
{
  GpsStream *g = (GpsStream *) self;
  RlGpsFix fix;
  gboolean assumed;

  while (reader_next (g, &fix))
    {
      if (rl_gps_fix_is_lost (&fix))
        {
          /* the receiver said it lost its fix: its last position stops counting now */
          rl_event_init_withdraw (&g->event, replay_time (g, &fix), "gps");
          return &g->event;
        }
      if (rl_gps_fix_judge (&fix) == RL_GPS_REJECT_NULL_ISLAND)
        {
          g->null_island++;
          continue;
        }
      if (!rl_gps_evidence_from_fix_cached (&g->params, &g->cache, &fix, replay_time (g, &fix), &g->event.ev))
        {
          g->outside++;
          continue;
        }
      /* Still delivered: a newer fix replaces the older one even when it is
       * too coarse to be a witness; the policy judges the radius. */
      if (rl_gps_fix_error_m (&fix, g->params.uere_m, g->params.unknown_error_m, &assumed) > g->max_error_m)
        g->inaccurate++;
      else
        g->used++;
      release_read_pages (g);
      g->event.type = RL_EVENT_EVIDENCE;
      g->event.time = g->event.ev.observed_at;
      return &g->event;
    }
  return NULL;
}

static char *
time_text (gint64 t)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (t / G_USEC_PER_SEC);

  return dt ? g_date_time_format (dt, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
}

/* Says how the file's fixes got their dates (once it is read). */
static void
note_dates (GpsStream *g, const RlGpsParseStats *stats)
{
  RlReplay *r = g->replay;

  if (stats->date_source == RL_GPS_DATE_FROM_FILE || stats->date_source == RL_GPS_DATE_PARTIAL)
    {
      if (g->date != NULL)
        rl_replay_note_at (r, g->note_slot, "%s: --date %s ignored: the file carries its own date", g->file, g->date);
      rl_replay_note_at (r, g->note_slot, "%s: date taken from the file%s", g->file,
                         stats->date_source == RL_GPS_DATE_PARTIAL ? " (some epochs from a neighbouring RMC or ZDA)" : "");
    }
  else if (stats->fixes > 0 && g->trouble == TIME_OK)
    {
      g_autofree char *day = time_text (g->base);

      if (g->dated_by_others)
        {
          g_autofree char *from = time_text (g->others_first), *to = time_text (g->others_last);
          gint64 s = g->first / G_USEC_PER_SEC;
          rl_replay_note_at (r, g->note_slot, "%s: no date in the file (time of day only); date taken from the other "
                             "inputs (%s .. %s): %.10s, the day that puts its first fix (%02d:%02d:%02d) nearest them",
                             g->file, from, to, day, (int) (s / 3600 % 24), (int) (s / 60 % 60), (int) (s % 60));
        }
      else if (g->date != NULL)
        rl_replay_note_at (r, g->note_slot, "%s: no date in the file; date taken from --date %s", g->file, g->date);
      else
        rl_replay_note_at (r, g->note_slot, "%s: no date in the file (time of day only); counting from an "
                           "arbitrary day, %d-01-01 (give --date YYYY-MM-DD)", g->file, ARBITRARY_YEAR);
    }
}

/* What gpsd itself said went wrong ("Can't open /dev/ttyUSB0: Permission
 * denied") explains a log without fixes better than any count: the first
 * few with their lines, the rest counted. */
static void
note_gpsd_errors (GpsStream *g)
{
  guint64 n = rl_gpsd_json_reader_n_errors (g->gpsd), line;
  const char *message;

  if (n == 0)
    return;
  rl_replay_count (g->replay, "gpsd.error_reports", n);
  for (guint i = 0; (message = rl_gpsd_json_reader_error (g->gpsd, i, &line)) != NULL; i++)
    rl_replay_note_at (g->replay, g->note_slot, "%s:%" G_GUINT64_FORMAT ": gpsd reported an error: %s", g->file, line,
                       message);
  if (n > RL_GPSD_ERRORS_KEPT)
    rl_replay_note_at (g->replay, g->note_slot, "%s: %" G_GUINT64_FORMAT " more gpsd ERROR reports (gpsd.error_reports)",
                       g->file, n - RL_GPSD_ERRORS_KEPT);
}

/* Where the file first went wrong and why: counts alone do not tell a
 * log of another tool's layout (GnssLogger's "NMEA,$GPGGA…,<ms>",
 * gpspipe -t's time before each report) from a few damaged records. */
static void
note_first_reject (GpsStream *g, const RlGpsParseStats *stats)
{
  guint64 total = rl_gps_parse_stats_rejected_total (stats);
  g_autofree char *where = NULL, *of = NULL;

  if (total == 0 || stats->first_reject_why == NULL)
    return;
  where = stats->first_reject_line > 0 ? g_strdup_printf ("%s:%" G_GUINT64_FORMAT, g->file, stats->first_reject_line)
                                       : g_strdup (g->file);
  of = total > 1 ? g_strdup_printf (" (the first of %" G_GUINT64_FORMAT ")", total) : g_strdup ("");
  rl_replay_note_at (g->replay, g->note_slot, "%s: rejected: %s%s", where, stats->first_reject_why, of);
}

/* The reader's counts in one line.  An epoch in which the receiver said
 * it had no fix (RMC V, GGA quality 0, TPV mode 1) reaches the replay
 * like a fix, to withdraw the one before, but gives no position: it is
 * named apart, or "12 fixes" would read as twelve usable positions. */
static void
note_summary (GpsStream *g, const RlGpsParseStats *stats)
{
  g_autofree char *no_fix = NULL;

  if (stats->fix_lost > 0)
    no_fix = g_strdup_printf (", %" G_GUINT64_FORMAT " %s with no fix", stats->fix_lost,
                              stats->fix_lost == 1 ? "epoch" : "epochs");
  rl_replay_note_at (g->replay, g->note_slot, "%s: %s, %" G_GUINT64_FORMAT " records, %" G_GUINT64_FORMAT " fixes%s, %"
                     G_GUINT64_FORMAT " rejected", g->file, g->format_name, stats->records,
                     stats->fixes - stats->fix_lost, no_fix != NULL ? no_fix : "",
                     rl_gps_parse_stats_rejected_total (stats));
}

static void
gps_finish (RlEventStream *self)
{
  GpsStream *g = (GpsStream *) self;
  const RlGpsParseStats *stats = reader_stats (g);
  RlReplay *r = g->replay;

  note_dates (g, stats);
  count_stats (r, g->format_name, stats);
  if (g->shifted > 0)
    rl_replay_count (r, "gps.week_rollover_moved", g->shifted);
  if (stats->fix_lost > 0)
    rl_replay_count (r, "gps.fix_lost", stats->fix_lost);
  rl_replay_count (r, "gps.fixes_used", g->used);
  if (g->inaccurate > 0)
    rl_replay_count (r, "gps.fixes_too_inaccurate", g->inaccurate);
  if (g->outside > 0)
    rl_replay_count (r, "gps.rejected.lookup_failed", g->outside);
  if (g->null_island > 0)
    rl_replay_count (r, "gps.rejected.null_island", g->null_island);
  if (g->format == FMT_GPX && rl_gpx_reader_error (g->gpx) != NULL)
    {
      rl_replay_count (r, "gpx.broken_off", 1);
      rl_replay_note_at (r, g->note_slot, "%s: %s: the document ends there; the points before it were used",
                         g->file, rl_gpx_reader_error (g->gpx)->message);
    }
  if (stats->planned > 0)
    {
      rl_replay_count (r, "gpx.planned_points", stats->planned);
      rl_replay_note_at (r, g->note_slot, "%s: %" G_GUINT64_FORMAT " waypoints or route points (<wpt>, <rtept>) not read "
                         "as positions: they name places someone planned or marked, not where the receiver was; only "
                         "track points (<trkpt>) are", g->file, stats->planned);
    }
  if (g->format == FMT_NMEA && stats->fixes == 0 && stats->records > 0 &&
      stats->rejected[RL_GPS_REJECT_TRUNCATED] == stats->records)
    rl_replay_note_at (r, g->note_slot, "%s: no sentence ends in a checksum ('*' and two hex digits): regloc reads only "
                       "checked sentences, so the log gives no fix (was it written without checksums, or cut?)", g->file);
  if (g->format == FMT_GPSD)
    note_gpsd_errors (g);
  note_first_reject (g, stats);
  note_summary (g, stats);
  rl_replay_note_slot_close (r, g->note_slot);
  g->note_slot = NULL;
}

static void
gps_free (RlEventStream *self)
{
  GpsStream *g = (GpsStream *) self;

  rl_nmea_reader_free (g->nmea);
  rl_gpsd_json_reader_free (g->gpsd);
  rl_gpx_reader_free (g->gpx);
  if (g->map != NULL)
    g_mapped_file_unref (g->map);
  g_bytes_unref (g->bytes);
  g_free (g->file);
  g_free (g->date);
  g_free (g);
}

static gboolean
open_reader (GpsStream *g, const char *format, GError **error)
{
  gsize len;
  const char *data = g_bytes_get_data (g->bytes, &len);

  if (g_strcmp0 (format, "nmea") == 0)
    {
      g->format = FMT_NMEA;
      g->nmea = rl_nmea_reader_new (data, len);
    }
  else if (g_strcmp0 (format, "gpsd") == 0)
    {
      g->format = FMT_GPSD;
      g->gpsd = rl_gpsd_json_reader_new (data, len);
    }
  else if (g_strcmp0 (format, "gpx") == 0)
    {
      g_autoptr (GError) local = NULL;
      g->format = FMT_GPX;
      g->gpx = rl_gpx_reader_new (data, len, &local);
      if (g->gpx == NULL)
        {
          g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT, "%s: %s", g->file, local->message);
          return FALSE;
        }
    }
  else
    {
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT,
                   "%s: unknown GPS format '%s' (use nmea, gpsd or gpx)", g->file, format);
      return FALSE;
    }
  g->format_name = format;
  return TRUE;
}

/* The day time-of-day-only fixes count from: --date, or an arbitrary one. */
static gboolean
choose_base_day (GpsStream *g, GError **error)
{
  if (g->date != NULL)
    return parse_date_arg (g->date, &g->base, error);
  rl_gps_civil_to_us (ARBITRARY_YEAR, 1, 1, &g->base);
  return TRUE;
}

/* How many fixes the look at a log's clock reads from its start. */
#define PROBE_FIXES 1000

typedef struct {
  guint n, n_timed;
  gboolean same, all_before_1970;
  gint64 first_raw;
  gboolean has_dated;
  gint64 first_dated;       /* the first fix that carries a date */
  gboolean has_meta;
  gint64 meta_time;
} Probe;

static void
probe_fix (Probe *p, const RlGpsFix *fix)
{
  gint64 raw = fix->flags & RL_GPS_FIX_HAS_DATE ? fix->time : rl_gps_fix_absolute_time (fix, 0);

  p->n++;
  if (fix->flags & RL_GPS_FIX_NO_TIME)
    return;
  if (p->n_timed++ == 0)
    p->first_raw = raw;
  else if (raw != p->first_raw)
    p->same = FALSE;
  if (!(fix->flags & RL_GPS_FIX_HAS_DATE) || raw >= 0)
    p->all_before_1970 = FALSE;
  if ((fix->flags & RL_GPS_FIX_HAS_DATE) && !p->has_dated)
    {
      p->has_dated = TRUE;
      p->first_dated = raw;
    }
}

/* Reads the start of the log with its clock unchecked: is the clock broken? */
static TimeTrouble
probe_clock (GpsStream *g, const char *data, gsize len, Probe *p)
{
  RlGpsFix fix;
  RlNmeaReader *nmea = NULL;
  RlGpsdJsonReader *gpsd = NULL;
  RlGpxReader *gpx = NULL;

  *p = (Probe) { .same = TRUE, .all_before_1970 = TRUE };
  if (g->format == FMT_NMEA)
    nmea = rl_nmea_reader_new_in_file_order (data, len);
  else if (g->format == FMT_GPSD)
    gpsd = rl_gpsd_json_reader_new_in_file_order (data, len);
  else
    gpx = rl_gpx_reader_new_in_file_order (data, len, NULL);
  while (p->n < PROBE_FIXES && (nmea ? rl_nmea_reader_next (nmea, &fix)
                                : gpsd ? rl_gpsd_json_reader_next (gpsd, &fix)
                                : gpx != NULL && rl_gpx_reader_next (gpx, &fix)))
    probe_fix (p, &fix);
  if (gpx != NULL)
    p->has_meta = rl_gpx_reader_metadata_time (gpx, &p->meta_time);
  rl_nmea_reader_free (nmea);
  rl_gpsd_json_reader_free (gpsd);
  rl_gpx_reader_free (gpx);
  if (p->n_timed == 0)
    return p->n > 0 && p->has_meta ? TIME_GPX_META : TIME_OK;
  if (p->n_timed < p->n)
    return TIME_OK;   /* some points have no time: those alone are rejected */
  if (p->all_before_1970)
    return TIME_PRE_1970;
  if (p->n >= 2 && p->same)
    return TIME_IDENTICAL;
  return TIME_OK;
}

/* A broken clock: the log is replayed in file order from a base time. */
static gboolean
file_order_base (GpsStream *g, const Probe *p, GError **error)
{
  g_autofree char *from = NULL, *raw = NULL;

  if (g->trouble == TIME_GPX_META)
    g->base = p->meta_time;
  else if (g->trouble == TIME_IDENTICAL && p->first_raw >= 0 && p->first_raw >= G_USEC_PER_SEC * G_GINT64_CONSTANT (86400) * 2)
    g->base = p->first_raw;    /* a real date: start there */
  else
    {
      if (!choose_base_day (g, error))
        return FALSE;
      if (g->trouble == TIME_IDENTICAL)
        g->base += p->first_raw;   /* a time of day */
    }
  from = time_text (g->base);
  raw = time_text (p->first_raw);
  if (g->trouble == TIME_IDENTICAL)
    rl_replay_note_at (g->replay, g->note_slot, "%s: every fix carries the same time (%s): replayed in file order from %s, "
                    "one second apart", g->file, raw, from);
  else if (g->trouble == TIME_PRE_1970)
    rl_replay_note_at (g->replay, g->note_slot, "%s: the times are before 1970 (first %" G_GINT64_FORMAT " s from the epoch: a clock "
                    "that underflowed): replayed in file order from %s%s", g->file, p->first_raw / G_USEC_PER_SEC,
                    from, g->date ? "" : " (an arbitrary day; give --date YYYY-MM-DD)");
  else
    rl_replay_note_at (g->replay, g->note_slot, "%s: the points carry no time: replayed in file order from the document's "
                    "metadata time, %s, one second apart", g->file, from);
  return TRUE;
}

/* Undated logs, broken clocks: where the fixes go on the timeline. */
static gboolean
prepare_times (GpsStream *g, const char *data, gsize len, GError **error)
{
  Probe p;

  g->trouble = probe_clock (g, data, len, &p);
  if (g->trouble != TIME_OK)
    {
      rl_nmea_reader_free (g->nmea);
      rl_gpsd_json_reader_free (g->gpsd);
      rl_gpx_reader_free (g->gpx);
      g->nmea = g->format == FMT_NMEA ? rl_nmea_reader_new_in_file_order (data, len) : NULL;
      g->gpsd = g->format == FMT_GPSD ? rl_gpsd_json_reader_new_in_file_order (data, len) : NULL;
      g->gpx = g->format == FMT_GPX ? rl_gpx_reader_new_in_file_order (data, len, NULL) : NULL;
      return file_order_base (g, &p, error);
    }
  if (g->format == FMT_NMEA && !rl_nmea_reader_dated (g->nmea) && p.n > 0)
    {
      g->undated = TRUE;
      g->has_first = p.n_timed > 0;
      g->first = p.first_raw;
      return choose_base_day (g, error);
    }
  g->has_first = p.has_dated;
  g->first = p.first_dated;
  return TRUE;
}

/* A dated log: its first fix's time, for the other inputs to be placed by. */
static gboolean
gps_time_span (RlEventStream *self, gint64 *first, gint64 *last)
{
  GpsStream *g = (GpsStream *) self;

  if (g->trouble != TIME_OK || g->undated || !g->has_first)
    return FALSE;
  *first = *last = g->first + g->shift;
  return TRUE;
}

static gint64
distance_to_span (gint64 t, gint64 first, gint64 last)
{
  return t < first ? first - t : t > last ? t - last : 0;
}

/* A log with a time of day only (--date still wins) takes the day that
 * puts its first fix nearest the other inputs' span: of the days from the
 * one before their first to the one after their last (a log that starts
 * at 23:59 beside scans from 00:00:05 on belongs to the day before them).
 * When another day puts it about as near, or the inputs span more than
 * two days, which day it was is not clear and the log is refused. */
static gboolean
date_from_others (GpsStream *g, gint64 others_first, gint64 others_last, GError **error)
{
  gint64 best = 0, best_d = G_MAXINT64, second_d = G_MAXINT64;
  g_autofree char *from = NULL, *to = NULL, *one = NULL, *other = NULL;

  if (g->date != NULL)
    return TRUE;
  if (others_last - others_first <= 2 * DAY_US)
    for (gint64 day = others_first / DAY_US - 1; day <= others_last / DAY_US + 1; day++)
      {
        gint64 d = distance_to_span (day * DAY_US + g->first, others_first, others_last);
        if (d < best_d)
          second_d = best_d, best_d = d, best = day * DAY_US;
        else if (d < second_d)
          second_d = d;
      }
  if (best_d != G_MAXINT64 && second_d - best_d >= NEAREST_DAY_MARGIN_US)
    {
      g->base = best;
      g->dated_by_others = TRUE;
      g->others_first = others_first;
      g->others_last = others_last;
      return TRUE;
    }
  from = time_text (others_first);
  to = time_text (others_last);
  if (best_d == G_MAXINT64)
    g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE,
                 "%s: no date in the file (time of day only), and the other inputs span more than two days "
                 "(%s .. %s), so which day it was is not clear: give --date YYYY-MM-DD", g->file, from, to);
  else
    {
      one = time_text (best + g->first);
      other = time_text (best + g->first + (distance_to_span (best + g->first - DAY_US, others_first, others_last)
                                            == second_d ? -DAY_US : DAY_US));
      g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_DATE,
                   "%s: no date in the file (time of day only), and its first fix would lie about as near the "
                   "other inputs (%s .. %s) at %s as at %s, so which day it was is not clear: give --date YYYY-MM-DD",
                   g->file, from, to, one, other);
    }
  return FALSE;
}

/* A log whose dates are 1024 weeks before the other inputs' (a receiver's
 * week rollover) is moved on 1024 weeks; one without a date takes theirs. */
static gboolean
gps_align (RlEventStream *self, gint64 others_first, gint64 others_last, GError **error)
{
  GpsStream *g = (GpsStream *) self;
  g_autofree char *own = NULL, *theirs = NULL;

  if (g->trouble != TIME_OK || !g->has_first)
    return TRUE;
  if (g->undated)
    return date_from_others (g, others_first, others_last, error);
  if (g->first >= others_first - FAR_BEFORE_US)
    return TRUE;
  own = time_text (g->first);
  if (g->first + ROLLOVER_US >= others_first - DAY_US && g->first + ROLLOVER_US <= others_last + DAY_US)
    {
      g->shift = ROLLOVER_US;
      theirs = time_text (g->first + g->shift);
      rl_replay_note_at (g->replay, g->note_slot, "%s: dated from %s, 1024 weeks (7168 days) before the other inputs: "
                         "a receiver's GPS week-number rollover; every fix moved on 1024 weeks, the first to %s", g->file,
                         own, theirs);
      return TRUE;
    }
  theirs = time_text (others_first);
  rl_replay_note_at (g->replay, g->note_slot, "%s: dated from %s, more than a year before the other inputs (from %s), "
                     "and not 1024 weeks before them (a GPS week rollover): replayed as dated, apart from them",
                     g->file, own, theirs);
  return TRUE;
}

/* Takes @bytes (and @map, which holds them, when not NULL). */
static gboolean
load_stream (RlReplay *replay, const char *name, GBytes *bytes, GMappedFile *map, const char *format,
             const char *date, const RlGpsEvidenceParams *params, double max_error_m, GError **error)
{
  GpsStream *g = g_new0 (GpsStream, 1);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  g->stream = (RlEventStream) { .next = gps_next, .finish = gps_finish, .free = gps_free, .ordered = TRUE,
                                .time_span = gps_time_span, .align = gps_align, .name = g_strdup (name) };
  g->replay = replay;
  g->file = g_strdup (name);
  g->bytes = bytes;
  g->map = map;
  g->date = g_strdup (date);
  g->params = *params;
  g->max_error_m = max_error_m;
  if (format == NULL)
    format = rl_gps_detect_format (data, len);
  if (format == NULL)
    g_set_error (error, RL_REPLAY_GPS_ERROR, RL_REPLAY_GPS_ERROR_FORMAT,
                 "%s: unknown format: not NMEA 0183, gpsd JSON or GPX (force one with --gps-format)", name);
  g->note_slot = rl_replay_note_slot (replay);
  if (format == NULL || !open_reader (g, format, error) || !prepare_times (g, data, len, error))
    {
      rl_replay_note_slot_drop (replay, g->note_slot);
      rl_event_stream_free (&g->stream);
      return FALSE;
    }
  /* NMEA and gpsd readers refuse a time earlier than the one before; a GPX
   * file's points are what an application wrote (tracks merged, segments
   * appended), so they are put in order within the merge's window, as a
   * scan log's lines are */
  g->stream.ordered = g->format != FMT_GPX || g->trouble != TIME_OK;
  rl_replay_add_stream (replay, &g->stream);
  return TRUE;
}

gboolean
rl_replay_load_gps_data (RlReplay *replay, const char *name, const char *data, gsize len,
                         const char *format, const char *date,
                         const RlGpsEvidenceParams *params, double max_error_m,
                         GError **error)
{
  /* a copy: the replay reads it when it runs, the caller may free it before */
  return load_stream (replay, name, g_bytes_new (data, len), NULL, format, date, params, max_error_m, error);
}

gboolean
rl_replay_load_gps_bytes (RlReplay *replay, const char *name, GBytes *bytes,
                          const char *format, const char *date,
                          const RlGpsEvidenceParams *params, double max_error_m,
                          GError **error)
{
  return load_stream (replay, name, g_bytes_ref (bytes), NULL, format, date, params, max_error_m, error);
}

gboolean
rl_replay_load_gps_mapped (RlReplay *replay, const char *name, GMappedFile *map,
                           const char *format, const char *date,
                           const RlGpsEvidenceParams *params, double max_error_m,
                           GError **error)
{
  GBytes *bytes = g_mapped_file_get_bytes (map);

  return load_stream (replay, name, bytes, g_mapped_file_ref (map), format, date, params, max_error_m, error);
}
