"""Deck v1, kept to verify old games: the commutative cipher on P-256 with a
seed audit at the end of each hand (``protocol_spec/deck.md``).  New games deal
with deck v2 (:mod:`truc_p2p.deck.v2`); nothing here is needed to play one.
The public names are re-exported by :mod:`truc_p2p.deck`."""
