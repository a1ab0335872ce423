#include "source.h"

#include <stdarg.h>
#include <string.h>

void
rl_source_init (RlSource *source, const RlSourceOps *ops, const RlSourceSink *sink)
{
  source->ops = ops;
  if (sink != NULL)
    source->sink = *sink;
  else
    memset (&source->sink, 0, sizeof source->sink);
  source->available = FALSE;
  source->last_evidence = 0;
  source->detail[0] = '\0';
}

void
rl_source_put (RlSource *source, const RlEvidence *evidence)
{
  source->last_evidence = evidence->observed_at;
  if (source->sink.put != NULL)
    source->sink.put (source, evidence, source->sink.user_data);
}

void
rl_source_withdraw (RlSource *source, const char *key)
{
  if (source->sink.withdraw != NULL)
    source->sink.withdraw (source, key, source->sink.user_data);
}

void
rl_source_set_status (RlSource *source, gboolean available, const char *detail_fmt, ...)
{
  char detail[sizeof source->detail];
  va_list ap;

  va_start (ap, detail_fmt);
  g_vsnprintf (detail, sizeof detail, detail_fmt, ap);
  va_end (ap);
  if (source->available == available && strcmp (source->detail, detail) == 0)
    return;
  source->available = available;
  memcpy (source->detail, detail, sizeof detail);
  if (source->sink.status_changed != NULL)
    source->sink.status_changed (source, source->sink.user_data);
}
