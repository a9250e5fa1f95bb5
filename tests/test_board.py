"""The board as data (docs/board.md, R1.1, R1.2, R2.1): the standard board's known facts,
the earlier board reconstruction-1 kept as it was, board ids and content digests, and
validation of board files (errors name the key)."""

from __future__ import annotations

import copy
import re
import tomllib
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from kardinal.rules.board import Board, BoardError, board_digest, get_board, installed_boards, load_board, parse_board, standard_board

B = standard_board()
R1 = get_board("reconstruction-1")

# the content digests of the shipped boards: a change to a shipped board file changes its
# digest, and records made on it would no longer replay (a changed board needs a new id)
STANDARD_DIGEST = "sha256:84192093b26a4f69a64f20b0e1bb10fd4860de509211c98fd34e7550cf3d0882"
R1_DIGEST = "sha256:bfd49569689bfe2d03a6f8b2dce738f501bebe5c91fd9e1429df5b5c707df412"


def std_text() -> str:
    return resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")


def r1_text() -> str:
    return resources.files("kardinal.rules").joinpath("data/reconstruction-1.toml").read_text(encoding="utf-8")


def std_data() -> dict[str, Any]:
    return tomllib.loads(std_text())


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
    """The counted board (docs/board.md): sites per country as counted off the printed board.
    Updated for the counted board (Lothringen 5, 51 sites); values checked by hand against
    the table of the board description."""
    counts = {c.id: len(c.sites) for c in B.countries}
    assert counts == {
        "england": 5,
        "franken": 7,
        "bayern": 6,
        "italien": 6,
        "aragon": 5,
        "frankreich": 8,  # known (two reviews)
        "lothringen": 5,  # counted; the fifth site is Verdun
        "schwaben": 4,  # known
        "burgund": 5,
    }
    assert len(B.sites) == 51
    assert len({s.id for s in B.sites}) == 51
    lo = B.countries[B.country_index["lothringen"]]
    assert [B.sites[i].id for i in lo.sites] == ["aachen", "koeln", "trier", "metz", "verdun"]
    verdun = B.sites[B.site_index["verdun"]]
    assert (verdun.name, verdun.lat, verdun.lon) == ("Verdun", 49.16, 5.38)


def road_ids(b: Board) -> set[frozenset[str]]:
    return {frozenset((b.sites[x].id, b.sites[y].id)) for x, y in b.roads}


def test_roads_62_and_england_is_an_island() -> None:
    """Updated for the counted board: 62 roads (49 inside countries, 13 across borders);
    reims-metz became reims-verdun and verdun-metz (checked by hand)."""
    assert len(B.roads) == 62
    border = [(a, b) for a, b in B.roads if B.sites[a].country != B.sites[b].country]
    assert len(border) == 13
    eng = B.country_index["england"]
    assert all(B.sites[a].country != eng and B.sites[b].country != eng for a, b in border)
    assert road_ids(B) - road_ids(R1) == {frozenset(("reims", "verdun")), frozenset(("verdun", "metz"))}
    assert road_ids(R1) - road_ids(B) == {frozenset(("reims", "metz"))}
    # neighbours are symmetric
    for a, nbs in enumerate(B.neighbours):
        for b in nbs:
            assert a in B.neighbours[b]


ALLIANCES = [  # the table "Alliances (15, scored in this order)" of the board description
    (1, "england", "franken", "sea"),
    (2, "england", "lothringen", "sea"),
    (3, "england", "frankreich", "sea"),
    (4, "frankreich", "lothringen", "land"),
    (5, "aragon", "burgund", "sea"),
    (6, "aragon", "italien", "sea"),
    (7, "frankreich", "aragon", "land"),
    (8, "frankreich", "burgund", "land"),
    (9, "lothringen", "franken", "land"),
    (10, "frankreich", "schwaben", "land"),
    (11, "franken", "bayern", "land"),
    (12, "schwaben", "bayern", "land"),
    (13, "schwaben", "italien", "land"),
    (14, "italien", "burgund", "land"),
    (15, "italien", "bayern", "sea"),
]


def alliance_table(b: Board) -> list[tuple[int, str, str, str]]:
    return [(al.number, b.countries[al.countries[0]].id, b.countries[al.countries[1]].id, al.across) for al in b.alliances]


def test_alliances_R10_1() -> None:
    """Updated for the counted board's alliance set (5 aragon-burgund, 10 frankreich-schwaben,
    13 schwaben-italien); the pairs without an alliance are those of the board description."""
    assert [al.number for al in B.alliances] == list(range(1, 16))
    assert alliance_table(B) == ALLIANCES
    pairs = {al.number: {B.countries[c].id for c in al.countries} for al in B.alliances}
    assert pairs[14] == {"italien", "burgund"}
    assert pairs[15] == {"italien", "bayern"}
    assert [al.number for al in B.alliances if al.across == "sea"] == [1, 2, 3, 5, 6, 15]
    allied = {frozenset(p) for p in pairs.values()}
    assert len(allied) == 15
    for a, b in (("franken", "schwaben"), ("lothringen", "schwaben"), ("lothringen", "burgund"), ("burgund", "schwaben")):
        assert frozenset((a, b)) not in allied


def test_alliances_per_country_as_counted() -> None:
    """Alliances per country as counted off the printed board: 30 ends of 15 alliances."""
    per = Counter(B.countries[c].id for al in B.alliances for c in al.countries)
    assert per == {
        "england": 3,
        "franken": 3,
        "bayern": 3,
        "italien": 4,
        "aragon": 3,
        "frankreich": 5,
        "lothringen": 3,
        "schwaben": 3,
        "burgund": 3,
    }
    # England is an island: all its alliances are drawn across the sea; Aragon's too, but for Frankreich
    eng = B.country_index["england"]
    assert all(al.across == "sea" for al in B.alliances if eng in al.countries)
    ara = B.country_index["aragon"]
    assert [al.number for al in B.alliances if ara in al.countries and al.across == "land"] == [7]


def test_the_board_description_tables_match_the_standard_board() -> None:
    """Every site row (id, country, name, lat, lon), in the order of the description."""
    rows = [
        ("york", "england", "York", 53.96, -1.08),
        ("lincoln", "england", "Lincoln", 53.23, -0.54),
        ("london", "england", "London", 51.51, -0.13),
        ("canterbury", "england", "Canterbury", 51.28, 1.08),
        ("winchester", "england", "Winchester", 51.06, -1.31),
        ("rouen", "frankreich", "Rouen", 49.44, 1.10),
        ("paris", "frankreich", "Paris", 48.86, 2.35),
        ("reims", "frankreich", "Reims", 49.26, 4.03),
        ("orleans", "frankreich", "Orléans", 47.90, 1.91),
        ("tours", "frankreich", "Tours", 47.39, 0.69),
        ("bourges", "frankreich", "Bourges", 47.08, 2.40),
        ("limoges", "frankreich", "Limoges", 45.83, 1.26),
        ("toulouse", "frankreich", "Toulouse", 43.60, 1.44),
        ("jaca", "aragon", "Jaca", 42.57, -0.55),
        ("huesca", "aragon", "Huesca", 42.14, -0.41),
        ("zaragoza", "aragon", "Zaragoza", 41.65, -0.88),
        ("lleida", "aragon", "Lleida", 41.62, 0.62),
        ("barcelona", "aragon", "Barcelona", 41.39, 2.17),
        ("aachen", "lothringen", "Aachen", 50.78, 6.08),
        ("koeln", "lothringen", "Köln", 50.94, 6.96),
        ("trier", "lothringen", "Trier", 49.75, 6.64),
        ("metz", "lothringen", "Metz", 49.12, 6.18),
        ("verdun", "lothringen", "Verdun", 49.16, 5.38),
        ("mainz", "franken", "Mainz", 50.00, 8.27),
        ("frankfurt", "franken", "Frankfurt", 50.11, 8.68),
        ("speyer", "franken", "Speyer", 49.32, 8.43),
        ("fulda", "franken", "Fulda", 50.55, 9.68),
        ("wuerzburg", "franken", "Würzburg", 49.79, 9.95),
        ("bamberg", "franken", "Bamberg", 49.89, 10.89),
        ("nuernberg", "franken", "Nürnberg", 49.45, 11.08),
        ("strassburg", "schwaben", "Straßburg", 48.58, 7.75),
        ("ulm", "schwaben", "Ulm", 48.40, 9.99),
        ("konstanz", "schwaben", "Konstanz", 47.66, 9.18),
        ("zuerich", "schwaben", "Zürich", 47.37, 8.54),
        ("regensburg", "bayern", "Regensburg", 49.01, 12.10),
        ("passau", "bayern", "Passau", 48.57, 13.43),
        ("freising", "bayern", "Freising", 48.40, 11.75),
        ("salzburg", "bayern", "Salzburg", 47.81, 13.04),
        ("wien", "bayern", "Wien", 48.21, 16.37),
        ("brixen", "bayern", "Brixen", 46.72, 11.66),
        ("besancon", "burgund", "Besançon", 47.24, 6.02),
        ("cluny", "burgund", "Cluny", 46.43, 4.66),
        ("genf", "burgund", "Genf", 46.20, 6.14),
        ("lyon", "burgund", "Lyon", 45.76, 4.84),
        ("arles", "burgund", "Arles", 43.68, 4.63),
        ("turin", "italien", "Turin", 45.07, 7.69),
        ("mailand", "italien", "Mailand", 45.46, 9.19),
        ("pavia", "italien", "Pavia", 45.19, 9.16),
        ("genua", "italien", "Genua", 44.41, 8.93),
        ("verona", "italien", "Verona", 45.44, 10.99),
        ("venedig", "italien", "Venedig", 45.44, 12.32),
    ]
    assert [(s.id, B.countries[s.country].id, s.name, s.lat, s.lon) for s in B.sites] == rows
    inside = (
        "york-lincoln lincoln-london london-canterbury london-winchester winchester-canterbury "
        "rouen-paris paris-reims paris-orleans orleans-tours orleans-bourges tours-limoges bourges-limoges limoges-toulouse "
        "jaca-huesca huesca-zaragoza huesca-lleida zaragoza-lleida lleida-barcelona "
        "aachen-koeln aachen-trier koeln-trier trier-metz verdun-metz "
        "mainz-frankfurt mainz-speyer frankfurt-fulda frankfurt-wuerzburg fulda-bamberg wuerzburg-bamberg bamberg-nuernberg "
        "strassburg-ulm ulm-konstanz konstanz-zuerich "
        "regensburg-passau passau-wien regensburg-freising freising-salzburg salzburg-passau freising-brixen "
        "besancon-genf besancon-cluny cluny-lyon lyon-genf lyon-arles "
        "turin-mailand mailand-pavia pavia-genua mailand-verona verona-venedig"
    ).split()
    across = (
        "reims-verdun bourges-cluny toulouse-jaca koeln-mainz metz-strassburg metz-besancon speyer-strassburg "
        "nuernberg-regensburg ulm-freising zuerich-genf konstanz-mailand genf-turin brixen-verona"
    ).split()
    assert (len(inside), len(across)) == (49, 13)
    assert [f"{B.sites[a].id}-{B.sites[b].id}" for a, b in B.roads] == inside + across
    for road in inside:
        a, b = (B.sites[B.site_index[x]] for x in road.split("-"))
        assert a.country == b.country, road
    for road in across:
        a, b = (B.sites[B.site_index[x]] for x in road.split("-"))
        assert a.country != b.country, road


# -- reconstruction-1: the earlier board, kept as it was -------------------------------------


def test_reconstruction_1_is_the_earlier_board_unchanged() -> None:
    """The board of version-1 records: 50 sites (Lothringen 4), 61 roads, the earlier alliances.
    Pinned by its digest: any change to its file would break the replay of old records."""
    assert R1.id == "reconstruction-1" and R1.digest == R1_DIGEST
    counts = {c.id: len(c.sites) for c in R1.countries}
    assert counts == {
        "england": 5,
        "franken": 7,
        "bayern": 6,
        "italien": 6,
        "aragon": 5,
        "frankreich": 8,
        "lothringen": 4,
        "schwaben": 4,
        "burgund": 5,
    }
    assert len(R1.sites) == 50 and "verdun" not in R1.site_index
    assert len(R1.roads) == 61
    border = [(a, b) for a, b in R1.roads if R1.sites[a].country != R1.sites[b].country]
    assert len(border) == 13
    pairs = {al.number: {R1.countries[c].id for c in al.countries} for al in R1.alliances}
    assert (pairs[5], pairs[10], pairs[13]) == ({"england", "aragon"}, {"lothringen", "schwaben"}, {"schwaben", "burgund"})
    assert pairs[14] == {"italien", "burgund"} and pairs[15] == {"italien", "bayern"}
    assert [al.number for al in R1.alliances if al.across == "sea"] == [1, 2, 3, 5, 6, 15]
    allied = {frozenset(p) for p in pairs.values()}
    for a, b in (("franken", "schwaben"), ("schwaben", "italien"), ("lothringen", "burgund")):
        assert frozenset((a, b)) not in allied
    # everything but the board's own id, name and about text is the same as the standard board had
    assert [(k.id, k.short, k.countries, k.count) for k in R1.cards] == [(k.id, k.short, k.countries, k.count) for k in B.cards]
    assert (R1.supply_cloisters, R1.supply_advisors, R1.removed_per_kind) == (20, 8, {3: 2, 4: 1, 5: 0})
    assert "earlier reconstruction" in R1.about and R1.reconstruction


def test_standard_digest_is_pinned() -> None:
    """A change to the standard board file changes its digest: records made on it would no
    longer replay. Give a changed board a new id instead (and keep this file)."""
    assert B.id == "standard" and B.name == "standard" and B.digest == STANDARD_DIGEST


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
    assert "docs/board.md" in B.describe() and "BOARD.md" not in B.describe().replace("docs/board.md", "")
    assert B.digest in B.describe() and R1.digest in R1.describe()


def test_lookup_by_id_and_short_code() -> None:
    assert B.kind("FA") == B.kind("franken-aragon") == B.kind("fa") == 0
    assert B.country("Italien") == B.country_index["italien"]
    assert B.site("Verona") == B.site_index["verona"]
    with pytest.raises(KeyError):
        B.kind("XX")


def test_get_board() -> None:
    assert get_board(None) is B and get_board("standard") is B and get_board("") is B


# -- ids, installed boards, digests ----------------------------------------------------------


def test_installed_boards_by_id() -> None:
    boards = installed_boards()
    assert list(boards) == ["standard", "reconstruction-1"]
    assert boards["standard"]() is B and boards["reconstruction-1"]() is R1
    # loaded once per id
    assert get_board("reconstruction-1") is R1 is installed_boards()["reconstruction-1"]()
    assert get_board("standard") is standard_board() is B
    assert R1 is not B and R1.digest != B.digest
    assert (B.id, R1.id) == ("standard", "reconstruction-1")


def test_get_board_by_path(tmp_path: Path) -> None:
    p = tmp_path / "mine.toml"
    p.write_text(std_text().replace('id = "standard"', 'id = "mine"', 1), encoding="utf-8")
    b = get_board(str(p))
    assert b.id == "mine" and b.source == str(p) and len(b.sites) == 51
    assert get_board(p).id == "mine"  # a Path too
    with pytest.raises(BoardError, match="cannot read"):
        get_board("reconstruction-2")  # not installed: a file name, and no such file


def test_digest_is_of_the_content_not_of_the_bytes(tmp_path: Path) -> None:
    text = std_text()
    a = tmp_path / "a.toml"
    a.write_text(text, encoding="utf-8")
    # comments, blank lines, indentation, quoting style and the order of keys in a table do not matter
    b = tmp_path / "b.toml"
    other = "# my own copy\n\n" + text.replace("  [", "    [").replace('id = "standard"', "id = 'standard'   # the id\n")
    other = other.replace("cloisters = 20\nadvisors = 8", "advisors = 8\ncloisters = 20")
    assert other != text
    b.write_text(other, encoding="utf-8")
    assert load_board(a).digest == load_board(b).digest == B.digest
    assert board_digest(std_data()) == B.digest
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", B.digest)


def test_digest_changes_with_any_value() -> None:
    def changed(edit: Any) -> str:
        d = copy.deepcopy(std_data())
        edit(d)
        d["id"] = "changed"
        return parse_board(d).digest

    base = changed(lambda d: None)
    assert base != B.digest  # the id is part of the content
    assert changed(lambda d: d["roads"].pop()) != base  # a road fewer
    assert changed(lambda d: d["roads"][0].reverse()) != base  # a road written the other way round
    assert changed(lambda d: d["roads"].append(["york", "london"])) != base
    assert changed(lambda d: d["sites"][0].update(lat=53.97)) != base
    assert changed(lambda d: d["alliances"][4].update(across="land")) != base
    assert changed(lambda d: d.update(about="")) != base
    assert changed(lambda d: d["sites"].reverse()) != base  # file order is board order


def test_missing_id_is_refused(tmp_path: Path) -> None:
    d = std_data()
    del d["id"]
    with pytest.raises(BoardError, match="missing key 'id'"):
        parse_board(d)
    p = tmp_path / "old.toml"
    p.write_text(std_text().replace('id = "standard"\n', "", 1), encoding="utf-8")
    with pytest.raises(BoardError) as e:
        load_board(p)
    assert "missing key 'id'" in str(e.value) and str(p) in str(e.value)


@pytest.mark.parametrize("bad", ["", "Standard", "my board", "-x", ".hidden", "a/b", "ü", 7])
def test_board_id_characters(bad: object) -> None:
    d = std_data()
    d["id"] = bad
    with pytest.raises(BoardError, match="'id'|board.id"):
        parse_board(d)


@pytest.mark.parametrize("good", ["standard", "my-board", "printed_2000", "v1.2", "0"])
def test_board_id_allowed(good: str) -> None:
    d = std_data()
    d["id"] = good
    assert parse_board(d).id == good


@pytest.mark.parametrize("installed", ["standard", "reconstruction-1"])
def test_an_installed_id_with_other_content_is_refused(installed: str, tmp_path: Path) -> None:
    """Two boards under one id would make the records that name it ambiguous."""
    text = std_text().replace('id = "standard"', f'id = "{installed}"', 1)
    text = text.replace('  ["york", "lincoln"],\n', "", 1)  # one road fewer
    p = tmp_path / "same-id.toml"
    p.write_text(text, encoding="utf-8")
    for load in (load_board, get_board):
        with pytest.raises(BoardError) as e:
            load(p)
        msg = str(e.value)
        assert f"the id {installed!r} belongs to an installed board" in msg and "own id" in msg and str(p) in msg


def test_an_installed_id_with_the_same_content_is_accepted(tmp_path: Path) -> None:
    p = tmp_path / "copy.toml"
    p.write_text("# a copy\n" + r1_text(), encoding="utf-8")
    b = load_board(p)
    assert b.id == "reconstruction-1" and b.digest == R1.digest


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
    ("no id", lambda d: d.pop("id"), "missing key 'id'"),
    ("id type", lambda d: d.update(id=3), "board.id"),
    ("id characters", lambda d: d.update(id="My Board"), "'id': 'My Board' is not a board id"),
    ("duplicate country", lambda d: d["countries"].append(dict(d["countries"][0])), "duplicate country id 'england'"),
    ("duplicate site", lambda d: d["sites"].append(dict(d["sites"][0])), "duplicate id 'york'"),
    ("site named like a country", lambda d: d["sites"][0].update(id="italien"), "duplicate id 'italien'"),
    ("site in unknown country", lambda d: d["sites"][0].update(country="atlantis"), "sites[0].country: unknown country 'atlantis'"),
    ("site lat type", lambda d: d["sites"][0].update(lat="north"), "sites[0].lat"),
    ("road to missing site", lambda d: d["roads"].append(["york", "avalon"]), "unknown site 'avalon'"),
    ("road to itself", lambda d: d["roads"].append(["york", "york"]), "to itself"),
    ("duplicate road", lambda d: d["roads"].append(["lincoln", "york"]), "duplicate road"),
    ("road shape", lambda d: d["roads"].append(["york"]), "roads[62]"),  # the standard board has 62 roads
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


@pytest.mark.parametrize("board_id, sites", [("standard", 51), ("reconstruction-1", 50)])
def test_web_map_layout_of_the_installed_boards(board_id: str, sites: int) -> None:
    """The browser's map is computed from the board data: every site inside the map with a cell
    of land, every coat and alliance marker inside it, no two markers on top of each other."""
    pytest.importorskip("fastapi")
    from kardinal.server.web.mapdata import board_json

    b = board_json(get_board(board_id))
    assert len(b["sites"]) == sites and len(b["alliances"]) == 15
    inside = lambda xy: 0 < xy[0] < b["width"] and 0 < xy[1] < b["height"]  # noqa: E731
    for s in b["sites"]:
        assert inside(s["xy"]) and len(s["cell"]) >= 3, s["id"]
    assert all(inside(c["coat"]) for c in b["countries"])
    marks = [a["xy"] for a in b["alliances"]]
    assert all(inside(m) for m in marks)
    assert all(abs(p[0] - q[0]) + abs(p[1] - q[1]) > 10 for i, p in enumerate(marks) for q in marks[i + 1 :])
