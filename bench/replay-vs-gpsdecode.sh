#!/bin/sh
# Replay throughput next to gpsd's gpsdecode on the same generated NMEA log,
# in the same run.  Usage: bench/replay-vs-gpsdecode.sh BUILDDIR [SENTENCES]
# (BUILDDIR is a configured meson build directory with the benchmark built;
# the log is written there).  gpsdecode: best of 3 runs; replay: best of 5.
set -eu
build=${1:?usage: $0 BUILDDIR [SENTENCES]}
n=${2:-1050000}
here=$(dirname "$0")
log="$build/bench-replay.nmea"
bench=${BENCH_REPLAY:-$build/bench/bench-replay}
index=${REGLOC_BOUNDARY_INDEX:-$build/data/boundaries.idx}

command -v gpsdecode >/dev/null || { echo "gpsdecode not found (Debian package gpsd-clients)" >&2; exit 77; }
[ -x "$bench" ] || { echo "$bench not built" >&2; exit 1; }
if [ ! -s "$log" ] || [ "$(wc -l < "$log")" -ne "$n" ]; then
  python3 "$here/make-nmea-log.py" "$log" "$n"
fi

best=
for i in 1 2 3; do
  t0=$(date +%s.%N)
  gpsdecode < "$log" > /dev/null
  t1=$(date +%s.%N)
  best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; print best }')
done
sentences=$(wc -l < "$log")
awk -v t="$best" -v n="$sentences" 'BEGIN { printf "gpsdecode         %.3f s  %.0f sentences/s\n", t, n / t }'
"$bench" --runs 5 --index "$index" "$log" | tee "$build/bench-replay.out"
full=$(awk '/^replay \(full\)/ { print $3 }' "$build/bench-replay.out")
awk -v g="$best" -v r="$full" 'BEGIN { printf "ratio: replay runs the log %.1fx faster than gpsdecode (same file, same run)\n", g / r }'
