"""The session's deck v1 path, kept so old games verify and resume: a hand's
v1 deck state (``_hand``) and the seed audit (``_audit``).  Deck v2 games never
use it (``protocol.v2`` holds their hand state)."""
