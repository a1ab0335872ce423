#!/bin/sh
# regloc and reglocd start without libxml2 and libpcap (the GPX and capture
# readers open them on first use): neither is in a binary's NEEDED entries,
# and neither they nor what they pull in (ICU, libdbus, libgcrypt) is
# loaded at start (ldd).  readelf is binutils', there wherever gcc is.
# Usage: test-lazy-libs-linked.sh BINARY...
set -eu
command -v readelf >/dev/null || { echo "SKIP: readelf missing (binutils)"; exit 77; }
status=0
for bin in "$@"; do
  needed=$(LC_ALL=C readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] || { echo "FAIL: $bin: no NEEDED entries (not a dynamic executable?)"; status=1; continue; }
  for lib in $needed; do
    case "$lib" in
      libxml2.so*|libpcap.so*) echo "FAIL: $bin needs $lib"; status=1 ;;
    esac
  done
  loaded=$(ldd "$bin" | awk '{ print $1 }')
  for lib in $loaded; do
    case "$lib" in
      libxml2.so*|libpcap.so*|libicuuc.so*|libicudata.so*) echo "FAIL: $bin loads $lib at start"; status=1 ;;
    esac
  done
  echo "$bin: NEEDED $(echo $needed)"
done
exit $status
