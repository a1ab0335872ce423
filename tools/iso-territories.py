#!/usr/bin/env python3
"""Writes the territory -> sovereign table regloc reads at run time.

    iso-territories.py ISO_CODES_JSON_DIR OUTPUT.tsv [SERVICEPROVIDERS.xml RULES.tsv]

Input: iso_3166-1.json and iso_3166-2.json of Debian's iso-codes package
(LGPL-2.1-or-later data).  A place is a territory of a sovereign when ISO
3166-2 lists it as a subdivision of that country whose code part is itself
an ISO 3166-1 alpha-2 code (US-PR, FR-RE) and whose type says it is an
overseas region, department, collectivity or territory, or an outlying area.

With mobile-broadband-provider-info's serviceproviders.xml (public domain)
and regloc's data/territories.tsv, a place is also a territory of a country
when every mobile network the list gives the place is numbered under a
mobile country code that country holds more networks of: the Isle of Man's
Manx Telecom and Sure are 234-58, 234-36 and 234-55, under the UK's MCC
234.  Its access points run on the sovereign's firmware and say its code.
Left out: places whose own code territories.tsv already maps to the
sovereign's rules (Guernsey, Jersey: GB), where saying so changes nothing.

Everything else is left out on purpose, by type:
  - "Special administrative region" (CN-HK, CN-MO): their own regulators.
  - "Country" (NL-AW, NL-CW, NL-SX): constituent countries of the Kingdom of
    the Netherlands with their own telecommunications law.
  - "Province" (CN-TW) and every ordinary subdivision whose code merely
    looks like a country code (US-CA California, CH-BE Bern, BQ-SE Sint
    Eustatius, ...).
See docs/territories.md.
"""
import collections
import json
import os
import sys
import xml.etree.ElementTree as ET

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


# A release that no longer gives this has changed beyond what this script knows.
MUST_HAVE_NUMBERED = {("IM", "GB")}
# The type column of such places (core/territory.h RL_TERRITORY_NUMBERED_KIND).
NUMBERED_KIND = "Mobile networks numbered under MCC %s"


def read_numbered(providers, rules_tsv, known):
    """{place: (sovereign, kind, name)}: places all of whose mobile networks
    are numbered under an MCC another country holds more networks of; not
    those in @known (ISO territories), nor those @rules_tsv maps to that
    country's rules already.  Raises ValueError on data it does not know."""
    rules = {}
    with open(rules_tsv, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(cols) < 2:
                continue
            rules[cols[0]] = cols[1]
    try:
        root = ET.parse(providers).getroot()
    except (ET.ParseError, OSError) as e:
        raise ValueError("%s: %s" % (providers, e))
    per_mcc = collections.defaultdict(collections.Counter)   # mcc -> {country: networks}
    mccs, names = collections.defaultdict(set), {}
    for country in root.iter("country"):
        code = (country.get("code") or "").upper()
        if len(code) != 2 or not code.isalpha():
            continue
        names[code] = (country.findtext("name") or code).replace("\t", " ")
        for net in country.iter("network-id"):
            mcc = net.get("mcc") or ""
            if len(mcc) == 3 and mcc.isdigit():
                per_mcc[mcc][code] += 1
                mccs[code].add(mcc)
    rows = {}
    for place, held in mccs.items():
        if len(held) != 1 or place in known:
            continue
        mcc = next(iter(held))
        owner, count = per_mcc[mcc].most_common(1)[0]
        if owner == place or count <= per_mcc[mcc][place] or rules.get(place) == owner:
            continue
        rows[place] = (owner, NUMBERED_KIND % mcc, names[place])
    missing = [p for p, sov in sorted(MUST_HAVE_NUMBERED) if rows.get(p, ("",))[0] != sov]
    if missing:
        raise ValueError("%s: no numbering entry for %s" % (providers, ", ".join(missing)))
    return rows


def main(argv):
    if len(argv) not in (3, 5):
        sys.stderr.write("usage: iso-territories.py ISO_CODES_JSON_DIR OUTPUT.tsv [SERVICEPROVIDERS.xml RULES.tsv]\n")
        return 2
    src, out = argv[1], argv[2]
    try:
        rows = read_territories(src)
        if len(argv) == 5:
            rows.update(read_numbered(argv[3], argv[4], rows))
    except ValueError as e:
        sys.stderr.write("iso-territories: %s\n" % e)
        return 1

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("# Generated at build time by tools/iso-territories.py from iso_3166-2.json of\n"
                "# Debian's iso-codes package (LGPL-2.1-or-later) and, for places whose\n"
                "# networks are numbered under another country's MCC, serviceproviders.xml\n"
                "# of mobile-broadband-provider-info (public domain); see docs/territories.md.\n"
                "# place<TAB>sovereign<TAB>ISO 3166-2 subdivision type or MCC numbering<TAB>name\n")
        for place in sorted(rows):
            parent, kind, name = rows[place]
            f.write("%s\t%s\t%s\t%s\n" % (place, parent, kind, name))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
