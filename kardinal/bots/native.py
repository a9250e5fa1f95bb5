"""The search's compiled modules: built and checked by :mod:`kardinal.native` (with the rules core's).

Kept so that ``python kardinal/bots/native.py`` and ``from kardinal.bots import native``
go on working: everything is :mod:`kardinal.native`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: the package of this tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kardinal.native import GROUP, MODULES, STAMP, build, clean, compiled_files, digest, main, prefer_fresh, status  # noqa: E402

__all__ = ["MODULES", "STAMP", "GROUP", "digest", "compiled_files", "prefer_fresh", "status", "build", "clean", "main"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
