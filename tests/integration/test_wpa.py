#!/usr/bin/env python3
'''The wpa_supplicant bridge (daemon/kernel/wpa-bridge.c) against a stand-in
wpa_supplicant: python-dbusmock objects with wpa_supplicant's real bus name,
object paths, interfaces and property names (fi.w1.wpa_supplicant1 at
/fi/w1/wpa_supplicant1 with the Interfaces property and the
InterfaceAdded/InterfaceRemoved signals; interfaces at
/fi/w1/wpa_supplicant1/Interfaces/N with fi.w1.wpa_supplicant1.Interface and
its read/write Country) on the private system bus.

The decision comes from [override] country in regloc.conf (an override
decides at once), and falls back to the world by a reload without it.
[general] apply=true, so that the bridge runs; reglocd runs without
CAP_NET_ADMIN (setpriv), so that it never sets the domain of the machine
running the tests.'''

import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

import dbus
import dbusmock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_reglocd  # noqa: E402
from test_reglocd import ReglocdTestCase  # noqa: E402

WPA_NAME = 'fi.w1.wpa_supplicant1'
WPA_PATH = '/fi/w1/wpa_supplicant1'
WPA_IFACE = 'fi.w1.wpa_supplicant1'
WPA_INTERFACE = 'fi.w1.wpa_supplicant1.Interface'
PROPS = 'org.freedesktop.DBus.Properties'
SETPRIV = shutil.which('setpriv')


class WpaTestCase(ReglocdTestCase):
    def setUp(self):
        super().setUp()
        self.wpa = None
        self.paths = []
        self.use_config()

    def tearDown(self):
        super().tearDown()
        bus = self.get_dbus(system_bus=True)
        self.wait_for(lambda: not bus.name_has_owner(WPA_NAME), 'the stand-in wpa_supplicant to leave the bus')

    def use_config(self, override='DE', extra=''):
        self.write_config(f'[override]\ncountry={override}\n' + extra)
        with open(self.config) as f:
            text = f.read()
        with open(self.config, 'w') as f:
            f.write(text.replace('apply=false', 'apply=true'))

    def start_daemon(self, *args, wait=True):
        # no CAP_NET_ADMIN: the nl80211 applier only watches (observe-only)
        if SETPRIV is not None and os.geteuid() == 0:
            saved = test_reglocd.VALGRIND
            test_reglocd.VALGRIND = [SETPRIV, '--bounding-set', '-net_admin', '--inh-caps', '-net_admin'] + saved
            try:
                super().start_daemon(*args, wait=wait)
            finally:
                test_reglocd.VALGRIND = saved
        else:
            super().start_daemon(*args, wait=wait)

    def reload(self, override=''):
        self.use_config(override)
        before = self.daemon_log().count('Reloaded the configuration')
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_for(lambda: self.daemon_log().count('Reloaded the configuration') > before, 'the reload')

    # --- the stand-in wpa_supplicant -------------------------------------------

    def spawn_wpa(self, n_interfaces=2, broken=()):
        server = self.spawn_server(WPA_NAME, WPA_PATH, WPA_IFACE, system_bus=True, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        self.wpa_server = server
        self.wpa = self.get_dbus(system_bus=True).get_object(WPA_NAME, WPA_PATH)
        self.wpa.AddProperties(WPA_IFACE, {
            'DebugLevel': 'info', 'DebugTimestamp': False, 'DebugShowKeys': False,
            'Interfaces': dbus.Array([], signature='o'),
            'EapMethods': dbus.Array(['MD5', 'TLS'], signature='s'),
            'Capabilities': dbus.Array(['ap', 'p2p'], signature='s'),
        }, dbus_interface=dbusmock.MOCK_IFACE)
        self.paths = []
        for i in range(n_interfaces):
            # InterfaceAdded as wpa_supplicant sends it: a reglocd already
            # watching may have read the empty list before
            self.add_interface(i, broken=i in broken)
        return self.wpa

    def add_interface(self, n, broken=False):
        path = f'{WPA_PATH}/Interfaces/{n}'
        props = {'Ifname': f'wlan{n}', 'Driver': 'nl80211', 'State': 'inactive', 'Scanning': False}
        # a broken interface has no Country: the mock answers Set with UnknownProperty
        if not broken:
            props['Country'] = ''
        self.wpa.AddObject(path, WPA_INTERFACE, props, [], dbus_interface=dbusmock.MOCK_IFACE)
        self.paths.append(path)
        self.wpa.UpdateProperties(WPA_IFACE, {'Interfaces': dbus.Array(self.paths, signature='o')},
                                  dbus_interface=dbusmock.MOCK_IFACE)
        self.wpa.EmitSignal(WPA_IFACE, 'InterfaceAdded', 'oa{sv}',
                            [dbus.ObjectPath(path), dbus.Dictionary(props, signature='sv')],
                            dbus_interface=dbusmock.MOCK_IFACE)
        return path

    def remove_interface(self, path):
        self.wpa.RemoveObject(path, dbus_interface=dbusmock.MOCK_IFACE)
        self.paths.remove(path)
        self.wpa.UpdateProperties(WPA_IFACE, {'Interfaces': dbus.Array(self.paths, signature='o')},
                                  dbus_interface=dbusmock.MOCK_IFACE)
        self.wpa.EmitSignal(WPA_IFACE, 'InterfaceRemoved', 'o', [dbus.ObjectPath(path)],
                            dbus_interface=dbusmock.MOCK_IFACE)

    def country(self, path):
        obj = self.get_dbus(system_bus=True).get_object(WPA_NAME, path)
        return str(obj.Get(WPA_INTERFACE, 'Country', dbus_interface=PROPS))

    def countries(self):
        return [self.country(p) for p in self.paths]

    def wait_log_count(self, text, n):
        """Waits until the daemon's log holds @text @n times, then requires exactly @n."""
        self.wait_for(lambda: self.daemon_log().count(text) >= n, f'{n} log lines "{text}"', 10)
        self.assertEqual(self.daemon_log().count(text), n)

    def wait_countries(self, want, what):
        self.wait_for(lambda: self.countries() == want, f'{what} (wpa_supplicant says {self.countries()})', 10)


class TestWpaBridge(WpaTestCase):
    def test_every_interface_added_later_and_back_to_world(self):
        self.spawn_wpa(2)
        self.start_daemon()
        self.wait_countries(['DE', 'DE'], 'DE on both interfaces')
        self.assertEqual(self.get('Country'), 'DE')
        self.assertIn('wpa_supplicant: 2 of 2 interfaces set to DE', self.call('Explain')[0])
        # the daemon logs a write when wpa_supplicant's reply comes, which can
        # be a moment after the property changed (under valgrind, seconds)
        self.wait_log_count('Country set to DE', 2)
        # an interface wpa_supplicant takes up later gets the country in force
        self.add_interface(2)
        self.wait_countries(['DE', 'DE', 'DE'], 'DE on the interface added later')
        # a removed interface is forgotten, not written to
        self.remove_interface(f'{WPA_PATH}/Interfaces/1')
        self.wait_for(lambda: 'wpa_supplicant: 2 of 2 interfaces' in self.call('Explain')[0], 'the removal')
        # the decision falls back to the world: 00 goes to wpa_supplicant too
        self.reload(override='')
        self.wait_for(lambda: self.get('Country') == '00', 'the world decision')
        self.wait_countries(['00', '00'], '00 on every interface')
        # nothing is written twice: one Set per interface and change
        self.wait_log_count('Country set to 00', 2)
        self.assertEqual(self.daemon_log().count('Country set to DE'), 3)

    def test_absent_then_appears_then_goes(self):
        self.start_daemon()
        self.wait_for(lambda: self.get('Country') == 'DE', 'the override')
        self.assertIn('wpa_supplicant is not on the system bus', self.call('Explain')[0])
        self.assertTrue(self.name_owned())
        # the name is watched: a wpa_supplicant starting later gets the country
        self.spawn_wpa(1)
        self.wait_countries(['DE'], 'DE after wpa_supplicant started')
        self.wpa_server.terminate()
        self.wpa_server.wait()
        self.mocks.remove(self.wpa_server)
        self.wait_for(lambda: 'not on the system bus' in self.call('Explain')[0], 'wpa_supplicant gone')
        # a new one (the same paths, a fresh Country) is written to again
        self.spawn_wpa(1)
        self.wait_countries(['DE'], 'DE on the restarted wpa_supplicant')
        self.assertTrue(self.name_owned())

    def test_refusal_logged_once_daemon_fine(self):
        self.spawn_wpa(2, broken=[0])
        self.start_daemon()
        # the good interface gets it whatever the broken one answers
        self.wait_for(lambda: self.country(self.paths[1]) == 'DE', 'DE on the working interface')
        self.wait_for(lambda: 'did not take the country DE' in self.daemon_log(), 'the refusal in the log')
        self.assertIn('UnknownProperty', self.daemon_log())
        self.reload(override='FR')
        self.wait_for(lambda: self.country(self.paths[1]) == 'FR', 'FR on the working interface')
        self.wait_for(lambda: 'Country FR refused again' in self.daemon_log(), 'the second refusal')
        # the same error of the same interface: one warning, the rest at debug level
        self.assertEqual(self.daemon_log().count('did not take the country'), 1, self.daemon_log())
        self.assertIn('wpa_supplicant: 1 of 2 interfaces set to FR', self.call('Explain')[0])
        self.assertTrue(self.name_owned())

    def test_disabled_in_config(self):
        self.use_config(extra='[apply]\nwpa_supplicant=false\n')
        self.spawn_wpa(1)
        self.start_daemon()
        self.wait_for(lambda: self.get('Country') == 'DE', 'the override')
        self.wait_for(lambda: 'Decision: country=DE' in self.daemon_log(), 'the decision in the log')
        # an enabled bridge writes within milliseconds of the decision (the other tests)
        time.sleep(1.0 * test_reglocd.SLOW)
        self.assertEqual(self.countries(), [''])
        self.assertNotIn('wpa_supplicant', self.daemon_log())
        # switched on by a reload: written at once
        self.use_config()
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_countries(['DE'], 'DE once [apply] wpa_supplicant is back to true')

    def test_not_applying_writes_nothing(self):
        self.spawn_wpa(1)
        for how in (['--no-apply'], []):
            if not how:
                self.write_config('[override]\ncountry=DE\n')   # [general] apply=false
            self.start_daemon(*how)
            self.wait_for(lambda: self.get('Country') == 'DE', 'the override')
            self.wait_for(lambda: 'Decision: country=DE' in self.daemon_log(), 'the decision in the log')
            time.sleep(1.0 * test_reglocd.SLOW)
            self.assertEqual(self.countries(), [''], how)
            self.assertEqual(self.stop_daemon(), 0)
        self.assertNotIn('Country set to', self.daemon_log())


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
