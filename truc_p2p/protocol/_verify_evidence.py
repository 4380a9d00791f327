"""What a signed message kept outside the chain proves, and against whom (wire.md
section 13.8): the judge :func:`judge_evidence`, pure, shared by ``truc-p2p
verify`` (through :mod:`truc_p2p.evidence`) and the tests.

Theory of operation
-------------------
A ``resume`` is signed but carries no time, and the transcript it is judged
against is written by the player who accuses (the *accuser*, whose ``abort``
``cheat`` ends the transcript).  Against its signer (the *accused*) a resume can
only prove what the accused's **own** signatures contradict:

* The accused's chain envelope at position *q* commits, through its ``prev``
  and the links before it, to every envelope at positions < *q*; the game id,
  which every resume of this game names, commits to both hellos.  So below the
  *committed* position (the last envelope of the first *N* that the accused
  signed, at least 1 for the hellos), the transcript is the chain the accused
  held, whoever wrote the file.
* A resume with *have* = *h* whose ``prev`` is not the hash of envelope
  *h* − 1, where *h* − 1 is committed, is a **proof** (``broken-chain``): the
  accused signed two chains of one game.  Above the committed position the
  envelopes are the accuser's alone, which it may have changed after the fact
  (it played X, the accused's resume names X, the file shows Y): the claim is
  then **the accuser's word**.
* A claim to lack one's own message (``bad-sequence``) is always the accuser's
  word: an answer echoes the accuser's nonce, but nobody else can tell when
  that nonce was made, so an old honest answer filed at a later abort reads
  the same.  A dialer's resume that lacks its own envelopes proves nothing at
  all (it may be older than them).

Anything else (another game's resume, a refuse, a bye, a chain envelope, an
unsigned message, a claim the chain agrees with, a transcript that does not
check up to its ending) proves nothing: :class:`ValueError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from truc_p2p.protocol._errors import RemoteProtocolError
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._values import game_id_of
from truc_p2p.protocol._verify_scan import first_pass
from truc_p2p.protocol._wire import GENESIS, decode_envelope, verify_signature

__all__ = ["EvidenceFinding", "judge_evidence"]

#: The two claims a kept resume can make against the chain (§13.1 step 5).
BROKEN_CHAIN = "broken-chain"
BAD_SEQUENCE = "bad-sequence"


@dataclass(frozen=True)
class EvidenceFinding:
    """What one kept envelope shows against its signer.

    ``proof`` is true only when the signer's own signatures contradict each
    other; otherwise the finding is the accuser's word (wire.md 13.8).
    """

    #: the signer of the evidence, the player it speaks against
    player: int
    #: the player whose ``abort`` ``cheat`` cites it
    accuser: int
    #: ``broken-chain`` or ``bad-sequence``
    code: str
    #: the position in the transcript the claim contradicts
    message_no: int
    proof: bool
    #: the accused's public key (32 bytes), from its hello
    key: bytes

    @property
    def weight(self) -> str:
        """``"proof"`` or ``"word"`` (the accuser's word): the JSON field's value."""
        return "proof" if self.proof else "word"


def judge_evidence(transcript: Sequence[bytes], evidence: Sequence[bytes]) -> list[EvidenceFinding]:
    """The findings of ``evidence`` (an evidence file's envelopes) against the
    players of ``transcript``; raises ``ValueError`` for an envelope that proves
    nothing.  Steps and their order: wire.md section 13.8."""
    scan = first_pass(transcript)
    if scan.error is not None or len(scan.envelopes) < 2:
        where = scan.error.message_no if scan.error is not None else len(scan.envelopes)
        raise ValueError(
            f"the evidence proves nothing: the transcript does not check at message {where}"
        )
    envelopes = scan.envelopes
    keys = {env.sender: env.payload["key"] for env in envelopes[:2]}
    game_id = game_id_of(envelopes[0].raw, envelopes[1].raw)
    chain = [env for env in envelopes if env.type != MessageType.ABORT]
    last = envelopes[-1]
    ending = (
        last if last.type == MessageType.ABORT and last.payload.get("reason") == "cheat" else None
    )
    findings = []
    for n, raw in enumerate(evidence):
        try:
            env = decode_envelope(raw)
        except RemoteProtocolError as exc:
            raise ValueError(f"evidence {n} does not decode: {exc}") from None
        if env.type != MessageType.RESUME or env.sender not in keys:
            raise ValueError(f"evidence {n} is not a resume of a player of this game")
        try:
            verify_signature(env, scan.keys[env.sender])
        except RemoteProtocolError:
            raise ValueError(f"evidence {n} is not signed by player {env.sender}") from None
        if env.game_id != game_id:
            raise ValueError(f"evidence {n} names another game")
        if ending is None or ending.sender == env.sender:
            raise ValueError(
                f"evidence {n} proves nothing: the transcript does not end with the "
                f"other player's abort cheat that it backs"
            )
        accuser, held = ending.sender, ending.seq
        detail = ending.payload.get("detail")
        detail = detail if isinstance(detail, str) else ""
        # first_pass checked that the abort's seq and prev are on the chain.
        have = env.seq
        if have > held:
            raise ValueError(
                f"evidence {n} claims more messages than player {accuser} held when it judged"
            )
        expected = chain[have - 1].hash if have else GENESIS
        if env.prev != expected:
            at = max(have - 1, 0)
            signed = [p for p in range(held) if chain[p].sender == env.sender]
            committed = max([1, *signed])
            code, proof = BROKEN_CHAIN, at <= committed
        else:
            lost = [p for p in range(have, held) if chain[p].sender == env.sender]
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
            code, at, proof = BAD_SEQUENCE, lost[0], False
        if not detail.startswith(code):
            raise ValueError(f"evidence {n} proves nothing: the abort does not cite {code}")
        findings.append(EvidenceFinding(env.sender, accuser, code, at, proof, keys[env.sender]))
    return findings
