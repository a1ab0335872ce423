#include "readers/gpspipe-time.h"

/* From @min to @max digits at @p[*k], *k moved past them. */
static gboolean
digits (const char *p, gsize n, gsize *k, guint min, guint max)
{
  guint d = 0;

  while (*k < n && d < max && g_ascii_isdigit (p[*k]))
    (*k)++, d++;
  return d >= min;
}

static gboolean
literal (const char *p, gsize n, gsize *k, char c)
{
  if (*k >= n || p[*k] != c)
    return FALSE;
  (*k)++;
  return TRUE;
}

gsize
rl_gpspipe_time_length (const char *p, gsize n)
{
  gsize k = 0;

  /* YYYY-MM-DD, a space or 'T', hh:mm:ss */
  if (!digits (p, n, &k, 4, 4) || !literal (p, n, &k, '-') || !digits (p, n, &k, 2, 2) ||
      !literal (p, n, &k, '-') || !digits (p, n, &k, 2, 2) ||
      !(literal (p, n, &k, ' ') || literal (p, n, &k, 'T')) || !digits (p, n, &k, 2, 2) ||
      !literal (p, n, &k, ':') || !digits (p, n, &k, 2, 2) || !literal (p, n, &k, ':') ||
      !digits (p, n, &k, 2, 2))
    return 0;
  /* -u: the µs (with -Z, the last digit overwritten by a 'Z') */
  if (literal (p, n, &k, '.') && !digits (p, n, &k, 1, 6))
    return 0;
  literal (p, n, &k, 'Z');
  /* -uu: the seconds since 1970 and the µs */
  if (k + 1 < n && p[k] == ' ' && g_ascii_isdigit (p[k + 1]))
    {
      k++;
      if (!digits (p, n, &k, 1, 12) || !literal (p, n, &k, '.') || !digits (p, n, &k, 6, 6))
        return 0;
    }
  return literal (p, n, &k, ':') && literal (p, n, &k, ' ') ? k : 0;
}
