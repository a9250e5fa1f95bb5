"""Load Kardinal self-play data and print what it holds.

    kardinal selfplay --bots hard,hard,hard,hard --games 100 --data DIR
    python examples/load_selfplay.py DIR

The data format is described in docs/research/data.md. The script prints the shapes of
the arrays a learner would use, the mean value target (the acting seat's win share) by
seat, and how often two trivial baselines name the action taken: a uniformly random legal
action (the expected hit rate, 1/legal) and, where a search chose, its most visited
action (the search plays a most visited root move: a policy target learned from ``visits``
names it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from kardinal.research.selfplay_data import arrays, load


def main(directory: Path) -> None:
    table = load(directory)
    meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    a = arrays(table)
    games = len(np.unique(a["game"]))
    print(f"{table.num_rows} decisions of {games} games; board {meta['board']}, {meta['players']} players, bots {meta['bots']}")
    print(f"format version {meta['format_version']}, written by Kardinal {meta['kardinal_version']}")
    for name in ("observation", "legal", "action", "visits", "win"):
        print(f"{name:12} {a[name].shape} {a[name].dtype}")
    main_rows = ~a["draw"]
    print(f"main decisions {int(main_rows.sum())}, draws {int(a['draw'].sum())}, chosen by a search {int(a['searched'].sum())}")
    for seat in range(int(meta["players"])):
        rows = a["seat"] == seat
        print(
            f"seat {seat}: {int(rows.sum())} decisions, mean win share {a['win'][rows].mean():.3f}, mean final score {a['score'][rows].mean():.1f}"
        )
    legal = a["legal"].sum(axis=1)
    print(f"legal actions per main decision: mean {legal[main_rows].mean():.1f}, max {int(legal.max())}")
    print(
        f"a uniformly random legal action would be the one taken at {np.mean(1.0 / legal[main_rows]):.3f} of the main decisions (expected)"
    )
    if a["searched"].any():
        s = a["searched"]
        visits = a["visits"][s]
        taken = visits[np.arange(len(visits)), a["action"][s]]
        print(f"the action taken is a most visited one at {np.mean(taken == visits.max(axis=1)):.3f} of the searched decisions")
        print(f"root visits per searched decision: mean {visits.sum(axis=1).mean():.0f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/load_selfplay.py DIR")
    main(Path(sys.argv[1]))
