"""``python -m kardinal``: the same as the ``kardinal`` command."""

from kardinal.cli import main

main()
