"""A learned leaf evaluation for the search (``ISMCTSBot(leaf="learned")``).

:func:`value_features` describes one seat of a full state (a determinized one, as the
search sees it at the end of a rollout) by :data:`VALUE_FEATURES`: the fitted leaf's own
terms (:meth:`Evaluator.leaf_features`), the best other seat's, the seat's lead in points,
per country its cloisters and advisors against the most of any other seat and the free
cloister sites, its hand and the display per kind, the cards left in the draw pile and the
player count. :class:`ValueModel` predicts from them the points the seat will still score
(final score minus points so far, the fitted leaf's target), with one model per stage of
the game (:meth:`Evaluator.leaf_stage`): a linear model or a network of one hidden layer
(ReLU), both trained offline with scikit-learn by ``python -m kardinal.research.train_value``
and stored as its parameters in ``value_weights.json`` beside this module (scaler means and
scales, weights, biases). Inference here is plain Python (the bots may not import numpy):
the scaler is folded into the first layer when the model is loaded, and only the features
that are not zero are multiplied.

Like the rest of the bots' evaluation it reads each seat's own hand only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from kardinal.rules.state import State

from .evaluate import Evaluator

__all__ = ["VALUE_FEATURES", "WEIGHTS_FILE", "ValueModel", "value_features", "default_model"]

# (not beside __file__: a module compiled by mypyc does not know where it is)
WEIGHTS_FILE = Path(str(resources.files("kardinal.bots"))) / "value_weights.json"

_COUNTRIES = 9  # the board of the game (the model is for it; other boards are refused)
_KINDS = 5
_OWN = ("cl", "al2", "al1", "chain", "runs", "scl", "sad", "cards", "pairs", "cl~", "al2~", "scl~", "sad~", "~", "next", "last")
_OTHER = ("o.cl", "o.al2", "o.al1", "o.chain", "o.runs", "o.scl", "o.sad")
VALUE_FEATURES: tuple[str, ...] = (
    *_OWN,
    *_OTHER,
    "lead",
    *(f"{what}{c}" for c in range(_COUNTRIES) for what in ("mycl", "ocl", "myad", "oad", "free")),
    *(f"hand{k}" for k in range(_KINDS)),
    *(f"display{k}" for k in range(_KINDS)),
    "pile",
    "n3",
    "n4",
    "n5",
)


def value_features(ev: Evaluator, s: State) -> list[list[float]]:
    """Every seat's :data:`VALUE_FEATURES` in the state ``s`` (not over)."""
    n = s.n
    if ev.C != _COUNTRIES or len(ev.board.cards) != _KINDS:
        raise ValueError(f"the learned evaluation is for the board of {_COUNTRIES} countries and {_KINDS} kinds of cards")
    cl, (full, part), chains = ev.leaf_parts(s)
    rem = (len(s.deck) - s.top) / len(s.deck) if s.deck else 0.0
    cur = s.current
    fin = s.final_round
    own: list[list[float]] = []
    for p in range(n):
        hand = s.hands[p]
        ch, runs = chains[p]
        scl = float(s.supply_cl[p])
        sad = float(s.supply_adv[p])
        own.append(
            [
                float(cl[p]),
                full[p],
                part[p],
                ch,
                runs,
                scl,
                sad,
                float(sum(hand)),
                float(sum(1 for k in hand if k >= 2)),
                cl[p] * rem,
                full[p] * rem,
                scl * rem,
                sad * rem,
                rem,
                ((p - cur) % n) / n,
                1.0 if fin and p >= cur else 0.0,
            ]
        )
    free = [0.0] * _COUNTRIES
    sc = ev.site_country
    for v, o in enumerate(s.owner):
        if o < 0:
            free[sc[v]] += 1.0
    display = [0.0] * _KINDS
    for k in s.display:
        display[k] += 1.0
    pile = float(len(s.deck) - s.top)
    size = [1.0 if n == 3 else 0.0, 1.0 if n == 4 else 0.0, 1.0 if n == 5 else 0.0]
    scores = s.scores
    out: list[list[float]] = []
    for p in range(n):
        mine = own[p]
        best_other = [-1e9] * len(_OTHER)
        top = -1e9
        for q in range(n):
            if q != p:
                f = own[q]
                for i in range(len(_OTHER)):
                    if f[i] > best_other[i]:
                        best_other[i] = f[i]
                if scores[q] > top:
                    top = float(scores[q])
        row = mine + best_other
        row.append(scores[p] - top)
        for c in range(_COUNTRIES):
            rc = s.cloisters[c]
            ra = s.advisors[c]
            ocl = oad = 0
            for q in range(n):
                if q != p:
                    if rc[q] > ocl:
                        ocl = rc[q]
                    if ra[q] > oad:
                        oad = ra[q]
            row += [float(rc[p]), float(ocl), float(ra[p]), float(oad), free[c]]
        row += [float(x) for x in s.hands[p]]
        row += display
        row.append(pile)
        row += size
        out.append(row)
    return out


class _Stage:
    """One stage's model, the scaler folded in: rows of the first layer by feature."""

    def __init__(self, m: Mapping[str, Any], width: int) -> None:
        mean = [float(x) for x in m["mean"]]
        scale = [float(x) for x in m["scale"]]
        if len(mean) != width or len(scale) != width:
            raise ValueError(f"a stage's scaler has {len(mean)} features, the model {width}")
        layers = m["layers"]  # [(weights [in][out], biases [out]), ...], sklearn's coefs_ and intercepts_
        if not 1 <= len(layers) <= 2:
            raise ValueError("a stage is a linear model or a network of one hidden layer")
        w0 = [[float(x) for x in row] for row in layers[0][0]]
        b0 = [float(x) for x in layers[0][1]]
        if len(w0) != width or any(len(row) != len(b0) for row in w0):
            raise ValueError("a stage's first layer does not match its features")
        # (x - mean) / scale @ W + b  ==  x @ (W / scale) + (b - sum_i mean_i / scale_i W_i)
        self.rows = [[x / scale[i] for x in w0[i]] for i in range(width)]
        self.bias = [b0[j] - sum(mean[i] / scale[i] * w0[i][j] for i in range(width)) for j in range(len(b0))]
        self.hidden = len(layers) == 2
        if self.hidden:
            w1 = [[float(x) for x in row] for row in layers[1][0]]
            if len(w1) != len(b0) or any(len(row) != 1 for row in w1) or len(layers[1][1]) != 1:
                raise ValueError("a stage's output layer does not match its hidden layer")
            self.out = [row[0] for row in w1]
            self.out_bias = float(layers[1][1][0])
        elif len(b0) != 1:
            raise ValueError("a linear stage has one output")

    def predict(self, x: Sequence[float]) -> float:
        h = list(self.bias)
        rows = self.rows
        width = len(h)
        for i in range(len(x)):
            v = x[i]
            if v != 0.0:
                row = rows[i]
                for j in range(width):
                    h[j] += v * row[j]
        if not self.hidden:
            return h[0]
        out = self.out
        y = self.out_bias
        for j in range(width):
            if h[j] > 0.0:
                y += h[j] * out[j]
        return y


class ValueModel:
    """Each seat's final total: its points so far plus the points the model predicts."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        features = tuple(data["features"])
        if features != VALUE_FEATURES:
            raise ValueError("the model's features are not this version's VALUE_FEATURES: train it again")
        stages = data["stages"]
        if len(stages) != 3:
            raise ValueError(f"the model needs 3 stages, not {len(stages)}")
        self.stages = [_Stage(m, len(features)) for m in stages]
        self.info: dict[str, Any] = {k: v for k, v in data.items() if k != "stages"}

    @classmethod
    def load(cls, path: Path | str = WEIGHTS_FILE) -> ValueModel:
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f))

    def points_to_come(self, stage: int, x: Sequence[float]) -> float:
        """The model's prediction for one seat's features ``x`` at ``stage``."""
        return self.stages[stage].predict(x)

    def estimate(self, ev: Evaluator, s: State) -> list[float]:
        """Every seat's estimated final total (the true scores when the game is over)."""
        if s.is_over:
            return [float(x) for x in s.scores]
        model = self.stages[ev.leaf_stage(s)]
        out = []
        for p, x in enumerate(value_features(ev, s)):
            out.append(s.scores[p] + model.predict(x) + 0.01 * (s.supply_cl[p] + s.supply_adv[p]))
        return out


_DEFAULT: list[ValueModel] = []


def default_model() -> ValueModel:
    """The model shipped with the package (``value_weights.json``), loaded once."""
    if not _DEFAULT:
        _DEFAULT.append(ValueModel.load())
    return _DEFAULT[0]
