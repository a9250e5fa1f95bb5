"""Speed of the research adapters: random legal play, decisions per second (not part of the tests).

``python -m kardinal.research.bench [games] [players] [--warm N]``. Three loops over the same
kind of game (uniformly random legal decisions, to the end):

* core: ``State.legal_moves`` + ``State.play`` (as ``kardinal bench``);
* OpenSpiel: ``legal_actions`` + ``apply_action`` on ``python_kardinal``, chance nodes
  sampled from ``chance_outcomes`` (their time is included; they are not counted as
  decisions);
* PettingZoo: the AEC loop (``agent_iter``, ``last``, ``step``) of ``kardinal_v0`` with
  the wrappers, actions drawn from the action mask (the observation of the agent to act
  is built at every step, as in any AEC loop).

CPU time of this process (``time.process_time``) is used, so other processes on the
machine disturb the figures less than wall-clock time would.

Before each row, every loop first plays ``--warm`` games of its own on other seeds (default
100): the rules core keeps the moves it built for a hand, a display, a country's free sites
(built once, then shared), so its first games are slower than the steady pace of a long run
or a training loop, which is what the rows give (``--warm 1``: nearly from a cold start).
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np

from kardinal.tools.bench import random_games


def core_rate(players: int, games: int, seed: int = 1) -> tuple[float, int]:
    seconds, decisions = random_games(players, games, seed, clock=time.process_time)
    return decisions / seconds, decisions


def openspiel_rate(players: int, games: int, seed: int = 1) -> tuple[float, int, int]:
    from .openspiel_game import load

    game = load(players)
    decisions = chance = 0
    t0 = time.process_time()
    for g in range(games):
        rng = random.Random(seed + g)
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes())
                s.apply_action(rng.choices(acts, probs)[0])
                chance += 1
            else:
                s.apply_action(rng.choice(s.legal_actions()))
                decisions += 1
    return decisions / (time.process_time() - t0), decisions, chance


def pettingzoo_rate(players: int, games: int, seed: int = 1) -> tuple[float, int]:
    from .pettingzoo_env import env

    e = env(players=players)
    rng = np.random.default_rng(seed)
    decisions = 0
    t0 = time.process_time()
    for g in range(games):
        e.reset(seed=seed + g)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions / (time.process_time() - t0), decisions


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m kardinal.research.bench", description="decisions per CPU second of random legal play")
    ap.add_argument("games", nargs="?", type=int, default=20, help="games per row (default 20)")
    ap.add_argument("players", nargs="?", type=int, choices=(3, 4, 5), help="one player count (default 3, 4 and 5)")
    ap.add_argument("--warm", type=int, default=100, help="games each loop plays first, on other seeds (default 100)")
    a = ap.parse_args(argv)
    games, warm = a.games, max(1, a.warm)
    players = [a.players] if a.players else [3, 4, 5]
    print(f"random legal play, {games} games per row after {warm} to warm up; decisions per CPU second")
    print(f"{'players':>7} {'core':>9} {'openspiel':>10} {'pettingzoo':>11}   (openspiel chance nodes per game)")
    for n in players:
        core_rate(n, warm, seed=10_000)
        c, _ = core_rate(n, games)
        openspiel_rate(n, warm, seed=10_000)
        o, _, ch = openspiel_rate(n, games)
        pettingzoo_rate(n, warm, seed=10_000)
        p, _ = pettingzoo_rate(n, games)
        print(f"{n:>7} {c:>9.0f} {o:>10.0f} {p:>11.0f}   ({ch / games:.0f})")


if __name__ == "__main__":
    main(sys.argv[1:])
