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
  return name;
}

/* The name for text, or what the code is when tzdata's table has none
 * (XK, Kosovo's code in the boundary data, is user-assigned). */
static const char *
country_text (GHashTable *names, RlCountry country)
{
  const char *name = country_name (names, country);
  return name ? name : "no name: not an ISO 3166-1 code";
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
    printf ("country: %s (%s)\n", cc, country_text (names, r->country));
  else
    printf ("country: -- (no country: international waters, or land the boundary data leaves out)\n");
  if (r->border_area)
    printf ("border: on it, with %s (%s): a gap in the boundary data between the two\n", nc,
            country_text (names, r->neighbour));
  else if (!exact)
    printf ("border: more than %.0f m away\n", RL_BOUNDARY_EXACT_M);
  else if (r->neighbour != RL_COUNTRY_NONE)
    printf ("border: %.0f m, with %s (%s)\n", r->border_m, nc, country_text (names, r->neighbour));
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

static inline gboolean
is_sep (char c)
{
  return c == ' ' || c == '\t' || c == ',';
}

/* A round of input (up to ROUND_BYTES of whole lines) goes through these
 * steps, each shared by the run's threads:
 *
 *   1. parse: the round is cut into chunks at line ends; each chunk's lines
 *      are counted, then go into the chunk's own run of slots (a slot a
 *      line), with the point and its quadtree key;
 *   2. sort: the round's points in the order of the index's quadtree (the
 *      order the generator laid out its nodes and leaves in): near borders
 *      every lookup reads a leaf and the nodes above it, and in input order
 *      nearly each of those reads is a cache miss.  Sorting the whole round
 *      at once, not each chunk, gives each thread a part of the world;
 *   3. look up: the sorted points in pieces, the answers back into the
 *      points' slots;
 *   4. format: each chunk's answers, in input order, into its own buffer.
 *
 * The buffers are written in the chunks' order; only the read and the
 * write are serial (and the sort, a few milliseconds). */
#define ROUND_BYTES (16u << 20)
#define CHUNK_MIN_BYTES (64u << 10)
#define CHUNK_MAX_BYTES (1u << 20)
#define CHUNKS_PER_JOB 8u
/* points looked up in one piece of step 3 */
#define PIECE_POINTS 2048u
#define PIECES_PER_JOB 32u
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

/* Memory of its own mapping, in huge pages where the kernel has them for
 * the asking: on some machines (virtual ones above all) a page fault on
 * each 4 kB page of the run's buffers costs more than their share of the
 * lookups.  Kept from round to round, mapped again when a round needs
 * more. */
typedef struct {
  gpointer block;
  gsize bytes;
} Area;

static void
area_free (Area *a)
{
  if (a->block != NULL)
    munmap (a->block, a->bytes);
  a->block = NULL;
  a->bytes = 0;
}

/* TRUE when it was mapped again (what it held is gone). */
static gboolean
area_reserve (Area *a, gsize bytes)
{
  if (bytes <= a->bytes)
    return FALSE;
  bytes = MAX (bytes, a->bytes + a->bytes / 2);
  area_free (a);
  a->block = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a->block == MAP_FAILED)
    g_error ("cannot map %" G_GSIZE_FORMAT " bytes: %s", bytes, g_strerror (errno));
#ifdef MADV_HUGEPAGE
  madvise (a->block, bytes, MADV_HUGEPAGE);
#endif
  a->bytes = bytes;
  return TRUE;
}

typedef struct {
  const char *text, *end;   /* whole lines (the last may lack its newline at the end of input) */
  char *out;                /* its answers (in the round's output mapping) */
  gsize out_len;
  guint32 base;             /* its first slot */
  guint32 n_slots;          /* its lines (slots reserved) */
  guint32 n_used;           /* answer lines (slots used, from base) */
  guint32 n_points;         /* its points: (key, slot) at key[base..], order[base..] */
  guint32 bucket[256];      /* its points by the key's top byte; then where they go */
} Chunk;

/* A point line's slot: the point until it is looked up (step 3 reads it
 * into its piece first), then its answer. */
typedef union {
  struct {
    double lat, lon;
  } in;
  struct {
    double border_m;
    RlCountry country;
    guint8 ok;
  } out;
} SlotPoint;

/* The round's slots and its sort, one allocation, kept from round to
 * round (grown when a round has more lines). */
typedef struct {
  guint8 *kind;             /* LineKind */
  SlotPoint *point;
  guint32 *key, *order;     /* the points: key and slot, then sorted */
  guint32 *tmp_key, *tmp_order;
  guint32 n_points;         /* sorted points */
  Area area;
} Slots;

/* A thread's buffers for step 3: a piece's points in sorted order and
 * their answers. */
typedef struct {
  double *latlon;
  RlCountry *country;
  double *border_m;
  gboolean *ok;
  gpointer block;
} Piece;

typedef struct Round Round;
typedef void (*RoundStep) (Round *r, guint item, guint worker);

struct Round {
  const RlBoundaryIndex *index;
  gboolean country_only;
  Chunk *chunks;
  guint n_chunks;
  Slots slots;
  Area output;              /* the chunks' answers */
  Piece *pieces;            /* one a thread */
  guint n_pieces;
  guint piece_len;
  guint32 bucket_start[257];   /* the sort's ranges by the key's top byte */
  /* the step running and its items, taken by the threads in turn */
  RoundStep step;
  guint n_items;
  gint next;                /* atomic */
};

/* The next array of n items of size bytes from *at (8-aligned). */
static gpointer
carve (guint8 **at, gsize n, gsize size)
{
  gpointer p = *at;

  *at += (n * size + 7) & ~(gsize) 7;
  return p;
}

static void
slots_reserve (Slots *s, gsize n)
{
  const gsize each = sizeof (guint8) + sizeof (SlotPoint) + 4 * sizeof (guint32);
  guint8 *at;

  if (!area_reserve (&s->area, n * each + 6 * 8))
    return;
  n = (s->area.bytes - 6 * 8) / each;
  at = s->area.block;
  s->kind = carve (&at, n, sizeof (guint8));
  s->point = carve (&at, n, sizeof (SlotPoint));
  s->key = carve (&at, n, sizeof (guint32));
  s->order = carve (&at, n, sizeof (guint32));
  s->tmp_key = carve (&at, n, sizeof (guint32));
  s->tmp_order = carve (&at, n, sizeof (guint32));
}

static void
piece_init (Piece *p)
{
  const gsize n = PIECE_POINTS;
  guint8 *at = p->block = g_malloc (n * (2 * sizeof (double) + sizeof (RlCountry) + sizeof (double) +
                                         sizeof (gboolean)) + 4 * 8);

  p->latlon = carve (&at, 2 * n, sizeof (double));
  p->country = carve (&at, n, sizeof (RlCountry));
  p->border_m = carve (&at, n, sizeof (double));
  p->ok = carve (&at, n, sizeof (gboolean));
}

/* The run's threads: started once, each step of each round handed to
 * them (a thread started for each step costs more than a short step). */
typedef struct Pool Pool;

typedef struct {
  Pool *pool;
  Round *round;
  guint id;
} Worker;

struct Pool {
  GMutex lock;
  GCond wake, done;
  guint generation;         /* steps handed out */
  guint busy;               /* threads still in the current step */
  gboolean quit;
  Worker *workers;
  GThread **threads;
  guint jobs;
};

static void
worker_run (Worker *w)
{
  Round *r = w->round;

  for (;;)
    {
      gint i = g_atomic_int_add (&r->next, 1);
      if (i >= (gint) r->n_items)
        break;
      r->step (r, (guint) i, w->id);
    }
}

static gpointer
pool_thread (gpointer data)
{
  Worker *w = data;
  Pool *pool = w->pool;
  guint seen = 0;

  g_mutex_lock (&pool->lock);
  for (;;)
    {
      while (pool->generation == seen && !pool->quit)
        g_cond_wait (&pool->wake, &pool->lock);
      if (pool->quit)
        break;
      seen = pool->generation;
      g_mutex_unlock (&pool->lock);
      worker_run (w);
      g_mutex_lock (&pool->lock);
      if (--pool->busy == 0)
        g_cond_signal (&pool->done);
    }
  g_mutex_unlock (&pool->lock);
  return NULL;
}

static void
pool_init (Pool *pool, Round *r, guint jobs)
{
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->wake);
  g_cond_init (&pool->done);
  pool->generation = 0;
  pool->busy = 0;
  pool->quit = FALSE;
  pool->jobs = jobs;
  pool->workers = g_new0 (Worker, jobs);
  pool->threads = g_new0 (GThread *, jobs);
  for (guint t = 0; t < jobs; t++)
    {
      pool->workers[t].pool = pool;
      pool->workers[t].round = r;
      pool->workers[t].id = t;
    }
  /* thread 0 is the caller's */
  for (guint t = 1; t < jobs; t++)
    pool->threads[t] = g_thread_new ("lookup", pool_thread, &pool->workers[t]);
}

static void
pool_clear (Pool *pool)
{
  g_mutex_lock (&pool->lock);
  pool->quit = TRUE;
  g_cond_broadcast (&pool->wake);
  g_mutex_unlock (&pool->lock);
  for (guint t = 1; t < pool->jobs; t++)
    g_thread_join (pool->threads[t]);
  g_free (pool->threads);
  g_free (pool->workers);
  g_mutex_clear (&pool->lock);
  g_cond_clear (&pool->wake);
  g_cond_clear (&pool->done);
}

/* Runs @step on items [0, n) on every thread of the pool, this one among
 * them; returns when all are done. */
static void
round_step (Pool *pool, Round *r, RoundStep step, guint n)
{
  gboolean shared = pool->jobs > 1 && n > 1;

  r->step = step;
  r->n_items = n;
  r->next = 0;
  if (shared)
    {
      g_mutex_lock (&pool->lock);
      pool->busy = pool->jobs - 1;
      pool->generation++;
      g_cond_broadcast (&pool->wake);
      g_mutex_unlock (&pool->lock);
    }
  worker_run (&pool->workers[0]);
  if (shared)
    {
      g_mutex_lock (&pool->lock);
      while (pool->busy > 0)
        g_cond_wait (&pool->done, &pool->lock);
      g_mutex_unlock (&pool->lock);
    }
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

/* The number of newlines in [p, end), eight bytes at a time. */
static guint32
count_newlines (const char *p, const char *end)
{
  const guint64 low7 = G_GUINT64_CONSTANT (0x7f7f7f7f7f7f7f7f);
  const guint64 nl = G_GUINT64_CONSTANT (0x0a0a0a0a0a0a0a0a);
  guint64 n = 0;

  for (; end - p >= 8; p += 8)
    {
      guint64 w, x, zero;
      memcpy (&w, p, 8);
      x = w ^ nl;
      /* 0x80 in each byte of x that is zero, exactly */
      zero = ~(((x & low7) + low7) | x | low7);
      n += ((zero >> 7) * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56;
    }
  for (; p < end; p++)
    n += *p == '\n';
  return (guint32) n;
}

/* One line of bulk input (without its newline) into the next slot of @c
 * (a blank line or a comment takes none). */
static void
bulk_line (Slots *s, Chunk *c, const char *line, const char *end)
{
  const char *f[2][2];
  guint n = 0;
  guint32 slot = c->base + c->n_used;
  const char *p = line;
  guint8 kind;

  while (end > line && end[-1] == '\r')
    end--;
  /* a file saved by a Windows editor starts with a UTF-8 byte order mark */
  if (end - line >= 3 && memcmp (line, "\xef\xbb\xbf", 3) == 0)
    line += 3, p = line;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && *p == '#')
    return;
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
          n = 3;
          break;
        }
      f[n][0] = tok;
      f[n][1] = p;
      n++;
    }
  if (n == 0)
    return;
  if (n != 2)
    kind = LINE_ERR_FIELDS;
  else if (!parse_field (f[0][0], f[0][1], -90.0, 90.0, &s->point[slot].in.lat))
    kind = LINE_ERR_LAT;
  else if (!parse_field (f[1][0], f[1][1], -180.0, 180.0, &s->point[slot].in.lon))
    kind = LINE_ERR_LON;
  else
    kind = LINE_POINT;
  s->kind[slot] = kind;
  c->n_used++;
  if (kind == LINE_POINT)
    {
      s->key[c->base + c->n_points] = quadtree_key (s->point[slot].in.lat, s->point[slot].in.lon);
      s->order[c->base + c->n_points] = slot;
      c->bucket[s->key[c->base + c->n_points] >> 24]++;
      c->n_points++;
    }
}

/* Step 0: a chunk's lines counted (its slots). */
static void
step_count (Round *r, guint i, guint worker)
{
  Chunk *c = &r->chunks[i];

  c->n_slots = count_newlines (c->text, c->end) + 1;
}

/* Step 1: a chunk's lines parsed into its slots. */
static void
step_parse (Round *r, guint i, guint worker)
{
  Chunk *c = &r->chunks[i];
  const char *p = c->text;

  c->n_used = 0;
  c->n_points = 0;
  memset (c->bucket, 0, sizeof c->bucket);
  while (p < c->end)
    {
      const char *nl = memchr (p, '\n', c->end - p);
      const char *stop = nl != NULL ? nl : c->end;
      bulk_line (&r->slots, c, p, stop);
      p = nl != NULL ? nl + 1 : c->end;
    }
}

/* Step 2, the sort by key, in two parts: first the points of each chunk
 * into the ranges of their key's top byte (the ranges from the chunks'
 * counts, chunk by chunk within a range), then each range sorted on its
 * own by the lower 24 bits (LSD radix sort, a byte a pass).  Both parts
 * run on every thread. */
static void
round_buckets (Round *r)
{
  guint32 at = 0;

  for (guint b = 0; b < 256; b++)
    {
      r->bucket_start[b] = at;
      for (guint i = 0; i < r->n_chunks; i++)
        {
          guint32 n = r->chunks[i].bucket[b];
          r->chunks[i].bucket[b] = at;
          at += n;
        }
    }
  r->bucket_start[256] = at;
  r->slots.n_points = at;
}

/* A chunk's points into their ranges (tmp_key, tmp_order). */
static void
step_scatter (Round *r, guint i, guint worker)
{
  Slots *s = &r->slots;
  Chunk *c = &r->chunks[i];

  for (guint32 j = c->base; j < c->base + c->n_points; j++)
    {
      guint32 at = c->bucket[s->key[j] >> 24]++;
      s->tmp_key[at] = s->key[j];
      s->tmp_order[at] = s->order[j];
    }
}

/* A range sorted by the three lower bytes: tmp → key/order → tmp →
 * key/order. */
static void
step_sort (Round *r, guint b, guint worker)
{
  Slots *s = &r->slots;
  guint32 from = r->bucket_start[b], to = r->bucket_start[b + 1];
  guint32 *key = s->tmp_key, *order = s->tmp_order, *key2 = s->key, *order2 = s->order;

  /* three passes, so the range ends in key/order, however short */
  for (guint shift = 0; shift < 24; shift += 8)
    {
      guint32 count[257] = { 0 };
      guint32 *k, *o;

      for (guint32 i = from; i < to; i++)
        count[((key[i] >> shift) & 0xffu) + 1]++;
      count[0] = from;
      for (guint d = 1; d < 257; d++)
        count[d] += count[d - 1];
      for (guint32 i = from; i < to; i++)
        {
          guint32 at = count[(key[i] >> shift) & 0xffu]++;
          key2[at] = key[i];
          order2[at] = order[i];
        }
      k = key;
      key = key2;
      key2 = k;
      o = order;
      order = order2;
      order2 = o;
    }
}

/* Step 3: a piece of the sorted points looked up, the answers into their
 * slots. */
static void
step_lookup (Round *r, guint i, guint worker)
{
  Slots *s = &r->slots;
  Piece *p = &r->pieces[worker];
  guint32 from = i * r->piece_len, to = MIN (s->n_points, from + r->piece_len);
  guint32 n = to > from ? to - from : 0;

  for (guint32 j = 0; j < n; j++)
    {
      guint32 slot = s->order[from + j];
      p->latlon[2 * j] = s->point[slot].in.lat;
      p->latlon[2 * j + 1] = s->point[slot].in.lon;
    }
  rl_boundary_lookup_many (r->index, n, p->latlon, p->country, r->country_only ? NULL : p->border_m, p->ok);
  for (guint32 j = 0; j < n; j++)
    {
      guint32 slot = s->order[from + j];
      SlotPoint *sp = &s->point[slot];
      sp->out.ok = p->ok[j] != FALSE;
      sp->out.country = p->country[j];
      sp->out.border_m = r->country_only ? 0 : p->border_m[j];
    }
}

/* The longest answer lines: a point's (a distance below 10^15 - 1 m,
 * fifteen digits at most) and an error's (bulk () checks them). */
#define POINT_LINE_MAX (sizeof "CC\t999999999999999\n" - 1)
#define ERROR_LINE_MAX 48u
#define LOOKUP_FAILED "ERR\tlookup failed (corrupt index)\n"

/* The room a chunk's answers may take: the longest lines. */
static gsize
chunk_out_room (const Chunk *c)
{
  return (gsize) c->n_points * POINT_LINE_MAX + (gsize) (c->n_used - c->n_points) * ERROR_LINE_MAX;
}

/* Step 4: a chunk's answers, in input order, into its part of the round's
 * output mapping (room for the longest lines).  A distance that is not in
 * [0, 10^15) m cannot come from a sound index (the search starts at
 * RL_BOUNDARY_EXACT_M and only shrinks it): a failed lookup. */
static void
step_format (Round *r, guint i, guint worker)
{
  const Slots *s = &r->slots;
  Chunk *c = &r->chunks[i];
  char *w = c->out, cc[3];

  for (guint32 slot = c->base; slot < c->base + c->n_used; slot++)
    {
      const char *line = NULL;
      const SlotPoint *sp = &s->point[slot];

      if (s->kind[slot] != LINE_POINT)
        line = line_errors[s->kind[slot]];
      else if (!sp->out.ok || !(sp->out.border_m >= 0 && sp->out.border_m < 1e15 - 1))
        line = LOOKUP_FAILED;
      if (line != NULL)
        {
          gsize n = strlen (line);
          memcpy (w, line, n);
          w += n;
          continue;
        }
      memcpy (w, rl_country_to_string (sp->out.country, cc), 2);
      w += 2;
      if (!r->country_only)
        {
          /* "%.0f": round half to even (the current rounding mode, as
           * printf rounds), then the digits */
          char buf[16];
          int d = sizeof buf;
          guint64 v = (guint64) nearbyint (sp->out.border_m);

          do
            {
              buf[--d] = (char) ('0' + v % 10);
              v /= 10;
            }
          while (v != 0);
          *w++ = '\t';
          memcpy (w, buf + d, sizeof buf - d);
          w += sizeof buf - d;
        }
      *w++ = '\n';
    }
  c->out_len = (gsize) (w - c->out);
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
          Chunk fresh = { 0 };
          g_array_append_val (chunks, fresh);
        }
      c = &g_array_index (chunks, Chunk, n);
      c->text = from;
      c->end = to;
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
 * answer is written before they passed.  The thread first maps the whole
 * index: a bulk run reads most of its pages. */
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

  rl_boundary_index_populate (v->index);
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
  Pool pool;
  guint jobs;
  Verify verify;
} Bulk;

/* One round on the run's threads (this one among them), its answers
 * written; FALSE when they cannot be (a write error, or the index failed
 * its check: bulk->verify.ok). */
static gboolean
round_run (Bulk *bulk, const char *text, const char *end)
{
  Round *r = &bulk->round;
  guint32 slots = 0;
  gboolean ok = TRUE;

  r->n_chunks = round_cut (bulk->chunks, bulk->jobs, text, end);
  r->chunks = (Chunk *) (void *) bulk->chunks->data;
  round_step (&bulk->pool, r, step_count, r->n_chunks);
  for (guint i = 0; i < r->n_chunks; i++)
    {
      r->chunks[i].base = slots;
      slots += r->chunks[i].n_slots;
    }
  slots_reserve (&r->slots, slots);
  round_step (&bulk->pool, r, step_parse, r->n_chunks);
  round_buckets (r);
  round_step (&bulk->pool, r, step_scatter, r->n_chunks);
  round_step (&bulk->pool, r, step_sort, 256);
  /* pieces of at most PIECE_POINTS, about PIECES_PER_JOB for each thread */
  r->piece_len = CLAMP (r->slots.n_points / (bulk->jobs * PIECES_PER_JOB) + 1, 256u, PIECE_POINTS);
  r->n_pieces = (r->slots.n_points + r->piece_len - 1) / r->piece_len;
  round_step (&bulk->pool, r, step_lookup, r->n_pieces);
  {
    gsize at = 0;
    for (guint i = 0; i < r->n_chunks; i++)
      at += chunk_out_room (&r->chunks[i]);
    area_reserve (&r->output, MAX (at, 1));
    at = 0;
    for (guint i = 0; i < r->n_chunks; i++)
      {
        r->chunks[i].out = (char *) r->output.block + at;
        at += chunk_out_room (&r->chunks[i]);
      }
  }
  round_step (&bulk->pool, r, step_format, r->n_chunks);
  if (!verify_wait (&bulk->verify))
    return FALSE;
  for (guint i = 0; i < r->n_chunks && ok; i++)
    ok = write_all (STDOUT_FILENO, r->chunks[i].out, r->chunks[i].out_len);
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
  gsize page;
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
  page = (gsize) sysconf (_SC_PAGESIZE);
  while (text < end && ok)
    {
      const char *to = line_end_from ((gsize) (end - text) <= ROUND_BYTES ? end : text + ROUND_BYTES, end);
      gsize from = (gsize) text & ~(page - 1), upto = (gsize) to & ~(page - 1);

#ifdef MADV_POPULATE_READ
      /* the round's pages in one call, rather than a fault each */
      madvise ((void *) from, (gsize) to - from, MADV_POPULATE_READ);
#endif
      ok = round_run (bulk, text, to);
      /* the round's whole pages are done with: out of the process (they
       * stay in the page cache), so a long input does not grow it */
      if (upto > from)
        madvise ((void *) from, upto - from, MADV_DONTNEED);
      text = to;
    }
  /* what was read is consumed, as a read would have left it */
  lseek (STDIN_FILENO, st.st_size, SEEK_SET);
  return ok;
}

static int
bulk (RlBoundaryIndex *index, gboolean country_only, guint jobs)
{
  Bulk b = { .chunks = g_array_new (FALSE, FALSE, sizeof (Chunk)), .jobs = jobs, .verify = { index, NULL, NULL, FALSE } };
  gboolean ok, mapped, read_ok = TRUE, verify_ok;

#ifdef __GLIBC__
  /* The run's large buffers (slots, pieces, answers) from the heap rather
   * than mappings of their own: glibc maps each allocation of 128 kB or
   * more apart and unmaps it when freed, and with several threads each
   * unmapping interrupts the other cores. */
  mallopt (M_MMAP_THRESHOLD, 64 << 20);
  mallopt (M_TRIM_THRESHOLD, 128 << 20);
#endif
  b.round.index = index;
  b.round.country_only = country_only;
  b.round.pieces = g_new0 (Piece, jobs);
  for (guint i = 0; i < G_N_ELEMENTS (line_errors); i++)
    g_assert (line_errors[i] == NULL || strlen (line_errors[i]) <= ERROR_LINE_MAX);
  g_assert (strlen (LOOKUP_FAILED) <= ERROR_LINE_MAX);
  for (guint t = 0; t < jobs; t++)
    piece_init (&b.round.pieces[t]);
  pool_init (&b.pool, &b.round, jobs);
  b.verify.thread = g_thread_new ("verify", verify_run, &b.verify);
  ok = bulk_mapped (&b, &mapped);
  if (!mapped)
    ok = bulk_read (&b, &read_ok);
  verify_ok = verify_wait (&b.verify);
  pool_clear (&b.pool);
  g_array_unref (b.chunks);
  for (guint t = 0; t < jobs; t++)
    g_free (b.round.pieces[t].block);
  g_free (b.round.pieces);
  area_free (&b.round.slots.area);
  area_free (&b.round.output);
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
  gboolean json = FALSE, from_stdin = FALSE, country_only = FALSE, options_done = FALSE;
  guint jobs = 0;
  double lat = 0, lon = 0;
  RlBoundaryResult r;

  /* Hand-parsed: negative coordinates ("-33.9") must not look like options.
   * "--" ends the options, as anywhere else ("regloc lookup -- -16.8 179.5"). */
  for (int i = 1; i < argc; i++)
    {
      if (!options_done && strcmp (argv[i], "--") == 0)
        options_done = TRUE;
      else if (options_done)
        {
          if (n_positional >= 2)
            {
              g_printerr ("regloc lookup: error: unexpected argument '%s'\n", argv[i]);
              usage_hint ();
              return RL_EXIT_USAGE;
            }
          positional[n_positional++] = argv[i];
        }
      else if (strcmp (argv[i], "--json") == 0)
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
