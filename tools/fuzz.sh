#!/bin/sh
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each for
# SECONDS (default 60) on its seed corpus; prints execs/s and coverage.
# Usage: tools/fuzz.sh [SECONDS] [TARGET...]
set -eu
cd "$(dirname "$0")/.."
secs="${1:-60}"; [ $# -gt 0 ] && shift
if [ ! -d build-fuzz ]; then
  CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dvm_tests=false >/dev/null
fi
if ! ninja -C build-fuzz >build-fuzz/ninja.log 2>&1; then
  echo "fuzz: the fuzz build failed:"; tail -40 build-fuzz/ninja.log; exit 1
fi
targets="$*"
[ -n "$targets" ] || targets=$(find build-fuzz/fuzz -maxdepth 1 -type f -perm -u+x -name 'fuzz-*' | sed 's|.*/fuzz-||' | sort)
status=0
for t in $targets; do
  corpus="build-fuzz/corpus/$t"
  mkdir -p "$corpus"
  # seeds from the repository (tests and real samples), listed in fuzz/seeds/<target>
  if [ -f "fuzz/seeds/$t" ]; then
    while read -r f; do
      case "$f" in ''|'#'*) continue ;; esac
      for g in $f; do [ -f "$g" ] && cp "$g" "$corpus/seed-$(echo "$g" | tr '/' '_')"; done
    done < "fuzz/seeds/$t"
  fi
  log="build-fuzz/fuzz-$t.log"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
     "build-fuzz/fuzz/fuzz-$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
       -artifact_prefix="build-fuzz/crash-$t-" "$corpus" >"$log" 2>&1; then
    line=$(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -1)
    execs=$(echo "$line" | sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p')
    cov=$(echo "$line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    echo "fuzz $t: clean for ${secs}s, ${execs:-?} execs/s, coverage ${cov:-?} edges, ${ft:-?} features"
  else
    echo "fuzz $t: FOUND A PROBLEM (see $log and build-fuzz/crash-$t-*)"
    tail -30 "$log"
    status=1
  fi
done
exit $status
