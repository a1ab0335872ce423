#!/usr/bin/env python3
"""Generates the built-in sample trip: a drive from Kehl (DE) across the
Rhine on the Europabrücke into Strasbourg (FR).

Writes trip-de-fr.nmea (GGA + GSA + RMC at 1 Hz, as a consumer receiver
logs them) and trip-de-fr.scans.jsonl (one line per access point per scan,
every 10 s, with raw information elements including a Country element).
Everything is synthetic and deterministic: run it again and the files come
out byte for byte the same.  See SOURCE.md.

Usage: make-trip.py [OUTDIR]
"""
import json
import math
import os
import random
import sys

START = (2024, 5, 18, 9, 0, 0)          # UTC
DATE = "180524"                          # RMC ddmmyy
SCAN_EVERY_S = 10
AP_RANGE_M = 160                         # an access point heard from a car in town

# (lat, lon, speed km/h to reach it, seconds to stay there)
ROUTE = [
    (48.56520, 7.83300, 0, 90),     # Kehl-Sundheim: parked, receiver warm
    (48.56780, 7.82600, 30, 0),
    (48.57100, 7.81800, 30, 20),    # Kehl centre, traffic lights
    (48.57300, 7.81100, 30, 0),
    (48.57390, 7.80600, 40, 0),     # east end of the Europabrücke
    (48.57350, 7.79850, 40, 0),     # west end, Strasbourg
    (48.57450, 7.78500, 30, 15),
    (48.57800, 7.76800, 30, 0),
    (48.58100, 7.75500, 30, 0),
    (48.58330, 7.74580, 25, 60),    # Place Kléber: parked
]

# Operators: (country, OUI, SSID pattern).  Distinct OUIs make distinct
# operators for the policy's grouping; two APs per operator per country.
OPERATORS = {
    "DE": [("3c:a6:2f", "FRITZ!Box 7590 {}"), ("00:1a:2a", "Speedport {}"), ("a4:91:b1", "Vodafone-{}")],
    "FR": [("f4:ca:e5", "Freebox-{}"), ("30:7c:b2", "Livebox-{}"), ("e8:ad:a6", "SFR_{}"),
           ("9c:24:72", "Bbox-{}"), ("70:fc:8f", "Cafe Rhin {}"), ("d8:32:14", "Hotel {}"),
           ("bc:30:d9", "Mairie Wifi {}")],
}

# Where the APs stand: (country, operator index, lat, lon).
APS = [
    ("DE", 0, 48.56550, 7.83250), ("DE", 1, 48.56500, 7.83380), ("DE", 2, 48.56560, 7.83340),
    ("DE", 0, 48.57080, 7.81850), ("DE", 1, 48.57130, 7.81760),
    ("DE", 2, 48.57330, 7.81000),
    # Port du Rhin, on the west bank: heard from the middle of the bridge on
    ("FR", 0, 48.57320, 7.79880), ("FR", 1, 48.57380, 7.79820), ("FR", 0, 48.57420, 7.79700),
    ("FR", 1, 48.57300, 7.79650), ("FR", 2, 48.57400, 7.79500), ("FR", 3, 48.57360, 7.79400),
    ("FR", 2, 48.57440, 7.79250), ("FR", 3, 48.57400, 7.79100), ("FR", 4, 48.57470, 7.78900),
    ("FR", 5, 48.57420, 7.78750), ("FR", 4, 48.57470, 7.78550), ("FR", 5, 48.57420, 7.78420),
    # Strasbourg centre
    ("FR", 6, 48.57800, 7.76900), ("FR", 6, 48.58320, 7.74600),
]

EARTH_R = 6371008.8


def dist_m(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * EARTH_R * math.asin(math.sqrt(h))


def track():
    """Yields (second, lat, lon, speed_knots, course_deg) at 1 Hz."""
    t = 0
    pos = ROUTE[0][:2]
    for _ in range(ROUTE[0][3]):
        yield t, pos[0], pos[1], 0.0, 0.0
        t += 1
    for lat, lon, kmh, stay in ROUTE[1:]:
        d = dist_m(pos, (lat, lon))
        v = kmh / 3.6
        steps = max(1, int(round(d / v)))
        course = (math.degrees(math.atan2(math.radians(lon - pos[1]) * math.cos(math.radians(lat)),
                                          math.radians(lat - pos[0]))) + 360) % 360
        for i in range(1, steps + 1):
            f = i / steps
            yield t, pos[0] + (lat - pos[0]) * f, pos[1] + (lon - pos[1]) * f, d / steps * 1.94384, course
            t += 1
        pos = (lat, lon)
        for _ in range(stay):
            yield t, lat, lon, 0.0, course
            t += 1


def nmea(body):
    s = 0
    for c in body.encode():
        s ^= c
    return "$%s*%02X\r\n" % (body, s)


def ddmm(v, lat):
    # round to the 4 decimals written first, so 59.99996' becomes the next degree
    d, frac = divmod(round(abs(v) * 600000), 600000)
    m = frac / 10000
    if lat:
        return "%02d%07.4f" % (d, m), ("N" if v >= 0 else "S")
    return "%03d%07.4f" % (d, m), ("E" if v >= 0 else "W")


def hms(t):
    h, m, s = START[3], START[4], START[5] + t
    m += s // 60
    s %= 60
    h += m // 60
    m %= 60
    return "%02d%02d%02d.00" % (h, m, s)


def iso(t):
    h, m, s = START[3], START[4], START[5] + t
    m += s // 60
    s %= 60
    h += m // 60
    m %= 60
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (START[0], START[1], START[2], h, m, s)


def country_ie(cc):
    # EU triplets: 2.4 GHz 1-13 at 20 dBm, 5 GHz 36-48 and 52-64 at 23, 100-140 at 30
    body = cc.encode() + b" " + bytes([1, 13, 20, 36, 4, 23, 52, 4, 23, 100, 11, 30])
    if len(body) % 2:
        body += b"\0"   # the element is padded to an even length
    return bytes([7, len(body)]) + body


def ies(ssid, channel, cc):
    s = ssid.encode()
    out = bytes([0, len(s)]) + s
    out += bytes([1, 8, 0x82, 0x84, 0x8B, 0x96, 0x0C, 0x12, 0x18, 0x24])
    if channel <= 14:
        out += bytes([3, 1, channel])
    out += country_ie(cc)
    return out.hex()


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rnd = random.Random(20240518)
    fixes = list(track())

    with open(os.path.join(outdir, "trip-de-fr.nmea"), "w", newline="") as f:
        for t, lat, lon, kn, course in fixes:
            # a little receiver noise: a few metres, HDOP 0.7-1.4
            lat_n = lat + rnd.gauss(0, 2.0) / 111320
            lon_n = lon + rnd.gauss(0, 2.0) / (111320 * math.cos(math.radians(lat)))
            hdop = round(rnd.uniform(0.7, 1.4), 1)
            sats = rnd.randint(8, 12)
            la, ns = ddmm(lat_n, True)
            lo, ew = ddmm(lon_n, False)
            f.write(nmea("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.1f,%.1f,M,48.0,M,," %
                         (hms(t), la, ns, lo, ew, sats, hdop, 139.0 + rnd.uniform(-1, 1))))
            prns = ",".join("%02d" % p for p in sorted(rnd.sample(range(1, 33), sats))[:12])
            prns += "," * (12 - min(sats, 12))
            f.write(nmea("GPGSA,A,3,%s,%.1f,%.1f,%.1f" % (prns, hdop * 1.6, hdop, hdop * 1.3)))
            rmc = nmea("GPRMC,%s,A,%s,%s,%s,%s,%.1f,%.1f,%s,,,A" % (hms(t), la, ns, lo, ew, kn, course, DATE))
            if t == 700:
                # one sentence damaged on the serial line, as real logs have
                rmc = rmc.replace(",A,", ",A,9", 1)
            f.write(rmc)

    aps = []
    for i, (cc, op, lat, lon) in enumerate(APS):
        oui, pattern = OPERATORS[cc][op]
        tail = "%02x:%02x:%02x" % (0x10 + i, rnd.randrange(256), rnd.randrange(256))
        channel = rnd.choice([1, 6, 11, 36, 44, 100])
        freq = 2407 + 5 * channel if channel <= 14 else 5000 + 5 * channel
        ssid = pattern.format("%04X" % rnd.randrange(65536))
        aps.append({"cc": cc, "pos": (lat, lon), "bssid": oui + ":" + tail, "freq": freq,
                    "ssid": ssid, "ies": ies(ssid, channel, cc)})

    with open(os.path.join(outdir, "trip-de-fr.scans.jsonl"), "w") as f:
        for t, lat, lon, _, _ in fixes:
            if t % SCAN_EVERY_S != 5:
                continue
            for ap in aps:
                d = dist_m((lat, lon), ap["pos"])
                if d > AP_RANGE_M:
                    continue
                dbm = int(round(-38 - 28 * math.log10(max(d, 3.0) / 3.0) + rnd.gauss(0, 2)))
                f.write(json.dumps({"time": iso(t), "ifname": "wlan0", "bssid": ap["bssid"],
                                    "freq": ap["freq"], "signal_dbm": dbm, "ssid": ap["ssid"],
                                    "ies": ap["ies"]}) + "\n")


if __name__ == "__main__":
    main()
