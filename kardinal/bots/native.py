"""The search compiled with mypyc: the same Python source, about 1.45 times the iterations a second.

The bots' hot modules (:data:`MODULES`: the determinizer, the evaluator, the ISMCTS
search and the learned leaf) are plain, fully typed Python. ``make native`` (``python kardinal/bots/native.py``) compiles them
with mypyc (part of mypy, a development dependency) into C extension modules beside their
sources, in place, which Python then imports instead of the sources; ``make run``,
``make test`` and ``make bench`` do it when a source changed. The play is the same move
for move (``tests/test_native.py`` plays both and compares; ``tests/test_bot_pinned.py``
pins the moves of each). Without a C compiler, or with ``KARDINAL_PURE=1``, the sources
run as they are.

A compiled module that is older than its source must never run in its place: the build
writes the SHA-256 of the sources it compiled to :data:`STAMP`, and :func:`prefer_fresh`
(called by ``kardinal.bots`` before it imports any of them) makes Python import the
sources instead if any of them differs from what was compiled (an edit not yet built).
The four are compiled and loaded together (one shared library): all compiled, or none.

This module imports none of them, so that it can decide before they are imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["MODULES", "STAMP", "GROUP", "digest", "compiled_files", "prefer_fresh", "status", "build", "clean"]

HERE = Path(__file__).resolve().parent
PACKAGE = "kardinal.bots"
MODULES = ("determinize", "evaluate", "ismcts", "learned")
GROUP = f"{PACKAGE}._native"  # the shared library of the four (mypyc's group)
STAMP = HERE / "_native.txt"  # the digest of the sources last compiled

log = logging.getLogger(__name__)

_state = {"why": ""}  # why the sources run ("" while not decided: compiled if present)


def digest() -> str:
    """The SHA-256 of the compiled modules' sources, in :data:`MODULES` order."""
    h = hashlib.sha256()
    for name in MODULES:
        h.update((HERE / f"{name}.py").read_bytes())
    return h.hexdigest()


def compiled_files() -> list[Path]:
    """The compiled modules and their shared library present beside the sources."""
    out: list[Path] = []
    for stem in (*MODULES, GROUP.rsplit(".", 1)[1] + "__mypyc"):
        out += HERE.glob(f"{stem}.*.so")
    return sorted(out)


def _fresh() -> bool:
    """The compiled modules are present and were compiled from the sources as they are now."""
    try:
        built = STAMP.read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return bool(compiled_files()) and built == digest()


class _Sources(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' Python sources before the compiled files."""

    names = frozenset(f"{PACKAGE}.{m}" for m in MODULES)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        src = HERE / f"{fullname.rsplit('.', 1)[1]}.py"
        return importlib.util.spec_from_file_location(fullname, src)


def prefer_fresh() -> None:
    """Decide whether the compiled modules may be imported (before any of them is): if they
    are absent, older than their sources (the stamp's digest differs) or ``KARDINAL_PURE``
    is set, the sources are imported instead."""
    if _state["why"] or any(isinstance(f, _Sources) for f in sys.meta_path):
        return
    if not compiled_files():
        _state["why"] = "not compiled (make native compiles it)"
        return
    if os.environ.get("KARDINAL_PURE"):
        why = "KARDINAL_PURE is set"
    else:
        if _fresh():
            return
        why = "the compiled modules are older than their sources (make native compiles them again)"
        log.warning("the search runs as pure Python: %s", why)
    _state["why"] = why
    sys.meta_path.insert(0, _Sources())


def status() -> str:
    """How the search runs here: ``"compiled (mypyc)"`` or ``"pure Python (why)"``."""
    prefer_fresh()
    mod = sys.modules.get(f"{PACKAGE}.ismcts")
    if mod is None:
        import kardinal.bots.ismcts as mod
    if str(getattr(mod, "__file__", "")).endswith(".so"):
        return "compiled (mypyc)"
    return f"pure Python ({_state['why'] or 'the sources were imported'})"


def clean() -> None:
    """Remove the compiled modules and the stamp (the sources run)."""
    for f in compiled_files():
        f.unlink()
    STAMP.unlink(missing_ok=True)


def build() -> None:
    """Compile :data:`MODULES` with mypyc, in place, and write the stamp. Raises
    RuntimeError (with the compiler's output) if it cannot; nothing is left half-built then."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise RuntimeError("mypyc is not installed (it comes with mypy: pip install 'kardinal[dev]')") from None
    want = digest()
    clean()
    work = Path(tempfile.mkdtemp(prefix="kardinal-native-"))
    try:
        # setuptools reads the pyproject.toml of the directory it runs in: it runs in an
        # empty one, where ``kardinal`` leads to this package (in place: the files land here)
        (work / "kardinal").symlink_to(HERE.parent, target_is_directory=True)
        paths = [f"kardinal/bots/{m}.py" for m in MODULES]
        script = (
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='kardinal-native', ext_modules=mypycify({paths!r}, group_name={GROUP!r}),"
            " script_args=['build_ext', '--inplace'])\n"
        )
        done = subprocess.run([sys.executable, "-c", script], cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            clean()
            raise RuntimeError(f"mypyc failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if digest() != want:  # a source changed while it compiled: build again next time
        clean()
        raise RuntimeError("a source changed while it was compiled; run it again")
    STAMP.write_text(want + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python kardinal/bots/native.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (the sources run)")
    ap.add_argument("--status", action="store_true", help="say how the search runs here")
    ap.add_argument("--if-needed", action="store_true", help="compile only if the sources changed since the last build")
    a = ap.parse_args(argv)
    if a.clean:
        clean()
        return 0
    if a.status:
        print(status())
        return 0
    if a.if_needed and _fresh():
        return 0
    try:
        build()
    except RuntimeError as e:
        print(f"the search was not compiled and runs as pure Python: {e}", file=sys.stderr)
        return 1
    print(f"compiled {', '.join(MODULES)} with mypyc")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
