/* Point → country lookup over the mmapped boundary index (docs/design.md §7).
 * File layout and the meaning of every field: boundary-format.h. */
#define G_LOG_DOMAIN "regloc-boundary"

#include "geo/boundary.h"
#include "geo/boundary-format.h"
#include "geo/boundary-private.h"
#include "core/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EARTH_M_PER_DEG (6371008.8 * G_PI / 180.0)
/* How far past the nearest edge we look to name the country across it. */
#define BEYOND_M 3.0
/* Edges of a sovereign's feature that lie inside one of its territories are
 * not borders; skip at most this many of them before giving up. */
#define MAX_SKIPPED_EDGES 8
#define ANTIMERIDIAN_NUDGE 1e-9

G_STATIC_ASSERT ((int) RL_BOUNDARY_EXACT_M == (int) RL_BIDX_FAR_M);

struct RlBoundaryIndex {
  char *name;          /* for messages */
  gboolean verified;   /* checksum and entries checked */
  gboolean populated;  /* every page mapped (rl_boundary_index_populate) */
  GMappedFile *file;
  int fd;              /* the mapped file, until its checksum is read; -1: none */
  GBytes *bytes;
  const guint8 *data;
  gsize size;
  const RlBidxHeader *header;
  const guint32 *grid;
  const guint32 *nodes;
  const guint32 *leaves;
  guint32 n_nodes;
  guint32 leaves_words;
  guint32 n_features;
  guint32 max_depth;
  RlCountry *codes;
};

typedef struct { double x0, y0, x1, y1; } Box;

G_DEFINE_QUARK (rl-boundary-error-quark, rl_boundary_error)

const char *
rl_boundary_index_default_path (void)
{
  g_autofree char *path = rl_data_path (RL_DATA_BOUNDARY_INDEX, NULL);

  /* one stable string per answer, for callers that keep no copy */
  return g_intern_string (path);
}

void
rl_boundary_index_free (RlBoundaryIndex *index)
{
  if (index == NULL)
    return;
  g_clear_pointer (&index->file, g_mapped_file_unref);
  if (index->fd >= 0)
    close (index->fd);
  g_clear_pointer (&index->bytes, g_bytes_unref);
  g_free (index->codes);
  g_free (index->name);
  g_free (index);
}

static gboolean
corrupt (GError **error, const char *path, const char *what)
{
  g_set_error (error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_CORRUPT,
               "Boundary index %s is corrupt: %s", path, what);
  return FALSE;
}

static gboolean
section_ok (const RlBoundaryIndex *index, guint64 offset, guint64 count, guint64 item_size)
{
  return offset % 4 == 0 && offset >= sizeof (RlBidxHeader) && offset <= index->size &&
         count <= (index->size - offset) / item_size;
}

/* Whether every entry points inside its section (or holds a known label).
 * It runs over the 600,000 entries of the grid and the nodes at every open:
 * the test is written without branches, so it costs about a nanosecond an
 * entry instead of a mispredicted switch. */
static gboolean
entries_ok (const RlBoundaryIndex *index, const guint32 *entries, guint64 n)
{
  /* bounds in locals and no short cuts: the compiler can test several
   * entries at once */
  const guint32 n_features = index->n_features, n_nodes = index->n_nodes, leaves_words = index->leaves_words;
  guint32 bad = 0;

  for (gsize i = 0; i < n; i++)
    {
      guint32 e = entries[i], type = RL_BIDX_ENTRY_TYPE (e), v = RL_BIDX_ENTRY_VALUE (e), label = v & 0xffffu;
      guint32 uniform_bad = ((v & ~RL_BIDX_UNIFORM_MASK) != 0) | ((label != RL_BIDX_LABEL_NONE) & (label >= n_features));

      bad |= ((type == RL_BIDX_TYPE_UNIFORM) & uniform_bad) | ((type == RL_BIDX_TYPE_NODE) & (v >= n_nodes)) |
             ((type == RL_BIDX_TYPE_LEAF) & (v >= leaves_words)) | (type > RL_BIDX_TYPE_LEAF);
    }
  return bad == 0;
}

/* What every open checks before any lookup: the header, the sections and
 * the feature table.  The rest (the checksum and the entries, verify ())
 * may come later: every read of an entry or a leaf is bounded on its own. */
static gboolean
validate_header (RlBoundaryIndex *index, GError **error)
{
  const RlBidxHeader *h = (const RlBidxHeader *) index->data;
  const char *path = index->name;
  const RlBidxFeature *features;
  guint64 grid_n = (guint64) 1 << (2 * RL_BIDX_GRID_DEPTH);

  if (G_BYTE_ORDER != G_LITTLE_ENDIAN)
    return corrupt (error, path, "only little-endian hosts can read it");
  if (index->size < sizeof (RlBidxHeader) || memcmp (h->magic, RL_BIDX_MAGIC, 8) != 0)
    return corrupt (error, path, "not a boundary index (bad magic)");
  if (h->version != RL_BIDX_VERSION)
    return corrupt (error, path, "unsupported version (rebuild the index)");
  if (h->header_size != sizeof (RlBidxHeader) || h->file_size != index->size)
    return corrupt (error, path, "truncated or wrong size");
  /* Nothing below is trusted without a bound, even with a good checksum. */
  if (h->grid_depth != RL_BIDX_GRID_DEPTH || h->max_depth < h->grid_depth || h->max_depth > 28 ||
      h->n_features == 0 || h->n_features > RL_BIDX_MAX_FEATURES)
    return corrupt (error, path, "bad parameters");
  if (!section_ok (index, h->features_offset, h->n_features, sizeof (RlBidxFeature)) ||
      !section_ok (index, h->grid_offset, grid_n, 4) ||
      !section_ok (index, h->nodes_offset, (guint64) h->n_nodes * 4, 4) ||
      !section_ok (index, h->leaves_offset, h->leaves_words, 4))
    return corrupt (error, path, "section out of bounds");

  index->header = h;
  index->n_features = h->n_features;
  index->n_nodes = h->n_nodes;
  index->leaves_words = h->leaves_words;
  index->max_depth = h->max_depth;
  index->grid = (const guint32 *) (index->data + h->grid_offset);
  index->nodes = (const guint32 *) (index->data + h->nodes_offset);
  index->leaves = (const guint32 *) (index->data + h->leaves_offset);

  features = (const RlBidxFeature *) (index->data + h->features_offset);
  index->codes = g_new0 (RlCountry, h->n_features);
  for (guint32 i = 0; i < h->n_features; i++)
    {
      char code[3] = { features[i].alpha2[0], features[i].alpha2[1], '\0' };
      if (!g_ascii_isupper (code[0]) || !g_ascii_isupper (code[1]))
        return corrupt (error, path, "bad country code");
      index->codes[i] = RL_COUNTRY (code[0], code[1]);
    }
  return TRUE;
}

/* The checksum of a mapped index, read from its file with pread () in
 * pieces that stay in the cache instead of through the mapping.  Through
 * the mapping, the first pass over 19 MB of 4 kB pages took 10-12 ms (and
 * left every page resident); read in 64 kB pieces (a buffer from the heap,
 * not a fresh mapping that faults each page) it takes 3-5 ms, and
 * the mapping keeps only the pages lookups use.  A bulk lookup, which maps
 * every page anyway (rl_boundary_index_populate), still reads through the
 * mapping: its lookups then find the index in the cache.  The descriptor
 * is the one that was mapped, so a file replaced on disk meanwhile is not
 * the one checked. */
static gboolean
checksum_file (const RlBoundaryIndex *index, guint64 *sum, GError **error)
{
  enum { PIECE = 64 * 1024 };
  g_autofree guint8 *piece = g_malloc (PIECE);
  XXH3_state_t *state = rl_bidx_sum_begin (index->data);
  gsize at = sizeof (RlBidxHeader);

  if (state == NULL)
    return corrupt (error, index->name, "out of memory for the checksum");
  while (at < index->size)
    {
      ssize_t n = pread (index->fd, piece, MIN ((gsize) PIECE, index->size - at), (off_t) at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;
          XXH3_freeState (state);
          return corrupt (error, index->name, n < 0 ? g_strerror (saved) : "the file shrank while it was checked");
        }
      rl_bidx_sum_add (state, piece, (gsize) n);
      at += (gsize) n;
    }
  *sum = rl_bidx_sum_end (state);
  return TRUE;
}

/* The checksum over the whole file, then the entries. */
static gboolean
verify (RlBoundaryIndex *index, GError **error)
{
  const RlBidxHeader *h = index->header;
  const char *path = index->name;
  guint64 sum;

  if (index->fd >= 0 && !index->populated)
    {
      if (!checksum_file (index, &sum, error))
        return FALSE;
    }
  else
    sum = rl_bidx_checksum (index->data, index->size);
  if (index->fd >= 0)
    {
      close (index->fd);   /* nothing else reads it */
      index->fd = -1;
    }
  if (sum != h->checksum)
    return corrupt (error, path, "checksum mismatch");
  if (!entries_ok (index, index->grid, (guint64) 1 << (2 * RL_BIDX_GRID_DEPTH)))
    return corrupt (error, path, "grid entry out of bounds");
  if (!entries_ok (index, index->nodes, (guint64) h->n_nodes * 4))
    return corrupt (error, path, "node entry out of bounds");
  index->verified = TRUE;
  return TRUE;
}

RlBoundaryIndex *
rl_boundary_index_open_full (const char *path, RlBoundaryOpenFlags flags, GError **error)
{
  g_autoptr(RlBoundaryIndex) index = g_new0 (RlBoundaryIndex, 1);
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  index->name = g_strdup (path);
  index->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (index->fd >= 0)
    index->file = g_mapped_file_new_from_fd (index->fd, FALSE, &local);
  if (index->file == NULL)
    {
      g_set_error (error, RL_BOUNDARY_ERROR, RL_BOUNDARY_ERROR_MISSING, "Cannot open boundary index: %s: %s", path,
                   local != NULL ? local->message : g_strerror (errno));
      return NULL;
    }
  index->data = (const guint8 *) g_mapped_file_get_contents (index->file);
  index->size = g_mapped_file_get_length (index->file);
  if (index->data == NULL)
    index->size = 0;
  if (!validate_header (index, error))
    return NULL;
  if (!(flags & RL_BOUNDARY_OPEN_VERIFY_LATER) && !verify (index, error))
    return NULL;
  return g_steal_pointer (&index);
}

RlBoundaryIndex *
rl_boundary_index_open (const char *path, GError **error)
{
  return rl_boundary_index_open_full (path, RL_BOUNDARY_OPEN_DEFAULT, error);
}

gboolean
rl_boundary_index_verify (RlBoundaryIndex *index, GError **error)
{
  g_return_val_if_fail (index != NULL, FALSE);
  if (index->verified)
    return TRUE;
  return verify (index, error);
}

void
rl_boundary_index_populate (RlBoundaryIndex *index)
{
  g_return_if_fail (index != NULL);
#ifdef MADV_POPULATE_READ
  if (index->file != NULL)
    {
      gsize page = (gsize) sysconf (_SC_PAGESIZE);
      gsize start = (gsize) index->data & ~(page - 1);
      index->populated = madvise ((void *) start, (gsize) index->data + index->size - start, MADV_POPULATE_READ) == 0;
    }
#endif
}

RlBoundaryIndex *
rl_boundary_index_new_from_bytes (GBytes *bytes, const char *name, GError **error)
{
  g_autoptr(RlBoundaryIndex) index = g_new0 (RlBoundaryIndex, 1);

  g_return_val_if_fail (bytes != NULL && name != NULL, NULL);
  index->fd = -1;
  index->name = g_strdup (name);
  index->bytes = g_bytes_ref (bytes);
  index->data = g_bytes_get_data (bytes, &index->size);
  if (index->data == NULL)
    index->size = 0;
  if (!validate_header (index, error) || !verify (index, error))
    return NULL;
  return g_steal_pointer (&index);
}

/* ---- point in polygon ------------------------------------------------- */

/* Grown leaf box, as the generator quantised it. */
static inline void
leaf_frame (const Box *box, double *gx0, double *gy0, double *sx, double *sy)
{
  *sx = (box->x1 - box->x0) / RL_BIDX_QSPAN;
  *sy = (box->y1 - box->y0) / RL_BIDX_QSPAN;
  *gx0 = box->x0 - *sx * RL_BIDX_QPAD;
  *gy0 = box->y0 - *sy * RL_BIDX_QPAD;
}

/* Reads a leaf's records (boundary-format.h), every length checked against
 * the end of the leaf section: the one decoder of the point-in-polygon
 * test, the distance search and the maps.  A group's chains must all be
 * read before the next group. */
typedef struct {
  const guint16 *p, *end;
  guint groups;   /* groups left */
  guint chains;   /* chains left in the current group */
  gboolean bad;   /* a record runs past the end */
} LeafReader;

/* FALSE (and bad) when the header does not fit; *head: the header words. */
static inline gboolean
leaf_reader_init (LeafReader *r, const RlBoundaryIndex *index, guint32 offset, const guint16 **head)
{
  r->p = (const guint16 *) (index->leaves + offset);
  r->end = (const guint16 *) (index->leaves + index->leaves_words);
  r->chains = 0;
  r->bad = r->end - r->p < RL_BIDX_LEAF_HEADER;
  if (r->bad)
    return FALSE;
  *head = r->p;
  r->groups = r->p[3];
  r->p += RL_BIDX_LEAF_HEADER;
  return TRUE;
}

/* The next group's feature word (feature | ref_inside); FALSE at the end. */
static inline gboolean
leaf_next_group (LeafReader *r, guint16 *feature_word)
{
  if (r->groups == 0 || r->bad)
    return FALSE;
  if (r->end - r->p < 2)
    {
      r->bad = TRUE;
      return FALSE;
    }
  *feature_word = r->p[0];
  r->chains = r->p[1];
  r->p += 2;
  r->groups--;
  return TRUE;
}

/* The current group's next chain: *n >= 1 points, x and y interleaved in
 * *xy, *skip: no border the distance search needs (its edges are all an
 * earlier group's too, RL_BIDX_CHAIN_MIRROR, or have the same country on
 * both sides, RL_BIDX_CHAIN_INNER); FALSE at the group's end. */
static inline gboolean
leaf_next_chain_full (LeafReader *r, const guint16 **xy, guint *n, gboolean *skip)
{
  guint count;

  if (r->chains == 0 || r->bad)
    return FALSE;
  count = r->end - r->p < 1 ? 0 : r->p[0] & RL_BIDX_CHAIN_POINTS;
  if (count == 0 || (gsize) (r->end - r->p - 1) < 2 * (gsize) count)
    {
      r->bad = TRUE;
      return FALSE;
    }
  *n = count;
  *skip = (r->p[0] & (RL_BIDX_CHAIN_MIRROR | RL_BIDX_CHAIN_INNER)) != 0;
  *xy = r->p + 1;
  r->p += 1 + 2 * (gsize) count;
  r->chains--;
  return TRUE;
}

static inline gboolean
leaf_next_chain (LeafReader *r, const guint16 **xy, guint *n)
{
  gboolean skip;

  return leaf_next_chain_full (r, xy, n, &skip);
}

/* Label of (x, y) inside a border leaf: the smallest feature whose parity
 * at the point is odd.  Parity = the reference point's, flipped by every
 * edge on the path point → (ref_x, y) → ref.  FALSE if the leaf overruns. */
static gboolean
leaf_label (const RlBoundaryIndex *index, guint32 offset, const Box *box, double x, double y, guint16 *label)
{
  LeafReader r;
  const guint16 *head;
  double gx0, gy0, sx, sy, qx, qy, rx, ry, hx0, hx1, vy0, vy1;
  gint32 qy_floor, rx_int;
  guint16 best, word;

  if (!leaf_reader_init (&r, index, offset, &head))
    return FALSE;
  leaf_frame (box, &gx0, &gy0, &sx, &sy);
  qx = (x - gx0) / sx;
  qy = (y - gy0) / sy;
  rx = head[0];
  ry = head[1];
  best = head[2];
  hx0 = MIN (qx, rx);
  hx1 = MAX (qx, rx);
  vy0 = MIN (qy, ry);
  vy1 = MAX (qy, ry);
  /* An edge can cross the path only where its ends lie on two sides of
   * y = qy or of x = rx; for integer coordinates, y > qy exactly when
   * y > floor (qy), so the sides are integer tests made once a point. */
  qy_floor = (gint32) floor (qy);
  rx_int = head[0];
  while (leaf_next_group (&r, &word))
    {
      guint16 feature = word & RL_BIDX_MAX_FEATURES;
      const guint16 *p;
      guint n, parity = 0;

      /* Groups come smallest feature first (the generator sorts the edges
       * by feature): none from here on can beat the base label. */
      if (feature >= best)
        break;
      while (leaf_next_chain (&r, &p, &n))
        {
          guint side_a = (guint) (p[1] > qy_floor) | (guint) (p[0] > rx_int) << 1;

          for (guint i = 1; i < n; i++)
            {
              guint side_b = (guint) (p[2 * i + 1] > qy_floor) | (guint) (p[2 * i] > rx_int) << 1;
              guint change = side_a ^ side_b;

              side_a = side_b;
              if (change == 0)
                continue;
              double ax = p[2 * i - 2], ay = p[2 * i - 1], bx = p[2 * i], by = p[2 * i + 1];
              if (change & 1)
                parity ^= rl_bidx_cross_h (ax, ay, bx, by, qy, hx0, hx1);
              if (change & 2)
                parity ^= rl_bidx_cross_v (ax, ay, bx, by, rx, vy0, vy1);
            }
        }
      /* the first group that holds the point is the smallest feature
       * holding it: the later groups are larger */
      if (parity ^ ((word & RL_BIDX_GROUP_INSIDE) != 0))
        {
          best = feature;
          break;
        }
    }
  if (r.bad || (best != RL_BIDX_LABEL_NONE && best >= index->n_features))
    return FALSE;
  *label = best;
  return TRUE;
}

static inline guint32
grid_cell (double v, double lo, double span, guint32 n)
{
  double f = floor ((v - lo) / span * n);
  if (f < 0)
    return 0;
  if (f >= n)
    return n - 1;
  return (guint32) f;
}

static inline Box
grid_box (guint32 ix, guint32 iy)
{
  double w = 360.0 / (1u << RL_BIDX_GRID_DEPTH), h = 180.0 / (1u << RL_BIDX_GRID_DEPTH);
  return (Box) { -180.0 + ix * w, -90.0 + iy * h, -180.0 + (ix + 1) * w, -90.0 + (iy + 1) * h };
}

/* The nodes find_entry () went through, from the grid cell down: the
 * distance search climbs back up them (near_search_up ()). */
#define PATH_MAX_NODES 24
typedef struct {
  guint n;
  guint32 grid_ix, grid_iy;
  guint32 node[PATH_MAX_NODES];
  guint8 child[PATH_MAX_NODES];   /* the child taken */
  Box box[PATH_MAX_NODES];        /* the node's box */
} Path;

G_STATIC_ASSERT (PATH_MAX_NODES >= 28 - RL_BIDX_GRID_DEPTH);

/* One walk down the tree, from the grid cell to the uniform entry or leaf
 * holding (x, y).  find_entry_path () takes it to the end at once; the
 * bulk lookup (rl_boundary_lookup_many ()) steps several walks in turn so
 * that their cache misses overlap. */
typedef struct {
  double x, y;
  guint32 entry;
  Box box;
  guint depth;
  Path *path;   /* or NULL */
} Walk;

static inline void
walk_start (Walk *w, const RlBoundaryIndex *index, double x, double y, Path *path)
{
  guint32 n = 1u << RL_BIDX_GRID_DEPTH;
  guint32 ix = grid_cell (x, -180.0, 360.0, n), iy = grid_cell (y, -90.0, 180.0, n);

  w->x = x;
  w->y = y;
  w->entry = index->grid[(gsize) iy * n + ix];
  w->box = grid_box (ix, iy);
  w->depth = RL_BIDX_GRID_DEPTH;
  w->path = path;
  if (path != NULL)
    {
      path->n = 0;
      path->grid_ix = ix;
      path->grid_iy = iy;
    }
}

static inline gboolean
walk_done (const Walk *w)
{
  return RL_BIDX_ENTRY_TYPE (w->entry) != RL_BIDX_TYPE_NODE;
}

/* One level down; FALSE when the index is corrupt. */
static inline gboolean
walk_step (Walk *w, const RlBoundaryIndex *index)
{
  guint32 node = RL_BIDX_ENTRY_VALUE (w->entry);
  double cx = (w->box.x0 + w->box.x1) / 2, cy = (w->box.y0 + w->box.y1) / 2;
  guint c = (w->x >= cx ? 1 : 0) | (w->y >= cy ? 2 : 0);

  if (w->depth >= index->max_depth || node >= index->n_nodes)
    return FALSE;
  if (w->path != NULL)
    {
      Path *path = w->path;
      path->node[path->n] = node;
      path->child[path->n] = (guint8) c;
      path->box[path->n] = w->box;
      path->n++;
    }
  w->entry = index->nodes[(gsize) node * 4 + c];
  if (c & 1)
    w->box.x0 = cx;
  else
    w->box.x1 = cx;
  if (c & 2)
    w->box.y0 = cy;
  else
    w->box.y1 = cy;
  w->depth++;
  return TRUE;
}

/* Walks down to the uniform entry or leaf holding (x, y); path (or NULL)
 * gets the nodes on the way. */
static inline gboolean
find_entry_path (const RlBoundaryIndex *index, double x, double y, guint32 *entry_out, Box *box_out, Path *path)
{
  Walk w;

  walk_start (&w, index, x, y, path);
  while (!walk_done (&w))
    if (!walk_step (&w, index))
      return FALSE;
  *entry_out = w.entry;
  *box_out = w.box;
  return TRUE;
}

/* The label of (x, y) in the entry find_entry_path () reached. */
static inline gboolean
entry_label (const RlBoundaryIndex *index, guint32 entry, const Box *box, double x, double y, guint16 *label)
{
  switch (RL_BIDX_ENTRY_TYPE (entry))
    {
    case RL_BIDX_TYPE_UNIFORM:
      *label = (guint16) (RL_BIDX_ENTRY_VALUE (entry) & 0xffffu);
      return *label == RL_BIDX_LABEL_NONE || *label < index->n_features;
    case RL_BIDX_TYPE_LEAF:
      if (RL_BIDX_ENTRY_VALUE (entry) >= index->leaves_words)
        return FALSE;
      return leaf_label (index, RL_BIDX_ENTRY_VALUE (entry), box, x, y, label);
    default:
      return FALSE;
    }
}

static gboolean
label_at_full (const RlBoundaryIndex *index, double x, double y, guint16 *label, guint32 *entry_out, Box *box_out)
{
  if (!find_entry_path (index, x, y, entry_out, box_out, NULL))
    return FALSE;
  return entry_label (index, *entry_out, box_out, x, y, label);
}

static gboolean
label_at (const RlBoundaryIndex *index, double x, double y, guint16 *label)
{
  guint32 entry;
  Box box;
  return label_at_full (index, x, y, label, &entry, &box);
}

static inline RlCountry
label_country (const RlBoundaryIndex *index, guint16 label)
{
  return label == RL_BIDX_LABEL_NONE ? RL_COUNTRY_NONE : index->codes[label];
}

/* ---- distance to the nearest edge ------------------------------------- */

typedef struct {
  const RlBoundaryIndex *index;
  double qx, qy;        /* query, degrees */
  double kx, ky;        /* metres per degree of longitude / latitude at the query */
  double kmin;          /* metres per degree of longitude, smallest within reach */
  double floor_d2;      /* only edges farther than this, squared (skipped ones are nearer) */
  double best_d2;       /* best_m squared, as measured (best_m is its root) */
  double best_m;
  double ax, ay, bx, by; /* nearest edge, local metres around the query */
  gboolean found;
  gboolean bad;
  gboolean wrap;        /* a box across the antimeridian may be within reach */
  guint32 own_leaf;     /* searched first; G_MAXUINT32: none */
  guint32 near_leaf;    /* the leaf that holds the nearest edge, and its box */
  Box near_box;
} Near;

/* label_at () of a point just past nr's nearest edge: it nearly always
 * lies in the leaf that holds the edge, which is in the cache and needs no
 * walk down the tree (find_entry () would reach the same leaf: its box is
 * the same halving of the same grid cell). */
static gboolean
label_near (const RlBoundaryIndex *index, const Near *nr, double x, double y, guint16 *label)
{
  const Box *b = &nr->near_box;

  if (x >= b->x0 && x < b->x1 && y >= b->y0 && y < b->y1)
    return leaf_label (index, nr->near_leaf, b, x, y, label);
  return label_at (index, x, y, label);
}

static inline double
wrap_lon (double d)
{
  if (d > 180.0)
    d -= 360.0;
  else if (d < -180.0)
    d += 360.0;
  return d;
}

/* The point of nr's nearest edge nearest the query, local metres; returns
 * where along the edge it lies (0 at a, 1 at b). */
static inline double
near_point (const Near *nr, double *px, double *py)
{
  double dx = nr->bx - nr->ax, dy = nr->by - nr->ay, l2 = dx * dx + dy * dy, t = 0;

  if (l2 > 0)
    t = CLAMP (-(nr->ax * dx + nr->ay * dy) / l2, 0.0, 1.0);
  *px = nr->ax + t * dx;
  *py = nr->ay + t * dy;
  return t;
}

/* Local metres around nr's query back to longitude and latitude. */
static inline void
near_to_lonlat (const Near *nr, double px, double py, double *lon, double *lat)
{
  *lon = wrap_lon (nr->qx + px / MAX (nr->kx, 1e-6));
  *lat = CLAMP (nr->qy + py / nr->ky, -90.0, 90.0);
}

static void
near_leaf (Near *nr, guint32 offset, const Box *box)
{
  const RlBoundaryIndex *index = nr->index;
  LeafReader r;
  const guint16 *head, *p;
  double gx0, gy0, sx, sy, ox, oy;
  const guint16 seam_w = (guint16) RL_BIDX_QPAD, seam_e = (guint16) (RL_BIDX_QPAD + RL_BIDX_QSPAN);
  gboolean west, east, skip;
  guint16 word;
  guint n;

  if (!leaf_reader_init (&r, index, offset, &head))
    {
      nr->bad = TRUE;
      return;
    }
  leaf_frame (box, &gx0, &gy0, &sx, &sy);
  west = box->x0 <= -180.0;
  east = box->x1 >= 180.0;
  /* Local metres: X = (lon - qx) * kx, Y = (lat - qy) * ky. */
  ox = wrap_lon (gx0 - nr->qx) * nr->kx;
  oy = (gy0 - nr->qy) * nr->ky;
  sx *= nr->kx;
  sy *= nr->ky;
  while (leaf_next_group (&r, &word))
    while (leaf_next_chain_full (&r, &p, &n, &skip))
      {
        /* a border's other copy: the same edges, already measured */
        if (skip)
          continue;
        /* each point converted once, as the end of one edge and the start
         * of the next */
        double ax = ox + p[0] * sx, ay = oy + p[1] * sy, a2 = ax * ax + ay * ay;
        double lim2 = nr->best_m * nr->best_m * (1 + 1e-9) + 1e-6;

        for (guint i = 1; i < n; ax = ox + p[2 * i] * sx, ay = oy + p[2 * i + 1] * sy, a2 = ax * ax + ay * ay, i++)
          {
            double bx = ox + p[2 * i] * sx, by = oy + p[2 * i + 1] * sy, b2 = bx * bx + by * by;
            double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, dot = -(ax * dx + ay * dy);
            double cross = ax * dy - ay * dx, t = 0, px, py, d;
            /* The squared distance to the edge is a2 or b2 at its ends and
             * cross² / l2 between them: tested without a division or a
             * branch an edge, a hair generously (lim2), so only edges that
             * may be nearer take the exact measure below (most edges of a
             * leaf are not, near a border). */
            gboolean near_end = MIN (a2, b2) < lim2;
            gboolean near_mid = (dot > 0) & (dot < l2) & (cross * cross < lim2 * l2);

            if (!(near_end | near_mid))
              continue;
            /* GeoJSON cuts features at ±180°; the cut is not a border (the
             * same feature goes on across it), so it is not a candidate. */
            if ((west || east) && p[2 * i - 2] == p[2 * i] &&
                ((west && p[2 * i] == seam_w) || (east && p[2 * i] == seam_e)))
              continue;
            if (l2 > 0)
              t = CLAMP (dot / l2, 0.0, 1.0);
            px = ax + t * dx;
            py = ay + t * dy;
            d = px * px + py * py;
            if (d < nr->best_m * nr->best_m && d > nr->floor_d2)
              {
                nr->best_m = sqrt (d);
                nr->best_d2 = d;
                nr->ax = ax;
                nr->ay = ay;
                nr->bx = bx;
                nr->by = by;
                nr->found = TRUE;
                nr->near_leaf = offset;
                nr->near_box = *box;
                lim2 = nr->best_m * nr->best_m * (1 + 1e-9) + 1e-6;
              }
          }
      }
  if (r.bad)
    nr->bad = TRUE;
}

/* Lower bound of the squared distance in metres² from the query to a box
 * (longitudes wrap). */
static inline double
box_dist2 (const Near *nr, const Box *box)
{
  double dy = 0, dx;

  if (nr->qy < box->y0)
    dy = box->y0 - nr->qy;
  else if (nr->qy > box->y1)
    dy = nr->qy - box->y1;
  if (nr->qx >= box->x0 && nr->qx <= box->x1)
    dx = 0;
  else if (!nr->wrap)
    /* no box across the antimeridian is within reach: the plain distance,
     * the same value as the wrapped one */
    dx = nr->qx < box->x0 ? box->x0 - nr->qx : nr->qx - box->x1;
  else
    dx = MIN (fabs (wrap_lon (box->x0 - nr->qx)), fabs (wrap_lon (nr->qx - box->x1)));
  /* kmin: metres per degree of longitude at the latitude nearest a pole
   * that is still within reach, so the bound stays a bound. */
  dy *= EARTH_M_PER_DEG;
  dx *= nr->kmin;
  return dy * dy + dx * dx;
}

static void near_node (Near *nr, guint32 node, const Box *box, guint depth);

/* An entry whose box is within best_m (the caller checked). */
static inline void
near_entry_in_reach (Near *nr, guint32 entry, const Box *box, guint depth)
{
  const RlBoundaryIndex *index = nr->index;

  switch (RL_BIDX_ENTRY_TYPE (entry))
    {
    case RL_BIDX_TYPE_UNIFORM:
      return;
    case RL_BIDX_TYPE_LEAF:
      if (RL_BIDX_ENTRY_VALUE (entry) >= index->leaves_words)
        nr->bad = TRUE;
      else if (RL_BIDX_ENTRY_VALUE (entry) != nr->own_leaf)   /* already searched */
        near_leaf (nr, RL_BIDX_ENTRY_VALUE (entry), box);
      return;
    case RL_BIDX_TYPE_NODE:
      near_node (nr, RL_BIDX_ENTRY_VALUE (entry), box, depth);
      return;
    default:
      nr->bad = TRUE;
    }
}

static void
near_entry (Near *nr, guint32 entry, Box box, guint depth)
{
  if (nr->bad || box_dist2 (nr, &box) >= nr->best_m * nr->best_m)
    return;
  near_entry_in_reach (nr, entry, &box, depth);
}

/* A quarter of a box: c & 1 the east half, c & 2 the north half. */
static inline Box
quarter (const Box *b, double cx, double cy, guint c)
{
  Box q = { (c & 1) ? cx : b->x0, (c & 2) ? cy : b->y0, (c & 1) ? b->x1 : cx, (c & 2) ? b->y1 : cy };
  return q;
}

/* How far v lies outside [lo, hi], in degrees (0 inside). */
static inline double
gap (double v, double lo, double hi)
{
  if (v >= lo && v <= hi)
    return 0;
  return v < lo ? lo - v : v - hi;
}

/* box_dist2 () of each quarter of b, the same values; where the search
 * does not wrap (nearly always), from two gaps an axis instead of four
 * boxes. */
static inline void
quarters_dist2 (const Near *nr, const Box *b, double cx, double cy, double d2[4])
{
  double dx[2], dy[2];

  if (nr->wrap)
    {
      for (guint c = 0; c < 4; c++)
        {
          Box q = quarter (b, cx, cy, c);
          d2[c] = box_dist2 (nr, &q);
        }
      return;
    }
  dx[0] = gap (nr->qx, b->x0, cx) * nr->kmin;
  dx[1] = gap (nr->qx, cx, b->x1) * nr->kmin;
  dy[0] = gap (nr->qy, b->y0, cy) * EARTH_M_PER_DEG;
  dy[1] = gap (nr->qy, cy, b->y1) * EARTH_M_PER_DEG;
  for (guint c = 0; c < 4; c++)
    d2[c] = dy[c >> 1] * dy[c >> 1] + dx[c & 1] * dx[c & 1];
}

/* A node's children within best_m, nearest child first: its edges shrink
 * best_m and prune the rest.  Each child's box is tested here, before the
 * entry is read. */
static void
near_node (Near *nr, guint32 node, const Box *box, guint depth)
{
  const RlBoundaryIndex *index = nr->index;
  double cx = (box->x0 + box->x1) / 2, cy = (box->y0 + box->y1) / 2, d2[4];
  guint first;

  if (depth >= index->max_depth || node >= index->n_nodes)
    {
      nr->bad = TRUE;
      return;
    }
  first = (nr->qx >= cx ? 1 : 0) | (nr->qy >= cy ? 2 : 0);
  quarters_dist2 (nr, box, cx, cy, d2);
  for (guint k = 0; k < 4 && !nr->bad; k++)
    {
      guint c = first ^ k;

      if (d2[c] < nr->best_m * nr->best_m)
        {
          Box cb = quarter (box, cx, cy, c);
          near_entry_in_reach (nr, index->nodes[(gsize) node * 4 + c], &cb, depth + 1);
        }
    }
}

/* Every grid cell within best_m of the query, across the antimeridian and
 * over the poles, but the one numbered skip (G_MAXUINT32: none). */
static void
near_search_grid (Near *nr, guint32 skip)
{
  guint32 n = 1u << RL_BIDX_GRID_DEPTH;
  double cell_w = 360.0 / n, cell_h = 180.0 / n;
  double dlat = nr->best_m / EARTH_M_PER_DEG;
  double lat_far = MIN (90.0, fabs (nr->qy) + dlat);
  double coslat = cos (lat_far * G_PI / 180.0);
  double dlon = coslat > 1e-9 ? nr->best_m / (EARTH_M_PER_DEG * coslat) : 360.0;
  gint64 iy0 = (gint64) floor ((nr->qy - dlat + 90.0) / cell_h);
  gint64 iy1 = (gint64) floor ((nr->qy + dlat + 90.0) / cell_h);
  gint64 ix0, ix1;

  if (dlon >= 180.0)
    {
      ix0 = 0;
      ix1 = n - 1;
    }
  else
    {
      ix0 = (gint64) floor ((nr->qx - dlon + 180.0) / cell_w);
      ix1 = (gint64) floor ((nr->qx + dlon + 180.0) / cell_w);
    }
  iy0 = CLAMP (iy0, 0, (gint64) n - 1);
  iy1 = CLAMP (iy1, 0, (gint64) n - 1);
  for (gint64 iy = iy0; iy <= iy1; iy++)
    for (gint64 i = ix0; i <= ix1 && i < ix0 + n; i++)
      {
        guint32 ix = (guint32) (((i % n) + n) % n);
        if ((guint32) iy * n + ix == skip)
          continue;
        near_entry (nr, nr->index->grid[(gsize) iy * n + ix], grid_box (ix, (guint32) iy), RL_BIDX_GRID_DEPTH);
      }
}

static void
near_search (Near *nr)
{
  near_search_grid (nr, G_MAXUINT32);
}

/* The search around a query that lies in path's last entry (its own leaf
 * or uniform cell, already searched): the other children of each node on
 * the path, deepest first, until the node's box holds every point within
 * best_m (by the bound near_entry () prunes with); then the other grid
 * cells if that is not the grid cell's.  The same edges as near_search ()
 * within best_m, fewer nodes on the way. */
static void
near_search_up (Near *nr, const Path *path)
{
  for (guint l = path->n; l-- > 0;)
    {
      const Box *b = &path->box[l];
      double cx = (b->x0 + b->x1) / 2, cy = (b->y0 + b->y1) / 2;
      guint own = path->child[l];
      double d2[4];

      quarters_dist2 (nr, b, cx, cy, d2);
      for (guint k = 1; k < 4 && !nr->bad; k++)
        {
          guint c = own ^ k;

          if (d2[c] < nr->best_m * nr->best_m)
            {
              Box cb = quarter (b, cx, cy, c);
              near_entry_in_reach (nr, nr->index->nodes[(gsize) path->node[l] * 4 + c], &cb, RL_BIDX_GRID_DEPTH + l + 1);
            }
        }
      if ((nr->qy - b->y0) * EARTH_M_PER_DEG >= nr->best_m && (b->y1 - nr->qy) * EARTH_M_PER_DEG >= nr->best_m &&
          (nr->qx - b->x0) * nr->kmin >= nr->best_m && (b->x1 - nr->qx) * nr->kmin >= nr->best_m)
        return;
    }
  near_search_grid (nr, path->grid_iy * (1u << RL_BIDX_GRID_DEPTH) + path->grid_ix);
}

/* A point just past the nearest edge: way 0 continues the line from the
 * query through the nearest point, ways 1 and 2 step off the edge along its
 * normal (needed where the nearest point is a vertex of a sharp corner).
 * Where the nearest point is an end of the edge (a vertex), ways 3 and 4
 * step along the edge from it and a little to either side: the tip of a
 * narrow spike of the other country, seen from outside it, has its inside
 * in none of the first three directions, but just beside its own edge. */
#define BEYOND_WAYS 5

static gboolean
beyond_point (const Near *nr, int way, double *x, double *y)
{
  double dx = nr->bx - nr->ax, dy = nr->by - nr->ay, l = sqrt (dx * dx + dy * dy), px, py, len, ux, uy, step = BEYOND_M;
  double t = near_point (nr, &px, &py);

  len = sqrt (px * px + py * py);
  if (way == 0 && len > 1e-3)
    {
      ux = px / len;
      uy = py / len;
    }
  else if (way >= 3)
    {
      /* along the edge into it (from its nearer end), a fifth of that to the side */
      double along = MIN (BEYOND_M, l / 2), side = way == 4 ? -1 : 1, ex, ey;

      if (!(l > 0) || (t > 0 && t < 1))
        return FALSE;
      ex = (t == 0 ? dx : -dx) / l;
      ey = (t == 0 ? dy : -dy) / l;
      ux = ex * along - ey * side * along / 5;
      uy = ey * along + ex * side * along / 5;
      step = 1;
    }
  else
    {
      double side = way == 2 ? -1 : 1;
      ux = l > 0 ? -dy / l * side : side;
      uy = l > 0 ? dx / l * side : 0;
    }
  near_to_lonlat (nr, px + ux * step, py + uy * step, x, y);
  return TRUE;
}

static void
near_init (Near *nr, const RlBoundaryIndex *index, double lon, double lat, guint32 entry)
{
  memset (nr, 0, sizeof *nr);
  nr->index = index;
  nr->qx = lon;
  nr->qy = lat;
  nr->ky = EARTH_M_PER_DEG;
  {
    /* kmin = cos (|lat| + reach) from the sine and cosine of |lat| (one
     * call), a hair smaller than computed, as a bound may be */
    const double reach = RL_BOUNDARY_EXACT_M / EARTH_M_PER_DEG * G_PI / 180.0;
    double a = fabs (lat) * G_PI / 180.0, c = cos (a), sn = sin (a);

    nr->kx = EARTH_M_PER_DEG * c;
    nr->kmin = fabs (lat) + RL_BOUNDARY_EXACT_M / EARTH_M_PER_DEG >= 90.0 ? 0.0 :
               EARTH_M_PER_DEG * (c * cos (reach) - sn * sin (reach)) * (1 - 1e-12);
    nr->kmin = MAX (nr->kmin, 0.0);
  }
  /* Searches reach RL_BOUNDARY_EXACT_M at most (with a margin for the
   * rounding of this test). */
  nr->wrap = !(nr->kmin > 0 && (180.0 - fabs (lon)) * nr->kmin > 2 * RL_BOUNDARY_EXACT_M);
  nr->floor_d2 = -1;
  nr->own_leaf = RL_BIDX_ENTRY_TYPE (entry) == RL_BIDX_TYPE_LEAF ? RL_BIDX_ENTRY_VALUE (entry) : G_MAXUINT32;
}

/* The nearest edge to (lon, lat) within limit_m (nr->found says whether
 * there is one) and the label of the point.  FALSE on a corrupt index. */
static gboolean
nearest_edge_in (const RlBoundaryIndex *index, double lon, double lat, guint32 entry, const Box *box,
                 gboolean own_only, double limit_m, Near *nr)
{
  near_init (nr, index, lon, lat, entry);
  nr->best_m = limit_m;
  if (RL_BIDX_ENTRY_TYPE (entry) == RL_BIDX_TYPE_LEAF)
    near_leaf (nr, RL_BIDX_ENTRY_VALUE (entry), box);
  if (!own_only)
    near_search (nr);
  return !nr->bad;
}

static gboolean
nearest_edge (const RlBoundaryIndex *index, double lon, double lat, double limit_m, Near *nr, guint16 *label)
{
  guint32 entry;
  Box box;

  if (!label_at_full (index, lon, lat, label, &entry, &box))
    return FALSE;
  return nearest_edge_in (index, lon, lat, entry, &box, FALSE, limit_m, nr);
}

/* The label just past nr's nearest edge, seen from a point labelled own;
 * *x, *y (when given): the point it was read at (the query when none
 * was). */
static gboolean
label_across (const RlBoundaryIndex *index, const Near *nr, guint16 own, guint16 *other, double *x, double *y)
{
  *other = own;
  if (x != NULL)
    {
      *x = nr->qx;
      *y = nr->qy;
    }
  for (int way = 0; way < BEYOND_WAYS && label_country (index, *other) == label_country (index, own); way++)
    {
      double bx, by;
      if (!beyond_point (nr, way, &bx, &by))
        continue;
      if (x != NULL)
        {
          *x = bx;
          *y = by;
        }
      if (!label_near (index, nr, bx, by, other))
        return FALSE;
    }
  return TRUE;
}

/* Gaps and holes of the source (boundary.h, RL_BOUNDARY_GAP_M).  nr is the
 * search around a point outside every country, its nearest edge found
 * nearer than RL_BOUNDARY_GAP_M.  The widest disc outside every country
 * that still holds the point touches that edge where it is nearest: its
 * centre lies RL_BOUNDARY_GAP_M from there, straight through the point.
 * If that disc is empty the point is open sea (the edge of a country's
 * waters); if a country reaches into it, the point lies in a gap: *a is the
 * country across the nearest edge, *b the one reaching into the disc (the
 * far side of the gap).  A gap needs two countries around it. */
static gboolean
gap_test (const RlBoundaryIndex *index, const Near *nr, gboolean *gap, RlCountry *a, RlCountry *b)
{
  double dx = nr->bx - nr->ax, dy = nr->by - nr->ay, l2 = dx * dx + dy * dy, px, py, d, ux, uy;
  double cx, cy;
  guint16 across, label;
  Near far;

  *gap = FALSE;
  if (!label_across (index, nr, RL_BIDX_LABEL_NONE, &across, NULL, NULL))
    return FALSE;
  if (across == RL_BIDX_LABEL_NONE)
    return TRUE;
  near_point (nr, &px, &py);
  d = sqrt (px * px + py * py);
  if (d > 0.5)
    {
      ux = -px / d;
      uy = -py / d;
    }
  else
    {
      /* On the edge: away from it, on the side outside every country. */
      double l = sqrt (l2), x, y;
      guint16 side;
      ux = l > 0 ? -dy / l : 1;
      uy = l > 0 ? dx / l : 0;
      near_to_lonlat (nr, ux, uy, &x, &y);
      if (!label_at (index, x, y, &side))
        return FALSE;
      if (side != RL_BIDX_LABEL_NONE)
        {
          ux = -ux;
          uy = -uy;
        }
    }
  near_to_lonlat (nr, px + ux * RL_BOUNDARY_GAP_M, py + uy * RL_BOUNDARY_GAP_M, &cx, &cy);
  /* A little short of the full radius: an edge that only grazes the disc
   * does not close the sea. */
  if (!nearest_edge (index, cx, cy, 0.9 * RL_BOUNDARY_GAP_M, &far, &label))
    return FALSE;
  if (label == RL_BIDX_LABEL_NONE && !far.found)
    return TRUE;
  if (label == RL_BIDX_LABEL_NONE && !label_across (index, &far, RL_BIDX_LABEL_NONE, &label, NULL, NULL))
    return FALSE;
  *gap = TRUE;
  *a = label_country (index, across);
  *b = label == RL_BIDX_LABEL_NONE ? *a : label_country (index, label);
  /* The same country on both sides: a hole in it, or a gap whose other
   * side lies another way.  Look around the point once. */
  for (guint k = 0; k < 8 && *b == *a; k++)
    {
      double ang = k * G_PI / 4, r = 2 * RL_BOUNDARY_GAP_M, x, y;
      near_to_lonlat (nr, r * cos (ang), r * sin (ang), &x, &y);
      if (!label_at (index, x, y, &label))
        return FALSE;
      if (label != RL_BIDX_LABEL_NONE)
        *b = label_country (index, label);
    }
  /* One country all around is no border area: where the territorial seas
   * of one country's islands meet, their arcs leave such pockets of open
   * sea, which this test cannot tell from a hole inside land. */
  *gap = *b != *a;
  return TRUE;
}

/* Is there open sea RL_BOUNDARY_GAP_M past nr's nearest edge, on the
 * line from the query through its nearest point?  *maybe_gap: not sure. */
static gboolean
open_sea_past (const RlBoundaryIndex *index, const Near *nr, gboolean *maybe_gap)
{
  double px, py, d, x, y;
  guint16 label;
  Near far;

  *maybe_gap = TRUE;
  near_point (nr, &px, &py);
  d = sqrt (px * px + py * py);
  if (d < 1e-3)
    return TRUE;
  near_to_lonlat (nr, px * (1 + RL_BOUNDARY_GAP_M / d), py * (1 + RL_BOUNDARY_GAP_M / d), &x, &y);
  if (!nearest_edge (index, x, y, 0.9 * RL_BOUNDARY_GAP_M, &far, &label))
    return FALSE;
  *maybe_gap = label != RL_BIDX_LABEL_NONE || far.found;
  return TRUE;
}

/* Whether the generator flagged (lon, lat) as farther than
 * RL_BOUNDARY_EXACT_M from every edge; *own_only: every edge within reach
 * is in its own leaf. */
static inline gboolean
flagged_far (const RlBoundaryIndex *index, guint32 entry, const Box *box, double lon, double lat, gboolean *own_only)
{
  *own_only = FALSE;
  if (RL_BIDX_ENTRY_TYPE (entry) == RL_BIDX_TYPE_UNIFORM)
    {
      guint32 v = RL_BIDX_ENTRY_VALUE (entry);
      guint col, row;

      if (v & RL_BIDX_UNIFORM_FAR)
        return TRUE;
      col = MIN ((guint) ((lon - box->x0) / (box->x1 - box->x0) * RL_BIDX_PART_COLS), RL_BIDX_PART_COLS - 1);
      row = MIN ((guint) ((lat - box->y0) / (box->y1 - box->y0) * RL_BIDX_PART_ROWS), RL_BIDX_PART_ROWS - 1);
      return (v & (1u << (RL_BIDX_PART_SHIFT + row * RL_BIDX_PART_COLS + col))) != 0;
    }
  else
    {
      guint col = MIN ((guint) ((lon - box->x0) / (box->x1 - box->x0) * RL_BIDX_LEAF_PART_COLS), RL_BIDX_LEAF_PART_COLS - 1);
      guint row = MIN ((guint) ((lat - box->y0) / (box->y1 - box->y0) * RL_BIDX_LEAF_PART_ROWS), RL_BIDX_LEAF_PART_ROWS - 1);
      guint bit = 1u << (row * RL_BIDX_LEAF_PART_COLS + col);
      /* entry_label () checked the leaf's header is in bounds. */
      const guint16 *head = (const guint16 *) (index->leaves + RL_BIDX_ENTRY_VALUE (entry));

      if (head[RL_BIDX_LEAF_FAR] & bit)
        return TRUE;
      /* Every edge within reach is in this leaf, which is in the cache
       * now: the search need not walk the tree. */
      *own_only = (head[RL_BIDX_LEAF_OWN] & bit) != 0;
      return FALSE;
    }
}

/* From a point in @country, nr's nearest edge has no country beyond it
 * (bx, by: just past it): the edge of the waters, or a gap of the source
 * with a neighbour across it?  *neighbour: that neighbour, else unchanged. */
static gboolean
neighbour_across_gap (const RlBoundaryIndex *index, const Near *nr, double bx, double by, RlCountry country,
                      RlCountry *neighbour)
{
  Near past;
  guint16 past_label;
  gboolean gap;
  RlCountry a = RL_COUNTRY_NONE, b = RL_COUNTRY_NONE;

  /* Open sea beyond the edge (the common case, all along every coast)
   * shows at once: a point RL_BOUNDARY_GAP_M past it, on the line from
   * the query, has no edge near it. */
  if (!open_sea_past (index, nr, &gap))
    return FALSE;
  if (!gap)
    return TRUE;
  if (!nearest_edge (index, bx, by, RL_BOUNDARY_GAP_M, &past, &past_label))
    return FALSE;
  if (past_label != RL_BIDX_LABEL_NONE || !past.found)
    return TRUE;
  if (!gap_test (index, &past, &gap, &a, &b))
    return FALSE;
  /* Seen from the far side of the edge, this country is usually the
   * nearest one: the other is across the gap. */
  if (gap)
    *neighbour = a != country ? a : b;
  return TRUE;
}

/* How lookup () runs. */
typedef enum {
  LOOKUP_SHORTCUTS = 1 << 0,   /* the generator's flags and the own-leaf bound */
  LOOKUP_NEIGHBOUR = 1 << 1,   /* name the country across a coast (another search) */
} LookupFlags;

static gboolean lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out, LookupFlags flags);

/* A point in a gap between a and b. */
static gboolean
border_area (RlBoundaryResult *out, RlCountry a, RlCountry b)
{
  out->country = a;
  out->neighbour = b;
  out->border_m = 0;
  out->border_area = TRUE;
  return TRUE;
}

/* rl_boundary_lookup_country () outside every country, near an edge:
 * maybe a gap of the source (kept out of the common path). */
static G_GNUC_NO_INLINE gboolean
country_near_edge (const RlBoundaryIndex *index, double lat, double lon, guint32 entry, const Box *box,
                   gboolean own_only, RlCountry *country)
{
  RlBoundaryResult r;
  Near nr;

  /* no edge within reach: no gap either */
  if (!nearest_edge_in (index, lon, lat, entry, box, own_only, RL_BOUNDARY_GAP_M, &nr))
    return FALSE;
  if (!nr.found)
    return TRUE;
  if (!lookup (index, lat, lon, &r, LOOKUP_SHORTCUTS))
    return FALSE;
  *country = r.country;
  return TRUE;
}

/* A point in range, and its longitude as the lookups use it: the data
 * splits features at the antimeridian, so a point exactly on it belongs to
 * the feature beside it, not to the seam between two halves. */
static inline gboolean
point_prepare (double lat, double *lon)
{
  if (!(lat >= -90.0 && lat <= 90.0 && *lon >= -180.0 && *lon <= 180.0))
    return FALSE;
  *lon = CLAMP (*lon, -180.0 + ANTIMERIDIAN_NUDGE, 180.0 - ANTIMERIDIAN_NUDGE);
  return TRUE;
}

/* rl_boundary_lookup_country () once the walk reached (lon, lat)'s entry. */
static gboolean
country_at (const RlBoundaryIndex *index, double lat, double lon, guint32 entry, const Box *box, RlCountry *country)
{
  guint16 label;
  gboolean own_only;

  *country = RL_COUNTRY_NONE;
  if (!entry_label (index, entry, box, lon, lat, &label))
    return FALSE;
  *country = label_country (index, label);
  /* Outside every country but near an edge: maybe a gap of the source,
   * which the full lookup tells (rare: the edges of the waters, gaps). */
  if (label == RL_BIDX_LABEL_NONE && !flagged_far (index, entry, box, lon, lat, &own_only))
    return country_near_edge (index, lat, lon, entry, box, own_only, country);
  return TRUE;
}

gboolean
rl_boundary_lookup_country (const RlBoundaryIndex *index, double lat, double lon, RlCountry *country)
{
  guint32 entry;
  Box box;

  g_return_val_if_fail (index != NULL, FALSE);
  g_return_val_if_fail (country != NULL, FALSE);
  *country = RL_COUNTRY_NONE;
  if (!point_prepare (lat, &lon) || !find_entry_path (index, lon, lat, &entry, &box, NULL))
    return FALSE;
  return country_at (index, lat, lon, entry, &box, country);
}

static inline void
result_clear (RlBoundaryResult *out)
{
  out->country = RL_COUNTRY_NONE;
  out->neighbour = RL_COUNTRY_NONE;
  out->border_m = 0;
  out->border_area = FALSE;
}

/* LOOKUP_SHORTCUTS: use the generator's flags and the own-leaf bound to
 * skip searches; without them every lookup searches (tests compare the
 * two).  Without LOOKUP_NEIGHBOUR the neighbour across a coast is not
 * looked for (the country, the distance and border_area do not depend on
 * it). */
static gboolean
lookup_at (const RlBoundaryIndex *index, double lat, double lon, guint32 entry, Box box, const Path *path,
           RlBoundaryResult *out, LookupFlags flags)
{
  gboolean shortcuts = (flags & LOOKUP_SHORTCUTS) != 0;
  guint16 label;
  RlCountry country;
  Near nr;
  gboolean own_only = FALSE;
  double own_reach_m = -1;

  result_clear (out);
  if (!entry_label (index, entry, &box, lon, lat, &label))
    return FALSE;
  country = label_country (index, label);
  out->country = country;
  out->border_m = RL_BOUNDARY_EXACT_M;
  /* Most of the world is far from any edge: the generator marked it. */
  if (shortcuts && flagged_far (index, entry, &box, lon, lat, &own_only))
    return TRUE;
  if (!shortcuts)
    own_only = FALSE;

  near_init (&nr, index, lon, lat, entry);
  if (shortcuts && RL_BIDX_ENTRY_TYPE (entry) == RL_BIDX_TYPE_LEAF)
    {
      /* Every other leaf's edges lie in its grown box, which reaches into
       * this leaf's box by its pad at most (leaves are no bigger than a
       * grid cell): so they lie outside inner, and at least own_reach_m
       * from the query as near_leaf () measures. */
      double px = 2 * RL_BIDX_QPAD / RL_BIDX_QSPAN * 360.0 / (1u << RL_BIDX_GRID_DEPTH);
      double py = 2 * RL_BIDX_QPAD / RL_BIDX_QSPAN * 180.0 / (1u << RL_BIDX_GRID_DEPTH);
      double sx = MIN (lon - (box.x0 + px), (box.x1 - px) - lon) * nr.kx;
      double sy = MIN (lat - (box.y0 + py), (box.y1 - py) - lat) * nr.ky;
      own_reach_m = MIN (sx, sy);
    }
  for (guint attempt = 0; attempt <= MAX_SKIPPED_EDGES; attempt++)
    {
      guint16 other;
      double bx, by;

      nr.best_m = RL_BOUNDARY_EXACT_M;
      nr.found = FALSE;
      /* The query's own leaf first: near a border it holds the answer and
       * the wider search is pruned to almost nothing. */
      if (RL_BIDX_ENTRY_TYPE (entry) == RL_BIDX_TYPE_LEAF)
        near_leaf (&nr, RL_BIDX_ENTRY_VALUE (entry), &box);
      /* Other leaves' edges lie outside inner: if this leaf has an edge
       * nearer than inner's sides, the tree walk cannot beat it. */
      if (!own_only && !(nr.found && nr.best_m < own_reach_m))
        {
          /* without the shortcuts, the plain search from the grid down
           * (the tests check the two find the same) */
          if (shortcuts)
            near_search_up (&nr, path);
          else
            near_search (&nr);
        }
      if (nr.bad)
        return FALSE;
      if (!nr.found)
        return TRUE;
      if (!label_across (index, &nr, label, &other, &bx, &by))
        return FALSE;
      out->border_m = nr.best_m;
      if (country == RL_COUNTRY_NONE && attempt == 0 && nr.best_m < RL_BOUNDARY_GAP_M)
        {
          /* Outside every country, close to one: open sea, or a gap? */
          gboolean gap;
          RlCountry a, b;
          if (!gap_test (index, &nr, &gap, &a, &b))
            return FALSE;
          if (gap)
            return border_area (out, a, b);
        }
      if (label_country (index, other) == RL_COUNTRY_NONE && country != RL_COUNTRY_NONE)
        /* The edge of the waters, or a gap with a neighbour across it? */
        return !(flags & LOOKUP_NEIGHBOUR) || neighbour_across_gap (index, &nr, bx, by, country, &out->neighbour);
      else if (label_country (index, other) != country)
        {
          out->neighbour = label_country (index, other);
          return TRUE;
        }
      /* Not a border (an edge inside the same country): look past it.
       * The squared distance as measured, not best_m squared: the root
       * squared again can come out a hair below it, and the same edge
       * would be found again. */
      nr.floor_d2 = nr.best_d2;
    }
  return TRUE;
}

/* The walk down the tree, then lookup_at () (the comment above). */
static gboolean
lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out, LookupFlags flags)
{
  guint32 entry;
  Box box;
  Path path;

  g_return_val_if_fail (index != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  result_clear (out);
  if (!point_prepare (lat, &lon) || !find_entry_path (index, lon, lat, &entry, &box, &path))
    return FALSE;
  return lookup_at (index, lat, lon, entry, box, &path, out, flags);
}

gboolean
rl_boundary_lookup (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  return lookup (index, lat, lon, out, LOOKUP_SHORTCUTS | LOOKUP_NEIGHBOUR);
}

gboolean
rl_boundary_lookup_distance (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  if (!lookup (index, lat, lon, out, LOOKUP_SHORTCUTS))
    return FALSE;
  out->neighbour = RL_COUNTRY_NONE;
  return TRUE;
}

/* Walks in flight at once in rl_boundary_lookup_many (): enough to keep
 * the memory busy, few enough that their paths stay in the L1 cache. */
#define MANY_GROUP 8

/* The walks of a group of points, stepped in turn: each step's load of a
 * node is independent of the other walks', so their cache misses overlap
 * instead of coming one after the other. */
static void
walk_group (const RlBoundaryIndex *index, Walk *w, gboolean *live, guint n)
{
  gboolean more = TRUE;

  while (more)
    {
      more = FALSE;
      for (guint k = 0; k < n; k++)
        if (live[k] && !walk_done (&w[k]))
          {
            live[k] = walk_step (&w[k], index);
            more = TRUE;
          }
    }
  for (guint k = 0; k < n; k++)
    if (live[k] && RL_BIDX_ENTRY_TYPE (w[k].entry) == RL_BIDX_TYPE_LEAF &&
        RL_BIDX_ENTRY_VALUE (w[k].entry) < index->leaves_words)
      __builtin_prefetch (index->leaves + RL_BIDX_ENTRY_VALUE (w[k].entry));
}

void
rl_boundary_lookup_many (const RlBoundaryIndex *index, gsize n, const double *latlon, RlCountry *country,
                         double *border_m, gboolean *ok)
{
  g_return_if_fail (index != NULL);
  g_return_if_fail (n == 0 || (latlon != NULL && country != NULL && ok != NULL));

  for (gsize i0 = 0; i0 < n; i0 += MANY_GROUP)
    {
      guint g = (guint) MIN ((gsize) MANY_GROUP, n - i0);
      Walk w[MANY_GROUP];
      Path path[MANY_GROUP];
      gboolean live[MANY_GROUP];

      for (guint k = 0; k < g; k++)
        {
          double lat = latlon[2 * (i0 + k)], lon = latlon[2 * (i0 + k) + 1];
          live[k] = point_prepare (lat, &lon);
          if (live[k])
            walk_start (&w[k], index, lon, lat, border_m != NULL ? &path[k] : NULL);
        }
      walk_group (index, w, live, g);
      for (guint k = 0; k < g; k++)
        {
          gsize i = i0 + k;
          double lat = latlon[2 * i];

          if (!live[k])
            {
              ok[i] = FALSE;
              country[i] = RL_COUNTRY_NONE;
              if (border_m != NULL)
                border_m[i] = 0;
            }
          else if (border_m == NULL)
            ok[i] = country_at (index, lat, w[k].x, w[k].entry, &w[k].box, &country[i]);
          else
            {
              RlBoundaryResult r;
              ok[i] = lookup_at (index, lat, w[k].x, w[k].entry, w[k].box, &path[k], &r, LOOKUP_SHORTCUTS);
              country[i] = r.country;
              border_m[i] = r.border_m;
            }
        }
    }
}

gboolean
rl_boundary_lookup_searching (const RlBoundaryIndex *index, double lat, double lon, RlBoundaryResult *out)
{
  return lookup (index, lat, lon, out, LOOKUP_NEIGHBOUR);
}

/* ---- the stored edges, for maps ----------------------------------------- */

typedef struct {
  const RlBoundaryIndex *index;
  Box want;
  RlBoundaryChainFunc func;
  gpointer user_data;
  GArray *points;   /* double */
  gboolean bad;
} Chains;

static void
chains_leaf (Chains *ch, guint32 offset, const Box *box)
{
  const RlBoundaryIndex *index = ch->index;
  LeafReader r;
  const guint16 *head, *p;
  double gx0, gy0, sx, sy;
  guint16 word;
  guint n;

  if (!leaf_reader_init (&r, index, offset, &head))
    {
      ch->bad = TRUE;
      return;
    }
  leaf_frame (box, &gx0, &gy0, &sx, &sy);
  while (leaf_next_group (&r, &word))
    {
      guint16 feature = word & RL_BIDX_MAX_FEATURES;

      if (feature >= index->n_features)
        {
          ch->bad = TRUE;
          return;
        }
      while (leaf_next_chain (&r, &p, &n))
        {
          g_array_set_size (ch->points, 0);
          for (guint i = 0; i < n; i++)
            {
              double xy[2] = { gx0 + p[2 * i] * sx, gy0 + p[2 * i + 1] * sy };
              g_array_append_vals (ch->points, xy, 2);
            }
          if (n >= 2)
            ch->func (index->codes[feature], (const double *) ch->points->data, n, ch->user_data);
        }
    }
  if (r.bad)
    ch->bad = TRUE;
}

static void
chains_entry (Chains *ch, guint32 entry, Box box, guint depth)
{
  const RlBoundaryIndex *index = ch->index;

  if (ch->bad || box.x1 < ch->want.x0 || box.x0 > ch->want.x1 || box.y1 < ch->want.y0 || box.y0 > ch->want.y1)
    return;
  switch (RL_BIDX_ENTRY_TYPE (entry))
    {
    case RL_BIDX_TYPE_UNIFORM:
      return;
    case RL_BIDX_TYPE_LEAF:
      if (RL_BIDX_ENTRY_VALUE (entry) >= index->leaves_words)
        ch->bad = TRUE;
      else
        chains_leaf (ch, RL_BIDX_ENTRY_VALUE (entry), &box);
      return;
    case RL_BIDX_TYPE_NODE:
      {
        guint32 node = RL_BIDX_ENTRY_VALUE (entry);
        double cx = (box.x0 + box.x1) / 2, cy = (box.y0 + box.y1) / 2;
        if (depth >= index->max_depth || node >= index->n_nodes)
          {
            ch->bad = TRUE;
            return;
          }
        for (guint c = 0; c < 4; c++)
          chains_entry (ch, index->nodes[(gsize) node * 4 + c], quarter (&box, cx, cy, c), depth + 1);
        return;
      }
    default:
      ch->bad = TRUE;
    }
}

gboolean
rl_boundary_foreach_chain (const RlBoundaryIndex *index, double south, double west, double north, double east,
                           RlBoundaryChainFunc func, gpointer user_data)
{
  guint32 n = 1u << RL_BIDX_GRID_DEPTH;
  Chains ch = { index, { MAX (west, -180.0), MAX (south, -90.0), MIN (east, 180.0), MIN (north, 90.0) }, func, user_data,
                g_array_new (FALSE, FALSE, sizeof (double)), FALSE };
  guint32 ix0, ix1, iy0, iy1;

  if (!(ch.want.x0 <= ch.want.x1 && ch.want.y0 <= ch.want.y1))
    {
      g_array_unref (ch.points);
      return TRUE;
    }
  ix0 = grid_cell (ch.want.x0, -180.0, 360.0, n);
  ix1 = grid_cell (ch.want.x1, -180.0, 360.0, n);
  iy0 = grid_cell (ch.want.y0, -90.0, 180.0, n);
  iy1 = grid_cell (ch.want.y1, -90.0, 180.0, n);
  for (guint32 iy = iy0; iy <= iy1 && !ch.bad; iy++)
    for (guint32 ix = ix0; ix <= ix1 && !ch.bad; ix++)
      chains_entry (&ch, index->grid[(gsize) iy * n + ix], grid_box (ix, iy), RL_BIDX_GRID_DEPTH);
  g_array_unref (ch.points);
  return !ch.bad;
}
