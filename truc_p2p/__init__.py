"""truc-p2p: two-player Le Truc over a dealerless, signed, verifiable protocol.

Layers (each importable on its own; their order is declared in :mod:`truc_p2p._layers`):

* :mod:`truc_p2p.rules` -- the pure rules engine;
* :mod:`truc_p2p.deck` -- the mental-poker deck (deck v2: ElGamal on secp256k1
  with shuffle and decryption proofs; deck v1, P-256, for older games);
* :mod:`truc_p2p.protocol` -- the sans-IO signed session and transcripts;
* :mod:`truc_p2p.net` -- the trio transport;
* :mod:`truc_p2p.cli` -- the ``truc-p2p`` command.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
