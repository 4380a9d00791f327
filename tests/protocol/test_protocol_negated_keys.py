"""Review: ``k`` and ``n - k`` are one key (deck.md section 1), for the verifier too.

A peer may send the negation of any of its per-card keys: receivers and the
live audit accept it, so the game ends with a co-signed result.  The offline
verifier compared keys byte for byte and rejected that same transcript as a
failed audit: session and verifier disagreed.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.protocol import REDEALER, Pair

from truc_p2p.deck import canonical_key
from truc_p2p.protocol import Session, verify_transcript
from truc_p2p.rules import Player, Ruleset

ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def negate(raw: bytes) -> bytes:
    return (ORDER - int.from_bytes(raw, "big")).to_bytes(32, "big")


def negate_keys(session: Session, where: str) -> None:
    """Make ``session`` send ``n - k`` for every key of kind ``where`` it sends."""
    emit = session._emit

    def _emit(mtype: str, payload: dict[str, Any]) -> None:
        payload = dict(payload)
        if where == "deck" and mtype in ("deck3", "deck4"):
            payload["keys"] = [negate(k) for k in payload["keys"]]
        if where == "redeal":
            if mtype == "action" and "keys" in payload:
                payload["keys"] = [negate(k) for k in payload["keys"]]
            if mtype == "deck4" and "keys" in payload["action"]:
                action = dict(payload["action"])
                action["keys"] = [negate(k) for k in action["keys"]]
                payload["action"] = action
        emit(mtype, payload)

    session._emit = _emit  # type: ignore[method-assign]


@pytest.mark.parametrize("where", ["deck", "redeal"])
@pytest.mark.parametrize("sender", list(Player), ids=lambda p: p.name)
def test_negated_keys_pass_the_session_and_the_verifier(where: str, sender: Player) -> None:
    pair = Pair(
        ruleset=Ruleset(target=1),
        tag=f"review-negated/{where}/{sender.name}",
        bots={Player.P0: REDEALER, Player.P1: REDEALER},
    )
    negate_keys(pair.sessions[sender], where)
    pair.finish()
    assert all(pair.sessions[p].result is not None for p in Player)
    if where == "redeal":  # the game really exchanged redeal keys
        assert any(b"\xa4keys\x93" in raw for raw in pair.records[Player.P0][6:])
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid, report.error


def test_canonical_key() -> None:
    k = (12345).to_bytes(32, "big")
    assert canonical_key(k) == canonical_key(negate(k)) == k
    assert canonical_key(bytes(32)) == bytes(32)
    assert canonical_key(ORDER.to_bytes(32, "big")) == ORDER.to_bytes(32, "big")
    assert canonical_key(b"short") == b"short"
