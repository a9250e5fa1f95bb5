"""The CPU benchmark's readings (kardinal.tools.cpubench): what it reads of a process and
how it reads off the CPU time at a moment between two readings. No timing is asserted."""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

import pytest

from kardinal.tools.cpubench import CpuRun, _Sampler, cpu_seconds, stages

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def test_the_cpu_time_of_a_process_and_of_its_main_thread() -> None:
    sum(i * i for i in range(200_000))  # some CPU time of this thread
    whole, main = cpu_seconds(os.getpid()), cpu_seconds(os.getpid(), os.getpid())
    assert whole >= main > 0.0


def test_the_cpu_time_at_a_moment_is_read_off_between_two_readings() -> None:
    s = _Sampler.__new__(_Sampler)  # its readings made up: no thread, no process
    s.readings = [(10.0, 1.0, 0.5), (11.0, 2.0, 1.5), (12.0, 2.0, 1.5)]
    assert s.at(10.5) == 1.5 and s.at(10.5, main=True) == 1.0
    assert s.at(11.0) == 2.0 and s.at(11.7) == 2.0
    assert s.at(9.0) == 1.0 and s.at(13.0) == 2.0  # before the first and after the last: those readings
    run = CpuRun(".", actions=2000, seconds=10.0, cpu=1.0, main=0.8)
    assert run.per_action_ms == 0.5 and run.rate == 200.0


def test_a_profile_is_read_by_stage(tmp_path: Path) -> None:
    """--stages: each stage's cumulative CPU time, the stages inside another taken off it,
    and the event loop's own rest; the actions are the moves read (move_of)."""

    def f(path: str, name: str) -> tuple[str, int, str]:
        return (f"/x/{path}", 1, name)

    st = {
        f("kardinal/rules/record.py", "move_of"): (10, 10, 0.0, 0.01, {}),
        f("asyncio/runners.py", "run"): (1, 1, 0.1, 1.0, {}),
        f("kardinal/server/play/ws.py", "ws_game"): (20, 20, 0.0, 0.3, {}),
        f("kardinal/server/play/ws.py", "_hello_seats"): (3, 3, 0.0, 0.05, {}),
        f("kardinal/server/play/pipeline.py", "submit"): (10, 10, 0.0, 0.2, {}),
        f("kardinal/server/play/pipeline.py", "_changed"): (10, 10, 0.0, 0.04, {}),
        f("kardinal/server/play/ws.py", "_send_loop"): (30, 30, 0.0, 0.4, {}),
        f("kardinal/server/storage/database.py", "write_batch"): (5, 5, 0.0, 0.1, {}),
    }
    path = tmp_path / "p.prof"
    path.write_bytes(marshal.dumps(st))
    actions, rows = stages(str(path))
    got = dict(rows)
    assert actions == 10
    assert got["the message: parsed, validated, rate limits (ws.py)"] == pytest.approx(0.3 - 0.2 - 0.05)
    assert got["checked, applied, committed (pipeline.py)"] == pytest.approx(0.2 - 0.04)
    assert got["database thread: the actions' commits"] == pytest.approx(0.1)
    # the event loop's rest: what it ran less the stages on it (the database's thread is apart)
    assert got["the event loop and the rest"] == pytest.approx(1.0 - 0.3 - 0.4)
