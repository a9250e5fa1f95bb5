"""E-mail (issue 34): an address per account confirmed by a link, a new password by mail,
the mails an account asks for (your turn, an invitation, a game's end) with a one-click
unsubscribe, all sent from a queue in the database.

- :mod:`.settings`: the SMTP server, the sender and the site's address, from the server's settings.
- :mod:`.mailer`: addresses, confirmations, resets, opt-ins, unsubscribing; queueing.
- :mod:`.notify`: the mails games cause (listening to the game service's changes).
- :mod:`.texts`: the words of each mail, in English and German.
- :mod:`.sender`: the loop that sends the queue, once each, retrying a failing server.
- :mod:`.push`: Web Push: the installation's VAPID key, the pushes the same events cause
  (queued in the same queue), their sending loop.
- :mod:`.routes`: its HTTP side: the page ``/mail`` that mailed links open, and the routes
  under ``/api/mail`` and ``/api/account`` that set an address and what it wants mailed.

May import: the storage, common, community (an account, its password, a game's results)
and of play what a mail tells (a game in memory, its options, a seat's deadline); its
routes also web's edge (the other modules know no web framework, web or routes). Play
and community import nothing of mail: it listens to what changed (web/app.py hands the
game service its listener). Import-linter contracts (pyproject.toml) check both: mail's
services know no web code, and play and community know nothing of mail.
"""

from .mailer import KINDS, Mailer
from .notify import GameMail
from .push import Pusher, run_push_sender
from .sender import run_sender, send_due
from .settings import MailSettings, mail_settings

__all__ = ["Mailer", "GameMail", "KINDS", "MailSettings", "Pusher", "mail_settings", "run_push_sender", "run_sender", "send_due"]
