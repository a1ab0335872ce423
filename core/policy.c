/* The voting engine.  See policy.h and DESIGN §4 for the rules in words. */
#include "core/policy.h"

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
  GArray *tallies;          /* Tally */
  const RlEvidence *gps;    /* the newest good fix, if any */
  gboolean gps_at_sea;
  guint n_live;
  guint n_beacons_total_votes;
  guint n_aps;              /* distinct AP groups with a country */
  GPtrArray *dissent;       /* const RlEvidence * of beacons not naming the winner */
} Tallying;

static Tally *
tally_get (Tallying *t, RlCountry location)
{
  RlCountry code = location;
  gboolean unmapped = FALSE;

  if (location != RL_COUNTRY_WORLD && t->regmap != NULL)
    {
      code = t->regmap (location, t->regmap_data);
      if (code == RL_COUNTRY_NONE)
        {
          code = location;
          unmapped = TRUE;
        }
    }
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

/* Beacon grouping (DESIGN §3): APs of one device (same first five BSSID
 * octets) or one network of one operator (same SSID + OUI) count once.
 * A locally administered BSSID has no real OUI; its SSID names the operator. */
typedef struct {
  const RlEvidence *ev;
  guint group;
  guint32 operator_hash;
  guint64 device;           /* the first five BSSID octets */
} Ap;

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

static void
tally_beacons (Tallying *t, GPtrArray *beacons)
{
  const RlPolicyParams *p = t->params;
  guint n = beacons->len;

  if (n == 0)
    return;
  /* sort so that grouping never depends on the order evidence came in */
  g_ptr_array_sort (beacons, cmp_beacon_ev);

  g_autofree guint *parent = g_new (guint, n);
  g_autofree Ap *aps = g_new0 (Ap, n);
  /* Same device and same network are equivalences: joining every AP with
   * the first AP of its device and of its network gives the same groups as
   * comparing every pair, in O(n) instead of O(n²) (max_bss can be large). */
  g_autoptr (GHashTable) devices = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) networks = g_hash_table_new (network_hash, network_equal);
  for (guint i = 0; i < n; i++)
    {
      const guint8 *b;
      gpointer first;

      parent[i] = i;
      aps[i].ev = g_ptr_array_index (beacons, i);
      aps[i].operator_hash = ap_operator (aps[i].ev);
      b = aps[i].ev->beacon.bssid;
      aps[i].device = ((guint64) b[0] << 32) | ((guint64) b[1] << 24) | ((guint64) b[2] << 16) |
                      ((guint64) b[3] << 8) | b[4];
      if ((first = g_hash_table_lookup (devices, &aps[i].device)) != NULL)
        uf_union (parent, GPOINTER_TO_UINT (first) - 1, i);
      else
        g_hash_table_insert (devices, &aps[i].device, GUINT_TO_POINTER (i + 1));
      if (aps[i].ev->beacon.ssid[0] == '\0')
        continue;
      if ((first = g_hash_table_lookup (networks, &aps[i])) != NULL)
        uf_union (parent, GPOINTER_TO_UINT (first) - 1, i);
      else
        g_hash_table_insert (networks, &aps[i], GUINT_TO_POINTER (i + 1));
    }

  /* Each group votes once, for the country most of its members name
   * (ties: the smaller code).  Members are counted per (group, country). */
  g_autoptr (GHashTable) member_counts = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) group_votes = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint k = 0; k < n; k++)
    {
      guint root = uf_find (parent, k);
      RlCountry c = aps[k].ev->countries[0];
      /* n ≤ 2^16 in practice (the sources cap their tables); key = root * 2^16 + country */
      gpointer key = GSIZE_TO_POINTER (((gsize) root << 16) | c);
      guint cnt = GPOINTER_TO_UINT (g_hash_table_lookup (member_counts, key)) + 1;
      g_hash_table_insert (member_counts, key, GUINT_TO_POINTER (cnt));

      gpointer gkey = GUINT_TO_POINTER (root + 1);
      guint packed = GPOINTER_TO_UINT (g_hash_table_lookup (group_votes, gkey));
      RlCountry best = (RlCountry) (packed & 0xffff);
      guint best_n = packed >> 16;
      if (cnt > best_n || (cnt == best_n && c < best))
        g_hash_table_insert (group_votes, gkey, GUINT_TO_POINTER ((cnt << 16) | c));
    }

  /* Count votes per country with the per-operator cap. */
  g_autoptr (GHashTable) per_op = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) op_keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_set_size (op_keys, n);
  for (guint i = 0; i < n; i++)
    {
      if (uf_find (parent, i) != i)
        continue;
      RlCountry c = (RlCountry) (GPOINTER_TO_UINT (g_hash_table_lookup (group_votes, GUINT_TO_POINTER (i + 1))) & 0xffff);
      gint64 *key = &g_array_index (op_keys, gint64, i);
      *key = ((gint64) aps[i].operator_hash << 16) | c;
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

  /* Witnesses. */
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
tally_all (Tallying *t, const RlEvidence *ev, gsize n_ev, gint64 now)
{
  const RlPolicyParams *p = t->params;
  g_autoptr (GPtrArray) beacons = g_ptr_array_new ();

  for (gsize i = 0; i < n_ev; i++)
    {
      const RlEvidence *e = &ev[i];

      if (e->expires_at <= now || e->observed_at > now || e->kind == RL_SOURCE_OVERRIDE)
        continue;
      t->n_live++;
      switch (e->kind)
        {
        case RL_SOURCE_GPS:
          if (e->gps.error_m > p->gps_max_error_m || e->strength <= 0)
            break;
          /* the newest good fix speaks for the GPS; ties: the smaller key */
          if (t->gps == NULL || e->observed_at > t->gps->observed_at ||
              (e->observed_at == t->gps->observed_at && strcmp (e->key, t->gps->key) < 0))
            t->gps = e;
          break;
        case RL_SOURCE_BEACON:
          if (e->n_countries > 0)
            g_ptr_array_add (beacons, (gpointer) e);
          break;
        case RL_SOURCE_TIMEZONE:
          for (guint c = 0; c < e->n_countries; c++)
            tally_get (t, e->countries[c])->pub.timezone = TRUE;
          break;
        default:
          break;
        }
    }

  if (t->gps != NULL)
    {
      if (t->gps->n_countries == 0)
        t->gps_at_sea = TRUE;
      for (guint c = 0; c < t->gps->n_countries; c++)
        {
          Tally *y = tally_get (t, t->gps->countries[c]);
          y->pub.gps = TRUE;
          y->gps_strong = t->gps->n_countries == 1;
        }
    }
  tally_beacons (t, beacons);

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

static gboolean
has_agreement (const RlPolicyParams *p, const Tally *y)
{
  guint deciding = y->pub.witnesses - (y->pub.timezone ? 1 : 0);

  /* the timezone can confirm, never decide */
  return deciding >= 1 && y->pub.witnesses >= MAX (p->min_witnesses, 1) &&
         y->pub.confidence + 1e-9 >= p->confidence_threshold;
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

/* ---- words ----------------------------------------------------------- */

static void
describe_support (GString *s, const Tally *y, const Tallying *t, const char *zone_hint)
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
                              zone_hint ? " " : "", zone_hint ? zone_hint : "");
      first = FALSE;
    }
  if (first)
    g_string_append (s, "nothing");
}

static const char *
find_zone (const RlEvidence *ev, gsize n, gint64 now)
{
  for (gsize i = 0; i < n; i++)
    if (ev[i].kind == RL_SOURCE_TIMEZONE && ev[i].expires_at > now && ev[i].observed_at <= now)
      return ev[i].detail[0] ? ev[i].detail : NULL;
  return NULL;
}

static void
describe_dissent (GString *s, const Tallying *t, RlCountry winner, const RlEvidence *ev, gsize n, gint64 now)
{
  guint shown = 0, total = 0;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (e->kind != RL_SOURCE_BEACON || e->expires_at <= now || e->observed_at > now || e->n_countries == 0)
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

/* ---- the decision ---------------------------------------------------- */

RlDecision *
rl_policy_decide (const RlPolicyParams *params,
                  RlRegulatoryMap regmap,
                  gpointer regmap_data,
                  const RlDecision *previous,
                  const RlEvidence *evidence,
                  gsize n_evidence,
                  gint64 now)
{
  g_autoptr (RlDecision) d = rl_decision_new_initial ();
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GString) line = g_string_new (NULL);
  const RlEvidence *override = NULL;
  Tallying t = { params, regmap, regmap_data, g_array_new (FALSE, TRUE, sizeof (Tally)), NULL, FALSE, 0, 0, 0, NULL };
  RlCountry prev_country = previous ? previous->country : RL_COUNTRY_WORLD;
  RlState prev_state = previous ? previous->state : RL_STATE_WORLD;
  const Tally *best = NULL, *leader = NULL;
  const char *zone = find_zone (evidence, n_evidence, now);
  char cc[3], cc2[3];

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (evidence != NULL || n_evidence == 0, NULL);

  for (gsize i = 0; i < n_evidence; i++)
    if (evidence[i].kind == RL_SOURCE_OVERRIDE && evidence[i].expires_at > now &&
        evidence[i].observed_at <= now && evidence[i].n_countries > 0)
      if (override == NULL || strcmp (evidence[i].key, override->key) < 0)
        override = &evidence[i];

  tally_all (&t, evidence, n_evidence, now);
  g_array_sort (t.tallies, cmp_tally);
  for (guint i = 0; i < t.tallies->len; i++)
    {
      const Tally *y = &g_array_index (t.tallies, Tally, i);
      g_array_append_val (d->candidates, y->pub);
      if (leader == NULL)
        leader = y;
      if (best == NULL && has_agreement (params, y))
        best = y;
    }

  /* Conflict: strong witnesses (a fix far from any border, a beacon
   * consensus, a fix at sea) naming different places. */
  RlCountry strong = RL_COUNTRY_NONE;
  gboolean conflict = FALSE;
  if (t.gps_at_sea)
    strong = RL_COUNTRY_WORLD;
  for (guint i = 0; i < t.tallies->len; i++)
    {
      const Tally *y = &g_array_index (t.tallies, Tally, i);
      if (!y->gps_strong && y->beacon_witnesses == 0)
        continue;
      if (strong != RL_COUNTRY_NONE && strong != y->pub.country)
        conflict = TRUE;
      strong = y->pub.country;
    }

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
                  (params->hold_down_s == 0 || target == prev_country ||
                   now - d->candidate_since >= (gint64) params->hold_down_s * RL_USEC_PER_SEC);

  if (override != NULL)
    {
      RlCountry oc = override->countries[0];
      RlCountry mapped = (oc == RL_COUNTRY_WORLD || regmap == NULL) ? oc : regmap (oc, regmap_data);
      d->state = RL_STATE_OVERRIDE;
      d->confidence = 1.0;
      if (mapped == RL_COUNTRY_NONE)
        {
          d->country = RL_COUNTRY_WORLD;
          d->reason = RL_REASON_NOT_IN_REGDB;
          g_string_append_printf (line, "override %s is not in the regulatory database: 00",
                                  rl_country_to_string (oc, cc));
        }
      else
        {
          d->country = mapped;
          d->reason = RL_REASON_OVERRIDE;
          g_string_append_printf (line, "override by the administrator: %s", rl_country_to_string (mapped, cc));
        }
      g_string_append_printf (why, "An administrator's override (%s) sets %s; evidence is still gathered but does not decide.",
                              override->detail[0] ? override->detail : override->key, rl_country_to_string (d->country, cc));
      if (best != NULL && target != RL_COUNTRY_NONE)
        g_string_append_printf (why, " Without it the evidence would support %s.", rl_country_to_string (target, cc2));
    }
  else if (conflict)
    {
      d->state = RL_STATE_CONFLICT;
      d->reason = RL_REASON_CONFLICT;
      d->confidence = leader ? leader->pub.confidence : 0;
      g_string_append (line, "strong witnesses disagree:");
      g_string_append (why, "Strong witnesses disagree, so regloc stays on the world domain 00.");
      if (t.gps_at_sea)
        {
          g_string_append (line, " GPS at sea");
          g_string_append (why, " The GPS fix is outside every country's waters.");
        }
      for (guint i = 0; i < t.tallies->len; i++)
        {
          const Tally *y = &g_array_index (t.tallies, Tally, i);
          if (!y->gps_strong && y->beacon_witnesses == 0)
            continue;
          g_string_append_printf (line, " %s by %s", rl_country_to_string (y->pub.country, cc),
                                  y->gps_strong ? "GPS" : "beacons");
          g_string_append_printf (why, " For %s: ", cc);
          describe_support (why, y, &t, zone);
          g_string_append (why, ".");
        }
    }
  else if (target != RL_COUNTRY_NONE && held)
    {
      d->country = target;
      d->state = RL_STATE_DECIDED;
      d->reason = RL_REASON_AGREEMENT;
      d->confidence = best->pub.confidence;
      g_string_append_printf (line, "%u witnesses agree on %s", best->pub.witnesses, rl_country_to_string (target, cc));
      g_string_append_printf (why, "Decided %s with confidence %.2f: ", cc, best->pub.confidence);
      describe_support (why, best, &t, zone);
      g_string_append (why, ".");
      if (best->location != best->pub.country)
        g_string_append_printf (why, " %s uses the rules of %s.", rl_country_to_string (best->location, cc2), cc);
      describe_dissent (why, &t, target, evidence, n_evidence, now);
    }
  else if (target != RL_COUNTRY_NONE)
    {
      gint64 until = d->candidate_since + (gint64) params->hold_down_s * RL_USEC_PER_SEC;
      d->state = RL_STATE_TENTATIVE;
      d->confidence = best->pub.confidence;
      d->reason = (prev_state == RL_STATE_DECIDED && prev_country != target) ? RL_REASON_SUPPORT_LOST : RL_REASON_HOLD_DOWN;
      if (d->reason == RL_REASON_SUPPORT_LOST)
        g_string_append_printf (line, "%s lost its support; ", rl_country_to_string (prev_country, cc2));
      g_string_append_printf (line, "%s agreed, holding %.0f s more", rl_country_to_string (target, cc),
                              (double) (until - now) / RL_USEC_PER_SEC);
      g_string_append_printf (why, "Evidence agrees on %s (confidence %.2f: ", cc, best->pub.confidence);
      describe_support (why, best, &t, zone);
      g_string_append_printf (why, "), but agreement must hold for %u s before leaving 00.", params->hold_down_s);
      d->next_check = until;
    }
  else
    {
      d->state = RL_STATE_WORLD;
      d->confidence = leader ? leader->pub.confidence : 0;
      if (best != NULL && best->unmapped)
        {
          d->reason = RL_REASON_NOT_IN_REGDB;
          g_string_append_printf (line, "%s is not in the regulatory database", rl_country_to_string (best->pub.country, cc));
          g_string_append_printf (why, "Evidence agrees on %s, but the installed regulatory database has no rules for it "
                                  "and no territory table entry maps it to another country, so regloc stays on 00.", cc);
        }
      else if (t.gps_at_sea)
        {
          d->reason = RL_REASON_AT_SEA;
          g_string_append (line, "GPS fix at sea");
          g_string_append_printf (why, "%s is outside every country's waters: the world domain 00 applies.",
                                  t.gps->detail[0] ? t.gps->detail : "The GPS fix");
        }
      else if (leader == NULL)
        {
          d->reason = t.n_live > 0 ? RL_REASON_SINGLE_WITNESS : RL_REASON_NO_EVIDENCE;
          g_string_append (line, t.n_live > 0 ? "no usable evidence" : "no evidence");
          g_string_append (why, t.n_live > 0 ? "No live evidence names a usable country: staying on 00."
                                             : "No evidence: staying on the world domain 00.");
        }
      else
        {
          rl_country_to_string (leader->pub.country, cc);
          if (leader->pub.timezone && leader->pub.witnesses == 1)
            d->reason = RL_REASON_TIMEZONE_ONLY;
          else if (leader->pub.witnesses < MAX (params->min_witnesses, 1) || leader->pub.witnesses == (leader->pub.timezone ? 1u : 0u))
            d->reason = RL_REASON_SINGLE_WITNESS;
          else
            d->reason = RL_REASON_BELOW_THRESHOLD;
          if (d->reason == RL_REASON_TIMEZONE_ONLY)
            g_string_append_printf (line, "only the timezone points to %s", cc);
          else if (d->reason == RL_REASON_SINGLE_WITNESS)
            g_string_append_printf (line, "%s has %u witness%s, %u needed", cc, leader->pub.witnesses,
                                    leader->pub.witnesses == 1 ? "" : "es", params->min_witnesses);
          else
            g_string_append_printf (line, "%s confidence %.2f below %.2f", cc, leader->pub.confidence,
                                    params->confidence_threshold);
          g_string_append_printf (why, "Staying on 00. The best candidate is %s with %u witness%s (confidence %.2f): ",
                                  cc, leader->pub.witnesses, leader->pub.witnesses == 1 ? "" : "es", leader->pub.confidence);
          describe_support (why, leader, &t, zone);
          g_string_append_printf (why, ". Leaving 00 needs %u independent witnesses, at least one besides the timezone, "
                                  "and confidence %.2f.", params->min_witnesses, params->confidence_threshold);
        }
      if (prev_state == RL_STATE_DECIDED)
        {
          d->reason = RL_REASON_SUPPORT_LOST;
          g_string_prepend (line, "; ");
          g_string_prepend (line, rl_country_to_string (prev_country, cc2));
          g_string_prepend (line, "lost support for ");
        }
    }

  /* The next instant anything can change without new evidence. */
  for (gsize i = 0; i < n_evidence; i++)
    {
      gint64 at = evidence[i].expires_at > now ? evidence[i].expires_at : RL_NEVER;
      if (evidence[i].observed_at > now)
        at = MIN (at, evidence[i].observed_at);
      d->next_check = MIN (d->next_check, at);
    }

  d->changed_at = (previous && previous->country == d->country && previous->state == d->state) ? previous->changed_at : now;
  g_free (d->explanation);
  d->explanation = g_string_free (g_steal_pointer (&why), FALSE);
  g_free (d->summary);
  d->summary = g_string_free (g_steal_pointer (&line), FALSE);
  g_array_unref (t.tallies);
  return g_steal_pointer (&d);
}
