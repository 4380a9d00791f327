"""Deck v2, the deck every game deals with: ElGamal on secp256k1, a proof of
shuffle for each peer's shuffle and a proof for every card opened
(``protocol_spec/deck_v2.md``).  The public names are re-exported by
:mod:`truc_p2p.deck`."""
