/* A library opened on first use (readers/lazy-lib.h): its functions through
 * typed pointers, one load (and one on_loaded call) for many threads at
 * once, and a clear error, the same on every call, when the library or one
 * of its symbols is missing.
 * libpcap stands in for the libraries the readers open (the build passes
 * its SONAME); this test does not link it. */
#include <string.h>
#include <gio/gio.h>
#include <pcap/pcap.h>
#include "readers/lazy-lib.h"

#define PCAP_FUNCTIONS(F) \
  F (pcap_lib_version) \
  F (pcap_datalink_name_to_val)

static struct { PCAP_FUNCTIONS (RL_LAZY_FIELD) } api;
#define API_SYMBOL(fn) RL_LAZY_SYMBOL (fn, api.fn),
static const RlLazySymbol api_symbols[] = { PCAP_FUNCTIONS (API_SYMBOL) };
static gint loaded_calls;

static void
on_loaded (void)
{
  /* after every symbol is in place */
  g_assert_nonnull (api.pcap_datalink_name_to_val);
  g_atomic_int_inc (&loaded_calls);
}

static RlLazyLib pcap_lib = RL_LAZY_LIB_INIT ("libpcap", RL_LIBPCAP_SONAME, api_symbols, on_loaded);

static gpointer
load_in_thread (gpointer data)
{
  return GINT_TO_POINTER (rl_lazy_lib_load (data, NULL));
}

static void
test_load (void)
{
  GThread *threads[8];

  g_assert_null (api.pcap_lib_version);
  /* all at once: every one sees the library loaded */
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("load", load_in_thread, &pcap_lib);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));
  g_assert_nonnull (api.pcap_lib_version);
  g_assert_true (g_str_has_prefix (api.pcap_lib_version (), "libpcap version "));
  g_assert_cmpint (api.pcap_datalink_name_to_val ("IEEE802_11_RADIO"), ==, DLT_IEEE802_11_RADIO);
  g_assert_true (rl_lazy_lib_load (&pcap_lib, NULL));
  g_assert_cmpint (g_atomic_int_get (&loaded_calls), ==, 1);
}

static void
test_missing_library (void)
{
  static gpointer unused;
  static const RlLazySymbol symbols[] = { RL_LAZY_SYMBOL (pcap_lib_version, unused) };
  static RlLazyLib lib = RL_LAZY_LIB_INIT ("nothing", "libregloc-no-such-library.so.0", symbols, NULL);

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (rl_lazy_lib_load (&lib, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_true (g_str_has_prefix (error->message, "cannot load nothing (libregloc-no-such-library.so.0): "));
      g_assert_nonnull (strstr (error->message, "libregloc-no-such-library.so.0: cannot open shared object file"));
    }
  g_assert_false (rl_lazy_lib_load (&lib, NULL));
  g_assert_null (unused);
}

static void
test_missing_symbol (void)
{
  static struct { gpointer version, missing; } got;
  static const RlLazySymbol symbols[] = {
    RL_LAZY_SYMBOL (pcap_lib_version, got.version),
    RL_LAZY_SYMBOL (rl_no_such_function, got.missing),
  };
  static RlLazyLib lib = RL_LAZY_LIB_INIT ("libpcap", RL_LIBPCAP_SONAME, symbols, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (rl_lazy_lib_load (&lib, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_cmpstr (error->message, ==, "cannot load libpcap (" RL_LIBPCAP_SONAME "): no symbol rl_no_such_function");
  g_assert_null (got.missing);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lazy-lib/load", test_load);
  g_test_add_func ("/lazy-lib/missing-library", test_missing_library);
  g_test_add_func ("/lazy-lib/missing-symbol", test_missing_symbol);
  return g_test_run ();
}
