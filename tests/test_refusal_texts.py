"""Every refusal reaches the page as a code with parameters, and the page has words for
every code in English, German and Danish (static/refusals.js): a code added to the rules or the
server without its words fails here."""

from __future__ import annotations

import re
from pathlib import Path

import kardinal.clients.web as web
import kardinal.rules.state as state
import kardinal.server as server

STATIC = Path(web.__file__).parent / "static"
LANGS = ("en", "de", "da")


def _texts(lang: str) -> dict[str, str]:
    js = (STATIC / "refusals.js").read_text(encoding="utf-8")
    block = re.search(rf"\n  {lang}: \{{\n(.*?)\n  \}},", js, re.S)
    assert block, f"no {lang} table in refusals.js"
    # a text is a string, or its plural forms ({ one: "...", other: "..." }), read as one
    found = re.findall(r'"((?:err|rule)\.[a-z_]+)": (?:"([^"]*)"|\{([^}]*)\})', block.group(1))
    return {k: text or " / ".join(re.findall(r'"([^"]*)"', forms)) for k, text, forms in found}


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


def test_every_refusal_has_words_in_every_language() -> None:
    for lang in LANGS:
        texts = _texts(lang)
        missing = {f"rule.{c}" for c in _rule_codes()} | {f"err.{c}" for c in _server_codes() - {"illegal"}}
        assert missing - texts.keys() == set(), lang


def test_every_language_says_the_same_things_with_the_same_parameters() -> None:
    en = _texts("en")
    for lang in LANGS[1:]:
        other = _texts(lang)
        assert en.keys() == other.keys(), lang
        for key in en:
            assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", other[key])), (lang, key)
            assert not en[key] or other[key] != en[key], (lang, key)  # said in the language, not left in English


def test_no_code_has_two_texts_in_one_language() -> None:
    # a key written twice in one table: the later text silently replaced the earlier one
    # ("busy" checking passwords was told as "reviewing other games")
    js = (STATIC / "refusals.js").read_text(encoding="utf-8")
    for lang in LANGS:
        block = re.search(rf"\n  {lang}: \{{\n(.*?)\n  \}},", js, re.S)
        assert block, lang
        keys = re.findall(r'^\s*"((?:err|rule)\.[a-z_]+)":', block.group(1), re.M)
        assert sorted(k for k in set(keys) if keys.count(k) > 1) == [], lang
