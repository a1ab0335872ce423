#!/bin/sh
# What regloc writes for programs is the same in a locale that writes
# numbers with a decimal comma (de_DE.UTF-8, fr_FR.UTF-8) as in C.UTF-8:
# lookup (one point, --json, bulk), replay (text, JSON, CSV), the map
# (SVG, GeoJSON, KML), batch lines and a country's radio rules.  A German
# user's GeoJSON once had "[7,8329783,48,5652083]" for one point.
# The locales are compiled into a temporary directory (localedef, LOCPATH);
# without their sources (Debian package locales): exit 77, saying so.
# Usage: test-locale.sh REGLOC SOURCE_ROOT
set -eu
regloc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in localedef python3 xmllint; do
  command -v $tool >/dev/null || { echo "SKIP: $tool missing (tools/install-deps.sh --test)"; exit 77; }
done
mkdir -p "$tmp/loc"
for l in de_DE fr_FR; do
  [ -f "/usr/share/i18n/locales/$l" ] ||
    { echo "SKIP: no locale source for $l (Debian package locales: tools/install-deps.sh --test)"; exit 77; }
  localedef -i $l -f UTF-8 "$tmp/loc/$l.UTF-8" 2>"$tmp/localedef.err" || {
    # localedef warns (exit 1) on some sources yet writes the locale
    [ -f "$tmp/loc/$l.UTF-8/LC_NUMERIC" ] || { cat "$tmp/localedef.err" >&2; fail "localedef could not build $l.UTF-8"; }
  }
done

gps=$src/data/samples/trip-de-fr.nmea
scans=$src/data/samples/trip-de-fr.scans.jsonl
mkdir -p "$tmp/logs"
cp "$gps" "$tmp/logs/a.nmea"
printf 'FR\n' > "$tmp/logs/a.nmea.expect"
printf '47.6959 8.6368\n48.5738 7.8027\n-33.8688 151.2093\n' > "$tmp/points"

# Every output of one locale into $tmp/$1/.
outputs() {
  d=$tmp/$1
  mkdir -p "$d"
  "$regloc" lookup 47.6959 8.6368 > "$d/lookup.txt"
  "$regloc" lookup 47.6959 8.6368 --json > "$d/lookup.json"
  "$regloc" lookup - < "$tmp/points" > "$d/bulk.txt"
  "$regloc" replay --gps "$gps" --scans "$scans" > "$d/replay.txt"
  "$regloc" replay --gps "$gps" --scans "$scans" --format json > "$d/replay.json"
  "$regloc" replay --gps "$gps" --scans "$scans" --format csv > "$d/replay.csv"
  for kind in svg geojson kml; do
    "$regloc" replay --gps "$gps" --scans "$scans" --map "$d/map.$kind" > /dev/null
  done
  "$regloc" replay --batch --timezone Europe/Paris "$tmp/logs" > "$d/batch.jsonl" 2> /dev/null
  "$regloc" rules DE > "$d/rules.txt"
}

export LOCPATH="$tmp/loc"
unset LANGUAGE LC_NUMERIC LC_MESSAGES LC_CTYPE
for l in de_DE fr_FR; do
  # the test can fail: this locale really writes a decimal comma
  [ "$(LC_ALL=$l.UTF-8 /usr/bin/printf '%.1f' 1.5)" = "1,5" ] || fail "$l.UTF-8 does not write 1,5 (LOCPATH not used?)"
  LC_ALL=$l.UTF-8 outputs $l
done
LC_ALL=C.UTF-8 outputs C

for l in de_DE fr_FR; do
  for f in lookup.txt lookup.json bulk.txt replay.txt replay.json replay.csv map.svg map.geojson map.kml batch.jsonl rules.txt; do
    cmp -s "$tmp/C/$f" "$tmp/$l/$f" || { diff "$tmp/C/$f" "$tmp/$l/$f" | head -5 >&2; fail "$f differs in $l.UTF-8"; }
  done
  # and what they are is still readable by a program
  python3 - "$tmp/$l" <<'PY' || fail "$l.UTF-8: output does not parse"
import json, sys
d = sys.argv[1]
one = json.load(open(d + '/lookup.json'))
assert abs(one['lat'] - 47.6959) < 1e-9 and one['country'] == 'CH', one
json.load(open(d + '/replay.json'))
gj = json.load(open(d + '/map.geojson'))
for f in gj['features']:
    g = f['geometry']
    pts = g['coordinates'] if g['type'] == 'LineString' else [g['coordinates']]
    assert all(len(p) == 2 and 7 < p[0] < 8.5 and 48 < p[1] < 49 for p in pts), g
for line in open(d + '/batch.jsonl'):
    assert json.loads(line)['ok'] is True, line
PY
  xmllint --noout "$tmp/$l/map.svg" "$tmp/$l/map.kml" || fail "$l.UTF-8: the SVG or KML is not well-formed"
done
echo "de_DE.UTF-8 and fr_FR.UTF-8 give the same bytes as C.UTF-8 for every machine-read output"
