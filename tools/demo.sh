#!/bin/sh
# The main job on built-in sample data: no Wi-Fi, GPS or root needed
# (apt asks for root only when packages are missing).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
# the uninstalled build's data (an installed regloc knows its datadir)
REGLOC_DATADIR="$PWD/build/data:$PWD/data"
export REGLOC_DATADIR

echo "== regloc replay: a drive from Kehl over the Rhine into Strasbourg, from a GPS log and the"
echo "   access points heard on the way (data/samples/: synthetic, see SOURCE.md there)"
./build/cli/regloc replay --gps data/samples/trip-de-fr.nmea --scans data/samples/trip-de-fr.scans.jsonl

echo
echo "== regloc replay: a hand-written scenario, decided step by step (data/scenarios/09-de-to-nl.scn)"
./build/cli/regloc replay --scenario data/scenarios/09-de-to-nl.scn

echo
echo "== reglocd on a private bus, following the built-in sample trip (tools/daemon-demo.sh)"
tools/daemon-demo.sh
