"""The board as data (BOARD.md, R1.1, R1.2, R2.1): the standard board's known facts, and
validation of board files (errors name the key)."""

from __future__ import annotations

import copy
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from kardinal.rules.board import BoardError, get_board, load_board, parse_board, standard_board

B = standard_board()


def std_data() -> dict[str, Any]:
    text = resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def test_nine_countries_in_conventional_order() -> None:
    """R9.1: England, Franken, Bayern, Italien, Aragon, then Frankreich, Lothringen, Schwaben, Burgund."""
    assert [c.id for c in B.countries] == [
        "england",
        "franken",
        "bayern",
        "italien",
        "aragon",
        "frankreich",
        "lothringen",
        "schwaben",
        "burgund",
    ]
    assert [c.ring for c in B.countries] == ["outer"] * 5 + ["inner"] * 4


def test_site_counts_and_known_facts() -> None:
    counts = {c.id: len(c.sites) for c in B.countries}
    assert counts == {
        "england": 5,
        "franken": 7,
        "bayern": 6,
        "italien": 6,
        "aragon": 5,
        "frankreich": 8,  # known (two reviews)
        "lothringen": 4,
        "schwaben": 4,  # known
        "burgund": 5,
    }
    assert len(B.sites) == 50
    assert len({s.id for s in B.sites}) == 50


def test_roads_61_and_england_is_an_island() -> None:
    assert len(B.roads) == 61
    border = [(a, b) for a, b in B.roads if B.sites[a].country != B.sites[b].country]
    assert len(border) == 13
    eng = B.country_index["england"]
    assert all(B.sites[a].country != eng and B.sites[b].country != eng for a, b in border)
    # neighbours are symmetric
    for a, nbs in enumerate(B.neighbours):
        for b in nbs:
            assert a in B.neighbours[b]


def test_alliances_R10_1() -> None:
    assert [al.number for al in B.alliances] == list(range(1, 16))
    pairs = {al.number: {B.countries[c].id for c in al.countries} for al in B.alliances}
    assert pairs[14] == {"italien", "burgund"}
    assert pairs[15] == {"italien", "bayern"}
    assert [al.number for al in B.alliances if al.across == "sea"] == [1, 2, 3, 5, 6, 15]
    allied = {frozenset(p) for p in pairs.values()}
    for a, b in (("franken", "schwaben"), ("schwaben", "italien"), ("lothringen", "burgund")):
        assert frozenset((a, b)) not in allied


def test_cards_R1_1_and_removed_R2_1() -> None:
    assert [(k.id, k.short, k.count) for k in B.cards] == [
        ("franken-aragon", "FA", 13),
        ("bayern-burgund", "BB", 12),
        ("lothringen-italien", "LI", 11),
        ("england-schwaben", "ES", 10),
        ("frankreich", "FR", 9),
    ]
    assert B.total_cards == 55
    names = {k.id: {B.countries[c].id for c in k.countries} for k in B.cards}
    assert names["frankreich"] == {"frankreich"}
    assert names["england-schwaben"] == {"england", "schwaben"}
    assert B.removed_per_kind == {3: 2, 4: 1, 5: 0}
    assert (B.supply_cloisters, B.supply_advisors) == (20, 8)  # R1.2


def test_every_country_named_by_a_card_kind() -> None:
    for c in B.countries:
        assert B.kinds_naming[c.index], c.id
    assert len(B.kinds_naming[B.country_index["frankreich"]]) == 1


def test_rulebook_chain_example_roads_exist() -> None:
    """BOARD.md: genf-turin-mailand-verona-venedig in a row, brixen off verona."""
    for a, b in (("genf", "turin"), ("turin", "mailand"), ("mailand", "verona"), ("verona", "venedig"), ("brixen", "verona")):
        assert B.site_index[b] in B.neighbours[B.site_index[a]]


def test_board_says_it_is_a_reconstruction() -> None:
    assert B.reconstruction is True
    assert "reconstruction" in B.about.lower()
    assert "reconstruction" in B.describe().lower()


def test_lookup_by_id_and_short_code() -> None:
    assert B.kind("FA") == B.kind("franken-aragon") == B.kind("fa") == 0
    assert B.country("Italien") == B.country_index["italien"]
    assert B.site("Verona") == B.site_index["verona"]
    with pytest.raises(KeyError):
        B.kind("XX")


def test_get_board() -> None:
    assert get_board(None) is B and get_board("standard") is B


def test_standard_file_round_trips_through_load_board(tmp_path: Path) -> None:
    text = resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")
    p = tmp_path / "copy.toml"
    p.write_text(text, encoding="utf-8")
    b = load_board(p)
    assert [s.id for s in b.sites] == [s.id for s in B.sites]
    assert b.roads == B.roads and b.source == str(p)


# -- validation -------------------------------------------------------------------------------


def broken(edit: Any) -> dict[str, Any]:
    d = copy.deepcopy(std_data())
    edit(d)
    return d


CASES: list[tuple[str, Any, str]] = [
    ("format", lambda d: d.update(format="chess"), "'format'"),
    ("version", lambda d: d.update(version=9), "'version'"),
    ("no name", lambda d: d.pop("name"), "'name'"),
    ("duplicate country", lambda d: d["countries"].append(dict(d["countries"][0])), "duplicate country id 'england'"),
    ("duplicate site", lambda d: d["sites"].append(dict(d["sites"][0])), "duplicate id 'york'"),
    ("site named like a country", lambda d: d["sites"][0].update(id="italien"), "duplicate id 'italien'"),
    ("site in unknown country", lambda d: d["sites"][0].update(country="atlantis"), "sites[0].country: unknown country 'atlantis'"),
    ("site lat type", lambda d: d["sites"][0].update(lat="north"), "sites[0].lat"),
    ("road to missing site", lambda d: d["roads"].append(["york", "avalon"]), "unknown site 'avalon'"),
    ("road to itself", lambda d: d["roads"].append(["york", "york"]), "to itself"),
    ("duplicate road", lambda d: d["roads"].append(["lincoln", "york"]), "duplicate road"),
    ("road shape", lambda d: d["roads"].append(["york"]), "roads[61]"),
    ("alliance missing country", lambda d: d["alliances"][0].update(countries=["england", "narnia"]), "unknown country 'narnia'"),
    ("alliance same country", lambda d: d["alliances"][0].update(countries=["england", "england"]), "alliances[0].countries"),
    ("alliance duplicate number", lambda d: d["alliances"][1].update(number=1), "duplicate alliance number 1"),
    ("alliance across", lambda d: d["alliances"][0].update(across="air"), "alliances[0].across"),
    (
        "card unknown country",
        lambda d: d["cards"][0].update(countries=["franken", "mordor"]),
        "cards[0].countries: unknown country 'mordor'",
    ),
    ("card duplicate id", lambda d: d["cards"][1].update(id="franken-aragon"), "duplicate card kind"),
    ("card duplicate short", lambda d: d["cards"][1].update(short="fa"), "duplicate short code"),
    ("card count", lambda d: d["cards"][0].update(count=0), "cards[0].count"),
    ("country without sites", lambda d: d["countries"].append({"id": "thule", "name_de": "T", "name_en": "T", "ring": "outer"}), "'thule'"),
    ("no card names a country", lambda d: d["cards"].pop(4), "'frankreich'"),
    ("supply", lambda d: d.pop("supply"), "'supply'"),
    ("supply type", lambda d: d["supply"].update(cloisters="many"), "supply.cloisters"),
    ("removed", lambda d: d["removed_per_kind"].update({"6": 9}), "removed_per_kind.6"),
    ("countries missing", lambda d: d.pop("countries"), "'countries'"),
]


@pytest.mark.parametrize("label, edit, words", CASES, ids=[c[0] for c in CASES])
def test_board_validation_names_the_key(label: str, edit: Any, words: str) -> None:
    with pytest.raises(BoardError) as e:
        parse_board(broken(edit))
    assert words in str(e.value), f"{label}: {e.value}"


def test_load_board_errors(tmp_path: Path) -> None:
    with pytest.raises(BoardError, match="cannot read"):
        load_board(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml", encoding="utf-8")
    with pytest.raises(BoardError, match="not a valid TOML"):
        load_board(bad)
    text = resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")
    p = tmp_path / "broken.toml"
    p.write_text(text.replace('["brixen", "verona"]', '["brixen", "rom"]'), encoding="utf-8")
    with pytest.raises(BoardError) as e:
        load_board(p)
    assert "unknown site 'rom'" in str(e.value) and str(p) in str(e.value)
