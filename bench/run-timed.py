#!/usr/bin/env python3
"""Runs one command with stdin from a file and stdout to a file, and prints
"WALL_S CPU_S MAXRSS_KB" (wall and user + system CPU seconds to the
microsecond, peak RSS of the process in kB): /usr/bin/time rounds the wall
time to 10 ms, too coarse for runs of 0.1 s.

The command is started with posix_spawn: a fork of this Python would take
page faults of its own before the exec, counted as the command's (about
10 ms of wall and CPU time on a virtual machine, measured on `regloc
--help`).  The peak RSS is the larger of the command's and this Python's
(about 13 MB, which the kernel carries over at the exec), so it means
little for commands that stay below that.

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
        # posix_spawn, not fork: a forked copy of this Python takes its
        # page faults (10-20 ms of CPU on a virtual machine) before the
        # exec, and they would count as the command's
        actions = [(os.POSIX_SPAWN_DUP2, fin.fileno(), 0), (os.POSIX_SPAWN_DUP2, fout.fileno(), 1)]
        t0 = time.perf_counter()
        try:
            pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        except OSError as e:
            sys.exit("run-timed: cannot run %s: %s" % (argv[0], e.strerror))
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    print("%.6f %.6f %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print("run-timed: %s exited with %d" % (argv[0], code), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
