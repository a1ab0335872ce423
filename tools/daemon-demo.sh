#!/bin/sh
# reglocd on a private D-Bus, fed the built-in sample trip (Strasbourg → Kehl)
# in place of live sources, with `regloc monitor` and `regloc status`
# following it from the world domain to FR and across the Rhine to DE.
# No Wi-Fi, GPS or root needed.  Usage: tools/daemon-demo.sh [SPEED] [BUILDDIR]
# (SPEED: recorded seconds per real second, default 5: about 30 s).
set -eu
cd "$(dirname "$0")/.."
speed="${1:-5}"
build="${2:-build}"
# the uninstalled build's data (an installed regloc knows its datadir)
REGLOC_DATADIR="$(cd "$build" && pwd)/data:$PWD/data"
export REGLOC_DATADIR
tmp=$(mktemp -d)
daemon=""; mon=""; bus=""
cleanup () {
  [ -n "$mon" ] && kill -INT "$mon" 2>/dev/null || true
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null || true
  [ -n "$bus" ] && kill "$bus" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

dbus-daemon --session --fork --print-address=3 --print-pid=4 3>"$tmp/address" 4>"$tmp/pid"
bus=$(cat "$tmp/pid")
DBUS_SESSION_BUS_ADDRESS=$(cat "$tmp/address")
export DBUS_SESSION_BUS_ADDRESS
export REGLOC_BUS=session STATE_DIRECTORY="$tmp/state"

echo "== reglocd --session-bus --replay sample-trip --replay-speed $speed (a private bus; log in $tmp/reglocd.log)"
"$build/daemon/reglocd" --session-bus --no-apply --config data/regloc.conf \
  --replay sample-trip --replay-speed "$speed" >"$tmp/reglocd.log" 2>&1 &
daemon=$!
i=0
until "$build/cli/regloc" status >/dev/null 2>&1; do
  sleep 0.1; i=$((i + 1))
  if [ $i -gt 100 ]; then cat "$tmp/reglocd.log"; exit 1; fi
done

echo "== regloc monitor (every change, as it happens)"
"$build/cli/regloc" monitor &
mon=$!
i=0
until "$build/cli/regloc" status 2>/dev/null | grep -q "end of the recording"; do
  sleep 0.5; i=$((i + 1))
  [ $i -lt 600 ] || break
done
sleep 0.5
kill -INT "$mon"; wait "$mon" || true; mon=""

echo
echo "== regloc status"
"$build/cli/regloc" status
echo
echo "== regloc explain"
"$build/cli/regloc" explain
echo
echo "== the same on the bus, as NetworkManager would read it:"
echo "\$ gdbus call --session -d net.regloc.RegLoc1 -o /net/regloc/RegLoc1/Manager -m org.freedesktop.DBus.Properties.Get net.regloc.RegLoc1.Manager Country"
gdbus call --session -d net.regloc.RegLoc1 -o /net/regloc/RegLoc1/Manager \
  -m org.freedesktop.DBus.Properties.Get net.regloc.RegLoc1.Manager Country
