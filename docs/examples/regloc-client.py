#!/usr/bin/env python3
'''A regloc client in Python with Gio (PyGObject): prints the country in
force and, with --follow, every change until Ctrl-C.  Debian: python3-gi.'''

import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = 'net.regloc.RegLoc1'
PATH = '/net/regloc/RegLoc1/Manager'
IFACE = 'net.regloc.RegLoc1.Manager'


def main():
    # Creating the proxy starts reglocd by D-Bus activation.
    proxy = Gio.DBusProxy.new_for_bus_sync(Gio.BusType.SYSTEM, Gio.DBusProxyFlags.NONE, None,
                                           NAME, PATH, IFACE, None)
    if proxy.get_name_owner() is None:
        print('reglocd is not running', file=sys.stderr)
        return 1

    def prop(name):
        value = proxy.get_cached_property(name)
        return value.unpack() if value is not None else None

    print(f'Country: {prop("Country")}')
    print(f'State: {prop("State")}')
    print(f'Confidence: {prop("Confidence"):.2f}')
    print(f'Reason: {prop("Reason")}', flush=True)

    if '--follow' in sys.argv[1:]:
        def on_signal(_proxy, _sender, signal, params):
            if signal == 'CountryChanged':
                old, new, reason = params.unpack()
                print(f'Changed: {old} -> {new} ({reason})', flush=True)
        proxy.connect('g-signal', on_signal)
        GLib.MainLoop().run()
    return 0


if __name__ == '__main__':
    sys.exit(main())
