"""The owner's own cards of every deal, for the replay of its own transcript.

A transcript shows only the cards that were played; the player who recorded it
saw its whole hand.  Its secret (``FILE.secret``) and its key (the one the
``.meta.json`` beside the transcript names, or the key ``play`` keeps in
``.bot/`` for a one-off one) rebuild its session, as ``truc-p2p resume`` does
(:meth:`truc_p2p.protocol.Session.restore`: every own message made again must match
the transcript byte for byte, so the cards are the ones really dealt); the
session's history holds a :class:`~truc_p2p.protocol.CardsDealt` per deal.  The
transcript is only read, never reopened for writing.

When anything is missing, unreadable or does not match, :func:`own_hands` says
``None`` and the replay shows what the transcript alone shows (see
:mod:`._replay_steps`).  Only the owner's cards are ever there: the opponent's
unplayed cards are in no file of the owner's.
"""

from __future__ import annotations

from pathlib import Path

from truc_p2p.history._record import GameFile, _meta, _secret
from truc_p2p.identity import IdentityError, load_identity
from truc_p2p.protocol import CardsDealt, ProtocolError
from truc_p2p.rules import RulesError
from truc_p2p.transcript import scan_transcript_file

__all__ = ["own_hands"]

#: Where ``truc-p2p play`` keeps a one-off key of the player, beside the transcript.
_ONE_OFF_KEYS = ".bot"


def _key_files(path: Path, identity: object) -> list[Path]:
    files = [Path(identity)] if isinstance(identity, str) and identity else []
    return [*files, path.parent / _ONE_OFF_KEYS / (path.name + ".key")]


def own_hands(record: GameFile) -> tuple[CardsDealt, ...] | None:
    """The cards dealt to ``record``'s owner, one entry per deal (a redeal's too) in
    order, or ``None`` when its secret or key is not beside it, cannot be read or does
    not rebuild this transcript (then the replay shows only what was played)."""
    me, path = record.owner, record.path
    secret = _secret(path)
    meta = _meta(path)
    if me is None or secret is None or meta is None:
        return None
    from truc_p2p.protocol import Session  # only now: the history commands start light

    for key_file in _key_files(path, meta.get("identity")):
        try:
            key = load_identity(key_file).key
        except IdentityError:
            continue
        try:
            session = Session.restore(
                scan_transcript_file(path).envelopes,
                identity=key,
                role=me,
                secret=secret,
            )
        except (OSError, ValueError, KeyError, TypeError, ProtocolError, RulesError):
            continue  # another key, a damaged secret, a changed file: not these cards
        return tuple(e for e in session.take_history() if isinstance(e, CardsDealt))
    return None
