#!/bin/sh
# regloc replay --batch on COPIES copies of the sample GPS log
# (data/samples/trip-de-fr.nmea): ROUNDS rounds of one worker and of two
# workers back to back; wall time, CPU time and peak RSS of each, the
# speed-up per round and its median; then the peak RSS with 4x the logs
# (it must not grow with the number of logs).
# Usage: bench/batch-bench.sh BUILDDIR [COPIES] [ROUNDS]
set -eu
build=$1
copies=${2:-100}
rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/out/batch
rm -rf "$dir"
mkdir -p "$dir"
for i in $(seq -w "$copies"); do cp "$here/../data/samples/trip-de-fr.nmea" "$dir/trip-$i.nmea"; done
export REGLOC_BOUNDARY_INDEX="$build/data/boundaries.idx"
run() {  # JOBS [DIR]: wall cpu rss_kB
  python3 "$here/run-timed.py" - "$here/out/batch-$1.jsonl" "$build/cli/regloc" replay --batch --jobs "$1" "${2:-$dir}" \
    2>/dev/null | awk '{ printf "%.3f %.3f %d", $1, $2, $3 }'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
: > "$here/out/batch-rounds.txt"
for r in $(seq "$rounds"); do
  one=$(run 1)
  two=$(run 2)
  echo "$r $one $two" | awk '{ printf "round %d: 1 worker %.3f s (cpu %.3f s, %d kB), 2 workers %.3f s (cpu %.3f s, %d kB): %.2fx\n", $1, $2, $3, $4, $5, $6, $7, $2 / $5 }' \
    | tee -a "$here/out/batch-rounds.txt"
done
cmp "$here/out/batch-1.jsonl" "$here/out/batch-2.jsonl" >/dev/null && echo "1 and 2 workers: the same lines"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ print $NF }' "$here/out/batch-rounds.txt" | tr -d x | sort -g | awk '{ v[NR] = $1 } END { printf "median speed-up %sx (%s-%s)\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
mkdir -p "$dir/more"
for k in 1 2 3 4; do for f in "$dir"/*.nmea; do ln -sf "$f" "$dir/more/$k-$(basename "$f")"; done; done
echo "peak RSS, 2 workers: $copies logs $(run 2 | cut -d' ' -f3) kB, $((4 * copies)) logs $(run 2 "$dir/more" | cut -d' ' -f3) kB"
