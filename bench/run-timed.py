#!/usr/bin/env python3
"""Runs one command with stdin from a file and stdout to a file, and prints
"WALL_S CPU_S MAXRSS_KB" (wall and user + system CPU seconds to the
microsecond, peak RSS of the process in kB): /usr/bin/time rounds the wall
time to 10 ms, too coarse for runs of 0.1 s.

Usage: run-timed.py IN OUT COMMAND [ARG...]   (IN or OUT "-": /dev/null)
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip())
    src = os.devnull if sys.argv[1] == "-" else sys.argv[1]
    dst = os.devnull if sys.argv[2] == "-" else sys.argv[2]
    argv = sys.argv[3:]
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(fin.fileno(), 0)
            os.dup2(fout.fileno(), 1)
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    print("%.6f %.6f %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print("run-timed: %s exited with %d" % (argv[0], code), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
