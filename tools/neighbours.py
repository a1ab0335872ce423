#!/usr/bin/env python3
"""Which countries touch, by land or by their territorial waters: the C table
the policy compiles in (core/neighbours.c, docs/policy.md rule 12).

  neighbours.py BOUNDARIES.geo.json.xz ISO_3166-1.json OUT.h

The boundary data shipped in data/boundaries (OpenStreetMap, ODbL) holds one
feature per country with its territorial sea.  Two countries are neighbours
when their features' outlines come within about two cells of a 0.02° grid
(2–4 km) of each other.  Sea borders count: 12 nautical miles of water on
each side put Tarifa and Tangier, Dover and Calais, Douglas and the Mull of
Galloway within a mast's reach; Copenhagen and Nuuk are not.

A sovereign's feature also covers its territories (France covers Réunion),
so it is listed beside the territories' neighbours too: more neighbours
only ever mean fewer conflicts.  Where the sovereign touches a country only
through such a part (France touches Brazil only in French Guiana), the
table says which.  A polygon of the sovereign's feature is a territory's
part when ISO 3166-2 lists that territory under the sovereign (the same
relation as tools/iso-territories.py, from iso_3166-2.json beside
ISO_3166-1.json) and most of the polygon's box lies in the territory's
feature's box.  Features with only an alpha-3 code (BES,
CUW, SXM) take their alpha-2 code from Debian's iso-codes.  Every country
of the data is listed, with or without neighbours: a code the table does
not list is one the data does not know (the policy then assumes nothing).
"""
import importlib.util
import json
import lzma
import math
import os
import sys

CELL = 0.02


def polygons_of(geometry):
    kind = geometry['type']
    if kind == 'GeometryCollection':
        for g in geometry['geometries']:
            yield from polygons_of(g)
    elif kind == 'Polygon':
        yield geometry['coordinates']
    elif kind == 'MultiPolygon':
        yield from geometry['coordinates']


def box_of(ring):
    lons = [p[0] for p in ring]
    lats = [p[1] for p in ring]
    return (min(lats), min(lons), max(lats), max(lons))


def box_area(box):
    return (box[2] - box[0]) * (box[3] - box[1])


def part_of(code, box, feature_boxes, territories):
    """The territory of @code (ISO 3166-2) whose feature lies in @box (the
    box of one polygon of @code's feature: the territory with its waters),
    None when none does (@code itself), '?' when the box holds much of two
    (one polygon for Puerto Rico and the US Virgin Islands)."""
    shares = []
    s, w, n, e = box
    for place, sovereign in territories.items():
        if sovereign != code or place not in feature_boxes:
            continue
        s2, w2, n2, e2 = feature_boxes[place]
        area = max(box_area((s2, w2, n2, e2)), 1e-6)
        if box_area(box) > 25 * area:
            continue
        common = max(0.0, min(n, n2) - max(s, s2)) * max(0.0, min(e, e2) - max(w, w2))
        shares.append((common / area, place))
    shares.sort(reverse=True)
    if not shares or shares[0][0] < 0.8:
        return None
    if len(shares) > 1 and shares[1][0] >= 0.25:
        return '?'
    return shares[0][1]


def outline_cells(polygons, code, feature_boxes, territories, cells, rings):
    """Marks the grid cells @code's outlines pass, each with the part of
    the feature it belongs to (None: the country itself)."""
    for polygon in polygons:
        box = box_of(polygon[0])
        rings.append((code, box, polygon[0]))
        tag = (code, part_of(code, box, feature_boxes, territories))
        for ring in polygon:
            last = None
            prev = ring[-1]
            for lon, lat in ring:
                # long straight edges cross cells between their ends
                steps = int(max(abs(lon - prev[0]), abs(lat - prev[1])) / (CELL / 2))
                for k in range(steps, -1, -1):
                    f = k / (steps + 1)
                    key = (math.floor((lat + (prev[1] - lat) * f) / CELL),
                           math.floor((lon + (prev[0] - lon) * f) / CELL))
                    if key != last:
                        cells.setdefault(key, set()).add(tag)
                        last = key
                prev = (lon, lat)


def inside(lat, lon, ring):
    hit = False
    j = len(ring) - 1
    for i in range(len(ring)):
        xi, yi = ring[i]
        xj, yj = ring[j]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            hit = not hit
        j = i
    return hit


def contained_pairs(rings):
    """Countries one of whose polygons lies inside another's (Hong Kong in
    China's feature, Guam in the United States'): their shared border runs
    inside the larger feature, where no outline of it passes."""
    by_country = {}
    for code, box, ring in rings:
        by_country.setdefault(code, []).append((box, ring))
    # each country's box around all its polygons: most are far from a point
    boxes = {code: (min(b[0] for b, _ in rs), min(b[1] for b, _ in rs),
                    max(b[2] for b, _ in rs), max(b[3] for b, _ in rs))
             for code, rs in by_country.items()}
    pairs = set()
    for code, _, ring in rings:
        # a few points spread along the outline: some lie on the shared
        # sea edge, where inside or out is a matter of rounding
        for lon, lat in ring[::max(1, len(ring) // 3)]:
            for other, (s, w, n, e) in boxes.items():
                if (other == code or (min(code, other), max(code, other)) in pairs or
                        not (s <= lat <= n and w <= lon <= e)):
                    continue
                for (s2, w2, n2, e2), ring2 in by_country[other]:
                    if s2 <= lat <= n2 and w2 <= lon <= e2 and inside(lat, lon, ring2):
                        pairs.add((min(code, other), max(code, other)))
                        break
    return pairs


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__)
    with lzma.open(argv[1], 'rt', encoding='utf-8') as f:
        data = json.load(f)
    with open(argv[2], encoding='utf-8') as f:
        alpha3 = {c['alpha_3']: c['alpha_2'] for c in json.load(f)['3166-1']}
    cells = {}
    rings = []
    features = {}
    for feature in data['features']:
        props = feature.get('properties') or {}
        code = props.get('isoA2') or alpha3.get(props.get('isoA3', ''))
        if code is None or len(code) != 2 or not code.isalpha() or not code.isupper():
            raise SystemExit(f'{argv[1]}: a feature without an ISO 3166-1 code: {props!r}')
        features.setdefault(code, []).extend(polygons_of(feature['geometry']))
    countries = set(features)
    feature_boxes = {}
    for code, polygons in features.items():
        boxes = [box_of(p[0]) for p in polygons]
        feature_boxes[code] = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                               max(b[2] for b in boxes), max(b[3] for b in boxes))
    spec = importlib.util.spec_from_file_location(
        'iso_territories', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'iso-territories.py'))
    iso_territories = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(iso_territories)
    try:
        rows = iso_territories.read_territories(os.path.dirname(os.path.abspath(argv[2])))
    except ValueError as e:
        raise SystemExit(f'neighbours.py: {e}')
    territories = {place: row[0] for place, row in rows.items()}
    for code, polygons in features.items():
        outline_cells(polygons, code, feature_boxes, territories, cells, rings)
    pairs = contained_pairs(rings)
    # (country, sovereign) -> the parts of the sovereign's feature the
    # country touches; None among them: the sovereign itself
    touches = {}
    for (a, b), here in cells.items():
        near = set()
        for da in (-1, 0, 1):
            for db in (-1, 0, 1):
                near |= cells.get((a + da, b + db), set())
        for x, x_part in here:
            for y, y_part in near:
                if x < y:
                    pairs.add((x, y))
                if x != y and x_part is None:
                    touches.setdefault((x, y), set()).add(y_part)
    # only through one part (the territories' own features may hold their
    # land only: Guadeloupe's does not reach Dominica, France's part does)
    vias = sorted((x, y, next(iter(parts))) for (x, y), parts in touches.items()
                  if None not in parts and '?' not in parts and len(parts) == 1 and x not in parts)
    if ('BR', 'FR', 'GF') not in vias:
        raise SystemExit(f'{argv[1]}: Brazil does not touch France only in French Guiana: not the data this script knows')
    if len(countries) < 200 or len(pairs) < 300:
        raise SystemExit(f'{argv[1]}: only {len(countries)} countries and {len(pairs)} pairs: not the boundary data')

    def c_code(code):
        return f"RL_COUNTRY ('{code[0]}', '{code[1]}')"

    with open(argv[3], 'w', encoding='utf-8') as out:
        out.write('/* Generated by tools/neighbours.py from data/boundaries (map data\n'
                  ' * (c) OpenStreetMap contributors, ODbL 1.0).  Do not edit. */\n')
        out.write('static const RlCountry neighbour_countries[] = {\n')
        for code in sorted(countries):
            out.write(f'  {c_code(code)},\n')
        out.write('};\n\n/* (a, b) with a < b, sorted */\nstatic const RlCountry neighbour_pairs[][2] = {\n')
        for x, y in sorted(pairs):
            out.write(f'  {{ {c_code(x)}, {c_code(y)} }},\n')
        out.write('};\n\n/* (country, sovereign, part): the country touches the sovereign only\n'
                  ' * through that part of its feature; sorted */\n'
                  'static const RlCountry neighbour_vias[][3] = {\n')
        for x, y, part in vias:
            out.write(f'  {{ {c_code(x)}, {c_code(y)}, {c_code(part)} }},\n')
        out.write('};\n')


if __name__ == '__main__':
    main(sys.argv)
