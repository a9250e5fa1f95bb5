"""Passwords: Argon2id hashes (``argon2-cffi``, its defaults: RFC 9106's second choice,
64 MiB and 3 passes), checked off the event loop in threads of their own, two at a time
at most (each takes its 64 MiB: a flood of sign-ins cannot take the server's memory).
Hashes waiting for those two threads never hold the threads that the database's calls
use (asyncio's default pool); more than MAX_WAITING at once (running or waiting) are
refused ``busy`` (503: try again in a moment) rather than kept waiting.

A sign-in of a name that has no account verifies the password against a dummy hash of the
same cost (:func:`verify` with ``None``), so that it takes as long as a wrong password
does: the time of an answer does not tell which names exist.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..common.refusal import Refused

__all__ = ["MAX_WAITING", "MIN_PASSWORD", "MAX_PASSWORD", "check_password", "hash_password", "verify", "needs_rehash"]

T = TypeVar("T")

MIN_PASSWORD = 8  # characters
MAX_PASSWORD = 256  # characters (and at most 1024 bytes of UTF-8: Argon2 hashes any length, at a cost)

HASHER = PasswordHasher()  # Argon2id
MAX_WAITING = 32  # hashes at once, running or waiting for a thread; more are refused (busy)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="argon2")
_waiting = 0  # hashes in _POOL now (counted on the event loop)


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
    return HASHER.hash(password)


def _verify(stored: str | None, password: str) -> bool:
    try:
        return HASHER.verify(stored if stored is not None else _dummy(HASHER), password) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def busy() -> Refused:
    return Refused("busy", "the server is busy checking passwords; try again in a moment", 503, retry=2)


async def _in_pool(fn: Callable[..., T], *args: str | None) -> T:
    """``fn(*args)`` in the hashing threads; Refused ``busy`` when MAX_WAITING are there."""
    global _waiting
    if _waiting >= MAX_WAITING:
        raise busy()
    _waiting += 1
    try:
        return await asyncio.get_running_loop().run_in_executor(_POOL, fn, *args)
    finally:
        _waiting -= 1


async def hash_password(password: str) -> str:
    return await _in_pool(_hash, password)


async def verify(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches the hash ``stored``; ``None`` (no such account) is
    checked against a dummy hash, taking the same time, and is always False."""
    return await _in_pool(_verify, stored, password)


def needs_rehash(stored: str) -> bool:
    """The hash was made with other parameters than today's (hash the password again)."""
    try:
        return HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True
