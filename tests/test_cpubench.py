"""The CPU benchmark's readings (kardinal.tools.cpubench): what it reads of a process and
how it reads off the CPU time at a moment between two readings. No timing is asserted."""

from __future__ import annotations

import os
import sys

import pytest

from kardinal.tools.cpubench import CpuRun, _Sampler, cpu_seconds

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
