"""The policy every mail's headers are made with: ``email.policy.SMTP`` that refuses a
header which would not stay one header line.

The Python this server runs on (3.11.7 when this was written) has CVE-2024-6923 (gh-121650): a
header value holding an RFC 2047 encoded word, such as ``=?x?q?=0ABcc:aa@bb.cc?=``, is
decoded when it is set and written out with the line break it encodes, so that the text
after it becomes a header of its own (``Bcc: ...``), or, after two, the mail's body.
Python 3.13 (and the later security releases) check what they write
(``verify_generated_headers``); :class:`StrictPolicy` does the same here, and more:

- setting a header refuses a name or value holding a control or format character (CR,
  LF, NUL, DEL, ...), both as given and as the header decodes it;
- writing a header refuses one whose written form holds a line break not followed by
  white space (a new header line), as ``verify_generated_headers`` does.

The List-Unsubscribe headers (RFC 8058: a mail client's one-click button reads the
``<URL>`` as written) are folded at RFC 5322's limit of 998 characters a line rather than
at 78: a longer value is written as RFC 2047 encoded words, which mail clients do not
decode there. Both checks hold for them too.

Either raises :class:`HeaderProblem`: the mail is not sent (sender.py gives it up). Names
and other text players choose stay out of the headers altogether (texts.py: the subjects
hold none); this policy is what stops any that would get in.
"""

from __future__ import annotations

import re
import unicodedata
from email.policy import EmailPolicy
from typing import Any

__all__ = ["HeaderProblem", "StrictPolicy", "POLICY", "has_controls"]

# a line break that starts a new line rather than continuing a folded one (CPython's check)
_NEWLINE_WITHOUT_FWSP = re.compile(r"\r\n[^ \t]|\r[^ \n\t]|\n[^ \t]")
_CONTROLS = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
# headers written as they are, up to RFC 5322's limit of a line (see the module)
LITERAL_HEADERS = frozenset(("list-unsubscribe", "list-unsubscribe-post"))
MAX_LINE = 998


class HeaderProblem(ValueError):
    """A header that would not stay one header of the mail."""


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a control, format or line/paragraph separator character."""
    return any(unicodedata.category(ch) in _CONTROLS for ch in text)


class StrictPolicy(EmailPolicy):
    """``email.policy.SMTP`` refusing headers that break lines (see the module)."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if has_controls(name) or (isinstance(value, str) and has_controls(value)):
            raise HeaderProblem(f"the header {name!r} holds a control character")
        stored: tuple[str, Any] = super().header_store_parse(name, value)
        if has_controls(str(stored[1])):  # an encoded word decoded to one
            raise HeaderProblem(f"the header {name!r} decodes to a control character")
        return stored

    def _checked(self, name: str, folded: str) -> str:
        if not folded.endswith(self.linesep) or _NEWLINE_WITHOUT_FWSP.search(folded[: -len(self.linesep)]):
            raise HeaderProblem(f"the header {name!r} would be written as more than one header")
        return folded

    def _folding(self, name: str) -> EmailPolicy:
        """The policy ``name`` is folded with: this one, or one of MAX_LINE for LITERAL_HEADERS."""
        return self.clone(max_line_length=MAX_LINE) if name.lower() in LITERAL_HEADERS else self

    def fold(self, name: str, value: Any) -> str:
        folded: str = EmailPolicy.fold(self._folding(name), name, value)
        return self._checked(name, folded)

    def fold_binary(self, name: str, value: Any) -> bytes:
        folded: bytes = EmailPolicy.fold_binary(self._folding(name), name, value)
        self._checked(name, folded.decode("ascii", "surrogateescape"))
        return folded


POLICY = StrictPolicy(linesep="\r\n")  # email.policy.SMTP's settings
