"""Games as Ray tasks (``kardinal tournament --ray``, ``kardinal selfplay --ray``): the
engine of :mod:`kardinal.bots.runs` on a Ray cluster (the ``ray`` extra).

``RayEngine(address)`` connects as ``ray.init(address)`` does: to the cluster at
``address`` (``HOST:PORT`` of its head, ``auto``, or ``ray://HOST:10001`` through Ray
Client); without one, to the cluster named by ``RAY_ADDRESS`` or started on this machine
(``ray start --head``), else to a new local Ray instance, stopped again at the end. In a
process that is already connected (``ray.init`` called before), it uses that connection
and leaves it open.

Every game is one task of one CPU, spread over the nodes (``scheduling_strategy="SPREAD"``);
at most ``tasks`` of them are submitted at a time (default: twice the cluster's CPUs), so
that a run of a million games does not hand the cluster a million tasks at once. A game's
number decides its seating, deal and bots' seeds, so a task plays the same game on any
node; each task also reports its node and the version of kardinal there, and a node with
another version is refused (every node must run the same kardinal).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

import ray

from kardinal.bots.runs import EngineError, kardinal_version

__all__ = ["RayEngine", "ClusterError"]

A = TypeVar("A")
R = TypeVar("R")


class ClusterError(EngineError):
    """The cluster cannot run the games (no connection, another kardinal on a node)."""


def _on_node(fn: Callable[[A], R], job: A) -> tuple[str, str, R]:
    """A task: the job's result, with the node that played it and its kardinal's version."""
    return ray.get_runtime_context().get_node_id(), kardinal_version(), fn(job)


class RayEngine:
    """Plays jobs as Ray tasks (see the module doc). A context manager: ``with
    RayEngine(address) as engine: ...`` connects, and disconnects at the end."""

    def __init__(self, address: str | None = None, tasks: int | None = None) -> None:
        self.address = address
        self.tasks = tasks
        self.nodes: Counter[str] = Counter()  # node id -> the tasks it played
        self._own = False

    def __enter__(self) -> RayEngine:
        self.connect()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def connect(self) -> None:
        if ray.is_initialized():
            return
        try:
            # log_to_driver off: a worker's output would land in this process's standard
            # output, which holds the results (--json)
            ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as e:
            where = f"at {self.address}" if self.address else "(a local instance)"
            raise ClusterError(f"cannot connect to the Ray cluster {where}: {e}") from None
        self._own = True

    def close(self) -> None:
        if self._own and ray.is_initialized():
            ray.shutdown()
        self._own = False

    def cpus(self) -> int:
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        return max(1, int(resources.get("CPU", 1)))

    def map_unordered(self, fn: Callable[[A], R], jobs: Sequence[A]) -> Iterator[R]:
        if not jobs:
            return  # (a resumed run that is complete needs no cluster)
        self.connect()
        task: Any = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(_on_node)
        window = self.tasks or 2 * self.cpus()
        fn_ref = ray.put(fn)
        mine = kardinal_version()
        todo = iter(jobs)
        pending: list[Any] = []
        try:
            while True:
                while len(pending) < window and (job := next(todo, None)) is not None:
                    pending.append(task.remote(fn_ref, job))
                if not pending:
                    return
                ready, pending = ray.wait(pending, num_returns=1)
                try:
                    node, theirs, result = ray.get(ready[0])
                except ray.exceptions.RayTaskError as e:
                    if isinstance(e.cause, Exception):
                        raise e.cause from None  # the game's own error (a bot's illegal move), as the local run raises it
                    raise
                if theirs != mine:
                    raise ClusterError(f"node {node} runs kardinal {theirs}, this is {mine}: install the same version on every node")
                self.nodes[node] += 1
                yield result
        finally:
            for ref in pending:  # an error or an interruption: the games still running end
                ray.cancel(ref, force=True)
