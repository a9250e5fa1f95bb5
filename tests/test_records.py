"""Game records (the kardinal-record JSON contract): exact format, replay, and refusal of
illegal (IllegalAction: index + rule) and malformed (RecordError) records."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import BB, ES, FA, FR, LI, assert_replays_identically, random_game

from kardinal.rules.board import standard_board
from kardinal.rules.moves import DECK, Draw, Exchange, Pass, make_place
from kardinal.rules.record import IllegalAction, RecordError, action_of, load_record, move_of, read_json, record_of, replay, score_position
from kardinal.rules.state import new_game

TOP_KEYS = ["format", "version", "board", "board_digest", "variants", "players", "deck", "reshuffle", "actions", "result"]


@pytest.fixture(scope="module")
def finished() -> dict[str, Any]:
    s = random_game(4, 17)
    assert s.reshuffle is not None
    return record_of(s, ["Ann", "Bob", "Cy", "Di"])


def test_record_exact_top_level_format(finished: dict[str, Any]) -> None:
    rec = finished
    assert list(rec) == TOP_KEYS
    assert rec["format"] == "kardinal-record" and rec["version"] == 2 and rec["board"] == "standard"
    assert rec["board_digest"] == standard_board().digest and rec["variants"] == []
    assert rec["players"] == ["Ann", "Bob", "Cy", "Di"]
    assert len(rec["deck"]) == 50 and all(isinstance(x, str) for x in rec["deck"])
    assert sorted(set(rec["deck"])) == sorted([FA, BB, LI, ES, FR])
    assert isinstance(rec["reshuffle"], list) and rec["reshuffle"]
    assert set(rec["result"]) == {"scores", "winners"}
    assert len(rec["result"]["scores"]) == 4
    assert "seed" not in rec  # R13: a record carries no seed
    json.dumps(rec)  # JSON-ready


def test_record_action_shapes(finished: dict[str, Any]) -> None:
    shapes = set()
    for a in finished["actions"]:
        assert isinstance(a["seat"], int)
        if a["act"] == "place":
            assert list(a) == ["seat", "act", "country", "cards", "pieces"]
            for p in a["pieces"]:
                assert p == {"type": "advisor"} or (list(p) == ["type", "site"] and p["type"] == "cloister")
            # cloisters before advisors (a legal placement order, R4.9)
            types = [p["type"] for p in a["pieces"]]
            assert types == sorted(types, key=lambda t: t != "cloister")
        elif a["act"] == "draw":
            assert a in (
                {"seat": a["seat"], "act": "draw", "from": "deck"},
                {"seat": a["seat"], "act": "draw", "from": "display", "card": a.get("card")},
            )
        elif a["act"] == "exchange":
            assert list(a) in (["seat", "act", "discard", "from"], ["seat", "act", "discard", "from", "card"])
            assert (a["from"] == "deck") == ("card" not in a)
        else:
            assert a == {"seat": a["seat"], "act": "pass"}
        shapes.add((a["act"], a.get("from")))
    assert {("place", None), ("draw", "deck"), ("draw", "display"), ("exchange", "deck")} <= shapes


def test_action_of_each_move_exactly() -> None:
    assert action_of(2, make_place("italien", [LI, FR, FR], ["verona"], 1)) == {
        "seat": 2,
        "act": "place",
        "country": "italien",
        "cards": [FR, FR, LI],
        "pieces": [{"type": "cloister", "site": "verona"}, {"type": "advisor"}],
    }
    assert action_of(0, Draw(BB)) == {"seat": 0, "act": "draw", "from": "display", "card": BB}
    assert action_of(0, Draw(DECK)) == {"seat": 0, "act": "draw", "from": "deck"}
    assert action_of(1, Exchange(FR, DECK)) == {"seat": 1, "act": "exchange", "discard": FR, "from": "deck"}
    assert action_of(1, Exchange(FR, ES)) == {"seat": 1, "act": "exchange", "discard": FR, "from": "display", "card": ES}
    assert action_of(3, Pass()) == {"seat": 3, "act": "pass"}


def test_move_of_inverts_action_of_and_reads_pieces_in_any_order() -> None:
    for seat, m in [
        (2, make_place("italien", [LI, FR, FR], ["verona"], 1)),
        (0, Draw(BB)),
        (0, Draw(DECK)),
        (1, Exchange(FR, DECK)),
        (1, Exchange(FR, ES)),
        (3, Pass()),
    ]:
        assert move_of(action_of(seat, m)) == (seat, m)
    a = {
        "seat": 0,
        "act": "place",
        "country": "italien",
        "cards": [LI, LI],
        "pieces": [{"type": "advisor"}, {"type": "cloister", "site": "verona"}],
    }
    assert move_of(a) == (0, make_place("italien", [LI, LI], ["verona"], 1))  # R4.9


@pytest.mark.parametrize("players", [3, 4, 5])
def test_record_json_replay_gives_the_same_game(players: int) -> None:
    for seed in range(3):
        assert_replays_identically(random_game(players, 40 + seed))


def test_record_of_an_unfinished_game_has_no_result_and_no_reshuffle() -> None:
    s = new_game(3, seed=1)
    s.play(s.legal_moves()[0])
    rec = record_of(s)
    assert "result" not in rec and "reshuffle" not in rec
    assert list(rec) == ["format", "version", "board", "board_digest", "variants", "players", "deck", "actions"]
    assert rec["players"] == ["Player 1", "Player 2", "Player 3"]
    assert replay(rec).key() == s.key()


def test_replay_stop_replays_a_prefix(finished: dict[str, Any]) -> None:
    t = replay(finished, stop=10)
    assert t.history is not None and len(t.history) == 10 and not t.is_over


def test_record_with_a_seed_key_is_still_read(finished: dict[str, Any]) -> None:
    rec = copy.deepcopy(finished)
    rec["seed"] = 12345
    assert replay(rec).scores == finished["result"]["scores"]
    s = random_game(3, 5)
    with_seed = record_of(s, seed=True)
    assert with_seed["seed"] == s.seed
    assert replay(with_seed).key() == s.key()


# -- illegal actions: index and rule ------------------------------------------------------------


def edited(rec: dict[str, Any], i: int, action: dict[str, Any]) -> dict[str, Any]:
    r = copy.deepcopy(rec)
    r["actions"][i] = action
    return r


def first_index(rec: dict[str, Any], pred: Any) -> int:
    return next(i for i, a in enumerate(rec["actions"]) if pred(a))


def test_illegal_action_card_not_in_hand(finished: dict[str, Any]) -> None:
    s = new_game(4, deck=finished["deck"])
    missing = next(k.id for k in s.board.cards if not s.hands[0][k.index])
    country = s.board.countries[s.board.cards[s.board.kind_index[missing]].countries[0]]
    site = s.board.sites[country.sites[0]].id
    rec = edited(finished, 0, action_of(0, make_place(country.id, [missing], [site], 0)))
    with pytest.raises(IllegalAction) as e:
        replay(rec)
    assert e.value.index == 0 and e.value.rule == "R4.1"
    assert str(e.value).startswith("action 0: R4.1")


def test_illegal_action_wrong_seat(finished: dict[str, Any]) -> None:
    i = 5
    a = dict(finished["actions"][i])
    a["seat"] = (a["seat"] + 1) % 4
    with pytest.raises(IllegalAction) as e:
        replay(edited(finished, i, a))
    assert e.value.index == i and e.value.rule == "R3"


def test_illegal_action_draw_not_on_display(finished: dict[str, Any]) -> None:
    i = first_index(finished, lambda a: a["act"] == "draw")
    before = replay(finished, stop=i)
    absent = next(k.id for k in before.board.cards if k.index not in before.display)
    a = {"seat": finished["actions"][i]["seat"], "act": "draw", "from": "display", "card": absent}
    with pytest.raises(IllegalAction) as e:
        replay(edited(finished, i, a))
    assert e.value.index == i and e.value.rule == "R5.1"


def test_illegal_action_pass_while_able_to_play(finished: dict[str, Any]) -> None:
    with pytest.raises(IllegalAction) as e:
        replay(edited(finished, 0, {"seat": 0, "act": "pass"}))
    assert e.value.index == 0 and e.value.rule == "R3.1"


def test_illegal_action_after_the_end(finished: dict[str, Any]) -> None:
    r = copy.deepcopy(finished)
    r["actions"].append({"seat": 0, "act": "pass"})
    n = len(r["actions"]) - 1
    with pytest.raises(IllegalAction) as e:
        replay(r)
    assert e.value.index == n and e.value.rule == "R8"


# -- malformed records ------------------------------------------------------------------------


def mutate(rec: dict[str, Any], fn: Any) -> dict[str, Any]:
    r = copy.deepcopy(rec)
    fn(r)
    return r


MALFORMED: list[tuple[str, Any, str]] = [
    ("not an object", lambda r: None, ""),
    ("format", lambda r: r.update(format="chess-pgn"), "'format'"),
    ("missing format", lambda r: r.pop("format"), "'format'"),
    ("version", lambda r: r.update(version=3), "'version'"),
    ("missing version", lambda r: r.pop("version"), "'version'"),
    ("board type", lambda r: r.update(board=7), "'board'"),
    ("board file missing", lambda r: r.update(board="/nonexistent/board.toml"), "board"),
    ("players missing", lambda r: r.pop("players"), "'players'"),
    ("players type", lambda r: r.update(players="four"), "'players'"),
    ("players names", lambda r: r.update(players=[1, 2, 3, 4]), "'players'"),
    ("players count", lambda r: r.update(players=["a", "b"]), "'players'"),
    ("deck missing", lambda r: r.pop("deck"), "'deck'"),
    ("deck type", lambda r: r["deck"].__setitem__(0, 3), "'deck'"),
    ("deck composition", lambda r: r["deck"].__setitem__(r["deck"].index(FR), FA), "deck"),
    ("deck too short", lambda r: r["deck"].pop(), "deck"),
    ("deck unknown kind", lambda r: r["deck"].__setitem__(0, "joker"), "unknown card kind"),
    ("reshuffle type", lambda r: r.update(reshuffle="shuffled"), "'reshuffle'"),
    ("reshuffle unknown kind", lambda r: r["reshuffle"].__setitem__(0, "joker"), "reshuffle"),
    ("reshuffle missing", lambda r: r.pop("reshuffle"), "'reshuffle'"),
    ("reshuffle wrong cards", lambda r: r["reshuffle"].append(FR), "'reshuffle'"),
    ("actions missing", lambda r: r.pop("actions"), "'actions'"),
    ("actions type", lambda r: r.update(actions={}), "'actions'"),
    ("action type", lambda r: r["actions"].__setitem__(3, "pass"), "actions[3]"),
    ("seat type", lambda r: r["actions"][3].update(seat="1"), "actions[3]: 'seat'"),
    ("seat bool", lambda r: r["actions"][3].update(seat=True), "actions[3]: 'seat'"),
    ("act unknown", lambda r: r["actions"][3].update(act="resign"), "actions[3]: 'act'"),
    ("extra key", lambda r: r["actions"][0].update(comment="hi"), "actions[0]: unexpected key"),
    ("draw from", lambda r: r["actions"].__setitem__(1, {"seat": 0, "act": "draw", "from": "sky"}), "actions[1]: 'from'"),
    ("draw deck with card", lambda r: r["actions"].__setitem__(1, {"seat": 0, "act": "draw", "from": "deck", "card": FA}), "actions[1]"),
    ("draw display no card", lambda r: r["actions"].__setitem__(1, {"seat": 0, "act": "draw", "from": "display"}), "actions[1]: 'card'"),
    (
        "exchange discard type",
        lambda r: r["actions"].__setitem__(0, {"seat": 0, "act": "exchange", "discard": 1, "from": "deck"}),
        "actions[0]: 'discard'",
    ),
    (
        "place cards type",
        lambda r: r["actions"].__setitem__(0, {"seat": 0, "act": "place", "country": "italien", "cards": FR, "pieces": []}),
        "actions[0]: 'cards'",
    ),
    (
        "place pieces type",
        lambda r: r["actions"].__setitem__(0, {"seat": 0, "act": "place", "country": "italien", "cards": [LI], "pieces": "advisor"}),
        "actions[0]: 'pieces'",
    ),
    (
        "place piece shape",
        lambda r: r["actions"].__setitem__(
            0, {"seat": 0, "act": "place", "country": "italien", "cards": [LI], "pieces": [{"type": "bishop"}]}
        ),
        "actions[0].pieces[0]",
    ),
    (
        "place country type",
        lambda r: r["actions"].__setitem__(0, {"seat": 0, "act": "place", "country": 3, "cards": [LI], "pieces": [{"type": "advisor"}]}),
        "actions[0]: 'country'",
    ),
    (
        "unknown card in action",
        lambda r: r["actions"].__setitem__(
            0, {"seat": 0, "act": "place", "country": "italien", "cards": ["joker"], "pieces": [{"type": "cloister", "site": "verona"}]}
        ),
        "actions[0]: unknown card kind 'joker'",
    ),
    (
        "unknown country in action",
        lambda r: r["actions"].__setitem__(
            0, {"seat": 0, "act": "place", "country": "narnia", "cards": [LI], "pieces": [{"type": "advisor"}]}
        ),
        "actions[0]: unknown country 'narnia'",
    ),
    (
        "unknown site in action",
        lambda r: r["actions"].__setitem__(
            0, {"seat": 0, "act": "place", "country": "italien", "cards": [LI], "pieces": [{"type": "cloister", "site": "rom"}]}
        ),
        "actions[0]: unknown cloister site 'rom'",
    ),
    (
        "unknown card in exchange",
        lambda r: r["actions"].__setitem__(0, {"seat": 0, "act": "exchange", "discard": FR, "from": "display", "card": "joker"}),
        "actions[0]: unknown card kind 'joker'",
    ),
]


@pytest.mark.parametrize("label, fn, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_record_gives_record_error(finished: dict[str, Any], label: str, fn: Any, words: str) -> None:
    data: Any = [] if label == "not an object" else mutate(finished, fn)
    with pytest.raises(RecordError) as e:
        replay(data)
    assert words in str(e.value), f"{label}: {e.value}"


def test_reshuffle_in_an_unfinished_record_is_accepted() -> None:
    """An unfinished record may hold the reshuffle before the pile is used up."""
    s = new_game(3, seed=1)
    s.play(s.legal_moves()[0])
    rec = record_of(s)
    rec["reshuffle"] = [FR]
    t = replay(rec)
    assert t.reshuffle is None and t.key() == s.key()


def test_read_json_and_load_record_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        read_json(bad)
    with pytest.raises(RecordError, match="cannot read"):
        read_json(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError):
        read_json(binary)
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="JSON object"):
        load_record(arr)


def test_the_documented_example_position_is_a_valid_position() -> None:
    """The file formats' page shows a position file: it must be one (R4.8 limits, known sites, version 2)."""
    page = (Path(__file__).parent.parent / "docs" / "reference" / "formats.md").read_text(encoding="utf-8")
    section = page.split("## Positions (`kardinal-position`", 1)[1]
    block = section.split("```json", 1)[1].split("```", 1)[0]
    data = json.loads(block)
    assert data["version"] == 2 and data["board"] == "standard"
    fin = score_position(data)
    assert fin.total == [a + b + c for a, b, c in zip(fin.cloisters, fin.alliances, fin.chains)]
