"""Hints and post-game reviews over HTTP: the bot's judgement of a game's positions.

One router, included by ``app.py``; the game service is ``request.app.state.service``.
"""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["router"]

router = APIRouter()
