#!/usr/bin/env python3
"""Prints the SONAME of a shared library (run by meson at configure time).

  soname.py NAME DIR...   the SONAME in the dynamic section of the first
        DIR/libNAME.so (the development link the linker would use), read
        with binutils' readelf

The readers open libxml2 and libpcap on first use by this name, so it is the
one the build's headers belong to, never a name typed by hand.  Exits 1 with
a message on standard error when no file or no SONAME is found.
"""
import os
import re
import subprocess
import sys

SONAME = re.compile(r'\(SONAME\)\s+Library soname: \[([^\]]+)\]')


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: soname.py NAME DIR...')
    name, dirs = sys.argv[1], sys.argv[2:]
    tried = []
    for d in dirs:
        path = os.path.join(d, 'lib' + name + '.so')
        tried.append(path)
        if not os.path.exists(path):
            continue
        env = dict(os.environ, LC_ALL='C')
        try:
            out = subprocess.run(['readelf', '-d', path], env=env, check=True,
                                 capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit('soname.py: readelf -d %s failed (binutils installed?): %s' % (path, e))
        m = SONAME.search(out)
        if m is None:
            sys.exit('soname.py: %s has no SONAME' % path)
        print(m.group(1))
        return
    sys.exit('soname.py: no shared library lib%s.so (looked for %s)' % (name, ', '.join(tried) or 'nothing'))


if __name__ == '__main__':
    main()
