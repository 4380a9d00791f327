"""truc-p2p in a web page: the Python that runs in the site's Web Worker.

The same rules engine, deck, sans-IO :class:`~truc_p2p.protocol.Session`, bots and
verifier as the desktop, and the same table model as ``--web``
(:class:`~truc_p2p.ui.TableFeed`), driven by calls instead of a trio loop.  No
I/O, no clock, no global randomness and no trio here (``tests/test_layering.py``):
the worker passes the time in every call and a source of random bytes once, and
carries out what each call returns.

API (the worker's side)::

    app = PageApp(randbytes=os.urandom, stored={"identity": raw32}, site=..., relay=...)
    outputs = app.handle(message, now)    # a message from the page (JSON text or dict)
    outputs = app.receive(socket, data, now)  # bytes from relay WebSocket ``socket``
    outputs = app.closed(socket, now)     # that WebSocket closed
    outputs = app.tick(now)               # the timer asked for came

Each call returns a list of outputs, dicts with a ``do`` (:mod:`._out`): ``page``
(a message for the main thread), ``open`` / ``send`` / ``close`` (a relay
WebSocket by id), ``store`` / ``delete`` (IndexedDB), ``download`` (a file to
save) and last ``timer`` (when to call ``tick``).  Everything is JSON-able but
the ``bytes`` of ``send``, ``store`` and ``download``.

Messages from the page: the table's own (``act``, ``quit``, ``lang``, ``again``,
``level``, as ``table.js`` sends them over ``--web``'s WebSocket) and the app's:
``hello`` (``lang``: the browser's language), ``bot`` (``level``), ``host``
(``relay`` ``host:port``, ``site``: the link's base, ``match``: 1 a single game,
else a match of that many games), ``join`` (``invite``: an invite or a
``<site>#join=<invite>`` link; a ``match=N`` invite plays the match), ``verify``
(``data``: a ``.truc`` file's bytes, ``name``), ``identity_export``, ``identity_import`` (``data``),
``name`` (``name``: the name the opponent sees), ``download`` and ``home``.

Messages to the page: the table's (``texts``, ``state``, ``log``, ``final``,
``invite``, ``notice``... as ``--web`` sends them) and the app's: ``app_texts``
(the screens' texts), ``app`` (``screen``: ``table`` or ``home``; ``transcript``:
a game's file name once it can be downloaded), ``identity`` (``fingerprint``, ``name``),
``verdict`` (``json``: exactly ``truc-p2p verify --json``'s object; ``status``,
``headline``, ``summary`` in the player's language) and ``app_error`` (``text``).

``worker.js`` talks to :class:`WorkerGlue`, the same calls with JSON text in and out
(bytes as base64), so no Pyodide type conversion is involved.

Linked games (wire.md 4.1) with a peer: after each game the table offers "next
game" (a match) or "play again" (a single game); ``again`` redials, the joiner the
same invite (again and again until the host listens), the host the same relay
code, the hello naming the game before (``prev``, ``dealer``).

A browser never listens nor punches: it meets its peer spliced through the relay
(``protocol_spec/connect.md`` §2; a host's invite is a link whose fragment holds
the ``truc://`` invite, so the site's server never sees it).
"""

from __future__ import annotations

from truc_p2p.page._app import PageApp
from truc_p2p.page._glue import WorkerGlue
from truc_p2p.page._out import Output
from truc_p2p.page._relay import Attach, Control, Join, RelayRefused

__all__ = ["Attach", "Control", "Join", "Output", "PageApp", "RelayRefused", "WorkerGlue"]
