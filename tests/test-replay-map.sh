#!/bin/sh
# regloc replay --map / --format kml through the CLI: the SVG is valid XML
# (xmllint) and renders (rsvg-convert) to a PNG that is not blank, in under
# a second; the KML is well-formed.  --batch: one JSON line per log (an
# unreadable log is a line with its error), sidecar .expect files, the same
# lines with 1 and 2 workers; GNU parallel -j2 over the logs gives the
# lines of one local batch.  Tools missing: exit 77 (skipped), saying which.
# Usage: test-replay-map.sh REGLOC SOURCE_ROOT
set -eu
regloc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in xmllint rsvg-convert python3; do
  command -v $tool >/dev/null || { echo "SKIP: $tool missing (tools/install-deps.sh --test)"; exit 77; }
done

# ---- the map
"$regloc" replay --gps "$src/data/samples/trip-de-fr.nmea" --scans "$src/data/samples/trip-de-fr.scans.jsonl" \
  --map "$tmp/trip.svg" --format kml > "$tmp/trip.kml"
xmllint --noout "$tmp/trip.svg" || fail "SVG is not well-formed XML"
xmllint --noout "$tmp/trip.kml" || fail "KML is not well-formed XML"
start=$(date +%s%N)
rsvg-convert -o "$tmp/trip.png" "$tmp/trip.svg" || fail "rsvg-convert cannot render the SVG"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "rendered in $ms ms"
[ "$ms" -lt 1000 ] || fail "rendering took $ms ms (>= 1 s)"
python3 - "$tmp/trip.png" <<'PY' || fail "the PNG is blank"
# decode the PNG (stdlib only) and count colours and non-white pixels
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, ink = set(), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 3):
        px = bytes(line[x:x + 3])
        colours.add(px)
        ink += px != b'\xff\xff\xff'
    prev = line
share = ink / (h * w / 3)
print("%dx%d, %d colours, %.0f %% not white" % (w, h, len(colours), share * 100))
sys.exit(0 if len(colours) >= 8 and share > 0.3 else 1)
PY

# ---- batch
mkdir "$tmp/logs"
cp "$src/data/trips/sample-trip.scn" "$tmp/logs/a-trip.scn"
echo "DE" > "$tmp/logs/a-trip.scn.expect"
cp "$src/data/trips/sample-trip.scn" "$tmp/logs/b-trip.scn"
echo "FR  # wrong on purpose" > "$tmp/logs/b-trip.expect"
cp "$src/data/samples/trip-de-fr.nmea" "$tmp/logs/c-drive.nmea"
printf 'at 10:00 frobnicate\n' > "$tmp/logs/d-broken.scn"
cp "$src/data/samples/trip-de-fr.scans.jsonl" "$tmp/logs/e-scans.jsonl"
rc=0
"$regloc" replay --batch "$tmp/logs" "$tmp/missing.nmea" --jobs 2 > "$tmp/j2.out" 2> "$tmp/j2.err" || rc=$?
cat "$tmp/j2.err"
[ "$rc" = 1 ] || fail "batch with a failed expectation and unreadable logs exits $rc, not 1"
python3 - "$tmp" <<'PY' || fail "batch lines"
import json, sys
t = sys.argv[1]
lines = [json.loads(l) for l in open(t + '/j2.out')]
files = [l['file'].rsplit('/', 1)[1] for l in lines]
assert files == ['a-trip.scn', 'b-trip.scn', 'c-drive.nmea', 'd-broken.scn', 'e-scans.jsonl', 'missing.nmea'], files
a, b, c, d, e, m = lines
assert a['expected'] == 'DE' and a['ok'] is True and a['final'] == 'DE', a
assert b['expected'] == 'FR' and b['ok'] is False, b
assert 'expected' not in c and c['fixes'] == 993 and c['span']['seconds'] == 992 and c['seconds_on_00'] == 992, c
assert 'error' in d and 'd-broken.scn:1' in d['error'] and 'fixes' not in d, d
assert 'error' in m and 'fixes' not in m, m
assert e['fixes'] == 0 and e['span']['seconds'] > 900, e
for l in (a, b, c, e):
    for k in ('span', 'fixes', 'countries', 'first_decision_s', 'seconds_on_00', 'changes', 'conflicts', 'notes'):
        assert k in l, (k, l)
assert a['countries'] == ['FR', 'DE'] and a['changes'] >= 2, a
PY
grep -q "6 logs, 2 unreadable, 1 not as expected" "$tmp/j2.err" || fail "summary line"
"$regloc" replay --batch "$tmp/logs" "$tmp/missing.nmea" --jobs 1 > "$tmp/j1.out" 2>/dev/null || true
cmp "$tmp/j1.out" "$tmp/j2.out" || fail "1 and 2 workers give different lines"
ls "$tmp"/logs/*.scn | "$regloc" replay --batch - > "$tmp/stdin.out" 2>/dev/null || true
[ "$(wc -l < "$tmp/stdin.out")" = 3 ] || fail "a list on stdin"

# The shared tables are read once, by whichever worker first needs them (the
# timezone tables: a scenario's timezone line, --timezone) or on a thread of
# their own (the index): four workers racing for them over every shipped
# scenario and a GPS log give each log's line as a run of that log alone.
ls "$src"/data/scenarios/*.scn > "$tmp/race.list"
echo "$src/data/samples/trip-de-fr.nmea" >> "$tmp/race.list"
"$regloc" replay --batch --jobs 4 --timezone Europe/Berlin - < "$tmp/race.list" > "$tmp/race.out" 2>/dev/null || true
: > "$tmp/alone.out"
while read -r log; do
  "$regloc" replay --batch --jobs 1 --timezone Europe/Berlin "$log" >> "$tmp/alone.out" 2>/dev/null || true
done < "$tmp/race.list"
[ "$(wc -l < "$tmp/race.out")" = "$(wc -l < "$tmp/race.list")" ] || fail "racing workers: $(wc -l < "$tmp/race.out") lines"
cmp "$tmp/race.out" "$tmp/alone.out" || fail "four racing workers differ from each log alone"
grep -q '"file":"[^"]*/02-timezone-only.scn","span"' "$tmp/race.out" || fail "a scenario's timezone line failed in a batch"
grep -q '"file":"[^"]*/04-three-aps-timezone.scn".*"final":"DE"' "$tmp/race.out" || fail "timezone + APs scenario"

# The index's checksum is checked beside the workers: a corrupt index is no
# index (each log's line is that of a run without one), never answers from it.
if [ -f "${REGLOC_BOUNDARY_INDEX:-}" ]; then
  python3 "$src/tests/corrupt-index.py" "$REGLOC_BOUNDARY_INDEX" "$tmp/corrupt.idx"
  REGLOC_BOUNDARY_INDEX="$tmp/corrupt.idx" "$regloc" replay --batch --jobs 2 "$tmp/logs" > "$tmp/corrupt.out" 2>/dev/null || true
  REGLOC_BOUNDARY_INDEX="$tmp/no-such.idx" "$regloc" replay --batch --jobs 2 "$tmp/logs" > "$tmp/none.out" 2>/dev/null || true
  cmp "$tmp/corrupt.out" "$tmp/none.out" || fail "a corrupt index: other lines than no index"
  grep -q 'c-drive.nmea.*no boundary index' "$tmp/corrupt.out" || fail "a corrupt index: the GPS log placed anyway"
  cmp -s "$tmp/corrupt.out" "$tmp/j2.out" && fail "a corrupt index: the lines of a good one"
else
  echo "SKIP corrupt-index batch: REGLOC_BOUNDARY_INDEX is not set (meson test sets it)" >&2
fi

# ---- GNU parallel: the logs split over two runners give one batch's lines
if command -v parallel >/dev/null; then
  ls "$tmp"/logs/* | grep -v '\.expect$' > "$tmp/list"
  parallel --will-cite -j2 -N2 "$regloc" replay --batch --jobs 1 :::: "$tmp/list" > "$tmp/par.out" 2>/dev/null || true
  "$regloc" replay --batch - < "$tmp/list" > "$tmp/one.out" 2>/dev/null || true
  sort "$tmp/par.out" > "$tmp/par.sorted"
  sort "$tmp/one.out" > "$tmp/one.sorted"
  cmp "$tmp/par.sorted" "$tmp/one.sorted" || fail "parallel -j2 differs from one local batch"
  [ "$(wc -l < "$tmp/par.sorted")" = 5 ] || fail "parallel: $(wc -l < "$tmp/par.sorted") lines, not 5"
else
  echo "parallel missing (GNU parallel, tools/install-deps.sh --test): that part not run"
fi
echo "ok"
