#!/usr/bin/env python3
'''Faults around a running reglocd (docs/design.md §8): the real daemon on a private
bus, real gpsd processes, damaged data files, a bus that goes away, a wall
clock that jumps.  In every case the daemon keeps serving, falls back to 00
where in doubt, says in its log what is wrong (file and reason) and loses
nothing it had persisted.

Run through run-integration.sh (REGLOCD, REGLOC; REGLOC_BOUNDARY_INDEX names
the boundary index built by meson).'''

import datetime
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_reglocd import (ReglocdTestCase, REGLOCD, REGLOC, VALGRIND, SLOW, ZONEINFO, REGDB,  # noqa: E402
                          NAME, PATH, IFACE)

BOUNDARY_INDEX = os.environ.get('REGLOC_BOUNDARY_INDEX', '')
GPSD = shutil.which('gpsd') or ('/usr/sbin/gpsd' if os.path.exists('/usr/sbin/gpsd') else None)
LIBFAKETIME = (glob.glob('/usr/lib/*/faketime/libfaketime.so.1') + [None])[0]
# A point in Thuringia, more than 5 km from any border: a GPS fix there says DE alone.
CENTRAL_DE = (51.0, 10.0)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def nmea(body):
    checksum = 0
    for b in body.encode():
        checksum ^= b
    return f'${body}*{checksum:02X}\r\n'


class NmeaReceiver:
    '''A stand-in GPS receiver: NMEA 0183 over TCP, five fixes a second with
    the current time, which gpsd reads as its device tcp://127.0.0.1:PORT.'''

    def __init__(self, lat, lon):
        self.lat, self.lon = lat, lon
        self.server = socket.create_server(('127.0.0.1', 0))
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.clients = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sentences(self):
        t = datetime.datetime.now(datetime.timezone.utc)
        hms = t.strftime('%H%M%S') + f'.{t.microsecond // 10000:02d}'
        lat = f'{int(abs(self.lat)):02d}{abs(self.lat) % 1 * 60:07.4f},{"N" if self.lat >= 0 else "S"}'
        lon = f'{int(abs(self.lon)):03d}{abs(self.lon) % 1 * 60:07.4f},{"E" if self.lon >= 0 else "W"}'
        return (nmea(f'GPGGA,{hms},{lat},{lon},1,08,1.0,200.0,M,48.0,M,,') +
                nmea('GPGSA,A,3,09,11,12,15,24,28,30,31,,,,,1.6,1.0,1.3') +
                nmea(f'GPRMC,{hms},A,{lat},{lon},0.0,0.0,{t.strftime("%d%m%y")},,,A')).encode()

    def run(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.server.accept()
                self.clients.append(conn)
            except socket.timeout:
                pass
            data = self.sentences()
            for c in list(self.clients):
                try:
                    c.sendall(data)
                except OSError:
                    self.clients.remove(c)
                    c.close()
            time.sleep(0.1)

    def close(self):
        self.stopping.set()
        self.thread.join()
        for c in self.clients:
            c.close()
        self.server.close()


class Gpsd:
    '''A real gpsd on a private port (-S), in the foreground (-N), reading
    the stand-in receiver without waiting for a client (-n), with its control
    socket (-F) where reglocd watches for it to appear.'''

    def __init__(self, receiver, control_socket):
        self.port = free_port()
        self.device = f'tcp://127.0.0.1:{receiver.port}'
        self.control_socket = control_socket
        self.proc = None

    def start(self, test):
        # gpsd would announce fixes on the system bus: keep it off the test bus.
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS='unix:path=/nonexistent')
        self.proc = subprocess.Popen([GPSD, '-N', '-n', '-S', str(self.port),
                                      '-F', self.control_socket, self.device], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def listening():
            if self.proc.poll() is not None:
                test.fail(f'gpsd exited with {self.proc.returncode}')
            with socket.socket() as s:
                return s.connect_ex(('127.0.0.1', self.port)) == 0
        test.wait_for(listening, f'gpsd to listen on port {self.port}')

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


class FaultTestCase(ReglocdTestCase):
    def setUp(self):
        super().setUp()
        self.receiver = None
        self.gpsd = None
        self.extra_env = {}

    def tearDown(self):
        try:
            super().tearDown()
        finally:
            if self.gpsd is not None:
                self.gpsd.kill()
            if self.receiver is not None:
                self.receiver.close()

    def write_config(self, extra='', general='', gps_port=None, policy='hold_down=0\n'):
        gps = (f'enabled=true\nhost=127.0.0.1\nport={gps_port}\n'
               f'control_socket={os.path.join(self.dir, "gpsd.sock")}\n' if gps_port else 'enabled=false\n')
        with open(self.config, 'w') as f:
            f.write('[general]\napply=false\n'
                    f'zoneinfo_dir={ZONEINFO}\n{general}'
                    f'[policy]\n{policy}'
                    f'[gps]\n{gps}'
                    '[beacons]\nenabled=false\n'
                    # no ModemManager here: an unavailable source is retried on every reload
                    '[cell]\nenabled=false\n'
                    f'[timezone]\nlocaltime={self.localtime}\n' + extra)

    def start_daemon(self, *args, wait=True):
        env = dict(os.environ, STATE_DIRECTORY=self.state, G_DEBUG='fatal-criticals', **self.extra_env)
        self.log = open(os.path.join(self.dir, 'reglocd.log'), 'a+')
        self.daemon = subprocess.Popen(VALGRIND + [REGLOCD, '--config', self.config, '--verbose'] + list(args),
                                       env=env, stdout=self.log, stderr=subprocess.STDOUT)
        if wait:
            self.wait_for(lambda: self.name_owned(), 'reglocd to own its name')

    def start_gps(self, lat_lon=CENTRAL_DE):
        if GPSD is None:
            self.skipTest('SKIP: gpsd not found (Debian package gpsd)')
        self.receiver = NmeaReceiver(*lat_lon)
        self.gpsd = Gpsd(self.receiver, os.path.join(self.dir, 'gpsd.sock'))
        self.gpsd.start(self)
        return self.gpsd.port

    def reload(self):
        '''SIGHUP, and wait until the daemon has dealt with it.'''
        mark = len(self.daemon_log())
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_for(lambda: re.search(r'Reloaded the configuration|Keeping the old configuration',
                                        self.daemon_log()[mark:]), 'the daemon to act on SIGHUP')
        return self.daemon_log()[mark:]

    def gps_evidence(self):
        return [e for e in self.call('GetEvidence')[0] if e['source'] == 'gps']


class TestGpsd(FaultTestCase):
    def test_gpsd_absent_killed_and_restarted(self):
        port = self.start_gps()
        self.gpsd.kill()   # not there yet when reglocd starts
        os.unlink(self.gpsd.control_socket)   # a SIGKILLed gpsd leaves it behind
        self.write_config(gps_port=port, policy='hold_down=0\nmax_age_gps=3\n')
        self.start_daemon()
        self.wait_for(lambda: 'unavailable' in self.source('gps')[3], 'the gps source to say gpsd is missing')
        self.assertFalse(self.source('gps')[1])
        self.assertEqual(self.get('Country'), '00')
        # no control socket: no retry timer, the watch waits for gpsd
        self.assertIn('waiting for', self.source('gps')[3])
        self.assertNotRegex(self.daemon_log(), r'gpsd at 127\.0\.0\.1:\d+: .*; retrying')

        self.gpsd.start(self)
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE from gpsd + the timezone', 15)
        self.assertEqual(self.get('State'), 'decided')
        self.assertTrue(self.source('gps')[1])

        # gpsd dies mid-trip: the source says so, the daemon keeps serving,
        # and once the last fix has aged out the decision falls back to 00.
        self.gpsd.kill()
        self.wait_for(lambda: not self.source('gps')[1], 'the gps source to go unavailable', 5)
        self.assertIn(f'lost gpsd at 127.0.0.1:{port}', self.source('gps')[3])
        self.wait_for(lambda: self.get('Country') == '00', '00 once the last fix expired', 10)
        self.assertEqual(self.gps_evidence(), [])
        self.wait_for_log(rf'lost gpsd at 127\.0\.0\.1:{port} \(.*\); retrying', 'the retry logged')

        # gpsd is back: reglocd finds it again by itself and decides again.
        self.gpsd.start(self)
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE after gpsd restarted', 20)
        self.assertTrue(self.source('gps')[1])
        self.assertEqual(len(re.findall(f'connected to gpsd at 127.0.0.1:{port}', self.daemon_log())), 2)


class TestBoundaryIndex(FaultTestCase):
    def setUp(self):
        super().setUp()
        if not os.path.exists(BOUNDARY_INDEX):
            self.skipTest(f'SKIP: no boundary index (REGLOC_BOUNDARY_INDEX={BOUNDARY_INDEX!r}); run through meson')
        self.index = os.path.join(self.dir, 'boundaries.idx')

    def check_disabled(self, reason):
        '''With gpsd reporting a fix in Germany and the timezone Berlin, a
        damaged index must leave the fix unused: 00, not a guess.'''
        port = self.start_gps()
        self.write_config(gps_port=port, general=f'boundary_index={self.index}\n')
        self.start_daemon()
        self.wait_for(lambda: self.source('timezone')[1], 'the timezone source')
        # The index opens in a worker thread: wait for its verdict.
        self.wait_for(lambda: 'no boundary index' in self.source('gps')[3], 'the gps source to give up')
        self.assertFalse(self.source('gps')[1])
        self.wait_for_log(rf'GPS source disabled: .*{re.escape(self.index)}.*{reason}', 'the index refused in the log')
        time.sleep(1)   # fixes keep coming from gpsd: none may be used
        self.assertEqual(self.get('Country'), '00')
        self.assertEqual(self.gps_evidence(), [])
        # Recovered: a good index and SIGHUP bring the GPS back.
        shutil.copyfile(BOUNDARY_INDEX, self.index + '.new')
        os.rename(self.index + '.new', self.index)
        self.assertIn('Reloaded the configuration', self.reload())
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE with the good index', 15)

    def test_missing(self):
        self.check_disabled('No such file')

    def test_truncated(self):
        with open(BOUNDARY_INDEX, 'rb') as src, open(self.index, 'wb') as dst:
            dst.write(src.read(os.path.getsize(BOUNDARY_INDEX) // 2))
        self.check_disabled('corrupt: truncated or wrong size')

    def test_flipped_bit(self):
        shutil.copyfile(BOUNDARY_INDEX, self.index)
        with open(self.index, 'r+b') as f:
            f.seek(os.path.getsize(self.index) * 2 // 3)
            b = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([b[0] ^ 0x10]))
        self.check_disabled('corrupt: checksum mismatch')

    def test_empty(self):
        open(self.index, 'wb').close()
        self.check_disabled('bad magic')


class TestRegulatoryDb(FaultTestCase):
    '''regulatory.db missing or damaged: only 00 may be decided, a persisted
    override stays on disk, and a good file plus SIGHUP restores it all.'''

    def setUp(self):
        super().setUp()
        if not os.path.exists(REGDB):
            self.skipTest(f'SKIP: {REGDB} is missing (Debian package wireless-regdb)')
        self.regdb = os.path.join(self.dir, 'regulatory.db')

    def check_world_only(self, reason):
        self.write_config(general=f'regulatory_db={self.regdb}\n', policy='hold_down=2\n')
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '50')
        self.wait_for(lambda: 'end of the recording' in self.source('replay')[3], 'the end of the trip', 20)
        self.assertEqual(self.get('Country'), '00', 'evidence says DE, but no database allows it')
        self.assertIn('not in the regulatory database', self.get('Reason'))
        self.wait_for_log(rf'Regulatory database: .*{re.escape(self.regdb)}.*{reason}.*only the world domain 00',
                          'the database refused in the log')
        self.assertIn(self.regdb, self.call('Explain')[0])
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.UnknownCountry')
        self.assertIn(self.regdb, message)
        # 00 itself stays possible.
        self.call('SetOverride', GLib.Variant('(s)', ('00',)))
        self.assertEqual(self.get('Country'), '00')
        self.call('ClearOverride')

    def test_missing(self):
        self.check_world_only('No such file')

    def test_truncated(self):
        with open(REGDB, 'rb') as f:
            data = f.read()
        with open(self.regdb, 'wb') as f:
            f.write(data[:len(data) // 2])
        self.check_world_only('outside the file|past the end')

    def test_flipped_magic_bit(self):
        with open(REGDB, 'rb') as f:
            data = bytearray(f.read())
        data[1] ^= 0x01
        with open(self.regdb, 'wb') as f:
            f.write(data)
        self.check_world_only('no RGDB magic')

    def test_persisted_override_survives_a_missing_database(self):
        os.makedirs(self.state)
        override = os.path.join(self.state, 'override')
        with open(override, 'w') as f:
            f.write('[override]\ncountry=FR\n')
        self.write_config(general=f'regulatory_db={self.regdb}\n')
        self.start_daemon()
        self.assertEqual(self.get('Override'), 'FR')
        self.assertEqual(self.get('Country'), '00')
        self.assertIn('FR is not in the regulatory database', self.get('Reason'))
        with open(override) as f:
            self.assertIn('country=FR', f.read(), 'the persisted override is kept')
        shutil.copyfile(REGDB, self.regdb)
        self.assertIn('Reloaded the configuration', self.reload())
        self.wait_for(lambda: self.get('Country') == 'FR', 'FR once the database is back')
        self.assertEqual(self.get('State'), 'override')


class TestConfigReload(FaultTestCase):
    def test_config_deleted_or_garbage_then_sighup(self):
        '''(A bad value on SIGHUP is test_reglocd's.)  Here the file goes away
        or turns to garbage while a decision stands: the old configuration
        and the decision stay, the log names the file and the reason.'''
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon()
        self.call('SetOverride', GLib.Variant('(s)', ('CH',)))
        os.unlink(self.config)
        log = self.reload()
        self.assertRegex(log, rf'Keeping the old configuration: .*{re.escape(self.config)}')
        self.assertEqual(self.get('Country'), 'CH')
        with open(self.config, 'wb') as f:
            f.write(b'\x00\xff[general\napply=\xfe\n')
        log = self.reload()
        self.assertRegex(log, rf'Keeping the old configuration: .*{re.escape(self.config)}')
        self.assertEqual(self.get('Country'), 'CH')
        self.assertIn('Europe/Berlin', self.source('timezone')[3], 'the sources kept running')
        self.write_config()
        self.assertIn('Reloaded the configuration', self.reload())
        self.assertEqual(self.get('Country'), 'CH', 'the persisted override outlives the reloads')


class TestReloadKeepsEvidence(FaultTestCase):
    def test_sighup_restarts_only_what_changed(self):
        port = self.start_gps()
        self.write_config(gps_port=port)
        self.start_daemon()
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE from gpsd + the timezone', 15)
        changes = []
        self.subscribe('CountryChanged', changes)

        # The same file again: nothing restarts, nothing changes.
        log = self.reload()
        self.assertNotIn('Restarting source', log)
        self.wait_for(lambda: True, 'signals to arrive', 1)
        time.sleep(0.5 * SLOW)
        self.assertEqual(changes, [], 'an unchanged reload moved the country')
        self.assertEqual((self.get('Country'), self.get('State')), ('DE', 'decided'))
        self.assertEqual(len(self.gps_evidence()), 1)

        # A changed policy re-decides on the evidence that stands.
        self.write_config(gps_port=port, policy='hold_down=0\nconfidence_threshold=0.85\n')
        log = self.reload()
        self.assertNotIn('Restarting source', log)
        self.assertEqual(self.get('Country'), 'DE')
        self.write_config(gps_port=port, policy='hold_down=0\nconfidence_threshold=0.95\n')
        self.reload()
        self.wait_for(lambda: self.get('Country') == '00', '00 once the threshold is out of reach')
        self.assertEqual(len(self.gps_evidence()), 1, 'the fix stands; only the decision changed')

        # A changed [gps] key restarts the GPS source alone.
        with open(self.config) as f:
            text = f.read()
        with open(self.config, 'w') as f:
            f.write(text.replace(f'port={port}\n', f'port={port}\nuere=6\n'))
        log = self.reload()
        self.assertIn('Restarting source gps', log)
        self.assertNotIn('Restarting source timezone', log)
        self.assertIn('Europe/Berlin', self.source('timezone')[3])
        self.wait_for(lambda: len(self.gps_evidence()) == 1, 'a fix from the restarted GPS source', 15)


class TestStateFile(FaultTestCase):
    '''(A bad country code in the file is test_reglocd's.)  Other damage: the
    daemon runs with no override, leaves the damaged file for the
    administrator to see, and a new SetOverride replaces it.'''

    def test_damaged_override_file(self):
        self.spawn_polkit(allowed=['net.regloc.override'])
        os.makedirs(self.state)
        path = os.path.join(self.state, 'override')
        for damage in (b'', b'\x00\x01\x02\xff\xfe' * 50, b'[override]\ncountry=F', b'[override\ncountry=FR\n',
                       b'[other]\ncountry=FR\n'):
            with open(path, 'wb') as f:
                f.write(damage)
            self.start_daemon()
            self.assertEqual(self.get('Override'), '', damage)
            self.assertEqual(self.get('Country'), '00', damage)
            if damage:
                self.wait_for_log(rf'Ignoring the persisted override: {re.escape(path)}', 'the damaged file in the log')
            with open(path, 'rb') as f:
                self.assertEqual(f.read(), damage, 'the damaged file is left for inspection')
            self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon()
        self.call('SetOverride', GLib.Variant('(s)', ('AT',)))
        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon()
        self.assertEqual(self.get('Override'), 'AT')
        self.assertEqual(self.get('Country'), 'AT')

    def test_unknown_country_and_stray_temporaries(self):
        """A persisted code SetOverride would refuse is ignored at load, and
        temporary files of an interrupted write are cleaned up."""
        self.spawn_polkit(allowed=['net.regloc.override'])
        os.makedirs(self.state)
        path = os.path.join(self.state, 'override')
        with open(path, 'w') as f:
            f.write('[override]\ncountry=ZZ\n')
        stray = [os.path.join(self.state, n) for n in ('override.Xa1b2C', 'override.q9Z8y7')]
        for s in stray:
            with open(s, 'w') as f:
                f.write('[override]\ncountry=F')
        keep = os.path.join(self.state, 'override.notes')
        open(keep, 'w').close()
        self.start_daemon()
        self.assertEqual(self.get('Override'), '')
        self.assertEqual(self.get('Country'), '00')
        self.assertIn('Ignoring the persisted override: ZZ is not in the regulatory database', self.daemon_log())
        self.assertEqual([s for s in stray if os.path.exists(s)], [])
        self.assertTrue(os.path.exists(keep), 'only names of the temporary-file pattern are removed')
        name, _ = self.call_error('SetOverride', GLib.Variant('(s)', ('ZZ',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.UnknownCountry')

    def test_state_path_not_writable(self):
        '''The state directory is a file: SetOverride fails with a clear
        error and nothing changes in memory either.'''
        self.spawn_polkit(allowed=['net.regloc.override'])
        with open(self.state, 'w') as f:
            f.write('not a directory\n')
        self.start_daemon()
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.Failed')
        self.assertIn('Cannot persist the override', message)
        self.assertEqual(self.get('Override'), '')
        self.assertEqual(self.get('Country'), '00')


class TestClockJumps(FaultTestCase):
    '''The wall clock is set back (NTP correcting a machine that booted with
    its clock in the future, an administrator's `date -s`): reglocd's own
    clock is libfaketime's, moved while it runs.  Evidence must keep ageing
    as real time passes: a jump must neither freeze the decision nor keep a
    stale item alive for as long as the jump.'''

    def setUp(self):
        super().setUp()
        if LIBFAKETIME is None:
            self.skipTest('SKIP: libfaketime not found (Debian package faketime)')
        self.faketime = os.path.join(self.dir, 'faketime')
        self.set_clock('+0')
        asan = os.environ.get('ASAN_OPTIONS', '')
        self.extra_env = {'LD_PRELOAD': LIBFAKETIME, 'FAKETIME_TIMESTAMP_FILE': self.faketime,
                          'FAKETIME_NO_CACHE': '1', 'FAKETIME_DONT_FAKE_MONOTONIC': '1',
                          # an ASan build wants its runtime first; libfaketime only wraps clock calls
                          'ASAN_OPTIONS': (asan + ':' if asan else '') + 'verify_asan_link_order=0'}

    def set_clock(self, offset):
        with open(self.faketime + '.new', 'w') as f:
            f.write(offset + '\n')
        os.rename(self.faketime + '.new', self.faketime)

    def hold(self, seconds):
        '''Lets time pass while signals are still received.'''
        end = time.monotonic() + seconds
        self.wait_for(lambda: time.monotonic() >= end, f'{seconds} s to pass', seconds + 5)

    def test_wall_clock_set_back(self):
        port = self.start_gps()
        self.write_config(gps_port=port, policy='hold_down=0\nmax_age_gps=3\n')
        self.start_daemon()
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE from gpsd + the timezone', 15)
        changes = []
        self.subscribe('CountryChanged', changes)

        # A day back while fixes keep coming: the timezone read at the start
        # now looks a day old to the wall clock, the fixes a day younger; the
        # decision must not notice.
        self.set_clock('-1d')
        self.wait_for(lambda: re.search(r'system clock was set back by 86\d\d\d s', self.daemon_log()),
                      'the jump to be logged', 5)
        self.hold(4)
        self.assertEqual(self.get('Country'), 'DE')
        self.assertEqual(changes, [], 'the decision flapped when the clock was set back')
        # Published times are the wall clock's, as the daemon now reads it.
        observed = self.gps_evidence()[0]['observed-at'] / 1e6
        self.assertLess(abs(observed - (time.time() - 86400)), 30)

        # gpsd goes away and the clock goes back once more: the last fix still
        # expires max_age_gps after it was seen, not two days later.
        self.gpsd.kill()
        self.set_clock('-2d')
        self.wait_for(lambda: self.get('Country') == '00' and not self.gps_evidence(),
                      'the last fix to expire after 3 s', 10)
        self.assertEqual(self.get('State'), 'world')

        # The clock put right (two days forward) and gpsd back: decided again.
        self.set_clock('+0')
        self.gpsd.start(self)
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE again', 20)
        self.assertIsNone(self.daemon.poll())


class TestBusLoss(FaultTestCase):
    '''The bus itself goes away (dbus-daemon restarted).  reglocd keeps
    deciding without it, reconnects by itself and serves the same decision
    again; being replaced by another reglocd (--replace) is a clean exit
    instead (test_reglocd's test_replace).'''

    def start_bus(self):
        with open(os.path.join(self.dir, 'bus.conf'), 'w') as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"\n'
                    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    f'<busconfig><type>system</type><keep_umask/><listen>unix:path={self.socket}</listen>'
                    '<policy context="default"><allow send_destination="*" eavesdrop="true"/>'
                    '<allow eavesdrop="true"/><allow own="*"/></policy>'
                    '</busconfig>\n')
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.bus_pid, _ = self.start_dbus(conf=os.path.join(self.dir, 'bus.conf'))

    def stop_bus(self):
        if self.bus_pid is None:
            return
        os.kill(self.bus_pid, signal.SIGKILL)
        self.wait_for(lambda: not os.path.exists(f'/proc/{self.bus_pid}') or
                      open(f'/proc/{self.bus_pid}/stat').read().split()[2] == 'Z', 'dbus-daemon to die')
        self.bus_pid = None

    def private_get(self, prop):
        conn = Gio.DBusConnection.new_for_address_sync(
            self.address_of_private_bus, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        try:
            reply = conn.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'Get',
                                   GLib.Variant('(ss)', (IFACE, prop)), None, 0, 2000, None)
            return reply.unpack()[0]
        except GLib.Error:
            return None
        finally:
            conn.close_sync(None)

    def test_bus_restarted(self):
        self.socket = os.path.join(self.dir, 'bus')
        self.address_of_private_bus = f'unix:path={self.socket}'
        self.bus_pid = None
        self.addCleanup(self.stop_bus)
        self.start_bus()
        self.extra_env = {'DBUS_SYSTEM_BUS_ADDRESS': self.address_of_private_bus}
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '20', wait=False)
        self.wait_for(lambda: self.private_get('Country') == 'FR', 'FR on the bus', 20)

        self.stop_bus()
        self.wait_for(lambda: 'Lost the bus connection' in self.daemon_log(), 'the loss to be logged')
        # Deciding goes on while there is no bus.
        self.wait_for(lambda: 'Decision: country=DE' in self.daemon_log(), 'DE decided with no bus', 20)
        self.assertIsNone(self.daemon.poll(), 'reglocd exited when the bus went away')

        self.start_bus()
        self.wait_for(lambda: self.private_get('Country') == 'DE', 'DE served again on the new bus', 20)
        self.assertEqual(self.private_get('State'), 'decided')
        self.assertIn('Reconnected to the bus', self.daemon_log())
        self.assertIsNone(self.daemon.poll())


    def test_second_instance_without_replace(self):
        '''The name is held by a running reglocd: a second one started
        without --replace says so and exits 1; the first keeps serving.'''
        self.start_daemon()
        env = dict(os.environ, STATE_DIRECTORY=self.state)
        r = subprocess.run(VALGRIND + [REGLOCD, '--config', self.config, '--verbose'], env=env,
                           capture_output=True, text=True, timeout=20 * SLOW)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('the name net.regloc.RegLoc1 is taken', r.stderr)
        self.assertIn('--replace', r.stderr)
        # It learned that before starting a source or touching the kernel.
        self.assertNotIn('Starting source', r.stdout + r.stderr)
        self.assertNotRegex(r.stdout + r.stderr, r'kernel|Applied|applier')
        self.assertEqual(self.get('Country'), '00')
        self.assertIsNone(self.daemon.poll())


class TestReplayTruncated(unittest.TestCase):
    '''`regloc replay` on logs cut off mid-record (a logger killed while
    writing): exit 0, the partial record counted as skipped.'''

    def replay(self, *args):
        r = subprocess.run([REGLOC, 'replay', '--format', 'json', '--timezone', 'Europe/Berlin'] + list(args),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)['summary']

    def cut(self, src, keep, suffix):
        with open(src, 'rb') as f:
            data = f.read()
        self.tmp = getattr(self, 'tmp', None) or tempfile.TemporaryDirectory(prefix='regloc-it-')
        path = os.path.join(self.tmp.name, 'cut' + suffix)
        with open(path, 'wb') as f:
            f.write(keep(data))
        return path

    def tearDown(self):
        if getattr(self, 'tmp', None):
            self.tmp.cleanup()

    def test_nmea_ends_mid_sentence(self):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data', 'samples', 'trip-de-fr.nmea')
        # ends inside a GGA sentence, well before its checksum
        path = self.cut(src, lambda d: d[:d.index(b'$GPGGA', 5000) + 30], '.nmea')
        summary = self.replay('--gps', path)
        self.assertEqual(summary['counters']['gps.rejected.truncated'], 1)
        self.assertGreater(summary['counters']['gps.fixes_used'], 10)
        self.assertEqual(summary['final']['country'], 'DE')

    def test_scan_log_ends_mid_line(self):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data', 'samples',
                           'trip-de-fr.scans.jsonl')
        path = self.cut(src, lambda d: d[:d.index(b'\n', 3000) + 60], '.jsonl')
        summary = self.replay('--scans', path)
        self.assertEqual(summary['counters']['scans.skipped.bad_json'], 1)
        lines = summary['counters']['scans.lines']
        self.assertEqual(summary['counters']['scans.observations'], lines - 1)
        self.assertTrue(any('skipped' in n for n in summary['notes']), summary['notes'])


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
