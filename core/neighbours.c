#include "core/neighbours.h"

#include <stdlib.h>

#include "core/neighbours-table.h"

static int
cmp_country (const void *a, const void *b)
{
  RlCountry x = *(const RlCountry *) a, y = *(const RlCountry *) b;

  return x < y ? -1 : (x > y ? 1 : 0);
}

static int
cmp_pair (const void *a, const void *b)
{
  const RlCountry *x = a, *y = b;

  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : (x[1] > y[1] ? 1 : 0);
}

gboolean
rl_neighbours_know (RlCountry country)
{
  return bsearch (&country, neighbour_countries, G_N_ELEMENTS (neighbour_countries), sizeof neighbour_countries[0],
                  cmp_country) != NULL;
}

gboolean
rl_countries_within_reach (RlCountry a, RlCountry b)
{
  RlCountry key[2] = { MIN (a, b), MAX (a, b) };

  if (a == b || !rl_neighbours_know (a) || !rl_neighbours_know (b))
    return TRUE;
  return bsearch (key, neighbour_pairs, G_N_ELEMENTS (neighbour_pairs), sizeof neighbour_pairs[0], cmp_pair) != NULL;
}

RlCountry
rl_neighbours_only_through (RlCountry country, RlCountry sovereign)
{
  RlCountry key[2] = { country, sovereign };
  const RlCountry *via = bsearch (key, neighbour_vias, G_N_ELEMENTS (neighbour_vias), sizeof neighbour_vias[0],
                                  cmp_pair);

  return via != NULL ? via[2] : RL_COUNTRY_NONE;
}
