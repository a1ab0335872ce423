/* libFuzzer target: regloc.conf. */
#include "fuzz/fuzz-common.h"
#include "core/config.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RlConfig) config = rl_config_load_data ((const char *) data, size, "fuzz.conf", &error);

  /* exactly one of them: a config or a reason */
  g_assert ((config == NULL) != (error == NULL));
  return 0;
}
