#!/usr/bin/env python3
"""Writes a long NMEA 0183 log for the replay benchmark: a 1 Hz drive
(GGA + GSA + RMC per epoch) back and forth between Strasbourg and
Karlsruhe, crossing the DE/FR border on the Rhine again and again, with
midnight rollovers.  Deterministic.

Usage: make-nmea-log.py OUT [SENTENCES]   (default 1,050,000 sentences)
"""
import math
import random
import sys

out = sys.argv[1]
n_sentences = int(sys.argv[2]) if len(sys.argv) > 2 else 1050000
epochs = (n_sentences + 2) // 3
rnd = random.Random(1)

# Strasbourg (FR) <-> Karlsruhe (DE) via the Rhine at Kehl, 80 km one way
legs = [(48.5833, 7.7458), (48.5737, 7.8300), (49.0069, 8.4037)]


def cs(body):
    s = 0
    for c in body.encode():
        s ^= c
    return "$%s*%02X\r\n" % (body, s)


def ddmm(v, width):
    # round to the 4 decimals written first, so 59.99996' becomes the next degree
    m = round(abs(v) * 600000)
    d, frac = divmod(m, 600000)
    return "%0*d%07.4f" % (width, d, frac / 10000)


with open(out, "w", newline="") as f:
    day = 1
    secs = 8 * 3600
    pos = 0.0
    step = 25.0 / 80000.0    # 90 km/h along a 2-leg route of ~80 km
    for i in range(epochs):
        # triangle wave over the route: there and back
        x = pos % 2.0
        x = x if x <= 1.0 else 2.0 - x
        seg = min(int(x * 2), 1)
        f_ = x * 2 - seg
        lat = legs[seg][0] + (legs[seg + 1][0] - legs[seg][0]) * f_ + rnd.gauss(0, 2e-5)
        lon = legs[seg][1] + (legs[seg + 1][1] - legs[seg][1]) * f_ + rnd.gauss(0, 2e-5)
        pos += step
        h, m, s = secs // 3600, (secs // 60) % 60, secs % 60
        t = "%02d%02d%02d.00" % (h, m, s)
        hdop = 0.8 + (i % 7) * 0.1
        la = ddmm(lat, 2)
        lo = ddmm(lon, 3)
        f.write(cs("GPGGA,%s,%s,N,%s,E,1,09,%.1f,140.0,M,48.0,M,," % (t, la, lo, hdop)))
        f.write(cs("GPGSA,A,3,02,05,07,09,13,15,20,28,30,,,,%.1f,%.1f,%.1f" % (hdop * 1.5, hdop, hdop * 1.2)))
        f.write(cs("GPRMC,%s,A,%s,N,%s,E,48.6,63.0,%02d0624,,,A" % (t, la, lo, day)))
        secs += 1
        if secs == 86400:
            secs = 0
            day += 1
