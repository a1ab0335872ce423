#!/usr/bin/env python3
"""An independent reader of the kernel's regulatory.db ("regdb" format,
version 20), written from the format with struct alone, and a check that
`regloc rules CC --json` gives exactly its rules for every country in it.

The format (big-endian; pointers count 4-byte units):
  header      magic 'RGDB' (0x52474442), version 20
  countries   (alpha2[2], coll_ptr u16) ... until coll_ptr 0
  collection  len u8, n_rules u8, dfs_region u8, [more, up to len],
              padded to 2, then n_rules rule pointers (u16)
  rule        len u8, flags u8, max_eirp u16 (mBm), start u32, end u32,
              max_bw u32 (kHz), cac_timeout u16 (s, if len >= 18),
              wmm_ptr u16 (if len >= 20)
  flags       1 NO-OFDM, 2 NO-OUTDOOR, 4 DFS, 8 NO-IR, 16 AUTO-BW
  dfs_region  0 unset, 1 FCC, 2 ETSI, 3 JP

Usage: regdb-reference.py REGLOC [REGDB]   (exit 0: all equal; 77: no REGDB)
"""
import json
import math
import os
import struct
import subprocess
import sys

FLAGS = [(1, 'NO-OFDM'), (2, 'NO-OUTDOOR'), (4, 'DFS'), (8, 'NO-IR'), (16, 'AUTO-BW')]
REGIONS = {0: 'unset', 1: 'FCC', 2: 'ETSI', 3: 'JP'}


class Corrupt(Exception):
    pass


def unpack(fmt, data, off):
    size = struct.calcsize(fmt)
    if off < 0 or off + size > len(data):
        raise Corrupt(f'{size} bytes at offset {off} lie outside the file')
    return struct.unpack_from(fmt, data, off)


def read_rule(data, off):
    length, = unpack('>B', data, off)
    if length < 16:
        raise Corrupt(f'rule at {off} is {length} bytes long')
    unpack(f'>{length}s', data, off)
    _, flags, eirp, start, end, bw = unpack('>BBHIII', data, off)
    rule = {
        'start_khz': start, 'end_khz': end, 'max_bandwidth_khz': bw,
        'max_eirp_mbm': eirp, 'max_eirp_dbm': eirp / 100, 'max_eirp_mw': 10 ** (eirp / 1000),
        'flags_bits': flags, 'flags': [name for bit, name in FLAGS if flags & bit],
        'cac_s': unpack('>H', data, off + 16)[0] if length >= 18 else None,
        'wmm': length >= 20,
    }
    return rule


def read_collection(data, off):
    length, n_rules, region = unpack('>BBB', data, off)
    pointers = off + length + (length & 1)
    rules = [read_rule(data, unpack('>H', data, pointers + 2 * i)[0] * 4) for i in range(n_rules)]
    return REGIONS.get(region, f'unknown-{region}'), rules


def read_db(data):
    magic, version = unpack('>II', data, 0)
    if magic != 0x52474442 or version != 20:
        raise Corrupt(f'magic {magic:#x}, version {version}')
    countries = {}
    off = 8
    while True:
        alpha2, coll = unpack('>2sH', data, off)
        if coll == 0:
            return countries
        code = alpha2.decode('ascii')
        if code not in countries:      # the first entry counts, as in the kernel
            countries[code] = read_collection(data, coll * 4)
        off += 4


def differences(code, want, got):
    region, rules = want
    if got.get('country') != code:
        yield f'country {got.get("country")!r}'
    if got.get('dfs_region') != region:
        yield f'dfs_region {got.get("dfs_region")!r}, the file says {region!r}'
    if len(got.get('rules', [])) != len(rules):
        yield f'{len(got.get("rules", []))} rules, the file has {len(rules)}'
        return
    for i, (w, g) in enumerate(zip(rules, got['rules'])):
        if set(g) != set(w):
            yield f'rule {i}: fields {sorted(g)}, expected {sorted(w)}'
        for key, value in w.items():
            other = g.get(key)
            same = (math.isclose(other, value, rel_tol=1e-9) if isinstance(value, float)
                    and isinstance(other, (int, float)) else other == value)
            if not same:
                yield f'rule {i}: {key} {other!r}, the file says {value!r}'
    changes = got.get('changes')
    if not changes or not all(isinstance(c, str) and c for c in changes):
        yield f'changes {changes!r}: expected sentences'


def run(regloc, regdb, *args):
    env = dict(os.environ, REGLOC_REGDB=regdb)
    return subprocess.run([regloc, 'rules', *args], env=env, capture_output=True, text=True, check=False)


def main():
    regloc = sys.argv[1]
    regdb = sys.argv[2] if len(sys.argv) > 2 else '/lib/firmware/regulatory.db'
    if not os.path.exists(regdb):
        print(f'SKIP: {regdb} is missing (install wireless-regdb)')
        return 77
    with open(regdb, 'rb') as f:
        countries = read_db(f.read())
    failures = 0
    for code, want in sorted(countries.items()):
        p = run(regloc, regdb, code, '--json')
        if p.returncode != 0:
            print(f'{code}: regloc rules exited {p.returncode}: {p.stderr.strip()}')
            failures += 1
            continue
        problems = list(differences(code, want, json.loads(p.stdout)))
        for problem in problems:
            print(f'{code}: {problem}')
        failures += bool(problems)
    # a code the file lacks, and one that is no code
    absent = next(a + b for a in 'ZYXW' for b in 'ZYXW' if a + b not in countries)
    for code, status in ((absent, 2), ('D1', 2)):
        p = run(regloc, regdb, code)
        if p.returncode != status or 'error' not in p.stderr:
            print(f'{code}: exit {p.returncode} ({p.stderr.strip()!r}), expected {status} and an error')
            failures += 1
    print(f'{len(countries)} countries compared, {failures} with differences')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
