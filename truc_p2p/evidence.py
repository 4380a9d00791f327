"""Evidence kept outside the chain: a refused signed control message that proves
misbehaviour (wire.md section 13.8).

A ``resume`` is signed but not chained, so the session never records it.
When a peer's valid ``resume`` makes a claim that contradicts the chain
(it names another message than ours at its *have* − 1: ``broken-chain``; or
it says it lacks a message it signed itself: ``bad-sequence``), the game
ends with our ``abort`` ``cheat`` -- and that abort must be backed.  So the
refused message is written, before the abort is signed, to
``<transcript>.evidence``: a file in the transcript format (magic, then
framed envelopes) holding only such signed control messages.

:func:`check_evidence` reads it against the transcript: each envelope must
verify under the key its sender presented in its hello, the transcript must
end with the other player's ``abort`` ``cheat`` that cites it, and its claim
must contradict the chain as that player held it when it signed the abort
(the first *N* envelopes, *N* the abort's ``seq``) -- never envelopes after it,
which the resume's sender may well have signed after its resume; each
finding names the player (seat and key fingerprint) it proves against;
:func:`evidence_lines` is what ``truc-p2p verify`` prints.  The transcript
itself, its chain and its verification are unchanged.  No network code here:
``verify`` imports this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from truc_p2p.crypto import VerifyKey
from truc_p2p.protocol import (
    GENESIS,
    MessageType,
    RemoteProtocolError,
    ResumeLieError,
    decode_envelope,
    envelope_hash,
    fingerprint,
    verify_signature,
)
from truc_p2p.transcript import TranscriptWriter, read_transcript

__all__ = [
    "Finding",
    "check_evidence",
    "evidence_lines",
    "evidence_path_for",
    "keep_evidence",
    "read_evidence",
]


def evidence_path_for(transcript: Path) -> Path:
    """Where the evidence of ``transcript`` is kept: ``<transcript>.evidence``."""
    return transcript.with_name(transcript.name + ".evidence")


def keep_evidence(transcript: Path, error: RemoteProtocolError) -> int:
    """Append the lying ``resume`` of ``error`` (a :class:`ResumeLieError`, the one
    that the coming ``abort`` ``cheat`` cites) to the evidence file, synced; how
    many envelopes were kept.  Any other error keeps nothing: its evidence is on
    the chain, or it proves nothing (an honest resume, a stale one, a resume
    where a chain message was due)."""
    if not isinstance(error, ResumeLieError):
        return 0
    kept = []
    for raw in error.evidence:
        try:
            env = decode_envelope(raw)
        except RemoteProtocolError:
            continue
        if env.type == MessageType.RESUME:
            kept.append(raw)
    if not kept:
        return 0
    path = evidence_path_for(transcript)
    writer = (
        TranscriptWriter.open_append(path, sync="each")
        if path.exists()
        else TranscriptWriter(path, sync="each")
    )
    try:
        for raw in kept:
            writer.append(raw)
        writer.sync()
    finally:
        writer.close()
    return len(kept)


@dataclass(frozen=True)
class Finding:
    """What one piece of evidence proves, and against whom."""

    player: int
    fingerprint: str
    what: str
    #: The position in the transcript the claim contradicts.
    message_no: int

    def __str__(self) -> str:
        return (
            f"player {self.player} (key {self.fingerprint[:16]}…) signed a resume that "
            f"{self.what} (message {self.message_no})"
        )


def _keys(transcript: Sequence[bytes]) -> dict[int, bytes]:
    keys: dict[int, bytes] = {}
    for raw in transcript[:2]:
        try:
            env = decode_envelope(raw)
        except RemoteProtocolError:
            continue
        key = env.payload.get("key")
        if env.type == MessageType.HELLO and isinstance(key, bytes) and len(key) == 32:
            keys[env.sender] = key
    return keys


def _ending(transcript: Sequence[bytes]) -> tuple[int, int, bytes, str] | None:
    """The transcript's last envelope, if it is an ``abort`` ``cheat``: its sender,
    the chain position it was signed at (its ``seq``), its ``prev`` and its detail."""
    if not transcript:
        return None
    try:
        env = decode_envelope(transcript[-1])
    except RemoteProtocolError:
        return None
    if env.type != MessageType.ABORT or env.payload.get("reason") != "cheat":
        return None
    detail = env.payload.get("detail")
    return env.sender, env.seq, env.prev, detail if isinstance(detail, str) else ""


def check_evidence(transcript: Sequence[bytes], evidence: Sequence[bytes]) -> list[Finding]:
    """The findings that ``evidence`` proves against the players of ``transcript``;
    raises ``ValueError`` for evidence that proves nothing (unsigned, another
    game's, not cited by the transcript's ending, or a claim that the chain as
    the accuser held it agrees with).

    Signatures carry no time, so a resume is judged only against what its
    receiver held when it judged it: the transcript must end with the receiver's
    signed ``abort`` ``cheat`` naming the claim (its detail starts with
    ``broken-chain`` or ``bad-sequence``), and the resume is checked against the
    chain before that abort's ``seq`` *N*, never against envelopes after it
    (wire.md section 13.8).  A claim to lack one's own message convicts only in
    an answer (its ``echo`` is the receiver's nonce): a dialer's resume may be an
    old one, signed before the messages it lacks.
    """
    keys = _keys(transcript)
    chain = [env for env in transcript if _chained(env)]
    hashes = [envelope_hash(raw) for raw in chain]
    senders = [decode_envelope(raw).sender for raw in chain]
    game_id = decode_envelope(chain[1]).game_id if len(chain) > 1 else b""
    ending = _ending(transcript)
    findings = []
    for n, raw in enumerate(evidence):
        try:
            env = decode_envelope(raw)
        except RemoteProtocolError as exc:
            raise ValueError(f"evidence {n} does not decode: {exc}") from None
        if env.type != MessageType.RESUME or env.sender not in keys:
            raise ValueError(f"evidence {n} is not a resume of a player of this game")
        key = keys[env.sender]
        try:
            verify_signature(env, VerifyKey.from_bytes(key))
        except RemoteProtocolError:
            raise ValueError(f"evidence {n} is not signed by player {env.sender}") from None
        if game_id and env.game_id != game_id:
            raise ValueError(f"evidence {n} names another game")
        if ending is None or ending[0] == env.sender:
            raise ValueError(
                f"evidence {n} proves nothing: the transcript does not end with the "
                f"other player's abort cheat that it backs"
            )
        accuser, held, at_prev, detail = ending
        if held > len(chain) or at_prev != (hashes[held - 1] if held else GENESIS):
            raise ValueError(f"evidence {n} proves nothing: the abort is not on the chain")
        have = env.seq
        if have > held:
            raise ValueError(
                f"evidence {n} claims more messages than player {accuser} held when it judged"
            )
        expected = hashes[have - 1] if have else GENESIS
        if env.prev != expected:
            code, what, at = (
                "broken-chain",
                f"names another message {have - 1} than the transcript's",
                max(have - 1, 0),
            )
        else:
            lost = [p for p in range(have, held) if senders[p] == env.sender]
            if not lost:
                raise ValueError(
                    f"evidence {n} agrees with the chain player {accuser} held "
                    f"({held} messages): it proves nothing"
                )
            if not env.payload.get("echo"):
                raise ValueError(
                    f"evidence {n} proves nothing: a dialer's resume that lacks message "
                    f"{lost[0]} may be older than that message"
                )
            code, what, at = (
                "bad-sequence",
                f"says it lacks message {lost[0]}, which it signed itself",
                lost[0],
            )
        if not detail.startswith(code):
            raise ValueError(f"evidence {n} proves nothing: the abort does not cite {code}")
        findings.append(Finding(env.sender, fingerprint(key), what, at))
    return findings


def _chained(raw: bytes) -> bool:
    """Whether ``raw`` is on the chain (an abort is recorded at its arrival, off it)."""
    try:
        return decode_envelope(raw).type != MessageType.ABORT
    except RemoteProtocolError:
        return False


def read_evidence(transcript: Path) -> list[bytes] | None:
    """The evidence kept beside ``transcript``, or ``None`` if there is none."""
    path = evidence_path_for(transcript)
    return read_transcript(path) if path.exists() else None


def evidence_lines(transcript: Path, envelopes: Sequence[bytes]) -> list[str]:
    """What ``truc-p2p verify`` says about the evidence kept beside ``transcript``
    (nothing when there is none); never raises."""
    path = evidence_path_for(transcript)
    try:
        evidence = read_evidence(transcript)
    except (OSError, ValueError) as exc:
        return [f"evidence: cannot read {path.name}: {exc}"]
    if not evidence:
        return []
    try:
        findings = check_evidence(envelopes, evidence)
    except (ValueError, IndexError) as exc:
        return [f"evidence: {path.name} proves nothing: {exc}"]
    return [f"evidence ({path.name}): {finding}" for finding in findings]
