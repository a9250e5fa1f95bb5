"""The browser client: its pages, scripts and styles (``static/``), served by the server
(:mod:`kardinal.server`). No Python runs in the browser; this package only carries the files."""
