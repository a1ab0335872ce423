#!/usr/bin/env python3
'''Least privilege of reglocd, checked from the outside on the real binary:
the capabilities the kernel reports for it, the sockets it holds, the files
it writes, and the refusal of state changes to unauthorized callers.

Run through run-integration.sh (see test_reglocd.py for the harness).'''

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import unittest

from test_reglocd import REGLOCD, VALGRIND, SLOW, ReglocdTestCase
from gi.repository import GLib  # noqa: E402 (after test_reglocd's gi.require_version)

CAP_NET_ADMIN = 1 << 12
CAP_SETPCAP = 1 << 8
# include/net/af_unix.h: a socket in listen() carries __SO_ACCEPTCON.
SO_ACCEPTCON = 0x10000
TCP_LISTEN = 0x0A


def proc_status(path):
    fields = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(':')
            fields[key] = value.strip()
    return fields


def own_caps():
    s = proc_status('/proc/self/status')
    return {k: int(s[k], 16) for k in ('CapEff', 'CapPrm', 'CapBnd')}


class TestCapabilities(ReglocdTestCase):
    def setUp(self):
        # Before the base setUp: a skip there would leave its tearDown unrun.
        if os.geteuid() != 0:
            self.skipTest(f'the tests run as uid {os.geteuid()}, not root: reglocd has no '
                          'capabilities to drop here (run the suite as root to check the drop)')
        super().setUp()

    def thread_statuses(self, pid):
        tasks = os.listdir(f'/proc/{pid}/task')
        self.assertGreater(len(tasks), 0)
        return {t: proc_status(f'/proc/{pid}/task/{t}/status') for t in tasks}

    def test_root_keeps_only_cap_net_admin(self):
        mine = own_caps()
        self.spawn_polkit(allowed=[])
        self.start_daemon()
        # The bus connection runs in GDBus's own thread: every thread is checked,
        # capabilities being per thread.
        statuses = self.thread_statuses(self.daemon.pid)
        self.assertGreaterEqual(len(statuses), 2, 'GDBus worker thread expected')
        want_bnd = mine['CapBnd'] & CAP_NET_ADMIN if mine['CapEff'] & CAP_SETPCAP else mine['CapBnd']
        for tid, s in statuses.items():
            self.assertEqual(int(s['CapEff'], 16), mine['CapEff'] & CAP_NET_ADMIN, f'CapEff of thread {tid}')
            self.assertEqual(int(s['CapPrm'], 16), mine['CapPrm'] & CAP_NET_ADMIN, f'CapPrm of thread {tid}')
            self.assertEqual(int(s['CapBnd'], 16), want_bnd, f'CapBnd of thread {tid}')
            self.assertEqual(int(s['CapInh'], 16), 0, f'CapInh of thread {tid}')
            self.assertEqual(int(s['CapAmb'], 16), 0, f'CapAmb of thread {tid}')
            self.assertEqual(s['NoNewPrivs'], '1', f'NoNewPrivs of thread {tid}')
            self.assertEqual(s['Uid'].split()[1], '0', 'root stays root: it owns the state directory')
        self.wait_for_log(r'Privileges: keeping cap_net_admin; dropped .*cap_sys_admin', 'the privilege log line')
        # Still fully working after the drop: the bus, the config, the timezone.
        self.wait_for(lambda: 'Europe/Berlin' in self.source('timezone')[3], 'the timezone source')
        self.assertEqual(self.get('Country'), '00')

    @unittest.skipUnless(shutil.which('capsh'), 'capsh not found (Debian package libcap2-bin)')
    def test_unprivileged_user_with_ambient_capabilities(self):
        '''A non-root user handed CAP_NET_ADMIN and CAP_NET_RAW (ambient) keeps
        CAP_NET_ADMIN only; without CAP_SETPCAP the bounding set stays, said in the log.'''
        os.chmod(self.dir, 0o755)
        cmd = ['capsh', '--keep=1', '--user=nobody', '--inh=cap_net_admin,cap_net_raw',
               '--addamb=cap_net_admin,cap_net_raw', '--', '-c',
               'exec "$0" --no-bus --no-apply --config "$1"', REGLOCD, self.config]
        env = dict(os.environ, STATE_DIRECTORY=os.path.join(self.dir, 'nobody-state'))
        # appending: the daemon shares this file's offset, and the polling
        # below moves it back to 0 (without O_APPEND a line written then
        # lands over the start of the log)
        log = open(os.path.join(self.dir, 'nobody.log'), 'a+')
        p = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            def dropped():
                log.seek(0)
                return 'Privileges:' in log.read() or p.poll() is not None
            self.wait_for(dropped, 'the privilege log line')
            self.assertIsNone(p.poll(), 'reglocd exited')
            s = proc_status(f'/proc/{p.pid}/status')
            self.assertNotEqual(s['Uid'].split()[1], '0')
            self.assertEqual(int(s['CapEff'], 16), CAP_NET_ADMIN)
            self.assertEqual(int(s['CapPrm'], 16), CAP_NET_ADMIN)
            self.assertEqual(int(s['CapAmb'], 16), 0)
            self.assertEqual(s['NoNewPrivs'], '1')
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=10 * SLOW)
        log.seek(0)
        out = log.read()
        self.assertEqual(p.returncode, 0, out)
        self.assertIn('dropped cap_net_raw from the permitted set', out)
        self.assertIn('Cannot shrink the capability bounding set without CAP_SETPCAP', out)

    @unittest.skipUnless(shutil.which('setpriv'), 'setpriv not found (Debian package util-linux)')
    def test_already_reduced_as_under_systemd(self):
        '''Root with the bounding set already CAP_NET_ADMIN and no_new_privs set,
        as the unit file leaves it: nothing to do, no capset, a debug line only.'''
        env = dict(os.environ, STATE_DIRECTORY=self.state)
        p = subprocess.Popen(['setpriv', '--bounding-set', '-all,+net_admin', '--inh-caps', '-all',
                              '--no-new-privs', REGLOCD, '--no-bus', '--no-apply', '--verbose',
                              '--config', self.config], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1 * SLOW)
        self.assertIsNone(p.poll(), 'reglocd exited')
        s = proc_status(f'/proc/{p.pid}/status')
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=10 * SLOW)[0]
        self.assertEqual(p.returncode, 0, out)
        self.assertEqual(int(s['CapEff'], 16), CAP_NET_ADMIN)
        self.assertEqual(int(s['CapBnd'], 16), CAP_NET_ADMIN)
        self.assertIn('Privileges: cap_net_admin only already', out)
        self.assertNotIn('dropped', out)

    def test_ordinary_user_is_left_alone(self):
        os.chmod(self.dir, 0o755)
        env = dict(os.environ, STATE_DIRECTORY=os.path.join(self.dir, 'nobody-state'))
        p = subprocess.Popen([REGLOCD, '--no-bus', '--no-apply', '--config', self.config], env=env,
                             user='nobody', stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1 * SLOW)
        self.assertIsNone(p.poll(), 'reglocd exited as an ordinary user')
        s = proc_status(f'/proc/{p.pid}/status')
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=10 * SLOW)[0]
        self.assertEqual(p.returncode, 0, out)
        self.assertEqual(int(s['CapEff'], 16), 0)
        self.assertEqual(s['NoNewPrivs'], '0', 'nothing to give up, nothing done')
        self.assertNotIn('Privileges:', out)
        self.assertIn('Decision: country=00', out)


def socket_inodes(pid):
    inodes = set()
    for fd in os.listdir(f'/proc/{pid}/fd'):
        try:
            target = os.readlink(f'/proc/{pid}/fd/{fd}')
        except FileNotFoundError:
            continue
        m = re.fullmatch(r'socket:\[(\d+)\]', target)
        if m:
            inodes.add(int(m.group(1)))
    return inodes


def proc_net_rows(pid, name):
    try:
        with open(f'/proc/{pid}/net/{name}') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    return [line.split() for line in lines[1:] if line.strip()]


def open_to_the_world(pid):
    '''The sockets of @pid another process can reach uninvited: listening
    TCP and AF_UNIX sockets, any UDP, raw or packet socket.  Also returns
    the tables its other sockets were found in, to show the check is not blind.'''
    inodes = socket_inodes(pid)
    found, seen = [], set()
    for table in ('tcp', 'tcp6'):
        for row in proc_net_rows(pid, table):
            if int(row[9]) in inodes:
                seen.add(table)
                if int(row[3], 16) == TCP_LISTEN:
                    found.append(f'{table} listening on {row[1]}')
    for table in ('udp', 'udp6', 'raw', 'raw6'):
        for row in proc_net_rows(pid, table):
            if int(row[9]) in inodes:
                found.append(f'{table} bound to {row[1]}')
    for row in proc_net_rows(pid, 'packet'):
        if int(row[-1]) in inodes:
            found.append('packet socket')
    for row in proc_net_rows(pid, 'unix'):
        if int(row[6]) in inodes:
            seen.add('unix')
            if int(row[3], 16) & SO_ACCEPTCON:
                found.append(f'unix listening on {row[7] if len(row) > 7 else "(unnamed)"}')
    return found, seen


class TestSockets(ReglocdTestCase):
    def test_no_listening_socket(self):
        # A stand-in gpsd, so the daemon holds a TCP socket too and the check
        # sees all three families it uses (AF_UNIX bus, AF_INET gpsd, netlink).
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        server.settimeout(10 * SLOW)
        port = server.getsockname()[1]
        with open(self.config) as f:
            text = f.read()
        with open(self.config, 'w') as f:
            f.write(text.replace('[gps]\nenabled=false\n', f'[gps]\nenabled=true\nhost=127.0.0.1\nport={port}\n')
                        .replace('[beacons]\nenabled=false\n', '[beacons]\nenabled=true\n'))
        self.start_daemon()
        conn, _ = server.accept()
        try:
            found, seen = open_to_the_world(self.daemon.pid)
            self.assertEqual(found, [], 'reglocd must only connect out, never accept')
            # The check must have found what it is looking at: the bus and gpsd.
            self.assertEqual(seen, {'unix', 'tcp'})
        finally:
            conn.close()
            server.close()

    def test_the_check_sees_listeners(self):
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(('127.0.0.1', 0))
        tcp.listen(1)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(os.path.join(self.dir, 'listener'))
        unix.listen(1)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(('127.0.0.1', 0))
        try:
            found, _ = open_to_the_world(os.getpid())
        finally:
            for s in (tcp, unix, udp):
                s.close()
        self.assertEqual(len([f for f in found if f.startswith('tcp listening')]), 1, found)
        self.assertIn(f'unix listening on {os.path.join(self.dir, "listener")}', found)
        self.assertEqual(len([f for f in found if f.startswith('udp bound')]), 1, found)


WRITE_FLAGS = re.compile(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND')
# Calls that change the file system; the path argument(s) follow.
CHANGING = {'creat', 'unlink', 'unlinkat', 'rename', 'renameat', 'renameat2', 'mkdir', 'mkdirat', 'rmdir',
            'link', 'linkat', 'symlink', 'symlinkat', 'truncate', 'chmod', 'fchmodat', 'chown', 'lchown',
            'fchownat', 'mknod', 'mknodat', 'utimensat', 'setxattr', 'lsetxattr', 'removexattr'}
TRACED = sorted(CHANGING | {'open', 'openat'})


def written_paths(trace):
    '''(syscall, path) of every call in an `strace -f -y` log that creates,
    changes or removes a file, resolved against the directory fd strace shows.'''
    out = []
    for line in trace.splitlines():
        m = re.match(r'^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((.*)$', line)
        if not m or m.group(1) not in TRACED:
            continue
        call, args = m.groups()
        if call in ('open', 'openat') and not WRITE_FLAGS.search(args):
            continue
        # Every quoted path, with the directory fd (`3</dir>`) before it if any.
        for dirfd, path in re.findall(r'(?:(?:AT_FDCWD|\d+<([^>]*)>), )?"((?:[^"\\]|\\.)*)"', args):
            full = path if path.startswith('/') or not dirfd else os.path.join(dirfd, path)
            out.append((call, os.path.normpath(full)))
    return out


class TestWrites(ReglocdTestCase):
    @unittest.skipUnless(shutil.which('strace'), 'strace not found (Debian package strace)')
    def test_writes_only_in_the_state_directory(self):
        if VALGRIND:
            self.skipTest('under valgrind the trace would show valgrind\'s own files, not reglocd\'s')
        self.spawn_polkit(allowed=['net.regloc.override'])
        trace = os.path.join(self.dir, 'trace')
        env = dict(os.environ, STATE_DIRECTORY=self.state, G_DEBUG='fatal-criticals')
        # In a sanitizer build: LeakSanitizer cannot work under ptrace (every
        # other test checks for leaks).
        env['ASAN_OPTIONS'] = ':'.join(filter(None, [env.get('ASAN_OPTIONS'), 'detect_leaks=0']))
        self.log = open(os.path.join(self.dir, 'reglocd.log'), 'a+')
        self.daemon = subprocess.Popen(['strace', '-f', '-y', '-qq', '-s', '4096', '-o', trace,
                                        '-e', 'trace=' + ','.join(TRACED), '--',
                                        REGLOCD, '--config', self.config, '--verbose'],
                                       env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_for(self.name_owned, 'reglocd to own its name')
        self.call('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(self.get('Override'), 'FR')
        self.call('SetOverride', GLib.Variant('(s)', ('CH',)))
        # SIGHUP goes to reglocd itself, not to strace (which would detach).
        with open(f'/proc/{self.daemon.pid}/task/{self.daemon.pid}/children') as f:
            child = int(f.read().split()[0])
        os.kill(child, signal.SIGHUP)
        self.wait_for(lambda: 'Reloaded the configuration' in self.daemon_log(), 'the reload')
        self.call('ClearOverride')
        self.assertEqual(self.get('Override'), '')
        os.kill(child, signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=10 * SLOW), 0, self.daemon_log())
        self.daemon = None

        with open(trace) as f:
            calls = written_paths(f.read())
        if os.environ.get('RL_DEBUG_TRACE'):
            print(calls)
        state = os.path.realpath(self.state)
        inside = [c for c in calls if c[1] == state or c[1].startswith(state + '/')]
        outside = [c for c in calls if c not in inside and c[1] not in ('/dev/null',)]
        self.assertEqual(outside, [], 'reglocd changed files outside its state directory')
        # The trace saw the override being written and removed: it is not blind.
        names = {(call, os.path.basename(path)) for call, path in inside}
        self.assertTrue(any(c.startswith('rename') and n == 'override' for c, n in names), calls)
        self.assertTrue(any(c.startswith('unlink') and n == 'override' for c, n in names), calls)


class TestTraceParser(unittest.TestCase):
    def test_changes_are_found_and_resolved(self):
        trace = '\n'.join([
            '101 openat(AT_FDCWD</>, "/etc/regloc/regloc.conf", O_RDONLY) = 3</etc/regloc/regloc.conf>',
            '101 openat(AT_FDCWD</>, "/var/lib/x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4</var/lib/x>',
            '[pid 102] openat(5</var/lib/regloc>, "override.ABC", O_RDWR|O_CREAT|O_EXCL, 0644) = 6',
            '101 renameat2(AT_FDCWD</>, "/a/b", AT_FDCWD</>, "/a/c", 0) = 0',
            '101 unlink("relative") = -1 ENOENT (No such file or directory)',
            '101 mkdir("/run/x/../y", 0755) = 0',
            '101 newfstatat(AT_FDCWD</>, "/etc/passwd", {st_mode=S_IFREG|0644}, 0) = 0',
        ])
        self.assertEqual(written_paths(trace), [
            ('openat', '/var/lib/x'), ('openat', '/var/lib/regloc/override.ABC'),
            ('renameat2', '/a/b'), ('renameat2', '/a/c'), ('unlink', 'relative'), ('mkdir', '/run/y')])


class TestRefusals(ReglocdTestCase):
    '''What an unauthorized caller cannot do, beyond test_reglocd.py's
    refusal tests: the persisted state survives its attempts untouched.'''

    def test_refused_calls_leave_the_persisted_override_alone(self):
        os.makedirs(self.state)
        path = os.path.join(self.state, 'override')
        with open(path, 'w') as f:
            f.write('[override]\ncountry=CH\n')
        before = os.stat(path)
        # Allowed to read the location, not to change the override.
        self.spawn_polkit(allowed=['net.regloc.read-location'])
        self.start_daemon()
        self.assertEqual(self.get('Override'), 'CH')
        for method, args in (('ClearOverride', None), ('SetOverride', GLib.Variant('(s)', ('FR',))),
                             ('SetOverride', GLib.Variant('(s)', ('00',)))):
            name, message = self.call_error(method, args)
            self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized', method)
            self.assertIn('net.regloc.override', message)
        self.assertEqual(self.get('Override'), 'CH')
        self.assertEqual(self.get('Country'), 'CH')
        after = os.stat(path)
        self.assertEqual((before.st_ino, before.st_mtime_ns), (after.st_ino, after.st_mtime_ns))
        self.assertEqual(sorted(os.listdir(self.state)), ['override'])


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
