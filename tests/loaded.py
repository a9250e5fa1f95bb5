"""Run a command while every core is kept busy by another process: `make test-loaded`
runs the suite this way, to show that no test depends on the machine being idle (CI's
machines are shared and often loaded).

    python tests/loaded.py [--burners N] [--most SECONDS] -- COMMAND...

starts N processes (default: one per core) that spin on the CPU at the normal priority,
runs COMMAND, stops them, and exits with COMMAND's status. The burners also stop by
themselves after ``--most`` seconds (default two hours) and when this process is gone, so
that none is left behind whatever happens.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import time


def burn(parent: int, until: float) -> None:
    """Spin until ``until`` (time.monotonic) or until the process ``parent`` is gone."""
    n = 0
    while True:
        n += 1
        if n % 200_000 == 0 and (time.monotonic() > until or os.getppid() != parent):
            return


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burners", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--most", type=float, default=7200.0, help="seconds after which the burners stop anyway")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("a command to run, after --")
    until = time.monotonic() + args.most
    burners = [mp.Process(target=burn, args=(os.getpid(), until), daemon=True) for _ in range(args.burners)]
    for b in burners:
        b.start()
    print(f"loaded.py: {len(burners)} processes keep the {os.cpu_count()} cores busy while this runs: {' '.join(command)}", flush=True)
    try:
        return subprocess.call(command)
    finally:
        for b in burners:
            b.terminate()
        for b in burners:
            b.join(10)


if __name__ == "__main__":
    sys.exit(main())
