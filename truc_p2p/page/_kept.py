"""What the page keeps in IndexedDB: the identity key and the name, and while a game
against a peer goes on what a reload needs to resume it (wire.md 13).

Its settings (``game``, JSON, no secrets), the session secret and each envelope of
the transcript (``env:00000``...) are each stored before the bytes that carry them
are sent (the outputs' order).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ._out import Outbox

if TYPE_CHECKING:
    from truc_p2p.net import Invite

    from ._games import NetGame, Restore

__all__ = [
    "ENVELOPE_KEY",
    "GAME_KEY",
    "IDENTITY_KEY",
    "NAME_KEY",
    "SECRET_KEY",
    "forget_game",
    "keep_game",
    "kept_game",
]

IDENTITY_KEY = "identity"
NAME_KEY = "name"
GAME_KEY = "game"
SECRET_KEY = "secret"
ENVELOPE_KEY = "env:{:05d}"


def keep_game(out: Outbox, game: NetGame, name: str, envelopes: list[bytes]) -> None:
    """A peer game's session exists: store what a reload needs to resume it, and
    the ``envelopes`` recorded so far."""
    meta = {
        "format": 1,
        "role": 0 if game.invite is not None else 1,
        "relay": game.relay,
        "invite": str(game.invite) if game.invite is not None else None,
        "claim_nonce": game.claim_nonce.hex() if game.claim_nonce else None,
        "name": name,
    }
    out.store(GAME_KEY, json.dumps(meta, sort_keys=True))
    out.store(SECRET_KEY, game.secret)
    for index, envelope in enumerate(envelopes):
        out.store(ENVELOPE_KEY.format(index), envelope)


def forget_game(out: Outbox, envelopes: int) -> None:
    """The game is over (or given up): its keys, and its ``envelopes``, leave IndexedDB."""
    out.delete(GAME_KEY)
    out.delete(SECRET_KEY)
    for index in range(envelopes):
        out.delete(ENVELOPE_KEY.format(index))


def kept_game(stored: dict[str, Any]) -> tuple[str, Invite | None, Restore] | None:
    """The peer game a reload interrupted, from what IndexedDB kept: its relay, its
    invite (a joiner's) and what restores it; ``None`` when nothing usable is kept."""
    text, secret = stored.get(GAME_KEY), stored.get(SECRET_KEY)
    if not isinstance(text, str) or not isinstance(secret, bytes | bytearray):
        return None
    envelopes: list[bytes] = []
    while isinstance(stored.get(ENVELOPE_KEY.format(len(envelopes))), bytes | bytearray):
        envelopes.append(bytes(stored[ENVELOPE_KEY.format(len(envelopes))]))
    from truc_p2p.net import Invite, InviteError

    from ._games import Restore

    try:
        meta = json.loads(text)
        invite = Invite.parse(meta["invite"]) if meta.get("invite") else None
        relay = str(meta["relay"])
        nonce = bytes.fromhex(meta["claim_nonce"]) if meta.get("claim_nonce") else None
    except (ValueError, KeyError, TypeError, InviteError):
        return None
    if not envelopes or len(secret) != 32:
        return None
    return relay, invite, Restore(envelopes=envelopes, secret=bytes(secret), claim_nonce=nonce)
