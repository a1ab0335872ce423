/* Mobile country codes (MCC) → countries, read from mobile-broadband-provider-info's
 * serviceproviders.xml (Debian package mobile-broadband-provider-info, public
 * domain).  Each <country code="xx"> holds <provider>s whose
 * <network-id mcc="262" mnc="01"/> name the networks; an MCC used in several
 * countries' entries (234: GB, GG, IM, JE) names all of them, and a known
 * MCC+MNC pair names the countries that list that network only.
 *
 * Pure: no I/O but rl_mcc_table_load() reading one file, no clock.  Bad
 * entries are counted and skipped, never fatal; a document that is not XML
 * or holds no usable network is an error (the source is unavailable). */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_MCC_ERROR (rl_mcc_error_quark ())
GQuark rl_mcc_error_quark (void);

typedef enum {
  RL_MCC_ERROR_PARSE,       /* not XML, not a serviceproviders document */
  RL_MCC_ERROR_EMPTY,       /* no usable network-id */
  RL_MCC_ERROR_READ,        /* the file cannot be read */
} RlMccError;

typedef struct {
  guint networks;           /* network-id elements read into the table */
  guint skipped_bad_code;   /* mcc or mnc not 3 / 2-3 decimal digits */
  guint skipped_bad_country;/* the enclosing country code is not two letters */
  guint skipped_no_country; /* a network-id outside any <country> */
  guint skipped_no_country_mcc; /* MCCs that name no country (001 test, 9xx international) */
} RlMccStats;

/* Where Debian's mobile-broadband-provider-info installs it ([cell] providers). */
#define RL_MCC_DEFAULT_PROVIDERS "/usr/share/mobile-broadband-provider-info/serviceproviders.xml"

typedef struct RlMccTable RlMccTable;

RlMccTable *rl_mcc_table_parse (const char *data, gsize len, GError **error);
RlMccTable *rl_mcc_table_load (const char *path, GError **error);
void rl_mcc_table_free (RlMccTable *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlMccTable, rl_mcc_table_free)

const RlMccStats *rl_mcc_table_stats (const RlMccTable *table);
guint rl_mcc_table_n_codes (const RlMccTable *table);

/* An MCC outside 200-799 names no country: 001 (test networks), 901/902
 * (international: satellite, maritime, in-flight), 999 (private/internal). */
gboolean rl_mcc_names_country (guint mcc);

/* The countries of network @mcc/@mnc (@mnc NULL or "": the MCC's), at most
 * RL_MAX_CANDIDATES, sorted.  0: none (unknown MCC, or one that names no
 * country). */
guint rl_mcc_table_lookup (const RlMccTable *table, guint mcc, const char *mnc,
                           RlCountry out[RL_MAX_CANDIDATES]);

/* "26201" / "310410" (3GPP OperatorCode: MCC then 2 or 3 MNC digits) →
 * mcc 262, mnc "01".  FALSE for anything else. */
gboolean rl_mcc_parse_operator_code (const char *text, guint *mcc, char mnc[4]);
/* "MCC" or "MCC-MNC" (scenario lines), same checks. */
gboolean rl_mcc_parse_network (const char *text, guint *mcc, char mnc[4]);
/* ModemManager's 3GPP LAC/CI location string "MCC,MNC,LAC,CI[,TAC]" (MCC
 * and MNC decimal, the rest hex) → mcc and mnc.  FALSE when malformed. */
gboolean rl_mcc_parse_3gpp_location (const char *text, guint *mcc, char mnc[4]);

/* How far from an unknown code the known ones still tell its region. */
#define RL_MCC_NEAR_SPAN 6

/* Builds the cell evidence item @key for @mcc/@mnc observed at @observed_at:
 * FALSE (and @ev untouched) when the network names no country (001, 9xx).
 * A country's code (200-799) the list does not know gives an item naming
 * no country with ev->cell.unknown set and ev->cell.near the countries of
 * the known codes within RL_MCC_NEAR_SPAN of it.  A network (@mnc given)
 * the list does not carry, of a code it knows, names no country either:
 * ev->cell.unlisted is set and ev->cell.near lists the code's countries.
 * ITU gives some codes to several countries (425: IL and PS; 310 to
 * 316: the US and its territories) and the list may carry one country's
 * networks only. */
gboolean rl_mcc_evidence (const RlMccTable *table, const char *key, guint mcc, const char *mnc,
                          gint64 observed_at, gint64 expires_at, RlEvidence *ev);

G_END_DECLS
