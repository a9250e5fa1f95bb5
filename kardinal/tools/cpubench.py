"""Benchmark: the server's CPU time per action, under ``kardinal loadtest`` flat out.

``python -m kardinal.tools.cpubench [--rounds 3] [--games 10] [--seconds 15] [--signed-in]
[--source DIR ...] [--profile PREFIX]`` starts ``kardinal serve --bot-workers 0`` (a process
of its own, on SQLite in a fresh data folder, on a free port), loads it with the load tool
(:func:`kardinal.tools.loadtest.run_load`) and reads the server's CPU time (user + system,
from ``/proc/PID/stat``) while the load tool's clock runs: the CPU spent between the clock's
start and its end, divided by the actions done in it.

``--source DIR`` (repeatable): the server's code is imported from DIR (its ``PYTHONPATH``),
so two versions (two git worktrees) can be compared in one session: the rounds alternate
between them (A, B, A, B, ...) and the medians are printed at the end. ``--profile PREFIX``:
the server runs under cProfile and writes ``PREFIX-<n>.prof`` when it stops (read it with
``python -m pstats``); the profiler's own cost inflates the figures, so profile and
measure in separate runs. Linux only (``/proc``). Not a timed test: timings are measured on
demand, on a machine whose other work makes single runs noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CpuRun", "cpu_seconds", "measure"]

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
SAMPLE = 0.05  # seconds between two readings of the server's CPU time


def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """The CPU time (user + system) process ``pid`` has used, its threads included; or
    only its thread ``tid``'s."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15 of stat(5))


@dataclass
class CpuRun:
    source: str
    actions: int
    seconds: float
    cpu: float  # the server's CPU seconds within the clock
    main: float  # of which its main thread's (the event loop's; the rest: the database's and the bots' threads)

    @property
    def per_action_ms(self) -> float:
        return 1000 * self.cpu / self.actions if self.actions else float("nan")

    @property
    def rate(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0


class _Sampler:
    """Readings (perf_counter, CPU seconds) of a process every SAMPLE seconds, in a thread,
    so the CPU time at any moment of the run can be read off afterwards."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.readings: list[tuple[float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.readings.append((time.perf_counter(), cpu_seconds(self.pid), cpu_seconds(self.pid, self.pid)))
            except OSError:  # the process ended
                return
            self._stop.wait(SAMPLE)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def at(self, t: float, main: bool = False) -> float:
        """The CPU time at moment ``t`` (linear between the two readings around it); ``main``:
        the main thread's."""
        i = 2 if main else 1
        before = max((r for r in self.readings if r[0] <= t), default=self.readings[0])
        after = min((r for r in self.readings if r[0] >= t), default=self.readings[-1])
        if after[0] == before[0]:
            return before[i]
        return before[i] + (after[i] - before[i]) * (t - before[0]) / (after[0] - before[0])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_up(base: str, srv: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if srv.poll() is not None:
            raise RuntimeError("the server ended before it answered")
        try:
            urllib.request.urlopen(base + "/api/games", timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not answer within a minute")


def measure(source: str, games: int, seconds: float, signed_in: bool, profile: str | None = None) -> CpuRun:
    """One run: a fresh server from ``source`` (a folder for PYTHONPATH, or "" for this one),
    loaded flat out for ``seconds``; its CPU per action."""
    from kardinal.tools.loadtest import run_load

    with tempfile.TemporaryDirectory() as data:
        port = _free_port()
        env = dict(os.environ)
        # its own code first (``python -m`` puts the working folder first: a neutral one)
        env["PYTHONPATH"] = source or str(Path(__file__).resolve().parents[2])
        env["KARDINAL_RATE_LIMITS"] = "create=100000/minute,signup=100/minute"  # the load creates a game every few seconds
        # profiled: this file as a script, so that it profiles a version without it too
        prof = [str(Path(__file__).resolve()), "--profiled-serve", profile] if profile else ["-m", "kardinal.cli"]
        cmd = [sys.executable, *prof, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data]
        srv = subprocess.Popen([*cmd, "--bot-workers", "0"], env=env, cwd=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(base, srv)
            sampler = _Sampler(srv.pid)
            res = asyncio.run(run_load(base, games, seconds=seconds, signed_in=signed_in))
            time.sleep(2 * SAMPLE)
            sampler.stop()
        finally:
            srv.send_signal(signal.SIGINT)  # uvicorn stops cleanly (and cProfile writes its file)
            try:
                srv.wait(60)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
        if res.errors:
            raise RuntimeError(f"the load failed: {res.errors}")
        t0, t1 = res.since, res.since + res.seconds
        return CpuRun(source or ".", res.actions, res.seconds, sampler.at(t1) - sampler.at(t0), sampler.at(t1, True) - sampler.at(t0, True))


def profiled_serve(out: str, argv: list[str]) -> None:
    """``kardinal ARGV`` (``serve ...``) under cProfile, every thread of it (the database's
    writes run in threads of their own), its statistics merged into the file ``out`` when it
    stops."""
    import cProfile
    import marshal
    import runpy

    profilers: list[cProfile.Profile] = []
    lock = threading.Lock()

    def start(*_: object) -> None:  # a thread's first event: its own profiler from then on
        p = cProfile.Profile(time.thread_time)  # CPU time, not waiting
        with lock:
            profilers.append(p)
        p.enable()

    threading.setprofile(start)
    main = cProfile.Profile(time.thread_time)
    profilers.append(main)
    sys.argv = ["kardinal", *argv]
    main.enable()
    try:
        # the command line as `python -m kardinal` runs it (a tool imports no command line: the layers)
        runpy.run_module("kardinal", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        main.disable()
        threading.setprofile(None)
        merged: dict[Any, tuple[int, int, float, float, dict[Any, Any]]] = {}
        with lock:
            for p in profilers:
                p.snapshot_stats()
                for func, (cc, nc, tt, ct, callers) in p.stats.items():
                    cc0, nc0, tt0, ct0, callers0 = merged.get(func, (0, 0, 0.0, 0.0, {}))
                    for caller, c in callers.items():  # (cc, nc, tt, ct) per caller: summed too
                        c0 = callers0.get(caller)
                        callers0[caller] = c if c0 is None else tuple(x + y for x, y in zip(c0, c))
                    merged[func] = (cc0 + cc, nc0 + nc, tt0 + tt, ct0 + ct, callers0)
        with open(out, "wb") as f:
            marshal.dump(merged, f)


# the stages of the action path in a profile of the server (--profile): each the cumulative
# CPU time of these functions (a path within its file's, the function's name); stages():
# the stages inside another are taken off it
_STAGES: list[tuple[str, tuple[tuple[str, str], ...]]] = [
    ("reading frames (uvicorn, websockets)", (("websockets_sansio_impl.py", "data_received"),)),
    ("the message: parsed, validated, rate limits (ws.py)", (("play/ws.py", "ws_game"),)),
    ("a hello: tokens, session, seats bound (ws.py)", (("play/ws.py", "_hello_seats"),)),
    ("checked, applied, committed (pipeline.py)", (("play/pipeline.py", "submit"),)),
    ("telling: connections noted, listeners (on_change)", (("play/pipeline.py", "_changed"),)),
    ("group commit on the event loop (_flush)", (("play/pipeline.py", "_flush"),)),
    ("database thread: the actions' commits", (("storage/database.py", "write_batch"),)),
    (
        "database threads: sessions, seats, invitations",
        (
            ("storage/accounts.py", "session_account"),
            ("storage/accounts.py", "take_seats"),
            ("storage/accounts.py", "bind_seats"),
            ("storage/social.py", "invited"),
        ),
    ),
    ("fan-out: state messages built and sent (ws.py _send_loop)", (("play/ws.py", "_send_loop"),)),
    # (with each route's set-up at its first request, once per server: FastAPI does it then)
    ("HTTP requests (creating games; each route set up at its first)", (("http/httptools_impl.py", "run_asgi"),)),
]
_KEYS = {"submit": "checked, applied, committed (pipeline.py)", "hello": "a hello: tokens, session, seats bound (ws.py)"}


def stages(path: str) -> tuple[int, list[tuple[str, float]]]:
    """The actions of a profile (--profile) and its CPU seconds by stage of the action path;
    "the event loop and the rest" is what the event loop ran besides (uvloop's own work,
    futures, timers). The start (imports, the board's map) is left out; each route's set-up at
    its first request is not (in the HTTP requests' row, most of it)."""
    import pstats

    st: dict[Any, Any] = pstats.Stats(path).stats  # type: ignore[attr-defined]

    def cum(where: str, name: str) -> float:
        return float(sum(v[3] for k, v in st.items() if k[2] == name and k[0].endswith(where.split("/")[-1]) and where in k[0]))

    actions = int(sum(v[1] for k, v in st.items() if k[2] == "move_of" and k[0].endswith("rules/record.py")))
    out: dict[str, float] = {}
    for stage, funcs in _STAGES:
        out[stage] = sum(cum(w, n) for w, n in funcs)
    out[_KEYS["submit"]] -= out["telling: connections noted, listeners (on_change)"]
    out["the message: parsed, validated, rate limits (ws.py)"] -= cum("play/pipeline.py", "submit") + out[_KEYS["hello"]]
    loop = cum("asyncio/runners.py", "run")
    on_loop = sum(v for k, v in out.items() if not k.startswith("database thread"))
    out["the event loop and the rest"] = loop - on_loop
    return actions, list(out.items())


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--profiled-serve"]:
        profiled_serve(argv[1], argv[2:])
        return
    if argv[:1] == ["--stages"]:  # --stages PROFILE...: the table by stage, in µs per action
        for path in argv[1:]:
            actions, rows = stages(path)
            total = sum(t for _, t in rows)
            print(f"{path}: {actions} actions, {1e6 * total / actions:.0f} µs per action (profiled)")
            for name, t in rows:
                print(f"  {name:60s} {1e6 * t / actions:6.0f} µs  {100 * t / total:4.1f} %")
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--signed-in", action="store_true")
    ap.add_argument("--source", action="append", default=[], help="a folder the server's code is imported from (repeatable)")
    ap.add_argument("--profile", default=None, help="PREFIX: run the server under cProfile, writing PREFIX-<n>.prof")
    args = ap.parse_args(argv)
    sources = args.source or [""]
    runs: dict[str, list[CpuRun]] = {s or ".": [] for s in sources}
    n = 0
    for _ in range(args.rounds):
        for s in sources:
            n += 1
            prof = f"{args.profile}-{n}.prof" if args.profile else None
            r = measure(s, args.games, args.seconds, args.signed_in, prof)
            runs[r.source].append(r)
            print(
                f"{r.source}: {r.actions} actions in {r.seconds:.1f} s ({r.rate:.0f}/s), CPU {r.cpu:.2f} s (main thread {r.main:.2f} s): {r.per_action_ms:.3f} ms per action",
                flush=True,
            )
    for s, rs in runs.items():
        per = statistics.median(r.per_action_ms for r in rs)
        rate = statistics.median(r.rate for r in rs)
        print(f"median {s}: {per:.3f} ms per action, {rate:.0f} actions/s ({len(rs)} runs)")


if __name__ == "__main__":
    main()
