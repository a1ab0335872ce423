#!/usr/bin/env python3
"""reglocd under D-Bus load, with polkit kept busy by a hostile caller.

A private system bus, python-dbusmock's polkitd template (read-location
refused; every read-location check hangs, as an agent that never answers),
and reglocd.  Then, at the same time:
  - CLIENTS processes each make CALLS calls (GetAll and Get Country in
    turn: what NetworkManager-style clients do) and time each one (the
    read-location methods would wait on the hung polkit like the hostile
    caller's);
  - one hostile connection sends HOLD GetEvidence calls that all wait on
    polkit;
  - an administrator alternates SetOverride/ClearOverride ADMIN times.
Prints calls/s and latency percentiles of the clients, how the hostile
calls were answered, and how many admin calls succeeded (all must).

Usage: bench/bus-load/load.py REGLOCD [--clients 20] [--calls 2000] [--hold 200] [--admin 100]
"""
import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

import dbus
import dbusmock
import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = 'net.regloc.RegLoc1'
PATH = '/net/regloc/RegLoc1/Manager'
IFACE = 'net.regloc.RegLoc1.Manager'
ZONEINFO = '/usr/share/zoneinfo'


def connect(address):
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def client(address, calls, start_at, out):
    conn = connect(address)
    latencies, errors = [], 0
    while time.monotonic() < start_at:
        time.sleep(0.001)
    for i in range(calls):
        t0 = time.perf_counter()
        try:
            if i % 2 == 0:
                conn.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'GetAll',
                               GLib.Variant('(s)', (IFACE,)), None, 0, 10000, None)
            else:
                conn.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'Get',
                               GLib.Variant('(ss)', (IFACE, 'Country')), None, 0, 10000, None)
        except GLib.Error:
            errors += 1
        latencies.append(time.perf_counter() - t0)
    out.put((latencies, errors))


def admin(address, n, start_at, out):
    conn = connect(address)
    ok = 0
    failures = []
    while time.monotonic() < start_at:
        time.sleep(0.001)
    for i in range(n):
        method, args = (('SetOverride', GLib.Variant('(s)', ('FR',))) if i % 2 == 0 else ('ClearOverride', None))
        try:
            conn.call_sync(NAME, PATH, IFACE, method, args, None, 0, 10000, None)
            ok += 1
        except GLib.Error as e:
            failures.append(e.message)
        time.sleep(0.01)
    out.put((ok, failures))


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(p / 100.0 * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('reglocd')
    ap.add_argument('--clients', type=int, default=20)
    ap.add_argument('--calls', type=int, default=2000)
    ap.add_argument('--hold', type=int, default=200)
    ap.add_argument('--admin', type=int, default=100)
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix='regloc-load-')
    dbusmock.DBusTestCase.start_system_bus()
    address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
    polkit, obj = dbusmock.DBusTestCase.spawn_server_template('polkitd', {}, stdout=subprocess.DEVNULL)
    obj.SetAllowed(dbus.Array(['net.regloc.override'], signature='s'), dbus_interface=dbusmock.MOCK_IFACE)
    obj.SimulateHangActions(dbus.Array(['net.regloc.read-location'], signature='s'),
                            dbus_interface=dbusmock.MOCK_IFACE)
    config = os.path.join(tmp.name, 'regloc.conf')
    localtime = os.path.join(tmp.name, 'localtime')
    os.symlink(os.path.join(ZONEINFO, 'Europe/Berlin'), localtime)
    with open(config, 'w') as f:
        f.write(f'[general]\napply=false\nzoneinfo_dir={ZONEINFO}\n[gps]\nenabled=false\n'
                f'[beacons]\nenabled=false\n[timezone]\nlocaltime={localtime}\n')
    env = dict(os.environ, STATE_DIRECTORY=os.path.join(tmp.name, 'state'))
    daemon = subprocess.Popen([args.reglocd, '--config', config], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bus = connect(address)
    for _ in range(500):
        owned = bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                              'NameHasOwner', GLib.Variant('(s)', (NAME,)), None, 0, -1, None).unpack()[0]
        if owned:
            break
        time.sleep(0.01)
    rss_before = int(open(f'/proc/{daemon.pid}/status').read().split('VmRSS:')[1].split()[0])

    # The hostile caller: every GetEvidence waits on polkit.
    hostile = connect(address)
    held = {'ok': 0, 'limits': 0, 'other': 0}

    def done(c, res, _):
        try:
            c.call_finish(res)
            held['ok'] += 1
        except GLib.Error as e:
            held['limits' if 'LimitsExceeded' in (Gio.DBusError.get_remote_error(e) or '') else 'other'] += 1
    for _ in range(args.hold):
        hostile.call(NAME, PATH, IFACE, 'GetEvidence', None, None, 0, 120000, None, done, None)
    ctx = GLib.MainContext.default()
    end = time.monotonic() + 2
    while time.monotonic() < end:
        ctx.iteration(False)
        time.sleep(0.005)

    queue = multiprocessing.Queue()
    start_at = time.monotonic() + 0.5
    procs = [multiprocessing.Process(target=client, args=(address, args.calls, start_at, queue))
             for _ in range(args.clients)]
    admin_q = multiprocessing.Queue()
    procs.append(multiprocessing.Process(target=admin, args=(address, args.admin, start_at, admin_q)))
    for p in procs:
        p.start()
    results = [queue.get() for _ in range(args.clients)]
    admin_ok, admin_failures = admin_q.get()
    for p in procs:
        p.join()
    elapsed = time.monotonic() - start_at
    rss_after = int(open(f'/proc/{daemon.pid}/status').read().split('VmRSS:')[1].split()[0])

    lat = sorted(x for r in results for x in r[0])
    errors = sum(r[1] for r in results)
    print(f'clients: {args.clients} x {args.calls} calls: {len(lat)} calls in {elapsed:.1f} s = '
          f'{len(lat) / elapsed:.0f} calls/s, errors {errors}')
    print(f'latency: p50 {percentile(lat, 50) * 1000:.1f} ms, p99 {percentile(lat, 99) * 1000:.1f} ms, '
          f'max {lat[-1] * 1000:.1f} ms')
    print(f'hostile caller: {args.hold} GetEvidence held by polkit: {held["limits"]} refused at once '
          f'(LimitsExceeded), {args.hold - held["limits"] - held["other"] - held["ok"]} still waiting')
    print(f'admin: {admin_ok}/{args.admin} SetOverride/ClearOverride succeeded')
    for msg in admin_failures[:5]:
        print(f'  admin failure: {msg}')
    print(f'reglocd RSS: {rss_before} kB before, {rss_after} kB after')
    obj.ReleaseHangingCalls(dbus_interface=dbusmock.MOCK_IFACE)
    daemon.terminate()
    daemon.wait()
    polkit.terminate()
    polkit.wait()
    dbusmock.DBusTestCase.tearDownClass()
    return 0 if admin_ok == args.admin and errors == 0 else 1


if __name__ == '__main__':
    # GDBus runs a worker thread: clients must not be forked from this process.
    multiprocessing.set_start_method('spawn')
    sys.exit(main())
