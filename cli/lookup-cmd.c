/* regloc lookup: the offline point → country lookup with border distance.
 *
 *   regloc lookup LAT LON [--json]   one point, human or JSON output
 *   regloc lookup -                  bulk: one "LAT LON" per line on stdin,
 *                                    one "CC<TAB>DISTANCE_M" per line out
 *
 * The bulk format is an interface scripts and tests rely on: keep it stable. */
#include "core/paths.h"
#include "cli/commands.h"

#include "geo/boundary.h"

#include <errno.h>
#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ISO3166_TAB "/usr/share/zoneinfo/iso3166.tab"

static void
usage_hint (void)
{
  g_printerr ("Usage: regloc lookup LAT LON [--json] | regloc lookup - [--country-only] [--jobs N] [--index FILE]\n");
}

/* Country names come from tzdata's ISO 3166 table, read when needed. */
static GHashTable *
load_names (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *path = g_getenv ("REGLOC_ISO3166_TAB");

  if (!g_file_get_contents (path ? path : ISO3166_TAB, &text, NULL, NULL))
    return names;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *tab = strchr (lines[i], '\t');
      if (lines[i][0] == '#' || tab == NULL || tab - lines[i] != 2)
        continue;
      g_hash_table_insert (names, g_strndup (lines[i], 2), g_strdup (tab + 1));
    }
  return names;
}

static const char *
country_name (GHashTable *names, RlCountry country)
{
  char code[3];
  const char *name;

  if (country == RL_COUNTRY_NONE)
    return NULL;
  name = g_hash_table_lookup (names, rl_country_to_string (country, code));
  return name ? name : "";
}

static gboolean
parse_coord (const char *text, double min, double max, double *out)
{
  char *end = NULL;
  double v;

  /* Plain decimal degrees only: g_ascii_strtod would also take hex. */
  if (text == NULL || *text == '\0' || strpbrk (text, "xXpP") != NULL)
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite (v) || v < min || v > max)
    return FALSE;
  *out = v;
  return TRUE;
}

static void
print_json_string (const char *s)
{
  if (s == NULL)
    {
      fputs ("null", stdout);
      return;
    }
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        printf ("\\%c", *s);
      else if ((unsigned char) *s < 0x20)
        printf ("\\u%04x", (unsigned) (unsigned char) *s);
      else
        putchar (*s);
    }
  putchar ('"');
}

static void
print_one (const RlBoundaryResult *r, double lat, double lon, gboolean json)
{
  g_autoptr(GHashTable) names = load_names ();
  char cc[3], nc[3];
  gboolean exact = r->border_m < RL_BOUNDARY_EXACT_M;

  rl_country_to_string (r->country, cc);
  rl_country_to_string (r->neighbour, nc);
  if (json)
    {
      printf ("{\"lat\": %.7f, \"lon\": %.7f, \"country\": ", lat, lon);
      print_json_string (r->country ? cc : NULL);
      fputs (", \"name\": ", stdout);
      print_json_string (country_name (names, r->country));
      printf (", \"border_m\": %.1f, \"border_exact\": %s, \"neighbour\": ", r->border_m,
              exact ? "true" : "false");
      print_json_string (r->neighbour ? nc : NULL);
      fputs (", \"neighbour_name\": ", stdout);
      print_json_string (country_name (names, r->neighbour));
      printf (", \"border_area\": %s}\n", r->border_area ? "true" : "false");
      return;
    }
  if (r->country != RL_COUNTRY_NONE)
    printf ("country: %s (%s)\n", cc, country_name (names, r->country));
  else
    printf ("country: -- (no country: international waters)\n");
  if (r->border_area)
    printf ("border: on it, with %s (%s): a gap in the boundary data between the two\n", nc,
            country_name (names, r->neighbour));
  else if (!exact)
    printf ("border: more than %.0f m away\n", RL_BOUNDARY_EXACT_M);
  else if (r->neighbour != RL_COUNTRY_NONE)
    printf ("border: %.0f m, with %s (%s)\n", r->border_m, nc, country_name (names, r->neighbour));
  else if (r->country != RL_COUNTRY_NONE)
    printf ("border: %.0f m, to the edge of the territorial waters\n", r->border_m);
  else
    printf ("border: %.0f m\n", r->border_m);
}

/* ---- bulk: one point a line, without libc's slow paths ---------------- */

/* The bulk loop reads stdin in large blocks, splits the fields and parses
 * the numbers by hand and writes the answers into one buffer: strtok,
 * strtod and printf per point cost more than the lookup itself. */

static const double pow10_exact[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A plain decimal number ([+-]digits[.digits]) in [min, max], exactly as
 * g_ascii_strtod would read it: the digits as an integer below 2^53 over an
 * exact power of ten is one correctly rounded division.  Anything else
 * (an exponent, more than 15 significant digits) goes the slow way. */
static gboolean
parse_field (const char *p, const char *end, double min, double max, double *out)
{
  /* more than 24 characters go the slow way anyway: no count in the loops
   * (a longer run of digits wraps mant, and n_digits sends it there) */
  const char *q = p, *stop = end - p > 24 ? p + 24 : end, *digits, *dot = NULL;
  guint64 mant = 0;
  int frac = 0, n_digits;
  gboolean neg = FALSE;
  double v;

  if (q < stop && (*q == '-' || *q == '+'))
    neg = *q++ == '-';
  digits = q;
  while (q < stop && (guint) (*q - '0') < 10)
    mant = mant * 10 + (guint64) (*q++ - '0');
  if (q < stop && *q == '.')
    {
      dot = ++q;
      while (q < stop && (guint) (*q - '0') < 10)
        mant = mant * 10 + (guint64) (*q++ - '0');
      frac = (int) (q - dot);
    }
  n_digits = (int) (q - digits) - (dot != NULL);
  /* at most 18 digits (no overflow); below 2^53 the integer is exact */
  if (q != end || n_digits <= 0 || n_digits > 18 || mant >= (G_GUINT64_CONSTANT (1) << 53) || frac > 22)
    {
      char buf[64];
      if (end - p >= (ptrdiff_t) sizeof buf)
        return FALSE;
      memcpy (buf, p, end - p);
      buf[end - p] = '\0';
      return parse_coord (buf, min, max, out);
    }
  v = (double) mant / pow10_exact[frac];
  v = neg ? -v : v;
  if (!(v >= min && v <= max))
    return FALSE;
  *out = v;
  return TRUE;
}

/* "%.0f" of a distance: round half to even (the current rounding mode, as
 * printf rounds), then the digits. */
static void
append_metres (GString *out, double m)
{
  char buf[24];
  int i = sizeof buf;
  guint64 v;

  if (!(m >= 0 && m < 1e15))
    {
      g_string_append_printf (out, "%.0f", m);
      return;
    }
  v = (guint64) nearbyint (m);
  do
    {
      buf[--i] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  g_string_append_len (out, buf + i, sizeof buf - i);
}

static inline gboolean
is_sep (char c)
{
  return c == ' ' || c == '\t' || c == ',';
}

/* The points of a block of input lines are looked up in the order of the
 * index's quadtree (the order the generator laid out its nodes and leaves
 * in), not in the order they came: near borders every lookup reads a leaf
 * and the nodes above it, and in input order nearly each of those reads is
 * a cache miss.  The answers are then written in input order. */
#define BATCH_LINES 65536u
#define RL_LOOKUP_MAX_JOBS 64u

typedef enum {
  LINE_POINT,
  LINE_NOTHING,      /* blank or comment: no answer line */
  LINE_ERR_FIELDS,
  LINE_ERR_LAT,
  LINE_ERR_LON,
} LineKind;

static const char *const line_errors[] = {
  [LINE_ERR_FIELDS] = "ERR\texpected two fields: LAT LON\n",
  [LINE_ERR_LAT] = "ERR\tlatitude is not a number in [-90, 90]\n",
  [LINE_ERR_LON] = "ERR\tlongitude is not a number in [-180, 180]\n",
};

typedef struct {
  const RlBoundaryIndex *index;
  gboolean country_only;
  guint n;                  /* lines in the batch */
  guint8 *kind;             /* LineKind */
  double *lat, *lon;
  double *sorted;           /* lat, lon in lookup order */
  guint32 *key, *order, *tmp_key, *tmp_order;
  RlCountry *s_country;     /* answers in lookup order */
  double *s_border_m;
  gboolean *s_ok;
  RlCountry *country;       /* answers in input order */
  double *border_m;
  gboolean *failed;
  gpointer block;           /* all the arrays above */
} Batch;

/* The next array of n items of size bytes from *at (8-aligned). */
static gpointer
carve (guint8 **at, gsize n, gsize size)
{
  gpointer p = *at;

  *at += (n * size + 7) & ~(gsize) 7;
  return p;
}

/* The arrays are one allocation: one mapping to make and unmap (with two
 * threads, each unmapping costs the other core an interrupt). */
static void
batch_init (Batch *b, const RlBoundaryIndex *index, gboolean country_only)
{
  const gsize n = BATCH_LINES;
  /* the fourteen arrays below, each rounded up to 8 bytes */
  gsize bytes = n * (sizeof (guint8) + 2 * sizeof (double) + 2 * sizeof (double) + 4 * sizeof (guint32) +
                     sizeof (RlCountry) + sizeof (double) + sizeof (gboolean) + sizeof (RlCountry) + sizeof (double) +
                     sizeof (gboolean)) + 14 * 8;
  guint8 *at;

  b->index = index;
  b->country_only = country_only;
  b->n = 0;
  b->block = g_malloc (bytes);
  at = b->block;
  b->kind = carve (&at, n, sizeof (guint8));
  b->lat = carve (&at, n, sizeof (double));
  b->lon = carve (&at, n, sizeof (double));
  b->sorted = carve (&at, 2 * n, sizeof (double));
  b->key = carve (&at, n, sizeof (guint32));
  b->order = carve (&at, n, sizeof (guint32));
  b->tmp_key = carve (&at, n, sizeof (guint32));
  b->tmp_order = carve (&at, n, sizeof (guint32));
  b->s_country = carve (&at, n, sizeof (RlCountry));
  b->s_border_m = carve (&at, n, sizeof (double));
  b->s_ok = carve (&at, n, sizeof (gboolean));
  b->country = carve (&at, n, sizeof (RlCountry));
  b->border_m = carve (&at, n, sizeof (double));
  b->failed = carve (&at, n, sizeof (gboolean));
}

static void
batch_clear (Batch *b)
{
  g_clear_pointer (&b->block, g_free);
}

/* One line of bulk input (without its newline) into the batch. */
static void
bulk_line (Batch *b, const char *line, const char *end)
{
  const char *f[2][2];
  guint n = 0, i = b->n;
  const char *p = line;

  b->kind[i] = LINE_NOTHING;
  while (end > line && end[-1] == '\r')
    end--;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && *p == '#')
    return;
  b->n++;
  for (p = line; p < end;)
    {
      const char *tok;
      while (p < end && is_sep (*p))
        p++;
      if (p == end)
        break;
      tok = p;
      while (p < end && !is_sep (*p))
        p++;
      if (n == 2)
        {
          b->kind[i] = LINE_ERR_FIELDS;
          return;
        }
      f[n][0] = tok;
      f[n][1] = p;
      n++;
    }
  if (n == 0)
    b->kind[i] = LINE_NOTHING;
  else if (n != 2)
    b->kind[i] = LINE_ERR_FIELDS;
  else if (!parse_field (f[0][0], f[0][1], -90.0, 90.0, &b->lat[i]))
    b->kind[i] = LINE_ERR_LAT;
  else if (!parse_field (f[1][0], f[1][1], -180.0, 180.0, &b->lon[i]))
    b->kind[i] = LINE_ERR_LON;
  else
    b->kind[i] = LINE_POINT;
}

/* x and y cell (2^16 to a side) interleaved, y in the higher bit of each
 * pair: the order of a depth-first walk of the index's quadtree. */
static inline guint32
spread_bits (guint32 v)
{
  /* bit i of a 16-bit value to bit 2i */
  v = (v | (v << 8)) & 0x00ff00ffu;
  v = (v | (v << 4)) & 0x0f0f0f0fu;
  v = (v | (v << 2)) & 0x33333333u;
  v = (v | (v << 1)) & 0x55555555u;
  return v;
}

static inline guint32
quadtree_key (double lat, double lon)
{
  guint32 x = (guint32) MIN ((lon + 180.0) * (65536.0 / 360.0), 65535.0);
  guint32 y = (guint32) MIN ((lat + 90.0) * (65536.0 / 180.0), 65535.0);

  return spread_bits (x) | spread_bits (y) << 1;
}

/* The batch's points, sorted by key (LSD radix sort, 8 bits a pass). */
static guint
batch_sort (Batch *b)
{
  guint m = 0;

  for (guint i = 0; i < b->n; i++)
    if (b->kind[i] == LINE_POINT)
      {
        b->key[m] = quadtree_key (b->lat[i], b->lon[i]);
        b->order[m++] = i;
      }
  for (guint shift = 0; shift < 32; shift += 8)
    {
      guint count[257] = { 0 };
      guint32 *k, *o;
      for (guint i = 0; i < m; i++)
        count[((b->key[i] >> shift) & 0xffu) + 1]++;
      for (guint d = 1; d < 257; d++)
        count[d] += count[d - 1];
      for (guint i = 0; i < m; i++)
        {
          guint slot = count[(b->key[i] >> shift) & 0xffu]++;
          b->tmp_key[slot] = b->key[i];
          b->tmp_order[slot] = b->order[i];
        }
      k = b->key;
      b->key = b->tmp_key;
      b->tmp_key = k;
      o = b->order;
      b->order = b->tmp_order;
      b->tmp_order = o;
    }
  return m;
}

/* Looks up the batch's points in quadtree order, then appends the answers
 * in input order. */
static void
batch_run (Batch *b, GString *out)
{
  guint m = batch_sort (b);
  char cc[3];

  /* the points in that order first, so the lookups read them in sequence */
  for (guint j = 0; j < m; j++)
    {
      b->sorted[2 * j] = b->lat[b->order[j]];
      b->sorted[2 * j + 1] = b->lon[b->order[j]];
    }
  rl_boundary_lookup_many (b->index, m, b->sorted, b->s_country, b->country_only ? NULL : b->s_border_m, b->s_ok);
  for (guint j = 0; j < m; j++)
    {
      guint i = b->order[j];
      b->failed[i] = !b->s_ok[j];
      b->country[i] = b->s_country[j];
      if (!b->country_only)
        b->border_m[i] = b->s_border_m[j];
    }
  for (guint i = 0; i < b->n; i++)
    {
      if (b->kind[i] == LINE_NOTHING)
        continue;
      if (b->kind[i] != LINE_POINT)
        g_string_append (out, line_errors[b->kind[i]]);
      else if (b->failed[i])
        g_string_append (out, "ERR\tlookup failed (corrupt index)\n");
      else
        {
          g_string_append_len (out, rl_country_to_string (b->country[i], cc), 2);
          if (!b->country_only)
            {
              g_string_append_c (out, '\t');
              append_metres (out, b->border_m[i]);
            }
          g_string_append_c (out, '\n');
        }
    }
  b->n = 0;
}

/* The input is read in rounds of whole lines (up to ROUND_BYTES); a round
 * is cut into chunks at line ends, and the threads take the chunks in turn
 * (one chunk is one or a few batches: parse, look up in the index's order,
 * format into the chunk's own buffer).  Taking small chunks in turn keeps
 * both cores busy to the end of a round even when one runs slower; the
 * buffers are written in the chunks' order, so the answers come in input
 * order.  Only the read and the write are serial. */
#define ROUND_BYTES (16u << 20)
#define CHUNK_MIN_BYTES (64u << 10)
#define CHUNK_MAX_BYTES (1u << 20)
#define CHUNKS_PER_JOB 8u

typedef struct {
  const char *text, *end;   /* whole lines (the last may lack its newline at the end of input) */
  GString *out;
} Chunk;

typedef struct {
  Chunk *chunks;
  guint n_chunks;
  gint next;                /* the next chunk to take (atomic) */
} Round;

/* A thread of the run: its batch lives as long as the run. */
typedef struct {
  Round *round;
  Batch batch;
} Worker;

static void
chunk_run (Chunk *c, Batch *b)
{
  const char *p = c->text;

  while (p < c->end)
    {
      const char *nl = memchr (p, '\n', c->end - p);
      const char *stop = nl != NULL ? nl : c->end;
      bulk_line (b, p, stop);
      p = nl != NULL ? nl + 1 : c->end;
      if (b->n == BATCH_LINES)
        batch_run (b, c->out);
    }
  batch_run (b, c->out);
}

/* One thread's share of a round: chunks until none is left. */
static gpointer
round_worker (gpointer data)
{
  Worker *w = data;
  Round *r = w->round;

  for (;;)
    {
      gint i = g_atomic_int_add (&r->next, 1);
      if (i >= (gint) r->n_chunks)
        break;
      chunk_run (&r->chunks[i], &w->batch);
    }
  return NULL;
}

/* The end of the line that runs through @at (past its newline), or @end:
 * where a piece of [.., end) of about the wanted size may stop. */
static const char *
line_end_from (const char *at, const char *end)
{
  const char *nl;

  if (at >= end)
    return end;
  nl = memchr (at, '\n', end - at);
  return nl != NULL ? nl + 1 : end;
}

/* [text, end) cut into chunks at line ends, about CHUNKS_PER_JOB for each
 * thread. */
static guint
round_cut (GArray *chunks, guint jobs, const char *text, const char *end)
{
  gsize size = (gsize) (end - text);
  gsize want = CLAMP (size / ((gsize) jobs * CHUNKS_PER_JOB), CHUNK_MIN_BYTES, CHUNK_MAX_BYTES);
  const char *from = text;
  guint n = 0;

  while (from < end)
    {
      const char *to = line_end_from ((gsize) (end - from) <= want ? end : from + want, end);
      Chunk *c;

      if (n == chunks->len)
        {
          Chunk fresh = { NULL, NULL, g_string_sized_new (1 << 16) };
          g_array_append_val (chunks, fresh);
        }
      c = &g_array_index (chunks, Chunk, n);
      c->text = from;
      c->end = to;
      g_string_truncate (c->out, 0);
      from = to;
      n++;
    }
  return n;
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      ssize_t w = write (fd, data, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      data += w;
      len -= (gsize) w;
    }
  return TRUE;
}

/* Fills buf up to cap from stdin; FALSE on a read error. */
static gboolean
fill (char *buf, gsize cap, gsize *have, gboolean *eof)
{
  while (*have < cap && !*eof)
    {
      ssize_t got = read (STDIN_FILENO, buf + *have, cap - *have);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return FALSE;
      if (got == 0)
        *eof = TRUE;
      *have += (gsize) got;
    }
  return TRUE;
}

/* The index's checksum and entries, checked on their own thread while the
 * first round is read and looked up (RL_BOUNDARY_OPEN_VERIFY_LATER); no
 * answer is written before they passed. */
typedef struct {
  RlBoundaryIndex *index;
  GThread *thread;
  GError *error;
  gboolean ok;
} Verify;

static gpointer
verify_run (gpointer data)
{
  Verify *v = data;

  v->ok = rl_boundary_index_verify (v->index, &v->error);
  return NULL;
}

static gboolean
verify_wait (Verify *v)
{
  if (v->thread != NULL)
    g_thread_join (g_steal_pointer (&v->thread));
  return v->ok;
}

/* The state of a bulk run. */
typedef struct {
  Round round;
  GArray *chunks;           /* Chunk, reused from round to round */
  Worker *workers;
  guint jobs;
  Verify verify;
} Bulk;

/* One round on the run's threads (this one among them), its answers
 * written; FALSE when they cannot be (a write error, or the index failed
 * its check: bulk->verify.ok). */
static gboolean
round_run (Bulk *bulk, const char *text, const char *end)
{
  GThread *threads[RL_LOOKUP_MAX_JOBS];
  Round *r = &bulk->round;
  guint jobs;
  gboolean ok = TRUE;

  r->n_chunks = round_cut (bulk->chunks, bulk->jobs, text, end);
  r->chunks = (Chunk *) (void *) bulk->chunks->data;
  r->next = 0;
  jobs = MIN (bulk->jobs, MAX (r->n_chunks, 1u));
  for (guint t = 1; t < jobs; t++)
    threads[t] = g_thread_new ("lookup", round_worker, &bulk->workers[t]);
  round_worker (&bulk->workers[0]);
  for (guint t = 1; t < jobs; t++)
    g_thread_join (threads[t]);
  if (!verify_wait (&bulk->verify))
    return FALSE;
  for (guint i = 0; i < r->n_chunks && ok; i++)
    ok = write_all (STDOUT_FILENO, r->chunks[i].out->str, r->chunks[i].out->len);
  return ok;
}

/* Standard input read in rounds of whole lines. */
static gboolean
bulk_read (Bulk *bulk, gboolean *read_ok)
{
  gsize cap = ROUND_BYTES, have = 0;
  g_autofree char *buf = g_malloc (cap);
  gboolean eof = FALSE, ok = TRUE;

  *read_ok = TRUE;
  while (!eof && *read_ok && ok)
    {
      const char *last;
      gsize whole;

      *read_ok = fill (buf, cap, &have, &eof);
      last = have > 0 ? memrchr (buf, '\n', have) : NULL;
      whole = eof ? have : last != NULL ? (gsize) (last - buf) + 1 : 0;
      if (whole == 0 && have == cap)   /* a line longer than the buffer */
        {
          cap *= 2;
          buf = g_realloc (buf, cap);
          continue;
        }
      ok = round_run (bulk, buf, buf + whole);
      have -= whole;
      memmove (buf, buf + whole, have);
    }
  return ok;
}

/* Standard input that is a regular file, mapped from its current offset:
 * no copy, and the first round starts at once.  FALSE in *mapped when it
 * cannot be mapped (then it is read). */
static gboolean
bulk_mapped (Bulk *bulk, gboolean *mapped)
{
  g_autoptr(GMappedFile) file = NULL;
  struct stat st;
  off_t at;
  const char *text, *end;
  gboolean ok = TRUE;

  *mapped = FALSE;
  if (fstat (STDIN_FILENO, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    return TRUE;
  at = lseek (STDIN_FILENO, 0, SEEK_CUR);
  if (at < 0 || at > st.st_size)
    return TRUE;
  file = g_mapped_file_new_from_fd (STDIN_FILENO, FALSE, NULL);
  if (file == NULL || g_mapped_file_get_contents (file) == NULL ||
      g_mapped_file_get_length (file) != (gsize) st.st_size)
    return TRUE;
  *mapped = TRUE;
  text = g_mapped_file_get_contents (file) + at;
  end = g_mapped_file_get_contents (file) + st.st_size;
  while (text < end && ok)
    {
      const char *to = line_end_from ((gsize) (end - text) <= ROUND_BYTES ? end : text + ROUND_BYTES, end);

      ok = round_run (bulk, text, to);
      /* the round's pages are done with: out of the process (they stay in
       * the page cache), so a long input does not grow it */
      {
        gsize page = (gsize) sysconf (_SC_PAGESIZE);
        gsize from = (gsize) text & ~(page - 1), upto = (gsize) to & ~(page - 1);
        if (upto > from)
          madvise ((void *) from, upto - from, MADV_DONTNEED);
      }
      text = to;
    }
  /* what was read is consumed, as a read would have left it */
  lseek (STDIN_FILENO, st.st_size, SEEK_SET);
  return ok;
}

static int
bulk (RlBoundaryIndex *index, gboolean country_only, guint jobs)
{
  Bulk b = { { NULL, 0, 0 }, g_array_new (FALSE, FALSE, sizeof (Chunk)), g_new0 (Worker, jobs), jobs,
             { index, NULL, NULL, FALSE } };
  gboolean ok, mapped, read_ok = TRUE, verify_ok;

#ifdef __GLIBC__
  /* The run's large buffers (batches, answers) from the heap rather than
   * mappings of their own: glibc maps each allocation of 128 kB or more
   * apart and unmaps it when freed, and with several threads each
   * unmapping interrupts the other cores. */
  mallopt (M_MMAP_THRESHOLD, 64 << 20);
  mallopt (M_TRIM_THRESHOLD, 128 << 20);
#endif
  for (guint t = 0; t < jobs; t++)
    {
      b.workers[t].round = &b.round;
      batch_init (&b.workers[t].batch, index, country_only);
    }
  b.verify.thread = g_thread_new ("verify", verify_run, &b.verify);
  ok = bulk_mapped (&b, &mapped);
  if (!mapped)
    ok = bulk_read (&b, &read_ok);
  verify_ok = verify_wait (&b.verify);
  for (guint i = 0; i < b.chunks->len; i++)
    g_string_free (g_array_index (b.chunks, Chunk, i).out, TRUE);
  g_array_unref (b.chunks);
  for (guint t = 0; t < jobs; t++)
    batch_clear (&b.workers[t].batch);
  g_free (b.workers);
  if (!verify_ok)
    {
      g_printerr ("regloc lookup: error: %s\n", b.verify.error->message);
      g_error_free (b.verify.error);
      return RL_EXIT_FAILURE;
    }
  if (!read_ok)
    {
      g_printerr ("regloc lookup: error: cannot read standard input: %s\n", g_strerror (errno));
      return RL_EXIT_FAILURE;
    }
  if (!ok)
    {
      g_printerr ("regloc lookup: error: cannot write output: %s\n", g_strerror (errno));
      return RL_EXIT_FAILURE;
    }
  return RL_EXIT_OK;
}

int
rl_cmd_lookup (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RlBoundaryIndex) index = NULL;
  const char *positional[2] = { NULL, NULL };
  const char *index_path = NULL;
  guint n_positional = 0;
  gboolean json = FALSE, from_stdin = FALSE, country_only = FALSE;
  guint jobs = 0;
  double lat = 0, lon = 0;
  RlBoundaryResult r;

  /* Hand-parsed: negative coordinates ("-33.9") must not look like options. */
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        json = TRUE;
      else if (strcmp (argv[i], "--country-only") == 0)
        country_only = TRUE;
      else if (strcmp (argv[i], "--index") == 0 && i + 1 < argc)
        index_path = argv[++i];
      else if ((strcmp (argv[i], "--jobs") == 0 || strcmp (argv[i], "-j") == 0) && i + 1 < argc)
        {
          guint64 v;
          if (!g_ascii_string_to_unsigned (argv[++i], 10, 1, RL_LOOKUP_MAX_JOBS, &v, NULL))
            {
              g_printerr ("regloc lookup: error: --jobs '%s' is not a number in [1, %u]\n", argv[i],
                          RL_LOOKUP_MAX_JOBS);
              return RL_EXIT_USAGE;
            }
          jobs = (guint) v;
        }
      else if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage_hint ();
          g_print ("Prints the country at a point (ISO 3166-1 alpha-2, \"--\" at sea) and the\n"
                   "distance in metres to the nearest border (exact below %.0f m).\n"
                   "With \"-\", reads LAT LON lines from stdin and prints CC<TAB>DISTANCE_M\n"
                   "(CC alone with --country-only), the points looked up by --jobs threads\n"
                   "(default: one per core).\n",
                   RL_BOUNDARY_EXACT_M);
          return RL_EXIT_OK;
        }
      else if (strcmp (argv[i], "-") == 0 && n_positional == 0)
        from_stdin = TRUE;
      else if (n_positional < 2 && !from_stdin)
        positional[n_positional++] = argv[i];
      else
        {
          g_printerr ("regloc lookup: error: unexpected argument '%s'\n", argv[i]);
          usage_hint ();
          return RL_EXIT_USAGE;
        }
    }
  if (!from_stdin)
    {
      if (n_positional != 2)
        {
          g_printerr ("regloc lookup: error: need LAT and LON (or '-' to read points from stdin)\n");
          usage_hint ();
          return RL_EXIT_USAGE;
        }
      if (!parse_coord (positional[0], -90.0, 90.0, &lat))
        {
          g_printerr ("regloc lookup: error: latitude '%s' is not a number in [-90, 90]\n", positional[0]);
          return RL_EXIT_USAGE;
        }
      if (!parse_coord (positional[1], -180.0, 180.0, &lon))
        {
          g_printerr ("regloc lookup: error: longitude '%s' is not a number in [-180, 180]\n", positional[1]);
          return RL_EXIT_USAGE;
        }
    }

  {
    g_autofree char *path = rl_data_path (RL_DATA_BOUNDARY_INDEX, index_path);
    /* bulk: the checksum runs beside the first lookups (bulk ()) */
    index = rl_boundary_index_open_full (path, from_stdin ? RL_BOUNDARY_OPEN_VERIFY_LATER : RL_BOUNDARY_OPEN_DEFAULT,
                                         &error);
  }
  if (index == NULL)
    {
      g_printerr ("regloc lookup: error: %s\n", error->message);
      return RL_EXIT_FAILURE;
    }
  if (from_stdin)
    return bulk (index, country_only, jobs > 0 ? jobs : MIN ((guint) g_get_num_processors (), RL_LOOKUP_MAX_JOBS));
  if (!rl_boundary_lookup (index, lat, lon, &r))
    {
      g_printerr ("regloc lookup: error: lookup failed (corrupt index)\n");
      return RL_EXIT_FAILURE;
    }
  print_one (&r, lat, lon, json);
  return RL_EXIT_OK;
}
