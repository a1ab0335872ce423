#!/bin/sh
# Installs what is missing, builds with warnings as errors, runs every test,
# then runs the whole suite again in an ASan+UBSan build.
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh --test

passed=0; failed=0; skipped=0
run_suite () {
  dir="$1"; shift
  out=$(mktemp)
  set +e
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" 2>&1 | tee "$out"
  set -e
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  fl=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  passed=$((passed + ${ok:-0})); failed=$((failed + ${fl:-0} + ${to:-0})); skipped=$((skipped + ${sk:-0}))
  rm -f "$out"
  # the pipeline's status is tee's: the counts say whether meson test
  # failed, and no summary at all means it did not run through
  [ $((${fl:-0} + ${to:-0})) -eq 0 ] || status=1
  [ -n "$ok" ] || status=1
}
status=0

[ -d build ] || meson setup build -Dwerror=true >/dev/null
meson configure build -Dwerror=true
ninja -C build
run_suite build

# Memcheck over the unit tests and the daemon's integration tests.
run_suite build --setup valgrind --suite unit --suite integration

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer; the VM
# suite boots a kernel under emulation and is not repeated there.
[ -d build-asan ] || meson setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run_suite build-asan --no-suite vm

# A short fuzz run of every parser of outside input (tools/fuzz.sh; longer
# runs: tools/fuzz.sh 600).  A finding fails the run.
fuzz_secs="${REGLOC_FUZZ_SECONDS:-30}"
if [ "$fuzz_secs" -gt 0 ]; then
  if tools/fuzz.sh "$fuzz_secs"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); status=1
  fi
fi

echo
echo "regloc tests: $passed passed, $failed failed, $skipped skipped"
exit $status
