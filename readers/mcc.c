#include "readers/mcc.h"

#include <string.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

G_DEFINE_QUARK (rl-mcc-error-quark, rl_mcc_error)

/* serviceproviders.xml nests network-id four levels deep; deeper is not walked. */
#define MAX_DEPTH 16

struct RlMccTable {
  /* key: mcc + 1 (by MCC) or pair_key() (by network); value: GArray of RlCountry */
  GHashTable *by_mcc;
  GHashTable *by_network;
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

static char *
attribute (xmlTextReader *x, const char *name)
{
  xmlChar *v = xmlTextReaderGetAttribute (x, (const xmlChar *) name);
  char *out = v != NULL ? g_strdup ((const char *) v) : NULL;

  xmlFree (v);
  return out;
}

static void
read_network (RlMccTable *t, xmlTextReader *x, RlCountry country)
{
  g_autofree char *mcc_s = attribute (x, "mcc");
  g_autofree char *mnc_s = attribute (x, "mnc");

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
          t->stats.networks++;
        }
    }
}

static gboolean
name_is (xmlTextReader *x, const char *name)
{
  const xmlChar *n = xmlTextReaderConstLocalName (x);
  return n != NULL && strcmp ((const char *) n, name) == 0;
}

static RlCountry
country_of (xmlTextReader *x)
{
  g_autofree char *code = attribute (x, "code");
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

/* Streams the document (xmlTextReader: memory bounded by its depth, not
 * its size; the daemon keeps only the table). */
static gboolean
read_document (RlMccTable *t, xmlTextReader *x, GError **error)
{
  gboolean root_seen = FALSE, in_country = FALSE;
  int country_depth = -1, rc;
  RlCountry country = RL_COUNTRY_NONE;

  while ((rc = xmlTextReaderRead (x)) == 1)
    {
      int type = xmlTextReaderNodeType (x);
      int depth = xmlTextReaderDepth (x);

      if (type == XML_READER_TYPE_END_ELEMENT && in_country && depth == country_depth)
        in_country = FALSE;
      if (type != XML_READER_TYPE_ELEMENT)
        continue;
      if (!root_seen)
        {
          root_seen = TRUE;
          if (!name_is (x, "serviceproviders"))
            {
              g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "not a serviceproviders document");
              return FALSE;
            }
          continue;
        }
      if (depth > MAX_DEPTH)
        continue;
      if (name_is (x, "country") && !in_country)
        {
          country = country_of (x);
          in_country = !xmlTextReaderIsEmptyElement (x);
          country_depth = depth;
        }
      else if (name_is (x, "network-id"))
        {
          if (!in_country)
            t->stats.skipped_no_country++;
          else
            read_network (t, x, country);
        }
    }
  if (rc != 0 || !root_seen)
    {
      /* a truncated or damaged file is refused whole, not read in part */
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "not a well-formed XML document");
      return FALSE;
    }
  return TRUE;
}

/* Reads @x (freed here) into a table. */
static RlMccTable *
table_from_reader (xmlTextReader *x, GError **error)
{
  g_autoptr (RlMccTable) t = NULL;
  gboolean ok;

  if (x == NULL)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "not an XML document");
      return NULL;
    }
  t = g_new0 (RlMccTable, 1);
  t->by_mcc = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, free_array);
  t->by_network = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, free_array);
  ok = read_document (t, x, error);
  xmlFreeTextReader (x);
  if (!ok)
    return NULL;
  if (t->stats.networks == 0)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_EMPTY, "no usable network-id (%u skipped)",
                   t->stats.skipped_bad_code + t->stats.skipped_bad_country + t->stats.skipped_no_country +
                   t->stats.skipped_no_country_mcc);
      return NULL;
    }
  return g_steal_pointer (&t);
}

/* no network, no DTD, no entity substitution: the data file is read as it is */
#define READ_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

RlMccTable *
rl_mcc_table_parse (const char *data, gsize len, GError **error)
{
  if (len > G_MAXINT)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_PARSE, "document too large");
      return NULL;
    }
  return table_from_reader (xmlReaderForMemory (data, (int) len, "serviceproviders.xml", NULL, READ_OPTIONS), error);
}

RlMccTable *
rl_mcc_table_load (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  RlMccTable *t;

  /* streamed from the file: the daemon never holds the whole document */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || g_access (path, R_OK) != 0)
    {
      g_set_error (error, RL_MCC_ERROR, RL_MCC_ERROR_READ, "%s: cannot read it (Debian package "
                   "mobile-broadband-provider-info)", path);
      return NULL;
    }
  t = table_from_reader (xmlReaderForFile (path, NULL, READ_OPTIONS), &local);
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

guint
rl_mcc_table_lookup (const RlMccTable *t, guint mcc, const char *mnc, RlCountry out[RL_MAX_CANDIDATES])
{
  GArray *a = NULL;
  guint n;

  if (!rl_mcc_names_country (mcc))
    return 0;
  if (mnc != NULL && all_digits (mnc, 2, 3))
    a = g_hash_table_lookup (t->by_network, GUINT_TO_POINTER (pair_key (mcc, mnc)));
  if (a == NULL)
    a = g_hash_table_lookup (t->by_mcc, GUINT_TO_POINTER (mcc + 1));
  if (a == NULL)
    return 0;
  n = MIN (a->len, RL_MAX_CANDIDATES);
  memcpy (out, a->data, n * sizeof (RlCountry));
  qsort (out, n, sizeof (RlCountry), cmp_country);
  return n;
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

gboolean
rl_mcc_evidence (const RlMccTable *t, const char *key, guint mcc, const char *mnc,
                 gint64 observed_at, gint64 expires_at, RlEvidence *ev)
{
  RlCountry countries[RL_MAX_CANDIDATES];
  guint n = rl_mcc_table_lookup (t, mcc, mnc, countries);

  if (n == 0)
    return FALSE;
  rl_evidence_init (ev, RL_SOURCE_CELL, key, observed_at, expires_at);
  for (guint i = 0; i < n; i++)
    rl_evidence_add_country (ev, countries[i]);
  g_snprintf (ev->detail, sizeof ev->detail, "mobile network %03u%s%s", mcc,
              mnc != NULL && mnc[0] ? "-" : "", mnc != NULL ? mnc : "");
  g_snprintf (ev->cell.network, sizeof ev->cell.network, "%03u%s%.3s", mcc,
              mnc != NULL && mnc[0] ? "-" : "", mnc != NULL ? mnc : "");
  return TRUE;
}
