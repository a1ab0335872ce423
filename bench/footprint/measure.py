#!/usr/bin/env python3
'''Footprint of reglocd next to GeoClue (geoclue-2.0), measured the same way
in the same run (see docs/benchmarks.md, "Daemon footprint").

For each daemon, on one private dbus-daemon that stands in for the system bus:
  start-up  time from spawn to the first answered D-Bus call (median of N
            runs; reglocd: Get(Country), geoclue: Get(AvailableAccuracyLevel))
  idle      RSS (VmRSS) after settling, and wake-ups per second over the
            window: the sum of voluntary + involuntary context switches of
            every thread (/proc/PID/task/*/status) divided by the seconds.

Not a CI test: it takes about 2 × (DURATION + 10) seconds.
Usage: measure.py REGLOCD [--duration 60] [--runs 10] [--geoclue PATH]'''

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

BUS_CONF = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
'''


def start_bus(tmp):
    conf = os.path.join(tmp, 'bus.conf')
    with open(conf, 'w') as f:
        f.write(BUS_CONF)
    out = subprocess.check_output(['dbus-daemon', f'--config-file={conf}', '--fork',
                                   '--print-address=1', '--print-pid=1'], text=True).split()
    return out[0], int(out[1])


def connect(address):
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def first_answer(bus, argv, env, name, path, iface, prop, timeout=10.0):
    '''Seconds from spawn to the first successful Get, and the process.'''
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.perf_counter() - t0 < timeout:
        try:
            bus.call_sync(name, path, 'org.freedesktop.DBus.Properties', 'Get',
                          GLib.Variant('(ss)', (iface, prop)), None, Gio.DBusCallFlags.NO_AUTO_START, 1000, None)
            return time.perf_counter() - t0, proc
        except GLib.Error:
            if proc.poll() is not None:
                raise RuntimeError(f'{argv[0]} exited with {proc.returncode}')
            time.sleep(0.0005)
    proc.kill()
    raise RuntimeError(f'{argv[0]} did not answer within {timeout} s')


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def switches(pid):
    '''{thread id: voluntary + involuntary context switches}'''
    counts = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/status') as f:
                counts[tid] = sum(int(line.split()[1]) for line in f
                                  if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')))
        except FileNotFoundError:
            pass
    return counts


def status_kb(pid, key):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    return 0


def measure(label, bus, argv, env, target, runs, duration, settle):
    times = []
    for _ in range(runs):
        t, proc = first_answer(bus, argv, env, *target)
        times.append(t * 1000)
        stop(proc)
        time.sleep(0.2)
    _, proc = first_answer(bus, argv, env, *target)
    time.sleep(settle)
    before = switches(proc.pid)
    t0 = time.monotonic()
    time.sleep(duration)
    after = switches(proc.pid)
    elapsed = time.monotonic() - t0
    # Threads that came or went in the window woke up at least once each.
    delta = sum(n - before.get(tid, 0) for tid, n in after.items())
    delta += len(set(before) - set(after))
    rss = status_kb(proc.pid, 'VmRSS')
    threads = len(os.listdir(f'/proc/{proc.pid}/task'))
    stop(proc)
    return {
        'daemon': label,
        'startup_ms_median': statistics.median(times),
        'startup_ms_min': min(times),
        'startup_ms_max': max(times),
        'rss_kb': rss,
        'threads': threads,
        'wakeups_per_s': delta / elapsed,
        'switches': delta,
        'window_s': elapsed,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('reglocd')
    ap.add_argument('--duration', type=float, default=60)
    ap.add_argument('--runs', type=int, default=10)
    # GLib's thread pool lets an idle start-up thread go after 15 s: idle
    # means after that.
    ap.add_argument('--settle', type=float, default=20)
    ap.add_argument('--geoclue', default='/usr/libexec/geoclue')
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix='regloc-bench-') as tmp:
        address, bus_pid = start_bus(tmp)
        try:
            env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, DBUS_SESSION_BUS_ADDRESS=address,
                       STATE_DIRECTORY=os.path.join(tmp, 'state'))
            # an uninstalled build's reglocd finds its data as installed: run
            # it the way `meson devenv` would (an installed one needs nothing)
            build = os.path.dirname(os.path.dirname(os.path.abspath(args.reglocd)))
            if 'REGLOC_DATADIR' not in env and os.path.exists(os.path.join(build, 'data', 'boundaries.idx')):
                source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
                env['REGLOC_DATADIR'] = os.path.join(build, 'data') + ':' + os.path.join(source, 'data')
            bus = connect(address)
            # --no-apply: a benchmark must not change the host's regulatory domain.
            results = [measure('reglocd', bus, [args.reglocd, '--no-apply'], env,
                               ('net.regloc.RegLoc1', '/net/regloc/RegLoc1/Manager',
                                'net.regloc.RegLoc1.Manager', 'Country'),
                               args.runs, args.duration, args.settle)]
            if os.access(args.geoclue, os.X_OK):
                results.append(measure('geoclue', bus, [args.geoclue, '--timeout=0'], env,
                                       ('org.freedesktop.GeoClue2', '/org/freedesktop/GeoClue2/Manager',
                                        'org.freedesktop.GeoClue2.Manager', 'AvailableAccuracyLevel'),
                                       args.runs, args.duration, args.settle))
            else:
                print(f'geoclue not found at {args.geoclue} (Debian package geoclue-2.0): '
                      'measuring reglocd alone', file=sys.stderr)
        finally:
            subprocess.run(['kill', str(bus_pid)])

    print(f'{"daemon":10} {"start-up ms (median/min/max)":>30} {"RSS kB":>8} {"threads":>8} {"wake-ups/s":>11}')
    for r in results:
        print(f'{r["daemon"]:10} {r["startup_ms_median"]:12.1f} /{r["startup_ms_min"]:6.1f} /{r["startup_ms_max"]:6.1f}'
              f' {r["rss_kb"]:8d} {r["threads"]:8d} {r["wakeups_per_s"]:11.3f}'
              f'   ({r["switches"]} switches in {r["window_s"]:.0f} s)')


if __name__ == '__main__':
    main()
