#include "readers/mcc.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib/gstdio.h>

G_DEFINE_QUARK (rl-mcc-error-quark, rl_mcc_error)

/* serviceproviders.xml nests network-id four levels deep; deeper is not walked. */
#define MAX_DEPTH 16

struct RlMccTable {
  /* key: mcc + 1 (by MCC) or pair_key() (by network); value: GArray of RlCountry */
  GHashTable *by_mcc;
  GHashTable *by_network;
  guint8 mnc_digits[1000];   /* per MCC: bit 2, bit 3: the list has MNCs of that many digits */
  RlCountrySet countries;    /* every country the list carries a network of */
  RlMccStats stats;
};

static guint
pair_key (guint mcc, const char *mnc)
{
  /* "01" and "001" are different networks: the digit count is part of the key */
  return (1u << 24) | ((guint) strlen (mnc) << 20) | (mcc << 10) | (guint) g_ascii_strtoull (mnc, NULL, 10);
}

static gboolean
all_digits (const char *s, gsize min, gsize max)
{
  gsize n = 0;

  if (s == NULL)
    return FALSE;
  for (; s[n] != '\0'; n++)
    if (!g_ascii_isdigit (s[n]) || n >= max)
      return FALSE;
  return n >= min;
}

gboolean
rl_mcc_names_country (guint mcc)
{
  return mcc >= 200 && mcc <= 799;
}

static void
add_to (GHashTable *h, guint key, RlCountry c)
{
  GArray *a = g_hash_table_lookup (h, GUINT_TO_POINTER (key));

  if (a == NULL)
    {
      a = g_array_new (FALSE, FALSE, sizeof (RlCountry));
      g_hash_table_insert (h, GUINT_TO_POINTER (key), a);
    }
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, RlCountry, i) == c)
      return;
  if (a->len < RL_MAX_CANDIDATES)
    g_array_append_val (a, c);
}

static const char *
attribute (const char **names, const char **values, const char *name)
{
  for (gsize i = 0; names[i] != NULL; i++)
    if (strcmp (names[i], name) == 0)
      return values[i];
  return NULL;
}

static void
read_network (RlMccTable *t, const char **names, const char **values, RlCountry country)
{
  const char *mcc_s = attribute (names, values, "mcc");
  const char *mnc_s = attribute (names, values, "mnc");

  if (!all_digits (mcc_s, 3, 3) || !all_digits (mnc_s, 2, 3))
    t->stats.skipped_bad_code++;
  else if (country == RL_COUNTRY_NONE)
    t->stats.skipped_bad_country++;
  else
    {
      guint mcc = (guint) g_ascii_strtoull (mcc_s, NULL, 10);
      if (!rl_mcc_names_country (mcc))
        t->stats.skipped_no_country_mcc++;
      else
        {
          add_to (t->by_mcc, mcc + 1, country);
          add_to (t->by_network, pair_key (mcc, mnc_s), country);
          t->mnc_digits[mcc] |= (guint8) (1u << strlen (mnc_s));
          rl_country_set_add (&t->countries, country);
          t->stats.networks++;
        }
    }
}

/* The element's name without a namespace prefix. */
static gboolean
name_is (const char *element, const char *name)
{
  const char *colon = strrchr (element, ':');
  return strcmp (colon != NULL ? colon + 1 : element, name) == 0;
}

static RlCountry
country_of (const char **names, const char **values)
{
  const char *code = attribute (names, values, "code");
  RlCountry c = RL_COUNTRY_NONE;

  if (code == NULL || !rl_country_parse (code, &c) || c == RL_COUNTRY_WORLD)
    return RL_COUNTRY_NONE;
  return c;
}

static void
free_array (gpointer p)
{
  g_array_unref (p);
}

/* The state of one streamed document: only the table grows, the rest is the
 * nesting (GMarkup keeps the open elements' names, bounded by MAX_NESTING). */
typedef struct {
  RlMccTable *t;
  int depth;                 /* of the element being opened: the root is 0 */
  int country_depth;         /* depth of the open <country>, -1 outside */
  gboolean root_seen;
  RlCountry country;
} ReadState;

/* A document nested deeper than this is refused (a real one nests 5 levels). */
#define MAX_NESTING 256

static void
on_start (GMarkupParseContext *ctx, const char *element, const char **names, const char **values,
          gpointer user_data, GError **error)
{
  ReadState *st = user_data;
  int depth = st->depth++;

  (void) ctx;
  if (!st->root_seen)
    {
      st->root_seen = TRUE;
      if (!name_is (element, "serviceproviders"))
        g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "not a serviceproviders document");
      return;
    }
  if (depth > MAX_NESTING)
    g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "nested deeper than %d elements", MAX_NESTING);
  if (depth > MAX_DEPTH)
    return;
  if (name_is (element, "country") && st->country_depth < 0)
    {
      st->country = country_of (names, values);
      st->country_depth = depth;
    }
  else if (name_is (element, "network-id"))
    {
      if (st->country_depth < 0)
        st->t->stats.skipped_no_country++;
      else
        read_network (st->t, names, values, st->country);
    }
}

static void
on_end (GMarkupParseContext *ctx, const char *element, gpointer user_data, GError **error)
{
  ReadState *st = user_data;

  (void) ctx; (void) element; (void) error;
  st->depth--;
  if (st->depth == st->country_depth)
    st->country_depth = -1;
}

static const GMarkupParser markup_parser = { .start_element = on_start, .end_element = on_end };

static RlMccTable *
table_new (void)
{
  RlMccTable *t = g_new0 (RlMccTable, 1);

  t->by_mcc = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, free_array);
  t->by_network = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, free_array);
  return t;
}

/* Pulls the document from @next (a file in blocks, or one buffer) through
 * GMarkup: memory bounded by the nesting, not by the document's size.  A
 * truncated or damaged document is refused whole, not read in part. */
typedef gssize (*ReadBlock) (gpointer source, char *buf, gsize size, GError **error);

static RlMccTable *
table_from_blocks (ReadBlock next, gpointer source, GError **error)
{
  g_autoptr (RlMccTable) t = table_new ();
  ReadState st = { .t = t, .country_depth = -1, .country = RL_COUNTRY_NONE };
  g_autoptr (GMarkupParseContext) ctx = g_markup_parse_context_new (&markup_parser, 0, &st, NULL);
  g_autofree char *buf = g_malloc (64 * 1024);
  g_autoptr (GError) local = NULL;
  gssize n;

  while ((n = next (source, buf, 64 * 1024, &local)) > 0)
    if (!g_markup_parse_context_parse (ctx, buf, n, &local))
      break;
  if (local == NULL)
    (void) g_markup_parse_context_end_parse (ctx, &local);
  if (local == NULL && !st.root_seen)
    g_set_error (&local, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "no root element");
  if (local != NULL)
    {
      if (local->domain == RL_MCC_ERROR)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, RL_MCC_ERROR, local->domain == G_FILE_ERROR ? RL_MCC_ERROR_READ : RL_MCC_ERROR_PARSE,
                     "not a well-formed XML document (%s)", local->message);
      return NULL;
    }
  if (t->stats.networks == 0)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_EMPTY, "no usable network-id (%u skipped)",
                   t->stats.skipped_bad_code + t->stats.skipped_bad_country + t->stats.skipped_no_country +
                   t->stats.skipped_no_country_mcc);
      return NULL;
    }
  return g_steal_pointer (&t);
}

typedef struct {
  const char *data;
  gsize len;
} Buffer;

static gssize
read_buffer (gpointer source, char *buf, gsize size, GError **error)
{
  Buffer *b = source;
  gsize n = MIN (size, b->len);

  (void) error;
  memcpy (buf, b->data, n);
  b->data += n;
  b->len -= n;
  return (gssize) n;
}

static gssize
read_fd (gpointer source, char *buf, gsize size, GError **error)
{
  int fd = *(int *) source;
  gssize n;

  do
    n = read (fd, buf, size);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s", g_strerror (errno));
  return n;
}

RlMccTable *
rl_mcc_table_parse (const char *data, gsize len, GError **error)
{
  Buffer b = { data, len };

  return table_from_blocks (read_buffer, &b, error);
}

RlMccTable *
rl_mcc_table_load (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  RlMccTable *t;
  int fd;

  /* streamed from the file: the daemon never holds the whole document */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || (fd = g_open (path, O_RDONLY | O_CLOEXEC, 0)) < 0)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_READ, "%s: cannot read it (Debian package "
                   "mobile-broadband-provider-info)", path);
      return NULL;
    }
  t = table_from_blocks (read_fd, &fd, &local);
  g_close (fd, NULL);
  if (t == NULL)
    g_set_error (error, RL_MCC_ERROR, local->code, "%s: %s", path, local->message);
  return t;
}

void
rl_mcc_table_free (RlMccTable *t)
{
  if (t == NULL)
    return;
  g_clear_pointer (&t->by_mcc, g_hash_table_unref);
  g_clear_pointer (&t->by_network, g_hash_table_unref);
  g_free (t);
}

const RlMccStats *
rl_mcc_table_stats (const RlMccTable *t)
{
  return &t->stats;
}

guint
rl_mcc_table_n_codes (const RlMccTable *t)
{
  return g_hash_table_size (t->by_mcc);
}

static int
cmp_country (gconstpointer a, gconstpointer b)
{
  RlCountry x = *(const RlCountry *) a, y = *(const RlCountry *) b;
  return x < y ? -1 : x > y;
}

/* The list writes some countries' three-digit MNCs with two digits
 * (Telcel, 334-020, as "02"), and a modem may print a three-digit MNC cut
 * to two: where the list has MNCs of the other length only for @mcc,
 * "020" is its "02" and "02" its "020".  NULL where that does not apply. */
static GArray *
other_length (const RlMccTable *t, guint mcc, const char *mnc)
{
  char alt[4] = { mnc[0], mnc[1], '\0', '\0' };

  if (mnc[2] == '0' && mnc[3] == '\0' && t->mnc_digits[mcc] == 1u << 2)
    ;   /* "020" -> "02" */
  else if (mnc[2] == '\0' && t->mnc_digits[mcc] == 1u << 3)
    alt[2] = '0';   /* "02" -> "020" */
  else
    return NULL;
  return g_hash_table_lookup (t->by_network, GUINT_TO_POINTER (pair_key (mcc, alt)));
}

/* rl_mcc_table_lookup (), and whether the list carries network @mnc
 * itself (*@listed FALSE: the countries are its code's). */
static guint
table_lookup (const RlMccTable *t, guint mcc, const char *mnc, RlCountry out[RL_MAX_CANDIDATES], gboolean *listed)
{
  GArray *a = NULL;
  guint n;

  *listed = FALSE;
  if (!rl_mcc_names_country (mcc))
    return 0;
  if (mnc != NULL && all_digits (mnc, 2, 3))
    {
      a = g_hash_table_lookup (t->by_network, GUINT_TO_POINTER (pair_key (mcc, mnc)));
      if (a == NULL)
        a = other_length (t, mcc, mnc);
    }
  *listed = a != NULL;
  if (a == NULL)
    a = g_hash_table_lookup (t->by_mcc, GUINT_TO_POINTER (mcc + 1));
  if (a == NULL)
    return 0;
  n = MIN (a->len, RL_MAX_CANDIDATES);
  memcpy (out, a->data, n * sizeof (RlCountry));
  qsort (out, n, sizeof (RlCountry), cmp_country);
  return n;
}

guint
rl_mcc_table_lookup (const RlMccTable *t, guint mcc, const char *mnc, RlCountry out[RL_MAX_CANDIDATES])
{
  gboolean listed;

  return table_lookup (t, mcc, mnc, out, &listed);
}

gboolean
rl_mcc_parse_operator_code (const char *text, guint *mcc, char mnc[4])
{
  if (!all_digits (text, 5, 6))
    return FALSE;
  *mcc = (guint) (text[0] - '0') * 100 + (guint) (text[1] - '0') * 10 + (guint) (text[2] - '0');
  g_strlcpy (mnc, text + 3, 4);
  return TRUE;
}

gboolean
rl_mcc_parse_network (const char *text, guint *mcc, char mnc[4])
{
  const char *dash;

  if (text == NULL)
    return FALSE;
  dash = strchr (text, '-');
  if (dash == NULL)
    {
      if (!all_digits (text, 3, 3))
        return FALSE;
      mnc[0] = '\0';
    }
  else
    {
      if (dash - text != 3 || !all_digits (dash + 1, 2, 3))
        return FALSE;
      g_strlcpy (mnc, dash + 1, 4);
    }
  if (!g_ascii_isdigit (text[0]) || !g_ascii_isdigit (text[1]) || !g_ascii_isdigit (text[2]))
    return FALSE;
  *mcc = (guint) (text[0] - '0') * 100 + (guint) (text[1] - '0') * 10 + (guint) (text[2] - '0');
  return TRUE;
}

gboolean
rl_mcc_parse_3gpp_location (const char *text, guint *mcc, char mnc[4])
{
  g_auto (GStrv) parts = NULL;
  guint n;

  if (text == NULL)
    return FALSE;
  parts = g_strsplit (text, ",", 6);
  n = g_strv_length (parts);
  if (n < 4 || n > 5 || !all_digits (parts[0], 3, 3) || !all_digits (parts[1], 2, 3))
    return FALSE;
  for (guint i = 2; i < n; i++)
    {
      if (parts[i][0] == '\0' || strlen (parts[i]) > 16)
        return FALSE;
      for (const char *c = parts[i]; *c; c++)
        if (!g_ascii_isxdigit (*c))
          return FALSE;
    }
  *mcc = (guint) g_ascii_strtoull (parts[0], NULL, 10);
  g_strlcpy (mnc, parts[1], 4);
  return TRUE;
}

/* The countries of the known codes around unknown @mcc, nearest first. */
static void
near_countries (const RlMccTable *t, guint mcc, RlEvidence *ev)
{
  for (guint d = 1; d <= RL_MCC_NEAR_SPAN; d++)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        guint code = sign < 0 ? mcc - d : mcc + d;
        GArray *a = rl_mcc_names_country (code) ? g_hash_table_lookup (t->by_mcc, GUINT_TO_POINTER (code + 1)) : NULL;

        for (guint i = 0; a != NULL && i < a->len; i++)
          {
            RlCountry c = g_array_index (a, RlCountry, i);
            gboolean seen = FALSE;

            for (guint k = 0; k < ev->cell.n_near; k++)
              seen |= ev->cell.near[k] == c;
            if (!seen && ev->cell.n_near < G_N_ELEMENTS (ev->cell.near))
              ev->cell.near[ev->cell.n_near++] = c;
          }
      }
}

gboolean
rl_mcc_evidence (const RlMccTable *t, const char *key, guint mcc, const char *mnc,
                 gint64 observed_at, gint64 expires_at, RlEvidence *ev)
{
  RlCountry countries[RL_MAX_CANDIDATES];
  gboolean listed;
  guint n = table_lookup (t, mcc, mnc, countries, &listed);

  if (!rl_mcc_names_country (mcc))
    return FALSE;
  rl_evidence_init (ev, RL_SOURCE_CELL, key, observed_at, expires_at);
  if (n == 0)
    {
      ev->cell.unknown = TRUE;
      near_countries (t, mcc, ev);
      ev->cell.listed = t->countries;
    }
  else if (mnc != NULL && mnc[0] != '\0' && !listed)
    {
      ev->cell.unlisted = TRUE;
      ev->cell.n_near = n;
      memcpy (ev->cell.near, countries, n * sizeof (RlCountry));
      ev->cell.listed = t->countries;
    }
  else
    for (guint i = 0; i < n; i++)
      rl_evidence_add_country (ev, countries[i]);
  g_snprintf (ev->detail, sizeof ev->detail, "mobile network %03u%s%s", mcc,
              mnc != NULL && mnc[0] ? "-" : "", mnc != NULL ? mnc : "");
  g_snprintf (ev->cell.network, sizeof ev->cell.network, "%03u%s%.3s", mcc,
              mnc != NULL && mnc[0] ? "-" : "", mnc != NULL ? mnc : "");
  return TRUE;
}
