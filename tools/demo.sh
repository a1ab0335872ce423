#!/bin/sh
# The main job on built-in sample data: no Wi-Fi, GPS or root needed
# (apt asks for root only when packages are missing).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

echo "== regloc replay: a border crossing, decided step by step (data/scenarios/09-de-to-nl.scn)"
./build/cli/regloc replay --scenario data/scenarios/09-de-to-nl.scn
