/* One BSS of an nl80211 scan dump (NL80211_CMD_NEW_SCAN_RESULTS answers to
 * NL80211_CMD_GET_SCAN), parsed from the message's attribute stream.
 *
 * Pure: the input is the bytes after the genetlink header, so tests feed
 * recorded attribute sets and fuzzers feed anything.  Pointers in the
 * result point into that buffer. */
#pragma once

#include <glib.h>
#include "core/evidence.h"
#include "readers/country-ie.h"

G_BEGIN_DECLS

#define RL_NL80211_ERROR (rl_nl80211_error_quark ())
GQuark rl_nl80211_error_quark (void);

typedef enum {
  RL_NL80211_ERROR_MALFORMED,  /* attribute lengths do not add up */
  RL_NL80211_ERROR_MISSING,    /* a required attribute is absent or has the wrong size */
  RL_NL80211_ERROR_UNAVAILABLE,/* no nl80211 family in this kernel */
  RL_NL80211_ERROR_FAILED,
} RlNl80211Error;

typedef struct {
  gboolean has_ifindex;
  guint32 ifindex;
  guint8 bssid[6];
  guint32 freq_mhz;           /* 0 when absent */
  gboolean has_signal;
  gint32 signal_mbm;
  guint32 seen_ms_ago;
  const guint8 *ies;          /* NL80211_BSS_INFORMATION_ELEMENTS (last frame) */
  gsize ies_len;
  const guint8 *beacon_ies;   /* NL80211_BSS_BEACON_IES */
  gsize beacon_ies_len;
} RlScanBss;

/* @attrs must be 4-byte aligned (netlink buffers are). */
gboolean rl_nl80211_parse_bss (const guint8 *attrs, gsize len, RlScanBss *out, GError **error);

/* Builds beacon evidence from one heard BSS: the Country element of
 * @ies, else of @beacon_ies.  Key "beacon:<bssid>", expiry after
 * @max_age_s (0 = never).  Returns the parser's verdict; @ev is only
 * filled when it is RL_COUNTRY_IE_OK. */
RlCountryIeResult rl_beacon_evidence_build (RlEvidence *ev,
                                            const guint8 bssid[6],
                                            gint32 signal_mbm,
                                            guint32 freq_mhz,
                                            const guint8 *ies, gsize ies_len,
                                            const guint8 *beacon_ies, gsize beacon_ies_len,
                                            gint64 observed_at,
                                            guint max_age_s);

/* "aa:bb:cc:dd:ee:ff" */
void rl_bssid_to_string (const guint8 bssid[6], char out[18]);
/* The evidence key of an AP's beacon item: "beacon:aa:bb:cc:dd:ee:ff". */
#define RL_BEACON_KEY_LEN 25
void rl_beacon_key (const guint8 bssid[6], char out[RL_BEACON_KEY_LEN]);
gboolean rl_bssid_parse (const char *text, guint8 out[6]);

G_END_DECLS
