/* The voting engine.  See policy.h and DESIGN §4 for the rules in words. */
#include "core/policy.h"
#include "core/regdb.h"
#include "core/territory.h"

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
  g_return_val_if_fail (state <= RL_STATE_CONFLICT, "?");
  return state_names[state];
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
};

const char *
rl_reason_to_string (RlReason reason)
{
  g_return_val_if_fail (reason <= RL_REASON_SUPPORT_LOST, "?");
  return reason_names[reason];
}

void
rl_policy_params_init (RlPolicyParams *p)
{
  memset (p, 0, sizeof *p);
  p->min_witnesses = 2;
  p->confidence_threshold = 0.8;
  p->hold_down_s = 30;
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
  d->explanation = g_strdup ("No evidence yet: staying on the world domain 00.");
  d->summary = g_strdup ("no evidence");
  return d;
}

void
rl_decision_free (RlDecision *d)
{
  if (d == NULL)
    return;
  g_array_unref (d->candidates);
  g_free (d->explanation);
  g_free (d->summary);
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

typedef struct {
  RlCandidate pub;
  gboolean unmapped;        /* no regulatory rules for it */
  gboolean gps_strong;      /* a good fix naming only this country */
  guint beacon_witnesses;   /* 0, 1 or 2 */
  guint beacon_votes;       /* after the per-operator cap */
  RlCountry location;       /* the location code before mapping (AX for FI) */
} Tally;

typedef struct {
  const RlPolicyParams *params;
  RlRegulatoryMap regmap;
  gpointer regmap_data;
  GArray *tallies;          /* Tally; sorted best first after tally_all() */
  const RlEvidence *gps;    /* the newest good fix, if any */
  const char *zone;         /* the live timezone's detail ("Europe/Berlin"), or NULL */
  gboolean gps_at_sea;
  guint n_live;
  guint n_beacons_total_votes;
  guint n_aps;              /* distinct AP groups with a country */
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
        return y;
    }
  g_array_set_size (t->tallies, t->tallies->len + 1);
  Tally *y = &g_array_index (t->tallies, Tally, t->tallies->len - 1);
  y->pub.country = code;
  y->unmapped = unmapped;
  y->location = location;
  return y;
}

/* ---- beacon grouping (DESIGN §3) -------------------------------------- */

/* APs of one device (same first five BSSID octets) or one network of one
 * operator (same SSID + OUI) count once.  A locally administered BSSID has
 * no real OUI; its SSID names the operator. */
typedef struct {
  const RlEvidence *ev;
  guint32 operator_hash;
  guint64 device;           /* the first five BSSID octets */
} Ap;

typedef struct {
  guint n;
  Ap *aps;                  /* sorted by BSSID, then key */
  guint *parent;            /* union-find over aps: the groups */
  GHashTable *group_votes;  /* root + 1 → (members << 16) | country */
} BeaconGroups;

/* "One network of one operator": same non-empty SSID and same operator. */
static guint
network_hash (gconstpointer p)
{
  const Ap *ap = p;
  return g_str_hash (ap->ev->beacon.ssid) ^ ap->operator_hash;
}

static gboolean
network_equal (gconstpointer a, gconstpointer b)
{
  const Ap *x = a, *y = b;
  return x->operator_hash == y->operator_hash && strcmp (x->ev->beacon.ssid, y->ev->beacon.ssid) == 0;
}

static guint32
ap_operator (const RlEvidence *ev)
{
  const guint8 *b = ev->beacon.bssid;

  if (b[0] & 0x02)
    return g_str_hash (ev->beacon.ssid) | 0x80000000u;
  return ((guint32) b[0] << 16) | ((guint32) b[1] << 8) | b[2];
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

/* Joins APs of one device and of one network.  Same device and same network
 * are equivalences: joining every AP with the first AP of its device and of
 * its network gives the same groups as comparing every pair, in O(n)
 * instead of O(n²) (max_bss can be large). */
static void
group_join (BeaconGroups *g)
{
  g_autoptr (GHashTable) devices = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) networks = g_hash_table_new (network_hash, network_equal);

  for (guint i = 0; i < g->n; i++)
    {
      Ap *ap = &g->aps[i];
      const guint8 *b = ap->ev->beacon.bssid;
      gpointer first;

      g->parent[i] = i;
      ap->operator_hash = ap_operator (ap->ev);
      ap->device = ((guint64) b[0] << 32) | ((guint64) b[1] << 24) | ((guint64) b[2] << 16) |
                   ((guint64) b[3] << 8) | b[4];
      if ((first = g_hash_table_lookup (devices, &ap->device)) != NULL)
        uf_union (g->parent, GPOINTER_TO_UINT (first) - 1, i);
      else
        g_hash_table_insert (devices, &ap->device, GUINT_TO_POINTER (i + 1));
      if (ap->ev->beacon.ssid[0] == '\0')
        continue;
      if ((first = g_hash_table_lookup (networks, ap)) != NULL)
        uf_union (g->parent, GPOINTER_TO_UINT (first) - 1, i);
      else
        g_hash_table_insert (networks, ap, GUINT_TO_POINTER (i + 1));
    }
}

/* Each group votes once, for the country most of its members name (ties:
 * the smaller code).  Members are counted per (group, country). */
static void
group_elect (BeaconGroups *g)
{
  g_autoptr (GHashTable) member_counts = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint k = 0; k < g->n; k++)
    {
      guint root = uf_find (g->parent, k);
      RlCountry c = g->aps[k].ev->countries[0];
      /* n ≤ 2^16 in practice (the sources cap their tables); key = root * 2^16 + country */
      gpointer key = GSIZE_TO_POINTER (((gsize) root << 16) | c);
      guint cnt = GPOINTER_TO_UINT (g_hash_table_lookup (member_counts, key)) + 1;
      g_hash_table_insert (member_counts, key, GUINT_TO_POINTER (cnt));

      gpointer gkey = GUINT_TO_POINTER (root + 1);
      guint packed = GPOINTER_TO_UINT (g_hash_table_lookup (g->group_votes, gkey));
      RlCountry best = (RlCountry) (packed & 0xffff);
      guint best_n = packed >> 16;
      if (cnt > best_n || (cnt == best_n && c < best))
        g_hash_table_insert (g->group_votes, gkey, GUINT_TO_POINTER ((cnt << 16) | c));
    }
}

/* Counts one vote per group for its country, at most
 * beacon_max_aps_per_operator per (operator, country). */
static void
count_beacon_votes (Tallying *t, BeaconGroups *g)
{
  const RlPolicyParams *p = t->params;
  g_autoptr (GHashTable) per_op = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *op_keys = g_new0 (gint64, g->n);

  for (guint i = 0; i < g->n; i++)
    {
      if (uf_find (g->parent, i) != i)
        continue;
      guint packed = GPOINTER_TO_UINT (g_hash_table_lookup (g->group_votes, GUINT_TO_POINTER (i + 1)));
      RlCountry c = (RlCountry) (packed & 0xffff);
      gint64 *key = &op_keys[i];
      *key = ((gint64) g->aps[i].operator_hash << 16) | c;
      guint used = GPOINTER_TO_UINT (g_hash_table_lookup (per_op, key));
      t->n_aps++;
      if (p->beacon_max_aps_per_operator > 0 && used >= p->beacon_max_aps_per_operator)
        continue;
      g_hash_table_insert (per_op, key, GUINT_TO_POINTER (used + 1));

      Tally *y = tally_get (t, c);
      y->beacon_votes++;
      y->pub.beacon_aps++;
      if (used == 0)
        y->pub.beacon_operators++;
      t->n_beacons_total_votes++;
    }
}

/* How many witnesses each country's beacon votes make: one with enough APs
 * and share, two with enough APs from enough operators and no dissent. */
static void
beacon_witnesses (Tallying *t)
{
  const RlPolicyParams *p = t->params;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      gboolean dissent = FALSE;

      if (y->beacon_votes == 0)
        continue;
      /* "No dissent" means no other country has the APs for a witness of
       * its own; a lone AP naming something else is shown, not counted. */
      for (guint k = 0; k < t->tallies->len; k++)
        if (k != i && g_array_index (t->tallies, Tally, k).beacon_votes >= p->beacon_min_aps)
          dissent = TRUE;
      double fraction = (double) y->beacon_votes / (double) t->n_beacons_total_votes;
      if (y->beacon_votes >= p->beacon_strong_aps && y->pub.beacon_operators >= p->beacon_strong_operators && !dissent)
        y->beacon_witnesses = 2;
      else if (y->beacon_votes >= p->beacon_min_aps && fraction + 1e-9 >= p->beacon_min_fraction)
        y->beacon_witnesses = 1;
    }
}

static void
tally_beacons (Tallying *t, GPtrArray *beacons)
{
  BeaconGroups g = { beacons->len, NULL, NULL, NULL };

  if (g.n == 0)
    return;
  /* sort so that grouping never depends on the order evidence came in */
  g_ptr_array_sort (beacons, cmp_beacon_ev);
  g.aps = g_new0 (Ap, g.n);
  g.parent = g_new (guint, g.n);
  g.group_votes = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < g.n; i++)
    g.aps[i].ev = g_ptr_array_index (beacons, i);

  group_join (&g);
  group_elect (&g);
  count_beacon_votes (t, &g);
  beacon_witnesses (t);

  g_hash_table_unref (g.group_votes);
  g_free (g.parent);
  g_free (g.aps);
}

/* ---- collecting the evidence ----------------------------------------- */

static gboolean
is_live (const RlEvidence *e, gint64 now)
{
  return e->expires_at > now && e->observed_at <= now;
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
          if (e->n_countries > 0)
            g_ptr_array_add (beacons, (gpointer) e);
          break;
        case RL_SOURCE_TIMEZONE:
          if (t->zone == NULL && e->detail[0])
            t->zone = e->detail;
          for (guint c = 0; c < e->n_countries; c++)
            tally_get (t, e->countries[c])->pub.timezone = TRUE;
          break;
        default:
          break;
        }
    }
}

static void
tally_gps (Tallying *t)
{
  if (t->gps == NULL)
    return;
  if (t->gps->n_countries == 0)
    t->gps_at_sea = TRUE;
  for (guint c = 0; c < t->gps->n_countries; c++)
    {
      Tally *y = tally_get (t, t->gps->countries[c]);
      y->pub.gps = TRUE;
      y->gps_strong = t->gps->n_countries == 1;
    }
}

/* Witnesses and combined confidence: 1 - Π (1 - weight) over the witnesses. */
static void
weigh (Tallying *t)
{
  const RlPolicyParams *p = t->params;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      Tally *y = &g_array_index (t->tallies, Tally, i);
      double miss = 1.0;

      y->pub.witnesses = (y->pub.gps ? 1 : 0) + y->beacon_witnesses + (y->pub.timezone ? 1 : 0);
      if (y->pub.gps)
        miss *= 1.0 - p->gps_weight * t->gps->strength;
      for (guint w = 0; w < y->beacon_witnesses; w++)
        miss *= 1.0 - p->beacon_weight;
      if (y->pub.timezone)
        miss *= 1.0 - p->timezone_weight;
      y->pub.confidence = y->pub.witnesses > 0 ? 1.0 - miss : 0.0;
    }
}

static int
cmp_tally (gconstpointer a, gconstpointer b)
{
  const Tally *x = a, *y = b;

  if (x->pub.confidence != y->pub.confidence)
    return x->pub.confidence > y->pub.confidence ? -1 : 1;
  if (x->pub.witnesses != y->pub.witnesses)
    return x->pub.witnesses > y->pub.witnesses ? -1 : 1;
  if (x->beacon_votes != y->beacon_votes)
    return x->beacon_votes > y->beacon_votes ? -1 : 1;
  return x->pub.country < y->pub.country ? -1 : (x->pub.country > y->pub.country ? 1 : 0);
}

static void
tally_all (Tallying *t, const RlEvidence *ev, gsize n_ev, gint64 now)
{
  g_autoptr (GPtrArray) beacons = g_ptr_array_new ();

  collect_live (t, ev, n_ev, now, beacons);
  tally_gps (t);
  tally_beacons (t, beacons);
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
  const RlEvidence *override;
  RlCountry override_code;  /* as the override names it (before mapping) */
  RlCountry would_be;       /* under an override: the country the evidence supports, or NONE */
  RlCountry lost;           /* the previously decided country that lost support, or NONE */
  gint64 hold_until;        /* tentative: when the hold-down ends */
} Verdict;

static gboolean
has_agreement (const RlPolicyParams *p, const Tally *y)
{
  guint deciding = y->pub.witnesses - (y->pub.timezone ? 1 : 0);

  /* the timezone can confirm, never decide */
  return deciding >= 1 && y->pub.witnesses >= MAX (p->min_witnesses, 1) &&
         y->pub.confidence + 1e-9 >= p->confidence_threshold;
}

/* A strong witness: a fix far from any border or a beacon consensus. */
static gboolean
is_strong (const Tally *y)
{
  return y->gps_strong || y->beacon_witnesses > 0;
}

/* Conflict: strong witnesses (a fix far from any border, a beacon
 * consensus, a fix at sea) naming different places. */
static gboolean
find_conflict (const Tallying *t)
{
  RlCountry strong = t->gps_at_sea ? RL_COUNTRY_WORLD : RL_COUNTRY_NONE;

  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
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
  if (best != NULL && best->unmapped)
    {
      v->basis = RL_REASON_NOT_IN_REGDB;
      v->subject = best;
    }
  else if (t->gps_at_sea)
    v->basis = RL_REASON_AT_SEA;
  else if (leader == NULL)
    v->basis = t->n_live > 0 ? RL_REASON_SINGLE_WITNESS : RL_REASON_NO_EVIDENCE;
  else if (leader->pub.timezone && leader->pub.witnesses == 1)
    v->basis = RL_REASON_TIMEZONE_ONLY;
  else if (leader->pub.witnesses < MAX (p->min_witnesses, 1) || leader->pub.witnesses == (leader->pub.timezone ? 1u : 0u))
    v->basis = RL_REASON_SINGLE_WITNESS;
  else
    v->basis = RL_REASON_BELOW_THRESHOLD;
  d->reason = v->basis;
}

/* Chooses state, reason, country and the hold-down bookkeeping. */
static void
pick (const Tallying *t, const RlDecision *previous, const RlEvidence *override, gint64 now,
      RlDecision *d, Verdict *v)
{
  const RlPolicyParams *p = t->params;
  RlCountry prev_country = previous ? previous->country : RL_COUNTRY_WORLD;
  RlState prev_state = previous ? previous->state : RL_STATE_WORLD;
  const Tally *best = NULL, *leader = NULL;
  gboolean conflict = find_conflict (t);

  memset (v, 0, sizeof *v);
  for (guint i = 0; i < t->tallies->len; i++)
    {
      const Tally *y = &g_array_index (t->tallies, Tally, i);
      if (leader == NULL)
        leader = y;
      if (best == NULL && has_agreement (p, y))
        best = y;
    }
  v->leader = leader;
  v->lost = RL_COUNTRY_NONE;
  v->would_be = RL_COUNTRY_NONE;

  /* Hold-down bookkeeping, kept while overridden too so that clearing the
   * override returns at once to a country whose agreement already held. */
  RlCountry target = RL_COUNTRY_NONE;
  if (!conflict && best != NULL && !best->unmapped)
    target = best->pub.country;
  if (target != RL_COUNTRY_NONE)
    {
      d->candidate = target;
      d->candidate_since = (previous && previous->candidate == target) ? previous->candidate_since : now;
    }
  gboolean held = target != RL_COUNTRY_NONE &&
                  (p->hold_down_s == 0 || target == prev_country ||
                   now - d->candidate_since >= (gint64) p->hold_down_s * RL_USEC_PER_SEC);

  if (override != NULL)
    {
      pick_override (t, override, d, v);
      v->would_be = target;
    }
  else if (conflict)
    {
      d->state = RL_STATE_CONFLICT;
      d->reason = RL_REASON_CONFLICT;
      d->confidence = leader ? leader->pub.confidence : 0;
    }
  else if (target != RL_COUNTRY_NONE && held)
    {
      d->country = target;
      d->state = RL_STATE_DECIDED;
      d->reason = RL_REASON_AGREEMENT;
      d->confidence = best->pub.confidence;
      v->subject = best;
    }
  else if (target != RL_COUNTRY_NONE)
    {
      v->subject = best;
      v->hold_until = d->candidate_since + (gint64) p->hold_down_s * RL_USEC_PER_SEC;
      v->basis = RL_REASON_HOLD_DOWN;
      d->state = RL_STATE_TENTATIVE;
      d->confidence = best->pub.confidence;
      d->reason = RL_REASON_HOLD_DOWN;
      d->next_check = v->hold_until;
      if (prev_state == RL_STATE_DECIDED && prev_country != target)
        v->lost = prev_country;
    }
  else
    {
      pick_world (t, best, leader, d, v);
      if (prev_state == RL_STATE_DECIDED)
        v->lost = prev_country;
    }
  if (v->lost != RL_COUNTRY_NONE)
    d->reason = RL_REASON_SUPPORT_LOST;
  v->state = d->state;
  v->reason = d->reason;
}

/* ---- words: the only place that writes text -------------------------- */

static void
describe_support (GString *s, const Tally *y, const Tallying *t)
{
  char cc[3];
  gboolean first = TRUE;

  rl_country_to_string (y->pub.country, cc);
  if (y->pub.gps)
    {
      g_string_append_printf (s, "%s", t->gps->detail[0] ? t->gps->detail : "a GPS fix");
      g_string_append_printf (s, " (%s)", y->gps_strong ? "in this country" : "near its border");
      first = FALSE;
    }
  if (y->pub.beacon_aps > 0)
    {
      g_string_append_printf (s, "%s%u access point%s from %u operator%s say%s %s (%s)", first ? "" : "; ",
                              y->pub.beacon_aps, y->pub.beacon_aps == 1 ? "" : "s",
                              y->pub.beacon_operators, y->pub.beacon_operators == 1 ? "" : "s",
                              y->pub.beacon_aps == 1 ? "s" : "", cc,
                              y->beacon_witnesses == 2 ? "two witnesses" :
                              y->beacon_witnesses == 1 ? "one witness" : "no witness");
      first = FALSE;
    }
  if (y->pub.timezone)
    {
      g_string_append_printf (s, "%sthe timezone%s%s agrees", first ? "" : "; ",
                              t->zone ? " " : "", t->zone ? t->zone : "");
      first = FALSE;
    }
  if (first)
    g_string_append (s, "nothing");
}

static void
describe_dissent (GString *s, const Tallying *t, RlCountry winner, const RlEvidence *ev, gsize n, gint64 now)
{
  guint shown = 0, total = 0;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (e->kind != RL_SOURCE_BEACON || !is_live (e, now) || e->n_countries == 0)
        continue;
      RlCountry c = t->regmap && e->countries[0] != RL_COUNTRY_WORLD ? t->regmap (e->countries[0], t->regmap_data) : e->countries[0];
      if (c == winner)
        continue;
      total++;
      if (shown < 3)
        {
          char cc[3];
          g_string_append_printf (s, "%s%s says %s", shown ? ", " : " Dissent: ",
                                  e->detail[0] ? e->detail : e->key, rl_country_to_string (e->countries[0], cc));
          shown++;
        }
    }
  if (total > shown)
    g_string_append_printf (s, " and %u more", total - shown);
  if (total > 0)
    g_string_append (s, ".");
}

static void
explain_override (const Verdict *v, const RlDecision *d, GString *line, GString *why)
{
  char cc[3], cc2[3];

  if (d->reason == RL_REASON_NOT_IN_REGDB)
    g_string_append_printf (line, "override %s is not in the regulatory database: 00",
                            rl_country_to_string (v->override_code, cc));
  else
    g_string_append_printf (line, "override by the administrator: %s", rl_country_to_string (d->country, cc));
  g_string_append_printf (why, "An administrator's override (%s) sets %s; evidence is still gathered but does not decide.",
                          v->override->detail[0] ? v->override->detail : v->override->key,
                          rl_country_to_string (d->country, cc));
  if (v->would_be != RL_COUNTRY_NONE)
    g_string_append_printf (why, " Without it the evidence would support %s.", rl_country_to_string (v->would_be, cc2));
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
}

static void
explain_agreement (const Verdict *v, const Tallying *t, gint64 now, GString *line, GString *why)
{
  const Tally *y = v->subject;
  char cc[3], cc2[3];

  rl_country_to_string (y->pub.country, cc);
  if (v->state == RL_STATE_DECIDED)
    {
      g_string_append_printf (line, "%u witnesses agree on %s", y->pub.witnesses, cc);
      g_string_append_printf (why, "Decided %s with confidence %.2f: ", cc, y->pub.confidence);
      describe_support (why, y, t);
      g_string_append (why, ".");
      if (y->location != y->pub.country)
        g_string_append_printf (why, " %s uses the rules of %s.", rl_country_to_string (y->location, cc2), cc);
      return;
    }
  if (v->lost != RL_COUNTRY_NONE)
    g_string_append_printf (line, "%s lost its support; ", rl_country_to_string (v->lost, cc2));
  g_string_append_printf (line, "%s agreed, holding %.0f s more", cc, (double) (v->hold_until - now) / RL_USEC_PER_SEC);
  g_string_append_printf (why, "Evidence agrees on %s (confidence %.2f: ", cc, y->pub.confidence);
  describe_support (why, y, t);
  g_string_append_printf (why, "), but agreement must hold for %u s before leaving 00.", t->params->hold_down_s);
}

static void
explain_world (const Verdict *v, const Tallying *t, GString *line, GString *why)
{
  const RlPolicyParams *p = t->params;
  const Tally *y = v->subject;
  char cc[3];

  if (y != NULL)
    rl_country_to_string (y->pub.country, cc);
  switch (v->basis)
    {
    case RL_REASON_NOT_IN_REGDB:
      g_string_append_printf (line, "%s is not in the regulatory database", cc);
      g_string_append_printf (why, "Evidence agrees on %s, but the installed regulatory database has no rules for it "
                              "and no territory table entry maps it to another country, so regloc stays on 00.", cc);
      break;
    case RL_REASON_AT_SEA:
      g_string_append (line, "GPS fix at sea");
      g_string_append_printf (why, "%s is outside every country's waters: the world domain 00 applies.",
                              t->gps->detail[0] ? t->gps->detail : "The GPS fix");
      break;
    default:
      if (y == NULL)
        {
          g_string_append (line, t->n_live > 0 ? "no usable evidence" : "no evidence");
          g_string_append (why, t->n_live > 0 ? "No live evidence names a usable country: staying on 00."
                                              : "No evidence: staying on the world domain 00.");
          break;
        }
      if (v->basis == RL_REASON_TIMEZONE_ONLY)
        g_string_append_printf (line, "only the timezone points to %s", cc);
      else if (v->basis == RL_REASON_SINGLE_WITNESS)
        g_string_append_printf (line, "%s has %u witness%s, %u needed", cc, y->pub.witnesses,
                                y->pub.witnesses == 1 ? "" : "es", p->min_witnesses);
      else
        g_string_append_printf (line, "%s confidence %.2f below %.2f", cc, y->pub.confidence, p->confidence_threshold);
      g_string_append_printf (why, "Staying on 00. The best candidate is %s with %u witness%s (confidence %.2f): ",
                              cc, y->pub.witnesses, y->pub.witnesses == 1 ? "" : "es", y->pub.confidence);
      describe_support (why, y, t);
      g_string_append_printf (why, ". Leaving 00 needs %u independent witnesses, at least one besides the timezone, "
                              "and confidence %.2f.", p->min_witnesses, p->confidence_threshold);
      break;
    }
  if (v->lost != RL_COUNTRY_NONE)
    {
      g_string_prepend (line, "; ");
      g_string_prepend (line, rl_country_to_string (v->lost, cc));
      g_string_prepend (line, "lost support for ");
    }
}

/* Writes d->summary and d->explanation from the verdict. */
static void
explain (const Verdict *v, const Tallying *t, const RlEvidence *ev, gsize n, gint64 now, RlDecision *d)
{
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GString) line = g_string_new (NULL);

  switch (v->state)
    {
    case RL_STATE_OVERRIDE:
      explain_override (v, d, line, why);
      break;
    case RL_STATE_CONFLICT:
      explain_conflict (t, line, why);
      break;
    case RL_STATE_DECIDED:
      explain_agreement (v, t, now, line, why);
      describe_dissent (why, t, d->country, ev, n, now);
      break;
    case RL_STATE_TENTATIVE:
      explain_agreement (v, t, now, line, why);
      break;
    case RL_STATE_WORLD:
    default:
      explain_world (v, t, line, why);
      break;
    }
  g_free (d->explanation);
  d->explanation = g_string_free (g_steal_pointer (&why), FALSE);
  g_free (d->summary);
  d->summary = g_string_free (g_steal_pointer (&line), FALSE);
}

/* ---- the entry point ------------------------------------------------- */

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
                  gint64 now)
{
  g_autoptr (RlDecision) d = NULL;
  Tallying t = { .params = params, .regmap = regmap, .regmap_data = regmap_data };
  Verdict v;
  RlTerritoryShift shift;
  g_autofree RlEvidence *attributed = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (evidence != NULL || n_evidence == 0, NULL);

  /* A sovereign's access points count for the territory the other
   * evidence places the machine in (core/territory.h). */
  attributed = rl_territory_attribute (regmap == rl_regulatory_map ? rl_regulatory_territories (regmap_data) : NULL,
                                       evidence, n_evidence, now, params->gps_max_error_m, &shift);
  if (attributed != NULL)
    evidence = attributed;

  d = rl_decision_new_initial ();
  t.tallies = g_array_new (FALSE, TRUE, sizeof (Tally));
  tally_all (&t, evidence, n_evidence, now);
  for (guint i = 0; i < t.tallies->len; i++)
    g_array_append_val (d->candidates, g_array_index (t.tallies, Tally, i).pub);

  pick (&t, previous, find_override (evidence, n_evidence, now), now, d, &v);
  explain (&v, &t, evidence, n_evidence, now, d);
  rl_territory_note (&shift, &d->explanation);

  d->next_check = MIN (d->next_check, next_instant (evidence, n_evidence, now));
  d->changed_at = (previous && previous->country == d->country && previous->state == d->state) ? previous->changed_at : now;
  g_array_unref (t.tallies);
  return g_steal_pointer (&d);
}
