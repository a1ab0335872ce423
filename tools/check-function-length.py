#!/usr/bin/env python3
"""Fails when a function in core/ or daemon/ is longer than 80 lines.

Functions are written GNU style (the name at the start of a line, the body
between a '{' and a '}' at the start of a line); the count is the lines of
the body, braces included.  Usage: check-function-length.py SOURCE_ROOT [STAMP]
"""
import os
import re
import sys

LIMIT = 80
FOLDERS = ('core', 'daemon')
NAME = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def functions(path):
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    name, start = None, None
    for i, line in enumerate(lines):
        m = NAME.match(line)
        if m and start is None:
            name = m.group(1)
        elif line.startswith('{') and name is not None and start is None:
            start = i
        elif line.startswith('}') and start is not None:
            yield name, start + 1, i - start + 1
            name, start = None, None
        elif line and not line[0].isspace() and start is None and not m and not line.startswith(('/*', ' *', '#')):
            if not line.rstrip().endswith((',', ')')) and '(' not in line:
                name = None


def main():
    root = sys.argv[1]
    long = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for n in sorted(names):
                if n.endswith('.c'):
                    path = os.path.join(dirpath, n)
                    for name, line, length in functions(path):
                        if length > LIMIT:
                            long.append(f'{os.path.relpath(path, root)}:{line}: {name}() is {length} lines (limit {LIMIT})')
    if long:
        print('\n'.join(long), file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        open(sys.argv[2], 'w').write('ok\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
