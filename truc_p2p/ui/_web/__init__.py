"""The web table: play in a browser on this machine (``--web``).

The peer runs exactly as in the terminal; a small HTTP + WebSocket server on
127.0.0.1 shows the local player's view and takes its clicks.  The page, its
script and styles are package data in ``static/``: nothing is fetched from
elsewhere.  See :mod:`._server` for the safety rules (token, Host, Origin).
"""

from __future__ import annotations

from ._player import WebPlayer
from ._server import TableServer, bind_table, serve_table
from ._view import action_buttons, card_json, table_state

__all__ = [
    "TableServer",
    "WebPlayer",
    "action_buttons",
    "bind_table",
    "card_json",
    "serve_table",
    "table_state",
]
