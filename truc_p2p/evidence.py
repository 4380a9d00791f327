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
finding names the player (seat and key fingerprint) it speaks against, and
whether it is a proof (that player's own signatures contradict each other) or
only the word of the other player, who wrote the transcript
(:mod:`truc_p2p.protocol._verify_evidence` judges);
:func:`evidence_lines` is what ``truc-p2p verify`` prints in English.  The transcript
itself, its chain and its verification are unchanged.  No network code here:
``verify`` imports this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from truc_p2p.protocol import (
    EvidenceFinding,
    MessageType,
    RemoteProtocolError,
    ResumeLieError,
    decode_envelope,
    fingerprint,
    judge_evidence,
)
from truc_p2p.transcript import TranscriptWriter, read_transcript

__all__ = [
    "EvidenceCheck",
    "Finding",
    "check_evidence",
    "check_evidence_file",
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
    """What one piece of evidence shows, and against whom: a proof, or the word of
    the other player (the accuser) -- wire.md section 13.8."""

    player: int
    fingerprint: str
    what: str
    #: The position in the transcript the claim contradicts.
    message_no: int
    #: ``broken-chain`` or ``bad-sequence``
    code: str = "broken-chain"
    #: the player whose abort cheat cites the evidence
    accuser: int = 0
    #: true only when the player's own signatures contradict each other
    proof: bool = True

    @property
    def weight(self) -> str:
        """``"proof"``, or ``"word"``: the other player's word, not a proof."""
        return "proof" if self.proof else "word"

    def __str__(self) -> str:
        claim = (
            f"player {self.player} (key {self.fingerprint[:16]}…) signed a resume that "
            f"{self.what} (message {self.message_no})"
        )
        return claim if self.proof else f"the other player's word, not a proof: {claim}"

    def to_json(self) -> dict[str, object]:
        """The finding in ``verify --json``'s ``evidence_findings`` (wire.md 13.8)."""
        return {
            "player": self.player,
            "fingerprint": self.fingerprint,
            "code": self.code,
            "message_no": self.message_no,
            "accuser": self.accuser,
            "weight": self.weight,
        }


def _what(finding: EvidenceFinding) -> str:
    if finding.code == "broken-chain":
        return f"names another message {finding.message_no} than the transcript's"
    return f"says it lacks message {finding.message_no}, which it signed itself"


def check_evidence(transcript: Sequence[bytes], evidence: Sequence[bytes]) -> list[Finding]:
    """The findings that ``evidence`` shows against the players of ``transcript``;
    raises ``ValueError`` for evidence that proves nothing (unsigned, another
    game's, not cited by the transcript's ending, a claim that the chain as the
    accuser held it agrees with, or a transcript that does not check).

    Signatures carry no time, so a resume is judged only against what its
    receiver held when it judged it: the transcript must end with the receiver's
    signed ``abort`` ``cheat`` naming the claim, and the resume is checked against
    the chain before that abort's ``seq``.  A finding is a proof only where the
    accused's own signatures contradict each other; where the accuser's chain is
    the only witness it is the accuser's word (``proof`` false): see
    :mod:`truc_p2p.protocol._verify_evidence` and wire.md section 13.8.
    """
    return [
        Finding(
            f.player,
            fingerprint(f.key),
            _what(f),
            f.message_no,
            code=f.code,
            accuser=f.accuser,
            proof=f.proof,
        )
        for f in judge_evidence(transcript, evidence)
    ]


def read_evidence(transcript: Path) -> list[bytes] | None:
    """The evidence kept beside ``transcript``, or ``None`` if there is none."""
    path = evidence_path_for(transcript)
    return read_transcript(path) if path.exists() else None


@dataclass(frozen=True)
class EvidenceCheck:
    """The evidence file beside a transcript, judged: what ``truc-p2p verify``
    reports (its words: :func:`evidence_lines` in English, ``truc_p2p.ui`` in the
    language in use)."""

    #: the evidence file's name
    name: str
    findings: tuple[Finding, ...] = ()
    #: why the file proves nothing (the judge's reason), or None
    nothing: str | None = None
    #: why the file cannot be read, or None
    unreadable: str | None = None


def check_evidence_file(transcript: Path, envelopes: Sequence[bytes]) -> EvidenceCheck | None:
    """The evidence kept beside ``transcript`` judged against ``envelopes`` (its
    envelopes), or ``None`` when there is none; never raises."""
    path = evidence_path_for(transcript)
    try:
        evidence = read_evidence(transcript)
    except (OSError, ValueError) as exc:
        return EvidenceCheck(path.name, unreadable=str(exc))
    if not evidence:
        return None
    try:
        return EvidenceCheck(path.name, tuple(check_evidence(envelopes, evidence)))
    except (ValueError, IndexError) as exc:
        return EvidenceCheck(path.name, nothing=str(exc))


def evidence_lines(transcript: Path, envelopes: Sequence[bytes]) -> list[str]:
    """What ``truc-p2p verify`` says in English about the evidence kept beside
    ``transcript`` (nothing when there is none); never raises."""
    check = check_evidence_file(transcript, envelopes)
    if check is None:
        return []
    if check.unreadable is not None:
        return [f"evidence: cannot read {check.name}: {check.unreadable}"]
    if check.nothing is not None:
        return [f"evidence: {check.name} proves nothing: {check.nothing}"]
    return [f"evidence ({check.name}): {finding}" for finding in check.findings]
