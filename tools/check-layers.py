#!/usr/bin/env python3
"""Refuses an #include that points to a higher layer (run by the build).

Layers, lowest first; a folder may include its own headers and those of the
layers below it:  core < geo < readers < replay < daemon < cli.  dbus/ holds
only generated code and is for daemon/ and cli/.  Every quoted include names
its folder from the repository root ("core/policy.h"); the one exception is
the build's generated rl-build-config.h.

Usage: check-layers.py SOURCE_ROOT [STAMP]
"""
import os
import re
import sys

RANK = {'core': 0, 'geo': 1, 'readers': 2, 'replay': 3, 'daemon': 4, 'cli': 5}
DBUS_USERS = {'daemon', 'cli'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = sys.argv[1]
    errors = []
    for layer in RANK:
        for dirpath, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                if not name.endswith(('.c', '.h')):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    inc = m.group(1)
                    line = text.count('\n', 0, m.start()) + 1
                    if inc == 'rl-build-config.h':
                        continue
                    top = inc.split('/')[0]
                    if '/' not in inc:
                        errors.append(f'{rel}:{line}: "{inc}" does not name its folder')
                    elif top == 'dbus':
                        if layer not in DBUS_USERS:
                            errors.append(f'{rel}:{line}: {layer}/ may not use generated D-Bus code "{inc}"')
                    elif top not in RANK:
                        errors.append(f'{rel}:{line}: "{inc}" is outside the layered folders')
                    elif RANK[top] > RANK[layer]:
                        errors.append(f'{rel}:{line}: upward include: {layer}/ includes "{inc}"')
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        print(f'check-layers: {len(errors)} include(s) break the layering', file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        with open(sys.argv[2], 'w') as f:
            f.write('ok\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
