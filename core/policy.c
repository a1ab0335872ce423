/* The voting engine.  See policy.h, and docs/policy.md for the rules in
 * words with a worked example each. */
#include "core/policy.h"
#include "core/contradiction.h"
#include "core/enum-names.h"
#include "core/neighbours.h"
#include "core/regdb.h"
#include "core/territory.h"
#include "core/vendor.h"

#include <math.h>
#include <string.h>

static const char *const state_names[] = {
  [RL_STATE_WORLD] = "world",
  [RL_STATE_TENTATIVE] = "tentative",
  [RL_STATE_DECIDED] = "decided",
  [RL_STATE_OVERRIDE] = "override",
  [RL_STATE_CONFLICT] = "conflict",
};

const char *
rl_state_to_string (RlState state)
{
  return RL_ENUM_NAME (state_names, state, "?");
}

gboolean
rl_state_from_string (const char *text, RlState *out)
{
  guint value;

  if (!RL_ENUM_PARSE (state_names, text, &value))
    return FALSE;
  *out = (RlState) value;
  return TRUE;
}

static const char *const reason_names[] = {
  [RL_REASON_NO_EVIDENCE] = "no-evidence",
  [RL_REASON_SINGLE_WITNESS] = "single-witness",
  [RL_REASON_TIMEZONE_ONLY] = "timezone-only",
  [RL_REASON_BELOW_THRESHOLD] = "below-threshold",
  [RL_REASON_HOLD_DOWN] = "hold-down",
  [RL_REASON_AGREEMENT] = "agreement",
  [RL_REASON_CONFLICT] = "conflict",
  [RL_REASON_AT_SEA] = "at-sea",
  [RL_REASON_NOT_IN_REGDB] = "not-in-regdb",
  [RL_REASON_OVERRIDE] = "override",
  [RL_REASON_SUPPORT_LOST] = "support-lost",
  [RL_REASON_SUPPORT_WANING] = "support-waning",
  [RL_REASON_TIE] = "tie",
  [RL_REASON_AIRBORNE] = "airborne",
};

G_STATIC_ASSERT (G_N_ELEMENTS (reason_names) == RL_REASON_LAST + 1);

const char *
rl_reason_to_string (RlReason reason)
{
  return RL_ENUM_NAME (reason_names, reason, "?");
}

gboolean
rl_reason_from_string (const char *text, RlReason *out)
{
  guint value;

  if (!RL_ENUM_PARSE (reason_names, text, &value))
    return FALSE;
  *out = (RlReason) value;
  return TRUE;
}

void
rl_policy_params_init (RlPolicyParams *p)
{
  memset (p, 0, sizeof *p);
  p->min_witnesses = 2;
  p->confidence_threshold = 0.8;
  p->hold_down_s = 30;
  p->hold_down_unheard_s = 90;
  p->gps_weight = 0.8;
  p->gps_max_error_m = 250;
  p->beacon_weight = 0.7;
  p->beacon_min_aps = 2;
  p->beacon_min_fraction = 2.0 / 3.0;
  p->beacon_strong_aps = 4;
  p->beacon_strong_operators = 3;
  p->beacon_max_aps_per_operator = 2;
  p->timezone_weight = 0.4;
  p->max_age_s[RL_SOURCE_GPS] = 600;
  p->max_age_s[RL_SOURCE_BEACON] = 900;
  p->max_age_s[RL_SOURCE_TIMEZONE] = 0;
  p->max_age_s[RL_SOURCE_OVERRIDE] = 0;
  p->beacon_network_min_devices = 6;
  p->beacon_network_min_channels = 3;
  p->beacon_network_min_bands = 2;
  p->beacon_eu_weight = 0.4;
  p->flap_hold_down_max_s = 300;
  p->flap_calm_s = 600;
  p->support_grace_s = 120;
  p->airborne_min_altitude_m = 2000;
  p->airborne_min_speed_kmh = 150;
  p->cell_weight = 0.7;
  p->driver_weight = 0.4;
  p->beacon_faint_dbm = -85;
  p->beacon_faint_margin_db = 30;
  p->beacon_ride_along_window_s = 600;   /* docs/policy.md rule 4c; 0: off */
  p->beacon_ride_along_lost = 4;
}

guint
rl_policy_hold_down (const RlPolicyParams *p, guint conflicts)
{
  guint64 hold = p->hold_down_s;
  guint64 most = MAX (p->flap_hold_down_max_s, p->hold_down_s);

  for (guint i = 0; i < conflicts && hold < most; i++)
    hold *= 2;
  return (guint) MIN (hold, most);
}

RlDecision *
rl_decision_new_initial (void)
{
  RlDecision *d = g_new0 (RlDecision, 1);

  d->country = RL_COUNTRY_WORLD;
  d->state = RL_STATE_WORLD;
  d->reason = RL_REASON_NO_EVIDENCE;
  d->candidate = RL_COUNTRY_NONE;
  d->next_check = RL_NEVER;
  d->candidates = g_array_new (FALSE, TRUE, sizeof (RlCandidate));
  d->suspects = g_array_new (FALSE, TRUE, sizeof (RlSuspect));
  d->explanation = g_strdup ("No evidence yet: staying on the world domain 00.");
  d->summary = g_strdup ("no evidence");
  d->explanation_public = g_strdup (d->explanation);
  d->summary_public = g_strdup (d->summary);
  return d;
}

void
rl_decision_free (RlDecision *d)
{
  if (d == NULL)
    return;
  g_array_unref (d->candidates);
  g_array_unref (d->suspects);
  g_free (d->explanation);
  g_free (d->summary);
  g_free (d->explanation_public);
  g_free (d->summary_public);
  g_free (d);
}

/* The decision is made in three steps, each its own function:
 *   1. tally_all():  collect the live evidence into one Tally per candidate
 *                    (GPS, timezone, grouped beacon votes → witnesses, confidence);
 *   2. pick():       choose state, reason and country from the tallies and
 *                    the previous decision, into a typed Verdict;
 *   3. explain():    write the summary line and the explanation paragraph
 *                    from the Verdict and the tallies — the only place with words. */

/* ---- the tally ------------------------------------------------------- */

/* Why a cell naming one country only confirms it (rule 12). */
typedef enum {
  CELL_DECIDES,
  CELL_OTHER_PLACE,     /* another country's access points or a fix stand here */
  CELL_NEAR_BORDER,     /* the fix lies near a border: masts of both sides reach */
  CELL_FIX_OUTSIDE,     /* a trusted fix's circle does not reach its country: no witness */
  CELL_LOCALS_DISSENT,  /* a neighbour's operators and own clock stand here: no witness */
} CellOverruled;

typedef struct {
  RlCandidate pub;
  gboolean unmapped;        /* no regulatory rules for it */
  gboolean gps_strong;      /* a good fix naming only this country */
  guint beacon_witnesses;   /* 0, 1 or 2 */
  guint beacon_votes;       /* after the per-operator cap */
  guint beacon_ga_votes;    /* of which from globally administered operators */
  guint ga_devices;         /* globally administered devices (first five octets) of groups voting for it */
  guint well_groups;        /* globally administered voting groups with an access point heard well (rule 4b) */
  gboolean pool_vote;       /* the locally administered pool's one vote went here */
  guint network_devices;    /* the largest qualifying network: devices, channels, bands */
  guint network_channels;
  guint network_bands;
  gboolean network_yields;  /* a large network, outvoted by many operators' witness for another country */
  RlCountry location;       /* the location code before mapping (AX for FI): the fix's, else the first named */
  gboolean location_by_fix; /* @location is the one the GPS fix names */
  gboolean location_mixed;  /* other evidence named other locations with the same rules (234: GG, JE) */
  gboolean cell_strong;     /* a modem's network names only this country */
  const char *cell_network; /* … which ("288-01"), for the text */
  CellOverruled cell_overruled;  /* … but it confirms only: another place stands here, or a border is near */
  RlCountry cell_other;     /* … that other place's country (CELL_OTHER_PLACE) */
  gboolean heard_loud;      /* an AP naming it is not faint beside the loudest AP sending no country (t->silent_dbm) either */
  gboolean faint_by_silent; /* heard well but for that AP, which another country's evidence made count */
  gboolean network_only;    /* its beacon witness is one operator's large network alone */
  guint network_votes;      /* that network's operator's votes for it (after the cap) */
  gboolean tz_primary;      /* the timezone's own country (zone.tab), not just listed */
  gboolean gps_plurality;   /* its APs' plurality beside a fix naming it (rule 2b) */
  gboolean tz_declined;     /* the timezone lists it but may not confirm it (rules 2c, 5) */
  gboolean driver_named;    /* a self-managed card names it (counted only beside a fix or a cell) */
} Tally;

/* The evidence that names no candidate of its own. */
typedef struct {
  guint groups;             /* access-point groups advertising EU */
  guint votes;              /* after the per-operator cap */
  guint ga_votes;
  gboolean witness;         /* enough to confirm a member state a GPS fix names */
  gboolean confirms;        /* … and they confirm a candidate */
} EuSupport;

typedef struct {
  guint groups;             /* locally administered groups without a sibling */
  RlCountry country;        /* the code most of them name; NONE on a tie */
  guint for_country;        /* groups naming it */
  GHashTable *members;      /* RlEvidence* of its access points: no dissent in the texts; NULL: none */
} LocalPool;

typedef struct {
  const RlPolicyParams *params;
  RlRegulatoryMap regmap;
  gpointer regmap_data;
  GArray *tallies;          /* Tally; sorted best first after tally_all() */
  const RlEvidence *gps;    /* the newest good fix, if any */
  const char *zone;         /* the live timezone's detail ("Europe/Berlin"), or NULL */
  gboolean gps_at_sea;
  guint n_live;
  gint64 last_heard;        /* the newest live beacon was heard then: the last scan; 0: none */
  guint n_ga_votes;         /* of which from globally administered operators: the shares (rule 4) */
  EuSupport eu;
  LocalPool pool;
  /* freshness and moving platforms (core/contradiction.h) */
  const GArray *suspects;   /* beacons left out of the vote, or NULL */
  guint n_suspect;          /* live beacons left out */
  guint n_riding;           /* live beacons left out: they travel with the machine (rule 4c) */
  guint n_passing;          /* … and those heard only lately while some travel along */
  gint64 settles_at;        /* when the first of those will have been heard long enough */
  gboolean drop_passing;    /* those heard only lately do not vote (rule 4c) */
  gboolean airborne;
  double strongest_dbm;     /* the strongest AP heard (faint rule); 0: no signal known */
  double suspect_dbm;       /* the strongest suspect AP; 0: none with a signal known */
  double silent_dbm;        /* the loudest AP of the last scan sending no country (RlPolicyAir); 0: none */
  const RlEvidence *loudest;/* the loudest voting, globally administered AP with a signal known, or NULL */
  const RlDecision *previous;/* the decision before, or NULL: the faint rule's hysteresis */
  gboolean withdrew_once;   /* the last scan withdrew an AP one scan only had heard (RlPolicyAir) */
  gboolean network_yielded; /* a large network yielded to another country's APs */
  /* privacy (docs/design.md, "Private data") */
  const RlEvidence *zone_ev;/* the timezone item @zone comes from */
  const RlEvidence *driver_ev;/* a self-managed card's item, for the text */
  const RlEvidence *cell_unknown;/* a modem on a code the provider list does not know, or a network it does not carry */
  guint level;              /* RlDetailLevel of the text being written */
} Tallying;

static RlCountry
regulatory_code (const Tallying *t, RlCountry location, gboolean *unmapped)
{
  RlCountry code = location;

  *unmapped = FALSE;
  if (location != RL_COUNTRY_WORLD && t->regmap != NULL)
    {
      code = t->regmap (location, t->regmap_data);
      if (code == RL_COUNTRY_NONE)
        {
          code = location;
          *unmapped = TRUE;
        }
    }
  return code;
}

static Tally *
tally_get (Tallying *t, RlCountry location)
{
  gboolean unmapped;
  RlCountry code = regulatory_code (t, location, &unmapped);

  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      if (y->pub.country == code)
        {
          y->location_mixed |= y->location != location;
          return y;
        }
    }
  g_array_set_size (t->tallies, t->tallies->len + 1);
  Tally *y = &g_array_index (t->tallies, Tally, t->tallies->len - 1);
  y->pub.country = code;
  y->unmapped = unmapped;
  y->location = location;
  return y;
}

/* ---- access points: devices, operators, votes ------------------------- */

/* Grouping (docs/policy.md, "Access points"): the BSSIDs of one device (same
 * first five octets, or a locally administered sibling of it) and of one
 * network of one operator (same SSID + operator) form one group; a group
 * votes once.  A group's operator is the OUI of its first globally
 * administered member; groups with none form the locally administered pool,
 * which is one operator with one vote. */
#define POOL_OPERATOR (1u << 24)

typedef struct {
  const RlEvidence *ev;
  guint32 network_op;       /* OUI, or (locally administered) a hash of the SSID */
  guint64 device;           /* the first five BSSID octets */
  gboolean local;
} Ap;

typedef struct {
  guint n;
  Ap *aps;                  /* sorted by BSSID, then key */
  guint *parent;            /* union-find over aps: the groups */
  RlCountry *vote;          /* per root: the group's country; NONE: a tie, it abstains */
  guint32 *op;              /* per root: the group's operator (OUI or POOL_OPERATOR) */
  guint *members;           /* per root: BSSIDs in the group */
  GHashTable *ops;          /* operators_new () */
} BeaconGroups;

/* "One network of one operator": same non-empty SSID and same operator. */
static guint
network_hash (gconstpointer p)
{
  const Ap *ap = p;
  return g_str_hash (ap->ev->beacon.ssid) ^ ap->network_op;
}

static gboolean
network_equal (gconstpointer a, gconstpointer b)
{
  const Ap *x = a, *y = b;
  return x->network_op == y->network_op && strcmp (x->ev->beacon.ssid, y->ev->beacon.ssid) == 0;
}

static guint32
oui_of (const guint8 *b)
{
  return ((guint32) b[0] << 16) | ((guint32) b[1] << 8) | b[2];
}

/* ---- operators: OUIs of one vendor left on one factory setup ---------- */

/* The brand stem of an SSID: its leading letters, '!' and '-' ("FRITZ!Box",
 * "TP-Link"), less a trailing '-' or "-" + hex letters ("Vodafone-ABCD"),
 * in lower case; FALSE when shorter than three characters.  Different
 * stems stay different: the stem only ever joins. */
static gboolean
ssid_stem (const char *ssid, char out[33])
{
  gsize n = 0, dash = 0;

  while (n < 32 && (g_ascii_isalpha (ssid[n]) || ssid[n] == '!' || ssid[n] == '-'))
    {
      out[n] = g_ascii_tolower (ssid[n]);
      if (out[n] == '-')
        dash = n;
      n++;
    }
  out[n] = '\0';
  if (dash > 0 || (n > 0 && out[0] == '-'))
    {
      gboolean hex = TRUE;
      for (gsize k = dash + 1; k < n; k++)
        hex &= g_ascii_isxdigit (out[k]);
      if (hex)
        out[n = dash] = '\0';
    }
  return n >= 3;
}

/* OUI → the lowest OUI it is joined with (keys and values: OUI + 1). */
static guint32
ops_find (GHashTable *parent, guint32 oui)
{
  gpointer up;

  while ((up = g_hash_table_lookup (parent, GUINT_TO_POINTER (oui + 1))) != NULL)
    oui = GPOINTER_TO_UINT (up) - 1;
  return oui;
}

/* Operators of the globally administered access points @evs: one per OUI,
 * except that OUIs of one vendor (the IEEE listing, core/vendor.h) whose
 * access points carry SSIDs of one brand stem are one operator: four
 * FRITZ!Boxes of four AVM OUIs, all "FRITZ!Box …", are one factory setup
 * and one source of a wrong default country, not four.  A TIM and a
 * Fastweb box, both made by Arcadyan, stay two (docs/policy.md, "Access
 * points").  Deterministic: @evs are sorted, the lower OUI is the root. */
static GHashTable *
operators_new (GPtrArray *evs)
{
  GHashTable *parent = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < evs->len; i++)
    {
      const RlEvidence *e = g_ptr_array_index (evs, i);
      char stem[33];
      guint32 oui = oui_of (e->beacon.bssid), a, b;
      gpointer seen;

      if (RL_BSSID_IS_LOCAL (e->beacon.bssid) || !ssid_stem (e->beacon.ssid, stem))
        continue;
      g_autofree char *key = g_strdup_printf ("%06x %s", rl_oui_vendor (oui), stem);
      if ((seen = g_hash_table_lookup (first, key)) == NULL)
        {
          g_hash_table_insert (first, g_steal_pointer (&key), GUINT_TO_POINTER (oui + 1));
          continue;
        }
      a = ops_find (parent, GPOINTER_TO_UINT (seen) - 1);
      b = ops_find (parent, oui);
      if (a != b)
        g_hash_table_insert (parent, GUINT_TO_POINTER (MAX (a, b) + 1), GUINT_TO_POINTER (MIN (a, b) + 1));
    }
  return parent;
}

/* The operator of a globally administered BSSID under @ops. */
static guint32
operator_of (GHashTable *ops, const guint8 *b)
{
  return ops_find (ops, oui_of (b));
}

static guint
uf_find (guint *parent, guint i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

static void
uf_union (guint *parent, guint a, guint b)
{
  a = uf_find (parent, a);
  b = uf_find (parent, b);
  /* the lower index becomes the root: independent of hash order */
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

static int
cmp_beacon_ev (gconstpointer a, gconstpointer b)
{
  const RlEvidence *x = *(const RlEvidence *const *) a;
  const RlEvidence *y = *(const RlEvidence *const *) b;
  int c = memcmp (x->beacon.bssid, y->beacon.bssid, 6);

  if (c != 0)
    return c;
  return strcmp (x->key, y->key);
}

/* Joins @i with the first AP stored under @key, or stores @i there. */
static void
join_on (GHashTable *first_of, gpointer key, guint *parent, guint i)
{
  gpointer first = g_hash_table_lookup (first_of, key);

  if (first != NULL)
    uf_union (parent, GPOINTER_TO_UINT (first) - 1, i);
  else
    g_hash_table_insert (first_of, key, GUINT_TO_POINTER (i + 1));
}

/* Sibling keys of a BSSID.  A multi-SSID access point derives its extra
 * BSSIDs from its own address by setting the locally administered bit and
 * changing either the first octet (octets 2–6 stay) or the last octet's low
 * nibble (octets 1–5 stay, the first one but for the LA bit).  Key A is
 * octets 2–6; key B is the first octet with the LA bit set, octets 2–5 and
 * the last octet's high nibble.  The top bits tell the two kinds apart. */
static guint64
sibling_key_a (const guint8 *b)
{
  return (G_GUINT64_CONSTANT (1) << 60) | ((guint64) b[1] << 32) | ((guint64) b[2] << 24) |
         ((guint64) b[3] << 16) | ((guint64) b[4] << 8) | b[5];
}

static guint64
sibling_key_b (const guint8 *b)
{
  return (G_GUINT64_CONSTANT (2) << 60) | ((guint64) (b[0] | 0x02) << 36) | ((guint64) b[1] << 28) |
         ((guint64) b[2] << 20) | ((guint64) b[3] << 12) | ((guint64) b[4] << 4) | (guint64) (b[5] >> 4);
}

/* Same device and same network are equivalences: joining every AP with the
 * first AP of its device and of its network gives the same groups as
 * comparing every pair, in O(n) instead of O(n²) (max_bss can be large).
 * Then each locally administered AP joins the first globally administered
 * sibling heard (key A before key B). */
static void
group_join (BeaconGroups *g)
{
  g_autoptr (GHashTable) devices = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) networks = g_hash_table_new (network_hash, network_equal);
  g_autoptr (GHashTable) siblings = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < g->n; i++)
    {
      Ap *ap = &g->aps[i];
      const guint8 *b = ap->ev->beacon.bssid;

      g->parent[i] = i;
      ap->local = RL_BSSID_IS_LOCAL (b);
      ap->network_op = ap->local ? (g_str_hash (ap->ev->beacon.ssid) | 0x80000000u) : operator_of (g->ops, b);
      ap->device = ((guint64) b[0] << 32) | ((guint64) b[1] << 24) | ((guint64) b[2] << 16) |
                   ((guint64) b[3] << 8) | b[4];
      join_on (devices, &ap->device, g->parent, i);
      if (ap->ev->beacon.ssid[0] != '\0')
        join_on (networks, ap, g->parent, i);
      if (ap->local)
        continue;
      guint64 ka = sibling_key_a (b), kb = sibling_key_b (b);
      if (!g_hash_table_contains (siblings, &ka))
        g_hash_table_insert (siblings, g_memdup2 (&ka, sizeof ka), GUINT_TO_POINTER (i + 1));
      if (!g_hash_table_contains (siblings, &kb))
        g_hash_table_insert (siblings, g_memdup2 (&kb, sizeof kb), GUINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < g->n; i++)
    {
      const guint8 *b = g->aps[i].ev->beacon.bssid;
      guint64 ka = sibling_key_a (b), kb = sibling_key_b (b);
      gpointer sib;

      if (!g->aps[i].local)
        continue;
      if ((sib = g_hash_table_lookup (siblings, &ka)) != NULL || (sib = g_hash_table_lookup (siblings, &kb)) != NULL)
        uf_union (g->parent, GPOINTER_TO_UINT (sib) - 1, i);
    }
}

/* One pass of the election over the globally administered members (or,
 * for groups without any, the locally administered ones). */
static void
elect_pass (BeaconGroups *g, guint *best_n, gboolean *tied, gboolean local)
{
  g_autoptr (GHashTable) member_counts = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint k = 0; k < g->n; k++)
    {
      guint root = uf_find (g->parent, k);
      RlCountry c = g->aps[k].ev->countries[0];

      if (g->aps[k].local != local)
        continue;
      g->members[root]++;
      if (!local && g->op[root] == POOL_OPERATOR)
        g->op[root] = operator_of (g->ops, g->aps[k].ev->beacon.bssid);
      if (local && g->op[root] != POOL_OPERATOR)
        continue;
      /* n ≤ 2^16 in practice (the sources cap their tables); key = root * 2^16 + country */
      gpointer key = GSIZE_TO_POINTER (((gsize) root << 16) | c);
      guint cnt = GPOINTER_TO_UINT (g_hash_table_lookup (member_counts, key)) + 1;
      g_hash_table_insert (member_counts, key, GUINT_TO_POINTER (cnt));
      if (cnt > best_n[root])
        {
          best_n[root] = cnt;
          g->vote[root] = c;
          tied[root] = FALSE;
        }
      else if (cnt == best_n[root] && c != g->vote[root])
        tied[root] = TRUE;
    }
}

/* Each group votes once, for the country most of its globally administered
 * members name: one radio sends one country, and a locally administered
 * "sibling" that says otherwise (anyone can make one up) cannot turn a
 * real device's vote.  Groups of locally administered members only vote
 * by theirs.  When two countries have as many members, the group abstains.
 * A group's operator is the OUI of its first globally administered member. */
static void
group_elect (BeaconGroups *g)
{
  g_autofree guint *best_n = g_new0 (guint, g->n);
  g_autofree gboolean *tied = g_new0 (gboolean, g->n);

  for (guint i = 0; i < g->n; i++)
    {
      g->vote[i] = RL_COUNTRY_NONE;
      g->op[i] = POOL_OPERATOR;
    }
  elect_pass (g, best_n, tied, FALSE);
  elect_pass (g, best_n, tied, TRUE);
  for (guint i = 0; i < g->n; i++)
    if (tied[i])
      g->vote[i] = RL_COUNTRY_NONE;
}

/* The per-operator cap: a group of operator @op counts for @c only while
 * that operator has given @c fewer than beacon_max_aps_per_operator votes. */
static gboolean
under_cap (const RlPolicyParams *p, GHashTable *per_op, gint64 *key)
{
  guint used = GPOINTER_TO_UINT (g_hash_table_lookup (per_op, key));

  if (p->beacon_max_aps_per_operator > 0 && used >= p->beacon_max_aps_per_operator)
    return FALSE;
  g_hash_table_insert (per_op, key, GUINT_TO_POINTER (used + 1));
  return TRUE;
}

/* One group of a globally administered operator, for its country. */
static void
credit_group (Tallying *t, RlCountry c, gboolean counts, gboolean new_operator, guint members)
{
  if (c == RL_COUNTRY_EU)
    {
      t->eu.groups++;
      t->eu.votes += counts ? 1 : 0;
      t->eu.ga_votes += counts ? 1 : 0;
      return;
    }
  Tally *y = tally_get (t, c);
  y->pub.beacon_devices++;
  y->pub.beacon_bssids += members;
  if (!counts)
    return;
  y->beacon_votes++;
  y->beacon_ga_votes++;
  y->pub.beacon_aps++;
  y->pub.beacon_operators += new_operator ? 1 : 0;
  t->n_ga_votes++;
}

typedef struct {
  RlCountry country;
  guint groups, bssids;
} PoolCount;

/* The locally administered groups without a sibling: phone hotspots,
 * made-up addresses.  Together they are one operator with one vote, for
 * the code most of them name (none on a tie); they never make a witness
 * on their own (beacon_witnesses() wants a globally administered vote). */
static void
credit_pool (Tallying *t, GArray *counts)
{
  const PoolCount *best = NULL;
  gboolean tied = FALSE;

  for (guint i = 0; i < counts->len; i++)
    {
      const PoolCount *pc = &g_array_index (counts, PoolCount, i);
      if (best == NULL || pc->groups > best->groups)
        best = pc, tied = FALSE;
      else if (pc->groups == best->groups)
        tied = TRUE;
    }
  if (best == NULL || tied)
    return;
  t->pool.country = best->country;
  t->pool.for_country = best->groups;
  if (best->country == RL_COUNTRY_EU)
    {
      t->eu.groups += best->groups;
      t->eu.votes++;
      return;
    }
  Tally *y = tally_get (t, best->country);
  y->pub.beacon_devices += best->groups;
  y->pub.beacon_bssids += best->bssids;
  y->beacon_votes++;
  y->pub.beacon_aps++;
  y->pub.beacon_operators++;
  y->pool_vote = TRUE;
}

/* The access points of the pool's voting groups, which the texts leave out
 * of the dissent (they neither make nor break a witness): one pass. */
static void
pool_note_members (Tallying *t, BeaconGroups *g)
{
  for (guint j = 0; t->pool.groups > 0 && j < g->n; j++)
    {
      guint root = uf_find (g->parent, j);
      if (g->op[root] != POOL_OPERATOR || g->vote[root] == RL_COUNTRY_NONE)
        continue;
      if (t->pool.members == NULL)
        t->pool.members = g_hash_table_new (NULL, NULL);
      g_hash_table_add (t->pool.members, (gpointer) g->aps[j].ev);
    }
}

/* Counts one vote per group for its country, at most
 * beacon_max_aps_per_operator per (operator, country); the pool last. */
static void
count_beacon_votes (Tallying *t, BeaconGroups *g)
{
  g_autoptr (GHashTable) per_op = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *op_keys = g_new0 (gint64, g->n);
  g_autoptr (GArray) pool = g_array_new (FALSE, TRUE, sizeof (PoolCount));

  t->pool.country = RL_COUNTRY_NONE;
  for (guint i = 0; i < g->n; i++)
    {
      RlCountry c = g->vote[i];

      if (uf_find (g->parent, i) != i || c == RL_COUNTRY_NONE)
        continue;
      if (g->op[i] == POOL_OPERATOR)
        {
          guint k = 0;
          t->pool.groups++;
          while (k < pool->len && g_array_index (pool, PoolCount, k).country != c)
            k++;
          if (k == pool->len)
            g_array_set_size (pool, k + 1);
          g_array_index (pool, PoolCount, k).country = c;
          g_array_index (pool, PoolCount, k).groups++;
          g_array_index (pool, PoolCount, k).bssids += g->members[i];
          continue;
        }
      gint64 *key = &op_keys[i];
      *key = ((gint64) g->op[i] << 16) | c;
      gboolean new_operator = !g_hash_table_contains (per_op, key);
      gboolean counts = under_cap (t->params, per_op, key);
      credit_group (t, c, counts, new_operator, g->members[i]);
    }
  credit_pool (t, pool);
  pool_note_members (t, g);
}

/* ---- faint access points --------------------------------------------- */

/* Routers across a river or a street are heard faintly; the building one is
 * in, well.  A country all of whose access points are faint (at or below
 * beacon_faint_dbm, or beacon_faint_margin below the strongest AP heard)
 * forms no witness; its votes still count in the shares.  The strongest
 * counts as at most FAINT_REFERENCE_MAX_DBM: a router on the desk at -25 dBm
 * must not mute the building. */
#define FAINT_REFERENCE_MAX_DBM (-45.0)
/* Signals jitter by a few dB from scan to scan, and the decision is made
 * again after every scan.  The faint rule's thresholds have a band this
 * wide around them: a country heard well in the decision before turns
 * faint only half of it below a threshold, one that was not turns heard
 * well only half of it above.  A router hovering at a threshold does not
 * turn a witness on and off scan after scan, and on average the line lies
 * where it did. */
#define FAINT_HYSTERESIS_DB 5.0

/* Heard at or below beacon_faint_dbm (an unknown signal, 0, is not). */
static gboolean
ap_below_floor (const RlPolicyParams *p, const RlEvidence *e)
{
  return e->beacon.signal_mbm != 0 && e->beacon.signal_mbm / 100.0 <= p->beacon_faint_dbm;
}

/* Faint against the reference @strongest_dbm (0: none known), both
 * thresholds lowered by @slack dB (raised if negative). */
static gboolean
ap_is_faint_beside (const Tallying *t, const RlEvidence *e, double strongest_dbm, double slack)
{
  double dbm = e->beacon.signal_mbm / 100.0;

  if (e->beacon.signal_mbm == 0)
    return FALSE;           /* unknown: no reason to doubt it */
  if (dbm <= t->params->beacon_faint_dbm - slack)
    return TRUE;
  return strongest_dbm != 0 &&
         dbm <= MIN (strongest_dbm, FAINT_REFERENCE_MAX_DBM) - t->params->beacon_faint_margin_db - slack;
}

/* @country's candidate in @previous (may be NULL), or NULL. */
static const RlCandidate *
candidate_before (const RlDecision *previous, RlCountry country)
{
  for (guint i = 0; previous != NULL && i < previous->candidates->len; i++)
    if (g_array_index (previous->candidates, RlCandidate, i).country == country)
      return &g_array_index (previous->candidates, RlCandidate, i);
  return NULL;
}

/* The faint test's slack for @country: half the hysteresis band below the
 * thresholds if the decision before heard it well, above them if it heard
 * it faintly; none for a country it did not weigh. */
static double
faint_slack (const Tallying *t, RlCountry country)
{
  const RlCandidate *c = candidate_before (t->previous, country);

  if (c == NULL || c->beacon_aps == 0)
    return 0;
  return c->heard_well ? FAINT_HYSTERESIS_DB / 2 : -FAINT_HYSTERESIS_DB / 2;
}

static Tally *
tally_find (const Tallying *t, RlCountry code)
{
  for (guint i = 0; i < t->tallies->len; i++)
    if (g_array_index (t->tallies, Tally, i).pub.country == code)
      return &g_array_index (t->tallies, Tally, i);
  return NULL;
}

/* *@dbm becomes @heard when it is louder (0 on either side: no signal
 * known).  Rule 4b's reference is the strongest access point heard,
 * whether it votes or not: one riding along is the router on the desk, and
 * a suspect too while a trusted fix stands (see collect_live ()). */
static void
keep_louder (double *dbm, double heard)
{
  if (heard != 0 && (*dbm == 0 || heard > *dbm))
    *dbm = heard;
}

static double
louder_of (double a, double b)
{
  keep_louder (&a, b);
  return a;
}

/* A suspect is the router on the desk while the fix that made it suspect
 * stands (a barge's own router midstream on a border river makes the
 * banks' routers faint); once the fix is lost it says nothing of the banks
 * (a barge at a quay far from any border, its fix lost indoors). */
static void
suspect_reference (Tallying *t)
{
  if (t->gps != NULL && !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED))
    keep_louder (&t->strongest_dbm, t->suspect_dbm);
}

/* Per access point, for the country its group votes: whether one of them
 * is heard well (rule 4b), and how many globally administered devices
 * there are. */
static void
tally_aps (Tallying *t, const BeaconGroups *g)
{
  g_autofree gboolean *well = g_new0 (gboolean, g->n);

  for (guint k = 0; k < g->n; k++)
    {
      guint root = uf_find (g->parent, k);
      RlCountry c = g->vote[root];
      gboolean unmapped;
      Tally *y;

      if (c == RL_COUNTRY_NONE || c == RL_COUNTRY_EU || (y = tally_find (t, regulatory_code (t, c, &unmapped))) == NULL)
        continue;
      double slack = faint_slack (t, y->pub.country);
      gboolean ga = !g->aps[k].local && g->op[root] != POOL_OPERATOR;
      if (!ap_is_faint_beside (t, g->aps[k].ev, t->strongest_dbm, slack))
        {
          y->pub.heard_well = TRUE;
          if (ga && !well[root])
            well[root] = TRUE, y->well_groups++;
        }
      if (!ap_is_faint_beside (t, g->aps[k].ev, louder_of (t->strongest_dbm, t->silent_dbm), slack))
        y->heard_loud = TRUE;
      /* devices, not votes: a campsite's network on five access points is
       * one vote but five devices installed in the place (rule 12 weighs
       * places); sorted by BSSID, a device's BSSIDs are adjacent */
      if (ga && (k == 0 || g->aps[k - 1].device != g->aps[k].device))
        y->ga_devices++;
    }
}

static gboolean within_reach (const Tally *a, const Tally *b);

/* Does evidence place the machine in a country other than @y's: another
 * country's access points heard well, a modem's network or a fix naming
 * another country and not @y's, or a clock whose own country (not listing
 * @y's) touches @y's?  A clock from further away is a traveller's: an
 * American's laptop in a German village, its own box sending no country,
 * keeps the neighbours' routers heard well. */
static gboolean
other_country_named (const Tallying *t, const Tally *y)
{
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);

      if (o->pub.country == y->pub.country)
        continue;
      if ((o->heard_loud && o->beacon_ga_votes > 0) || (o->pub.cell && !y->pub.cell) || (o->pub.gps && !y->pub.gps) ||
          (o->tz_primary && !y->pub.timezone && within_reach (o, y)))
        return TRUE;
    }
  return FALSE;
}

/* Rule 4b, the loudest router sends no country: many a family's own box
 * sends no Country element, and beside it on the desk the routers across
 * the river are heard faintly all the same (Goma: a box at -42 dBm, the
 * Rwandan routers across the line at -81…-85).  Where nothing else names
 * another country, those faint routers are the neighbours (a farm, a
 * village): they stay heard well. */
static void
silent_reference (Tallying *t)
{
  if (t->silent_dbm == 0 || (t->strongest_dbm != 0 && t->silent_dbm <= t->strongest_dbm))
    return;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);

      if (y->pub.heard_well && !y->heard_loud && other_country_named (t, y))
        y->pub.heard_well = FALSE, y->faint_by_silent = TRUE;
    }
}

/* ---- one operator's large network ------------------------------------ */

/* Many devices of one operator on several channels in more than one band
 * are hard to fake with one radio: a radio sends on one channel at a time,
 * the cheap beacon spammers only on 2.4 GHz, and every scan has to hear the
 * devices on their channels at once.  Such a network is one witness on its
 * own operator's word (docs/policy.md, "Large networks"). */
#define NET_MAX_FREQS 16

typedef struct {
  RlCountry country;
  guint32 oui;
  guint devices;
  guint64 last_device;
  guint32 freqs[NET_MAX_FREQS];
  guint n_freqs;
  guint bands;              /* bit 0: 2.4 GHz, 1: 5 GHz, 2: 6 GHz */
} NetStats;

static guint
band_of (guint32 mhz)
{
  if (mhz >= 2400 && mhz < 2500)
    return 1u << 0;
  if (mhz >= 4900 && mhz < 5925)
    return 1u << 1;
  if (mhz >= 5925 && mhz <= 7125)
    return 1u << 2;
  return 0;
}

static void
net_add (NetStats *s, const Ap *ap)
{
  guint32 mhz = ap->ev->beacon.freq_mhz;
  guint f = 0;

  /* APs are sorted by BSSID: the BSSIDs of one device are adjacent */
  if (s->devices == 0 || s->last_device != ap->device)
    s->devices++;
  s->last_device = ap->device;
  if (band_of (mhz) == 0)
    return;
  s->bands |= band_of (mhz);
  while (f < s->n_freqs && s->freqs[f] != mhz)
    f++;
  if (f == s->n_freqs && s->n_freqs < NET_MAX_FREQS)
    s->freqs[s->n_freqs++] = mhz;
}

/* The votes operator @oui gave @c (after the per-operator cap). */
static guint
operator_votes (const RlPolicyParams *p, const BeaconGroups *g, guint32 oui, RlCountry c)
{
  guint n = 0;

  for (guint i = 0; i < g->n; i++)
    if (uf_find (g->parent, i) == i && g->op[i] == oui && g->vote[i] == c)
      n++;
  return p->beacon_max_aps_per_operator > 0 ? MIN (n, p->beacon_max_aps_per_operator) : n;
}

/* Does @ap vote for its group's country with its own country code (a
 * globally administered member that names it)? */
static gboolean
net_member (const BeaconGroups *g, guint k, RlCountry *country)
{
  const Ap *ap = &g->aps[k];

  *country = g->vote[uf_find (g->parent, k)];
  return !ap->local && *country != RL_COUNTRY_NONE && *country != RL_COUNTRY_EU && ap->ev->countries[0] == *country;
}

static gint64
net_key (const BeaconGroups *g, const Ap *ap, RlCountry c)
{
  return ((gint64) operator_of (g->ops, ap->ev->beacon.bssid) << 16) | c;
}

/* An access point of an operator's network, for net_devices (). */
typedef struct {
  gint64 key;               /* net_key () */
  const char *ssid;
  guint64 device;
  guint k;                  /* its index: the order of the BSSIDs */
} NetSsid;

static gint
cmp_net_ssid (gconstpointer pa, gconstpointer pb)
{
  const NetSsid *a = pa, *b = pb;
  int c;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  if ((c = strcmp (a->ssid, b->ssid)) != 0)
    return c;
  return a->k < b->k ? -1 : a->k > b->k;
}

static gboolean
same_ssid (const NetSsid *a, const NetSsid *b)
{
  return a->key == b->key && strcmp (a->ssid, b->ssid) == 0;
}

/* The operators' networks per country that are one network: at least
 * @min_devices of their devices send one SSID.  A venue's, a train's or a
 * ship's access points all send the network's SSID (with others: a staff
 * SSID, a 5 GHz name); the gateways of nine households on one ISP send nine
 * SSIDs, and are nine households, not one operator's network (a Toronto
 * condo's Rogers gateways).  Returns a set of net_key () values. */
static GHashTable *
net_keys (const BeaconGroups *g, guint min_devices)
{
  g_autoptr (GArray) aps = g_array_sized_new (FALSE, FALSE, sizeof (NetSsid), g->n);
  GHashTable *keys = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  RlCountry c;

  for (guint k = 0; k < g->n; k++)
    if (net_member (g, k, &c) && g->aps[k].ev->beacon.ssid[0] != '\0')
      g_array_append_val (aps, ((NetSsid) { net_key (g, &g->aps[k], c), g->aps[k].ev->beacon.ssid, g->aps[k].device, k }));
  g_array_sort (aps, cmp_net_ssid);
  /* runs of one (operator, country, SSID), in BSSID order: a device's
   * BSSIDs are adjacent */
  for (guint i = 0, j; i < aps->len; i = j)
    {
      const NetSsid *run = &g_array_index (aps, NetSsid, i);
      guint n = 0;

      for (j = i; j < aps->len && same_ssid (run, &g_array_index (aps, NetSsid, j)); j++)
        n += j == i || g_array_index (aps, NetSsid, j).device != g_array_index (aps, NetSsid, j - 1).device;
      if (n >= min_devices && !g_hash_table_contains (keys, &run->key))
        g_hash_table_add (keys, g_memdup2 (&run->key, sizeof run->key));
    }
  return keys;
}

static void
network_witnesses (Tallying *t, const BeaconGroups *g)
{
  const RlPolicyParams *p = t->params;
  g_autoptr (GHashTable) nets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) networks = NULL;
  GHashTableIter it;
  gpointer value;

  if (p->beacon_network_min_devices == 0)
    return;
  networks = net_keys (g, p->beacon_network_min_devices);
  for (guint k = 0; k < g->n; k++)
    {
      const Ap *ap = &g->aps[k];
      RlCountry c;
      NetStats *s;

      /* globally administered members that name their group's country, of
       * an operator whose devices send one network's SSID */
      if (!net_member (g, k, &c))
        continue;
      gint64 key = net_key (g, ap, c);
      if (!g_hash_table_contains (networks, &key))
        continue;
      if ((s = g_hash_table_lookup (nets, &key)) == NULL)
        {
          s = g_new0 (NetStats, 1);
          s->country = c;
          s->oui = operator_of (g->ops, ap->ev->beacon.bssid);
          g_hash_table_insert (nets, g_memdup2 (&key, sizeof key), s);
        }
      net_add (s, ap);
    }
  g_hash_table_iter_init (&it, nets);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const NetStats *s = value;
      guint bands = ((s->bands >> 0) & 1) + ((s->bands >> 1) & 1) + ((s->bands >> 2) & 1);
      if (s->devices < p->beacon_network_min_devices || s->n_freqs < p->beacon_network_min_channels ||
          bands < p->beacon_network_min_bands)
        continue;
      Tally *y = tally_get (t, s->country);
      y->pub.beacon_network = TRUE;
      /* the largest network is the one shown (order-independent: a maximum) */
      if (s->devices > y->network_devices ||
          (s->devices == y->network_devices && s->n_freqs > y->network_channels))
        {
          y->network_devices = s->devices;
          y->network_channels = s->n_freqs;
          y->network_bands = bands;
          y->network_votes = operator_votes (t->params, g, s->oui, s->country);
        }
    }
}

/* @votes hold the share of one witness among @total (rule 4). */
static gboolean
holds_share (const RlPolicyParams *p, guint votes, guint total)
{
  return (double) votes + 1e-9 >= p->beacon_min_fraction * (double) total;
}

/* @y's operators of globally administered addresses: the phone-hotspot
 * pool is no operator of its own kind. */
static guint
ga_operators (const Tally *y)
{
  return y->pub.beacon_operators - (y->pool_vote ? 1 : 0);
}

/* Do the access points other than @y's say another country, by the share
 * rule applied to them alone (a ship's network in port, the harbour's
 * routers of several operators around it)?  Exhibitors of many countries
 * around a venue's network do not. */
static const Tally *
rest_says_otherwise (const Tallying *t, const Tally *y)
{
  const RlPolicyParams *p = t->params;
  guint rest = t->n_ga_votes - MIN (y->network_votes, t->n_ga_votes);

  for (guint k = 0; k < t->tallies->len; k++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, k);
      /* two operators of their own: the phone-hotspot pool completes no
       * pair (one travel router and the guests' phones are no street) */
      if (o == y || o->beacon_ga_votes < p->beacon_min_aps || ga_operators (o) < 2)
        continue;
      if (holds_share (p, o->beacon_ga_votes, rest))
        return o;
    }
  return NULL;
}

/* Does the live fix's error circle itself contain @code (its centre's
 * country, or a neighbour no further than its error radius)? */
static gboolean
gps_circle_names (const Tallying *t, RlCountry code)
{
  const RlEvidence *gps = t->gps;
  gboolean unmapped;

  for (guint c = 0; c < gps->n_countries; c++)
    if (c == 0 || gps->gps.border_m < 0 || gps->gps.border_m <= gps->gps.error_m)
      if (regulatory_code (t, gps->countries[c], &unmapped) == code)
        return TRUE;
  return FALSE;
}

/* @y's globally administered votes from others than its large network. */
static guint
other_votes (const Tally *y)
{
  return y->beacon_ga_votes - MIN (y->network_votes, y->beacon_ga_votes);
}

/* Do the access points of operators other than the large network's give
 * @y a witness of their own among themselves (the hotel's network and the
 * routers of the street)?  By the share rule; or, from two operators of
 * their own, when no other country has the votes for a witness: guests'
 * travel routers of four countries, one each, are visitors, not a street
 * across a border (a hotel by Geneva's station). */
static gboolean
others_say_so (const Tallying *t, const Tally *y)
{
  const RlPolicyParams *p = t->params;
  guint votes = other_votes (y);
  guint rest = t->n_ga_votes - MIN (y->network_votes, t->n_ga_votes);

  if (votes < p->beacon_min_aps)
    return FALSE;
  if (holds_share (p, votes, rest))
    return TRUE;
  /* the network's operator is one of @y's: two more */
  if (ga_operators (y) < 3)
    return FALSE;
  for (guint k = 0; k < t->tallies->len; k++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, k);
      if (o != y && o->beacon_ga_votes >= p->beacon_min_aps)
        return FALSE;
    }
  return TRUE;
}

/* A fix far from any border naming only another country than @y's: one
 * operator's network goes where the vehicle goes (an ÖBB Railjet's network
 * through the Deutsches Eck, a clean fix 5 km inside Germany; a Swedish
 * ferry's network in Danish waters). */
static gboolean
fix_names_only (const Tally *o)
{
  return o->gps_strong;
}

/* The first country other than @y's for which @has holds, or NULL. */
static const Tally *
other_where (const Tallying *t, const Tally *y, gboolean (*has) (const Tally *o))
{
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o != y && has (o))
        return o;
    }
  return NULL;
}

static gboolean
fix_places_elsewhere (const Tallying *t, const Tally *y)
{
  return other_where (t, y, fix_names_only) != NULL;
}

/* How many witnesses each country's beacon votes make: one with enough APs
 * and share, two with enough APs from enough operators and no dissent.
 * Votes of globally administered operators are needed: the locally
 * administered pool never makes a witness on its own.  A large network of
 * one operator is one witness unless another country has a witness of
 * many operators' votes, or holds the share among the other access points,
 * or a clean fix names only another country: one operator's word yields to
 * the word of many (a train's network in a city that says otherwise) and to
 * the fix. */
static void
beacon_witnesses (Tallying *t)
{
  const RlPolicyParams *p = t->params;
  RlCountry by_share = RL_COUNTRY_NONE;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      gboolean dissent = FALSE;

      if (y->beacon_ga_votes < MIN (p->beacon_min_aps, 2u) || !y->pub.heard_well)
        continue;
      /* "No dissent" means no other country has the APs for a witness of
       * its own; a lone AP naming something else is shown, not counted. */
      for (guint k = 0; k < t->tallies->len; k++)
        if (k != i && g_array_index (t->tallies, Tally, k).beacon_ga_votes >= p->beacon_min_aps)
          dissent = TRUE;
      /* … nor a GPS fix that places the machine elsewhere: a fix whose
       * error circle does not reach this country (it may lie within the
       * border margin beyond it) is dissent too */
      if (t->gps != NULL && !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED) && !gps_circle_names (t, y->pub.country))
        dissent = TRUE;
      double fraction = (double) y->beacon_ga_votes / (double) MAX (t->n_ga_votes, 1u);
      gboolean share = fraction + 1e-9 >= p->beacon_min_fraction;
      /* two witnesses are more than one: the share too (visitors' gadgets of
       * four vendors are not two witnesses beside four other countries') */
      if (y->beacon_ga_votes >= p->beacon_strong_aps && ga_operators (y) >= p->beacon_strong_operators && !dissent &&
          share)
        y->beacon_witnesses = 2;
      else if (y->beacon_ga_votes >= p->beacon_min_aps && share)
        y->beacon_witnesses = 1;
      if (y->beacon_witnesses > 0)
        by_share = y->pub.country;
    }
  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      if (!y->pub.beacon_network)
        continue;
      if ((by_share != RL_COUNTRY_NONE && by_share != y->pub.country) || rest_says_otherwise (t, y) != NULL ||
          !y->pub.heard_well || fix_places_elsewhere (t, y))
        {
          y->pub.beacon_network = FALSE;
          y->network_yields = TRUE;
          t->network_yielded |= y->pub.heard_well;
        }
      else if (others_say_so (t, y))
        y->beacon_witnesses = 2;    /* the network's word and the other operators' */
      else if (y->beacon_witnesses == 0 ||
               (y->beacon_witnesses == 1 && other_votes (y) < t->params->beacon_min_aps))
        {
          /* with fewer other votes than a witness needs, the network's
           * own votes made the share: the witness is still the network's
           * word (a ship's guest network and its second network of
           * another vendor out at sea, a train's network and one router
           * by the line, an embassy's network and one MiFi) */
          y->beacon_witnesses = 1;
          y->network_only = TRUE;
        }
    }
  t->eu.witness = t->eu.votes >= p->beacon_min_aps && t->eu.ga_votes > 0;
}

static void
tally_beacons (Tallying *t, GPtrArray *beacons)
{
  BeaconGroups g = { beacons->len, NULL, NULL, NULL, NULL, NULL, NULL };

  if (g.n == 0)
    return;
  /* sort so that grouping never depends on the order evidence came in */
  g_ptr_array_sort (beacons, cmp_beacon_ev);
  g.aps = g_new0 (Ap, g.n);
  g.parent = g_new (guint, g.n);
  g.vote = g_new0 (RlCountry, g.n);
  g.op = g_new0 (guint32, g.n);
  g.members = g_new0 (guint, g.n);
  for (guint i = 0; i < g.n; i++)
    g.aps[i].ev = g_ptr_array_index (beacons, i);
  g.ops = operators_new (beacons);

  group_join (&g);
  group_elect (&g);
  count_beacon_votes (t, &g);
  tally_aps (t, &g);
  silent_reference (t);
  network_witnesses (t, &g);
  beacon_witnesses (t);

  g_hash_table_unref (g.ops);
  g_free (g.members);
  g_free (g.op);
  g_free (g.vote);
  g_free (g.parent);
  g_free (g.aps);
}

/* ---- collecting the evidence ----------------------------------------- */

static gboolean
is_live (const RlEvidence *e, gint64 now)
{
  return e->expires_at > now && e->observed_at <= now;
}

/* ---- the mobile network (issue 13) ---------------------------------- */

/* A modem registered on a network whose MCC names one country is one
 * deciding witness for it (every modem together: one witness, they hear
 * the same towers); an MCC shared by several countries (310-316: the US
 * and its territories) confirms each of them, never decides.  A cell is
 * never strong: a tower across a border is an everyday thing, so a cell
 * naming another country than a GPS fix or the access points is no
 * conflict, and it always needs a second witness (docs/policy.md). */
static void
collect_cell (Tallying *t, const RlEvidence *e)
{
  if ((e->cell.unknown || e->cell.unlisted) && (t->cell_unknown == NULL || strcmp (e->key, t->cell_unknown->key) < 0))
    t->cell_unknown = e;
  for (guint c = 0; c < e->n_countries; c++)
    {
      Tally *y = tally_get (t, e->countries[c]);
      y->pub.cell = TRUE;
      y->cell_network = e->cell.network;
      if (e->n_countries == 1)
        y->cell_strong = TRUE;
    }
}

/* The codes a tally stands for: its rules' and the place it was named for
 * (GB and GG). */
static void
tally_codes (const Tally *y, RlCountry out[2])
{
  out[0] = y->pub.country;
  out[1] = y->location ? y->location : y->pub.country;
}

/* Can a mast in @a's country serve a machine in @b's: the same country, or
 * countries that touch by land or by their waters (core/neighbours.h), by
 * either of their codes? */
static gboolean
within_reach (const Tally *a, const Tally *b)
{
  RlCountry ca[2], cb[2];

  tally_codes (a, ca);
  tally_codes (b, cb);
  for (guint i = 0; i < 2; i++)
    for (guint k = 0; k < 2; k++)
      if (rl_countries_within_reach (ca[i], cb[k]))
        return TRUE;
  return FALSE;
}

/* Does the loudest voting router name @o's country? */
static gboolean
loudest_names (const Tallying *t, const Tally *o)
{
  gboolean unmapped;

  return t->loudest != NULL && regulatory_code (t, t->loudest->countries[0], &unmapped) == o->pub.country;
}

/* @o's country keeps the cell to confirming (the text names it). */
static CellOverruled
overruled_by (const Tally *o, RlCountry *other)
{
  *other = o->pub.country;
  return CELL_OTHER_PLACE;
}

/* @y's globally administered votes with an access point heard well
 * (rule 4b): a vote's groups heard only faintly are across a street or a
 * river. */
static guint
well_votes (const Tally *y)
{
  return MIN (y->beacon_ga_votes, y->well_groups);
}

/* Does anything with a range of metres place the machine in a country
 * other than @y's: a beacon witness (one operator's large network too),
 * access points holding the share though faint, or a fix naming only that
 * country?  Then a mast across the border is the
 * likelier story than the access points' or the fix's error, and the cell
 * only confirms (a laptop in Lifford on Vodafone UK's Strabane mast, three
 * Irish operators' routers around it). */
static CellOverruled
other_place_here (const Tallying *t, const Tally *y, RlCountry *other)
{
  const RlPolicyParams *p = t->params;

  /* a fix far from any border in the network's country places the machine
   * where the mast is: the access points saying otherwise travel with it
   * (a Railjet's network in Bavaria on a Telekom SIM) */
  if (y->gps_strong)
    return CELL_DECIDES;
  /* a fix near a border: where the masts of both sides reach (a hut on
   * the Zugspitze on an Austrian mast, a boat on the Danube at Hainburg) */
  if (t->gps != NULL && t->gps->n_countries > 1)
    return CELL_NEAR_BORDER;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o == y || o->pub.country == y->pub.country)
        continue;
      if (o->gps_strong)
        return overruled_by (o, other);
      /* no mast across a border reaches from Nuuk to Danish routers, nor
       * from the Faroes: such access points do not overrule the cell, they
       * conflict with it (far_network ()) */
      if (!within_reach (o, y))
        continue;
      if (o->beacon_witnesses > 0)
        return overruled_by (o, other);
      /* no witness, but access points name another country as often as
       * the cell's or more (globally administered votes: not a phone's
       * hotspot), heard well or through the walls: the hotel's own network
       * in Taba or Shenzhen, a router in Tarifa, a Livebox in Menton beside
       * an Italian visitor's travel router, two Swiss networks beside two
       * German ones at Basel's Badischer Bahnhof, while the home SIM holds
       * on to a mast across the border and the clock is the one from home.
       * SIM and clock both say where the owner lives, not where the
       * machine is: they do not break a tie on the ground.  Devices count
       * as well as votes: a campsite's network on five access points is
       * one vote but five devices installed in the place, and three
       * Belgian caravans' routers outvote it (Cadzand).  Against access
       * points heard well, only the cell's country's votes heard well
       * count: its routers heard faintly are across the line, where the
       * mast may be too (a German family in Strasbourg, its two boxes
       * brought from home, three French neighbours, two Kehl routers
       * across the Rhine).  Faint against faint, all count. */
      guint own = o->pub.heard_well ? well_votes (y) : y->beacon_ga_votes;
      if (o->beacon_ga_votes > 0 && (o->beacon_ga_votes >= own || o->ga_devices >= y->ga_devices))
        return overruled_by (o, other);
      /* fewer, but the loudest router, heard well, where @y's routers do
       * not hold the share: the building's own box says where the
       * machine is, and a lean of one faint vote across the street is no
       * place for the SIM and the clock to settle (a Belgian visitor in a
       * Baarle-Nassau flat: the KPN box on the shelf, three Belgian
       * routers through the walls) */
      if (o->pub.heard_well && loudest_names (t, o) && !holds_share (p, y->beacon_ga_votes, t->n_ga_votes))
        return overruled_by (o, other);
      /* faint, but the share: the neighbours' routers through the walls
       * while the household's own router, bought at home, sits on the desk
       * (a Slovak family in Kittsee on its Slovak SIM) */
      if (!o->pub.heard_well && o->beacon_ga_votes >= p->beacon_min_aps &&
          holds_share (p, o->beacon_ga_votes, t->n_ga_votes))
        return overruled_by (o, other);
    }
  return CELL_DECIDES;
}

/* A trusted fix whose error circle does not reach @y's country, or lies
 * at sea: a ship leaving the coast still hears the home masts 20 nautical
 * miles out, beyond the 12-mile line. */
static gboolean
fix_rules_out (const Tallying *t, const Tally *y)
{
  return t->gps != NULL && !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED) &&
         (t->gps_at_sea || (t->gps->n_countries > 0 && !gps_circle_names (t, y->pub.country)));
}

/* Without a fix, @y's access points hold only the share (one witness), and
 * a neighbour's access points of two operators, heard well, with votes
 * for a witness, say the neighbour, whose own zone the clock is: the
 * modem's network of @y is a mast across the border, not a second witness
 * for @y's routers (a Ciudad Juárez house: Telmex and Totalplay boxes, four
 * retail routers on US factory defaults, the Juárez clock, the modem
 * roaming on AT&T's El Paso mast; US was decided).  Returns the
 * neighbour, or NULL. */
static const Tally *
locals_dissent (const Tallying *t, const Tally *y)
{
  const RlPolicyParams *p = t->params;

  if (t->gps != NULL || y->beacon_witnesses != 1 || y->pub.beacon_network)
    return NULL;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o != y && o->pub.country != y->pub.country && o->tz_primary && o->pub.heard_well &&
          o->beacon_ga_votes >= p->beacon_min_aps && ga_operators (o) >= 2 && within_reach (o, y))
        return o;
    }
  return NULL;
}

/* Does @y's modem network decide (rule 12)? */
static gboolean
cell_decides (const Tally *y)
{
  return y->cell_strong && y->cell_overruled == CELL_DECIDES;
}

static void
weigh_cell (const Tallying *t, Tally *y, double *miss)
{
  const Tally *locals;

  y->pub.cell_ambiguous = y->pub.cell && !y->cell_strong;
  if (!y->pub.cell)
    return;
  /* a trusted fix whose circle leaves the country out: the mast is across
   * the border, the machine is not (a Strasbourg resident on the Rhine
   * bank, 64 m from Germany, fix ±6 m, still on Vodafone DE's Kehl mast,
   * three German routers across the river: DE was decided) */
  if (fix_rules_out (t, y))
    {
      y->cell_overruled = CELL_FIX_OUTSIDE;
      return;
    }
  if (y->cell_strong && (locals = locals_dissent (t, y)) != NULL)
    {
      y->cell_overruled = CELL_LOCALS_DISSENT;
      y->cell_other = locals->pub.country;
      return;
    }
  y->pub.witnesses++;
  y->cell_overruled = y->cell_strong ? other_place_here (t, y, &y->cell_other) : CELL_DECIDES;
  if (cell_decides (y))
    y->pub.deciding++;
  *miss *= 1.0 - t->params->cell_weight;
}

/* A self-managed card's country is the firmware's reading of the access
 * points it hears (and of its factory setting): no witness beside beacons,
 * which already speak for themselves, nor beside a clock.  It confirms a
 * GPS fix or a mobile network, which it does not depend on. */
static void
weigh_driver (const RlPolicyParams *p, Tally *y, double *miss)
{
  y->pub.driver = y->driver_named && (y->pub.gps || (y->pub.cell && y->cell_overruled != CELL_FIX_OUTSIDE &&
                                                      y->cell_overruled != CELL_LOCALS_DISSENT));
  if (!y->pub.driver)
    return;
  y->pub.witnesses++;
  *miss *= 1.0 - p->driver_weight;
}

static void
describe_driver (GString *s, const Tally *y, const Tallying *t, gboolean first)
{
  char text[160];

  if (!y->pub.driver || t->driver_ev == NULL)
    return;
  g_string_append_printf (s, "%sthe %s agrees (it confirms, never decides)", first ? "" : "; ",
                          rl_evidence_describe (t->driver_ev, RL_DETAIL_PUBLIC, text, sizeof text));
}

/* Why a card's country was not counted, once. */
static void
describe_driver_unused (GString *why, const Tallying *t)
{
  char text[160], cc[3];

  for (guint i = 0; i < t->tallies->len && t->driver_ev != NULL; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (!y->driver_named || y->pub.driver)
        continue;
      g_string_append_printf (why, " The %s names %s, but counts only beside a GPS fix or a mobile network: "
                              "its firmware reads the same access points regloc hears.",
                              rl_evidence_describe (t->driver_ev, RL_DETAIL_PUBLIC, text, sizeof text),
                              rl_country_to_string (y->pub.country, cc));
      return;
    }
}

static void
describe_cell (GString *s, const Tally *y, const Tallying *t, gboolean first)
{
  char cc[3];

  if (!y->pub.cell)
    return;
  if (y->cell_overruled == CELL_OTHER_PLACE)
    {
      const Tally *o = tally_find (t, y->cell_other);
      rl_country_to_string (y->cell_other, cc);
      g_string_append_printf (s, "%sa modem's mobile network (its MCC) names it, but %s %s (the two countries "
                              "touch: a mast across the border may reach the machine): it confirms, never decides", first ? "" : "; ",
                              o != NULL && o->gps_strong ? "a GPS fix places the machine in" : "access points here say",
                              cc);
      return;
    }
  if (y->cell_overruled == CELL_LOCALS_DISSENT)
    {
      rl_country_to_string (y->cell_other, cc);
      g_string_append_printf (s, "%sa modem's mobile network (its MCC) names it, but access points of two operators "
                              "say %s, whose own timezone the clock is (the two countries touch: a mast across the "
                              "border may reach the machine): no witness", first ? "" : "; ", cc);
      return;
    }
  g_string_append_printf (s, "%sa modem's mobile network (its MCC) %s", first ? "" : "; ",
                          y->cell_overruled == CELL_FIX_OUTSIDE && t->gps_at_sea
                            ? "names it, but the GPS fix lies at sea, beyond every country's waters (a mast on "
                              "the shore): no witness"
                          : y->cell_overruled == CELL_FIX_OUTSIDE
                            ? "names it, but the GPS fix's error circle does not reach it (a mast across the "
                              "border): no witness"
                          : y->cell_overruled == CELL_NEAR_BORDER
                            ? "names it, but the GPS fix lies near a border, where the masts of both sides "
                              "reach: it confirms, never decides"
                          : y->cell_strong ? "names it" : "names it and other countries: it confirms, never decides");
}

/* How long an access point must have been heard to vote beside those that
 * ride along: half the ride-along window. */
static gint64
settle_us (const RlPolicyParams *p)
{
  return (gint64) p->beacon_ride_along_window_s * RL_USEC_PER_SEC / 2;
}

/* Heard for less than that, or a locally administered address: it says
 * nothing while something rides along. */
static gboolean
is_passing (const RlPolicyParams *p, const RlEvidence *e, gint64 now)
{
  return RL_BSSID_IS_LOCAL (e->beacon.bssid) || now - e->beacon.heard_since < settle_us (p);
}

/* *@loudest becomes @e when @e is a globally administered access point
 * naming a country and louder (ties: the smaller key). */
static void
keep_loudest (const RlEvidence **loudest, const RlEvidence *e)
{
  const RlEvidence *l = *loudest;

  if (e->beacon.signal_mbm == 0 || RL_BSSID_IS_LOCAL (e->beacon.bssid) || e->countries[0] == RL_COUNTRY_EU)
    return;
  if (l == NULL || e->beacon.signal_mbm > l->beacon.signal_mbm ||
      (e->beacon.signal_mbm == l->beacon.signal_mbm && strcmp (e->key, l->key) < 0))
    *loudest = e;
}

/* Sorts the live items: the newest good fix speaks for the GPS, beacons
 * with a country go to @beacons, the timezone marks its countries. */
static void
collect_live (Tallying *t, const RlEvidence *ev, gsize n_ev, gint64 now, GPtrArray *beacons)
{
  const RlPolicyParams *p = t->params;

  for (gsize i = 0; i < n_ev; i++)
    {
      const RlEvidence *e = &ev[i];

      if (!is_live (e, now) || e->kind == RL_SOURCE_OVERRIDE)
        continue;
      t->n_live++;
      switch (e->kind)
        {
        case RL_SOURCE_GPS:
          if (e->gps.error_m > p->gps_max_error_m || e->strength <= 0)
            break;
          /* ties: the smaller key */
          if (t->gps == NULL || e->observed_at > t->gps->observed_at ||
              (e->observed_at == t->gps->observed_at && strcmp (e->key, t->gps->key) < 0))
            t->gps = e;
          break;
        case RL_SOURCE_BEACON:
          t->last_heard = MAX (t->last_heard, e->observed_at);
          if (e->n_countries > 0 && rl_contradiction_is_suspect (t->suspects, e))
            t->n_suspect++, keep_louder (&t->suspect_dbm, e->beacon.signal_mbm / 100.0);
          else if (e->n_countries > 0 && (e->beacon.flags & RL_BEACON_INFO_RIDES_ALONG))
            t->n_riding++, keep_louder (&t->strongest_dbm, e->beacon.signal_mbm / 100.0);
          else if (e->n_countries > 0)
            {
              g_ptr_array_add (beacons, (gpointer) e), keep_louder (&t->strongest_dbm, e->beacon.signal_mbm / 100.0);
              keep_loudest (&t->loudest, e);
            }
          break;
        case RL_SOURCE_CELL:
          collect_cell (t, e);
          break;
        case RL_SOURCE_DRIVER:
          if (t->driver_ev == NULL || strcmp (e->key, t->driver_ev->key) < 0)
            t->driver_ev = e;
          for (guint c = 0; c < e->n_countries; c++)
            tally_get (t, e->countries[c])->driver_named = TRUE;
          break;
        case RL_SOURCE_TIMEZONE:
          if (t->zone == NULL && e->detail[0])
            {
              t->zone = e->detail;
              t->zone_ev = e;
            }
          for (guint c = 0; c < e->n_countries; c++)
            tally_get (t, e->countries[c])->pub.timezone = TRUE;
          /* the first is the zone's own country (zone.tab), the rest zone1970.tab's list */
          if (e->n_countries > 0)
            tally_get (t, e->countries[0])->tz_primary = TRUE;
          break;
        default:
          break;
        }
    }
  suspect_reference (t);
  /* While something travels with the machine, what is heard only lately
   * is passing by (or the machine is), and a phone's hotspot goes where its
   * owner goes: none of them votes (rule 4c), unless a trusted fix names
   * one country (it places the machine; they may second it). */
  t->drop_passing = t->n_riding > 0 && !(t->gps != NULL && t->gps->n_countries == 1 &&
                                          !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED));
  if (t->drop_passing)
    for (guint i = beacons->len; i > 0; i--)
      {
        const RlEvidence *e = g_ptr_array_index (beacons, i - 1);
        if (is_passing (p, e, now))
          {
            g_ptr_array_remove_index (beacons, i - 1);
            t->n_passing++;
            if (!RL_BSSID_IS_LOCAL (e->beacon.bssid))
              t->settles_at = MIN (t->settles_at, e->beacon.heard_since + settle_us (p));
          }
      }
}

/* A fix naming one country is a deciding witness for it.  A fix whose
 * error circle (plus the border margin) covers several countries is
 * ambiguous: it can confirm one of them, never decide. */
static void
tally_gps (Tallying *t)
{
  if (t->gps == NULL)
    return;
  t->airborne = rl_gps_is_airborne (t->params, t->gps);
  /* a fix that jumped: see tally_untrusted_gps() */
  if (t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED)
    return;
  if (t->gps->n_countries == 0)
    t->gps_at_sea = TRUE;
  for (guint c = 0; c < t->gps->n_countries; c++)
    {
      /* the neighbour only inside the error circle itself, not within the
       * border margin beyond it: a fix whose circle lies in one country is
       * still ambiguous (no deciding witness) but confirms no other */
      if (c > 0 && !rl_gps_circle_reaches_border (t->gps))
        continue;
      Tally *y = tally_get (t, t->gps->countries[c]);
      y->location = t->gps->countries[c];
      y->location_by_fix = TRUE;
      y->pub.gps = TRUE;
      y->gps_strong = t->gps->n_countries == 1;
      y->pub.gps_ambiguous = t->gps->n_countries > 1;
    }
}

/* The regulatory code of the place a trusted fix's centre lies in, or
 * RL_COUNTRY_NONE without one (no fix, an untrusted one, one at sea). */
static RlCountry
trusted_fix_centre (const Tallying *t)
{
  gboolean unmapped;

  if (t->gps == NULL || (t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED) || t->gps->n_countries == 0)
    return RL_COUNTRY_NONE;
  return regulatory_code (t, t->gps->countries[0], &unmapped);
}

/* Beside a fix that names X, the access points confirm X by plurality:
 * X's APs from at least two operators, with as many votes as any other
 * country (a clean fix: it decides, the APs confirm), or more than any
 * other (a fix near a border whose centre is in X: the APs decide, the fix
 * confirms).  Beside a clean fix faint APs may confirm: they decide nothing.  The plurality never overrides the fix: it only ever lends
 * the country the fix names a second witness. */
static void
tally_gps_plurality (Tallying *t)
{
  RlCountry centre = trusted_fix_centre (t);
  Tally *x;

  if (centre == RL_COUNTRY_NONE)
    return;
  x = tally_find (t, centre);
  /* two operators of globally administered addresses: the hotspots' pool is no second */
  if (x == NULL || x->beacon_witnesses > 0 || x->beacon_ga_votes == 0 ||
      ga_operators (x) < 2 ||
      x->beacon_ga_votes < t->params->beacon_min_aps || (!x->pub.heard_well && !x->gps_strong))
    return;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o == x)
        continue;
      if (o->beacon_ga_votes > x->beacon_ga_votes || (!x->gps_strong && o->beacon_ga_votes == x->beacon_ga_votes))
        return;
    }
  x->beacon_witnesses = 1;
  x->gps_plurality = TRUE;
}

/* A fix that jumped further than any vehicle could move confirms a country
 * the beacons already witness, and is otherwise no witness (no at-sea, no
 * conflict, no strong GPS). */
static void
tally_untrusted_gps (Tallying *t)
{
  if (t->gps == NULL || !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED))
    return;
  for (guint c = 0; c < t->gps->n_countries; c++)
    {
      gboolean unmapped;
      RlCountry code = regulatory_code (t, t->gps->countries[c], &unmapped);
      for (guint i = 0; i < t->tallies->len; i++)
        {
          Tally *y = &g_array_index (t->tallies, Tally, i);
          if (y->beacon_witnesses > 0 && y->pub.country == code)
            y->pub.gps = y->pub.gps_ambiguous = TRUE;   /* confirms, never decides */
        }
    }
}

/* Access points advertising "EU" confirm a member state that a GPS fix
 * names alone: never a candidate of their own, never a rival.  They do not
 * confirm a beacon witness: that would be access points confirming access
 * points (two imported routers set to a neighbour's code plus the EU ones
 * would make a country), and 27 countries share the code. */
static void
tally_eu (Tallying *t)
{
  if (!t->eu.witness)
    return;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      y->pub.eu = y->gps_strong && (rl_country_is_eu_member (y->location) || rl_country_is_eu_member (y->pub.country));
      t->eu.confirms |= y->pub.eu;
    }
}

/* Is a modem registered on a network naming only another country than
 * @y's, a country an access point heard here names too?  The clock and the
 * SIM say where the owner lives; the mast is within kilometres, and so is
 * the router.  Beside them the clock does not turn routers brought from
 * the owner's country into a place (Turkish firms' routers and an Istanbul
 * clock in Erbil, the modem and a MiFi on Korek).  A mast alone does not:
 * a Kerkrade household on a German SIM keeps its Dutch routers' NL. */
static gboolean
cell_names_only (const Tally *o)
{
  return o->cell_strong && o->beacon_ga_votes > 0;
}

/* Is @y's country (by either of its codes) one @cell's code is listed for
 * (a network the provider list does not carry, of a code it knows)? */
static gboolean
unlisted_code_names (const RlEvidence *cell, const Tally *y)
{
  RlCountry here[2];

  tally_codes (y, here);
  for (guint i = 0; i < cell->cell.n_near; i++)
    if (cell->cell.near[i] == here[0] || cell->cell.near[i] == here[1])
      return TRUE;
  return FALSE;
}

static const Tally *
mast_elsewhere (const Tallying *t, const Tally *y)
{
  const Tally *o = other_where (t, y, cell_names_only);
  const RlEvidence *cell = t->cell_unknown;

  if (o != NULL || cell == NULL || !cell->cell.unlisted)
    return o;
  /* A network the list does not carry, of a code listed only for other
   * countries than @y's, is as much another country's (Ålcom, 244-14, in
   * Åland: Finland's code) */
  if (unlisted_code_names (cell, y))
    return NULL;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *c = &g_array_index (t->tallies, Tally, i);
      if (c != y && c->beacon_ga_votes > 0 && unlisted_code_names (cell, c))
        return c;
    }
  return NULL;
}

/* Witnesses and combined confidence: 1 - Π (1 - weight) over the witnesses.
 * Deciding witnesses: a fix naming only this country, beacon witnesses.
 * Confirming only: the timezone, an ambiguous fix, EU access points. */
static void
weigh (Tallying *t)
{
  const RlPolicyParams *p = t->params;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      double miss = 1.0;

      /* The timezone confirms one operator's large network only beside a
       * GPS fix (a train's or a ship's network moves with the passengers'
       * clock), and a country only access points or a modem's network name
       * only when it is the zone's own country (Europe/Zurich lists DE for
       * Büsingen: routers across the Rhine in Basel are no German place,
       * nor is Telekom's mast across the border from Kreuzlingen) and no fix's circle
       * leaves it out (the neighbours' routers across the street), never settles
       * a dispute between access points and another country's large
       * network (guests' travel routers against the hotel's network).
       * While access points ride along (rule 4c) the clock is one more
       * thing that travels with the machine: it says where it came from. */
      if (y->pub.timezone && !y->pub.gps &&
          (y->network_only || t->n_riding > 0 || (y->pub.cell && !y->tz_primary) ||
           (y->beacon_witnesses > 0 && (!y->tz_primary || t->network_yielded || fix_rules_out (t, y) ||
                                        mast_elsewhere (t, y) != NULL))))
        {
          y->pub.timezone = FALSE;
          y->tz_declined = TRUE;
        }
      y->pub.deciding = (y->gps_strong ? 1 : 0) + y->beacon_witnesses;
      y->pub.witnesses = (y->pub.gps ? 1 : 0) + y->beacon_witnesses + (y->pub.timezone ? 1 : 0) + (y->pub.eu ? 1 : 0);
      if (y->pub.gps)
        miss *= 1.0 - p->gps_weight * t->gps->strength;
      for (guint w = 0; w < y->beacon_witnesses; w++)
        miss *= 1.0 - p->beacon_weight;
      if (y->pub.timezone)
        miss *= 1.0 - p->timezone_weight;
      if (y->pub.eu)
        miss *= 1.0 - p->beacon_eu_weight;
      weigh_cell (t, y, &miss);
      weigh_driver (p, y, &miss);
      y->pub.confidence = y->pub.witnesses > 0 ? 1.0 - miss : 0.0;
    }
}

/* Equal support: what a tie is made of (the country code is no support). */
static int
cmp_support (const Tally *x, const Tally *y)
{
  if (fabs (x->pub.confidence - y->pub.confidence) > 1e-9)
    return x->pub.confidence > y->pub.confidence ? -1 : 1;
  if (x->pub.witnesses != y->pub.witnesses)
    return x->pub.witnesses > y->pub.witnesses ? -1 : 1;
  if (x->pub.deciding != y->pub.deciding)
    return x->pub.deciding > y->pub.deciding ? -1 : 1;
  return 0;
}

static int
cmp_tally (gconstpointer a, gconstpointer b)
{
  const Tally *x = a, *y = b;
  int c = cmp_support (x, y);

  if (c != 0)
    return c;
  if (x->beacon_votes != y->beacon_votes)
    return x->beacon_votes > y->beacon_votes ? -1 : 1;
  /* the zone's own country leads the countries its timezone only lists
   * (America/Toronto: CA, not BS), so the reasons name it */
  if (x->tz_primary != y->tz_primary)
    return x->tz_primary ? -1 : 1;
  /* only to make the order of the list total; never a decision */
  return x->pub.country < y->pub.country ? -1 : (x->pub.country > y->pub.country ? 1 : 0);
}

static void
tally_all (Tallying *t, const RlEvidence *ev, gsize n_ev, gint64 now)
{
  g_autoptr (GPtrArray) beacons = g_ptr_array_new ();

  collect_live (t, ev, n_ev, now, beacons);
  tally_gps (t);
  tally_beacons (t, beacons);
  tally_untrusted_gps (t);
  tally_gps_plurality (t);
  tally_eu (t);
  weigh (t);
  g_array_sort (t->tallies, cmp_tally);
}

/* ---- the decision ---------------------------------------------------- */

/* What was decided and on which grounds: everything explain() needs and
 * nothing it has to work out again. */
typedef struct {
  RlState state;
  RlReason reason;          /* as reported (support-lost replaces the basis) */
  RlReason basis;           /* why 00 (or tentative) before support-lost */
  const Tally *subject;     /* decided/tentative: the winner; world: the best unmapped or the leader */
  const Tally *leader;      /* the best candidate, agreement or not */
  const Tally *rival;       /* tie: the candidate with the same support as @subject */
  const RlEvidence *override;
  RlCountry override_code;  /* as the override names it (before mapping) */
  RlCountry would_be;       /* under an override: the country the evidence supports, or NONE */
  RlCountry lost;           /* the previously decided country that lost support, or NONE */
  gint64 hold_until;        /* tentative: when the hold-down ends */
  gboolean awaits_scan;     /* tentative past the hold-down: the next scan must still agree (rule 8) */
  gint64 waning_until;      /* support-waning: when the grace ends; 0 otherwise */
  guint hold_s;             /* the hold-down in force (longer after conflicts) */
  gboolean unheard;         /* … hold_down_unheard: a modem's network, nothing heard, no scan yet */
  guint conflicts;          /* conflicts counted towards it */
} Verdict;

static gboolean
has_agreement (const RlPolicyParams *p, const Tally *y)
{
  /* confirming witnesses (timezone, ambiguous fix, EU) never decide */
  return y->pub.deciding >= 1 && y->pub.witnesses >= MAX (p->min_witnesses, 1) &&
         y->pub.confidence + 1e-9 >= p->confidence_threshold;
}

/* A strong witness: a fix far from any border or a beacon consensus. */
static gboolean
is_strong (const Tally *y)
{
  return y->gps_strong || y->beacon_witnesses > 0;
}

/* Does the list carry no network of @y's place, so that the unknown code
 * may be its own (Gibtelecom's 266 in Gibraltar, Claro's 330 in Puerto
 * Rico)? */
static gboolean
unlisted_place (const RlEvidence *cell, const Tally *y)
{
  RlCountry here[2];

  tally_codes (y, here);
  return !rl_country_set_is_empty (&cell->cell.listed) && !rl_country_set_has (&cell->cell.listed, here[1]);
}

/* Is the unknown code's region (the countries of the known codes next to
 * it, or of its own code for a network the list does not carry) within
 * reach of @y, or may it be @y's own code? */
static gboolean
unknown_code_reaches (const RlEvidence *cell, const Tally *y)
{
  RlCountry here[2];

  if (unlisted_place (cell, y))
    return TRUE;
  tally_codes (y, here);
  for (guint i = 0; i < cell->cell.n_near; i++)
    for (guint k = 0; k < 2; k++)
      if (cell->cell.near[i] == here[k] ||
          (rl_neighbours_know (cell->cell.near[i]) && rl_countries_within_reach (cell->cell.near[i], here[k])))
        return TRUE;
  return FALSE;
}

/* Without a fix, access points that agree on @y beside a modem on a
 * network no mast in or beside @y could belong to: a mast across a border
 * explains a Swiss network in Basel, not a Greenlandic or a Faroese one
 * among Danish routers.  The routers were brought from elsewhere, or the
 * modem's registration is stale: a conflict either way (rule 12).
 * Returns the tally of the cell's country, or @y itself for a code the
 * provider list does not know or a network it does not carry. */
static const Tally *
far_network (const Tallying *t, const Tally *y)
{
  if (y->beacon_witnesses == 0 || (t->gps != NULL && !(t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED)))
    return NULL;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *c = &g_array_index (t->tallies, Tally, i);
      if (c->cell_strong && !within_reach (c, y))
        return c;
    }
  if (t->cell_unknown != NULL && !unknown_code_reaches (t->cell_unknown, y))
    return y;
  return NULL;
}

/* Conflict: strong witnesses (a fix far from any border, a beacon
 * consensus, a fix at sea) naming different places, or access points
 * agreeing beside a modem out of their reach. */
static gboolean
find_conflict (const Tallying *t)
{
  RlCountry strong = t->gps_at_sea ? RL_COUNTRY_WORLD : RL_COUNTRY_NONE;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (far_network (t, y) != NULL)
        return TRUE;
      if (!is_strong (y))
        continue;
      if (strong != RL_COUNTRY_NONE && strong != y->pub.country)
        return TRUE;
      strong = y->pub.country;
    }
  return FALSE;
}

static const RlEvidence *
find_override (const RlEvidence *ev, gsize n, gint64 now)
{
  const RlEvidence *override = NULL;

  for (gsize i = 0; i < n; i++)
    if (ev[i].kind == RL_SOURCE_OVERRIDE && is_live (&ev[i], now) && ev[i].n_countries > 0)
      if (override == NULL || strcmp (ev[i].key, override->key) < 0)
        override = &ev[i];
  return override;
}

/* The candidate after @y (sorted best first) with the same support, if any. */
static const Tally *
find_equal (const Tallying *t, const Tally *y)
{
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o != y && o->pub.country != y->pub.country && cmp_support (o, y) == 0)
        return o;
    }
  return NULL;
}

/* Flapping at a line: every conflict doubles the next hold-down (up to
 * flap_hold_down_max); flap_calm seconds without one reset it.  The count
 * travels in the decision, so the policy stays a pure function. */
static void
track_conflicts (const RlPolicyParams *p, const RlDecision *previous, gboolean conflict, gint64 now,
                 RlDecision *d)
{
  gboolean was = previous != NULL && previous->in_conflict;

  d->conflicts = previous ? previous->conflicts : 0;
  d->last_conflict_at = previous ? previous->last_conflict_at : 0;
  /* a conflict in force until now was seen until now */
  if (was)
    d->last_conflict_at = now;
  if (d->conflicts > 0 && !conflict && now - d->last_conflict_at >= (gint64) p->flap_calm_s * RL_USEC_PER_SEC)
    d->conflicts = 0;
  if (conflict && !was)
    d->conflicts = MIN (d->conflicts + 1, 32u);
  if (conflict)
    d->last_conflict_at = now;
  d->in_conflict = conflict;
  d->hold_down_s = rl_policy_hold_down (p, d->conflicts);
}

static void
pick_override (const Tallying *t, const RlEvidence *override, RlDecision *d, Verdict *v)
{
  RlCountry oc = override->countries[0];
  RlCountry mapped = (oc == RL_COUNTRY_WORLD || t->regmap == NULL) ? oc : t->regmap (oc, t->regmap_data);

  v->override = override;
  v->override_code = oc;
  d->state = RL_STATE_OVERRIDE;
  d->confidence = 1.0;
  if (mapped == RL_COUNTRY_NONE)
    {
      d->country = RL_COUNTRY_WORLD;
      d->reason = RL_REASON_NOT_IN_REGDB;
    }
  else
    {
      d->country = mapped;
      d->reason = RL_REASON_OVERRIDE;
    }
}

/* Why 00 when no candidate may be decided. */
static void
pick_world (const Tallying *t, const Tally *best, const Tally *leader, RlDecision *d, Verdict *v)
{
  const RlPolicyParams *p = t->params;

  d->state = RL_STATE_WORLD;
  d->confidence = leader ? leader->pub.confidence : 0;
  v->subject = leader;
  if (best != NULL && (best->unmapped || v->rival != NULL))
    {
      v->basis = best->unmapped ? RL_REASON_NOT_IN_REGDB : RL_REASON_TIE;
      v->subject = best;
    }
  else if (t->gps_at_sea)
    v->basis = RL_REASON_AT_SEA;
  else if (leader == NULL)
    v->basis = t->n_live > 0 ? RL_REASON_SINGLE_WITNESS : RL_REASON_NO_EVIDENCE;
  else if (leader->unmapped)
    v->basis = RL_REASON_NOT_IN_REGDB;
  else if ((leader->pub.gps || leader->beacon_witnesses > 0) && (v->rival = find_equal (t, leader)) != NULL)
    v->basis = RL_REASON_TIE;
  else if (leader->pub.timezone && leader->pub.witnesses == 1)
    v->basis = RL_REASON_TIMEZONE_ONLY;
  else if (leader->pub.witnesses < MAX (p->min_witnesses, 1))
    v->basis = RL_REASON_SINGLE_WITNESS;
  else
    v->basis = RL_REASON_BELOW_THRESHOLD;
  d->reason = v->basis;
}

/* The country agreement points to, NONE if none may be entered; a second
 * candidate with the same support is a tie (never settled by the code). */
static RlCountry
pick_target (const Tallying *t, gboolean conflict, const Tally **best_out, Verdict *v)
{
  const Tally *best = NULL;

  for (guint i = 0; i < t->tallies->len && best == NULL; i++)
    if (has_agreement (t->params, &g_array_index (t->tallies, Tally, i)))
      best = &g_array_index (t->tallies, Tally, i);
  v->leader = t->tallies->len > 0 ? &g_array_index (t->tallies, Tally, 0) : NULL;
  *best_out = best;
  if (best != NULL)
    {
      const Tally *rival = find_equal (t, best);
      if (rival != NULL && has_agreement (t->params, rival))
        v->rival = rival;
    }
  if (conflict || best == NULL || best->unmapped || v->rival != NULL)
    return RL_COUNTRY_NONE;
  return best->pub.country;
}

/* Rule 8: a decided country down to one deciding witness (a beacon
 * witness or a fix naming only it), with no other country's deciding
 * witness about, keeps the decision for support_grace: the faintest of
 * four operators' routers missed by two scans in a row, a roadside router
 * between two others beside a clean fix, two faint routers across a river.
 * A deciding witness for another country ends it. */
/* Did @previous have a fix naming only @country? */
static gboolean
fix_named (const RlDecision *previous, RlCountry country)
{
  const RlCandidate *c = candidate_before (previous, country);

  return c != NULL && c->gps && !c->gps_ambiguous;
}

static gboolean
keep_waning (const Tallying *t, const RlDecision *previous, gint64 now, RlDecision *d, Verdict *v)
{
  const Tally *y = NULL;
  RlCountry centre;
  gint64 since, until;

  if (t->params->support_grace_s == 0 || previous == NULL || previous->state != RL_STATE_DECIDED || t->gps_at_sea)
    return FALSE;
  /* a trusted fix whose centre lies across the border: the machine crossed
   * (Valga's station, 51 m into Estonia, with Latvia's routers behind) */
  centre = trusted_fix_centre (t);
  if (centre != RL_COUNTRY_NONE && centre != previous->country)
    return FALSE;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o->pub.country == previous->country)
        y = o;
      else if (o->pub.deciding > 0)
        return FALSE;
    }
  /* only a witness lost: enough witnesses with too little confidence (a
   * threshold raised by a reload) is no waning; nor is a vehicle's own
   * network with nothing else naming its country, which goes where the
   * vehicle goes (beside another operator's access point naming it, it is
   * rather a hotel's network whose second street router a scan missed).  The one left may be a
   * modem's network that decides where the witness lost was a fix that
   * named the country (lost in a motorway gallery or indoors): access
   * points lost with a SIM left on a mast are as likely a crossing */
  if (y == NULL || y->unmapped || y->pub.witnesses >= MAX (t->params->min_witnesses, 1) ||
      (!is_strong (y) && !(cell_decides (y) && t->gps == NULL && fix_named (previous, y->pub.country))) ||
      (!y->gps_strong && y->beacon_witnesses == 1 && y->network_only && other_votes (y) == 0))
    return FALSE;
  since = previous->waning_since != 0 ? previous->waning_since : now;
  until = since + (gint64) t->params->support_grace_s * RL_USEC_PER_SEC;
  if (now >= until)
    return FALSE;
  v->subject = y;
  d->state = RL_STATE_DECIDED;
  d->country = y->pub.country;
  d->reason = RL_REASON_SUPPORT_WANING;
  d->confidence = y->pub.confidence;
  d->waning_since = since;
  d->next_check = v->waning_until = until;
  return TRUE;
}

/* Another country's access points, or NULL. */
static const Tally *
dissenter (const Tallying *t, const Tally *best)
{
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o != best && o->beacon_votes > 0)
        return o;
    }
  return NULL;
}

/* Does @t count more access points for @country than the previous
 * decision did? */
static gboolean
aps_gained (const Tallying *t, const RlDecision *previous, RlCountry country)
{
  const Tally *now = tally_find (t, country);
  const RlCandidate *before = candidate_before (previous, country);

  return now != NULL && now->pub.beacon_aps > (before != NULL ? before->beacon_aps : 0);
}

/* Did the previous decision count more access points for another country
 * than @t does: a dissenter withdrawn? */
static gboolean
dissent_withdrawn (const Tallying *t, const RlDecision *previous, RlCountry target)
{
  for (guint i = 0; previous != NULL && i < previous->candidates->len; i++)
    {
      const RlCandidate *c = &g_array_index (previous->candidates, RlCandidate, i);
      const Tally *now = tally_find (t, c->country);
      if (c->country != target && c->beacon_aps > (now != NULL ? now->pub.beacon_aps : 0))
        return TRUE;
    }
  return FALSE;
}

/* Rule 8: agreement that began as a scan withdrew another country's
 * access point must outlast the next scan, while access points still name
 * another country or the scan withdrew some that only the scan before had
 * heard and heard no new one for the target.  A scan that missed the faint dissenter (a Timor-Leste router in
 * a Dili guesthouse, the farther US router of a Point Roberts cabin, the
 * Chinese routers of an embassy's neighbours after a resume) withdraws it
 * at once; the hold-down is shorter than the time to the next scan, which
 * hears it again.  TRUE while no scan newer than the one heard when the
 * agreement began has come. */
static gboolean
awaits_scan (const Tallying *t, const Tally *best, const RlDecision *d)
{
  return d->candidate_heard != 0 && t->last_heard <= d->candidate_heard &&
         (dissenter (t, best) != NULL || d->candidate_once);
}

/* Does agreement on @best rest on a modem's network, with nothing heard on
 * Wi-Fi and no fix?  A modem registers within seconds of start-up or of
 * leaving a tunnel, the Wi-Fi's scan may be a minute away: a home SIM on a
 * mast across a border and the home clock must not decide before the
 * place's access points have had their say (a Singaporean in Johor Bahru). */
static gboolean
unheard_cell (const Tallying *t, const Tally *best)
{
  return best != NULL && best->pub.cell && !best->pub.gps && best->beacon_witnesses == 0 && t->last_heard == 0;
}

/* Agreement on @target: since when, and whether it waits for the next
 * scan (rule 8). */
static void
track_agreement (const Tallying *t, const RlDecision *previous, RlCountry target, gint64 now, RlDecision *d)
{
  gboolean same = previous != NULL && previous->candidate == target;

  d->candidate = target;
  d->candidate_since = same ? previous->candidate_since : now;
  /* agreement that began as a scan withdrew another country's access
   * point waits for the next scan */
  d->candidate_heard = same ? previous->candidate_heard : dissent_withdrawn (t, previous, target) ? t->last_heard : 0;
  /* … even with none left, if it withdrew some only the scan before had
   * heard and brought no new access point for the target: the same place,
   * heard once without its neighbours */
  d->candidate_once = same ? previous->candidate_once
                           : d->candidate_heard != 0 && t->withdrew_once && !aps_gained (t, previous, target);
}

/* Chooses state, reason, country and the hold-down bookkeeping. */
static void
pick (const Tallying *t, const RlDecision *previous, const RlEvidence *override, gint64 now,
      RlDecision *d, Verdict *v)
{
  RlCountry prev_country = previous ? previous->country : RL_COUNTRY_WORLD;
  RlState prev_state = previous ? previous->state : RL_STATE_WORLD;
  gboolean conflict = find_conflict (t);
  const Tally *best;

  memset (v, 0, sizeof *v);
  v->lost = v->would_be = RL_COUNTRY_NONE;
  track_conflicts (t->params, previous, conflict, now, d);
  v->hold_s = d->hold_down_s;
  v->conflicts = d->conflicts;

  /* Hold-down bookkeeping, kept while overridden too so that clearing the
   * override returns at once to a country whose agreement already held. */
  RlCountry target = pick_target (t, conflict, &best, v);
  if (target != RL_COUNTRY_NONE && unheard_cell (t, best) && t->params->hold_down_unheard_s > v->hold_s)
    {
      v->hold_s = t->params->hold_down_unheard_s;
      v->unheard = TRUE;
    }
  if (target != RL_COUNTRY_NONE)
    {
      track_agreement (t, previous, target, now, d);
      v->hold_until = d->candidate_since + (gint64) v->hold_s * RL_USEC_PER_SEC;
      v->awaits_scan = target != prev_country && now >= v->hold_until && awaits_scan (t, best, d);
    }
  gboolean held = target != RL_COUNTRY_NONE && (target == prev_country || (now >= v->hold_until && !v->awaits_scan));

  if (override != NULL)
    {
      pick_override (t, override, d, v);
      v->would_be = target;
    }
  else if (t->airborne)
    {
      /* in flight: no country's rules, whatever the cabin's APs say; the
       * hold-down starts afresh after landing */
      d->state = RL_STATE_WORLD;
      d->reason = v->basis = RL_REASON_AIRBORNE;
      d->candidate = RL_COUNTRY_NONE;
      d->candidate_since = 0;
      d->confidence = 0;
    }
  else if (conflict)
    {
      d->state = RL_STATE_CONFLICT;
      d->reason = RL_REASON_CONFLICT;
      d->confidence = v->leader ? v->leader->pub.confidence : 0;
    }
  else if (target != RL_COUNTRY_NONE)
    {
      v->subject = best;
      d->confidence = best->pub.confidence;
      d->state = held ? RL_STATE_DECIDED : RL_STATE_TENTATIVE;
      d->reason = held ? RL_REASON_AGREEMENT : RL_REASON_HOLD_DOWN;
      d->country = held ? target : RL_COUNTRY_WORLD;
      /* awaiting a scan: the scan is the next instant */
      d->next_check = held || v->awaits_scan ? RL_NEVER : v->hold_until;
      if (!held && prev_state == RL_STATE_DECIDED && prev_country != target)
        v->lost = prev_country;
    }
  else if (!keep_waning (t, previous, now, d, v))
    {
      pick_world (t, best, v->leader, d, v);
      if (prev_state == RL_STATE_DECIDED)
        v->lost = prev_country;
    }
  if (v->lost != RL_COUNTRY_NONE)
    d->reason = RL_REASON_SUPPORT_LOST;
  v->state = d->state;
  v->reason = d->reason;
}

/* ---- words: the only place that writes text -------------------------- */

/* Every text is written twice, at RL_DETAIL_FULL and at RL_DETAIL_PUBLIC
 * (t->level).  An evidence item's own ->detail may name a position, a
 * BSSID or an SSID, so only the full level uses it; the public level
 * describes the item from its typed fields (rl_evidence_describe). */
#define EVIDENCE_TEXT_MAX 200

static const char *
evidence_text (const Tallying *t, const RlEvidence *e, const char *fallback, char *buf, gsize len)
{
  if (t->level & RL_DETAIL_PRIVATE)
    return e->detail[0] ? e->detail : fallback;
  return rl_evidence_describe (e, RL_DETAIL_PUBLIC, buf, len);
}

static const char *
plural (guint n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}

static const char *
witness_words (guint n)
{
  return n == 2 ? "two witnesses" : n == 1 ? "one witness" : "no witness";
}

/* The access points for one country, counted exactly as the vote grouped
 * them: devices (groups), operators, votes after the cap, the pool. */
/* Why @y's large network yielded (beacon_witnesses ()); @vehicle adds
 * what a fix elsewhere means. */
static const char *
yield_reason (const Tallying *t, const Tally *y, gboolean vehicle)
{
  const Tally *rest = rest_says_otherwise (t, y);

  if (!fix_places_elsewhere (t, y))
    /* routers through the walls make no witness, but a place all the same */
    return rest != NULL && rest->beacon_witnesses == 0 && !rest->pub.heard_well
             ? "yields to the access points of several operators naming another country: heard faintly, they make no "
               "witness, but beside them one operator's network is no place on its own"
             : "yields to the access points of several operators naming another country";
  return vehicle ? "yields to the GPS fix placing the machine elsewhere (it goes where the vehicle goes)"
                 : "yields to the GPS fix placing the machine elsewhere";
}

/* @subject: @y is the country the text is about (its faint access points
 * are its support, however little), not another's (at most dissent). */
static void
describe_beacons (GString *s, const Tally *y, const Tallying *t, gboolean subject)
{
  char cc[3];
  guint ga_devices = y->pub.beacon_devices - (y->pool_vote ? t->pool.for_country : 0);

  rl_country_to_string (y->pub.country, cc);
  if (y->pub.beacon_bssids > y->pub.beacon_devices)
    g_string_append_printf (s, "%u BSSIDs in %u group%s (one vote per device or network)", y->pub.beacon_bssids,
                            y->pub.beacon_devices, plural (y->pub.beacon_devices, "", "s"));
  else
    g_string_append_printf (s, "%u access point%s", y->pub.beacon_devices, plural (y->pub.beacon_devices, "", "s"));
  /* the phone-hotspot pool is no operator (its devices are said below) */
  if (ga_operators (y) > 0)
    g_string_append_printf (s, " from %u operator%s", ga_operators (y), plural (ga_operators (y), "", "s"));
  g_string_append_printf (s, " say%s %s (%s",
                          plural (y->pub.beacon_bssids > y->pub.beacon_devices ? 2 : y->pub.beacon_devices, "s", ""), cc,
                          witness_words (y->beacon_witnesses));
  if (y->gps_plurality)
    g_string_append (s, ": the most votes, beside a GPS fix naming it");
  if (y->faint_by_silent && y->beacon_ga_votes > 0)
    g_string_append_printf (s, "; all heard faintly beside an access point at %.0f dBm that sends no country, %s",
                            t->silent_dbm, subject ? "no witness of its own" : "at most dissent");
  else if (!y->pub.heard_well && y->beacon_ga_votes > 0)
    g_string_append (s, subject ? "; all heard faintly" : "; all heard faintly, at most dissent");
  if (y->beacon_ga_votes < ga_devices)
    g_string_append_printf (s, "; %u vote%s after the cap of %u per operator", y->beacon_votes,
                            plural (y->beacon_votes, "", "s"), t->params->beacon_max_aps_per_operator);
  if (y->pool_vote)
    g_string_append_printf (s, "; %u of them locally administered without a sibling: one pooled vote, which neither makes "
                            "nor breaks a witness", t->pool.for_country);
  /* votes enough, but not the share: say the count a reader can check */
  if (y->beacon_witnesses == 0 && y->pub.heard_well && !y->faint_by_silent && y->network_devices == 0 &&
      y->beacon_ga_votes >= t->params->beacon_min_aps &&
      !holds_share (t->params, y->beacon_ga_votes, t->n_ga_votes))
    g_string_append_printf (s, "; %u of the %u votes, short of the share of %.0f %% a witness needs", y->beacon_ga_votes,
                            t->n_ga_votes, 100.0 * t->params->beacon_min_fraction);
  if (y->network_devices > 0)
    g_string_append_printf (s, "; one operator's network of %u devices on %u channels in %u bands %s",
                            y->network_devices, y->network_channels, y->network_bands,
                            !y->network_yields ? "is a witness on its own" : yield_reason (t, y, TRUE));
  g_string_append (s, ")");
}

static void
describe_support (GString *s, const Tally *y, const Tallying *t)
{
  gboolean first = TRUE;

  if (y->pub.gps)
    {
      char text[EVIDENCE_TEXT_MAX];
      g_string_append (s, evidence_text (t, t->gps, "a GPS fix", text, sizeof text));
      if (y->gps_strong)
        g_string_append (s, " (in this country)");
      else if (!rl_gps_circle_reaches_border (t->gps))
        g_string_append (s, " (near its border: within the border margin of its error circle, so it confirms, never "
                            "decides)");
      else
        g_string_append (s, " (near its border: its error circle covers other countries too, so it confirms, never "
                            "decides)");
      first = FALSE;
    }
  if (y->pub.beacon_devices > 0)
    {
      g_string_append (s, first ? "" : "; ");
      describe_beacons (s, y, t, TRUE);
      first = FALSE;
    }
  if (y->pub.timezone)
    {
      char text[EVIDENCE_TEXT_MAX];
      const char *zone = t->zone ? evidence_text (t, t->zone_ev, t->zone, text, sizeof text) : NULL;
      g_string_append_printf (s, "%sthe timezone%s%s agrees", first ? "" : "; ",
                              zone ? " " : "", zone ? zone : "");
      first = FALSE;
    }
  if (y->pub.eu)
    {
      g_string_append_printf (s, "%s%u access point%s advertising EU confirm%s it as a member state", first ? "" : "; ",
                              t->eu.groups, plural (t->eu.groups, "", "s"), plural (t->eu.groups, "s", ""));
      first = FALSE;
    }
  describe_cell (s, y, t, first);
  first = first && !y->pub.cell;
  if (t->cell_unknown != NULL && unlisted_place (t->cell_unknown, y))
    {
      char cc[3];
      RlCountry here[2];

      tally_codes (y, here);
      rl_country_to_string (here[1], cc);
      g_string_append_printf (s, "%sa modem is on mobile network %s, %s, and the list carries no network of %s: "
                              "it may be %s's own (it neither decides nor confirms)",
                              first ? "" : "; ", t->cell_unknown->cell.network,
                              t->cell_unknown->cell.unlisted ? "which the provider list does not carry"
                                                             : "a code the provider list does not know",
                              cc, cc);
      first = FALSE;
    }
  else if (t->cell_unknown != NULL && unknown_code_reaches (t->cell_unknown, y))
    {
      /* said too where it takes no part: the reader may know the network */
      g_string_append_printf (s, "%sa modem on mobile network %s (%s) names no country",
                              first ? "" : "; ", t->cell_unknown->cell.network,
                              t->cell_unknown->cell.unlisted ? "which the provider list does not carry"
                                                             : "a code the provider list does not know");
      first = FALSE;
    }
  describe_driver (s, y, t, first);
  first = first && !y->pub.driver;
  if (first)
    g_string_append (s, "nothing");
}

/* The access points of the candidates the text is not about (up to 3). */
static void
describe_other_beacons (GString *s, const Tallying *t, const Tally *subject)
{
  guint shown = 0, more = 0;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (y == subject || y->pub.beacon_devices == 0)
        continue;
      if (shown == 3)
        {
          more++;
          continue;
        }
      g_string_append (s, shown++ ? "; " : " Other access points: ");
      describe_beacons (s, y, t, FALSE);
    }
  if (more > 0)
    g_string_append_printf (s, more == 1 ? "; and for %u more code" : "; and for %u more codes", more);
  if (shown > 0)
    g_string_append (s, ".");
}

/* Evidence that names no candidate of its own: EU access points, the pool. */
static void
describe_notes (GString *s, const Tallying *t)
{
  char cc[3];

  if (t->eu.groups > 0 && !t->eu.confirms)
    g_string_append_printf (s, " %u access point%s advertise%s EU (a member state, not which one): %s.",
                            t->eu.groups, plural (t->eu.groups, "", "s"), plural (t->eu.groups, "s", ""),
                            t->eu.witness ? "they confirm a member state only beside a GPS fix naming it"
                                          : "too few to confirm one");
  if (t->pool.groups > 0)
    {
      g_string_append_printf (s, " %u locally administered access point%s without a sibling (phone hotspots, made-up addresses) "
                              "%s one pooled vote, which neither makes nor breaks a witness", t->pool.groups,
                              plural (t->pool.groups, "", "s"), plural (t->pool.groups, "is", "are"));
      if (t->pool.country != RL_COUNTRY_NONE)
        g_string_append_printf (s, ", for %s (%u of them).", rl_country_to_string (t->pool.country, cc), t->pool.for_country);
      else
        g_string_append (s, "; their codes tie, so the vote goes to none.");
    }
}

/* Publicly the dissent is counted per named code, the access points
 * unnamed: "Dissent: 2 access points say FR, 1 access point says US." */
typedef struct {
  RlCountry code;
  guint aps;
} DissentCount;

static int
cmp_dissent (gconstpointer a, gconstpointer b)
{
  const DissentCount *x = a, *y = b;

  if (x->aps != y->aps)
    return x->aps > y->aps ? -1 : 1;
  return (int) x->code - (int) y->code;
}

static void
describe_dissent_public (GString *s, GArray *counts)
{
  g_array_sort (counts, cmp_dissent);
  for (guint k = 0; k < counts->len; k++)
    {
      const DissentCount *dc = &g_array_index (counts, DissentCount, k);
      char cc[3];
      g_string_append_printf (s, "%s%u access point%s say%s %s", k ? ", " : " Dissent: ", dc->aps,
                              plural (dc->aps, "", "s"), plural (dc->aps, "s", ""), rl_country_to_string (dc->code, cc));
    }
  if (counts->len > 0)
    g_string_append (s, ".");
}

/* A large network of another country than @winner's that yielded: the
 * dissent lists its access points, but not why they did not count (a
 * Vatican office's network beside two Italian operators' routers). */
static void
describe_yielded (GString *s, const Tallying *t, RlCountry winner)
{
  char cc[3];

  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (!y->network_yields || y->pub.country == winner || y->network_devices == 0)
        continue;
      g_string_append_printf (s, " %s's network of %u devices is one operator's word and %s.",
                              rl_country_to_string (y->pub.country, cc), y->network_devices,
                              !y->pub.heard_well ? "is heard only faintly" : yield_reason (t, y, FALSE));
    }
}

static void
describe_dissent (GString *s, const Tallying *t, RlCountry winner, const RlEvidence *ev, gsize n, gint64 now)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (DissentCount));
  guint shown = 0, total = 0;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (e->kind != RL_SOURCE_BEACON || !is_live (e, now) || e->n_countries == 0 || e->countries[0] == RL_COUNTRY_EU ||
          (e->beacon.flags & RL_BEACON_INFO_RIDES_ALONG) || (t->drop_passing && is_passing (t->params, e, now)) ||
          rl_contradiction_is_suspect (t->suspects, e) ||
          (t->pool.members != NULL && g_hash_table_contains (t->pool.members, e)))
        continue;   /* no vote or the pool's, no dissent: said apart */
      RlCountry c = t->regmap && e->countries[0] != RL_COUNTRY_WORLD ? t->regmap (e->countries[0], t->regmap_data) : e->countries[0];
      if (c == winner)
        continue;
      total++;
      if (!(t->level & RL_DETAIL_PRIVATE))
        {
          guint k;
          for (k = 0; k < counts->len && g_array_index (counts, DissentCount, k).code != e->countries[0]; k++)
            ;
          if (k == counts->len)
            g_array_append_val (counts, ((DissentCount) { e->countries[0], 0 }));
          g_array_index (counts, DissentCount, k).aps++;
        }
      else if (shown < 3)
        {
          char cc[3];
          g_string_append_printf (s, "%s%s says %s", shown ? ", " : " Dissent: ",
                                  e->detail[0] ? e->detail : e->key, rl_country_to_string (e->countries[0], cc));
          shown++;
        }
    }
  if (!(t->level & RL_DETAIL_PRIVATE))
    {
      describe_dissent_public (s, counts);
      return;
    }
  if (total > shown)
    g_string_append_printf (s, " and %u more", total - shown);
  if (total > 0)
    g_string_append (s, ".");
}

static void
explain_override (const Verdict *v, const Tallying *t, const RlDecision *d, GString *line, GString *why)
{
  char cc[3], cc2[3];

  if (d->reason == RL_REASON_NOT_IN_REGDB)
    g_string_append_printf (line, "override %s is not in the regulatory database: 00",
                            rl_country_to_string (v->override_code, cc));
  else
    g_string_append_printf (line, "override by the administrator: %s", rl_country_to_string (d->country, cc));
  char text[EVIDENCE_TEXT_MAX];
  g_string_append_printf (why, "An administrator's override (%s) sets %s; evidence is still gathered but does not decide.",
                          evidence_text (t, v->override, v->override->key, text, sizeof text),
                          rl_country_to_string (d->country, cc));
  if (v->would_be != RL_COUNTRY_NONE)
    g_string_append_printf (why, " Without it the evidence would support %s.", rl_country_to_string (v->would_be, cc2));
}

/* The modem out of the access points' reach, if that is the conflict. */
static void
explain_far_network (const Tallying *t, GString *line, GString *why)
{
  char cc[3], cn[3];

  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      const Tally *c = far_network (t, y);

      if (c == NULL)
        continue;
      rl_country_to_string (y->pub.country, cc);
      if (c != y)
        {
          RlCountry codes[2];

          tally_codes (c, codes);
          rl_country_to_string (codes[1], cn);
          g_string_append_printf (line, "; %s by a modem out of their reach", cn);
          g_string_append_printf (why, " A modem is registered on mobile network %s of %s, which touches %s "
                                  "neither by land nor by sea: no mast across a border explains it, so either "
                                  "the access points were brought from %s or the registration is stale.",
                                  c->cell_network ? c->cell_network : "?", cn, cc, cc);
        }
      else
        {
          g_string_append_printf (line, "; a modem on %s out of their reach", t->cell_unknown->cell.network);
          g_string_append_printf (why, t->cell_unknown->cell.unlisted
                                         ? " A modem is registered on mobile network %s, which the provider list does "
                                           "not carry; its code is listed for "
                                         : " A modem is registered on mobile network %s, a code the provider list "
                                           "does not know; the known codes next to it are those of ",
                                  t->cell_unknown->cell.network);
          for (guint k = 0; k < t->cell_unknown->cell.n_near; k++)
            g_string_append_printf (why, "%s%s", k > 0 ? ", " : "",
                                    rl_country_to_string (t->cell_unknown->cell.near[k], cn));
          if (t->cell_unknown->cell.n_near == 0)
            g_string_append (why, "no country");
          g_string_append_printf (why, ", none of them %s or its neighbour: the access points were brought from %s, "
                                  "or the machine is in a place whose networks the list leaves out.", cc, cc);
        }
      return;
    }
}

static void
explain_conflict (const Tallying *t, GString *line, GString *why)
{
  char cc[3];

  g_string_append (line, "strong witnesses disagree:");
  g_string_append (why, "Strong witnesses disagree, so regloc stays on the world domain 00.");
  if (t->gps_at_sea)
    {
      g_string_append (line, " GPS at sea");
      g_string_append (why, " The GPS fix is outside every country's waters.");
    }
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (!is_strong (y))
        continue;
      g_string_append_printf (line, " %s by %s", rl_country_to_string (y->pub.country, cc),
                              y->gps_strong ? "GPS" : "beacons");
      g_string_append_printf (why, " For %s: ", cc);
      describe_support (why, y, t);
      g_string_append (why, ".");
    }
  explain_far_network (t, line, why);
}

static void
explain_agreement (const Verdict *v, const Tallying *t, gint64 now, GString *line, GString *why)
{
  const Tally *y = v->subject;
  char cc[3], cc2[3];

  rl_country_to_string (y->pub.country, cc);
  if (v->waning_until != 0)
    {
      double left = (double) (v->waning_until - now) / RL_USEC_PER_SEC;
      g_string_append_printf (line, "%s down to 1 witness, kept %.0f s more", cc, left);
      g_string_append_printf (why, "Keeping %s for up to %.0f s more (confidence %.2f): it is down to one witness, ", cc,
                              left, y->pub.confidence);
      describe_support (why, y, t);
      g_string_append_printf (why, ", and no other country has one that may decide. A second witness back keeps %s; "
                              "a deciding witness for another country, or %u s without a second one, returns to 00.",
                              cc, t->params->support_grace_s);
      return;
    }
  if (v->state == RL_STATE_DECIDED)
    {
      g_string_append_printf (line, "%u witnesses agree on %s", y->pub.witnesses, cc);
      g_string_append_printf (why, "Decided %s with confidence %.2f: ", cc, y->pub.confidence);
      describe_support (why, y, t);
      g_string_append (why, ".");
      /* a field engineer should see what the decision rests on: the SIM's
       * network and the owner's clock, no place of its own */
      if (!y->pub.gps && y->beacon_witnesses == 0 && y->pub.cell && y->pub.timezone)
        g_string_append (why, " Nothing here places the machine: the modem's network and the clock say where its owner "
                              "lives and that a mast of that country reaches it (one across a border or a coast may); "
                              "a GPS fix or the place's access points would say where it is.");
      /* which place's rules: the fix's, or one every witness names (not
       * the first of 234's GG and JE) */
      if (y->location != y->pub.country && (y->location_by_fix || !y->location_mixed))
        g_string_append_printf (why, " %s uses the rules of %s.", rl_country_to_string (y->location, cc2), cc);
      return;
    }
  if (v->lost != RL_COUNTRY_NONE)
    g_string_append_printf (line, "%s lost its support; ", rl_country_to_string (v->lost, cc2));
  if (v->awaits_scan)
    {
      const Tally *o = dissenter (t, y);
      g_string_append_printf (line, "%s agreed, waiting for the next scan", cc);
      g_string_append_printf (why, "Evidence agrees on %s (confidence %.2f: ", cc, y->pub.confidence);
      describe_support (why, y, t);
      if (o != NULL)
        g_string_append_printf (why, "), but access points naming %s were heard when the agreement began: it must "
                                "outlast the next scan, which may hear one missed, before leaving 00.",
                                rl_country_to_string (o->pub.country, cc2));
      else
        g_string_append (why, "), but it began as a scan missed access points naming another country that only the "
                              "scan before had heard: it must outlast the next scan, which may hear them again, "
                              "before leaving 00.");
      return;
    }
  g_string_append_printf (line, "%s agreed, holding %.0f s more%s", cc, (double) (v->hold_until - now) / RL_USEC_PER_SEC,
                          v->unheard ? " or until a scan ends" : "");
  g_string_append_printf (why, "Evidence agrees on %s (confidence %.2f: ", cc, y->pub.confidence);
  describe_support (why, y, t);
  g_string_append_printf (why, "), but agreement must hold for %u s before leaving 00.", v->hold_s);
  if (v->unheard)
    g_string_append_printf (why, " It rests on a modem's network with no access point heard, and the Wi-Fi has not "
                            "scanned yet: the hold-down is %u s instead of %u s, or until a scan ends (a mast across "
                            "a border reaches farther than the place's access points).", v->hold_s,
                            t->params->hold_down_s);
  if (v->conflicts > 0)
    g_string_append_printf (why, " The hold-down is %u s instead of %u s: strong witnesses disagreed %u time%s "
                            "in the last %u s (flapping at a border).", v->hold_s, t->params->hold_down_s,
                            v->conflicts, plural (v->conflicts, "", "s"), t->params->flap_calm_s);
}

/* Beside a leader with only confirming witnesses, the first country with
 * one that may decide: what it lacks. */
static void
describe_deciding_elsewhere (GString *why, const Tallying *t, const Tally *y)
{
  char cc[3];

  if (y->pub.deciding > 0)
    return;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *o = &g_array_index (t->tallies, Tally, i);
      if (o == y || o->pub.deciding == 0)
        continue;
      g_string_append_printf (why, " %s has %u witness%s that may decide, %u in all (confidence %.2f).",
                              rl_country_to_string (o->pub.country, cc), o->pub.deciding,
                              plural (o->pub.deciding, "", "es"), o->pub.witnesses, o->pub.confidence);
      return;
    }
}

static void
explain_world_basis (const Verdict *v, const Tallying *t, const char *cc, GString *line, GString *why)
{
  const RlPolicyParams *p = t->params;
  const Tally *y = v->subject;
  char cc2[3];

  switch (v->basis)
    {
    case RL_REASON_TIE:
      rl_country_to_string (v->rival->pub.country, cc2);
      g_string_append_printf (line, "%s and %s have equal support", cc, cc2);
      g_string_append_printf (why, "Staying on 00: %s and %s have the same support (confidence %.2f, %u witness%s each) "
                              "and nothing tells them apart. For %s: ", cc, cc2, y->pub.confidence,
                              y->pub.witnesses, plural (y->pub.witnesses, "", "es"), cc);
      describe_support (why, y, t);
      g_string_append (why, ".");
      return;
    case RL_REASON_TIMEZONE_ONLY:
      g_string_append_printf (line, "only the timezone points to %s", cc);
      if (y->pub.beacon_aps > 0)
        g_string_append (line, "; its access points make no witness");
      break;
    case RL_REASON_SINGLE_WITNESS:
      g_string_append_printf (line, "%s has %u witness%s, %u needed", cc, y->pub.witnesses,
                              plural (y->pub.witnesses, "", "es"), p->min_witnesses);
      break;
    default:
      if (y->pub.deciding == 0)
        g_string_append_printf (line, "%s has only confirming witnesses", cc);
      else
        g_string_append_printf (line, "%s confidence %.2f below %.2f", cc, y->pub.confidence, p->confidence_threshold);
      break;
    }
  /* a country with only confirming witnesses may lead by confidence while
   * another has one that may decide: "best" would read as regloc's guess
   * (a Malaysian SIM and clock in a Singapore office, the Singapore
   * routers one witness) */
  if (y->pub.deciding == 0)
    g_string_append_printf (why, "Staying on 00. The most support has %s, with %u witness%s (confidence %.2f), %s: ", cc,
                            y->pub.witnesses, plural (y->pub.witnesses, "", "es"), y->pub.confidence,
                            y->pub.witnesses == 1 ? "which may not decide" : "none of which may decide");
  else
    g_string_append_printf (why, "Staying on 00. The best candidate is %s with %u witness%s (confidence %.2f): ",
                            cc, y->pub.witnesses, plural (y->pub.witnesses, "", "es"), y->pub.confidence);
  describe_support (why, y, t);
  g_string_append_printf (why, ". Leaving 00 needs %u independent witnesses, at least one that may decide (a GPS fix "
                          "naming only this country or a beacon witness; the timezone, a fix near a border and EU "
                          "access points only confirm), and confidence %.2f.", p->min_witnesses, p->confidence_threshold);
  describe_deciding_elsewhere (why, t, y);
}

static void
explain_world (const Verdict *v, const Tallying *t, GString *line, GString *why)
{
  const Tally *y = v->subject;
  char cc[3], text[EVIDENCE_TEXT_MAX];

  if (y != NULL)
    rl_country_to_string (y->pub.country, cc);
  if (v->basis == RL_REASON_NOT_IN_REGDB)
    {
      g_string_append_printf (line, "%s is not in the regulatory database", cc);
      g_string_append_printf (why, "The evidence points to %s, but the installed regulatory database has no rules for it "
                              "and no territory table entry maps it to another country, so regloc stays on 00. For %s: ",
                              cc, cc);
      describe_support (why, y, t);
      g_string_append (why, ".");
    }
  else if (v->basis == RL_REASON_AIRBORNE)
    {
      g_string_append (line, "airborne");
      g_string_append_printf (why, "%s: high and fast, the machine is in flight, where no country's rules apply; "
                              "the world domain 00 holds whatever the access points aboard say.",
                              evidence_text (t, t->gps, "The GPS fix", text, sizeof text));
    }
  else if (v->basis == RL_REASON_AT_SEA)
    {
      g_string_append (line, "GPS fix at sea");
      g_string_append_printf (why, "%s: the world domain 00 applies at sea.",
                              evidence_text (t, t->gps, "The GPS fix", text, sizeof text));
      if (y != NULL)
        {
          g_string_append_printf (why, " For %s: ", cc);
          describe_support (why, y, t);
          g_string_append (why, ".");
        }
    }
  else if (y == NULL)
    {
      g_string_append (line, t->n_live > 0 ? "no usable evidence" : "no evidence");
      g_string_append (why, t->n_live > 0 ? "No live evidence names a usable country: staying on 00."
                                          : "No evidence: staying on the world domain 00.");
    }
  else
    explain_world_basis (v, t, cc, line, why);
  describe_other_beacons (why, t, y);
  if (v->lost != RL_COUNTRY_NONE)
    {
      g_string_prepend (line, "; ");
      g_string_prepend (line, rl_country_to_string (v->lost, cc));
      g_string_prepend (line, "lost support for ");
    }
}

/* A clock that names none of the decided country's codes is dissent too,
 * though it never decides: a reader should see it pointed elsewhere (a
 * Czech post office's Prague clock beside Polish routers on Sněžka). */
static void
describe_zone_dissent (GString *s, const Tallying *t, RlCountry winner)
{
  char text[EVIDENCE_TEXT_MAX];
  RlCountry here[2];

  if (t->zone_ev == NULL || t->zone == NULL || t->zone_ev->n_countries == 0)
    return;
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (y->pub.country != winner)
        continue;
      tally_codes (y, here);
      if (rl_evidence_has_country (t->zone_ev, here[0]) || rl_evidence_has_country (t->zone_ev, here[1]))
        return;
      g_string_append_printf (s, " The timezone %s names another country.",
                              evidence_text (t, t->zone_ev, t->zone, text, sizeof text));
      return;
    }
}

/* The summary line and the explanation paragraph of the verdict, at t->level. */
static void
explain (const Verdict *v, const Tallying *t, const RlEvidence *ev, gsize n, gint64 now, const RlDecision *d,
         char **summary, char **explanation)
{
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GString) line = g_string_new (NULL);
  char text[EVIDENCE_TEXT_MAX];

  switch (v->state)
    {
    case RL_STATE_OVERRIDE:
      explain_override (v, t, d, line, why);
      break;
    case RL_STATE_CONFLICT:
      explain_conflict (t, line, why);
      break;
    case RL_STATE_DECIDED:
      explain_agreement (v, t, now, line, why);
      describe_dissent (why, t, d->country, ev, n, now);
      describe_zone_dissent (why, t, d->country);
      describe_yielded (why, t, d->country);
      break;
    case RL_STATE_TENTATIVE:
      explain_agreement (v, t, now, line, why);
      break;
    case RL_STATE_WORLD:
    default:
      explain_world (v, t, line, why);
      break;
    }
  if (t->gps != NULL && (t->gps->gps.flags & RL_GPS_INFO_UNTRUSTED))
    g_string_append_printf (why, " %s: it is not trusted, so it confirms at most, never decides.",
                            evidence_text (t, t->gps, "The GPS fix", text, sizeof text));
  for (guint i = 0; i < t->tallies->len; i++)
    if (g_array_index (t->tallies, Tally, i).tz_declined)
      {
        const Tally *y = &g_array_index (t->tallies, Tally, i);
        const char *zone = t->zone ? evidence_text (t, t->zone_ev, t->zone, text, sizeof text) : NULL;
        const Tally *mast = mast_elsewhere (t, y);
        char cc[3], mcc[3];
        gboolean unlisted = mast != NULL && !mast->cell_strong;
        g_autofree char *mast_text = mast != NULL
          ? g_strdup_printf ("a modem is on mobile network %s%s%s, whose access points are heard here too: the clock "
                             "says where its owner lives, not where the access points are",
                             unlisted ? t->cell_unknown->cell.network : mast->cell_network ? mast->cell_network : "?",
                             unlisted ? ", which the provider list does not carry, of a code listed for " : " of ",
                             rl_country_to_string (mast->pub.country, mcc))
          : NULL;
        g_string_append_printf (why, " The timezone%s%s does not confirm %s: %s.", zone ? " " : "", zone ? zone : "",
                                rl_country_to_string (y->pub.country, cc),
                                y->network_only ? "one operator's network needs a GPS fix beside it, or other operators' access points "
                                                  "enough for a witness of their own"
                                : t->n_riding > 0 ? "while access points travel with the machine, so does its clock, which says "
                                                    "where it came from"
                                : fix_rules_out (t, y) ? "the GPS fix's error circle does not reach it"
                                : !y->tz_primary ? (y->pub.cell ? "it is not the zone's own country, and no GPS fix names it"
                                                                 : "it is not the zone's own country, and only access points name it")
                                : !t->network_yielded && mast_text != NULL ? mast_text
                                : "a clock does not settle access points against another country's large network");
        break;
      }
  if (t->n_suspect > 0)
    g_string_append_printf (why, " %u access point%s a GPS fix contradicted stay%s suspect and do%s not vote.",
                            t->n_suspect, t->n_suspect == 1 ? "" : "s", t->n_suspect == 1 ? "s" : "",
                            t->n_suspect == 1 ? "es" : "");
  if (t->n_riding > 0)
    g_string_append_printf (why, " %u access point%s heard without a break while the others around came and went "
                            "travel%s with the machine and do%s not vote.",
                            t->n_riding, t->n_riding == 1 ? "" : "s", t->n_riding == 1 ? "s" : "",
                            t->n_riding == 1 ? "es" : "");
  if (t->n_passing > 0)
    g_string_append_printf (why, " While they do, %u access point%s heard only lately or locally administered "
                            "(passing by, or a phone's hotspot) do%s not vote either.",
                            t->n_passing, t->n_passing == 1 ? "" : "s", t->n_passing == 1 ? "es" : "");
  describe_driver_unused (why, t);
  describe_notes (why, t);
  g_free (*explanation);
  *explanation = g_string_free (g_steal_pointer (&why), FALSE);
  g_free (*summary);
  *summary = g_string_free (g_steal_pointer (&line), FALSE);
}

/* Both levels of the text: full for logs, replays and callers allowed to
 * read the location; public for everyone else. */
static void
explain_levels (const Verdict *v, Tallying *t, const RlEvidence *ev, gsize n, gint64 now, RlDecision *d,
                const RlTerritoryShift *shift)
{
  t->level = RL_DETAIL_FULL;
  explain (v, t, ev, n, now, d, &d->summary, &d->explanation);
  t->level = RL_DETAIL_PUBLIC;
  explain (v, t, ev, n, now, d, &d->summary_public, &d->explanation_public);
  rl_territory_note (shift, &d->explanation);
  rl_territory_note (shift, &d->explanation_public);
}

/* ---- the entry point ------------------------------------------------- */

static gboolean
agree_regulatory (RlCountry named, RlCountry gps_country, gpointer user_data)
{
  const Tallying *t = user_data;
  gboolean unmapped;

  return regulatory_code (t, named, &unmapped) == regulatory_code (t, gps_country, &unmapped);
}

/* Is every live modem registered on a listed network naming only the
 * country of @gps, a fix inside one country (and is there one)? */
static gboolean
cell_names_fix_country (const Tallying *t, const RlEvidence *gps, const RlEvidence *ev, gsize n, gint64 now)
{
  gboolean named = FALSE;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (e->kind != RL_SOURCE_CELL || !is_live (e, now))
        continue;
      if (e->n_countries != 1 || e->cell.unknown || e->cell.unlisted ||
          !agree_regulatory (e->countries[0], gps->countries[0], (gpointer) t))
        return FALSE;
      named = TRUE;
    }
  return named;
}

/* How many operators (operators_new ()) of globally administered access
 * points heard above beacon_faint_dbm name the country of @gps, a fix
 * inside one country?  At most two are counted. */
static guint
fix_country_operators (const Tallying *t, const RlEvidence *gps, const RlEvidence *ev, gsize n, gint64 now)
{
  g_autoptr (GPtrArray) named = g_ptr_array_new ();
  g_autoptr (GHashTable) ops = NULL;
  guint32 first;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];

      if (e->kind == RL_SOURCE_BEACON && is_live (e, now) && e->n_countries > 0 &&
          !RL_BSSID_IS_LOCAL (e->beacon.bssid) && !(e->beacon.flags & RL_BEACON_INFO_RIDES_ALONG) &&
          !ap_below_floor (t->params, e) && agree_regulatory (e->countries[0], gps->countries[0], (gpointer) t))
        g_ptr_array_add (named, (gpointer) e);
    }
  if (named->len == 0)
    return 0;
  g_ptr_array_sort (named, cmp_beacon_ev);
  ops = operators_new (named);
  first = operator_of (ops, ((const RlEvidence *) g_ptr_array_index (named, 0))->beacon.bssid);
  for (guint i = 1; i < named->len; i++)
    if (operator_of (ops, ((const RlEvidence *) g_ptr_array_index (named, i))->beacon.bssid) != first)
      return 2;
  return 1;
}

/* Remembered contradictions (core/contradiction.h): d->suspects carries
 * them on; they are left out of the vote while no fix contradicts them
 * itself (then the conflict shows both sides), and while the fix that does
 * has a modem's network naming its country beside it, or access points of
 * two operators of that country heard well: two witnesses of their own
 * against the contradicted access points (a US delegation's travel routers
 * in a Berlin hotel, the fix inside Germany, the SIM on Telekom; routers on
 * US factory defaults in a Makati condo, the fix inside the Philippines,
 * the PLDT and Globe boxes; rule 10). */
static void
apply_contradictions (Tallying *t, const RlDecision *previous, const RlEvidence *ev, gsize n, gint64 now,
                      RlDecision *d)
{
  const RlEvidence *gps = rl_contradiction_gps (t->params, ev, n, now);

  g_array_unref (d->suspects);
  d->suspects = rl_contradiction_update (t->params, agree_regulatory, t, previous ? previous->suspects : NULL,
                                         ev, n, now);
  if (gps == NULL || (gps->n_countries != 1 && !rl_gps_is_airborne (t->params, gps)) ||
      (gps->n_countries == 1 &&
       (cell_names_fix_country (t, gps, ev, n, now) || fix_country_operators (t, gps, ev, n, now) >= 2)))
    t->suspects = d->suspects;
}

/* The next instant anything can change without new evidence. */
static gint64
next_instant (const RlEvidence *ev, gsize n, gint64 now)
{
  gint64 next = RL_NEVER;

  for (gsize i = 0; i < n; i++)
    {
      gint64 at = ev[i].expires_at > now ? ev[i].expires_at : RL_NEVER;
      if (ev[i].observed_at > now)
        at = MIN (at, ev[i].observed_at);
      next = MIN (next, at);
    }
  return next;
}

RlDecision *
rl_policy_decide (const RlPolicyParams *params,
                  RlRegulatoryMap regmap,
                  gpointer regmap_data,
                  const RlDecision *previous,
                  const RlEvidence *evidence,
                  gsize n_evidence,
                  const RlPolicyAir *air,
                  gint64 now)
{
  g_autoptr (RlDecision) d = NULL;
  Tallying t = { .params = params, .regmap = regmap, .regmap_data = regmap_data, .settles_at = RL_NEVER,
                 .previous = previous };
  Verdict v;
  RlTerritoryShift shift;
  g_autofree RlEvidence *attributed = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (evidence != NULL || n_evidence == 0, NULL);

  /* A sovereign's access points count for the territory the other
   * evidence places the machine in (core/territory.h). */
  attributed = rl_territory_attribute (regmap == rl_regulatory_map ? rl_regulatory_territories (regmap_data) : NULL,
                                       evidence, n_evidence, now, params->gps_max_error_m,
                                       previous ? previous->fix_place : RL_COUNTRY_NONE, &shift);
  if (attributed != NULL)
    evidence = attributed;

  if (air != NULL)
    {
      t.silent_dbm = air->silent_mbm / 100.0;
      t.withdrew_once = air->withdrew_once_heard;
    }
  d = rl_decision_new_initial ();
  d->fix_place = shift.fix_place;
  apply_contradictions (&t, previous, evidence, n_evidence, now, d);
  t.tallies = g_array_new (FALSE, TRUE, sizeof (Tally));
  tally_all (&t, evidence, n_evidence, now);
  for (guint i = 0; i < t.tallies->len; i++)
    g_array_append_val (d->candidates, g_array_index (t.tallies, Tally, i).pub);

  pick (&t, previous, find_override (evidence, n_evidence, now), now, d, &v);
  explain_levels (&v, &t, evidence, n_evidence, now, d, &shift);

  d->next_check = MIN (d->next_check, next_instant (evidence, n_evidence, now));
  /* an access point heard long enough votes again beside those that ride along */
  d->next_check = MIN (d->next_check, t.settles_at);
  /* a calm period that ends the doubled hold-down is an instant too */
  if (d->conflicts > 0 && !d->in_conflict)
    d->next_check = MIN (d->next_check, d->last_conflict_at + (gint64) params->flap_calm_s * RL_USEC_PER_SEC);
  d->changed_at = (previous && previous->country == d->country && previous->state == d->state) ? previous->changed_at : now;
  g_array_unref (t.tallies);
  g_clear_pointer (&t.pool.members, g_hash_table_unref);
  return g_steal_pointer (&d);
}
