#!/bin/sh
# Runs an integration test script (default test_reglocd.py) with a Python
# that has python-dbusmock and PyGObject (Debian: python3-dbusmock,
# python3-gi); skips loudly (exit 77) without one.
# Usage: run-integration.sh REGLOCD REGLOC [SCRIPT]
set -u
export REGLOCD="$1" REGLOC="$2"
script="${3:-test_reglocd.py}"
here=$(dirname "$0")
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import dbusmock, dbus, gi; gi.require_version("Gio", "2.0")' 2>/dev/null; then
    if ! command -v dbus-daemon >/dev/null; then
      echo "SKIP: dbus-daemon not found (Debian package dbus)" >&2
      exit 77
    fi
    exec "$py" "$here/$script" -v
  fi
done
echo "SKIP: no python3 with dbusmock, dbus and gi (Debian packages python3-dbusmock python3-gi)" >&2
exit 77
