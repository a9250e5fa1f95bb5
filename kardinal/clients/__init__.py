"""The clients: the game in words, the terminal client and the browser edition (with its server)."""
