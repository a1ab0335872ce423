/* A shared library opened on first use (GModule), for the readers whose
 * library most runs of regloc never need: linking libxml2 and libpcap would
 * make every process start load them and what they pull in (ICU, libdbus,
 * libgcrypt...).
 *
 * A reader declares one RlLazyLib with the library's SONAME (found by the
 * build) and a table of the functions it calls: each entry names a symbol
 * and the place of its typed pointer.  rl_lazy_lib_load() opens the library
 * and fills the pointers once per process (thread-safe; on_loaded then runs
 * what the library wants done once before threads use it); a library that
 * cannot be opened or lacks a symbol gives the same GError on every call. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;     /* one symbol of the library */
  void *slot;           /* the function pointer its address goes to */
} RlLazySymbol;

typedef struct {
  const char *what;     /* for messages: "libxml2" */
  const char *soname;   /* "libxml2.so.2" */
  const RlLazySymbol *symbols;
  gsize n_symbols;
  void (*on_loaded) (void);   /* once, after the symbols; may be NULL */
  /* set by rl_lazy_lib_load() */
  GOnce once;
  GError *error;
} RlLazyLib;

#define RL_LAZY_LIB_INIT(what_, soname_, symbols_, on_loaded_) \
  { (what_), (soname_), (symbols_), G_N_ELEMENTS (symbols_), (on_loaded_), G_ONCE_INIT, NULL }

/* A reader lists its functions once, as an X-macro F (fn) ...; then
 *   static struct { LIST (RL_LAZY_FIELD) } api;        pointers typed by the
 *                                                       library's own header
 *   #define SYMBOL(fn) RL_LAZY_SYMBOL (fn, api.fn),
 *   static const RlLazySymbol symbols[] = { LIST (SYMBOL) };
 * and calls api.fn (...).  A variable of the library (xmlFree) is listed
 * the same way: its pointer points to the variable. */
#define RL_LAZY_FIELD(fn) __typeof__ (fn) *fn;
#define RL_LAZY_SYMBOL(fn, field) { #fn, &(field) }

/* TRUE once every symbol is resolved; FALSE with G_IO_ERROR_NOT_SUPPORTED,
 * "cannot load WHAT (SONAME): why", otherwise.  The library stays loaded for
 * the life of the process. */
gboolean rl_lazy_lib_load (RlLazyLib *lib, GError **error);

G_END_DECLS
