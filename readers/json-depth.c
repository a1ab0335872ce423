#include "readers/json-depth.h"

#include <string.h>

#include <gio/gio.h>

/* One pass over a line: NULL when no array or object is nested deeper
 * than RL_JSON_MAX_DEPTH and only blanks follow the first one, else what
 * is wrong.  @colons: the name separators outside strings, one per member
 * of every object. */
static const char *
scan_line (const char *text, gsize len, guint *colons)
{
  gboolean in_string = FALSE;
  gboolean closed = FALSE;
  guint depth = 0;

  *colons = 0;
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            i++;          /* the escaped character cannot end the string */
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (closed)
        {
          if (!g_ascii_isspace (c))
            return "more than one JSON value on the line (a lost line break?)";
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case ':':
          (*colons)++;
          break;
        case '[':
        case '{':
          if (++depth > RL_JSON_MAX_DEPTH)
            return "nested deeper than a line of ours can be";
          break;
        case ']':
        case '}':
          if (depth > 0 && --depth == 0)
            closed = TRUE;
          break;
        default:
          break;
        }
    }
  return NULL;
}

/* Members of every object under @node (a line is at most
 * RL_JSON_MAX_DEPTH deep). */
static guint
count_members (JsonNode *node)
{
  guint n = 0;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter it;
      JsonNode *member;
      json_object_iter_init (&it, json_node_get_object (node));
      while (json_object_iter_next (&it, NULL, &member))
        n += 1 + count_members (member);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        n += count_members (json_array_get_element (a, i));
    }
  return n;
}

/* Members parsed into each open object, innermost last: json-glib adds a
 * member and then says so, so a size that did not grow is a name given
 * twice.  Only to name it, once a line is known to have one. */
typedef struct {
  guint depth;
  guint members[RL_JSON_MAX_DEPTH + 1];
  char twice[33];
} MemberCount;

static void
on_object_start (JsonParser *parser, gpointer user_data)
{
  MemberCount *m = user_data;

  if (m->depth < G_N_ELEMENTS (m->members))
    m->members[m->depth] = 0;
  m->depth++;
}

static void
on_object_member (JsonParser *parser, JsonObject *object, const char *name, gpointer user_data)
{
  MemberCount *m = user_data;
  guint at = m->depth - 1;

  if (m->depth == 0 || at >= G_N_ELEMENTS (m->members))
    return;
  m->members[at]++;
  if (json_object_get_size (object) != m->members[at] && m->twice[0] == '\0')
    g_strlcpy (m->twice, name, sizeof m->twice);
}

static void
on_object_end (JsonParser *parser, JsonObject *object, gpointer user_data)
{
  MemberCount *m = user_data;

  if (m->depth > 0)
    m->depth--;
}

static void
name_member_twice (const char *text, gsize len, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  MemberCount m = { 0 };

  g_signal_connect (parser, "object-start", G_CALLBACK (on_object_start), &m);
  g_signal_connect (parser, "object-member", G_CALLBACK (on_object_member), &m);
  g_signal_connect (parser, "object-end", G_CALLBACK (on_object_end), &m);
  json_parser_load_from_data (parser, text, (gssize) len, NULL);
  g_autofree char *shown = g_utf8_make_valid (m.twice, -1);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the member \"%s\" is given twice", shown);
}

gboolean
rl_json_load_line (JsonParser *parser, const char *text, gsize len, GError **error)
{
  g_autoptr (GError) local = NULL;
  const char *wrong;
  guint colons;

  wrong = scan_line (text, len, &colons);
  if (wrong != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, wrong);
      return FALSE;
    }
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, local->message);
      return FALSE;
    }
  /* json-glib read every separator as a member's, or failed above */
  if (json_parser_get_root (parser) != NULL && count_members (json_parser_get_root (parser)) != colons)
    {
      name_member_twice (text, len, error);
      return FALSE;
    }
  return TRUE;
}

gsize
rl_json_lines_bom_length (const char *data, gsize len)
{
  return len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}
