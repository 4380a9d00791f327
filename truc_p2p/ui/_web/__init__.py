"""The web table: play in a browser on this machine (``--web``).

The peer runs exactly as in the terminal; a small HTTP + WebSocket server on
127.0.0.1 shows the local player's view and takes its clicks.  The page, its
script and styles are package data in ``static/``: nothing is fetched from
elsewhere.  See :mod:`._server` for the safety rules (token, Host, Origin).

Each name loads on first use (PEP 562): the table's model (:class:`TableFeed`,
:mod:`._view`) is trio-free and runs in the site's page, without the server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._feed import TableFeed
    from ._final import final_message, verdict_json
    from ._player import WebPlayer
    from ._server import TableServer, bind_table, serve_table
    from ._view import action_buttons, card_json, page_texts, table_state

__all__ = [
    "TableFeed",
    "TableServer",
    "WebPlayer",
    "action_buttons",
    "bind_table",
    "card_json",
    "final_message",
    "page_texts",
    "serve_table",
    "table_state",
    "verdict_json",
]

_HOME: dict[str, str] = {
    "TableFeed": "_feed",
    "final_message": "_final",
    "verdict_json": "_final",
    "WebPlayer": "_player",
    "TableServer": "_server",
    "bind_table": "_server",
    "serve_table": "_server",
    "action_buttons": "_view",
    "card_json": "_view",
    "page_texts": "_view",
    "table_state": "_view",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
