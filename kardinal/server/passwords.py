"""Passwords: Argon2id hashes (``argon2-cffi``, its defaults: RFC 9106's second choice,
64 MiB and 3 passes), checked off the event loop, two at a time at most (each takes its
64 MiB: a flood of sign-ins cannot take the server's memory).

A sign-in of a name that has no account verifies the password against a dummy hash of the
same cost (:func:`verify` with ``None``), so that it takes as long as a wrong password
does: the time of an answer does not tell which names exist.
"""

from __future__ import annotations

import asyncio
import threading
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .refusal import Refused

__all__ = ["MIN_PASSWORD", "MAX_PASSWORD", "check_password", "hash_password", "verify", "needs_rehash"]

MIN_PASSWORD = 8  # characters
MAX_PASSWORD = 256  # characters (and at most 1024 bytes of UTF-8: Argon2 hashes any length, at a cost)

HASHER = PasswordHasher()  # Argon2id
_SLOTS = threading.BoundedSemaphore(2)


def check_password(password: str) -> None:
    """Refused ``bad_password`` unless MIN_PASSWORD to MAX_PASSWORD characters."""
    if len(password) < MIN_PASSWORD or len(password) > MAX_PASSWORD or len(password.encode("utf-8", "surrogatepass")) > 1024:
        raise Refused(
            "bad_password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters", 400, min=MIN_PASSWORD, max=MAX_PASSWORD
        )


@lru_cache(maxsize=4)
def _dummy(hasher: PasswordHasher) -> str:
    """A hash of the hasher's cost of a password nobody has (made once)."""
    return hasher.hash("no account has this password: it only costs what a verify costs")


def _hash(password: str) -> str:
    with _SLOTS:
        return HASHER.hash(password)


def _verify(stored: str | None, password: str) -> bool:
    with _SLOTS:
        try:
            return HASHER.verify(stored if stored is not None else _dummy(HASHER), password) and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hash, password)


async def verify(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches the hash ``stored``; ``None`` (no such account) is
    checked against a dummy hash, taking the same time, and is always False."""
    return await asyncio.to_thread(_verify, stored, password)


def needs_rehash(stored: str) -> bool:
    """The hash was made with other parameters than today's (hash the password again)."""
    try:
        return HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True
