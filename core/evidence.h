/* The evidence model (docs/design.md §3): what every source hands to the policy.
 *
 * One RlEvidence is one observation: which countries it supports, how strong
 * it is, when it was seen and when it stops counting.  Sources build them;
 * the policy only reads them.  Times are µs since the Unix epoch in
 * *evidence time* (wall time for live sources, file time for replays). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Two ASCII upper-case letters packed into 16 bits: cheap to compare and
 * copy.  "00" is the world domain; 0 means "no country". */
typedef guint16 RlCountry;

#define RL_COUNTRY(a, b) ((RlCountry) ((((guint) (guint8) (a)) << 8) | (guint) (guint8) (b)))
#define RL_COUNTRY_NONE ((RlCountry) 0)
#define RL_COUNTRY_WORLD RL_COUNTRY ('0', '0')

/* Parses exactly two ASCII letters (any case) or "00"; nothing else. */
gboolean rl_country_parse (const char *text, RlCountry *out);
/* Writes the two letters and a NUL into @out; "--" for RL_COUNTRY_NONE. */
const char *rl_country_to_string (RlCountry country, char out[3]);

#define RL_NEVER G_MAXINT64
#define RL_USEC_PER_SEC G_GINT64_CONSTANT (1000000)

typedef enum {
  RL_SOURCE_BEACON,
  RL_SOURCE_GPS,
  RL_SOURCE_TIMEZONE,
  RL_SOURCE_OVERRIDE,
  RL_SOURCE_CELL,         /* the mobile network a modem is registered on (its MCC) */
  RL_SOURCE_DRIVER,       /* a self-managed card's own country (its firmware's choice) */
  RL_N_SOURCE_KINDS
} RlSourceKind;

const char *rl_source_kind_to_string (RlSourceKind kind);
gboolean rl_source_kind_from_string (const char *text, RlSourceKind *out);

/* zone1970.tab names up to ~20 countries for one zone (America/Puerto_Rico). */
#define RL_MAX_CANDIDATES 24

/* A set of ISO 3166-1 alpha-2 codes (two letters A-Z), one bit each. */
typedef struct {
  guint32 bits[(26 * 26 + 31) / 32];
} RlCountrySet;

/* Adds @country (ignored when it is not two letters A-Z). */
void rl_country_set_add (RlCountrySet *set, RlCountry country);
gboolean rl_country_set_has (const RlCountrySet *set, RlCountry country);
gboolean rl_country_set_is_empty (const RlCountrySet *set);

typedef struct {
  guint8 bssid[6];
  char ssid[33];          /* printable, NUL-terminated; may be empty */
  gint32 signal_mbm;      /* 100 * dBm; 0 when unknown */
  guint32 freq_mhz;
  char environment;       /* third byte of the Country string (' ', 'I', 'O', or a table number) */
  /* Kept by the evidence set (rl_evidence_set_put), whatever the source
   * wrote: when this BSSID was first heard in its current unbroken run,
   * when its device (first five octets) was first heard even across gaps
   * the set remembers, and RlBeaconInfoFlags. */
  gint64 heard_since;
  gint64 first_heard;
  guint32 flags;
  /* Kept by the evidence set too (rl_evidence_set_drop_unheard): completed
   * scans covering its band that heard it in its current run, and those in
   * a row that did not since it was last heard. */
  guint32 heard_scans;
  guint32 missed_scans;
} RlBeaconInfo;

/* How many covering scans in a row must miss an access point that
 * RL_STEADY_SCANS scans heard before it is gone: one scan misses a weak
 * AP, a busy channel's beacon, a DFS channel's passive dwell now and then,
 * and a decision should not hang on that (wpa_supplicant's
 * bss_expiration_scan_count is 2 as well).  One heard by fewer scans, a
 * passer-by's MiFi or phone, is gone at the first scan that misses it. */
#define RL_SCANS_MISSED_GONE 2
#define RL_STEADY_SCANS 2

/* A completed scan covering an access point's band @heard it or not: counts
 * it in *@heard_scans (up to RL_STEADY_SCANS) or *@missed_scans (which a
 * new sighting resets) and says whether the AP is gone now.  The evidence
 * set and the daemon's BSS table both go by it. */
gboolean rl_beacon_scan_done (gboolean heard, guint32 *heard_scans, guint32 *missed_scans);

typedef enum {
  /* Heard without a break while the access points around it came and went
   * (rl_evidence_set_set_ride_along): it travels with the machine and says
   * nothing about where the machine is (docs/policy.md rule 4c). */
  RL_BEACON_INFO_RIDES_ALONG = 1 << 0,
} RlBeaconInfoFlags;

/* Wi-Fi bands, as a mask: which bands a scan covered, which band an AP is
 * on.  A scan that covered a band and did not hear an AP on it says the AP
 * is gone (issue 10, item 4). */
typedef enum {
  RL_BAND_UNKNOWN = 0,
  RL_BAND_2GHZ = 1 << 0,
  RL_BAND_5GHZ = 1 << 1,
  RL_BAND_6GHZ = 1 << 2,
  RL_BAND_60GHZ = 1 << 3,
} RlBand;
/* Every band, and access points whose band is unknown (no frequency). */
#define RL_BANDS_ANY 0xffffffffu

RlBand rl_band_from_freq (guint32 freq_mhz);
/* Does a scan covering @bands speak for an AP on @band? */
gboolean rl_band_covered (guint bands, RlBand band);
/* Does a completed scan speak for an AP on @freq_mhz: one of the channels
 * it listed (@freqs, @n_freqs MHz), or when it listed none, a channel in
 * the bands it heard anything on (@heard_bands)?  The live BSS table and
 * a replay of scan records judge alike. */
gboolean rl_scan_covers (const guint32 *freqs, guint n_freqs, guint heard_bands, guint32 freq_mhz);

/* The group a BSSID belongs to when a full table must forget one access
 * point: its OUI, or one shared group for every locally administered
 * address (anyone can mint those by the thousand).  Tables evict from the
 * largest group, so a flood from one OUI — or of made-up addresses — only
 * ever displaces itself, never the access points of other operators. */
#define RL_BSSID_GROUP_LOCAL (1u << 24)
guint32 rl_bssid_eviction_group (const guint8 bssid[6]);

typedef struct {
  double lat, lon;        /* degrees, WGS84 */
  double error_m;         /* horizontal error radius */
  double border_m;        /* distance to the nearest other-country border; < 0 unknown */
  double altitude_m;      /* above mean sea level; NAN unknown */
  double speed_mps;       /* over ground; NAN unknown */
  guint32 flags;          /* RlGpsInfoFlags */
} RlGpsInfo;

typedef enum {
  /* The fix jumped further from the last trusted one than any vehicle could
   * have moved (set by the evidence set, see rl_evidence_set_set_gps_limits):
   * it confirms a country other witnesses decide, never decides itself. */
  RL_GPS_INFO_UNTRUSTED = 1 << 0,
} RlGpsInfoFlags;

typedef struct {
  RlSourceKind kind;
  /* Identity: a newer item with the same key replaces the older one
   * ("gps", "timezone", "override", "beacon:aa:bb:cc:dd:ee:ff"). */
  char key[48];
  /* Candidate set.  n_countries == 0 means "no country" (at sea, outside
   * every country's waters) which is a witness for the world domain. */
  guint n_countries;
  RlCountry countries[RL_MAX_CANDIDATES];
  double strength;        /* [0, 1] */
  gint64 observed_at;     /* µs since epoch */
  gint64 expires_at;      /* µs since epoch, or RL_NEVER */
  RlBeaconInfo beacon;    /* valid for RL_SOURCE_BEACON */
  RlGpsInfo gps;          /* valid for RL_SOURCE_GPS */
  /* Short human text for logs and replays: "AP 3c:84:6a:…, 'Freifunk', IE 'DE '".
   * It may name a position, a BSSID or an SSID: private (nothing public is
   * built from it; rl_evidence_describe() builds the public text). */
  char detail[160];
  char zone[48];          /* RL_SOURCE_TIMEZONE: the zone's name ("Europe/Berlin"); may be empty */
  /* RL_SOURCE_CELL: the mobile network ("262-01"; names a country's
   * operator, not a place: public) and how it was learnt. */
  struct {
    char network[8];
    gboolean roaming;
    gboolean serving_cell;      /* from the Location interface, not the operator code */
    /* A country's code (200-799) the provider list does not know: the item
     * names no country (n_countries 0), and @near lists the countries of
     * the known codes next to it (ITU gives a region's countries, and a
     * country its further codes, codes close together: 290 lies among
     * 284-295, BG to LI).  Masts of none of them, nor of their neighbours,
     * reach a country outside that list (docs/policy.md rule 12). */
    gboolean unknown;
    /* A network the list does not carry, of a code it knows (425-05,
     * Jawwal, under a code listed for IL only): ITU gives some codes to
     * several countries, so it names no country either, and @near lists
     * the code's countries (rule 12). */
    gboolean unlisted;
    guint n_near;
    RlCountry near[RL_MAX_CANDIDATES];
    /* unknown or unlisted: the countries the provider list carries any
     * network of (empty: not known).  A country it carries none of may be
     * the code's own (Gibtelecom's 266 in Gibraltar, rule 12). */
    RlCountrySet listed;
  } cell;
  /* RL_SOURCE_DRIVER: the card ("phy0 iwlwifi"; names hardware, not a place: public) */
  char radio[40];
} RlEvidence;

/* A beacon item whose current run is one sighting: heard by one scan only
 * (a passer-by, or a faint router a scan heard once and the next missed). */
gboolean rl_beacon_heard_once (const RlEvidence *ev);

void rl_evidence_init (RlEvidence *ev, RlSourceKind kind, const char *key, gint64 observed_at, gint64 expires_at);
/* Adds a country to the candidate set (ignored when already present or full). */
void rl_evidence_add_country (RlEvidence *ev, RlCountry country);
gboolean rl_evidence_has_country (const RlEvidence *ev, RlCountry country);
/* Whether the border lies inside a GPS item's error circle itself (or its
 * distance is unknown), not only within the border margin beyond it: only
 * then does the fix name the neighbour as well (docs/policy.md rule 2). */
gboolean rl_gps_circle_reaches_border (const RlEvidence *fix);
/* "DE,CH", "sea", or for a cell on a code the provider list does not know
 * the words saying so; returns @buf. */
const char *rl_evidence_countries_to_string (const RlEvidence *ev, char *buf, gsize len);

/* The standard expiry of an item observed at @observed_at that lives @max_age_s
 * seconds (0 = never). */
gint64 rl_expiry_after (gint64 observed_at, guint max_age_s);

/* How much of an item's private details a text may show (docs/design.md,
 * "Private data").  Public: kind, countries, error radius, band, signal,
 * counts.  Private adds the position (latitude, longitude, border
 * distance), the BSSID and the SSID: a Wi-Fi database turns a BSSID into a
 * position within metres, so they are location data like coordinates. */
typedef enum {
  RL_DETAIL_PUBLIC = 1 << 0,
  RL_DETAIL_PRIVATE = 1 << 1,
} RlDetailLevel;
#define RL_DETAIL_FULL (RL_DETAIL_PUBLIC | RL_DETAIL_PRIVATE)

/* One item's human text built from its typed fields at @level (never from
 * ->detail): "GPS fix in DE ±5 m" publicly, "GPS fix 48.56600N 7.81920E in
 * DE ±5 m, 120 m from a border" with RL_DETAIL_PRIVATE.  Returns @buf. */
const char *rl_evidence_describe (const RlEvidence *ev, guint level, char *buf, gsize len);

/* A self-managed card's own country as evidence: key "driver:<phy>",
 * @radio_text "phy0 iwlwifi" for the text.  FALSE (nothing to add) for the
 * world domain and the kernel's special codes (98, 99): they name no place. */
gboolean rl_driver_evidence (RlEvidence *ev, const char *phy, const char *driver, RlCountry country,
                             gint64 observed_at, guint max_age_s);

/* "EU": not an ISO 3166-1 country, but many European access points
 * advertise it.  It supports every member state (data/eu-members.txt, from
 * Unicode CLDR) weakly and is never a rival country (docs/policy.md). */
#define RL_COUNTRY_EU RL_COUNTRY ('E', 'U')
gboolean rl_country_is_eu_member (RlCountry country);

/* A locally administered address (bit 0x02 of the first octet): made up by
 * its owner, not assigned to a manufacturer. */
#define RL_BSSID_IS_LOCAL(bssid) (((bssid)[0] & 0x02) != 0)

/* *@loudest becomes @signal_mbm (100 * dBm) when that is louder; 0 on
 * either side is no signal known. */
void rl_signal_keep_louder (gint32 *loudest, gint32 signal_mbm);

/* An access point sending no usable country was heard at @signal_mbm
 * (0: unknown): *@loudest becomes its signal when it is louder and the AP
 * globally administered (a router installed somewhere, not a phone's
 * hotspot).  What a scan hands the policy as RlPolicyAir.silent_mbm. */
void rl_keep_silent (gint32 *loudest, const guint8 bssid[6], gint32 signal_mbm);

G_END_DECLS
