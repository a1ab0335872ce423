#!/bin/sh
# Installs as a distribution would (DESTDIR=STAGE meson install) and checks:
#  1. every file a package needs is there (data, unit, bus, polkit, catalog,
#     pkg-config, completion, manuals);
#  2. no installed file names the build or the source tree: text files as
#     they are, binaries with their debug sections removed (debug info names
#     the build directory until the distribution's -ffile-prefix-map maps it,
#     and goes to a separate debug package anyway);
#  3. the catalog compiles with journalctl and explains every MESSAGE_ID of
#     reglocd's sources;
#  4. the installed binaries, with no $REGLOC_DATADIR, find their data at
#     the installed paths: in a private mount namespace the staged share/ is
#     laid over PREFIX/share (overlayfs), then `regloc lookup`,
#     `regloc replay --check` of a territory scenario and
#     `reglocd --no-bus --replay sample-trip` run.  Without root or
#     unshare(1) that part is skipped, loudly (exit 77 if all else passed).
# Usage: check-install.sh BUILDDIR SOURCEDIR PREFIX BINDIR SBINDIR DATADIR SYSCONFDIR
set -u
build=$1 src=$2 prefix=$3 bindir=$4 sbindir=$5 datadir=$6 sysconfdir=$7
stage="$build/tests/install-stage"
failed=0
fail () { echo "FAIL: $*" >&2; failed=1; }

unset REGLOC_DATADIR REGLOC_BOUNDARY_INDEX REGLOC_TERRITORIES
rm -rf "$stage"
if ! DESTDIR="$stage" meson install -C "$build" --no-rebuild --quiet >"$build/tests/install-stage.log" 2>&1; then
  cat "$build/tests/install-stage.log" >&2
  echo "FAIL: meson install" >&2
  exit 1
fi
S="$stage"

# 1. what a package of a system daemon ships
for f in "$sbindir/reglocd" "$bindir/regloc" \
         "$datadir/regloc/boundaries.idx" "$datadir/regloc/territories.tsv" "$datadir/regloc/territory-sovereigns.tsv" "$datadir/regloc/trips/sample-trip.scn" \
         "$sysconfdir/regloc/regloc.conf" \
         "$datadir/dbus-1/interfaces/net.regloc.RegLoc1.Manager.xml" \
         "$datadir/dbus-1/system.d/net.regloc.RegLoc1.conf" \
         "$datadir/dbus-1/system-services/net.regloc.RegLoc1.service" \
         "$datadir/polkit-1/actions/net.regloc.policy" \
         "$datadir/pkgconfig/regloc.pc" \
         "$datadir/man/man1/regloc.1" "$datadir/man/man8/reglocd.8" "$datadir/man/man5/regloc.conf.5"; do
  [ -f "$S$f" ] || fail "not installed: $f"
done
unit=$(find "$S" -name reglocd.service -path '*/systemd/system/*' | head -n 1)
[ -n "$unit" ] || fail "reglocd.service not installed"
catalog=$(find "$S" -name regloc.catalog -path '*/systemd/catalog/*' | head -n 1)
[ -n "$catalog" ] || fail "regloc.catalog not installed"
completion=$(find "$S" -name regloc -path '*/bash-completion/completions/*' | head -n 1)
[ -n "$completion" ] || fail "bash completion not installed"
# everything the tree ships in data/trips is installed
for t in "$src"/data/trips/*.scn; do
  [ -f "$S$datadir/regloc/trips/$(basename "$t")" ] || fail "trip not installed: $(basename "$t")"
done
# the unit and the activation file start the installed daemon; the pc file
# points at the installed XML
[ -n "$unit" ] && { grep -qx "ExecStart=$sbindir/reglocd" "$unit" || fail "$unit: ExecStart is not $sbindir/reglocd"; }
grep -qx "Exec=$sbindir/reglocd" "$S$datadir/dbus-1/system-services/net.regloc.RegLoc1.service" || fail "activation file: Exec"
if [ -f "$S$datadir/pkgconfig/regloc.pc" ]; then
  iface=$(PKG_CONFIG_PATH="$S$datadir/pkgconfig" pkg-config --define-variable=prefix="$prefix" --variable=dbus_interface regloc)
  [ "$iface" = "$datadir/dbus-1/interfaces/net.regloc.RegLoc1.Manager.xml" ] || fail "regloc.pc: dbus_interface=$iface"
fi

# 2. no build or source path in any installed file
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_files=0
for f in $(find "$S" -type f); do
  n_files=$((n_files + 1))
  if head -c 4 "$f" | grep -q 'ELF'; then
    objcopy --strip-debug "$f" "$tmp/stripped" || { fail "objcopy $f"; continue; }
    strings -a "$tmp/stripped" >"$tmp/text"
  else
    cp "$f" "$tmp/text"
  fi
  for dir in "$build" "$src" "$(cd "$build" && pwd -P)" "$(cd "$src" && pwd -P)"; do
    if grep -qF "$dir" "$tmp/text"; then
      fail "${f#$S} names $dir: $(grep -F "$dir" "$tmp/text" | head -n 3 | tr '\n' ' ')"
    fi
  done
done
echo "checked $n_files installed files for build and source paths"

# 3. the catalog: journalctl compiles it, and it has every MESSAGE_ID
ids=$(grep -rh 'MESSAGE_ID' "$src/daemon" | grep -oE '"[0-9a-f]{32}"' | tr -d '"' | sort -u)
[ -n "$ids" ] || fail "no MESSAGE_ID found in daemon/"
for id in $ids; do
  [ -n "$catalog" ] && { grep -q "^-- $id\$" "$catalog" || fail "catalog: no entry for MESSAGE_ID $id"; }
done
if command -v journalctl >/dev/null && [ -n "$catalog" ]; then
  mkdir -p "$tmp/root/usr/lib/systemd/catalog" "$tmp/root/var/lib/systemd/catalog"
  cp "$catalog" "$tmp/root/usr/lib/systemd/catalog/"
  journalctl --root="$tmp/root" --update-catalog 2>"$tmp/catalog.err" || fail "journalctl --update-catalog: $(cat "$tmp/catalog.err")"
  [ -s "$tmp/catalog.err" ] && fail "journalctl --update-catalog complained: $(cat "$tmp/catalog.err")"
  journalctl --root="$tmp/root" --list-catalog >"$tmp/catalog.list" 2>&1
  for id in $ids; do
    grep -q "^$id regloc" "$tmp/catalog.list" || fail "journalctl --list-catalog lacks $id: $(cat "$tmp/catalog.list")"
  done
  echo "catalog: $(echo "$ids" | wc -l) MESSAGE_IDs, compiled by journalctl"
else
  echo "note: no journalctl; the catalog was checked for its MESSAGE_IDs only"
fi

# 4. the installed binaries find their data where they were installed
run_installed=skipped
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --mount --propagation private true 2>/dev/null; then
  share=$datadir
  cat >"$tmp/run.sh" <<RUN
set -eu
mount -t overlay overlay -o "lowerdir=$S$share:$share" "$share"
cd /
echo "== regloc lookup 48.5734 7.7521 (Strasbourg)"
out=\$("$S$bindir/regloc" lookup 48.5734 7.7521)
echo "\$out"
echo "\$out" | grep -q FR
echo "== regloc replay --check 15-territory.scn"
"$S$bindir/regloc" replay --check --scenario "$src/data/scenarios/15-territory.scn"
echo "== reglocd --no-bus --no-apply --replay sample-trip"
STATE_DIRECTORY="$tmp/state" "$S$sbindir/reglocd" --no-bus --no-apply --config "$S$sysconfdir/regloc/regloc.conf" \
  --replay sample-trip --replay-speed 200 >"$tmp/reglocd.log" 2>&1 &
pid=\$!
i=0
until grep -q 'country=DE state=decided' "$tmp/reglocd.log"; do
  sleep 0.2; i=\$((i + 1))
  if [ \$i -gt 100 ] || ! kill -0 \$pid 2>/dev/null; then cat "$tmp/reglocd.log"; kill \$pid 2>/dev/null; exit 1; fi
done
kill -TERM \$pid
wait \$pid
grep -E 'Replaying|country=DE' "$tmp/reglocd.log"
RUN
  if [ ! -d "$share" ]; then
    echo "SKIP: $share does not exist here: nothing to lay the staged files over" >&2
  elif [ -e /lib/firmware/regulatory.db ] && [ -d /usr/share/zoneinfo ]; then
    if unshare --mount --propagation private sh "$tmp/run.sh"; then
      run_installed=passed
    else
      fail "the installed binaries did not find their data at $datadir/regloc"
    fi
  else
    echo "SKIP: no /lib/firmware/regulatory.db or /usr/share/zoneinfo (Debian: wireless-regdb, tzdata)" >&2
  fi
else
  echo "SKIP: running the installed binaries at their paths needs root and unshare(1) (a private mount namespace)" >&2
fi

[ $failed = 0 ] || exit 1
[ $run_installed = passed ] || exit 77
echo "install: ok"
