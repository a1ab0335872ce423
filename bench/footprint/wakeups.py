#!/usr/bin/env python3
'''Wake-ups of the idle reglocd, configuration by configuration
(see docs/benchmarks.md, "Idle wake-ups").

For each configuration, on one private dbus-daemon that stands in for the
system bus: start reglocd (--no-apply), let it settle, then count over the
window how often each of its threads was switched in: voluntary +
involuntary context switches from /proc/PID/task/*/status, plus one for
every thread that came or went.  A thread blocked in poll() without a
timeout counts 0; every timer expiry, retry or event counts at least 1.

Configurations (nothing here runs gpsd or ModemManager):
  all          every source enabled (the defaults)
  no-gps       [gps] enabled=false
  gps-only     only the GPS source
  cell-only    only the cell source (ModemManager's bus name watched)
  remote-gps   only the GPS source, gpsd configured on another host

Not a CI test: it takes about len(configs) × (SETTLE + DURATION) seconds.
Usage: wakeups.py REGLOCD [--duration 60] [--settle 20] [--config NAME ...]
       [--strace]   (also log the wake-ups' system calls, to find them)'''

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import connect, first_answer, start_bus, status_kb, stop, switches  # noqa: E402

ALL_OFF = {'gps': 'enabled=false', 'beacons': 'enabled=false', 'timezone': 'enabled=false',
           'cell': 'enabled=false'}
CONFIGS = {
    'all': {},
    'no-gps': {'gps': 'enabled=false'},
    'gps-only': dict(ALL_OFF, gps='enabled=true'),
    'cell-only': dict(ALL_OFF, cell='enabled=true'),
    # TEST-NET-1 (RFC 5737): never answers; a remote gpsd is retried with a slow back-off
    'remote-gps': dict(ALL_OFF, gps='enabled=true\nhost=192.0.2.1'),
}
TARGET = ('net.regloc.RegLoc1', '/net/regloc/RegLoc1/Manager', 'net.regloc.RegLoc1.Manager', 'Country')


def write_config(path, groups):
    with open(path, 'w') as f:
        f.write('[general]\napply=false\n')
        for group, body in groups.items():
            f.write(f'[{group}]\n{body}\n')


def measure(name, bus, reglocd, env, tmp, settle, duration, trace):
    conf = os.path.join(tmp, f'{name}.conf')
    write_config(conf, CONFIGS[name])
    _, proc = first_answer(bus, [reglocd, '--no-apply', '-c', conf], env, *TARGET)
    time.sleep(settle)
    tracer = None
    if trace:
        out = os.path.join(tmp, f'{name}.strace')
        tracer = subprocess.Popen(['strace', '-f', '-tt', '-o', out, '-e',
                                   'trace=poll,ppoll,epoll_wait,epoll_pwait,futex,timerfd_settime,'
                                   'nanosleep,clock_nanosleep,connect', '-p', str(proc.pid)],
                                  stderr=subprocess.DEVNULL)
        time.sleep(1)   # attaching is not a wake-up of the daemon's own
    before = switches(proc.pid)
    t0 = time.monotonic()
    time.sleep(duration)
    after = switches(proc.pid)
    elapsed = time.monotonic() - t0
    per_thread = {tid: n - before.get(tid, 0) for tid, n in after.items()}
    gone = len(set(before) - set(after))
    rss = status_kb(proc.pid, 'VmRSS')
    if tracer is not None:
        tracer.terminate()
        tracer.wait()
        with open(out) as f:
            sys.stderr.write(f'--- {name}: strace ---\n' + f.read())
    stop(proc)
    return name, sum(per_thread.values()) + gone, elapsed, len(after), rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('reglocd')
    ap.add_argument('--duration', type=float, default=60)
    # GLib's thread pool lets an idle start-up thread go after 15 s: idle means after that.
    ap.add_argument('--settle', type=float, default=20)
    ap.add_argument('--config', action='append', choices=sorted(CONFIGS))
    ap.add_argument('--strace', action='store_true')
    args = ap.parse_args()
    if args.strace:
        # ptrace itself switches the traced threads: count without it
        print('with --strace the counts include the tracer\'s own stops', file=sys.stderr)

    rows = []
    with tempfile.TemporaryDirectory(prefix='regloc-wakeups-') as tmp:
        address, bus_pid = start_bus(tmp)
        try:
            env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, DBUS_SESSION_BUS_ADDRESS=address,
                       STATE_DIRECTORY=os.path.join(tmp, 'state'))
            build = os.path.dirname(os.path.dirname(os.path.abspath(args.reglocd)))
            if 'REGLOC_DATADIR' not in env and os.path.exists(os.path.join(build, 'data', 'boundaries.idx')):
                source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
                env['REGLOC_DATADIR'] = os.path.join(build, 'data') + ':' + os.path.join(source, 'data')
            bus = connect(address)
            for name in args.config or list(CONFIGS):
                rows.append(measure(name, bus, args.reglocd, env, tmp, args.settle, args.duration, args.strace))
        finally:
            subprocess.run(['kill', str(bus_pid)])

    print(f'{"configuration":14} {"wake-ups":>8} {"window s":>9} {"threads":>8} {"RSS kB":>8}')
    for name, n, elapsed, threads, rss in rows:
        print(f'{name:14} {n:8d} {elapsed:9.0f} {threads:8d} {rss:8d}')


if __name__ == '__main__':
    main()
