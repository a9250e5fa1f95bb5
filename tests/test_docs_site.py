"""The documentation site (mkdocs.yml, docs/): it builds with ``mkdocs build --strict``
(no broken link or anchor, no page left out of the navigation); its Reference pages list
every operation and schema of the server's OpenAPI document and every command and option
of the command line; every Python example in it runs; every rule it cites exists; and the
README is a short front door whose links all lead somewhere."""

from __future__ import annotations

import contextlib
import html
import io
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from test_docs import RULES, citations, outside_pointers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)
GENERATED = ["reference/api.md", "reference/cli.md"]  # made by docs/hooks/reference.py
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def mkdocs(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def site() -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        run = mkdocs("build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out))
        log = run.stdout + run.stderr
        assert run.returncode == 0, log
        assert "WARNING" not in log, log
        yield out


def url(md: str) -> str:
    """A page's address in the site (use_directory_urls: reference/api.md -> reference/api/,
    research/index.md -> research/, index.md -> the site's own)."""
    stem = md.removesuffix(".md")
    stem = "" if stem == "index" else stem.removesuffix("/index")
    return stem + "/" if stem else ""


def page(site: Path, md: str) -> str:
    return (site / url(md) / "index.html").read_text(encoding="utf-8")


def text_of(page_html: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page_html)).split())


# -- the build --------------------------------------------------------------------------


def test_every_page_is_built_and_in_the_navigation(site: Path) -> None:
    nav = page(site, "index.md")
    for md in [str(p.relative_to(DOCS)) for p in PAGES] + GENERATED:
        built = page(site, md)
        assert "<h1" in built, md
        href = url(md) or "."
        assert f'href="{href}"' in nav or f'href="./{href}"' in nav, f"{md} is not in the navigation"
    # every link is relative: the site works under any path (a server serves it at /docs/)
    assert 'href="/' not in nav and 'src="/' not in nav


def test_strict_mode_fails_on_a_broken_link_an_unknown_anchor_and_a_page_left_out(tmp_path: Path) -> None:
    """The validation of mkdocs.yml makes these warnings, which --strict turns into a failed build."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    warn = logging.WARNING
    assert config.validation.nav.omitted_files == warn and config.validation.nav.not_found == warn
    assert config.validation.links.not_found == warn and config.validation.links.anchors == warn
    assert config.validation.links.unrecognized_links == warn
    # a small site with the same validation: one page left out, one link broken, one anchor unknown
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](nowhere.md), [here](other.md#no-such-heading)\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n")
    (tmp_path / "docs" / "left-out.md").write_text("# Left out\n")
    validation = ROOT.joinpath("mkdocs.yml").read_text(encoding="utf-8").split("\nvalidation:\n", 1)[1].split("\n\n", 1)[0]
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nnav:\n  - index.md\n  - other.md\nvalidation:\n{validation}\n")
    run = mkdocs("build", "--strict", "--site-dir", str(tmp_path / "site"), cwd=tmp_path)
    log = run.stdout + run.stderr
    assert run.returncode != 0
    assert "left-out.md" in log and "nowhere.md" in log and "no-such-heading" in log


# -- the generated Reference pages ------------------------------------------------------


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    from kardinal.server.web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        return create_app(data_dir=tmp).openapi()


def test_the_api_page_lists_every_operation_and_schema(site: Path, openapi: dict[str, Any]) -> None:
    built = page(site, "reference/api.md")
    text = text_of(built)
    count = 0
    for path, item in openapi["paths"].items():
        for method, op in item.items():
            count += 1
            anchor = "op-" + method + "-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
            assert f'id="{anchor}"' in built, (method, path)
            assert f"{method.upper()} {path}" in text, (method, path)
            if op.get("summary"):
                assert op["summary"] in text, (method, path)
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            refs = [body] + body.get("anyOf", []) + body.get("oneOf", [])
            for ref in (r["$ref"].rsplit("/", 1)[-1] for r in refs if "$ref" in r):
                for field in openapi["components"]["schemas"][ref].get("properties", {}):
                    assert f"<code>{field}</code>" in built, (method, path, field)
            for code in op.get("responses", {}):
                section = built.split(f'id="{anchor}"', 1)[1].split("<h3", 1)[0]
                assert re.search(rf"\b{code}\b", text_of(section)), (method, path, code)
    assert count >= 25, "the document has fewer operations than the server has: is it the right one?"
    for name in openapi["components"]["schemas"]:
        assert f'id="schema-{name.lower()}"' in built, name
    for name in ("ClientMessage", "ServerMessage", "HelloMessage", "ActionMessage", "StateMessage"):
        assert f'href="#schema-{name.lower()}"' in built, name
    assert "/api/docs" in text and "/ws/{game_id}" in text


def test_the_cli_page_lists_every_command_and_option(site: Path) -> None:
    import typer

    from kardinal.cli import app

    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="kardinal")
    names = group.list_commands(ctx)
    assert {"play", "serve", "replay", "tournament", "backup"} <= set(names)
    built = page(site, "reference/cli.md")
    text = text_of(built)
    for name in names:
        cmd = group.get_command(ctx, name)
        assert f'id="cmd-{name}"' in built, name
        assert f"kardinal {name}" in text, name
        for p in cmd.params:
            for opt in [*p.opts, *p.secondary_opts] if p.param_type_name == "option" else [p.name.upper()]:
                assert f"<code>{opt}</code>" in built, (name, opt)
            if p.envvar:
                assert p.envvar in text, (name, p.envvar)
    assert "<code>--version</code>" in built


# -- the pages' content -----------------------------------------------------------------


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("path", [p for p in [*PAGES, README] if python_blocks(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_example_runs(path: Path) -> None:
    for i, block in enumerate(python_blocks(path)):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, f"{path.relative_to(ROOT)} (example {i + 1})", "exec"), {"__name__": "__example__"})


def test_every_rule_the_pages_cite_is_defined() -> None:
    undefined = [f"{p.relative_to(ROOT)}:{line}: {number}" for p in PAGES for line, number in citations(p) if number not in RULES]
    assert sum(1 for p in PAGES for _ in citations(p)) > 50
    assert undefined == []


def test_nothing_in_the_site_points_outside_the_repository() -> None:
    for path in [*PAGES, README, ROOT / "mkdocs.yml", *DOCS.joinpath("hooks").glob("*.py")]:
        assert outside_pointers(path.read_text(encoding="utf-8")) == [], path


# -- the README -------------------------------------------------------------------------


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for needed in ("make run", "make test", "make docs", "/docs/", "docs/images/", "hot-seat", "kardinal play"):
        assert needed in text, needed
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(local) > 20
    for link in local:
        assert (ROOT / link).exists(), f"README links to {link}, which does not exist"
    # the README's links into the site reach pages of the navigation
    nav = ROOT.joinpath("mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    for link in local:
        if link.startswith("docs/") and link.endswith(".md"):
            assert link.removeprefix("docs/") in nav, link


# -- the server serves it ---------------------------------------------------------------


def test_the_server_serves_the_built_site_at_docs(site: Path, tmp_path: Path) -> None:
    """A player finds the rules and a host the settings on the installation they use:
    the built site at /docs/, its pages and assets under it; without a built site, a page
    that says how to build one."""
    from fastapi.testclient import TestClient

    from kardinal.server.web.app import create_app

    with TestClient(create_app(data_dir=tmp_path / "data", docs_dir=site)) as c:
        home = c.get("/docs/")
        assert home.status_code == 200 and "Kardinal" in home.text
        rules = c.get("/docs/" + url("rules.md"))
        assert rules.status_code == 200 and "R4.3" in rules.text
        api = c.get("/docs/" + url("reference/api.md"))
        assert api.status_code == 200 and "/api/games" in api.text
        assert c.get("/docs").status_code == 200  # redirected to /docs/
        assert c.get("/docs/no-such-page/").status_code == 404
    with TestClient(create_app(data_dir=tmp_path / "data2", docs_dir=tmp_path / "none")) as c:
        r = c.get("/docs/")
        assert r.status_code == 404 and "make docs" in r.text


# -- lists and examples kept true to the code (issue 43, 17) ----------------------------


def test_the_rate_limit_kinds_are_listed_once_from_the_code(site: Path) -> None:
    """host/install.md names KARDINAL_RATE_LIMITS once, in the table of settings made from
    kardinal/server/common/settings.py, its kinds from the guard's; the operations page's table has
    a row for each kind."""
    from kardinal.server.common.guard import DEFAULTS
    from kardinal.server.common.settings import settings_table

    source = (DOCS / "host/install.md").read_text(encoding="utf-8")
    assert source.count("| `KARDINAL_RATE_LIMITS`") == 1 and settings_table() in source
    (row,) = [r for r in re.findall(r"<tr>.*?</tr>", page(site, "host/install.md"), re.S) if "KARDINAL_RATE_LIMITS" in r]
    assert re.findall(r"<code>([a-z_]+)</code>", row.split("kinds:", 1)[1]) == list(DEFAULTS)
    operations = (DOCS / "host/operations.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `([a-z_]+)` \| ", operations.split("### Rate limits", 1)[1].split("\n\n")[2], re.M)
    assert sorted(table) == sorted(DEFAULTS), table


def test_quoted_ratings_are_written_as_the_site_shows_them() -> None:
    """A rating the player pages quote ("1,162 ± 512") is in the site's form: the estimate
    and twice its uncertainty, whole numbers grouped by thousands (ratings.shown, the
    pages' num()); "27.5 ± 8.0" was openskill's own scale."""
    quoted = re.compile(r"\"(\S+) ±\s+(\S+?)[\":]")
    found = [m.groups() for p in sorted(DOCS.joinpath("play").glob("*.md")) for m in quoted.finditer(p.read_text(encoding="utf-8"))]
    assert found, "the check finds no rating"
    for mu, spread in found:
        for x in (mu, spread):
            assert re.fullmatch(r"[1-9][0-9]{0,2}(,[0-9]{3})*", x), (mu, spread)
