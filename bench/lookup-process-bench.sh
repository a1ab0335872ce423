#!/bin/sh
# Bulk lookup as processes: `regloc lookup - --country-only`, `regloc lookup -`
# (country and border distance) and country-coder (country-coder-process.mjs)
# on the same 350,000 points within 5 km of a border (make-border-points.py),
# ROUNDS rounds (default 5), the three commands back to back in each round;
# prints each round's wall and CPU times, peak RSS, ratios and the load
# average, then the medians.  Process
# start, index open, reading and writing are all in the times.
# Usage: bench/lookup-process-bench.sh BUILDDIR [ROUNDS]   (after `npm ci` in bench/)
set -eu
build=$1
rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
mkdir -p "$out"
pts=$out/border-5km.points
[ -s "$pts" ] || python3 "$here/make-border-points.py" "$build/data/boundaries.geo.json" "$pts" 350000
export REGLOC_BOUNDARY_INDEX="$build/data/boundaries.idx"
# wall and CPU (user + system) seconds and peak RSS (kB) of one run
# (run-timed.py: to the millisecond, where /usr/bin/time rounds to 10 ms):
# the machine may be shared, and CPU time is what a loaded machine
# distorts least
run() {
  python3 "$here/run-timed.py" "$pts" "$out/answers.tmp" "$@" | awk '{ printf "%.3f %.3f %d", $1, $2, $3 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
: > "$out/rounds.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round | country-coder wall cpu rss | regloc --country-only wall cpu rss | regloc with distance wall cpu rss | ratios (cpu): country-only, with distance | load"
for r in $(seq "$rounds"); do
  cc=$(cd "$here" && run node country-coder-process.mjs)
  co=$(run "$build/cli/regloc" lookup - --country-only)
  cp "$out/answers.tmp" "$out/regloc-country-only.txt"
  wd=$(run "$build/cli/regloc" lookup -)
  cp "$out/answers.tmp" "$out/regloc-distance.txt"
  echo "$r $cc $co $wd $(cut -d' ' -f1 /proc/loadavg)" | awk '{ printf "%d | %.3f %.3f %d | %.3f %.3f %d | %.3f %.3f %d | %.1fx %.1fx (wall %.1fx %.1fx) | %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $3 / $6, $3 / $9, $2 / $5, $2 / $8, $11 }' | tee -a "$out/rounds.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median cpu s: country-coder $(awk '{ print $4 }' "$out/rounds.txt" | median), country-only $(awk '{ print $8 }' "$out/rounds.txt" | median), with distance $(awk '{ print $12 }' "$out/rounds.txt" | median)"
echo "median wall s: country-coder $(awk '{ print $3 }' "$out/rounds.txt" | median), country-only $(awk '{ print $7 }' "$out/rounds.txt" | median), with distance $(awk '{ print $11 }' "$out/rounds.txt" | median)"
echo "median peak RSS kB: country-coder $(awk '{ print $5 }' "$out/rounds.txt" | median), country-only $(awk '{ print $9 }' "$out/rounds.txt" | median), with distance $(awk '{ print $13 }' "$out/rounds.txt" | median)"
echo "median ratio (cpu): country-only $(awk '{ print $15 }' "$out/rounds.txt" | tr -d x | median)x, with distance $(awk '{ print $16 }' "$out/rounds.txt" | tr -d x | median)x"
echo "median ratio (wall): country-only $(awk '{ print $18 }' "$out/rounds.txt" | tr -d 'x(' | median)x, with distance $(awk '{ print $19 }' "$out/rounds.txt" | tr -d 'x)' | median)x"
echo "load during the rounds: $(awk '{ print $NF }' "$out/rounds.txt" | median)"
(cd "$here" && node country-coder-process.mjs < "$pts") > "$out/country-coder.txt"
paste "$out/regloc-country-only.txt" "$out/country-coder.txt" | awk '$1 == $2 { s++ } END { printf "agreement with country-coder: %.1f %% of %d points\n", 100 * s / NR, NR }'
