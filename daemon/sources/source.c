#include "daemon/sources/source.h"

#include <stdarg.h>

void
rl_source_init (RlSource *source, const RlSourceOps *ops, const RlSourceSink *sink)
{
  g_return_if_fail (source != NULL && ops != NULL && sink != NULL);
  source->ops = ops;
  source->sink = *sink;
  source->available = FALSE;
  source->last_evidence = 0;
  g_strlcpy (source->detail, "not started", sizeof source->detail);
}

void
rl_source_put (RlSource *source, const RlEvidence *evidence)
{
  g_return_if_fail (source != NULL && evidence != NULL);
  source->last_evidence = evidence->observed_at;
  if (source->sink.put != NULL)
    source->sink.put (source, evidence, source->sink.user_data);
}

void
rl_source_withdraw (RlSource *source, const char *key)
{
  g_return_if_fail (source != NULL && key != NULL);
  if (source->sink.withdraw != NULL)
    source->sink.withdraw (source, key, source->sink.user_data);
}

void
rl_source_set_status (RlSource *source, gboolean available, const char *detail_fmt, ...)
{
  char detail[sizeof source->detail];
  va_list args;

  g_return_if_fail (source != NULL && detail_fmt != NULL);
  va_start (args, detail_fmt);
  g_vsnprintf (detail, sizeof detail, detail_fmt, args);
  va_end (args);

  /* Only real changes reach the sink, so a source may report its status
   * as often as it likes without waking D-Bus clients. */
  if (source->available == available && g_strcmp0 (source->detail, detail) == 0)
    return;
  source->available = available;
  g_strlcpy (source->detail, detail, sizeof source->detail);
  if (source->sink.status_changed != NULL)
    source->sink.status_changed (source, source->sink.user_data);
}
