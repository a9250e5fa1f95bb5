"""R4.3 (the German joker rule) and rule variants (R14); record format version 2.

The rulebook's examples of R4 under the rules as written, and the same positions under
the variant joker-anywhere (the Danish translation's reading). Version-1 records, made
before the counted board and the German joker rule, replay exactly as they were played.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import BB, FA, FR, game, pl, put_advisors, put_cloisters
from typer.testing import CliRunner

from kardinal.cli import app
from kardinal.rules.board import get_board
from kardinal.rules.moves import Place
from kardinal.rules.record import RecordError, record_of, replay
from kardinal.rules.state import RuleError, State, new_game
from kardinal.rules.variants import JOKER_ANYWHERE, VariantError, parse_variants

V1 = Path(__file__).parent / "data" / "records-v1"
ANYWHERE = [JOKER_ANYWHERE]


def with_rules(s: State, variants: list[str]) -> State:
    """The same position under other rules (a game is created with its variants)."""
    return State(
        s.board,
        s.n,
        hands=s.hands,
        display=s.display,
        deck=s.deck,
        top=s.top,
        removed=s.removed,
        owner=s.owner,
        advisors=s.advisors,
        supply=list(zip(s.supply_cl, s.supply_adv)),
        seed=s.seed,
        variants=variants,
    )


def places_in(s: State, country: str) -> set[Place]:
    return {m for m in s.legal_moves() if isinstance(m, Place) and m.country == country}


def refused(s: State, move: Place, rule: str) -> None:
    before = s.key()
    with pytest.raises(RuleError) as e:
        s.play(move)
    assert e.value.rule == rule, str(e.value)
    assert s.key() == before


# -- the rulebook's examples of R4 ---------------------------------------------------


def test_r4_6_andreas_single_cloister_in_empty_franken() -> None:
    """Andreas: one Frankreich, two Franken/Aragon cards; Franken is empty: one piece, a cloister (R4.6)."""
    s = game(3, [["FR", "FA", "FA"], ["BB", "BB", "LI"], ["LI", "ES", "ES"]], ["LI", "BB"])
    franken = s.board.countries[s.board.country_index["franken"]]
    sites = [s.board.sites[i].id for i in franken.sites]
    default = places_in(s, "franken")
    # R4.3: the Franken/Aragon pair names Franken, so it is no joker there; one FA card, one cloister
    assert default == {Place("franken", (FA,), (site,), 0) for site in sites}
    refused(s, pl("FA", "franken", "advisor"), "R4.6")
    refused(s, pl("FA,FA", "franken", f"{sites[0]}+{sites[1]}"), "R4.6")  # two pieces in an empty country
    refused(s, pl("FA,FA", "franken", sites[0]), "R4.3")
    anywhere = places_in(with_rules(s, ANYWHERE), "franken")
    assert anywhere == default | {Place("franken", (FA, FA), (site,), 0) for site in sites}
    t = with_rules(s, ANYWHERE)
    t.play(pl("FA,FA", "franken", sites[0]))
    assert t.cloisters[t.board.country_index["franken"]][0] == 1


def test_r4_3_barbara_card_and_bayern_burgund_joker_in_franken() -> None:
    """Barbara (seat 0 here): Franken/Aragon for the first piece, the Bayern/Burgund pair as a joker
    for the second, in Franken where Andreas's cloister stands."""
    s = game(3, [["FA", "BB", "BB"], ["BB", "LI", "LI"], ["LI", "ES", "ES"]], ["LI", "FR"])
    put_cloisters(s, 1, ["mainz"])  # Andreas's cloister: Franken is no longer empty
    for rules in ([], ANYWHERE):
        t = with_rules(s, rules)
        legal = places_in(t, "franken")
        assert Place("franken", (BB, BB, FA), ("frankfurt", "speyer"), 0) in legal
        assert Place("franken", (BB, BB, FA), ("frankfurt",), 1) in legal
        t.play(pl("FA,BB,BB", "franken", "frankfurt+speyer"))
        assert t.cloisters[t.board.country_index["franken"]][0] == 2
    # the pair names Bayern and Burgund: as a joker it cannot place there (R4.3), under the variant it can
    assert not any(m.cards == (BB, BB) for m in places_in(s, "bayern") | places_in(s, "burgund"))
    refused(s, pl("BB,BB", "bayern", "passau"), "R4.3")
    assert Place("bayern", (BB, BB), ("passau",), 0) in places_in(with_rules(s, ANYWHERE), "bayern")


def test_r4_3_chris_three_frankreich_cards() -> None:
    """Chris: three Frankreich cards, pieces already in Frankreich: at most two cards are played,
    two pieces in Frankreich or one joker piece elsewhere (German rulebook)."""
    s = game(3, [["FR", "FR", "FR"], ["BB", "BB", "LI"], ["LI", "ES", "ES"]], ["LI", "BB"])
    put_cloisters(s, 1, ["paris"])
    put_cloisters(s, 2, ["mailand"])
    legal = s.legal_moves()
    fr = {m for m in legal if isinstance(m, Place) and m.country == "frankreich"}
    assert fr and all(m.cards == (FR, FR) and m.num_pieces == 2 or m.cards == (FR,) for m in fr)
    assert not any(isinstance(m, Place) and len(m.cards) == 3 for m in legal)
    assert Place("frankreich", (FR, FR), ("reims", "rouen"), 0) in fr
    assert Place("italien", (FR, FR), ("verona",), 0) in legal  # the joker elsewhere
    refused(s, pl("FR,FR,FR", "frankreich", "reims+rouen"), "R4.3")
    refused(s, pl("FR,FR", "frankreich", "reims"), "R4.3")
    # joker-anywhere: three cards for two pieces, and the pair as one piece, in Frankreich too
    t = with_rules(s, ANYWHERE)
    legal2 = t.legal_moves()
    assert Place("frankreich", (FR, FR, FR), ("reims", "rouen"), 0) in legal2
    assert Place("frankreich", (FR, FR), ("reims",), 0) in legal2
    assert set(legal) < set(legal2)
    t.play(pl("FR,FR,FR", "frankreich", "reims+rouen"))
    assert t.supply_cl[0] == 18 and t.hands[0][t.board.kind_index[FR]] == 0


def test_r4_8_andreas_advisors_with_an_england_schwaben_joker() -> None:
    """Andreas: one Frankreich card and two England/Schwaben as a joker: two advisors in Frankreich,
    where Barbara's four cloisters allow four advisors and two stand (R4.8); legal under both rule sets."""
    s = game(3, [["FR", "ES", "ES"], ["BB", "BB", "LI"], ["LI", "FA", "FA"]], ["LI", "BB"])
    put_cloisters(s, 1, ["paris", "reims", "rouen", "tours"])
    put_advisors(s, 2, "frankreich", 2)
    for rules in ([], ANYWHERE):
        t = with_rules(s, rules)
        t.play(pl("FR,ES,ES", "frankreich", "advisor+advisor"))
        assert t.advisors_total[t.board.country_index["frankreich"]] == 4


def test_legal_moves_and_check_agree_under_both_rule_sets() -> None:
    """Every listed placement passes check, and no other card set for the same pieces does (R4.2-R4.5)."""
    rng = random.Random(5)
    for g in range(30):
        for rules in ([], ANYWHERE):
            s = new_game(4, seed=g, variants=rules)
            for _ in range(rng.randrange(0, 60)):
                if s.is_over:
                    break
                s.play(rng.choice(s.legal_moves()))
            if s.is_over or s.phase != "main":
                continue
            legal = set(s.legal_moves())
            hand = s.hand_ids(s.current)
            for m in legal:
                s.check(m)
            # every card combination for each legal piece set: legal exactly when listed
            pieces = {(m.country, m.cloisters, m.advisors) for m in legal if isinstance(m, Place)}
            combos = {tuple(sorted(c)) for c in _subsets(hand)}
            for country, cl, adv in pieces:
                for cards in combos:
                    m = Place(country, cards, cl, adv)
                    try:
                        s.check(m)
                        ok = True
                    except RuleError:
                        ok = False
                    assert ok == (m in legal), (rules, m)


def _subsets(hand: list[str]) -> list[tuple[str, ...]]:
    out = []
    n = len(hand)
    for mask in range(1, 1 << n):
        out.append(tuple(hand[i] for i in range(n) if mask >> i & 1))
    return out


# -- variants as a property of a game ------------------------------------------------


def test_unknown_variant_is_a_clear_error() -> None:
    with pytest.raises(VariantError, match="known variants: joker-anywhere"):
        new_game(4, seed=1, variants=["jokers-everywhere"])
    with pytest.raises(VariantError):
        parse_variants("joker-anywhere")  # a string is not a list of names
    assert new_game(4, seed=1, variants=[JOKER_ANYWHERE, JOKER_ANYWHERE]).variants == (JOKER_ANYWHERE,)


def test_variants_are_public_and_in_the_record() -> None:
    from kardinal.rules.view import view

    s = new_game(3, seed=4, variants=ANYWHERE)
    assert view(s, 0)["variants"] == ANYWHERE and view(s, None)["variants"] == ANYWHERE
    rec = record_of(s)
    assert rec["version"] == 2 and rec["variants"] == ANYWHERE
    assert rec["board"] == "standard" and rec["board_digest"] == s.board.digest
    assert replay(rec).variants == (JOKER_ANYWHERE,)


# -- records: version 1 and version 2 ------------------------------------------------


@pytest.mark.parametrize("path", sorted(V1.glob("*.json")), ids=lambda p: p.name)
def test_version_1_records_replay_to_their_recorded_result(path: Path) -> None:
    """Records made before version 2 (by the code of that time) replay exactly: the earlier board, joker-anywhere."""
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["version"] == 1 and rec["board"] == "standard"
    s = replay(rec)
    assert s.board.id == "reconstruction-1" and s.variants == (JOKER_ANYWHERE,)
    assert s.is_over
    assert {"scores": s.scores, "winners": s.winners} == rec["result"]


def test_version_1_records_hold_jokers_in_their_own_country() -> None:
    """The golden records exercise the rule that changed: under the German rule they would be refused."""
    own = 0
    for path in sorted(V1.glob("*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        try:
            replay(rec | {"version": 2, "board": "reconstruction-1", "variants": []})
        except Exception as e:  # IllegalAction naming R4.3
            assert getattr(e, "rule", None) == "R4.3", str(e)
            own += 1
    assert own >= 10


def test_same_seed_same_game_on_the_earlier_rules() -> None:
    """Random self-play on reconstruction-1 with joker-anywhere makes exactly the games version 1 made."""
    old = get_board("reconstruction-1")
    for players in (3, 4, 5):
        for seed in (1, 2, 3):
            rec = json.loads((V1 / f"selfplay-{players}-{seed}.json").read_text(encoding="utf-8"))
            s = new_game(players, seed=seed, board=old, variants=ANYWHERE)
            rng = random.Random(seed)
            while not s.is_over:
                s.play_trusted(rng.choice(s.legal_moves()))
            new = record_of(s, rec["players"])
            assert {k: new[k] for k in ("deck", "actions", "result")} == {k: rec[k] for k in ("deck", "actions", "result")}
            assert new.get("reshuffle") == rec.get("reshuffle")


def test_a_custom_board_record_names_its_board_by_id_and_digest(tmp_path: Path) -> None:
    text = (Path(__file__).parent.parent / "kardinal" / "rules" / "data" / "standard.toml").read_text(encoding="utf-8")
    mine = text.replace('id = "standard"', 'id = "my-board"', 1)
    assert mine != text
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fa = tmp_path / "a" / "board.toml"
    fa.write_text(mine, encoding="utf-8")
    board = get_board(str(fa))
    s = new_game(4, seed=9, board=board)
    rng = random.Random(9)
    while not s.is_over:
        s.play(rng.choice(s.legal_moves()))
    rec = record_of(s)
    assert rec["board"] == "my-board" and rec["board_digest"] == board.digest
    assert str(tmp_path) not in json.dumps(rec)  # no file path in a record
    # from any folder, given the board file, it replays
    fb = tmp_path / "b" / "copy.toml"
    fb.write_text("# a copy, with a comment\n" + mine, encoding="utf-8")
    assert replay(rec, get_board(str(fb))).scores == s.scores
    with pytest.raises(RecordError, match="not installed"):
        replay(rec)
    # a different board file under the same id is refused
    changed = mine.replace('["york", "lincoln"],', "", 1)
    assert changed != mine
    fc = tmp_path / "b" / "changed.toml"
    fc.write_text(changed, encoding="utf-8")
    with pytest.raises(RecordError, match="different version of the board"):
        replay(rec, get_board(str(fc)))
    with pytest.raises(RecordError, match="made on the board 'my-board', not on 'standard'"):
        replay(rec, get_board("standard"))


# -- the command line ----------------------------------------------------------------


runner = CliRunner()


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("rules", [[], ANYWHERE], ids=["as-written", "joker-anywhere"])
def test_selfplay_record_replay_round_trip(tmp_path: Path, players: int, rules: list[str]) -> None:
    out = tmp_path / "game.json"
    flags = [x for v in rules for x in ("--variant", v)]
    r = runner.invoke(app, ["selfplay", "--players", str(players), "--seed", "11", "--record", str(out), *flags])
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text(encoding="utf-8"))
    assert rec["version"] == 2 and rec["variants"] == rules
    r2 = runner.invoke(app, ["replay", str(out), "--json"])
    assert r2.exit_code == 0, r2.output
    assert json.loads(r2.output)["scores"] == rec["result"]["scores"]


def test_cli_unknown_variant_names_the_known_ones() -> None:
    for cmd in (["selfplay"], ["tournament", "--games", "4"], ["play", "--bot", "random", "--players", "3"]):
        r = runner.invoke(app, [*cmd, "--variant", "nope"])
        assert r.exit_code == 2
        assert "unknown rule variant 'nope'" in r.output and "joker-anywhere" in r.output


def test_a_joker_in_its_own_country_is_refused_by_default_and_accepted_under_the_variant(tmp_path: Path) -> None:
    """From the command line: a record whose joker places in its own country (R4.3)."""
    # seat 1 places in Frankreich first, so that it is not empty (R4.6)
    t = game(3, [["FR", "FR", "LI"], ["FR", "BB", "LI"], ["LI", "ES", "ES"]], ["LI", "BB"])
    t.play(pl("LI", "italien", "verona"))
    while t.current == 0:
        t.play(t.legal_moves()[-1])
    t.play(pl("FR", "frankreich", "paris"))
    while t.current == 1:
        t.play(t.legal_moves()[-1])
    t.play(pl("LI", "italien", "venedig"))
    while t.current == 2:
        t.play(t.legal_moves()[-1])
    assert t.current == 0
    hand = t.hand_ids(0)
    assert hand.count(FR) >= 2, hand
    rec = record_of(t)
    rec["actions"].append(
        {"seat": 0, "act": "place", "country": "frankreich", "cards": [FR, FR], "pieces": [{"type": "cloister", "site": "reims"}]}
    )
    f = tmp_path / "joker.json"
    f.write_text(json.dumps(rec), encoding="utf-8")
    r = runner.invoke(app, ["replay", str(f)])
    assert r.exit_code == 1 and "R4.3" in r.output, r.output
    f.write_text(json.dumps(rec | {"variants": ANYWHERE}), encoding="utf-8")
    r = runner.invoke(app, ["replay", str(f)])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "players, bots, seed",
    [(3, "greedy,easy,random", 8), (4, "greedy,greedy,easy,random", 7), (5, "greedy,greedy,easy,random,random", 9)],
)
def test_bots_play_the_same_games_on_the_earlier_rules(players: int, bots: str, seed: int) -> None:
    """Tournament games recorded by version 1 (`kardinal tournament --records`): the same bots,
    seeds and seats on reconstruction-1 with joker-anywhere make the same decisions."""
    from kardinal.bots.tournament import play_game

    old = get_board("reconstruction-1")
    for path in sorted(V1.glob(f"tournament-{players}-game-*.json"))[:2]:
        rec = json.loads(path.read_text(encoding="utf-8"))
        game_no = int(path.stem.rsplit("-", 1)[1]) - 1
        res = play_game(bots.split(","), players, game_no, seed, old, keep_record=True, variants=ANYWHERE)
        assert res.record is not None
        assert res.record["actions"] == rec["actions"] and res.record["deck"] == rec["deck"]
        assert res.record["result"] == rec["result"]


def test_research_interfaces_take_the_variants_as_a_game_parameter() -> None:
    """python_kardinal and kardinal_v0 (R14): the rules as written by default, variants by parameter."""
    import pyspiel

    from kardinal.research.openspiel_game import load
    from kardinal.research.pettingzoo_env import env

    g = load(4)
    assert g.get_parameters()["variants"] == "" and g.get_parameters()["board"] == "standard"
    v = load(4, variants=[JOKER_ANYWHERE])
    assert v.get_parameters()["variants"] == JOKER_ANYWHERE
    st = v.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    assert st._d.core.variants == (JOKER_ANYWHERE,)
    assert g.new_initial_state()._d.core.variants == ()
    with pytest.raises((ValueError, pyspiel.SpielError)):
        pyspiel.load_game("python_kardinal", {"players": 4, "variants": "nope"})
    old = load(4, board="reconstruction-1")
    assert old.num_distinct_actions() < g.num_distinct_actions()
    e = env(players=3, variants=[JOKER_ANYWHERE])
    e.reset(seed=3)
    assert e.unwrapped.state.variants == (JOKER_ANYWHERE,)
    with pytest.raises(VariantError):
        env(players=3, variants=["nope"])
