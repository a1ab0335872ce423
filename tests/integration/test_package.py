#!/usr/bin/env python3
'''What reglocd gives a distribution's system beyond its D-Bus API: the
records journald receives (through a fake journald), the audit record of an
override, `regloc monitor --json`, and the client examples of docs/examples
against the real daemon on a private bus.

GLib sends structured records to /run/systemd/journal/socket when stderr is
a stream connected to journald; that path is fixed, so this script re-runs
itself in a private mount namespace (root and unshare(1)) with a tmpfs over
/run where it plays journald.  Without that the journal tests skip, loudly.
Run through run-integration.sh (REGLOCD, REGLOC; EXAMPLE_C, EXAMPLE_PY).'''

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest

IN_NAMESPACE = os.environ.get('REGLOC_TEST_MOUNT_NS') == '1'
if not IN_NAMESPACE and os.geteuid() == 0 and shutil.which('unshare') and \
        subprocess.run(['unshare', '--mount', '--propagation', 'private', 'true'],
                       stderr=subprocess.DEVNULL).returncode == 0:
    os.environ['REGLOC_TEST_MOUNT_NS'] = '1'
    os.execvp('unshare', ['unshare', '--mount', '--propagation', 'private', sys.executable] + sys.argv)
if IN_NAMESPACE:
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=0755', 'tmpfs', '/run'], check=True)

sys.dont_write_bytecode = True   # nothing written into the source tree
import test_reglocd as base  # noqa: E402  (after the namespace: it starts nothing at import)
from gi.repository import GLib  # noqa: E402

JOURNAL_DIR = '/run/systemd/journal'
ID_COUNTRY_CHANGED = '6b3d1f0c9a2e4e57b8d94c1a7f02e5d3'
ID_STATE_CHANGED = '0d6c2b8e5f9a4c1d93e7a2b4c6d8e0f1'
ID_OVERRIDE_SET = 'ce0d853e299f4ceda859a03c24615554'
ID_OVERRIDE_CLEARED = '0a574458fbd7421dab725e5446888e0d'


def parse_journal_datagram(data):
    '''journald's native protocol: KEY=value lines, or KEY, a 64-bit
    little-endian length and the value for values with newlines.'''
    fields, i = {}, 0
    while i < len(data):
        nl = data.index(b'\n', i)
        line = data[i:nl]
        if b'=' in line:
            key, value = line.split(b'=', 1)
            i = nl + 1
        else:
            key = line
            (n,) = struct.unpack('<Q', data[nl + 1:nl + 9])
            value = data[nl + 9:nl + 9 + n]
            if data[nl + 9 + n:nl + 10 + n] != b'\n':
                raise ValueError(f'binary field {key!r} not ended by a newline')
            i = nl + 10 + n
        fields[key.decode()] = value.decode()
    return fields


class FakeJournald:
    def __init__(self):
        os.makedirs(JOURNAL_DIR, exist_ok=True)
        self.records = []
        self.errors = []
        self.lock = threading.Lock()
        self.dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.dgram.bind(os.path.join(JOURNAL_DIR, 'socket'))
        self.stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.stream.bind(os.path.join(JOURNAL_DIR, 'stdout'))
        self.stream.listen(4)
        self.stream_text = b''
        threading.Thread(target=self.read_datagrams, daemon=True).start()

    def read_datagrams(self):
        while True:
            try:
                data, anc, _, _ = self.dgram.recvmsg(1 << 20, socket.CMSG_SPACE(4))
            except OSError:
                return
            for level, kind, payload in anc:
                # a record too big for a datagram comes as a sealed memfd
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fd = struct.unpack('i', payload[:4])[0]
                    with os.fdopen(fd, 'rb') as f:
                        data = f.read()
            try:
                record = parse_journal_datagram(data)
            except (ValueError, struct.error, UnicodeDecodeError) as e:
                self.errors.append(f'{e}: {data!r}')
                continue
            with self.lock:
                self.records.append(record)

    def stderr_for_child(self):
        '''A stream connected to "journald's stdout socket", as systemd gives a service.'''
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(os.path.join(JOURNAL_DIR, 'stdout'))
        server, _ = self.stream.accept()

        def drain():
            with server:
                while True:
                    chunk = server.recv(65536)
                    if not chunk:
                        return
                    self.stream_text += chunk
        threading.Thread(target=drain, daemon=True).start()
        return client

    def find(self, message_id):
        with self.lock:
            return [r for r in self.records if r.get('MESSAGE_ID') == message_id]

    def close(self):
        self.dgram.close()
        self.stream.close()
        for name in ('socket', 'stdout'):
            os.unlink(os.path.join(JOURNAL_DIR, name))


@unittest.skipUnless(IN_NAMESPACE, 'SKIP: a fake journald needs a private mount namespace (root and unshare(1))')
class TestJournal(base.ReglocdTestCase):
    def setUp(self):
        super().setUp()
        self.journal = FakeJournald()
        self.addCleanup(self.journal.close)

    def start_daemon_to_journal(self, *args):
        env = dict(os.environ, STATE_DIRECTORY=self.state, G_DEBUG='fatal-criticals')
        self.log = open(os.path.join(self.dir, 'reglocd.log'), 'a+')
        sink = self.journal.stderr_for_child()
        self.daemon = subprocess.Popen(base.VALGRIND + [base.REGLOCD, '--config', self.config, '--verbose'] + list(args),
                                       env=env, stdout=sink, stderr=sink)
        sink.close()
        self.wait_for(lambda: self.name_owned(), 'reglocd to own its name')

    def test_decision_records_carry_plain_string_fields(self):
        self.start_daemon_to_journal('--replay', 'sample-trip', '--replay-speed', '20')
        self.wait_for(lambda: any(r.get('RL_COUNTRY') == 'DE' for r in self.journal.find(ID_COUNTRY_CHANGED)),
                      'the record of the change to DE', 20)
        changes = self.journal.find(ID_COUNTRY_CHANGED)
        self.assertEqual([r['RL_COUNTRY'] for r in changes][-3:], ['FR', '00', 'DE'])
        states = self.journal.find(ID_STATE_CHANGED)
        self.assertTrue(states, 'info-level state records with --verbose')
        for r in changes + states:
            self.assertRegex(r['RL_CONFIDENCE'], r'^[01]\.\d\d$', r)
            self.assertRegex(r['RL_COUNTRY'], r'^[A-Z0-9]{2}$', r)
            self.assertRegex(r['RL_PREVIOUS_COUNTRY'], r'^[A-Z0-9]{2}$', r)
            self.assertIn(r['RL_STATE'], ('world', 'tentative', 'decided', 'conflict', 'override'), r)
            self.assertTrue(r['RL_REASON'], r)
            self.assertNotIn('%', r['MESSAGE'], r)
            self.assertIn(f"confidence={r['RL_CONFIDENCE']}", r['MESSAGE'])
            self.assertEqual(r['GLIB_DOMAIN'], 'reglocd')
        self.assertEqual(changes[-1]['PRIORITY'], '5')   # G_LOG_LEVEL_MESSAGE → notice
        self.assertEqual(changes[-1]['RL_PREVIOUS_COUNTRY'], '00')
        self.assertEqual(self.journal.errors, [])

    def test_override_records_name_the_caller(self):
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon_to_journal()
        me = self.bus.get_unique_name()
        self.call('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.wait_for(lambda: self.journal.find(ID_OVERRIDE_SET), 'the override record')
        (r,) = self.journal.find(ID_OVERRIDE_SET)
        self.assertEqual(r['RL_OVERRIDE'], 'FR')
        self.assertEqual(r['RL_CALLER_UID'], str(os.getuid()))
        self.assertEqual(r['RL_CALLER_BUS_NAME'], me)
        self.assertEqual(r['OBJECT_PID'], str(os.getpid()))
        self.assertEqual(r['MESSAGE'], f'Override set to FR by uid {os.getuid()} ({me}, pid {os.getpid()})')
        self.assertEqual(r['PRIORITY'], '5')
        self.assertEqual(r['GLIB_DOMAIN'], 'regloc-bus')

        # another caller, the CLI, clears it
        out = self.regloc('override', 'clear')
        self.assertEqual(out.returncode, 0, out.stderr)
        self.wait_for(lambda: self.journal.find(ID_OVERRIDE_CLEARED), 'the clear record')
        (r,) = self.journal.find(ID_OVERRIDE_CLEARED)
        self.assertEqual(r['RL_OVERRIDE'], '')
        self.assertEqual(r['RL_CALLER_UID'], str(os.getuid()))
        self.assertRegex(r['RL_CALLER_BUS_NAME'], r'^:\d+\.\d+$')
        self.assertNotEqual(r['RL_CALLER_BUS_NAME'], me)
        self.assertRegex(r['OBJECT_PID'], r'^\d+$')
        self.assertNotEqual(r['OBJECT_PID'], str(os.getpid()))
        self.assertRegex(r['MESSAGE'], r'^Override cleared by uid \d+ \(:\d+\.\d+, pid \d+\)$')

    def test_refused_override_leaves_no_audit_record(self):
        self.spawn_polkit(allowed=[])
        self.start_daemon_to_journal()
        name, _ = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized')
        time.sleep(0.3)
        self.assertEqual(self.journal.find(ID_OVERRIDE_SET), [])


class TestClients(base.ReglocdTestCase):
    def test_monitor_json_lines(self):
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '10', wait=True)
        mon = subprocess.Popen([base.REGLOC, 'monitor', '--json'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            self.wait_for(lambda: self.get('Country') == 'DE', 'DE', 30)
            time.sleep(0.5)
        finally:
            mon.send_signal(2)
            out, err = mon.communicate(timeout=10)
        self.assertEqual(mon.returncode, 0, err)
        events = [json.loads(line) for line in out.splitlines()]   # every line one object
        for e in events:
            self.assertRegex(e['time'], r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$')
        self.assertEqual(events[0]['event'], 'state')
        self.assertTrue(events[0]['initial'])
        self.assertEqual(events[0]['country'], '00')
        self.assertIsNone(events[0]['override'])
        self.assertIsInstance(events[0]['confidence'], float)
        changes = [(e['old'], e['new']) for e in events if e['event'] == 'country-changed']
        self.assertEqual(changes, [('00', 'FR'), ('FR', '00'), ('00', 'DE')])
        self.assertTrue(all(e['reason'] for e in events if e['event'] == 'country-changed'))
        states = [e for e in events if e['event'] == 'state' and not e['initial']]
        self.assertEqual(states[-1]['country'], 'DE')
        self.assertEqual(states[-1]['state'], 'decided')
        sources = {e['name'] for e in events if e['event'] == 'source'}
        self.assertIn('replay', sources)

    def test_monitor_json_daemon_going_away(self):
        self.start_daemon()
        mon = subprocess.Popen([base.REGLOC, 'monitor', '--json'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            time.sleep(0.5)
            self.assertEqual(self.stop_daemon(), 0)
            time.sleep(0.5)
        finally:
            mon.send_signal(2)
            out, err = mon.communicate(timeout=10)
        events = [json.loads(line) for line in out.splitlines()]
        self.assertIn({'event': 'daemon', 'running': False}, [{k: e[k] for k in ('event', 'running')}
                                                             for e in events if e['event'] == 'daemon'])

    def run_example(self, argv):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_examples_read_the_decision(self):
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '20')
        self.wait_for(lambda: self.get('Country') == 'DE' and self.get('State') == 'decided', 'DE', 20)
        for argv in ([os.environ['EXAMPLE_C']], [sys.executable, os.environ['EXAMPLE_PY']]):
            out = self.run_example(argv)
            self.assertIn('Country: DE\nState: decided\n', out, argv)
            self.assertRegex(out, r'Confidence: \d\.\d\d\n', argv)

    def test_examples_follow_a_change(self):
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon()
        for argv in ([os.environ['EXAMPLE_C'], '--follow'], [sys.executable, os.environ['EXAMPLE_PY'], '--follow']):
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                first = p.stdout.readline()
                self.assertEqual(first, 'Country: 00\n', argv)
                for _ in range(3):
                    p.stdout.readline()
                self.call('SetOverride', GLib.Variant('(s)', ('NL',)))
                line = p.stdout.readline()
                self.assertRegex(line, r'^Changed: 00 -> NL \(.+\)$', argv)
            finally:
                p.terminate()
                p.communicate(timeout=10)
            self.call('ClearOverride')

    def test_examples_without_a_daemon(self):
        for argv in ([os.environ['EXAMPLE_C']], [sys.executable, os.environ['EXAMPLE_PY']]):
            r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
            self.assertEqual(r.returncode, 1, argv)
            self.assertIn('reglocd is not running', r.stderr)


if __name__ == '__main__':
    unittest.main()
