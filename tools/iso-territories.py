#!/usr/bin/env python3
"""Writes the territory -> sovereign table regloc reads at run time.

    iso-territories.py ISO_CODES_JSON_DIR OUTPUT.tsv

Input: iso_3166-1.json and iso_3166-2.json of Debian's iso-codes package
(LGPL-2.1-or-later data).  A place is a territory of a sovereign when ISO
3166-2 lists it as a subdivision of that country whose code part is itself
an ISO 3166-1 alpha-2 code (US-PR, FR-RE) and whose type says it is an
overseas region, department, collectivity or territory, or an outlying area.

Everything else is left out on purpose, by type:
  - "Special administrative region" (CN-HK, CN-MO): their own regulators.
  - "Country" (NL-AW, NL-CW, NL-SX): constituent countries of the Kingdom of
    the Netherlands with their own telecommunications law.
  - "Province" (CN-TW) and every ordinary subdivision whose code merely
    looks like a country code (US-CA California, CH-BE Bern, BQ-SE Sint
    Eustatius, ...).
See docs/territories.md.
"""
import json
import os
import sys

# Subdivision types (as iso-codes spells them, compared case-insensitively)
# that make the subdivision a territory of its country.
TERRITORY_TYPES = {
    "outlying area",                              # US: AS GU MP PR UM VI
    "overseas region",                            # FR: GF GP MQ RE YT
    "overseas department",                        # older iso-codes releases
    "overseas collectivity",                      # FR: BL MF PF PM WF
    "overseas collectivity with special status",  # FR: NC
    "overseas territorial collectivity",          # older iso-codes releases
    "overseas territory",                         # FR: TF
}
# Never, whatever a future release calls them (see above).
EXCLUDED_TYPES = {"special administrative region", "country"}
# A release that lists none of these has changed beyond what this script knows.
MUST_HAVE = {("PR", "US"), ("RE", "FR")}


def read_territories(src):
    """{place: (sovereign, type, name)} from the iso-codes JSON in @src;
    raises ValueError when the data is not what this script knows."""
    with open(os.path.join(src, "iso_3166-1.json"), encoding="utf-8") as f:
        alpha2 = {c["alpha_2"] for c in json.load(f)["3166-1"]}
    with open(os.path.join(src, "iso_3166-2.json"), encoding="utf-8") as f:
        subdivisions = json.load(f)["3166-2"]

    rows = {}
    for s in subdivisions:
        parent, _, part = s["code"].partition("-")
        kind = s.get("type", "").strip()
        if parent not in alpha2 or part not in alpha2 or part == parent:
            continue
        if kind.lower() in EXCLUDED_TYPES or kind.lower() not in TERRITORY_TYPES:
            continue
        if part in rows and rows[part][0] != parent:
            raise ValueError("%s listed under %s and %s" % (part, rows[part][0], parent))
        rows[part] = (parent, kind, s.get("name", "").replace("\t", " "))

    missing = [p for p, sov in sorted(MUST_HAVE) if rows.get(p, ("",))[0] != sov]
    if missing:
        raise ValueError("%s: no territory entry for %s" % (src, ", ".join(missing)))
    return rows


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: iso-territories.py ISO_CODES_JSON_DIR OUTPUT.tsv\n")
        return 2
    src, out = argv[1], argv[2]
    try:
        rows = read_territories(src)
    except ValueError as e:
        sys.stderr.write("iso-territories: %s\n" % e)
        return 1

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("# Generated at build time by tools/iso-territories.py from iso_3166-2.json of\n"
                "# Debian's iso-codes package (LGPL-2.1-or-later); see docs/territories.md.\n"
                "# place<TAB>sovereign<TAB>ISO 3166-2 subdivision type<TAB>name\n")
        for place in sorted(rows):
            parent, kind, name = rows[place]
            f.write("%s\t%s\t%s\t%s\n" % (place, parent, kind, name))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
