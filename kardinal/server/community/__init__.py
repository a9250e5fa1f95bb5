"""Community: the people around the games, lila's ``user``, ``security``, ``rating``,
``relation`` and ``mod``. Accounts and sessions (accounts.py, passwords.py), profiles,
following and invitations (social.py), who may see which account sits where
(privacy.py), ratings (ratings.py, rated.py), a finished game's results and their
settlement (results.py, settle.py), moderation and the operator's work (moderation.py,
admin.py); their HTTP sides (account_routes.py, social_routes.py, rating_routes.py,
moderation_routes.py) with their models in schemas.py.

May import: the rules core, the bots' list, the storage, common, and of play only what
play offers (:mod:`..play.service`, :mod:`..play.live`, :mod:`..play.schemas`), never
play's internals;
web's edge (http, pages) for its routes only: its services know no web framework, web or
routes. Nothing of mail (import-linter contracts in pyproject.toml).
"""
