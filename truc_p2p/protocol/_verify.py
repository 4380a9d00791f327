"""The offline verifier: replays a transcript as a neutral referee.

Theory of operation
-------------------
Pass 1 checks what needs no game state: framing, the strict envelope shape,
every Ed25519 signature (keys from the two hellos), the sequence numbers,
the hash chain, the game id and each payload's shape; it also collects the
seeds revealed at the audits.

Pass 2 replays the game up to the first pass-1 fault.  With both seeds of a
hand it rebuilds both players' deck state (:class:`~truc_p2p.deck.DeckSide`
for the dealer and for the non-dealer) and feeds every deck message to the
*receiving* side, so every check a live receiver runs is run again; it also
compares each message with what the sender's revealed seed produces, byte
for byte, which is the audit.  Actions go through an omniscient rules
engine.  The result messages must both state the outcome the referee
computed.  The first violation, whichever pass found it, is reported with
its message number.

A deck v2 game (``"deck": "v2"`` in the hellos' options) has no seeds to
reveal: each hand is replayed with :class:`~truc_p2p.deck.HandVerifierV2`,
which checks every key, shuffle and share proof of every deal message,
redeal and shown card from the signed payloads alone, and a spectator's
rules engine (no hand known, only the cards shown) checks every action.

A game may also end with a signed resignation (``abort`` reason ``resign``,
wire.md section 8.1), valid when both hellos announce it and the chain before
it (its ``seq``: moves that crossed it are void) has a game under way.  Pass 2
notes before every position what a resignation there would record (a
:class:`~._judge.Mark`), so a crossed resignation reads its score and hand from the
point its sender had seen.  Every report has a status -- complete, unfinished
or violation -- and a one-sentence :meth:`VerifyReport.headline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from truc_p2p.protocol._errors import (
    AuditRefusedError,
    CheatDetectedError,
    RemoteProtocolError,
)
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import (
    Stage,
)
from truc_p2p.protocol._values import game_id_of
from truc_p2p.protocol._wire import decode_envelope, fingerprint

if TYPE_CHECKING:
    pass


from truc_p2p.protocol._referee import Referee
from truc_p2p.protocol._verify_report import PlayerInfo, VerifyReport
from truc_p2p.protocol._verify_scan import (
    Scan,
    add_local_seeds,
    check_lone_reveal,
    first_pass,
    unknown_features,
    v1_hidden_cards,
)

__all__ = ["PlayerInfo", "VerifyReport", "verify_transcript"]


class _GameAborted(RemoteProtocolError):
    """A player ended the game with an ``abort``: no result, nothing to audit."""

    code = "aborted"


class _GameIncomplete(RemoteProtocolError):
    """The transcript stops before the co-signed result."""

    code = "incomplete"


def _first_fault(scan: Scan, referee: Referee) -> tuple[RemoteProtocolError | None, bool]:
    """Replay the game: the first fault of either pass (a refused audit, an aborted or
    unfinished game included), and whether the game ended completely."""
    error = referee.run()
    if error is None:
        error = scan.error
    complete = referee.stage is Stage.DONE or referee.resigned is not None
    if error is None and referee.blind_hand is not None and len(scan.reveals) % 2 == 1:
        error = check_lone_reveal(scan)
    refuser = referee.refused_by
    if refuser is None and referee.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
        refuser = referee.referee.expected_sender()
    if error is None and not complete and refuser is not None:
        last = scan.envelopes[-1] if scan.envelopes else None
        error = AuditRefusedError(
            f"player {int(refuser)} {referee.refusal}: the audit was refused"
            + (f"; {referee.ended_by}" if referee.ended_by else ""),
            step="reveal",
            # an abort sits at its position in the transcript (its seq may be earlier)
            message_no=len(scan.envelopes) - 1
            if last is not None and last.type == MessageType.ABORT
            else None,
        )
    if error is None and not complete:
        if referee.ended_by is not None:
            error = _GameAborted(f"the game did not finish: {referee.ended_by}")
        elif referee.blind_hand is not None:
            error = _GameIncomplete(
                f"the transcript ends before hand {referee.blind_hand} was audited "
                "(a seed was never revealed)"
            )
        else:
            error = _GameIncomplete(
                f"the transcript ends in stage {referee.stage.value}, before the co-signed result"
            )
    return error, complete


def verify_transcript(
    envelopes: Sequence[bytes], *, local_secret: bytes | None = None
) -> VerifyReport:
    """Check a whole transcript (raw envelopes in order).  Never raises on bad data.

    ``local_secret`` is the session secret of the player who recorded the
    transcript (stored beside it).  With it, hands whose seeds were never
    revealed (a game stopped before its audit) are replayed from that
    player's view, so a fault in them is pinpointed too; such findings rest
    on a seed only that player knows, and the report says so.
    """
    unknown = unknown_features(envelopes)
    if unknown:
        return _cannot_judge(envelopes, unknown)
    scan = first_pass(envelopes)
    secret_owner = add_local_seeds(scan, local_secret) if local_secret is not None else None
    if local_secret is not None and secret_owner is None:
        return VerifyReport(
            valid=False,
            messages=len(envelopes),
            error="the local secret does not belong to this transcript",
            error_code="bad-secret",
        )
    referee = Referee(scan)
    error, complete = _first_fault(scan, referee)
    aborter: int | None = None
    abort_reason: str | None = None
    last = scan.envelopes[-1] if scan.envelopes else None
    if last is not None and last.type == MessageType.ABORT:
        aborter, abort_reason = last.sender, last.payload["reason"]
    game = referee.game
    outcome = game.outcome() if game is not None else None
    valid = error is None and complete
    score = outcome.scores if outcome else (game.scores if game else None)
    winner = int(outcome.winner) if outcome else None
    reason = outcome.reason.value if outcome else None
    hands = referee.hand + 1
    resigned_by: int | None = None
    if referee.resigned is not None and error is None:
        resigner, mark = referee.resigned
        resigned_by, winner, reason = int(resigner), int(resigner.other), "resigned"
        score, hands = mark.scores, mark.hands
    audited = valid and resigned_by is None  # a resignation needs (and gets) no audit
    audit = (
        "passed"
        if audited
        else "failed"
        if isinstance(error, CheatDetectedError)
        else "not reached"
    )
    hidden: int | None = None
    if referee.deck == "v2":
        # Every message present was proven on replay; nothing is left to audit.
        audit = "failed" if isinstance(error, CheatDetectedError) else "proofs"
        hidden = referee.v2_hidden
    elif referee.deck == "v1":
        hidden = v1_hidden_cards(scan)
    return VerifyReport(
        valid=valid,
        messages=len(envelopes),
        game_id=referee.game_id.hex() if referee.game_id else None,
        players=tuple(referee.players),
        ruleset=dict(referee.ruleset.to_dict()) if referee.ruleset else None,
        audit_mode=referee.audit_mode,
        hands=hands,
        score=score,
        winner=winner,
        reason=reason,
        audit=audit,
        error=None if error is None else str(error.args[0]),
        error_code=None if error is None else error.code,
        error_message_no=None if error is None else error.message_no,
        ended_by=referee.ended_by,
        local_secret_of=int(secret_owner) if secret_owner is not None else None,
        deck=referee.deck,
        hidden_cards_revealed=hidden,
        first_dealer=int(game.first_dealer) if game is not None else None,
        moves=tuple((int(p), a) for p, a in game.history) if game is not None else (),
        status=_status(valid, error),
        resigned_by=resigned_by,
        culprit=_culprit(scan, referee, error),
        aborted_by=aborter,
        abort_reason=abort_reason,
    )


def _cannot_judge(envelopes: Sequence[bytes], unknown: tuple[int | str, ...]) -> VerifyReport:
    """The report on a game whose hellos agree on a feature this verifier does not
    know (wire.md section 11.2): the envelope layer (framing, signatures, sequence,
    chain, game id) is checked, as no feature changes it, and a fault there is a
    violation as usual; the rest is not judged, and nobody is blamed."""
    scan = first_pass(envelopes, payloads=False)
    players = tuple(
        PlayerInfo(
            name=str(env.payload.get("name", f"player {n}")),
            fingerprint=fingerprint(env.payload["key"]),
        )
        for n, env in enumerate(scan.envelopes[:2])
    )
    what = ", ".join(f"feature {u}" if isinstance(u, int) else f"option {u!r}" for u in unknown)
    error = scan.error
    hellos = scan.envelopes[:2]
    game_id = game_id_of(hellos[0].raw, hellos[1].raw).hex() if len(hellos) == 2 else None
    if error is not None:
        n = error.message_no
        proven = error.code in _PROVEN_BY_SIGNATURE and n is not None and n < len(envelopes)
        return VerifyReport(
            valid=False,
            messages=len(envelopes),
            game_id=game_id,
            players=players,
            error=str(error.args[0]),
            error_code=error.code,
            error_message_no=n,
            status="violation",
            culprit=_signer(envelopes[n]) if proven and n is not None else None,
            unknown_features=unknown,
        )
    return VerifyReport(
        valid=False,
        messages=len(envelopes),
        game_id=game_id,
        players=players,
        error=f"this game uses {what}, unknown to this verifier",
        error_code="unknown-feature",
        status="unknown-feature",
        unknown_features=unknown,
    )


#: Envelope-layer faults whose message's own signature checked, so its signer is
#: proven to have sent it (an equivocation: two signed messages at one place).
_PROVEN_BY_SIGNATURE = frozenset({"equivocation"})


def _signer(raw: bytes) -> int | None:
    try:
        return decode_envelope(raw).sender
    except RemoteProtocolError:
        return None


def _status(valid: bool, error: RemoteProtocolError | None) -> str:
    """complete, unfinished (stops or was left without a violation) or violation."""
    if valid:
        return "complete"
    if isinstance(error, _GameAborted | _GameIncomplete):
        return "unfinished"
    return "violation"


def _culprit(scan: Scan, referee: Referee, error: RemoteProtocolError | None) -> int | None:
    """The player a violation is proven against: the signer of the failing message
    once its signature checked (pass 2), or the player who refused the audit."""
    if error is None or isinstance(error, _GameAborted | _GameIncomplete):
        return None
    if isinstance(error, AuditRefusedError):
        refuser = referee.refused_by
        if refuser is None and referee.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
            refuser = referee.referee.expected_sender()
        return int(refuser) if refuser is not None else None
    n = error.message_no
    if error is scan.error or n is None or n >= len(scan.envelopes):
        return None  # found before the signature could be trusted: nobody is proven
    return scan.envelopes[n].sender
