#!/usr/bin/env python3
'''reglocd on a real, private dbus-daemon: the real binary, real clients
(GDBus from Python, the regloc CLI), polkit faked by python-dbusmock.

The private bus stands in for the system bus (DBUS_SYSTEM_BUS_ADDRESS), so
reglocd runs exactly as under systemd, polkit and logind mocks included.
Run through run-integration.sh, which finds the binaries.'''

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import dbus
import dbusmock
import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

REGLOCD = os.environ['REGLOCD']
REGLOC = os.environ['REGLOC']
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'expected')
ZONEINFO = '/usr/share/zoneinfo'
# `meson test --setup valgrind` sets REGLOC_VALGRIND=1: the daemon runs under
# memcheck too, and any error or definite leak makes it exit 99.
VALGRIND = ['valgrind', '--quiet', '--error-exitcode=99', '--leak-check=full',
            '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite',
            '--suppressions=' + os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'valgrind.supp')
            ] if os.environ.get('REGLOC_VALGRIND') == '1' else []
SLOW = 8 if VALGRIND else 1
REGDB = '/lib/firmware/regulatory.db'

NAME = 'net.regloc.RegLoc1'
PATH = '/net/regloc/RegLoc1/Manager'
IFACE = 'net.regloc.RegLoc1.Manager'
POLKIT = ('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
          'org.freedesktop.PolicyKit1.Authority')


class ReglocdTestCase(dbusmock.DBusTestCase):
    @classmethod
    def setUpClass(cls):
        cls.start_system_bus()
        cls.address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
        # Anything started from here finds reglocd on the private bus only.
        os.environ['DBUS_SESSION_BUS_ADDRESS'] = cls.address

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix='regloc-it-')
        self.dir = self.tmp.name
        self.state = os.path.join(self.dir, 'state')
        self.localtime = os.path.join(self.dir, 'localtime')
        os.symlink(os.path.join(ZONEINFO, 'Europe/Berlin'), self.localtime)
        self.config = os.path.join(self.dir, 'regloc.conf')
        self.write_config()
        self.daemon = None
        self.log = None
        self.mocks = []
        self.bus = Gio.DBusConnection.new_for_address_sync(
            self.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def tearDown(self):
        code = self.stop_daemon()
        # A clean exit is part of every test: sanitizers and memcheck report through it.
        if code is not None and code != 0:
            self.fail(f'reglocd exited with {code} on SIGTERM:\n{self.daemon_log()}')
        for m in self.mocks:
            m.terminate()
            m.wait()
        self.bus.close_sync(None)
        self.tmp.cleanup()

    # --- utilities ------------------------------------------------------------

    def write_config(self, extra=''):
        with open(self.config, 'w') as f:
            f.write('[general]\napply=false\n'
                    f'zoneinfo_dir={ZONEINFO}\n'
                    '[gps]\nenabled=false\n'
                    '[beacons]\nenabled=false\n'
                    f'[timezone]\nlocaltime={self.localtime}\n' + extra)

    def spawn_polkit(self, allowed=()):
        server, obj = self.spawn_server_template('polkitd', {}, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        obj.SetAllowed(dbus.Array(allowed, signature='s'), dbus_interface=dbusmock.MOCK_IFACE)
        return obj

    def start_daemon(self, *args, wait=True, env=None):
        env = dict(os.environ, STATE_DIRECTORY=self.state, G_DEBUG='fatal-criticals', **(env or {}))
        self.log = open(os.path.join(self.dir, 'reglocd.log'), 'a+')
        self.daemon = subprocess.Popen(VALGRIND + [REGLOCD, '--config', self.config, '--verbose'] + list(args),
                                       env=env, stdout=self.log, stderr=subprocess.STDOUT)
        if wait:
            self.wait_for(lambda: self.name_owned(), 'reglocd to own its name')

    def stop_daemon(self):
        if self.daemon is None:
            return None
        if self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
        try:
            code = self.daemon.wait(timeout=10 * SLOW)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            self.daemon.wait()
            self.fail('reglocd did not exit within 10 s of SIGTERM')
        self.daemon = None
        return code

    def daemon_log(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait_for_log(self, pattern, what, timeout=10.0):
        '''Waits for a line matching @pattern in the daemon's log: a line
        written before the test's step can still be on its way to the file
        (seen once, in a sanitizer run, as an empty log).'''
        try:
            self.wait_for(lambda: re.search(pattern, self.daemon_log()) is not None, what, timeout)
        except AssertionError:
            self.fail(f'no line matching {pattern!r} in the daemon\'s log:\n{self.daemon_log()}')

    def name_owned(self):
        if self.daemon is not None and self.daemon.poll() is not None:
            self.fail(f'reglocd exited with {self.daemon.returncode}:\n{self.daemon_log()}')
        reply = self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                                   'NameHasOwner', GLib.Variant('(s)', (NAME,)), None, 0, -1, None)
        return reply.unpack()[0]

    def wait_for(self, cond, what, timeout=10.0):
        timeout *= SLOW
        ctx = GLib.MainContext.default()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while ctx.iteration(False):
                pass
            if cond():
                return
            time.sleep(0.02)
        self.fail(f'timed out after {timeout} s waiting for {what}')

    def get(self, prop):
        reply = self.bus.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'Get',
                                   GLib.Variant('(ss)', (IFACE, prop)), None, 0, -1, None)
        return reply.unpack()[0]

    def call(self, method, args=None, flags=Gio.DBusCallFlags.NONE):
        reply = self.bus.call_sync(NAME, PATH, IFACE, method, args, None, flags, 10000, None)
        return reply.unpack() if reply is not None else None

    def call_error(self, method, args=None, flags=Gio.DBusCallFlags.NONE):
        '''The D-Bus error name and message of a call that must fail.'''
        try:
            self.call(method, args, flags)
        except GLib.Error as e:
            name = Gio.DBusError.get_remote_error(e)
            Gio.DBusError.strip_remote_error(e)
            return name, e.message
        self.fail(f'{method}{args} succeeded')

    def source(self, name):
        for s in self.get('Sources'):
            if s[0] == name:
                return s
        self.fail(f'no source {name} in {self.get("Sources")}')

    def regloc(self, *args, timeout=15):
        return subprocess.run([REGLOC] + list(args), capture_output=True, text=True, timeout=timeout)

    def subscribe(self, member, sink):
        return self.bus.signal_subscribe(NAME, None, member, PATH, None, Gio.DBusSignalFlags.NONE,
                                         lambda *a: sink.append(a[5].unpack()))


class TestProperties(ReglocdTestCase):
    def test_initial_properties_from_the_timezone(self):
        self.start_daemon()
        self.wait_for(lambda: self.source('timezone')[1], 'the timezone source')
        self.assertEqual(self.get('Country'), '00')
        self.assertEqual(self.get('State'), 'world')
        self.assertEqual(self.get('Override'), '')
        self.assertEqual(self.get('KernelCountry'), '')
        self.assertIn('timezone', self.get('Reason'))
        self.assertGreater(self.get('LastChange'), 0)
        name, available, last, detail = self.source('timezone')
        self.assertTrue(available)
        self.assertGreater(last, 0)
        self.assertIn('Europe/Berlin', detail)
        evidence = self.call('GetEvidence')[0]
        self.assertEqual([e['source'] for e in evidence], ['timezone'])
        self.assertIn('DE', evidence[0]['countries'])

    def test_timezone_change_is_new_evidence_at_once(self):
        self.start_daemon()
        self.wait_for(lambda: 'Europe/Berlin' in self.source('timezone')[3], 'Berlin')
        changes = []
        self.subscribe('PropertiesChanged', changes)
        tmp = self.localtime + '.new'
        os.symlink(os.path.join(ZONEINFO, 'Europe/Paris'), tmp)
        os.rename(tmp, self.localtime)
        self.wait_for(lambda: 'Europe/Paris' in self.source('timezone')[3], 'Paris after the link changed', 5)
        self.wait_for(lambda: any('Sources' in c[1] for c in changes), 'PropertiesChanged(Sources)', 5)
        evidence = self.call('GetEvidence')[0]
        self.assertEqual(evidence[0]['countries'][0], 'FR')

    def test_timedated_timezone_is_followed(self):
        server, obj = self.spawn_server_template('timedated', {'Timezone': 'Europe/Berlin'},
                                                 stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        self.start_daemon()
        self.wait_for(lambda: 'Europe/Berlin' in self.source('timezone')[3], 'Berlin')
        obj.SetTimezone('Europe/Madrid', False, dbus_interface='org.freedesktop.timedate1')
        self.wait_for(lambda: 'Europe/Madrid' in self.source('timezone')[3], 'Madrid from timedated', 5)

    def test_replay_trip_changes_and_signals(self):
        seen, country_changed = [], []
        self.subscribe('PropertiesChanged', seen)
        self.subscribe('CountryChanged', country_changed)
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '20')
        self.wait_for(lambda: self.get('Country') == 'DE' and self.get('State') == 'decided',
                      'the trip to end in DE', 20)
        self.wait_for(lambda: len(country_changed) >= 3, 'three CountryChanged signals', 5)
        self.assertEqual([(c[0], c[1]) for c in country_changed[:3]],
                         [('00', 'FR'), ('FR', '00'), ('00', 'DE')])
        self.assertTrue(all(c[2] for c in country_changed), 'every CountryChanged carries a reason')
        countries = [c[1]['Country'] for c in seen if 'Country' in c[1]]
        self.assertEqual(countries[:3], ['FR', '00', 'DE'])
        # One batch per decision: Country and State arrive together.
        for c in seen:
            if 'Country' in c[1]:
                self.assertIn('State', c[1])
                self.assertIn('LastChange', c[1])
        states = [c[1]['State'] for c in seen if 'State' in c[1]]
        self.assertIn('tentative', states)

    def test_numbers_with_a_decimal_point_in_every_locale(self):
        '''Under systemd a service gets the system's LANG: a German one must
        not turn "confidence 0.45" into "confidence 0,45" in the texts
        that programs and bug reports read.'''
        source = '/usr/share/i18n/locales/de_DE'
        if not (os.path.exists(source) and shutil.which('localedef')):
            self.skipTest('SKIP: no de_DE locale source or localedef (Debian package locales)')
        loc = os.path.join(self.dir, 'locale')
        os.mkdir(loc)
        subprocess.run(['localedef', '-i', 'de_DE', '-f', 'UTF-8', os.path.join(loc, 'de_DE.UTF-8')],
                       capture_output=True)
        numeric = subprocess.run(['/usr/bin/printf', '%.1f', '1.5'], capture_output=True, text=True,
                                 env=dict(os.environ, LOCPATH=loc, LC_ALL='de_DE.UTF-8')).stdout
        self.assertEqual(numeric, '1,5', 'the test locale must write a decimal comma')
        self.start_daemon(env={'LOCPATH': loc, 'LC_ALL': 'de_DE.UTF-8'})
        self.wait_for(lambda: self.source('timezone')[1], 'the timezone source')
        texts = [self.get('Reason'), self.call('Explain')[0]]
        self.assertTrue(any(re.search(r'confidence \d\.\d\d', t) for t in texts), texts)
        for t in texts:
            self.assertNotRegex(t, r'\d,\d')

    @unittest.skipUnless(shutil.which('busctl'), 'busctl not found (Debian package systemd)')
    def test_busctl_reads_the_properties(self):
        self.start_daemon()
        out = subprocess.run(['busctl', f'--address={self.address}', 'get-property', NAME, PATH, IFACE,
                              'Country', 'State'], capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.split('\n')[:2], ['s "00"', 's "world"'])


class TestOverride(ReglocdTestCase):
    def test_refused_without_polkit_permission(self):
        self.spawn_polkit(allowed=[])
        self.start_daemon()
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized')
        self.assertIn('net.regloc.override', message)
        name, _ = self.call_error('ClearOverride')
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized')
        self.assertEqual(self.get('Override'), '')
        self.assertFalse(os.path.exists(os.path.join(self.state, 'override')))
        r = self.regloc('override', 'set', 'FR')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertRegex(r.stderr, r'^regloc override: error: Not authorized: .*net\.regloc\.override.*\n$')

    def test_refused_without_polkit_at_all(self):
        self.start_daemon()
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized')
        self.assertIn('polkit could not be asked', message)

    def test_allowed_persisted_across_restart_and_cleared(self):
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon()
        changes = []
        self.subscribe('PropertiesChanged', changes)
        r = self.regloc('override', 'set', 'fr')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('FR', r.stdout)
        self.assertEqual(self.get('Override'), 'FR')
        self.assertEqual(self.get('Country'), 'FR')
        self.assertEqual(self.get('State'), 'override')
        self.wait_for(lambda: any(c[1].get('Override') == 'FR' for c in changes), 'PropertiesChanged(Override)')
        with open(os.path.join(self.state, 'override')) as f:
            self.assertIn('country=FR', f.read())
        self.assertIn('SetOverride, persisted', self.source('override')[3])

        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon()
        self.wait_for(lambda: self.get('Country') == 'FR', 'FR after the restart')
        self.assertEqual(self.get('Override'), 'FR')
        self.assertEqual(self.get('State'), 'override')

        self.call('ClearOverride')
        self.assertEqual(self.get('Override'), '')
        self.assertEqual(self.get('Country'), '00')
        self.assertFalse(os.path.exists(os.path.join(self.state, 'override')))

    def test_config_override_is_reported_as_such(self):
        self.write_config('[override]\ncountry=CH\n')
        self.start_daemon()
        self.assertEqual(self.get('Override'), 'CH')
        self.assertEqual(self.get('Country'), 'CH')
        self.assertIn('regloc.conf', self.source('override')[3])
        self.assertIn('regloc.conf', self.call('Explain')[0])
        self.spawn_polkit(allowed=['net.regloc.override'])
        r = self.regloc('override', 'clear')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("regloc.conf's [override] still sets CH", r.stdout)
        self.assertEqual(self.get('Override'), 'CH')

    def test_corrupt_state_file_means_no_override(self):
        os.makedirs(self.state)
        with open(os.path.join(self.state, 'override'), 'w') as f:
            f.write('[override]\ncountry=Z9\n')
        self.start_daemon()
        self.assertEqual(self.get('Override'), '')
        self.assertEqual(self.get('Country'), '00')
        self.wait_for_log('Ignoring the persisted override', 'the warning about the state file')

    def test_interactive_authorization_flag(self):
        server = self.spawn_server(*POLKIT, system_bus=True, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        obj = self.get_dbus(system_bus=True).get_object(POLKIT[0], POLKIT[1])
        # polkit would have to ask for a password: challenge.
        obj.AddMethod(POLKIT[2], 'CheckAuthorization', '(sa{sv})sa{ss}us', '(bba{ss})',
                      'ret = (False, True, {})')
        self.start_daemon()
        name, _ = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InteractiveAuthorizationRequired')
        r = self.regloc('override', 'set', 'FR')
        self.assertEqual(r.returncode, 4, r.stderr)
        calls = obj.GetMethodCalls('CheckAuthorization', dbus_interface=dbusmock.MOCK_IFACE)
        flags = [int(c[1][3]) for c in calls]
        self.assertEqual(flags, [0, 1], 'the CLI passes allow-interactive-authorization, a plain call does not')
        self.assertEqual([str(c[1][1]) for c in calls], ['net.regloc.override'] * 2)


class TestBadArguments(ReglocdTestCase):
    def test_named_errors(self):
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon()
        for bad in ['', 'F', 'F1', '1F', 'é', 'FRA', 'X' * 100000]:
            name, message = self.call_error('SetOverride', GLib.Variant('(s)', (bad,)))
            self.assertEqual(name, 'net.regloc.RegLoc1.Error.InvalidCountry', bad[:20])
            self.assertIn('two letters', message)
            self.assertLess(len(message), 200, 'one short line even for a huge argument')
        self.assertIn('too long', self.call_error('SetOverride', GLib.Variant('(s)', ('X' * 100000,)))[1])
        # Wrong D-Bus type: GDBus checks the signature against the XML.
        name, message = self.call_error('SetOverride', GLib.Variant('(i)', (42,)))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        name, _ = self.call_error('SetOverride', GLib.Variant('(ss)', ('FR', 'DE')))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        name, _ = self.call_error('NoSuchMethod')
        self.assertEqual(name, 'org.freedesktop.DBus.Error.UnknownMethod')
        # Properties are read-only.
        try:
            self.bus.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'Set',
                               GLib.Variant('(ssv)', (IFACE, 'Country', GLib.Variant('s', 'FR'))),
                               None, 0, -1, None)
            self.fail('Set(Country) succeeded')
        except GLib.Error as e:
            self.assertIn('InvalidArgs', Gio.DBusError.get_remote_error(e) or '')
        self.assertEqual(self.get('Override'), '')

    def test_unknown_to_the_regulatory_database(self):
        if not os.path.exists(REGDB):
            self.skipTest(f'{REGDB} is missing (Debian package wireless-regdb)')
        self.spawn_polkit(allowed=['net.regloc.override'])
        self.start_daemon()
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('XY',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.UnknownCountry')
        self.assertIn('XY is not in the regulatory database', message)
        self.call('SetOverride', GLib.Variant('(s)', ('00',)))
        self.assertEqual(self.get('Override'), '00')
        self.assertEqual(self.get('State'), 'override')

    def test_cli_rejects_bad_country_without_a_call(self):
        r = self.regloc('override', 'set', 'FRA')
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count('\n'), 1)
        r = self.regloc('override', 'frobnicate')
        self.assertEqual(r.returncode, 2)


class TestRules(ReglocdTestCase):
    """GetRules and `regloc rules`: open to anyone (no polkit here at all)."""

    def local(self, code):
        r = self.regloc('rules', code, '--json')
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    @staticmethod
    def as_dbus(rules):
        return [(r['start_khz'], r['end_khz'], r['max_bandwidth_khz'], r['max_eirp_mbm'], r['flags_bits'],
                 -1 if r['cac_s'] is None else r['cac_s'], r['wmm']) for r in rules]

    def test_named_country_and_the_one_in_force(self):
        if not os.path.exists(REGDB):
            self.skipTest(f'{REGDB} is missing (Debian package wireless-regdb)')
        self.write_config('[override]\ncountry=CH\n')
        self.start_daemon()
        country, region, rules, changes = self.call('GetRules', GLib.Variant('(s)', ('us',)))
        us = self.local('US')
        self.assertEqual((country, region), ('US', 'FCC'))
        self.assertEqual(rules, self.as_dbus(us['rules']))
        self.assertEqual(changes, us['changes'])
        self.assertTrue(any(c.startswith('5 GHz channels 149-165 become usable') for c in changes), changes)
        # "": the Country in force
        country, region, rules, changes = self.call('GetRules', GLib.Variant('(s)', ('',)))
        self.assertEqual((country, region), ('CH', 'ETSI'))
        self.assertEqual(rules, self.as_dbus(self.local('CH')['rules']))
        r = self.regloc('rules', '--json')
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual((data['country'], data['source']), ('CH', 'reglocd'))
        self.assertEqual(data['rules'], self.local('CH')['rules'])
        r = self.regloc('rules')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith('Country CH, DFS region ETSI (reglocd)'), r.stdout)
        self.assertIn('Against 00:', r.stdout)

    def test_bad_arguments(self):
        self.start_daemon()
        for bad in ['F', 'F1', 'FRA', 'X' * 100000]:
            name, message = self.call_error('GetRules', GLib.Variant('(s)', (bad,)))
            self.assertEqual(name, 'net.regloc.RegLoc1.Error.InvalidCountry', bad[:20])
            self.assertLess(len(message), 200)
        if os.path.exists(REGDB):
            name, message = self.call_error('GetRules', GLib.Variant('(s)', ('XY',)))
            self.assertEqual(name, 'net.regloc.RegLoc1.Error.UnknownCountry')
            self.assertIn('XY', message)
        name, _ = self.call_error('GetRules', GLib.Variant('(i)', (42,)))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        name, _ = self.call_error('GetRules')
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')

    def test_without_a_usable_database(self):
        broken = os.path.join(self.dir, 'regulatory.db')
        with open(broken, 'wb') as f:
            f.write(b'RGDB\0\0\0\x14')
        self.write_config('[override]\ncountry=00\n')
        with open(self.config) as f:
            text = f.read()
        text = text.replace('[general]\n', f'[general]\nregulatory_db={broken}\n', 1)
        with open(self.config, 'w') as f:
            f.write(text)
        self.start_daemon()
        name, message = self.call_error('GetRules', GLib.Variant('(s)', ('',)))
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.Failed')
        self.assertIn('regulatory database', message)

    def test_cli_without_the_daemon(self):
        r = self.regloc('rules')
        self.assertEqual(r.returncode, 3)
        self.assertRegex(r.stderr, r'^regloc rules: error: reglocd is not running.*\n$')
        if os.path.exists(REGDB):
            r = self.regloc('rules', 'DE')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('5470-5725 MHz', r.stdout)
            # a territory without an entry: the rules the daemon applies there
            r = self.regloc('rules', 'JE', '--json')
            self.assertEqual(r.returncode, 0, r.stderr)
            data = json.loads(r.stdout)
            self.assertEqual((data['country'], data['territory']), ('GB', 'JE'))
            self.assertIn('Ofcom', data['territory_note'])
            self.assertEqual(data['rules'], json.loads(self.regloc('rules', 'GB', '--json').stdout)['rules'])
            r = self.regloc('rules', 'BQ')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r'^BQ has no entry in the database; these rules apply there: .*\nCountry 00,')
            r = self.regloc('rules', 'ZZ')
            self.assertEqual(r.returncode, 2)
            self.assertIn('no entry for ZZ', r.stderr)
        r = self.regloc('rules', 'DE', 'FR')
        self.assertEqual(r.returncode, 2)
        r = self.regloc('rules', '--regdb', '/nonexistent/regulatory.db', 'DE')
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read the regulatory database', r.stderr)


class TestLocation(ReglocdTestCase):
    # Kehl, across the Rhine from Strasbourg: French then German access points,
    # a travel router from the US, fixes with their distance to the border.
    TRIP = '''start 2026-05-01T10:00:00Z
at 0 timezone Europe/Paris
at 10 beacon f4:ca:e5:10:00:01 FR ssid=Freebox-5C2A71 signal=-61
at 10 beacon a0:1b:29:20:00:02 FR ssid=Livebox-83F0 signal=-70
at 12 gps 48.5818 7.7509 error=8 countries=FR
at 90 gps 48.5698 7.8020 error=12 border=89 countries=FR,DE
at 100 remove beacons
at 100 gps 48.5693 7.8131 error=8 countries=DE border=701
at 101 beacon 3c:a6:2f:40:00:01 DE ssid=FRITZ!Box-7530-XK signal=-58
at 102 beacon 00:1f:3f:50:00:02 DE ssid=Telekom-4F2C21 signal=-66
at 104 beacon 88:71:b1:60:00:03 DE ssid=Vodafone-B7E9 signal=-71
at 105 beacon 50:c7:bf:44:55:04 DE ssid=o2-WLAN42 signal=-73
at 106 beacon 00:14:6c:66:77:06 US ssid=NETGEAR-Travel signal=-80
at 150 gps 48.5655 7.8230 error=7 countries=DE border=1351
'''
    SSIDS = ['Freebox-5C2A71', 'Livebox-83F0', 'FRITZ!Box-7530-XK', 'Telekom-4F2C21', 'Vodafone-B7E9',
             'o2-WLAN42', 'NETGEAR-Travel']
    MAC = r'[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}'
    COORD = r'48\.5|7\.[78][0-9]'

    def run_trip(self):
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '50')
        self.wait_for(lambda: self.get('Country') == 'DE' and 'end of the recording' in self.source('replay')[3],
                      'the end of the trip', 20)

    def run_private_trip(self):
        '''Runs TRIP; returns every public text seen on the way (Reason
        changes, CountryChanged reasons).'''
        path = os.path.join(self.dir, 'kehl.scn')
        with open(path, 'w') as f:
            f.write(self.TRIP)
        seen, country_changed = [], []
        self.subscribe('PropertiesChanged', seen)
        self.subscribe('CountryChanged', country_changed)
        self.start_daemon('--replay', path, '--replay-speed', '50')
        self.wait_for(lambda: self.get('Country') == 'DE' and 'end of the recording' in self.source('replay')[3]
                      and len(country_changed) >= 3, 'the end of the trip', 20)
        texts = [c[1]['Reason'] for c in seen if 'Reason' in c[1]]
        texts += [c[2] for c in country_changed]
        self.assertGreaterEqual(len(texts), 4)
        return texts

    def assert_no_private(self, text, what):
        self.assertNotRegex(text, self.MAC, f'{what} names a BSSID')
        self.assertNotRegex(text, self.COORD, f'{what} names a coordinate')
        self.assertNotRegex(text, r'border-m|m from (the nearest|a|any|[A-Z]{2}) (border|waters)',
                            f'{what} names a border distance')
        for ssid in self.SSIDS:
            self.assertNotIn(ssid, text, f'{what} names an SSID')

    def test_coordinates_hidden_without_read_location(self):
        self.spawn_polkit(allowed=[])
        self.run_trip()
        gps = [e for e in self.call('GetEvidence')[0] if e['source'] == 'gps']
        self.assertEqual(len(gps), 1)
        self.assertNotIn('latitude', gps[0])
        self.assertNotIn('border-m', gps[0])
        self.assertNotIn('48.5', gps[0]['detail'])
        self.assertEqual(gps[0]['detail'], 'GPS fix in DE ±7 m')
        self.assertNotRegex(self.call('Explain')[0], r'48\.5')
        self.assertNotRegex(self.get('Reason'), r'48\.5')
        for s in self.get('Sources'):
            self.assertNotRegex(s[3], r'48\.5')

    def test_coordinates_shown_with_read_location(self):
        self.spawn_polkit(allowed=['net.regloc.read-location'])
        self.run_trip()
        gps = [e for e in self.call('GetEvidence')[0] if e['source'] == 'gps'][0]
        self.assertAlmostEqual(gps['latitude'], 48.5655, places=3)
        self.assertAlmostEqual(gps['longitude'], 7.8230, places=3)
        self.assertIn('48.5', self.call('Explain')[0])

    def test_bssids_and_ssids_hidden_without_read_location(self):
        '''BSSIDs and SSIDs are location data (a Wi-Fi database turns a BSSID
        into a position): without the permission no BSSID, SSID, coordinate
        or border distance anywhere; counts and countries stay.'''
        self.spawn_polkit(allowed=[])
        texts = self.run_private_trip()
        for t in texts:
            self.assert_no_private(t, 'Reason / CountryChanged')
        evidence = self.call('GetEvidence')[0]
        beacons = [e for e in evidence if e['source'] == 'beacons']
        self.assertEqual(len(beacons), 5)
        self.assertEqual(sorted(e['key'] for e in beacons), [f'beacon:#{i}' for i in range(1, 6)])
        self.assertEqual(sorted(e['countries'][0] for e in beacons), ['DE', 'DE', 'DE', 'DE', 'US'])
        self.assertTrue(all('signal-dbm' in e for e in beacons), 'the signal is public')
        for e in evidence:
            self.assertNotIn('latitude', e)
            self.assertNotIn('longitude', e)
            self.assertNotIn('border-m', e)
            self.assert_no_private(repr(e), 'GetEvidence')
        explain = self.call('Explain')[0]
        self.assert_no_private(explain, 'Explain')
        # the US travel router, contradicted by the fix inside Germany, is
        # counted apart from the vote (no dissent): a count, no BSSID
        self.assertIn('1 access point a GPS fix contradicted stays suspect and does not vote', explain)
        self.assertIn('4 access points from 4 operators say DE', explain)
        self.assert_no_private(self.get('Reason'), 'Reason')
        for s in self.get('Sources'):
            self.assert_no_private(repr(s), 'Sources')

    def test_bssids_and_ssids_shown_with_read_location(self):
        self.spawn_polkit(allowed=['net.regloc.read-location'])
        texts = self.run_private_trip()
        # Properties and signals are public whoever listens.
        for t in texts:
            self.assert_no_private(t, 'Reason / CountryChanged')
        for s in self.get('Sources'):
            self.assert_no_private(repr(s), 'Sources')
        evidence = self.call('GetEvidence')[0]
        keys = sorted(e['key'] for e in evidence if e['source'] == 'beacons')
        self.assertIn('beacon:00:14:6c:66:77:06', keys)
        gps = [e for e in evidence if e['source'] == 'gps'][0]
        self.assertEqual(gps['border-m'], 1351)
        self.assertIn('48.57N', gps['detail'])
        netgear = [e for e in evidence if e['key'] == 'beacon:00:14:6c:66:77:06'][0]
        self.assertIn('NETGEAR-Travel', netgear['detail'])
        explain = self.call('Explain')[0]
        self.assertIn('1 access point a GPS fix contradicted stays suspect and does not vote', explain)
        self.assertRegex(explain, self.COORD)


class TestAuthorizationLimits(ReglocdTestCase):
    """Unprivileged callers cannot lock an administrator out (polkit checks
    are cached, shared per caller and bounded; interactive ones time out)."""

    def connect(self):
        return Gio.DBusConnection.new_for_address_sync(
            self.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def call_async(self, conn, method, args, results, flags=Gio.DBusCallFlags.NONE):
        def done(c, res, _):
            try:
                c.call_finish(res)
                results.append('ok')
            except GLib.Error as e:
                results.append(Gio.DBusError.get_remote_error(e))
        conn.call(NAME, PATH, IFACE, method, args, None, flags, 60000, None, done, None)

    def polkit_checks(self, obj, action):
        calls = obj.GetMethodCalls('CheckAuthorization', dbus_interface=dbusmock.MOCK_IFACE)
        return len([c for c in calls if str(c[1][1]) == action])

    def test_flood_of_reads_does_not_lock_out_the_admin(self):
        obj = self.spawn_polkit(allowed=['net.regloc.override'])
        obj.SimulateHangActions(['net.regloc.read-location'], dbus_interface=dbusmock.MOCK_IFACE)
        self.start_daemon()
        flooders = [self.connect() for _ in range(4)]
        results = []
        for conn in flooders:
            for _ in range(40):
                self.call_async(conn, 'GetEvidence', None, results)
        # Every caller beyond its share of waiting calls is told to come back.
        self.wait_for(lambda: len(results) >= 4 * 8, 'the calls over the per-caller bound to be refused')
        self.assertEqual(set(results), {'org.freedesktop.DBus.Error.LimitsExceeded'})
        # The administrator is not kept waiting behind them.
        for _ in range(10):
            self.call('SetOverride', GLib.Variant('(s)', ('FR',)))
            self.call('ClearOverride')
        self.assertEqual(self.polkit_checks(obj, 'net.regloc.read-location'), 4,
                         'one pending check per caller, however many calls it makes')
        self.assertEqual(self.polkit_checks(obj, 'net.regloc.override'), 1, 'the admin\'s answer is cached')
        obj.ReleaseHangingCalls(dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_for(lambda: len(results) == 160, 'every waiting call to be answered')
        self.assertEqual(results.count('ok'), 4 * 32)
        for conn in flooders:
            conn.close_sync(None)

    def test_answers_are_cached_until_polkit_changes(self):
        obj = self.spawn_polkit(allowed=['net.regloc.read-location'])
        self.start_daemon()
        for _ in range(10):
            self.call('GetEvidence')
        self.assertEqual(self.polkit_checks(obj, 'net.regloc.read-location'), 1)
        obj.EmitSignal(POLKIT[2], 'Changed', '', [], dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_for(lambda: (self.call('GetEvidence') or True) and
                      self.polkit_checks(obj, 'net.regloc.read-location') == 2, 'a new check after Changed')
        other = self.connect()
        other.call_sync(NAME, PATH, IFACE, 'GetEvidence', None, None, 0, 10000, None)
        self.assertEqual(self.polkit_checks(obj, 'net.regloc.read-location'), 3, 'another caller is asked for')
        other.close_sync(None)

    def test_interactive_check_times_out(self):
        obj = self.spawn_polkit(allowed=['net.regloc.override'])
        obj.SimulateHangActions(['net.regloc.override'], dbus_interface=dbusmock.MOCK_IFACE)
        os.environ['REGLOC_AUTH_INTERACTIVE_TIMEOUT_MS'] = '1500'
        try:
            self.start_daemon()
        finally:
            del os.environ['REGLOC_AUTH_INTERACTIVE_TIMEOUT_MS']
        start = time.monotonic()
        name, message = self.call_error('SetOverride', GLib.Variant('(s)', ('FR',)),
                                        Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION)
        self.assertEqual(name, 'net.regloc.RegLoc1.Error.NotAuthorized')
        self.assertIn('did not answer', message)
        self.assertLess(time.monotonic() - start, 9 * SLOW)
        self.assertEqual(self.get('Override'), '')


class TestLifecycle(ReglocdTestCase):
    def test_sigterm_and_sigint_exit_cleanly(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            self.start_daemon()
            self.daemon.send_signal(sig)
            self.assertEqual(self.daemon.wait(timeout=10 * SLOW), 0, self.daemon_log())
            self.daemon = None
            self.assertFalse(self.name_owned())

    def main_started(self, pid):
        """reglocd's main() ignores SIGPIPE among its first statements."""
        try:
            with open(f'/proc/{pid}/status') as f:
                ignored = [line.split(':\t', 1)[1] for line in f if line.startswith('SigIgn')]
        except FileNotFoundError:
            return False
        return bool(ignored) and int(ignored[0], 16) & (1 << (signal.SIGPIPE - 1)) != 0

    def test_sighup_during_startup(self):
        if VALGRIND:
            self.skipTest('valgrind catches every signal itself while it starts: the window cannot be told')
        self.start_daemon('--replay', 'sample-trip', wait=False)
        pid = self.daemon.pid
        # From the moment reglocd's own code runs, every reload request while it
        # loads config, regulatory.db and the replay is harmless.
        self.wait_for(lambda: self.main_started(pid), 'reglocd\'s main() to run', 5)
        # The first one at once (the start can be over within a few ms: the
        # index checksum is fast), then until the name is on the bus.
        while True:
            self.daemon.send_signal(signal.SIGHUP)
            if self.name_owned():
                break
            time.sleep(0.005)
        self.daemon.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        self.assertIsNone(self.daemon.poll(), self.daemon_log())
        self.assertIn(self.get('State'), ('world', 'tentative', 'decided'))

    def test_sighup_with_bad_config_keeps_the_old_one(self):
        self.start_daemon()
        self.wait_for(lambda: 'Europe/Berlin' in self.source('timezone')[3], 'Berlin')
        with open(self.config, 'w') as f:
            f.write('[policy]\nhold_down=soon\n')
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_for(lambda: 'Keeping the old configuration' in self.daemon_log(), 'the rejection')
        self.assertRegex(self.daemon_log(), r'hold_down')
        self.assertEqual(self.get('Country'), '00')
        self.assertIn('Europe/Berlin', self.source('timezone')[3])
        # A good new config is taken.
        other = os.path.join(self.dir, 'localtime2')
        os.symlink(os.path.join(ZONEINFO, 'Europe/Rome'), other)
        self.localtime = other
        self.write_config()
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_for(lambda: 'Europe/Rome' in self.source('timezone')[3], 'the new config')

    def test_replace(self):
        self.start_daemon()
        first = self.daemon
        self.daemon = None
        self.start_daemon('--replace', wait=False)
        self.assertEqual(first.wait(timeout=10 * SLOW), 0)
        self.wait_for(self.name_owned, 'the second daemon')

    def test_bad_config_at_start_is_an_error(self):
        with open(self.config, 'w') as f:
            f.write('[nonsense]\nkey=1\n')
        r = subprocess.run(VALGRIND + [REGLOCD, '--config', self.config], capture_output=True, text=True,
                           timeout=10 * SLOW)
        self.assertEqual(r.returncode, 1)
        # (?m): run as root, a line about the dropped capabilities comes first.
        self.assertRegex(r.stderr, r'(?m)^reglocd: error: .*nonsense')

    def test_resume_drops_evidence_from_before_the_sleep(self):
        server, logind = self.spawn_server_template('logind', {}, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '50')
        self.wait_for(lambda: self.get('Country') == 'DE', 'DE', 20)
        time.sleep(0.5)   # the sleep watch subscribes asynchronously
        for start in (True, False):
            logind.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [start],
                              dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_for(lambda: self.get('Country') == '00', '00 after the resume', 5)
        self.assertEqual([e['source'] for e in self.call('GetEvidence')[0]], ['timezone'])
        self.assertIn('Resumed from sleep', self.daemon_log())

    def test_no_bus_mode_decides_without_dbus(self):
        env = dict(os.environ, STATE_DIRECTORY=self.state, DBUS_SYSTEM_BUS_ADDRESS='unix:path=/nonexistent')
        p = subprocess.Popen(VALGRIND + [REGLOCD, '--config', self.config, '--no-bus', '--replay', 'sample-trip',
                                         '--replay-speed', '100'], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        time.sleep(3 * SLOW)
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=10 * SLOW)[0]
        self.assertEqual(p.returncode, 0, out)
        self.assertIn('country=DE state=decided', out)


def normalize(text):
    text = re.sub(r'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d( \w+|Z)?', 'TIME', text)
    text = re.sub(r'\b\d+ (s|min|h) ago', 'AGE', text)
    text = re.sub(r'"age_s" : \d+', '"age_s" : AGE', text)
    # What the kernel says depends on the machine (nl80211 present or not,
    # its current domain): only its presence in the output is checked.
    text = re.sub(r'(?m)^(Kernel country: +).*$', r'\1KERNEL', text)
    text = re.sub(r'(?m)^(  kernel +)\S+ +\S+ +.*$', r'\1KERNEL-STATUS', text)
    text = re.sub(r'"kernel_country" : [^,]*,', '"kernel_country" : KERNEL,', text)
    text = re.sub(r'("name" : "kernel",\s*"available" : )\w+(,.*?"detail" : )"[^"]*"', r'\1KERNEL\2"KERNEL-STATUS"',
                  text, flags=re.S)
    return text


class TestCli(ReglocdTestCase):
    def check_expected(self, name, text):
        path = os.path.join(EXPECTED, name)
        if os.environ.get('REGLOC_UPDATE_EXPECTED'):
            with open(path, 'w') as f:
                f.write(text)
        with open(path) as f:
            self.assertEqual(text, f.read(), f'output differs from {path}')

    def test_status_text_and_json(self):
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '50')
        self.wait_for(lambda: self.get('Country') == 'DE' and 'end of the recording' in self.source('replay')[3],
                      'the end of the trip', 20)
        r = self.regloc('status')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_expected('status.txt', normalize(r.stdout))
        r = self.regloc('status', '--json')
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual(data['country'], 'DE')
        self.check_expected('status.json', normalize(r.stdout))
        r = self.regloc('explain')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith('Decided DE'), r.stdout)

    def test_monitor_follows_changes(self):
        self.start_daemon('--replay', 'sample-trip', '--replay-speed', '10', wait=True)
        mon = subprocess.Popen([REGLOC, 'monitor'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.wait_for(lambda: self.get('Country') == 'DE', 'DE', 30)
            time.sleep(0.5)
        finally:
            mon.send_signal(signal.SIGINT)
            out, err = mon.communicate(timeout=10)
        self.assertEqual(mon.returncode, 0, err)
        lines = [l.split('  ', 1)[1] for l in out.splitlines()]
        self.assertTrue(lines[0].startswith('now 00 '), lines[0])
        changes = [l for l in lines if l.startswith('country changed')]
        self.assertEqual([c.split(':')[0] for c in changes],
                         ['country changed 00 → FR', 'country changed FR → 00', 'country changed 00 → DE'])

    def test_no_daemon(self):
        for cmd in (['status'], ['status', '--json'], ['explain'], ['monitor'], ['override', 'clear']):
            r = self.regloc(*cmd)
            self.assertEqual(r.returncode, 3, cmd)
            self.assertEqual(r.stdout, '')
            self.assertRegex(r.stderr, r'^regloc \S+: error: reglocd is not running.*\n$')

    def test_usage_errors(self):
        r = self.regloc('status', '--frob')
        self.assertEqual(r.returncode, 2)
        self.assertIn("Try 'regloc status --help'", r.stderr)


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
