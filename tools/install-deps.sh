#!/bin/sh
# Installs the Debian 12 packages regloc needs to build, run and test.
# Idempotent: installs only what is missing; needs root (or sudo).
set -eu

BUILD="meson ninja-build pkg-config gcc binutils libc6-dev libglib2.0-dev libglib2.0-bin libnl-3-dev libnl-genl-3-dev
libgps-dev libxml2-dev libpcap-dev zlib1g-dev libjson-glib-dev libxxhash-dev xz-utils wireless-regdb tzdata iso-codes
mobile-broadband-provider-info ieee-data"
TEST="dbus dbus-bin python3 python3-dbusmock python3-gi gpsd gpsd-clients faketime valgrind clang llvm libclang-rt-14-dev
qemu-system-x86 busybox-static hostapd iw wpasupplicant kmod cpio strace libcap2-bin unicode-cldr-core librsvg2-bin libxml2-utils parallel locales"

want="$BUILD"
[ "${1:-}" = "--test" ] && want="$BUILD $TEST"

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

echo "regloc: installing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
# no services may start from inside an install (gpsd would grab its socket)
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
