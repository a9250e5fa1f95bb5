"""The compiled search (kardinal/bots/native.py): built by ``make test`` and in use, the same
play as its Python source, and never used once its source has changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kardinal.bots import native

ROOT = Path(__file__).resolve().parent.parent

# a few searches of the levels' kinds (plain and fitted leaf, rollouts of 8 and 16), each
# printed as the move chosen and every root child's visits and mean reward
_PLAY = """
import json, sys
from kardinal.bots import ISMCTSBot
from kardinal.bots.bench import ismcts_positions
from kardinal.bots import native
from kardinal.rules.view import view
out = {"status": native.status(), "searches": []}
for i, s in enumerate(ismcts_positions()[:6]):
    for cfg in ({}, {"leaf": "fitted"}, {"leaf": "fitted", "depth": 16}):
        bot = ISMCTSBot(i, iterations=150, **cfg)
        move = bot.choose(view(s, s.current))
        out["searches"].append([str(move), sorted((str(m), n, r) for m, (n, r) in bot.last_root.items())])
print(json.dumps(out))
"""


def _run(code: str, pure: bool) -> str:
    env = {**os.environ, "KARDINAL_PURE": "1"} if pure else {k: v for k, v in os.environ.items() if k != "KARDINAL_PURE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_test_built_the_search_and_uses_it() -> None:
    """``make test`` compiles the search before the tests (a stale or missing build would
    leave the bots at two thirds of their speed without a word)."""
    assert native.compiled_files(), "the search is not compiled: make native"
    assert native.STAMP.read_text(encoding="utf-8").strip() == native.digest(), "the compiled search is stale: make native"
    assert _run("from kardinal.bots import native; print(native.status())", pure=False).strip() == "compiled (mypyc)"


def test_the_compiled_search_plays_as_its_source() -> None:
    compiled, pure = json.loads(_run(_PLAY, pure=False)), json.loads(_run(_PLAY, pure=True))
    assert compiled["status"] == "compiled (mypyc)"
    assert pure["status"] == "pure Python (KARDINAL_PURE is set)"
    assert len(compiled["searches"]) == 18
    assert compiled["searches"] == pure["searches"]  # moves, visits and mean rewards, exactly


def test_the_compiled_modules_hold_no_doctest() -> None:
    """pytest does not collect them for doctests (pyproject.toml: it would import the
    sources beside the compiled modules): so they must hold none."""
    for name in native.MODULES:
        assert ">>>" not in (ROOT / "kardinal" / "bots" / f"{name}.py").read_text(encoding="utf-8")


def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A source edited after the build: the sources are imported instead (the check runs
    before the package imports any of them)."""
    stamp = tmp_path / "_native.txt"
    stamp.write_text("0" * 64 + "\n", encoding="utf-8")  # what a build of other sources wrote
    code = f"""
import importlib.util, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("kardinal.bots.native", {str(ROOT / "kardinal/bots/native.py")!r})
n = importlib.util.module_from_spec(spec); sys.modules[spec.name] = n; spec.loader.exec_module(n)
n.STAMP = Path({str(stamp)!r})
n.prefer_fresh()
import kardinal.bots.ismcts, kardinal.bots.evaluate, kardinal.bots.determinize
print(n.status())
print(all(sys.modules["kardinal.bots." + m].__file__.endswith(".py") for m in n.MODULES))
"""
    out = _run(code, pure=False).splitlines()
    assert out[0].startswith("pure Python (the compiled modules are older than their sources")
    assert out[1] == "True"
    # and with the stamp of these sources, the compiled modules are used
    stamp.write_text(native.digest() + "\n", encoding="utf-8")
    assert _run(code, pure=False).splitlines() == ["compiled (mypyc)", "False"]
