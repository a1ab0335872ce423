#!/usr/bin/env python3
'''The mobile-network source (daemon/sources/modem.c) against a stand-in
ModemManager: python-dbusmock generic objects with ModemManager's real bus
name, object paths, interface and property names
(org.freedesktop.ModemManager1, an ObjectManager at
/org/freedesktop/ModemManager1, modems at .../Modem/N with the Modem,
Modem.Modem3gpp and Modem.Location interfaces) on the private system bus.'''

import json
import os
import signal
import subprocess
import sys
import time
import unittest

import dbus
import dbusmock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_reglocd import ReglocdTestCase, REGLOC  # noqa: E402

MM_NAME = 'org.freedesktop.ModemManager1'
MM_PATH = '/org/freedesktop/ModemManager1'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'
MODEM = 'org.freedesktop.ModemManager1.Modem'
GPP = 'org.freedesktop.ModemManager1.Modem.Modem3gpp'
LOCATION = 'org.freedesktop.ModemManager1.Modem.Location'
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'mcc', 'serviceproviders.xml')

# MMModemState, MMModem3gppRegistrationState, MMModemLocationSource
STATE_DISABLED, STATE_ENABLED, STATE_REGISTERED = 3, 6, 8
REG_IDLE, REG_HOME, REG_SEARCHING, REG_ROAMING, REG_EMERGENCY_ONLY = 0, 1, 2, 5, 8
LOCATION_3GPP_LAC_CI = 1


class ModemTestCase(ReglocdTestCase):
    def setUp(self):
        super().setUp()
        # no timezone: the cell is the only evidence, so its item is easy to see
        self.write_config(f'[cell]\nproviders={FIXTURE}\n')
        with open(self.config) as f:
            text = f.read()
        with open(self.config, 'w') as f:
            f.write(text.replace('[timezone]\n', '[timezone]\nenabled=false\n'))

    def tearDown(self):
        super().tearDown()
        # the next test's ModemManager must find the name free
        bus = self.get_dbus(system_bus=True)
        self.wait_for(lambda: not bus.name_has_owner(MM_NAME), 'the stand-in ModemManager to leave the bus')

    def spawn_modemmanager(self):
        server = self.spawn_server(MM_NAME, MM_PATH, OM_IFACE, system_bus=True, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        manager = self.get_dbus(system_bus=True).get_object(MM_NAME, MM_PATH)
        # GetManagedObjects as ModemManager answers it: every object below the manager
        manager.AddMethod(OM_IFACE, 'GetManagedObjects', '', 'a{oa{sa{sv}}}',
                          f'ret = {{dbus.ObjectPath(k): objects[k].props for k in objects '
                          f'if k.startswith("{MM_PATH}/")}}', dbus_interface=dbusmock.MOCK_IFACE)
        self.manager = manager
        return manager

    def add_modem(self, n, reg, code, location=None, state=STATE_REGISTERED):
        path = f'{MM_PATH}/Modem/{n}'
        self.manager.AddObject(path, MODEM, {
            'State': dbus.Int32(state),
            'Manufacturer': 'Quectel',
            'Model': 'EM05-G',
            'EquipmentIdentifier': '869710030002905',
            'Sim': dbus.ObjectPath(f'{MM_PATH}/SIM/{n}'),
        }, [], dbus_interface=dbusmock.MOCK_IFACE)
        modem = self.get_dbus(system_bus=True).get_object(MM_NAME, path)
        ifaces = {MODEM: None}
        if reg is not None:
            modem.AddProperties(GPP, {
                'Imei': '869710030002905',
                'RegistrationState': dbus.UInt32(reg),
                'OperatorCode': code,
                'OperatorName': '',
                'EnabledFacilityLocks': dbus.UInt32(0),
            }, dbus_interface=dbusmock.MOCK_IFACE)
        if location is not None:
            modem.AddProperties(LOCATION, {
                'Capabilities': dbus.UInt32(LOCATION_3GPP_LAC_CI | 2),
                'Enabled': dbus.UInt32(LOCATION_3GPP_LAC_CI),
                'SignalsLocation': True,
                'Location': dbus.Dictionary({dbus.UInt32(LOCATION_3GPP_LAC_CI): dbus.String(location, variant_level=1)},
                                            signature='uv'),
            }, dbus_interface=dbusmock.MOCK_IFACE)
        props = modem.GetAll(MODEM, dbus_interface='org.freedesktop.DBus.Properties')
        added = {MODEM: props}
        for iface in (GPP, LOCATION):
            try:
                added[iface] = modem.GetAll(iface, dbus_interface='org.freedesktop.DBus.Properties')
            except dbus.exceptions.DBusException:
                pass
        self.manager.EmitSignal(OM_IFACE, 'InterfacesAdded', 'oa{sa{sv}}', [dbus.ObjectPath(path), added],
                                dbus_interface=dbusmock.MOCK_IFACE)
        del ifaces
        return modem

    def remove_modem(self, n, ifaces):
        path = f'{MM_PATH}/Modem/{n}'
        self.manager.RemoveObject(path, dbus_interface=dbusmock.MOCK_IFACE)
        self.manager.EmitSignal(OM_IFACE, 'InterfacesRemoved', 'oas', [dbus.ObjectPath(path), ifaces],
                                dbus_interface=dbusmock.MOCK_IFACE)

    def cells(self):
        return [e for e in self.call('GetEvidence')[0] if e['source'] == 'cell']

    def wait_cells(self, countries, what):
        '''GetEvidence reads the evidence at once; the Sources property is
        updated when the daemon next decides (an idle callback), so a test
        reading a source's status after this waits for it too.'''
        self.wait_for(lambda: sorted(c['countries'] for c in self.cells()) == countries, what, 10)


class TestModem(ModemTestCase):
    def test_registered_at_home(self):
        self.spawn_modemmanager()
        self.add_modem(0, REG_HOME, '26201')
        self.start_daemon()
        self.wait_cells([['DE']], 'the cell item for DE')
        cell = self.cells()[0]
        self.assertIn('262-01', cell['detail'])
        name, available, last, detail = self.source('cell')
        self.assertTrue(available)
        self.assertGreater(last, 0)
        self.assertIn('262-01', detail)
        # one witness: no decision on its own
        self.assertEqual(self.get('Country'), '00')
        self.assertIn('mobile network', self.call('Explain')[0])
        r = self.regloc('status')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r'\n  cell +available')

    def test_roaming_then_lost_then_home(self):
        self.spawn_modemmanager()
        modem = self.add_modem(0, REG_HOME, '26202')
        self.start_daemon()
        self.wait_cells([['DE']], 'DE at home')
        # a German SIM over the border: roaming on KPN
        modem.UpdateProperties(GPP, {'OperatorCode': '20408', 'RegistrationState': dbus.UInt32(REG_ROAMING)},
                               dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_cells([['NL']], 'NL while roaming')
        # the source's status comes in its own property change, maybe later
        self.wait_for(lambda: 'roaming' in self.source('cell')[3], 'the cell source saying roaming')
        for reg in (REG_SEARCHING, REG_EMERGENCY_ONLY, REG_IDLE):
            modem.UpdateProperties(GPP, {'RegistrationState': dbus.UInt32(reg)}, dbus_interface=dbusmock.MOCK_IFACE)
            self.wait_cells([], f'no cell in registration state {reg}')
            modem.UpdateProperties(GPP, {'OperatorCode': '26201', 'RegistrationState': dbus.UInt32(REG_HOME)},
                                   dbus_interface=dbusmock.MOCK_IFACE)
            self.wait_cells([['DE']], 'DE again')

    def test_resume_puts_the_registration_again(self):
        '''A resume drops the registration from before the sleep (the mast
        the machine slept under); the source puts what ModemManager says
        now, observed after the resume.'''
        server, logind = self.spawn_server_template('logind', {}, stdout=subprocess.DEVNULL)
        self.mocks.append(server)
        self.spawn_modemmanager()
        modem = self.add_modem(0, REG_HOME, '26201')
        self.start_daemon()
        self.wait_cells([['DE']], 'DE before the sleep')
        time.sleep(0.5)   # the sleep watch subscribes asynchronously
        logind.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [True],
                          dbus_interface=dbusmock.MOCK_IFACE)
        # woken in Maastricht, the modem already on KPN
        modem.UpdateProperties(GPP, {'OperatorCode': '20408', 'RegistrationState': dbus.UInt32(REG_ROAMING)},
                               dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_cells([['NL']], 'NL while asleep')
        logind.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [False],
                          dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_for(lambda: 'Resumed from sleep: dropped 1 observations' in self.daemon_log(), 'the resume', 10)
        self.wait_cells([['NL']], 'NL put again after the resume')

    def test_serving_cell_from_location(self):
        self.spawn_modemmanager()
        # registered on a German network, the Location interface names the serving cell
        self.add_modem(0, REG_HOME, '26201', location='204,04,7D2,1A2B3C4')
        self.start_daemon()
        self.wait_cells([['NL']], 'the serving cell NL')
        self.assertIn('serving cell', self.cells()[0]['detail'])

    def test_international_and_multi_country_networks(self):
        self.spawn_modemmanager()
        self.add_modem(0, REG_ROAMING, '90118')
        self.add_modem(1, REG_ROAMING, '310410')
        self.start_daemon()
        self.wait_cells([['PR', 'US']], 'PR,US from 310 only')
        self.wait_for(lambda: 'names no country' in self.source('cell')[3], 'the cell source saying names no country')

    def test_modem_removed_and_added(self):
        self.spawn_modemmanager()
        self.add_modem(0, REG_HOME, '26201')
        self.start_daemon()
        self.wait_cells([['DE']], 'DE')
        self.remove_modem(0, [MODEM, GPP])
        self.wait_cells([], 'the item withdrawn with the modem')
        self.wait_for(lambda: 'no modem' in self.source('cell')[3], 'the cell source saying no modem')
        # no SIM: the modem is listed without a 3GPP interface
        self.add_modem(1, None, None, state=STATE_ENABLED)
        self.wait_for(lambda: 'modem 1 not registered' in self.source('cell')[3], 'the modem without SIM')
        self.assertEqual(self.cells(), [])
        # airplane mode: disabled, whatever a stale 3GPP registration still says
        modem = self.add_modem(2, REG_HOME, '26201')
        self.wait_cells([['DE']], 'DE from modem 2')
        modem.UpdateProperties(MODEM, {'State': dbus.Int32(STATE_DISABLED)}, dbus_interface=dbusmock.MOCK_IFACE)
        self.wait_cells([], 'no cell from the disabled modem')
        self.wait_for(lambda: 'modem 2 disabled (airplane mode?)' in self.source('cell')[3], 'the modem in airplane mode')

    def test_no_modemmanager_then_it_appears_and_goes(self):
        self.start_daemon()
        self.wait_for(lambda: 'not running' in self.source('cell')[3], 'cell unavailable: ' + str(self.get('Sources')))
        self.assertFalse(self.source('cell')[1])
        self.assertEqual(self.get('Country'), '00')
        # the name is watched: ModemManager starting later is followed
        self.spawn_modemmanager()
        self.add_modem(0, REG_HOME, '26201')
        self.wait_cells([['DE']], 'DE after ModemManager started')
        self.wait_for(lambda: self.source('cell')[1], 'the cell source available')
        # ModemManager exits: its modems' items go with it
        server = self.mocks.pop()
        server.terminate()
        server.wait()
        self.wait_cells([], 'the item withdrawn when ModemManager went away')
        self.wait_for(lambda: not self.source('cell')[1], 'cell unavailable again')
        self.assertTrue(self.name_owned())

    def test_record_writes_cell_records_replay_reads_them(self):
        self.spawn_modemmanager()
        modem = self.add_modem(0, REG_ROAMING, '20408')
        log = os.path.join(self.dir, 'here.scans.jsonl')
        rec = subprocess.Popen([REGLOC, 'record', '--config', self.config, '--duration', '3', '--output', log],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_for(lambda: os.path.exists(log) and os.path.getsize(log) > 0, 'the first cell record')
        modem.UpdateProperties(GPP, {'RegistrationState': dbus.UInt32(REG_SEARCHING)}, dbus_interface=dbusmock.MOCK_IFACE)
        out, err = rec.communicate(timeout=20)
        self.assertEqual(rec.returncode, 0, err)
        self.assertIn('2 cell records written', err)
        lines = [json.loads(l) for l in open(log)]
        self.assertEqual([l['cell'] for l in lines],
                         [{'modem': '0', 'mcc': '204', 'mnc': '08'}, {'modem': '0', 'mcc': None}])
        r = self.regloc('replay', '--config', self.config, '--scans', log, '--format', 'json', '--evidence')
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual(data['summary']['counters']['scans.cells'], 2, r.stdout)
        self.assertIn('NL has 1 witness', r.stdout)

    def test_reload_keeps_the_cell(self):
        self.spawn_modemmanager()
        self.add_modem(0, REG_HOME, '26201')
        self.start_daemon()
        self.wait_cells([['DE']], 'DE')
        before = self.cells()[0]['observed-at']
        time.sleep(0.2)
        self.daemon.send_signal(signal.SIGHUP)
        self.wait_for(lambda: 'Reloaded the configuration' in self.daemon_log(), 'the reload')
        self.assertNotIn('Restarting source cell', self.daemon_log())
        # the same item (the bus's wall-clock mapping may move it by a microsecond);
        # a restarted source would have observed it again after the reload
        self.assertLess(abs(self.cells()[0]['observed-at'] - before), 1000)

    def test_disabled_in_config(self):
        self.write_config('[cell]\nenabled=false\n')
        self.start_daemon()
        self.assertEqual(self.source('cell')[1:], (False, 0, 'disabled in regloc.conf'))


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
