"""The read side of tg-index: the typed API (api.py) and the tg-query / tg-index commands (cli.py)."""
