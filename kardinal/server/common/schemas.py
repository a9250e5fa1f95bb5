"""What the API's models of several domains share: the strict request base, the kinds of
value every domain takes (a seat, its token, a name, a game's id, a password), the answer
``Done``, and a failed validation said in the API's words.

Every message of the server's API is declared, each domain's beside its routes
(play/schemas.py, community/schemas.py, mail/schemas.py, web/schemas.py): request bodies
and WebSocket messages a client sends (Pydantic models, strict), and the answers it gets
(typed dicts).

Requests are checked before any handler sees them: strict types (no string for a
number or a boolean), bounded numbers and lengths, no control characters or lone
surrogates in text that is stored or shown, no unknown fields. A body that fails is
refused with ``malformed`` (400) and the path of the field (``params.field``, e.g.
``players.0.name``); nothing changes. The finer checks that need the game (whose turn,
the rules, a name taken at the table) stay with the game service.

The same declarations give the OpenAPI document (``/openapi.json``, shown at
``/api/docs``); the WebSocket's messages are in it too, as the schemas ``ClientMessage``
and ``ServerMessage``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

# letters text may not hold: controls other than white space (which is folded into one
# space where text is kept), DEL and C1 controls, and lone surrogates (a stored id or name
# with one cannot even be written as UTF-8: the storage's write failed)
_BAD_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# the same as a pattern, for the document (pydantic's patterns cannot name surrogates)
PRINTABLE = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"


def printable(s: str) -> str:
    if _BAD_TEXT.search(s):
        raise ValueError("text may not hold control characters or lone surrogates")
    return s


class Strict(BaseModel):
    """A request: exact types, no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True)


Seat = Annotated[int, Field(ge=0, le=9, description="A seat's number, from 0")]
SeatKey = Annotated[str, Field(pattern=r"^[0-9]$", description="A seat's number as an object key")]
Version = Annotated[int, Field(ge=0, le=1_000_000, description="The number of actions applied so far (the state version)")]
Token = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="A seat's secret token")]
CLIENT_ID = re.compile(r"[!-~]{1,100}")  # what ClientId takes (a refusal echoes only such an id)
ClientId = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=f"^{CLIENT_ID.pattern}$", description="The client's id for an action (printable ASCII)"),
]
Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Name = Annotated[
    str,
    Field(
        max_length=100,
        description="A name (at most 24 characters once runs of white space are one space; unique at a table)",
        json_schema_extra={"pattern": PRINTABLE},
    ),
    AfterValidator(printable),
]
Password = Annotated[str, Field(min_length=1, max_length=256, description="A password (8 to 256 characters at sign-up)")]
GameId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$", description="A game's id")]


class Done(TypedDict):
    ok: bool


def field_of(loc: tuple[int | str, ...], message: bool = False) -> str:
    """A field's path as a client names it: ``players.0.name``, ``action.country`` (the
    body's own place and the tags of unions left out; ``message``: the path is a WebSocket
    message's, whose first part is its type)."""
    if loc and loc[0] in ("body", "query", "path"):  # where FastAPI found it
        loc = loc[1:]
    parts = [str(x) for x in loc[1 if message else 0 :] if x != "[key]"]
    # a member of a discriminated union is named by its tag in pydantic's path
    return ".".join(p for p in parts if p not in _TAGS)


_TAGS = frozenset(("place", "draw", "exchange", "pass", "cloister", "advisor"))


def first_error(errors: Sequence[Any], message: bool = False) -> tuple[str, str]:
    """The first problem of a failed validation (pydantic's ``errors()``): (field path,
    words). ``message``: of a WebSocket message (see field_of)."""
    if not errors:
        return "", "the message is not valid"
    err = errors[0]
    loc = tuple(err.get("loc", ()))
    kind = err.get("type")
    if kind == "json_invalid":
        return "", "the body must be JSON"
    path = field_of(loc, message and len(loc) > 1)
    if kind in ("model_type", "model_attributes_type", "dict_type", "union_tag_invalid", "union_tag_not_found") and not path:
        return "", "expected a JSON object" + (" with a known 'type'" if kind.startswith("union_tag") else "")
    return path, str(err.get("msg", "not valid"))


def token_error(errors: Sequence[Any], message: bool = False) -> bool:
    """A failed validation of a seat's token (a guess, however malformed, counts as one);
    ``message``: of a WebSocket message (see field_of)."""
    return any(_top_field(tuple(err.get("loc", ())), message) in ("token", "seats") for err in errors)


def _top_field(loc: tuple[int | str, ...], message: bool) -> str:
    return field_of(loc, message and len(loc) > 1).partition(".")[0]
