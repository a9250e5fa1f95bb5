"""Which mail addresses the server stores and mails: a strict subset of RFC 5321/5322,
checked before anything is stored (an address that fails is refused ``bad_email``).

- At most 254 characters (RFC 5321's limit of a path), ASCII only: no control characters
  (NUL, CR, LF, DEL, ...), no spaces, no format characters, nothing a mail server would
  need SMTPUTF8 for.
- One ``@``. Before it (at most 64 characters) a dot-atom: letters, digits and
  ``!#$%&'*+/=?^_`{|}~-``, in runs joined by single dots; no quoted strings or comments,
  and no ``=?`` (the start of an RFC 2047 encoded word, which a mail header decodes).
- After it a domain name of at least two labels: each 1 to 63 letters, digits and
  hyphens, not starting or ending with a hyphen; the last label letters only (or an
  ``xn--`` label: an internationalised top-level domain in its ASCII form). No address
  literal (``[192.0.2.1]``).
"""

from __future__ import annotations

import re

__all__ = ["valid_address", "MAX_ADDRESS"]

MAX_ADDRESS = 254
MAX_LOCAL = 64
MAX_DOMAIN = 253

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_TOP = re.compile(r"[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59}")


def valid_address(text: object) -> bool:
    """Whether ``text`` is an address this server stores and mails (see the module)."""
    if not isinstance(text, str) or not 3 <= len(text) <= MAX_ADDRESS or not text.isascii() or text.count("@") != 1:
        return False
    local, _, domain = text.partition("@")
    if len(local) > MAX_LOCAL or "=?" in local or not _LOCAL.fullmatch(local):
        return False
    labels = domain.split(".")
    return (
        len(domain) <= MAX_DOMAIN
        and len(labels) >= 2
        and all(_LABEL.fullmatch(label) for label in labels)
        and bool(_TOP.fullmatch(labels[-1]))
    )
