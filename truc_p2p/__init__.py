"""truc-p2p: two-player Le Truc over a dealerless, signed, verifiable protocol.

Layers (each importable on its own):

* :mod:`truc_p2p.rules` -- the pure rules engine;
* :mod:`truc_p2p.deck` -- the mental-poker deck (commutative cipher on P-256);
* :mod:`truc_p2p.protocol` -- the sans-IO signed session and transcripts;
* :mod:`truc_p2p.net` -- the trio transport;
* :mod:`truc_p2p.cli` -- the ``truc-p2p`` command.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
