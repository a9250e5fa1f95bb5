"""MkDocs hook: the site's generated Reference pages, made at build time from the code.

- ``reference/api.md``: the HTTP and WebSocket API, from the server's own OpenAPI document
  (``create_app(data_dir=...).openapi()``, the document ``/api/docs`` shows): every
  operation (method, path, summary and description, parameters, request body with its
  schema's fields, answers), the WebSocket's ``ClientMessage`` and ``ServerMessage``, and
  every schema they name.
- ``reference/cli.md``: the ``kardinal`` command line, from the Typer app itself
  (``typer.main.get_command``): every command with its usage, help, arguments and options
  (type, default, environment variable).

Neither page is a file of the repository: they cannot go stale. ``mkdocs.yml`` names this
file under ``hooks:`` and keeps the folder out of the site (``exclude_docs``).

The Host page's table of settings (host/install.md) is made from kardinal/server/common/settings.py
too, but written into the page (``python -m kardinal.server.common.settings``; a test fails when
it is out of date), so that it reads the same on GitHub.
"""

from __future__ import annotations

import json
import re
import tempfile
from typing import Any

from mkdocs.structure.files import File, Files

API_PAGE = "reference/api.md"
CLI_PAGE = "reference/cli.md"
METHODS = ("get", "put", "post", "patch", "delete", "head", "options")


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, API_PAGE, content=api_page(openapi_document())))
    files.append(File.generated(config, CLI_PAGE, content=cli_page()))
    return files


# -- the HTTP and WebSocket API -----------------------------------------------------------


def openapi_document() -> dict[str, Any]:
    """The server's OpenAPI document, from an app on a throwaway data folder."""
    from kardinal.server.web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        return create_app(data_dir=tmp).openapi()


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) of every operation, in the document's order."""
    return [(m.upper(), path, op) for path, item in doc["paths"].items() for m, op in item.items() if m in METHODS]


def anchor(name: str) -> str:
    return "schema-" + name.lower()


def cell(text: Any) -> str:
    """Text for a table cell: one line, no bare pipe."""
    return " ".join(str(text).split()).replace("|", "\\|")


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def type_of(s: dict[str, Any]) -> str:
    """A schema's type in a few words, with links to the named schemas."""
    if "$ref" in s:
        name = ref_name(s["$ref"])
        return f"[{name}](#{anchor(name)})"
    for key in ("oneOf", "anyOf"):
        if key in s:
            parts = [type_of(x) for x in s[key]]
            return " or ".join(dict.fromkeys(parts))
    if "allOf" in s and len(s["allOf"]) == 1:
        return type_of(s["allOf"][0])
    if "const" in s:
        return f"`{json.dumps(s['const'])}`"
    if "enum" in s:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in s["enum"])
    t = s.get("type")
    if t == "array":
        items = s.get("items")
        if isinstance(items, list):  # a tuple
            return "[" + ", ".join(type_of(x) for x in items) + "]"
        if "prefixItems" in s:
            return "[" + ", ".join(type_of(x) for x in s["prefixItems"]) + "]"
        return f"array of {type_of(items)}" if items else "array"
    if t == "object":
        extra = s.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return f"object of {type_of(extra)}"
        pattern = s.get("patternProperties")
        if pattern:
            (key, value), *_ = pattern.items()
            return f"object: `{key}` → {type_of(value)}"
        return "object"
    if isinstance(t, list):
        return " or ".join(t)
    return str(t) if t else "any"


CONSTRAINTS = (
    ("minLength", "≥ {} characters"),
    ("maxLength", "≤ {} characters"),
    ("minimum", "≥ {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMinimum", "> {}"),
    ("exclusiveMaximum", "< {}"),
    ("minItems", "≥ {} items"),
    ("maxItems", "≤ {} items"),
    ("maxProperties", "≤ {} keys"),
    ("pattern", "matches `{}`"),
)


def constraints(s: dict[str, Any]) -> list[str]:
    out = []
    for key, fmt in CONSTRAINTS:
        if key in s:
            v = s[key]
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            out.append(fmt.format(v))
    for key in ("anyOf", "oneOf"):
        for alt in s.get(key, []):
            out += constraints(alt)
    if "items" in s and isinstance(s["items"], dict) and "$ref" not in s["items"]:
        out += ["items " + c for c in constraints(s["items"])]
    return list(dict.fromkeys(out))


def description(s: dict[str, Any]) -> str:
    d = s.get("description") or ""
    if not d:
        for key in ("anyOf", "oneOf"):
            for alt in s.get(key, []):
                d = d or alt.get("description", "")
    return d


def fields_table(schema: dict[str, Any]) -> list[str]:
    props = schema.get("properties") or {}
    if not props:
        return []
    required = set(schema.get("required", []))
    lines = ["| field | type | required | default | description |", "| --- | --- | --- | --- | --- |"]
    for name, p in props.items():
        default = f"`{json.dumps(p['default'], ensure_ascii=False)}`" if "default" in p else ""
        notes = "; ".join(x for x in [description(p), *constraints(p)] if x)
        lines.append(f"| `{name}` | {cell(type_of(p))} | {'yes' if name in required else ''} | {cell(default)} | {cell(notes)} |")
    return lines


def schema_section(name: str, s: dict[str, Any]) -> list[str]:
    out = [f"### {name} {{#{anchor(name)}}}", ""]
    if s.get("description"):
        out += [s["description"], ""]
    alts = s.get("oneOf") or s.get("anyOf")
    if alts and not s.get("properties"):
        disc = s.get("discriminator", {})
        if disc:
            out += [f"One of these, told apart by `{disc['propertyName']}`:", ""]
            out += [f"- `{json.dumps(k)}`: [{ref_name(v)}](#{anchor(ref_name(v))})" for k, v in disc.get("mapping", {}).items()]
        else:
            out += ["One of these:", ""]
            out += [f"- {type_of(a)}" for a in alts]
        out.append("")
    elif s.get("properties"):
        extra = s.get("additionalProperties")
        if extra is False:
            out += ["No other fields are accepted.", ""]
        out += fields_table(s) + [""]
    else:
        out += [f"Type: {type_of(s)}" + (" (" + "; ".join(constraints(s)) + ")" if constraints(s) else ""), ""]
    return out


def body_schema(op: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    body = op.get("requestBody")
    if not body:
        return None, False
    content = body.get("content", {})
    media: dict[str, Any] = content.get("application/json") or next(iter(content.values()), {})
    return media.get("schema"), bool(body.get("required"))


def answer_row(code: str, r: dict[str, Any]) -> str:
    content = r.get("content", {})
    media: dict[str, Any] = content.get("application/json") or next(iter(content.values()), {})
    body = type_of(media["schema"]) if media.get("schema") else ""
    return f"| {code} | {cell(body)} | {cell(r.get('description', ''))} |"


def common_refusals(ops: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """The answers of 4xx and 5xx that several operations share, word for word."""
    seen: dict[str, list[Any]] = {}
    for _, _, op in ops:
        for code, r in op.get("responses", {}).items():
            if code[0] in "45" and r not in seen.setdefault(code, []):
                seen[code].append(r)
    counts = {code: [sum(1 for _, _, op in ops if op.get("responses", {}).get(code) == r) for r in rs] for code, rs in seen.items()}
    return {code: rs[max(range(len(rs)), key=lambda i: counts[code][i])] for code, rs in sorted(seen.items())}


def operation_id(method: str, path: str) -> str:
    return "op-" + method.lower() + "-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def api_page(doc: dict[str, Any]) -> str:
    schemas: dict[str, Any] = doc.get("components", {}).get("schemas", {})
    info = doc["info"]
    ops = operations(doc)
    out = [
        "# HTTP and WebSocket API",
        "",
        "<!-- generated at build time by docs/hooks/reference.py from the server's OpenAPI document -->",
        "",
        f"This page is made from the server's own OpenAPI document ({info['title']} {info['version']}) when the site is "
        "built; a running server shows the same document interactively at `/api/docs` and as JSON at `/openapi.json`. "
        "The declarations live beside each domain's routes (`kardinal/server/play/schemas.py`, `community/schemas.py`, "
        "`mail/schemas.py`, `web/schemas.py`; what they share in `common/schemas.py`): every body and message is checked against its "
        "declaration before the server acts on it (exact types, no unknown fields, bounded numbers and lengths, no "
        "control characters or lone surrogates in text).",
        "",
    ]
    if info.get("summary"):
        out += [f"**{info['summary']}**", ""]
    out += [info.get("description", ""), ""]
    out += ["## Operations", "", "| method | path | what it does |", "| --- | --- | --- |"]
    for method, path, op in ops:
        out.append(f"| {method} | [`{path}`](#{operation_id(method, path)}) | {cell(op.get('summary', ''))} |")
    refusals = common_refusals(ops)
    out += [
        "",
        "## Refusals {#refusals}",
        "",
        "What the operations answer when they refuse (each operation lists the codes it "
        f"may answer with); a refusal's body is [ErrorBody](#{anchor('ErrorBody')}): a stable `code`, a `message`, and "
        "`params` (`params.field` names the field at fault).",
        "",
        "| answer | body | meaning |",
        "| --- | --- | --- |",
    ]
    out += [answer_row(code, r) for code, r in refusals.items()]
    out += ["", "## Operations in detail", ""]
    for method, path, op in ops:
        out += [f"### {method} `{path}` {{#{operation_id(method, path)}}}", ""]
        if op.get("summary"):
            out += [f"*{op['summary']}.*", ""]
        if op.get("description"):
            out += [op["description"], ""]
        params = op.get("parameters", [])
        if params:
            out += ["| parameter | in | type | required | description |", "| --- | --- | --- | --- | --- |"]
            for p in params:
                s = p.get("schema", {})
                notes = "; ".join(x for x in [p.get("description") or description(s), *constraints(s)] if x)
                out.append(f"| `{p['name']}` | {p['in']} | {cell(type_of(s))} | {'yes' if p.get('required') else ''} | {cell(notes)} |")
            out.append("")
        schema, required = body_schema(op)
        if schema is not None:
            out += [f"**Request body** ({'required' if required else 'optional'}): {type_of(schema)}", ""]
            target = schema
            if "$ref" not in target:
                target = next((a for a in target.get("anyOf", target.get("oneOf", [])) if "$ref" in a), target)
            if "$ref" in target:
                out += fields_table(schemas.get(ref_name(target["$ref"]), {})) + [""]
        answers = op.get("responses", {})
        if answers:
            out += ["| answer | body | meaning |", "| --- | --- | --- |"]
            shared = [code for code, r in answers.items() if refusals.get(code) == r]
            for code, r in answers.items():
                if code not in shared:
                    out.append(answer_row(code, r))
            if shared:
                codes = ", ".join(shared)
                out.append(f"| {codes} | [ErrorBody](#{anchor('ErrorBody')}) | the [refusals](#refusals) |")
            out.append("")
    out += [
        "## WebSocket `/ws/{game_id}`",
        "",
        'For live play. A connection sends `hello` first (with the seats it holds: `{"seats": {"2": token}}`; '
        "none for a spectator), then any of the other client messages. Messages are JSON text of at most 64 KiB.",
        "",
        f"- What a client sends: [ClientMessage](#{anchor('ClientMessage')}).",
        f"- What the server sends: [ServerMessage](#{anchor('ServerMessage')}).",
        "",
    ]
    for name in ("ClientMessage", "ServerMessage"):
        if name in schemas:
            out += schema_section(name, schemas[name])
    out += ["## Schemas", "", "Every schema the operations and messages name, in alphabetical order.", ""]
    for name in sorted(schemas):
        if name not in ("ClientMessage", "ServerMessage"):
            out += schema_section(name, schemas[name])
    return "\n".join(out) + "\n"


# -- the command line ---------------------------------------------------------------------
# Typer 0.29 carries its own copy of click (typer._click): its objects are read by their
# attributes (params, opts, envvar, help, ...), not by click's classes.


def cli_command() -> Any:
    import typer

    from kardinal.cli import app

    return typer.main.get_command(app)


def context(cmd: Any, name: str) -> Any:
    return cmd.context_class(cmd, info_name=name)


def cli_commands() -> dict[str, Any]:
    """The ``kardinal`` subcommands by name, in the order ``kardinal --help`` lists them."""
    group = cli_command()
    ctx = context(group, "kardinal")
    return {name: c for name in group.list_commands(ctx) if (c := group.get_command(ctx, name)) is not None and not c.hidden}


def is_option(p: Any) -> bool:
    return getattr(p, "param_type_name", "") == "option"


TYPE_NAMES = {str: "text", int: "integer", float: "number", bool: "flag"}


def type_name(p: Any) -> str:
    """A parameter's type in a word, from its annotation (``list[X]``: repeatable)."""
    import pathlib
    import types
    import typing

    t = p.type_descriptor.annotation
    repeat = False
    while True:
        origin, args = typing.get_origin(t), typing.get_args(t)
        if origin in (typing.Union, types.UnionType):
            t = next(a for a in args if a is not type(None))
        elif origin in (list, tuple, set):
            repeat, t = True, args[0] if args else str
        elif origin is typing.Annotated:
            t = args[0]
        else:
            break
    if isinstance(t, type) and issubclass(t, pathlib.PurePath):
        name = "path"
    else:
        name = TYPE_NAMES.get(t, getattr(t, "__name__", str(t)))
    if getattr(p, "is_flag", False):
        name = "flag"
    return name + (", repeatable" if repeat or getattr(p, "multiple", False) or p.nargs == -1 else "")


def setting_variables() -> dict[str, str]:
    """The variable of each option that mirrors a setting (kardinal.server.common.settings), by the option."""
    from kardinal.server.common.settings import Settings, env_name, option_of

    return {opt: env_name(f) for f in Settings.model_fields if (opt := option_of(f))}


def param_row(p: Any) -> str:
    if is_option(p):
        names = ", ".join(f"`{n}`" for n in [*p.opts, *p.secondary_opts])
    else:
        names = f"`{(p.name or '').upper()}`"
    default = p.default
    flag_off = is_option(p) and getattr(p, "is_flag", False) and default is False
    shown = "" if callable(default) or default is None or flag_off or default == [] else f"`{default}`"
    if default is None and isinstance(getattr(p, "show_default", None), str):  # a setting's option (kardinal.server.common.settings)
        shown = p.show_default
    env = p.envvar if isinstance(p.envvar, str) else ", ".join(p.envvar or []) or setting_variables().get(p.opts[0], "")
    help_text = p.help or ""
    if p.required:
        help_text = ("Required. " + help_text).strip()
    return f"| {names} | {cell(type_name(p))} | {cell(shown)} | {f'`{env}`' if env else ''} | {cell(help_text)} |"


def usage(name: str, cmd: Any) -> str:
    pieces = ["kardinal", name]
    if any(is_option(p) for p in cmd.params):
        pieces.append("[OPTIONS]")
    for p in cmd.params:
        if not is_option(p):
            arg = (p.name or "").upper() + ("..." if p.nargs == -1 else "")
            pieces.append(arg if p.required else f"[{arg}]")
    return " ".join(pieces)


def cli_page() -> str:
    group = cli_command()
    commands = cli_commands()
    out = [
        "# Command line",
        "",
        "<!-- generated at build time by docs/hooks/reference.py from kardinal/cli.py -->",
        "",
        "This page is made from the `kardinal` command itself when the site is built; `kardinal --help` and "
        "`kardinal COMMAND --help` say the same at the terminal. After `make run` or `make test` the command is in "
        "`.venv/bin/` (`source .venv/bin/activate`, or call `.venv/bin/kardinal`); `python -m kardinal` is the same.",
        "",
        " ".join((group.help or "").split()),
        "",
        "| command | what it does |",
        "| --- | --- |",
    ]
    for name, cmd in commands.items():
        out.append(f"| [`{name}`](#cmd-{name}) | {cell(cmd.get_short_help_str(limit=300))} |")
    out += [
        "",
        "Options of `kardinal` itself:",
        "",
        "| option | type | default | environment | what it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    out += [param_row(p) for p in group.params]
    out += ["| `--help` | flag | | | Show the help of `kardinal` or of a command, and exit. |", ""]
    for name, cmd in commands.items():
        out += [f"## `kardinal {name}` {{#cmd-{name}}}", "", "```text", usage(name, cmd), "```", ""]
        out += [" ".join((cmd.help or "").split()), ""]
        if cmd.params:
            out += ["| argument or option | type | default | environment | what it does |", "| --- | --- | --- | --- | --- |"]
            out += [param_row(p) for p in cmd.params]
            out.append("")
    return "\n".join(out) + "\n"
