"""The static web client ("the site", issue 41): pinned downloads and the page's files.

``static/crypto.js`` is the page's side of :mod:`truc_p2p.crypto` (its ``js``
backend); :mod:`._pins` lists every npm package the page needs, by version,
URL and integrity hash; :mod:`._fetch` downloads and unpacks them.
"""

from __future__ import annotations

__all__: list[str] = []
