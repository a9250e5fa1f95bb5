"""Every refusal reaches the page as a code with parameters, and the page has words for
every code in every language (the catalogs, kardinal/locale/<lang>.po: messages ``err.<code>``
and ``rule.<code>``, said by static/refusals.js): a code added to the rules or the server
without its words fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kardinal.rules.state as state
import kardinal.server as server
from kardinal.server.common import catalog


def _texts(lang: str) -> dict[str, str]:
    """The refusals' words of a language's catalog (a text with plural forms read as one)."""
    found = catalog.read_catalog(catalog.LOCALE_DIR / f"{lang}.po").texts
    return {k: v if isinstance(v, str) else " / ".join(v.values()) for k, v in found.items() if k.startswith(("err.", "rule."))}


def _rule_codes() -> set[str]:
    src = Path(state.__file__).with_name("state.py").read_text(encoding="utf-8")  # the source, also when compiled
    return set(re.findall(r'RuleError\(\s*(?:"[^"]*"|[a-z_.]+|"R[^"]*" if [^,]+ else \w+),\s*"([a-z_]+)"', src))


def _server_codes() -> set[str]:
    codes: set[str] = set()
    for f in (Path(server.__file__).parent).glob("**/*.py"):
        codes |= set(re.findall(r'Refused\(\s*"([a-z_]+)"', f.read_text(encoding="utf-8")))
    return codes


def test_the_code_lists_are_read() -> None:
    # the patterns find the codes (a pattern gone stale would make the next test pass vacuously)
    assert {"joker_own_country", "advisor_limit", "site_taken", "must_draw", "deck_empty"} <= _rule_codes()
    assert {"bad_token", "not_your_turn", "stale_version", "malformed", "no_game"} <= _server_codes()


@pytest.mark.parametrize("lang", catalog.langs())
def test_every_refusal_has_words_in_every_language(lang: str) -> None:
    texts = _texts(lang)
    missing = {f"rule.{c}" for c in _rule_codes()} | {f"err.{c}" for c in _server_codes() - {"illegal"}}
    assert missing - texts.keys() == set(), lang


@pytest.mark.parametrize("lang", [lang for lang in catalog.langs() if lang != "en"])
def test_every_language_says_the_same_things_with_the_same_parameters(lang: str) -> None:
    en, own = _texts("en"), _texts(lang)
    assert en.keys() == own.keys()
    for key in en:
        assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", own[key])), key
        assert not en[key] or own[key] != en[key], key  # said in the language, not left in English


def test_no_code_has_two_texts_in_one_language() -> None:
    # a key written twice in one catalog: one text silently replaced the other ("busy"
    # checking passwords was once told as "reviewing other games")
    for path in sorted(catalog.LOCALE_DIR.glob("*.po")):
        keys = re.findall(r'^msgctxt "((?:err|rule)\.[a-z_]+)"$', path.read_text(encoding="utf-8"), re.M)
        assert len(keys) > 50, path.name
        assert sorted(k for k in set(keys) if keys.count(k) > 1) == [], path.name
