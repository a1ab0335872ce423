#!/usr/bin/env python3
"""Copies a boundary index with one bit of its last leaf flipped: the
checksum no longer matches, and nothing else about the file changes.

Usage: corrupt-index.py INDEX COPY
"""
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__.strip())
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) - 3] ^= 0x40
open(sys.argv[2], "wb").write(data)
