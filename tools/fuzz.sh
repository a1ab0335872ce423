#!/bin/sh
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each for
# SECONDS (default 60) on its corpus; prints execs/s and coverage.
# Usage: tools/fuzz.sh [SECONDS] [TARGET...]
#
# A target's corpus (build-fuzz/corpus/TARGET) starts from the files that
# fuzz/seeds/TARGET lists (globs, relative to the top directory) and keeps
# what earlier runs found.  fuzz/options/TARGET holds extra libFuzzer flags,
# one per line.  REGLOC_FUZZ_JOBS sets ninja's -j (default 1).
set -eu
cd "$(dirname "$0")/.."
secs="${1:-60}"; [ $# -gt 0 ] && shift
if [ ! -f build-fuzz/build.ninja ]; then
  if ! command -v clang >/dev/null; then
    echo "fuzz: clang is not installed (Debian package clang)"; exit 1
  fi
  setup_log=$(mktemp)
  CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dvm_tests=false >"$setup_log" 2>&1 || { cat "$setup_log"; rm -f "$setup_log"; exit 1; }
  rm -f "$setup_log"
fi
if ! ninja -C build-fuzz -j "${REGLOC_FUZZ_JOBS:-1}" fuzzers >build-fuzz/ninja.log 2>&1; then
  echo "fuzz: the fuzz build failed:"; tail -40 build-fuzz/ninja.log; exit 1
fi
targets="$*"
# the targets fuzz/meson.build declares (a stale binary in build-fuzz is not one)
[ -n "$targets" ] || targets=$(sed -n "s/^ *'\([a-z0-9-]*\)': 'fuzz-[a-z0-9-]*\.c',$/\1/p" fuzz/meson.build)
status=0
table=""
for t in $targets; do
  if [ ! -x "build-fuzz/fuzz/fuzz-$t" ]; then
    echo "fuzz: no target '$t' (see fuzz/meson.build)"; status=1; continue
  fi
  corpus="build-fuzz/corpus/$t"
  mkdir -p "$corpus"
  if [ -f "fuzz/seeds/$t" ]; then
    while read -r f; do
      case "$f" in ''|'#'*) continue ;; esac
      for g in $f; do [ -f "$g" ] && cp "$g" "$corpus/seed-$(echo "$g" | tr '/' '_')"; done
    done < "fuzz/seeds/$t"
  fi
  opts=""
  if [ -f "fuzz/options/$t" ]; then
    opts=$(grep -v '^[[:space:]]*\(#\|$\)' "fuzz/options/$t" | tr '\n' ' ')
  fi
  log="build-fuzz/fuzz-$t.log"
  # shellcheck disable=SC2086 # $opts is a list of flags
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "build-fuzz/fuzz/fuzz-$t" -max_total_time="$secs" -max_len=65536 -timeout=10 $opts \
       -artifact_prefix="build-fuzz/$t-" "$corpus" >"$log" 2>&1; then
    line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
    execs=$(echo "$line" | sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p')
    cov=$(echo "$line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    n=$(echo "$line" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    echo "fuzz $t: clean for ${secs}s, ${execs:-?} execs/s, coverage ${cov:-?} edges, ${ft:-?} features"
    table="$table$(printf '%-14s %8s %8s %8s %8s' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${n:-?}")
"
  else
    echo "fuzz $t: FOUND A PROBLEM (log: $log)"
    grep -E 'ERROR|SUMMARY|Test unit written|ERROR:|assertion|\*\*' "$log" | head -20
    table="$table$(printf '%-14s %8s' "$t" 'FOUND A PROBLEM')
"
    status=1
  fi
done
echo
printf '%-14s %8s %8s %8s %8s\n' target 'exec/s' 'cov' 'ft' 'corpus'
printf '%s' "$table"
exit $status
