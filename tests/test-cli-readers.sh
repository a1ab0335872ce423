#!/bin/sh
# The regloc binary reads a GPX track and a pcap capture (libxml2 and
# libpcap are opened on first use, not linked): a GPS track around
# Cerkniško jezero and beacons saying SI decide SI, alone and through
# --batch.  With a library that cannot be opened (LD_LIBRARY_PATH ahead of
# the system's: a file that is no ELF, a library without the symbols), the
# input is an error that names the library, never a crash.
# Usage: test-cli-readers.sh REGLOC SOURCE_ROOT LIBXML2_SONAME LIBPCAP_SONAME
set -eu
regloc=$1
src=$2
xml_soname=$3
pcap_soname=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
gpx="$src/tests/data/gps/cerknicko-jezero.gpx"

# Four access points (radiotap + beacon, Country element "SI ") every minute
# of the track's two hours (2010-08-05 14:24Z on), and one data frame.
python3 - "$tmp/si.pcap" <<'PY'
import struct, sys
def frame(fc, bssid, freq, dbm):
    rt = struct.pack('<BBHIBBHHbB', 0, 0, 16, 0x2a, 0, 0, freq, 0xa0, dbm, 0)
    hdr = bytes([fc, 0, 0, 0]) + b'\xff' * 6 + bssid + bssid + b'\0\0' + bytes(12)
    ies = bytes([0, 2]) + b'ap' + bytes([7, 6]) + b'SI ' + bytes([1, 13, 20])
    return rt + hdr + ies
out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 127)]
ouis = [b'\x3c\x84\x6a', b'\x00\x1d\x7e', b'\xf4\xf2\x6d', b'\x00\x24\xfe']   # four makers
t0 = 1281018240   # 2010-08-05T14:24:00Z
n = 0
for minute in range(120):
    for ap in range(4):
        f = frame(0x80, ouis[ap] + bytes([0, 0, ap + 1]), 2412 + 5 * ap, -50 - ap)
        out.append(struct.pack('<IIII', t0 + 60 * minute, 0, len(f), len(f)) + f)
        n += 1
f = frame(0x08, ouis[0] + bytes([0, 0, 9]), 2412, -40)
out.append(struct.pack('<IIII', t0 + 5, 0, len(f), len(f)) + f)
open(sys.argv[1], 'wb').write(b''.join(out))
PY

# ---- both readers through one replay
"$regloc" replay --gps "$gpx" --scans "$tmp/si.pcap" --format json > "$tmp/both.json" ||
  fail "replay of a GPX track and a capture failed"
python3 - "$tmp/both.json" <<'PY' || fail "the replay of the GPX track and the capture"
import json, sys
s = json.load(open(sys.argv[1]))['summary']
c = s['counters']
assert c['gpx.records'] == 303 and c['gps.fixes_used'] == 296 and c['gpx.planned_points'] == 7, c
assert c['scans.beacons'] == 480 and c['scans.skipped.not_management'] == 1, c
assert s['final']['country'] == 'SI', s['final']
PY

# ---- each on its own through --batch (one JSON line per log)
cp "$gpx" "$tmp/track.gpx"
cp "$tmp/si.pcap" "$tmp/beacons.pcap"
"$regloc" replay --batch "$tmp/track.gpx" "$tmp/beacons.pcap" --jobs 1 > "$tmp/batch.out" 2>/dev/null ||
  fail "batch of a GPX track and a capture failed"
python3 - "$tmp/batch.out" <<'PY' || fail "the batch lines of the GPX track and the capture"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 and all('error' not in l for l in lines), lines
assert lines[0]['fixes'] == 296, lines[0]
assert lines[1]['final'] == 'SI', lines[1]
PY

# ---- --batch tells a log by its content, as --scans and --gps do: an
# airodump-ng capture (dump-01.cap), a scan log saved as .json and a gpsd
# log saved as .jsonl were refused or misread by their endings; a file
# that is none of them names what was tried
cp "$src/tests/data/scans/airodump-01.cap" "$tmp/dump-01.cap"
cp "$src/tests/data/scans/footbridge-records.jsonl" "$tmp/walk.json"
cp "$src/tests/data/gps/mt3339.gpsd.jsonl" "$tmp/gpsd.jsonl"
printf 'milk\neggs\n' > "$tmp/list.txt"
rc=0
"$regloc" replay --batch "$tmp/dump-01.cap" "$tmp/walk.json" "$tmp/gpsd.jsonl" "$tmp/list.txt" --jobs 2 \
  > "$tmp/batch.out" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "batch with an unreadable log exits $rc, not 1"
python3 - "$tmp/batch.out" <<'PY' || fail "the batch lines of logs told by their content"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 4, lines
assert 'error' not in lines[0] and lines[0]['final'] == 'CZ', lines[0]
assert 'error' not in lines[1] and lines[1]['fixes'] == 0 and lines[1]['span']['seconds'] > 0, lines[1]
assert 'error' not in lines[2] and lines[2]['fixes'] == 28, lines[2]
assert lines[3]['error'] == ('list.txt: unknown format: not a capture (pcap, pcapng), a scan log (JSON lines), '
                             'NMEA 0183, gpsd JSON or GPX (a scenario ends in .scn)'), lines[3]
PY

# ---- a library that cannot be opened
mkdir "$tmp/lib"
echo "not a shared library" > "$tmp/lib/$xml_soname"
# a real shared object, but not libpcap: opened, without pcap's symbols
cp "$(ldd "$regloc" | awk '/libxxhash/ { print $3 }')" "$tmp/lib/$pcap_soname"
rc=0
LD_LIBRARY_PATH="$tmp/lib" "$regloc" replay --gps "$gpx" > "$tmp/nolib.out" 2> "$tmp/nolib.err" || rc=$?
[ "$rc" = 1 ] || fail "replay without libxml2 exits $rc, not 1"
grep -q "cerknicko-jezero.gpx: cannot load libxml2 ($xml_soname): " "$tmp/nolib.err" ||
  fail "replay without libxml2 says: $(cat "$tmp/nolib.err")"
rc=0
LD_LIBRARY_PATH="$tmp/lib" "$regloc" replay --scans "$tmp/si.pcap" > "$tmp/nolib.out" 2> "$tmp/nolib.err" || rc=$?
[ "$rc" = 1 ] || fail "replay without libpcap exits $rc, not 1"
grep -q "si.pcap: cannot load libpcap ($pcap_soname): no symbol pcap_open_offline_with_tstamp_precision" \
  "$tmp/nolib.err" || fail "replay without libpcap says: $(cat "$tmp/nolib.err")"
rc=0
LD_LIBRARY_PATH="$tmp/lib" "$regloc" replay --batch "$tmp/track.gpx" "$tmp/beacons.pcap" --jobs 2 \
  > "$tmp/batch.out" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "batch without the libraries exits $rc, not 1"
python3 - "$tmp/batch.out" <<'PY' || fail "the batch lines without the libraries"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2, lines
assert 'cannot load libxml2' in lines[0]['error'], lines[0]
assert 'cannot load libpcap' in lines[1]['error'], lines[1]
PY
echo "GPX and pcap read through $regloc; missing libraries reported"
