"""Where the suite's time goes: the tests' time by area. Every run prints the table
(tests/conftest.py calls :func:`table`); this script makes it from the JUnit XML that `make
test` writes (build/junit.xml; each test's area is a property, set in tests/conftest.py).

    python tests/suite_times.py build/junit.xml [--wall SECONDS] [--weights FILE]

prints a Markdown table (the testing page carries one, with its date): per area the
tests, their time added up (setup, call and teardown, in all the test processes) and its
share. ``--wall``: the run's time on the clock, said under the table. ``--weights``: writes
each test file's seconds and the tests of 3 s or more to FILE (tests/data/suite_seconds.json):
tests/conftest.py hands the longest files out first and marks those tests ``heavy``.
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ORDER = ("rules", "bots", "cli", "server", "browser", "postgres", "docs", "research")


def times_by_area(junit: Path) -> tuple[Counter[str], Counter[str]]:
    """Seconds and tests per area (a test without an area property counts as "other")."""
    seconds: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        area = props.get("area") or "other"
        seconds[area] += float(case.get("time") or 0.0)
        tests[area] += 1
    return seconds, tests


def weights(junit: Path, heavy: float = 3.0) -> dict[str, dict[str, float]]:
    """Seconds per test file of tests/ (by its name without .py), longest first, and of the
    tests that took ``heavy`` seconds or more (by their pytest node id)."""
    files: Counter[str] = Counter()
    tests: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        module = (case.get("classname") or "").split(".")
        seconds = float(case.get("time") or 0.0)
        if len(module) >= 2 and module[0] == "tests":
            files[module[1]] += seconds
            if seconds >= heavy:
                tests[f"tests/{module[1]}.py::{case.get('name')}"] = round(seconds, 1)
    return {
        "files": {name: round(s, 1) for name, s in files.most_common()},
        "tests": dict(sorted(tests.items(), key=lambda kv: -kv[1])),
    }


def table(seconds: Counter[str], tests: Counter[str], wall: float | None = None) -> str:
    total = sum(seconds.values())
    rows = ["| area | tests | time (s, all processes) | share |", "| --- | ---: | ---: | ---: |"]
    for area in sorted(seconds, key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a)):
        rows.append(f"| {area} | {tests[area]:,} | {seconds[area]:,.0f} | {100 * seconds[area] / total:.0f} % |")
    rows.append(f"| all | {sum(tests.values()):,} | {total:,.0f} | 100 % |")
    if wall is not None:
        rows.append("")
        rows.append(f"On the clock: {wall / 60:.1f} min of pytest ({total / wall:.2f} tests' seconds a second).")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit", type=Path)
    ap.add_argument("--wall", type=float, default=None, help="the run's time on the clock, in seconds")
    ap.add_argument("--weights", type=Path, default=None, help="write the files' and the heavy tests' seconds here (JSON)")
    args = ap.parse_args()
    print(table(*times_by_area(args.junit), wall=args.wall))
    if args.weights is not None:
        args.weights.write_text(json.dumps(weights(args.junit), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
