#include "readers/scanlog.h"
#include "core/enum-names.h"
#include "readers/json-depth.h"

#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "readers/nl80211-scan.h"
#include "readers/mcc.h"

G_DEFINE_QUARK (rl-scanlog-error-quark, rl_scanlog_error)

static const char *const error_names[] = {
  [RL_SCANLOG_ERROR_NOT_JSON] = "bad_json",
  [RL_SCANLOG_ERROR_BAD_TIME] = "bad_time",
  [RL_SCANLOG_ERROR_BAD_BSSID] = "bad_bssid",
  [RL_SCANLOG_ERROR_BAD_IES] = "bad_ies",
  [RL_SCANLOG_ERROR_BAD_FIELD] = "bad_field",
};

const char *
rl_scanlog_error_to_string (RlScanLogError code)
{
  return RL_ENUM_NAME (error_names, code, "bad_field");
}

void
rl_scanlog_entry_clear (RlScanLogEntry *entry)
{
  g_clear_pointer (&entry->ies, g_free);
  entry->ies_len = 0;
}

static char *
iso_time (gint64 time)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (time / RL_USEC_PER_SEC);
  g_autoptr (GDateTime) dtu = g_date_time_add (dt, time % RL_USEC_PER_SEC);
  return g_date_time_format (dtu, "%Y-%m-%dT%H:%M:%S.%fZ");
}

static char *
to_line (JsonBuilder *b)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

char *
rl_scanlog_format (gint64 time, const char *ifname, const guint8 bssid[6], guint32 freq_mhz,
                   gboolean has_signal, gint32 signal_mbm, const char *ssid,
                   const guint8 *ies, gsize ies_len)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree char *iso = iso_time (time);
  char bssid_text[18];
  GString *hex = g_string_sized_new (ies_len * 2 + 1);

  for (gsize i = 0; i < ies_len; i++)
    g_string_append_printf (hex, "%02x", ies[i]);
  rl_bssid_to_string (bssid, bssid_text);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "time");
  json_builder_add_string_value (b, iso);
  json_builder_set_member_name (b, "ifname");
  json_builder_add_string_value (b, ifname != NULL ? ifname : "");
  json_builder_set_member_name (b, "bssid");
  json_builder_add_string_value (b, bssid_text);
  json_builder_set_member_name (b, "freq");
  json_builder_add_int_value (b, freq_mhz);
  json_builder_set_member_name (b, "signal_dbm");
  if (has_signal)
    json_builder_add_double_value (b, signal_mbm / 100.0);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "ssid");
  json_builder_add_string_value (b, ssid != NULL ? ssid : "");
  json_builder_set_member_name (b, "ies");
  json_builder_add_string_value (b, hex->str);
  json_builder_end_object (b);
  g_string_free (hex, TRUE);
  return to_line (b);
}

static gboolean
fail (GError **error, RlScanLogError code, const char *what)
{
  g_set_error (error, RL_SCANLOG_ERROR, code, "%s", what);
  return FALSE;
}

/* Whether an ISO 8601 date and time names its zone: a 'Z' or an offset
 * after the time (the date's own '-' come before it). */
static gboolean
names_zone (const char *iso)
{
  const char *t = iso + strcspn (iso, "Tt ");

  return t[0] != '\0' && t[strcspn (t, "Zz+-")] != '\0';
}

/* The record's "time" member, in µs since the epoch; @no_zone: it named
 * no zone and was read as UTC, which the caller counts. */
static gboolean
member_time (JsonObject *o, gint64 *time, gboolean *no_zone, GError **error)
{
  JsonNode *n = json_object_get_member (o, "time");

  if (n == NULL || json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (error, RL_SCANLOG_ERROR_BAD_TIME, "no \"time\" string");
  g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (json_node_get_string (n), utc);
  if (dt == NULL)
    return fail (error, RL_SCANLOG_ERROR_BAD_TIME, "\"time\" is not ISO 8601");
  *no_zone = !names_zone (json_node_get_string (n));
  *time = g_date_time_to_unix (dt) * RL_USEC_PER_SEC + g_date_time_get_microsecond (dt);
  /* no scan predates 1970, and the records are written with 4-digit years only */
  if (*time < 0)
    return fail (error, RL_SCANLOG_ERROR_BAD_TIME, "\"time\" is before 1970");
  return TRUE;
}

gboolean
rl_scanlog_parse (const char *line, gssize len, RlScanLogEntry *out, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  JsonObject *o;
  JsonNode *n;

  memset (out, 0, sizeof *out);
  if (!rl_json_load_line (parser, line, len < 0 ? strlen (line) : (gsize) len, &local))
    {
      g_set_error (error, RL_SCANLOG_ERROR, RL_SCANLOG_ERROR_NOT_JSON, "bad JSON: %s", local->message);
      return FALSE;
    }
  n = json_parser_get_root (parser);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return fail (error, RL_SCANLOG_ERROR_NOT_JSON, "not a JSON object");
  o = json_node_get_object (n);

  if (!member_time (o, &out->time, &out->time_no_zone, error))
    return FALSE;

  n = json_object_get_member (o, "bssid");
  if (n == NULL || json_node_get_value_type (n) != G_TYPE_STRING || !rl_bssid_parse (json_node_get_string (n), out->bssid))
    return fail (error, RL_SCANLOG_ERROR_BAD_BSSID, "\"bssid\" is not aa:bb:cc:dd:ee:ff");

  n = json_object_get_member (o, "ies");
  if (n == NULL || json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (error, RL_SCANLOG_ERROR_BAD_IES, "no \"ies\" hex string");
  const char *hex = json_node_get_string (n);
  gsize hex_len = strlen (hex);
  if (hex_len % 2 != 0)
    return fail (error, RL_SCANLOG_ERROR_BAD_IES, "\"ies\" has an odd number of hex digits");
  out->ies = g_malloc (hex_len / 2 + 1);
  out->ies_len = hex_len / 2;
  for (gsize i = 0; i < out->ies_len; i++)
    {
      if (!g_ascii_isxdigit (hex[2 * i]) || !g_ascii_isxdigit (hex[2 * i + 1]))
        {
          rl_scanlog_entry_clear (out);
          return fail (error, RL_SCANLOG_ERROR_BAD_IES, "\"ies\" is not hex");
        }
      out->ies[i] = (guint8) (g_ascii_xdigit_value (hex[2 * i]) << 4 | g_ascii_xdigit_value (hex[2 * i + 1]));
    }

  /* optional fields: absent or null is "unknown"; the wrong type is an error */
  n = json_object_get_member (o, "ifname");
  if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    {
      if (json_node_get_value_type (n) != G_TYPE_STRING)
        goto bad_field;
      g_strlcpy (out->ifname, json_node_get_string (n), sizeof out->ifname);
    }
  n = json_object_get_member (o, "ssid");
  if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    {
      if (json_node_get_value_type (n) != G_TYPE_STRING)
        goto bad_field;
      g_strlcpy (out->ssid, json_node_get_string (n), sizeof out->ssid);
    }
  n = json_object_get_member (o, "freq");
  if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    {
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
        goto bad_field;
      gint64 f = json_node_get_int (n);
      if (f < 0 || f > 100000)
        goto bad_field;
      out->freq_mhz = (guint32) f;
    }
  n = json_object_get_member (o, "signal_dbm");
  if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    {
      if (!JSON_NODE_HOLDS_VALUE (n)
          || (json_node_get_value_type (n) != G_TYPE_INT64 && json_node_get_value_type (n) != G_TYPE_DOUBLE))
        goto bad_field;
      double d = json_node_get_value_type (n) == G_TYPE_DOUBLE ? json_node_get_double (n) : (double) json_node_get_int (n);
      if (!isfinite (d) || d < -200 || d > 100)
        goto bad_field;
      out->signal_mbm = (gint32) lround (d * 100);
      /* "signal_dbm": 50 is no signal heard: unknown, the caller counts it */
      out->signal_unphysical = d > RL_SCANLOG_MAX_SIGNAL_DBM;
      out->has_signal = !out->signal_unphysical;
    }
  return TRUE;

bad_field:
  rl_scanlog_entry_clear (out);
  return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"ifname\", \"ssid\", \"freq\" or \"signal_dbm\" has a bad value");
}

/* ---- cell records --------------------------------------------------------- */

/* A record with a @name member ("cell", "scan") and a good time: TRUE,
 * with the member in *@member (owned by @parser).  FALSE without @error
 * when the line is no such record (a BSS line or junk, for
 * rl_scanlog_parse() to judge); with it when the record's time is bad. */
static gboolean
find_record (JsonParser *parser, const char *line, gssize len, const char *name, JsonNode **member, gint64 *time,
             gboolean *no_zone, GError **error)
{
  JsonNode *root;

  if (!rl_json_load_line (parser, line, len < 0 ? strlen (line) : (gsize) len, NULL))
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  *member = json_object_get_member (json_node_get_object (root), name);
  return *member != NULL && member_time (json_node_get_object (root), time, no_zone, error);
}

char *
rl_scanlog_format_cell (gint64 time, const char *modem, gboolean registered, guint mcc, const char *mnc)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree char *iso = iso_time (time);
  char code[4];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "time");
  json_builder_add_string_value (b, iso);
  json_builder_set_member_name (b, "cell");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "modem");
  json_builder_add_string_value (b, modem != NULL ? modem : "0");
  json_builder_set_member_name (b, "mcc");
  if (registered)
    {
      g_snprintf (code, sizeof code, "%03u", mcc % 1000);
      json_builder_add_string_value (b, code);
      if (mnc != NULL && mnc[0] != '\0')
        {
          json_builder_set_member_name (b, "mnc");
          json_builder_add_string_value (b, mnc);
        }
    }
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return to_line (b);
}

static gboolean
modem_name_ok (const char *s)
{
  gsize n = 0;

  for (; s[n] != '\0'; n++)
    if (n >= 40 || !(g_ascii_isalnum (s[n]) || s[n] == '-' || s[n] == '_'))
      return FALSE;
  return n > 0;
}

gboolean
rl_scanlog_parse_cell (const char *line, gssize len, RlScanLogCell *out, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *c;
  JsonNode *n, *cell;

  memset (out, 0, sizeof *out);
  if (!find_record (parser, line, len, "cell", &cell, &out->time, &out->time_no_zone, error))
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (cell))
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\" is not an object");
  c = json_node_get_object (cell);
  n = json_object_get_member (c, "modem");
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    g_strlcpy (out->modem, "0", sizeof out->modem);
  else if (json_node_get_value_type (n) != G_TYPE_STRING || !modem_name_ok (json_node_get_string (n)))
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\": \"modem\" is not a modem name (0, 1, …)");
  else
    g_strlcpy (out->modem, json_node_get_string (n), sizeof out->modem);

  n = json_object_get_member (c, "mcc");
  if (n == NULL)
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\" has no \"mcc\" (null: not registered)");
  if (JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\": \"mcc\" is not a string of 3 digits");
  {
    const char *mcc = json_node_get_string (n);
    const char *mnc = NULL;
    g_autofree char *code = NULL;

    n = json_object_get_member (c, "mnc");
    if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
      {
        if (json_node_get_value_type (n) != G_TYPE_STRING)
          return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\": \"mnc\" is not a string of 2 or 3 digits");
        mnc = json_node_get_string (n);
      }
    code = mnc != NULL ? g_strdup_printf ("%.8s-%.8s", mcc, mnc) : g_strdup_printf ("%.8s", mcc);
    if (!rl_mcc_parse_network (code, &out->mcc, out->mnc))
      return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"cell\": \"mcc\" / \"mnc\" are not 3 and 2-3 digits");
  }
  out->registered = TRUE;
  return TRUE;
}

/* ---- scan records --------------------------------------------------------- */

char *
rl_scanlog_format_scan (gint64 time, const char *ifname, const guint32 *freqs, guint n_freqs)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree char *iso = iso_time (time);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "time");
  json_builder_add_string_value (b, iso);
  json_builder_set_member_name (b, "scan");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ifname");
  json_builder_add_string_value (b, ifname != NULL ? ifname : "");
  if (n_freqs > 0)
    {
      json_builder_set_member_name (b, "freqs");
      json_builder_begin_array (b);
      for (guint i = 0; i < n_freqs; i++)
        json_builder_add_int_value (b, freqs[i]);
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  return to_line (b);
}

gboolean
rl_scanlog_parse_scan (const char *line, gssize len, RlScanLogScan *out, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *c;
  JsonNode *n, *scan;

  memset (out, 0, sizeof *out);
  if (!find_record (parser, line, len, "scan", &scan, &out->time, &out->time_no_zone, error))
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (scan))
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"scan\" is not an object");
  c = json_node_get_object (scan);
  n = json_object_get_member (c, "ifname");
  if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    {
      if (json_node_get_value_type (n) != G_TYPE_STRING)
        return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"scan\": \"ifname\" is not a string");
      g_strlcpy (out->ifname, json_node_get_string (n), sizeof out->ifname);
    }
  n = json_object_get_member (c, "freqs");
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"scan\": \"freqs\" is not a list of MHz");
  JsonArray *a = json_node_get_array (n);
  guint count = json_array_get_length (a);
  if (count > RL_SCANLOG_MAX_FREQS)
    return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"scan\": more than 256 \"freqs\"");
  for (guint i = 0; i < count; i++)
    {
      JsonNode *f = json_array_get_element (a, i);
      gint64 mhz;

      if (!JSON_NODE_HOLDS_VALUE (f) || json_node_get_value_type (f) != G_TYPE_INT64 ||
          (mhz = json_node_get_int (f)) <= 0 || mhz > 100000)
        {
          out->n_freqs = 0;
          return fail (error, RL_SCANLOG_ERROR_BAD_FIELD, "\"scan\": \"freqs\" holds something not a frequency in MHz");
        }
      out->freqs[out->n_freqs++] = (guint32) mhz;
    }
  return TRUE;
}
