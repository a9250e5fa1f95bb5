"""Play: the games being played, lila's ``round``. The game service (:class:`GameService`,
service.py) is the authority over every game, put together from one part a concern:
core (the games in memory, reading them), tables (create, join, claim), pipeline (an
action checked, committed, told), live (a game in memory, its connections and messages),
botplay, presence, clocks, rematch, finished, chat, shared (several processes), fair
(bots' turns), options, workers (the bots' processes); messages.py declares what the
WebSocket and the state answers carry. Beside it, its HTTP side: routes.py (the games'
API), ws.py (the WebSocket), teach.py (hints and reviews), tutorial.py, with their
models in schemas.py.

What play offers the other domains: :class:`.service.GameService` (its public methods),
:mod:`.live` (a game in memory, :class:`LiveGame`, its public players, a seat token's
check) and :mod:`.schemas` (its API's models: a game as the lobby lists it). The rest is
play's own.

May import: the rules core, the bots, the storage and common. The game service (every
module but routes, ws, teach and tutorial) imports nothing of community, mail or web, and
nothing of the web framework; its HTTP side may import community's sign-in (account_routes)
and services (accounts, rated tables, friends-only tables) and web's edge (http, pages,
mapdata, rules_page). Play imports nothing of mail: mail listens to what changed.
Import-linter contracts (pyproject.toml) check the game service's and mail's parts.
"""
