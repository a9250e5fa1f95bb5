"""The rules core and the search compiled with mypyc: the same Python source, about twice as fast.

The hot modules (:data:`MODULES`: the rules core's state, moves, scoring and chains; the
bots' determinizer, evaluator, ISMCTS search and learned leaf; the learning interfaces'
observation tensor) are plain, fully typed Python. ``make
native`` (``python kardinal/native.py``) compiles them with mypyc (part of mypy, a
development dependency) into C extension modules beside their sources, in place, which
Python then imports instead of the sources; ``make run``, ``make test`` and ``make bench``
do it when a source changed. The play is the same move for move (``tests/test_native.py``
plays both and compares; ``tests/test_bot_pinned.py`` pins the moves of each). Without a C
compiler, or with ``KARDINAL_PURE=1``, the sources run as they are.

A compiled module that is older than its source must never run in its place: the build
writes the SHA-256 of the sources it compiled to :data:`STAMP`, and :func:`prefer_fresh`
(called by the package ``kardinal`` before it imports any of them) makes Python import
the sources instead if any of them differs from what was compiled (an edit not yet
built). They are compiled and loaded together (one shared library, whose compiled search
reaches into the compiled rules' classes directly): all compiled, or none.

This module sits at the package's root, below every layer (the rules core is the lowest
layer and is compiled too), and imports nothing of the package, so that it can decide
before any compiled module is imported.
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

__all__ = ["MODULES", "STAMP", "GROUP", "digest", "compiled_files", "prefer_fresh", "status", "build", "clean", "main"]

HERE = Path(__file__).resolve().parent  # the package kardinal
ROOT = HERE.parent
MODULES = (
    "kardinal.rules.chains",
    "kardinal.rules.scoring",
    "kardinal.rules.moves",
    "kardinal.rules.state",
    "kardinal.bots.determinize",
    "kardinal.bots.evaluate",
    "kardinal.bots.ismcts",
    "kardinal.bots.learned",
    "kardinal.research.encode",
)
GROUP = "kardinal._native"  # the shared library of them all (mypyc's group)
STAMP = HERE / "_native.txt"  # the digest of the sources last compiled
# what builds before the rules core was compiled left (the search alone, in kardinal/bots)
_LEGACY = (HERE / "bots" / "_native.txt",)
_LEGACY_GLOBS = ((HERE / "bots", "_native__mypyc.*.so"),)

log = logging.getLogger(__name__)

_state = {"why": ""}  # why the sources run ("" while not decided: compiled if present)


def source(module: str) -> Path:
    """The Python source of one of :data:`MODULES`."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def digest() -> str:
    """The SHA-256 of the compiled modules' sources, in :data:`MODULES` order."""
    h = hashlib.sha256()
    for name in MODULES:
        h.update(source(name).read_bytes())
    return h.hexdigest()


def compiled_files() -> list[Path]:
    """The compiled modules and their shared library present beside the sources (and what
    an earlier build of the search alone left)."""
    out: list[Path] = []
    for name in MODULES:
        src = source(name)
        out += src.parent.glob(f"{src.stem}.*.so")
    out += HERE.glob(GROUP.rsplit(".", 1)[1] + "__mypyc.*.so")
    for folder, pattern in _LEGACY_GLOBS:
        out += folder.glob(pattern)
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

    names = frozenset(MODULES)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source(fullname))


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
        log.warning("the rules core and the search run as pure Python: %s", why)
    _state["why"] = why
    sys.meta_path.insert(0, _Sources())


def status() -> str:
    """How the rules core and the search run here: ``"compiled (mypyc)"`` or ``"pure Python (why)"``."""
    prefer_fresh()
    import kardinal.bots.ismcts
    import kardinal.rules.state

    if all(str(getattr(m, "__file__", "")).endswith(".so") for m in (kardinal.rules.state, kardinal.bots.ismcts)):
        return "compiled (mypyc)"
    return f"pure Python ({_state['why'] or 'the sources were imported'})"


def clean() -> None:
    """Remove the compiled modules and the stamp (the sources run)."""
    for f in compiled_files():
        f.unlink()
    STAMP.unlink(missing_ok=True)
    for f in _LEGACY:
        f.unlink(missing_ok=True)


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
        (work / "kardinal").symlink_to(HERE, target_is_directory=True)
        # the research module imports the adapters lazily, whose libraries have no type stubs
        paths = ["--ignore-missing-imports"] + [str(source(m).relative_to(ROOT)) for m in MODULES]
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

    ap = argparse.ArgumentParser(prog="python kardinal/native.py", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (the sources run)")
    ap.add_argument("--status", action="store_true", help="say how the rules core and the search run here")
    ap.add_argument("--if-needed", action="store_true", help="compile only if the sources changed since the last build")
    a = ap.parse_args(argv)
    if a.clean:
        clean()
        return 0
    if a.status:
        if __name__ == "__main__":  # run as a script: ask the package's own module, of this tree
            sys.path.insert(0, str(ROOT))
        from kardinal import native

        print(native.status())
        return 0
    if a.if_needed and _fresh():
        return 0
    try:
        build()
    except RuntimeError as e:
        print(f"the rules core and the search were not compiled and run as pure Python: {e}", file=sys.stderr)
        return 1
    print(f"compiled {', '.join(MODULES)} with mypyc")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
