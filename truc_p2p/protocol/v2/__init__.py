"""The session's deck v2 path: a hand's v2 deck state (``_hand``, :class:`HandStateV2`).

Its deck v1 twin, kept for older games, is :mod:`truc_p2p.protocol.legacy_v1`."""
