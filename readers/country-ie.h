/* The 802.11d Country element (ID 7), docs/design.md §9.
 *
 * Pure functions over bytes from the air: no allocation, no I/O, every
 * length checked.  The same parser serves the live beacon source, scan
 * logs and packet captures, so they all agree on what an AP said. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_IE_COUNTRY 7
#define RL_IE_SSID 0
/* (255 - 3) / 3 */
#define RL_COUNTRY_IE_MAX_TRIPLETS 84

/* Why an element stream gave no usable country; the names double as replay
 * skip counters ("scans.skipped.<name>"). */
typedef enum {
  RL_COUNTRY_IE_OK,
  RL_COUNTRY_IE_ABSENT,          /* no element 7 */
  RL_COUNTRY_IE_TRUNCATED,       /* the element runs past the end of the buffer */
  RL_COUNTRY_IE_SHORT,           /* body shorter than 6 bytes */
  RL_COUNTRY_IE_ODD_LENGTH,      /* the kernel rejects odd lengths too */
  RL_COUNTRY_IE_NOT_A_COUNTRY,   /* "XX", "00", non-letters */
  RL_COUNTRY_IE_NON_COUNTRY_ENV, /* environment 'X': a non-country entity */
  RL_COUNTRY_IE_TWO_COUNTRIES,   /* a second Country element names another country */
  RL_COUNTRY_IE_N_RESULTS
} RlCountryIeResult;

const char *rl_country_ie_result_to_string (RlCountryIeResult result);

typedef enum {
  RL_TRIPLET_SUBBAND,        /* first channel, number of channels, max power (dBm) */
  RL_TRIPLET_OPERATING_CLASS /* extension id (>= 201), operating class, coverage class */
} RlTripletKind;

typedef struct {
  RlTripletKind kind;
  guint8 a, b;
  /* max power in dBm (signed) for subbands; coverage class for operating classes */
  gint8 max_power_dbm;
  guint8 coverage_class;
} RlCountryTriplet;

typedef struct {
  RlCountry country;         /* upper-cased letters */
  char alpha2[3];            /* the two bytes as sent (printable or '?') */
  char environment;          /* third byte: ' ', 'I', 'O', 'X' or 0x01..0x1f */
  guint n_triplets;
  RlCountryTriplet triplets[RL_COUNTRY_IE_MAX_TRIPLETS];
} RlCountryIe;

/* Parses the body of one Country element (after id and length). */
RlCountryIeResult rl_country_ie_parse_body (const guint8 *body, gsize len, RlCountryIe *out);

/* Walks an element stream (beacon/probe response body after the fixed
 * fields, or NL80211_BSS_*_IES) and parses the first Country element.
 * Elements before it that are intact are enough; a malformed stream before
 * any Country element reports TRUNCATED. */
RlCountryIeResult rl_country_ie_find (const guint8 *ies, gsize len, RlCountryIe *out);

/* Finds the SSID element and writes it printable (non-printable bytes as
 * '?'), NUL-terminated, into @out; empty when absent or hidden. */
void rl_ies_ssid (const guint8 *ies, gsize len, char out[33]);

/* Returns the body of the first element with @id, bounds-checked; NULL if absent. */
const guint8 *rl_ies_find (const guint8 *ies, gsize len, guint8 id, gsize *body_len, gboolean *truncated);

/* The environment byte as text: "any", "indoor", "outdoor", "non-country",
 * "table 4 (global operating classes)" … written into @buf. */
const char *rl_country_ie_environment_to_string (char environment, char *buf, gsize len);

G_END_DECLS
