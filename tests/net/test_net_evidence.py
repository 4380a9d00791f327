"""Evidence kept outside the chain (issue 21 point 9, wire.md 13.8): a peer's signed
``resume`` that lies about the chain is written beside the transcript before the
abort it backs, and :func:`check_evidence` names the liar."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from net_helpers import new_session

from truc_p2p.bots import make_bot
from truc_p2p.cli import main
from truc_p2p.evidence import check_evidence, evidence_path_for, keep_evidence
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    RemoteProtocolError,
    SequenceError,
    Session,
    YourTurn,
    decode_envelope,
    fingerprint,
    frame,
)
from truc_p2p.protocol._wire import envelope_hash, sign_envelope
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter, read_transcript

P0, P1 = Player.P0, Player.P1


def _key(role: Player) -> Ed25519PrivateKey:
    """The key :func:`new_session` derives for ``role`` (seed 0)."""
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"net-tests/0/{int(role)}/key".encode()).digest()
    )


def _play_some(messages: int) -> tuple[dict[Player, Session], dict[Player, list[bytes]]]:
    """Two sessions back to back until P1's transcript holds ``messages`` envelopes."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {p: new_session(p, record=records[p]) for p in (P0, P1)}
    bots = {p: make_bot("random", int(p)) for p in (P0, P1)}
    while len(records[P1]) < messages:
        for p in (P0, P1):
            s, other = sessions[p], sessions[p.other]
            while True:
                event = s.next_event()
                if event is NEED_DATA or event is CLOSED:
                    break
                if isinstance(event, YourTurn):
                    other.receive_data(s.send(bots[p].choose(s.game)))
            other.receive_data(s.data_to_send())
    return sessions, records


def _resume(liar: Player, victim: Session, chain: list[bytes], have: int) -> bytes:
    return sign_envelope(
        _key(liar),
        game_id=victim.game_id,
        seq=have,
        prev=envelope_hash(chain[have - 1]),
        sender=int(liar),
        type="resume",
        payload={"nonce": secrets.token_bytes(16), "echo": b""},
    )


def test_a_resume_claiming_to_lack_its_own_message_is_kept_and_names_the_liar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    own = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(P0))
    lie = _resume(P0, victim, chain, own)  # "I lack message `own`" -- which it signed
    victim.reconnect(secrets.token_bytes(16), dialer=False)
    victim.receive_data(frame(lie))
    with pytest.raises(SequenceError) as caught:
        victim.next_event()
    transcript = tmp_path / "game.truc"
    assert keep_evidence(transcript, caught.value) == 1
    kept = read_transcript(evidence_path_for(transcript))
    assert kept == [lie]
    (finding,) = check_evidence(chain, kept)
    assert finding.player == 0 and finding.message_no == own
    assert finding.fingerprint == fingerprint(_key(P0).public_key())
    assert "which it signed itself" in str(finding) and "player 0" in str(finding)
    # ``truc-p2p verify`` on the victim's transcript names the liar.
    writer = TranscriptWriter(transcript, sync="never")
    for raw in chain:
        writer.append(raw)
    writer.close()
    assert main(["verify", str(transcript)]) == 3  # an unfinished game (exit 3, not a cheat)
    out = capsys.readouterr().out
    assert f"evidence (game.truc.evidence): player 0 (key {finding.fingerprint[:16]}" in out


def test_evidence_that_proves_nothing_is_refused() -> None:
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    honest = _resume(P0, victim, chain, len(chain))  # holds everything: no lie
    with pytest.raises(ValueError, match="proves nothing"):
        check_evidence(chain, [honest])
    own = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(P0))
    lie = _resume(P0, victim, chain, own)
    forged = lie[:-1] + bytes([lie[-1] ^ 1])  # not the liar's signature any more
    with pytest.raises(ValueError, match="not signed"):
        check_evidence(chain, [forged])


def test_only_control_messages_are_kept() -> None:
    _, records = _play_some(4)
    chained = RemoteProtocolError("a chain message", evidence=(records[P1][-1],))
    assert keep_evidence(Path("/nonexistent/dir/x.truc"), chained) == 0  # nothing to write
