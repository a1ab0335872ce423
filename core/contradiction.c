#include "core/contradiction.h"

#include <math.h>
#include <string.h>

gboolean
rl_gps_is_airborne (const RlPolicyParams *p, const RlEvidence *gps)
{
  if (gps == NULL || (gps->gps.flags & RL_GPS_INFO_UNTRUSTED))
    return FALSE;
  /* both must be known: a car on a mountain pass is high, a train is fast */
  return isfinite (gps->gps.altitude_m) && isfinite (gps->gps.speed_mps) &&
         gps->gps.altitude_m > p->airborne_min_altitude_m &&
         gps->gps.speed_mps * 3.6 > p->airborne_min_speed_kmh;
}

const RlEvidence *
rl_contradiction_gps (const RlPolicyParams *p, const RlEvidence *ev, gsize n, gint64 now)
{
  const RlEvidence *gps = NULL;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (e->kind != RL_SOURCE_GPS || e->expires_at <= now || e->observed_at > now || e->strength <= 0 ||
          e->gps.error_m > p->gps_max_error_m || (e->gps.flags & RL_GPS_INFO_UNTRUSTED))
        continue;
      if (gps == NULL || e->observed_at > gps->observed_at ||
          (e->observed_at == gps->observed_at && strcmp (e->key, gps->key) < 0))
        gps = e;
    }
  return gps;
}

static int
cmp_suspect (gconstpointer a, gconstpointer b)
{
  return strcmp (((const RlSuspect *) a)->key, ((const RlSuspect *) b)->key);
}

static const RlSuspect *
find (const GArray *suspects, const char *key)
{
  RlSuspect probe;

  if (suspects == NULL || suspects->len == 0)
    return NULL;
  g_strlcpy (probe.key, key, sizeof probe.key);
  return bsearch (&probe, suspects->data, suspects->len, sizeof (RlSuspect), cmp_suspect);
}

gboolean
rl_contradiction_is_suspect (const GArray *suspects, const RlEvidence *beacon)
{
  const RlSuspect *s = find (suspects, beacon->key);

  return s != NULL && beacon->n_countries > 0 && s->named == beacon->countries[0];
}

/* A beacon item that stands at @now. */
static gboolean
live_beacon (const RlEvidence *e, gint64 now)
{
  return e->kind == RL_SOURCE_BEACON && e->expires_at > now && e->observed_at <= now;
}

static gboolean
is_live_beacon (const RlEvidence *ev, gsize n, const char *key, gint64 now)
{
  for (gsize i = 0; i < n; i++)
    if (live_beacon (&ev[i], now) && strcmp (ev[i].key, key) == 0)
      return TRUE;
  return FALSE;
}

/* The suspects of @previous whose beacon is no longer live: kept in @out
 * until max_age_beacons after they were last heard, unless @inside (a fix
 * inside one country) confirms the country they named. */
static void
remember_gone (const RlPolicyParams *p, RlAgreeFunc agree, gpointer agree_data, const GArray *previous,
               const RlEvidence *ev, gsize n, gint64 now, const RlEvidence *inside, GArray *out)
{
  gint64 keep_us = (gint64) p->max_age_s[RL_SOURCE_BEACON] * RL_USEC_PER_SEC;

  for (guint i = 0; previous != NULL && i < previous->len; i++)
    {
      const RlSuspect *s = &g_array_index (previous, RlSuspect, i);
      if (now - s->heard_at >= keep_us || is_live_beacon (ev, n, s->key, now) ||
          (inside != NULL && agree (s->named, inside->countries[0], agree_data)))
        continue;
      g_array_append_val (out, *s);
    }
}

GArray *
rl_contradiction_update (const RlPolicyParams *p, RlAgreeFunc agree, gpointer agree_data,
                         const GArray *previous, const RlEvidence *ev, gsize n, gint64 now)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RlSuspect));
  const RlEvidence *gps = rl_contradiction_gps (p, ev, n, now);
  gboolean airborne = rl_gps_is_airborne (p, gps);
  gboolean inside_one = gps != NULL && gps->n_countries == 1;

  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      RlSuspect s;
      gboolean suspect;

      if (!live_beacon (e, now) || e->n_countries == 0)
        continue;
      suspect = rl_contradiction_is_suspect (previous, e);
      if (airborne)
        suspect = TRUE;   /* aboard: whatever the cabin's APs name, it is not where we are */
      else if (inside_one)
        suspect = !agree (e->countries[0], gps->countries[0], agree_data);
      if (!suspect)
        continue;
      memset (&s, 0, sizeof s);
      g_strlcpy (s.key, e->key, sizeof s.key);
      s.named = e->countries[0];
      s.heard_at = e->observed_at;
      g_array_append_val (out, s);
    }
  remember_gone (p, agree, agree_data, previous, ev, n, now, inside_one ? gps : NULL, out);
  /* keys are unique in an evidence set; sorted, the result does not depend
   * on the order of the evidence */
  g_array_sort (out, cmp_suspect);
  return out;
}
