#!/bin/sh
# `regloc replay --gps LOG --format json` next to gpsd's `gpsdecode < LOG`, both
# timed as processes on the same generated NMEA log in the same run.
#
# Usage: bench/replay-vs-gpsdecode.sh BUILDDIR [SENTENCES ...]   (default: 1000000 4000000)
#
# BUILDDIR is a configured meson build directory (regloc and the boundary
# index built); the logs are written there.  For each log: PAIRS pairs
# (default 5) of one gpsdecode run followed at once by one replay; the ratio
# (gpsdecode's wall time / the replay's) is taken within each pair, and the
# median and range of the pairs are reported, with the median times and the
# replay's maximum resident set size (`/usr/bin/time -v`, the index mapping
# included) over the pairs.
set -eu
build=${1:?usage: $0 BUILDDIR [SENTENCES ...]}
shift
[ $# -gt 0 ] || set -- 1000000 4000000
here=$(dirname "$0")
pairs=${PAIRS:-5}
regloc=$build/cli/regloc
export REGLOC_BOUNDARY_INDEX=${REGLOC_BOUNDARY_INDEX:-$build/data/boundaries.idx}
# the uninstalled build's data (territories.tsv); an installed regloc knows its datadir
export REGLOC_DATADIR=${REGLOC_DATADIR:-$build/data:$(cd "$here/.." && pwd)/data}

command -v gpsdecode >/dev/null || { echo "gpsdecode not found (Debian package gpsd-clients)" >&2; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (Debian package time)" >&2; exit 77; }
[ -x "$regloc" ] || { echo "$regloc not built" >&2; exit 1; }
[ -s "$REGLOC_BOUNDARY_INDEX" ] || { echo "$REGLOC_BOUNDARY_INDEX not built" >&2; exit 1; }

now() { date +%s.%N; }

# run OUT CMD...: wall seconds and max RSS (kB) of one process, appended to OUT
run() {
  out=$1
  shift
  t0=$(now)
  /usr/bin/time -v -o "$out.time" "$@"
  t1=$(now)
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out.time")
  awk -v a="$t0" -v b="$t1" -v rss="$rss" 'BEGIN { printf "%.4f %d\n", b - a, rss }' >> "$out"
}

for n in "$@"; do
  log=$build/bench-replay-$n.nmea
  if [ ! -s "$log" ] || [ "$(wc -l < "$log")" -ne "$n" ]; then
    python3 "$here/make-nmea-log.py" "$log" "$n"
  fi
  res=$build/bench-replay-$n.pairs
  : > "$res.g"
  : > "$res.r"
  for i in $(seq "$pairs"); do
    run "$res.g" sh -c 'exec gpsdecode < "$1" > /dev/null' sh "$log"
    run "$res.r" sh -c 'exec "$1" replay --gps "$2" --format json > /dev/null' sh "$regloc" "$log"
  done
  paste -d' ' "$res.g" "$res.r" | awk -v n="$n" -v bytes="$(wc -c < "$log")" '
    function median(a, k,   i, j, t) {
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    { k++; g[k] = $1; grss[k] = $2; r[k] = $3; rrss[k] = $4; q[k] = $1 / $3
      if (k == 1 || $4 > rmax) rmax = $4; if (k == 1 || $4 < rmin) rmin = $4
      if (k == 1 || q[k] > qmax) qmax = q[k]; if (k == 1 || q[k] < qmin) qmin = q[k]
      printf "pair %d: gpsdecode %.3f s (%d kB)  regloc replay %.3f s (%d kB)  ratio %.1fx\n", k, $1, $2, $3, $4, q[k] }
    END {
      mg = median(g, k); mr = median(r, k); mq = median(q, k)
      printf "%d sentences (%.1f MB): gpsdecode %.3f s, regloc replay --format json %.3f s (%.0f sentences/s); ratio %.1fx (%.1f-%.1fx over %d pairs); max RSS %d kB (%d-%d)\n",
        n, bytes / 1e6, mg, mr, n / mr, mq, qmin, qmax, k, median(rrss, k), rmin, rmax
    }'
done
