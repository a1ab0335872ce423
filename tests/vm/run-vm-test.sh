#!/bin/sh
# End-to-end test of the nl80211 path: a Debian kernel in qemu (TCG), with
# mac80211_hwsim radios, hostapd access points and the daemon under test.
#
# usage: run-vm-test.sh WORKDIR DAEMON_BINARY KIND [REGLOC_CLI]
#   KIND is "reglocd" (the real daemon, on the VM's system bus) or "probe" (tests/vm/wifi-probe).
#   With REGLOC_CLI, `regloc record` runs in the VM too and its scan log is
#   replayed on the host with `regloc replay --scans`.
# Environment: RL_VM_CACHE (where the kernel .deb is kept; default WORKDIR/cache),
#   RL_VM_TIMEOUT (seconds for qemu, default 420), RL_VM_MAX_AGE (beacon max age, 20),
#   RL_VM_RECORD_RAW=1 (probe only: print the raw nl80211 messages into the result file),
#   RL_VM_DATADIR (the source tree's data/, for territories.tsv).
# Exit: 0 pass, 1 fail, 77 skip (only when qemu cannot run at all).
set -eu

work=$1
daemon=$2
kind=$3
cli=${4:-}
cache=${RL_VM_CACHE:-$work/cache}
timeout_s=${RL_VM_TIMEOUT:-420}
max_age=${RL_VM_MAX_AGE:-20}
here=$(cd "$(dirname "$0")" && pwd)

skip () { echo "SKIP: VM test cannot run: $*" >&2; echo "SKIP: VM test cannot run: $*"; exit 77; }
die () { echo "FAIL: $*" >&2; exit 1; }

command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
qemu-system-x86_64 -accel help 2>/dev/null | grep -q tcg || skip "this qemu has no TCG accelerator"
for tool in busybox iw hostapd depmod cpio dpkg apt-cache dbus-daemon wpa_supplicant wpa_cli gdbus; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing: install the packages the README's test command lists"
done
[ -x "$daemon" ] || die "no daemon binary at $daemon"
regdb=/lib/firmware/regulatory.db
[ -e "$regdb" ] || die "$regdb is missing (install wireless-regdb)"

# --- kernel: the version linux-image-amd64 points at, never hard-coded
mkdir -p "$cache"
kernel_pkg () { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
pkg=$(kernel_pkg)
if [ -z "$pkg" ]; then
  # a machine whose package lists were never fetched (or were cleaned): fetch them once
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  echo "apt-cache does not know linux-image-amd64: running apt-get update"
  $sudo apt-get update -qq >/dev/null 2>&1 || true
  pkg=$(kernel_pkg)
fi
[ -n "$pkg" ] || die "apt-cache does not know linux-image-amd64 (run apt-get update)"
deb=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
  echo "downloading $pkg into $cache"
  (cd "$cache" && apt-get download "$pkg") || die "apt-get download $pkg failed"
  deb=$(ls "$cache/${pkg}"_*.deb | head -n 1)
fi
kroot=$cache/${pkg}.unpacked
if [ ! -d "$kroot/boot" ]; then
  rm -rf "$kroot.tmp" && dpkg -x "$deb" "$kroot.tmp" && mv "$kroot.tmp" "$kroot"
fi
vmlinuz=$(ls "$kroot"/boot/vmlinuz-* | head -n 1)
kv=${vmlinuz##*/vmlinuz-}
mods=$kroot/lib/modules/$kv

# --- initramfs
root=$work/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/lib/firmware" \
  "$root/etc" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/usr/share/zoneinfo/Europe" \
  "$root/lib/modules/$kv" "$root/var/lib/regloc" "$root/run"
cp "$(command -v busybox)" "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
  [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
copy_with_libs () {
  mkdir -p "$root$(dirname "$2")"
  cp -L "$1" "$root$2"
  ldd "$1" | grep -oE '/[^ ]+' | while read -r lib; do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}
copy_with_libs "$(command -v iw)" /usr/sbin/iw
copy_with_libs "$(command -v hostapd)" /usr/sbin/hostapd
copy_with_libs "$daemon" /usr/sbin/rl-daemon-under-test
[ -n "$cli" ] && copy_with_libs "$cli" /usr/bin/regloc

# --- the system bus: Debian's dbus-daemon and system.conf, the shipped policy
#     of net.regloc.RegLoc1 and Debian's of wpa_supplicant (root and netdev
#     may call it); gdbus to read properties, wpa_supplicant and wpa_cli
copy_with_libs "$(command -v dbus-daemon)" /usr/bin/dbus-daemon
copy_with_libs "$(command -v gdbus)" /usr/bin/gdbus
copy_with_libs "$(command -v wpa_supplicant)" /usr/sbin/wpa_supplicant
copy_with_libs "$(command -v wpa_cli)" /usr/sbin/wpa_cli
mkdir -p "$root/usr/share/dbus-1/system.d" "$root/etc/dbus-1/system.d" "$root/run/dbus" "$root/var/lib/dbus"
# GLib's default system bus address is /var/run/dbus/system_bus_socket: as on Debian, /var/run is /run
ln -s ../run "$root/var/run"
cp -L /usr/share/dbus-1/system.conf "$root/usr/share/dbus-1/system.conf"
cp "$here/../../dbus/net.regloc.RegLoc1.conf" "$root/usr/share/dbus-1/system.d/"
for f in /etc/dbus-1/system.d/wpa_supplicant.conf /usr/share/dbus-1/system.d/wpa_supplicant.conf; do
  [ -e "$f" ] && cp -L "$f" "$root/usr/share/dbus-1/system.d/wpa_supplicant.conf"
done
[ -e "$root/usr/share/dbus-1/system.d/wpa_supplicant.conf" ] || die "wpa_supplicant's D-Bus policy is missing (install wpasupplicant)"
printf 'root:x:0:0:root:/root:/bin/sh\nmessagebus:x:100:101::/nonexistent:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nmessagebus:x:101:\nnetdev:x:102:\n' > "$root/etc/group"
printf 'passwd: files\ngroup: files\n' > "$root/etc/nsswitch.conf"
echo 5f3c0e4a9b1d4c7e8a2f6b0d1c3e5a79 > "$root/etc/machine-id"
cp "$root/etc/machine-id" "$root/var/lib/dbus/machine-id"
# cp -L: on Debian these are alternatives symlinks
cp -L "$regdb" "$root/lib/firmware/regulatory.db"
[ -e "$regdb.p7s" ] && cp -L "$regdb.p7s" "$root/lib/firmware/regulatory.db.p7s"
zi=/usr/share/zoneinfo
for f in zone1970.tab zone.tab tzdata.zi; do
  [ -e "$zi/$f" ] && cp -L "$zi/$f" "$root/usr/share/zoneinfo/$f"
done
cp -L "$zi/Europe/Berlin" "$root/usr/share/zoneinfo/Europe/Berlin"
ln -s ../usr/share/zoneinfo/Europe/Berlin "$root/etc/localtime"
for m in net/rfkill/rfkill.ko lib/crypto/libarc4.ko net/wireless/cfg80211.ko \
         drivers/virtio/virtio_ring.ko drivers/virtio/virtio.ko net/mac80211/mac80211.ko \
         drivers/net/wireless/mac80211_hwsim.ko; do
  [ -e "$mods/kernel/$m" ] || die "kernel module $m missing from $pkg"
  mkdir -p "$root/lib/modules/$kv/kernel/$(dirname "$m")"
  cp "$mods/kernel/$m" "$root/lib/modules/$kv/kernel/$m"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
  [ -e "$mods/$f" ] && cp "$mods/$f" "$root/lib/modules/$kv/"
done
depmod -b "$root" "$kv"

territories=
if [ -n "${RL_VM_DATADIR:-}" ] && [ -e "$RL_VM_DATADIR/territories.tsv" ]; then
  mkdir -p "$root/etc/regloc"
  cp "$RL_VM_DATADIR/territories.tsv" "$root/etc/regloc/territories.tsv"
  territories=/etc/regloc/territories.tsv
fi
cat > "$root/etc/regloc.conf" <<CONF
[general]
apply=true
regulatory_db=/lib/firmware/regulatory.db
territories=$territories
zoneinfo_dir=/usr/share/zoneinfo

[policy]
hold_down=4
max_age_beacons=$max_age

[gps]
enabled=false

[beacons]
enabled=true
scan_interval=0

[timezone]
enabled=true
localtime=/etc/localtime
CONF

case $kind in
  reglocd) cmd="env TZ=UTC /usr/sbin/rl-daemon-under-test --verbose --config /etc/regloc.conf" ;;
  probe) cmd="env G_MESSAGES_DEBUG=all /usr/sbin/rl-daemon-under-test $max_age" ;;
  *) die "unknown daemon kind $kind" ;;
esac
raw=":"
# RL_VM_RECORD_RAW=1 (probe only): also print every nl80211 message as hex
[ "${RL_VM_RECORD_RAW:-0}" = 1 ] && [ "$kind" = probe ] && raw="/usr/sbin/rl-daemon-under-test --raw > /tmp/raw.log 2>\&1 \&"
sed -e "s|@DAEMON_CMD@|$cmd|" -e "s|@RAW_CMD@|$raw|" -e "s|@MAX_AGE@|$max_age|" -e "s|@KIND@|$kind|" -e "s|@DE_WAIT@|60|" \
  "$here/init.sh.in" > "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -6 > "$work/initramfs.cpio.gz"

# --- boot
result=$work/result.txt
console=$work/console.txt
rm -f "$result"
echo "booting $kv with $kind under TCG (log: $console)"
set +e
timeout "$timeout_s" qemu-system-x86_64 -accel tcg -m 512 -smp 2 -nographic -no-reboot -nic none \
  -serial file:"$console" -serial file:"$result" -monitor none \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
  -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 loglevel=4" </dev/null
rc=$?
set -e
cat "$result" 2>/dev/null || true
case $rc in
  1) ;;
  124) echo "--- console (tail)"; tail -n 60 "$console" | tr -d '\r'; die "qemu timed out after ${timeout_s}s" ;;
  3) ;;
  *) echo "--- console (tail)"; tail -n 60 "$console" | tr -d '\r'; die "qemu exited with $rc" ;;
esac
grep -q '^RESULT PASS' "$result" || { echo "--- console (tail)"; tail -n 80 "$console" | tr -d '\r'; die "the VM test failed"; }
# The recording made in the VM, replayed here: the DE APs must show up as
# evidence and the scan log must be readable line by line.
if [ -n "$cli" ]; then
  sed -n 's/^SCANLOG //p' "$result" > "$work/scans.jsonl"
  [ -s "$work/scans.jsonl" ] || die "regloc record wrote nothing in the VM"
  "$cli" replay --scans "$work/scans.jsonl" --format json > "$work/replay.json" || die "regloc replay --scans failed on the VM's scan log"
  grep -q '"scans.bss_used" *: *3' "$work/replay.json" || { cat "$work/replay.json"; die "the replay did not use the three APs heard in the VM"; }
  grep -q '"scans.skipped' "$work/replay.json" && { cat "$work/replay.json"; die "the replay skipped lines of the VM's scan log"; }
  grep -q '"scans.scan_records"' "$work/replay.json" || { cat "$work/replay.json"; die "the VM's scan log has no scan records (the end of each scan)"; }
  echo "replayed $(wc -l < "$work/scans.jsonl") scan log lines recorded in the VM"
fi
echo "PASS: VM test ($kind)"
