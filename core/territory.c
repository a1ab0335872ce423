/* Territories and their sovereigns: the table and the attribution rule.
 * See territory.h and docs/territories.md. */
#include "core/territory.h"

#include <string.h>
#include "core/neighbours.h"
#include "core/paths.h"

G_DEFINE_QUARK (rl-territory-error-quark, rl_territory_error)

typedef struct {
  RlCountry sovereign;
  char *kind;
} Entry;

struct RlTerritories {
  GHashTable *places;   /* RlCountry → Entry* */
};

static void
entry_free (gpointer p)
{
  Entry *e = p;
  g_free (e->kind);
  g_free (e);
}

RlTerritories *
rl_territories_new_from_text (const char *text, const char *name, GError **error)
{
  g_autoptr (RlTerritories) t = g_new0 (RlTerritories, 1);
  g_auto (GStrv) lines = NULL;

  g_return_val_if_fail (text != NULL && name != NULL, NULL);
  t->places = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, entry_free);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) cols = NULL;
      RlCountry place, sovereign;
      Entry *e;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      cols = g_strsplit (lines[i], "\t", 4);
      if (g_strv_length (cols) < 3 || !rl_country_parse (cols[0], &place) || !rl_country_parse (cols[1], &sovereign) ||
          place == RL_COUNTRY_WORLD || sovereign == RL_COUNTRY_WORLD || place == sovereign || cols[2][0] == '\0')
        {
          g_set_error (error, RL_TERRITORY_ERROR, RL_TERRITORY_ERROR_PARSE,
                       "%s:%u: expected PLACE<TAB>SOVEREIGN<TAB>type[<TAB>name] (two different ISO codes)", name, i + 1);
          return NULL;
        }
      if (g_hash_table_contains (t->places, GUINT_TO_POINTER ((guint) place)))
        {
          g_set_error (error, RL_TERRITORY_ERROR, RL_TERRITORY_ERROR_PARSE, "%s:%u: %s is listed twice", name, i + 1, cols[0]);
          return NULL;
        }
      e = g_new0 (Entry, 1);
      e->sovereign = sovereign;
      e->kind = g_strdup (cols[2]);
      g_hash_table_insert (t->places, GUINT_TO_POINTER ((guint) place), e);
    }
  return g_steal_pointer (&t);
}

RlTerritories *
rl_territories_load (const char *path, GError **error)
{
  g_autofree char *p = rl_data_path (RL_DATA_TERRITORY_SOVEREIGNS, path);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (p, &text, NULL, error))
    return NULL;
  return rl_territories_new_from_text (text, p, error);
}

void
rl_territories_free (RlTerritories *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->places);
  g_free (t);
}

guint
rl_territories_size (const RlTerritories *t)
{
  return g_hash_table_size (t->places);
}

RlCountry
rl_territories_sovereign (const RlTerritories *t, RlCountry place)
{
  const Entry *e = t ? g_hash_table_lookup (t->places, GUINT_TO_POINTER ((guint) place)) : NULL;

  return e ? e->sovereign : RL_COUNTRY_NONE;
}

const char *
rl_territories_kind (const RlTerritories *t, RlCountry place)
{
  const Entry *e = t ? g_hash_table_lookup (t->places, GUINT_TO_POINTER ((guint) place)) : NULL;

  return e ? e->kind : NULL;
}

/* ---- attribution ------------------------------------------------------ */

static gboolean
live (const RlEvidence *e, gint64 now)
{
  return e->observed_at <= now && e->expires_at > now;
}

/* The one territory @ev (a fix or a zone) names whose sovereign it does not
 * name too; @primary_only: only its first country (a zone's zone.tab entry). */
static RlCountry
place_named (const RlTerritories *t, const RlEvidence *ev, gboolean primary_only)
{
  RlCountry place = RL_COUNTRY_NONE;

  for (guint i = 0; i < (primary_only ? MIN (ev->n_countries, 1u) : ev->n_countries); i++)
    {
      RlCountry sovereign = rl_territories_sovereign (t, ev->countries[i]);

      if (sovereign == RL_COUNTRY_NONE || rl_evidence_has_country (ev, sovereign))
        continue;
      if (place != RL_COUNTRY_NONE && place != ev->countries[i])
        return RL_COUNTRY_NONE;   /* two territories: no single place */
      place = ev->countries[i];
    }
  return place;
}

/* The one territory a modem's network @cell reaches of a sovereign the
 * live access points name, where the network's country touches that
 * sovereign only there: Vivo (BR) beside access points saying FR places
 * the machine in French Guiana, the only French land a Brazilian mast
 * reaches.  @from: the network's country. */
static RlCountry
place_reached (const RlTerritories *t, const RlEvidence *cell, const RlEvidence *ev, gsize n, gint64 now,
               RlCountry *from)
{
  RlCountry place = RL_COUNTRY_NONE;

  for (gsize i = 0; i < n; i++)
    {
      RlCountry sovereign;

      if (ev[i].kind != RL_SOURCE_BEACON || ev[i].n_countries == 0 || !live (&ev[i], now))
        continue;
      sovereign = ev[i].countries[0];
      if (rl_evidence_has_country (cell, sovereign))
        continue;
      for (guint k = 0; k < cell->n_countries; k++)
        {
          RlCountry part = rl_neighbours_only_through (cell->countries[k], sovereign);

          if (part == RL_COUNTRY_NONE || rl_territories_sovereign (t, part) != sovereign)
            continue;
          if (place != RL_COUNTRY_NONE && place != part)
            return RL_COUNTRY_NONE;   /* two places */
          place = part;
          *from = cell->countries[k];
        }
    }
  return place;
}

/* The one territory the masts of a network the provider list does not know
 * (or of a code it knows, a network it does not carry) can be in beside
 * access points of its sovereign: the countries of the known codes next to
 * it (RlEvidence.cell.near) are one territory, or each that touches the
 * sovereign touches it only there (SPM Télécom, 308-01, between Canada's
 * and the US's codes, beside French routers: Saint-Pierre-et-Miquelon; an
 * unlisted network of 647, the code of Réunion's networks: Réunion). */
static RlCountry
place_of_code (const RlTerritories *t, const RlEvidence *cell, const RlEvidence *ev, gsize n, gint64 now,
               RlCountry *from)
{
  RlEvidence region = *cell;
  RlCountry place, sovereign;

  region.n_countries = 0;
  for (guint i = 0; i < cell->cell.n_near; i++)
    rl_evidence_add_country (&region, cell->cell.near[i]);
  if (region.n_countries == 0)
    return RL_COUNTRY_NONE;
  place = place_named (t, &region, FALSE);
  if (place != RL_COUNTRY_NONE)
    return place;
  place = place_reached (t, &region, ev, n, now, from);
  sovereign = rl_territories_sovereign (t, place);
  /* a country of the region that reaches the sovereign elsewhere too may
   * have a mast beside its mainland */
  for (guint i = 0; place != RL_COUNTRY_NONE && i < region.n_countries; i++)
    if (rl_neighbours_know (region.countries[i]) && rl_countries_within_reach (region.countries[i], sovereign) &&
        rl_neighbours_only_through (region.countries[i], sovereign) != place)
      return RL_COUNTRY_NONE;
  return place;
}

/* The territory one modem's network @cell places the machine in, if any;
 * @from: the network's country when it places it by reach; @by_code: set
 * when the place comes from the region of a code the list does not know. */
static RlCountry
cell_place (const RlTerritories *t, const RlEvidence *cell, const RlEvidence *ev, gsize n, gint64 now,
            RlCountry *from, gboolean *by_code)
{
  RlCountry c, ignored;

  *from = RL_COUNTRY_NONE;
  if (cell->n_countries == 0)
    {
      c = place_of_code (t, cell, ev, n, now, &ignored);
      *by_code |= c != RL_COUNTRY_NONE;
      return c;
    }
  /* a network listed for several places (Sure, 234-55: Guernsey and the
   * Isle of Man) places the machine in none of them */
  c = cell->n_countries == 1 ? place_named (t, cell, FALSE) : RL_COUNTRY_NONE;
  if (c == RL_COUNTRY_NONE)
    c = place_reached (t, cell, ev, n, now, from);
  return c;
}

/* Where the live evidence puts the machine: the newest usable fix decides
 * when there is one (whatever it names); else a modem on a territory's own
 * network (SFR Réunion, 647-10: a mast reaches kilometres, not the ocean
 * to the sovereign), or on a network of a country that touches the
 * sovereign only in one territory, which says more of the place than a
 * clock set at home; else the timezone.  @from: that network's country
 * when it placed the machine so, else RL_COUNTRY_NONE. */
static RlCountry
find_place (const RlTerritories *t, const RlEvidence *ev, gsize n, gint64 now, double gps_max_error_m,
            RlCountry last_fix_place, const char **by, gboolean *by_fix, RlCountry *from)
{
  const RlEvidence *gps = NULL, *zone = NULL;
  RlCountry by_cell = RL_COUNTRY_NONE, cell_from = RL_COUNTRY_NONE;
  gboolean cells_differ = FALSE, by_code = FALSE;

  *from = RL_COUNTRY_NONE;
  *by_fix = FALSE;
  for (gsize i = 0; i < n; i++)
    {
      const RlEvidence *e = &ev[i];
      if (!live (e, now))
        continue;
      if (e->kind == RL_SOURCE_CELL && (e->n_countries > 0 || e->cell.unknown || e->cell.unlisted))
        {
          RlCountry from_here;
          RlCountry c = cell_place (t, e, ev, n, now, &from_here, &by_code);
          if (c == RL_COUNTRY_NONE && e->n_countries == 0)
            continue;   /* a code whose region places nobody says nothing */
          if (by_cell != RL_COUNTRY_NONE && c != by_cell)
            cells_differ = TRUE;
          by_cell = c;
          cell_from = from_here;
          continue;
        }
      if (e->kind == RL_SOURCE_GPS && e->n_countries > 0 && e->gps.error_m <= gps_max_error_m && e->strength > 0 &&
          (gps == NULL || e->observed_at > gps->observed_at ||
           (e->observed_at == gps->observed_at && strcmp (e->key, gps->key) < 0)))
        gps = e;
      else if (e->kind == RL_SOURCE_TIMEZONE && e->n_countries > 0 &&
               (zone == NULL || e->observed_at > zone->observed_at ||
                (e->observed_at == zone->observed_at && strcmp (e->key, zone->key) < 0)))
        zone = e;
    }
  if (gps != NULL)
    {
      *by = "GPS fix";
      *by_fix = TRUE;
      return place_named (t, gps, FALSE);
    }
  /* a fix lost indoors: the island is where it left the machine */
  if (last_fix_place != RL_COUNTRY_NONE && rl_territories_sovereign (t, last_fix_place) != RL_COUNTRY_NONE)
    {
      *by = "last GPS fix";
      *by_fix = TRUE;
      return last_fix_place;
    }
  if (by_cell != RL_COUNTRY_NONE && !cells_differ)
    {
      /* a code's region: the masts can be nowhere else of the sovereign */
      *by = by_code ? "mobile network's code" : "mobile network";
      *from = cell_from;
      return by_cell;
    }
  *by = "timezone";
  if (zone != NULL)
    {
      RlCountry place = place_named (t, zone, TRUE);

      /* a modem on the sovereign's own network says more than a clock set
       * at home: a Manx laptop in Liverpool on a UK network stays GB */
      for (gsize i = 0; place != RL_COUNTRY_NONE && i < n; i++)
        if (ev[i].kind == RL_SOURCE_CELL && live (&ev[i], now) &&
            rl_evidence_has_country (&ev[i], rl_territories_sovereign (t, place)) &&
            !rl_evidence_has_country (&ev[i], place))
          return RL_COUNTRY_NONE;
      return place;
    }
  return RL_COUNTRY_NONE;
}

RlEvidence *
rl_territory_attribute (const RlTerritories *t, const RlEvidence *evidence, gsize n_evidence,
                        gint64 now, double gps_max_error_m, RlCountry last_fix_place, RlTerritoryShift *shift)
{
  RlTerritoryShift none = { RL_COUNTRY_NONE, RL_COUNTRY_NONE, 0, NULL, RL_COUNTRY_NONE, RL_COUNTRY_NONE, "" };
  RlEvidence *copy = NULL;
  RlCountry place, sovereign, from = RL_COUNTRY_NONE;
  const char *by = NULL;
  gboolean by_fix;

  g_return_val_if_fail (shift != NULL, NULL);
  *shift = none;
  if (t == NULL || n_evidence == 0)
    return NULL;
  place = find_place (t, evidence, n_evidence, now, gps_max_error_m, last_fix_place, &by, &by_fix, &from);
  if (place == RL_COUNTRY_NONE)
    return NULL;
  /* kept even when no access point moves now: they may be missed by a scan */
  if (by_fix)
    shift->fix_place = place;
  sovereign = rl_territories_sovereign (t, place);
  for (gsize i = 0; i < n_evidence; i++)
    {
      const RlEvidence *e = &evidence[i];
      if (e->kind != RL_SOURCE_BEACON || e->n_countries == 0 || e->countries[0] != sovereign)
        continue;
      if (copy == NULL)
        copy = g_memdup2 (evidence, n_evidence * sizeof *evidence);
      copy[i].countries[0] = place;
      if (live (e, now))
        shift->n_beacons++;
    }
  if (copy != NULL)
    {
      shift->place = place;
      shift->sovereign = sovereign;
      shift->by = by;
      shift->network_of = from;
      g_strlcpy (shift->kind, rl_territories_kind (t, place), sizeof shift->kind);
    }
  return copy;
}

char *
rl_territory_shift_describe (const RlTerritoryShift *shift)
{
  char p[3], s[3];
  g_autofree char *kind = NULL;

  if (shift->place == RL_COUNTRY_NONE || shift->n_beacons == 0)
    return NULL;
  rl_country_to_string (shift->place, p);
  rl_country_to_string (shift->sovereign, s);
  kind = g_ascii_strdown (shift->kind, -1);
  if (g_str_has_prefix (shift->kind, RL_TERRITORY_NUMBERED_KIND))
    return g_strdup_printf ("%u access point%s advertising %s count%s for %s: the provider list numbers %s's mobile "
                            "networks under %s's country code %s, and the %s places the machine there.",
                            shift->n_beacons, shift->n_beacons == 1 ? "" : "s", s, shift->n_beacons == 1 ? "s" : "",
                            p, p, s, shift->kind + strlen (RL_TERRITORY_NUMBERED_KIND), shift->by);
  if (shift->network_of != RL_COUNTRY_NONE)
    {
      char f[3];

      rl_country_to_string (shift->network_of, f);
      return g_strdup_printf ("%u access point%s advertising %s count%s for %s: ISO 3166-2 lists %s as %s-%s (%s of %s), "
                              "and the mobile network, of %s, reaches %s only there.",
                              shift->n_beacons, shift->n_beacons == 1 ? "" : "s", s, shift->n_beacons == 1 ? "s" : "",
                              p, p, s, p, kind, s, f, s);
    }
  return g_strdup_printf ("%u access point%s advertising %s count%s for %s: ISO 3166-2 lists %s as %s-%s (%s of %s) "
                          "and the %s places the machine there.",
                          shift->n_beacons, shift->n_beacons == 1 ? "" : "s", s, shift->n_beacons == 1 ? "s" : "",
                          p, p, s, p, kind, s, shift->by);
}

void
rl_territory_note (const RlTerritoryShift *shift, char **explanation)
{
  g_autofree char *note = rl_territory_shift_describe (shift);
  char *joined;

  if (note == NULL)
    return;
  joined = g_strconcat (*explanation ? *explanation : "", *explanation && **explanation ? " " : "", note, NULL);
  g_free (*explanation);
  *explanation = joined;
}
