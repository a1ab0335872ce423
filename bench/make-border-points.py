#!/usr/bin/env python3
"""Writes points concentrated near borders for the process-level lookup
benchmark: a random vertex of the boundary source data (a border between
countries or the edge of a country's waters), moved in a random direction
by a random distance of up to 5 km.  Deterministic (seed 42).

Usage: make-border-points.py BOUNDARIES.geo.json OUT [N]   (default 350,000)
"""
import json
import math
import random
import sys

src, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 350000
rnd = random.Random(42)

vertices = []
with open(src) as f:
    data = json.load(f)


def add(geom):
    kind = geom.get("type")
    if kind == "GeometryCollection":
        for g in geom["geometries"]:
            add(g)
        return
    polys = geom.get("coordinates", [])
    if kind == "Polygon":
        polys = [polys]
    elif kind != "MultiPolygon":
        return
    for poly in polys:
        for ring in poly:
            vertices.extend(ring)


for feat in data["features"]:
    add(feat.get("geometry") or {})
del data

R = 6371008.8
with open(out, "w") as f:
    for _ in range(n):
        lon, lat = rnd.choice(vertices)[:2]
        d = rnd.uniform(0, 5000)
        a = rnd.uniform(0, 2 * math.pi)
        lat2 = lat + math.degrees(d * math.cos(a) / R)
        lon2 = lon + math.degrees(d * math.sin(a) / (R * max(math.cos(math.radians(lat)), 0.01)))
        lat2 = max(-90.0, min(90.0, lat2))
        lon2 = (lon2 + 180.0) % 360.0 - 180.0
        f.write("%.6f %.6f\n" % (lat2, lon2))
