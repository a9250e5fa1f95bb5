"""The compiled rules core and search (kardinal/native.py): built by ``make test`` and in use,
the same games and the same play as their Python sources, and never used once a source has
changed.

The rest of the suite runs on the compiled modules (``make test`` builds them first); the
tests here run the same games, records and searches in two processes, one compiled and one
on the sources (``KARDINAL_PURE=1``), and compare everything they print.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kardinal import native

ROOT = Path(__file__).resolve().parent.parent

# a few searches of the levels' kinds (plain and fitted leaf, rollouts of 8 and 16), each
# printed as the move chosen and every root child's visits and mean reward
_PLAY = """
import json, sys
from kardinal.bots import ISMCTSBot
from kardinal.bots.bench import ismcts_positions
from kardinal import native
from kardinal.rules.view import view
out = {"status": native.status(), "searches": []}
for i, s in enumerate(ismcts_positions()[:6]):
    for cfg in ({}, {"leaf": "fitted"}, {"leaf": "fitted", "depth": 16}):
        bot = ISMCTSBot(i, iterations=150, **cfg)
        move = bot.choose(view(s, s.current))
        out["searches"].append([str(move), sorted((str(m), n, r) for m, (n, r) in bot.last_root.items())])
print(json.dumps(out))
"""


# the rules core: random games of 3-5 players, with and without the variant, every legal
# move list, each game's history with its events, its record and the replay of that record,
# copies and pickles along the way, refusals of illegal moves, the stored records of version
# 1 replayed; printed as one line of JSON per game
_CORE = """
import json, pickle, random
from pathlib import Path
from kardinal import native
from kardinal.rules.record import record_of, replay, load_record
from kardinal.rules.state import RuleError, new_game
from kardinal.rules.moves import parse_move
from kardinal.rules.view import view
print(json.dumps({"status": native.status()}))
bad = [parse_move(t) for t in ("pass", "draw deck", "exchange FR for deck", "play FR,FR frankreich paris+advisor")]
for n in (3, 4, 5):
    for variants in ((), ("joker-anywhere",)):
        for g in range(4):
            s = new_game(n, seed=100 * n + g, variants=variants)
            rng = random.Random(g)
            legal, refused, views = [], [], []
            while not s.is_over:
                moves = s.legal_moves()
                legal.append([str(m) for m in moves])
                for m in bad:
                    try:
                        s.check(m)
                    except RuleError as e:
                        refused.append([e.rule, e.code, e.params])
                if len(legal) % 25 == 0:
                    t = pickle.loads(pickle.dumps(s))
                    c = s.copy(history=False)
                    assert t.key() == s.key() == c.key() and t.history == s.history and t.board is s.board
                    views.append(json.dumps(view(s, s.current % n), sort_keys=True, default=str))
                s.play(rng.choice(moves))
            t = pickle.loads(pickle.dumps(s))  # a finished game: its final scoring (a dataclass) too
            assert t.key() == s.key() and t.final_scoring == s.final_scoring and t.winners == s.winners
            rec = record_of(s)
            again = replay(json.loads(json.dumps(rec)))
            assert again.key() == s.key() and again.history == s.history
            print(json.dumps({"game": [n, variants, g], "legal": legal, "refused": refused, "views": views,
                              "history": repr(s.history), "record": rec, "scores": s.scores, "winners": s.winners,
                              "breakdown": s.breakdown(), "text": str(s)}, sort_keys=True, default=str))
for path in sorted(Path("tests/data/records-v1").glob("*.json")):
    s = replay(load_record(path))
    print(json.dumps({"record": path.name, "key": repr(s.key()), "history": repr(s.history), "scores": s.scores}))
"""


def _run(code: str, pure: bool) -> str:
    env = {**os.environ, "KARDINAL_PURE": "1"} if pure else {k: v for k, v in os.environ.items() if k != "KARDINAL_PURE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_test_built_the_core_and_search_and_uses_them() -> None:
    """``make test`` compiles the rules core and the search before the tests (a stale or
    missing build would leave them at half their speed without a word), and this suite runs
    on the compiled modules."""
    assert native.compiled_files(), "not compiled: make native"
    assert native.STAMP.read_text(encoding="utf-8").strip() == native.digest(), "the compiled modules are stale: make native"
    assert _run("from kardinal import native; print(native.status())", pure=False).strip() == "compiled (mypyc)"
    for name in native.MODULES:
        assert str(importlib.import_module(name).__file__).endswith(".so"), f"this suite imported the source of {name}"


def test_the_compiled_core_plays_as_its_source() -> None:
    """Legal moves, events, records, replays, refusals, views, pickles and the stored
    records of version 1: the same, line for line, compiled and pure."""
    compiled = _run(_CORE, pure=False).splitlines()
    pure = _run(_CORE, pure=True).splitlines()
    assert json.loads(compiled[0])["status"] == "compiled (mypyc)"
    assert json.loads(pure[0])["status"] == "pure Python (KARDINAL_PURE is set)"
    assert len(compiled) == 1 + 24 + len(list((ROOT / "tests" / "data" / "records-v1").glob("*.json")))
    for a, b in zip(compiled[1:], pure[1:], strict=True):
        assert a == b, (a[:300], b[:300])


def test_the_compiled_search_plays_as_its_source() -> None:
    compiled, pure = json.loads(_run(_PLAY, pure=False)), json.loads(_run(_PLAY, pure=True))
    assert compiled["status"] == "compiled (mypyc)"
    assert pure["status"] == "pure Python (KARDINAL_PURE is set)"
    assert len(compiled["searches"]) == 18
    assert compiled["searches"] == pure["searches"]  # moves, visits and mean rewards, exactly


# the learning interfaces' observation tensor: every seat's (and a public observer's) at
# every decision of random games, hashed per game
_ENCODE = """
import hashlib, json, random
import numpy as np
from kardinal import native
from kardinal.research.encode import tensor_size, write_tensor, observation_text
from kardinal.rules.state import new_game
import kardinal.research.encode as encode
print(json.dumps({"status": native.status(), "encode": encode.__file__.rsplit(".", 1)[1]}))
for n in (3, 4, 5):
    for g in range(3):
        s = new_game(n, seed=50 * n + g, history=False)
        rng = random.Random(g)
        out = np.zeros(tensor_size(s.board, n), np.float32)
        h = hashlib.sha256()
        while not s.is_over:
            for seat in [*range(n), None]:
                for dealing, own in ((False, True), (True, True), (False, False)):
                    out[:] = -1.0
                    write_tensor(out, s, seat, dealing, own)
                    h.update(out.tobytes())
                h.update(observation_text(s, seat).encode())
            s.play_trusted(rng.choice(s.legal_moves()))
        print(json.dumps([n, g, h.hexdigest()]))
"""


def test_the_compiled_observation_tensor_is_its_sources() -> None:
    compiled, pure = _run(_ENCODE, pure=False).splitlines(), _run(_ENCODE, pure=True).splitlines()
    assert json.loads(compiled[0]) == {"status": "compiled (mypyc)", "encode": "so"}
    assert json.loads(pure[0]) == {"status": "pure Python (KARDINAL_PURE is set)", "encode": "py"}
    assert len(compiled) == 1 + 9 and compiled[1:] == pure[1:]


def _docstrings(name: str) -> list[tuple[str, str, int]]:
    """(qualified name, docstring, line) of the module, its classes and functions, from the source."""
    tree = ast.parse(native.source(name).read_text(encoding="utf-8"))
    out = []
    todo: list[tuple[str, ast.AST]] = [(name, tree)]
    while todo:
        qual, node = todo.pop()
        doc = ast.get_docstring(node, clean=False)  # type: ignore[arg-type]
        if doc:
            out.append((qual, doc, getattr(node, "lineno", 0)))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef):
                todo.append((f"{qual}.{child.name}", child))
    return sorted(out, key=lambda x: x[2])


@pytest.mark.parametrize("name", native.MODULES)
def test_the_compiled_modules_examples_hold(name: str) -> None:
    """pytest does not collect the compiled modules for doctests (pyproject.toml: it would
    import the sources beside them): their examples run here, against the module this
    suite imported (compiled)."""
    module = importlib.import_module(name)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for qual, doc, line in _docstrings(name):
        test = parser.get_doctest(doc, dict(vars(module)), qual, str(native.source(name)), line)
        examples += len(test.examples)
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} of the examples in {name} failed (printed above)"
    if name.startswith("kardinal.rules.") and name != "kardinal.rules.chains":
        assert examples > 0  # state, moves and scoring show their use


def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A source edited after the build: the sources are imported instead, the rules core's
    and the search's (the check runs before the package imports any of them)."""
    stamp = tmp_path / "_native.txt"
    stamp.write_text("0" * 64 + "\n", encoding="utf-8")  # what a build of other sources wrote
    code = f"""
import importlib, importlib.util, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("kardinal.native", {str(ROOT / "kardinal/native.py")!r})
n = importlib.util.module_from_spec(spec); sys.modules[spec.name] = n; spec.loader.exec_module(n)
n.STAMP = Path({str(stamp)!r})
n.prefer_fresh()
import kardinal  # imports the rules core
for m in n.MODULES:
    importlib.import_module(m)
print(n.status())
print(all(sys.modules[m].__file__.endswith(".py") for m in n.MODULES))
"""
    out = _run(code, pure=False).splitlines()
    assert out[0].startswith("pure Python (the compiled modules are older than their sources")
    assert out[1] == "True"
    # and with the stamp of these sources, the compiled modules are used
    stamp.write_text(native.digest() + "\n", encoding="utf-8")
    assert _run(code, pure=False).splitlines() == ["compiled (mypyc)", "False"]


_PICKLE = """
import base64, pickle, random, sys
from kardinal import native
from kardinal.rules.state import new_game
s = new_game(4, seed=7)
rng = random.Random(7)
for _ in range(60):
    s.play(rng.choice(s.legal_moves()))
print(native.status())
print(base64.b64encode(pickle.dumps(s)).decode())
t = pickle.loads(base64.b64decode(sys.stdin.readline()))
print(repr((t.key(), t.history, t.seed, t.board.id)))
"""


def test_pickles_travel_between_the_compiled_and_the_pure_core() -> None:
    """A state pickled by the pure-Python core loads in the compiled one and the other way
    round (the pickled form is the same dict of fields; pickles are only sent between
    processes, never stored)."""
    import base64
    import pickle
    import random

    from kardinal.rules.state import new_game

    s = new_game(4, seed=7)
    rng = random.Random(7)
    for _ in range(60):
        s.play(rng.choice(s.legal_moves()))
    env = {**os.environ, "KARDINAL_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _PICKLE],
        cwd=ROOT,
        env=env,
        input=base64.b64encode(pickle.dumps(s)).decode() + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    status, theirs, mine_there = done.stdout.splitlines()
    assert status == "pure Python (KARDINAL_PURE is set)"
    assert type(s).__module__ == "kardinal.rules.state" and str(sys.modules[type(s).__module__].__file__).endswith(".so")
    t = pickle.loads(base64.b64decode(theirs))  # the pure core's pickle, loaded compiled
    assert (t.key(), t.history, t.seed, t.board) == (s.key(), s.history, s.seed, s.board)
    assert mine_there == repr((s.key(), s.history, s.seed, s.board.id))  # the compiled core's, loaded pure
