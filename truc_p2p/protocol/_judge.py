"""Judgements the live session and the offline verifier share.

Where a receiver and a referee must reach the same verdict on the same
bytes, they call one function here rather than keeping two copies in step:
what a hello's terms are and whether they are well formed, whether the
responder's answer the initiator's (wire.md section 4), the coin (4), whose turn
it is and which message is due (5), where redeal material and the pipelined
``open`` may ride (5, 6b), which conditions hold after an action (5), what a
``reveal`` must cover (7), which ``result`` the game decides (7), who refused the
audit when an abort comes while a reveal is due (7, 10), who may resign where
and what a resignation records, and that a game has one ending (8).  The chain's
judgement is :mod:`._chain`'s, deck v2's deal messages' :mod:`.v2._judge`'s;
:mod:`._rulebook` names, for every message type, the handler both judges run
and these homes.  ``tests/protocol/test_protocol_one_judge.py``,
``tests/protocol/test_protocol_turn_agreement.py`` and
``tests/protocol/test_protocol_referee.py`` feed both the same hostile messages
and check that they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from truc_p2p.protocol._errors import (
    AuditFailedError,
    CheatDetectedError,
    MalformedMessageError,
    OutOfTurnError,
    ResultMismatchError,
    UnexpectedMessageError,
)
from truc_p2p.protocol._state import (
    STAGES,
    Cond,
    Stage,
    conditions_after_action,
    due_stage,
    expected_sender,
    predeal_conditions,
)
from truc_p2p.protocol._values import (
    coin_commitment,
    first_dealer_from_coins,
    parse_options,
    resignable,
    result_payload,
    without_early,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Event, Game, Phase, Player, RoundEnded, Ruleset

__all__ = [
    "HelloTerms",
    "Mark",
    "answer_agrees",
    "audit_refusal",
    "check_not_ended",
    "check_open",
    "check_options",
    "check_redeal_material",
    "check_resignation",
    "check_result",
    "check_reveal_covers",
    "check_turn",
    "coin_toss",
    "conditions_after",
    "expected_result",
    "hello_terms",
    "hellos_agree",
    "mark_before",
    "open_due",
    "resignation_hand",
]


@dataclass(frozen=True, kw_only=True)
class HelloTerms:
    """What a hello proposes: the ruleset and the parsed options."""

    ruleset: Ruleset
    audit: str
    deck: str
    pipeline: bool
    early: bool


def hello_terms(
    payload: dict[str, Any], *, message_no: int | None = None, evidence: tuple[bytes, ...] = ()
) -> HelloTerms:
    """The terms of a (shape-checked) hello's payload, or ``malformed``: a ruleset
    the rules refuse, options :func:`check_options` refuses."""
    try:
        ruleset = Ruleset.from_dict(payload["ruleset"])
    except ValueError as exc:
        raise MalformedMessageError(
            f"bad ruleset: {exc}", evidence=evidence, message_no=message_no
        ) from None
    try:
        audit, deck, pipeline, early = check_options(payload["options"], message_no=message_no)
    except MalformedMessageError as exc:
        exc.evidence = evidence
        raise
    return HelloTerms(ruleset=ruleset, audit=audit, deck=deck, pipeline=pipeline, early=early)


def hellos_agree(
    initiator: dict[str, Any], responder: dict[str, Any], *, rulesets: tuple[Ruleset, Ruleset]
) -> bool:
    """Whether two well-formed hellos make one game: one ruleset (the initiator's and
    the responder's ``rulesets``) and the responder's ``options`` answer the initiator's."""
    return rulesets[0] == rulesets[1] and answer_agrees(initiator, responder)


def check_options(options: Any, *, message_no: int | None = None) -> tuple[str, str, bool, bool]:
    """(audit, deck, pipeline, early) of a hello's ``options``, or ``malformed``:
    any shape :func:`~._values.parse_options` refuses (an unknown key, a value
    other than those listed, ``false``, ``nil`` or ``1`` for a flag, a deck v2
    option with deck v1).  Checked before any comparison with the other hello,
    so a malformed hello is ``malformed`` whoever reads it."""
    parsed = parse_options(options) if isinstance(options, dict) else None
    if parsed is None:
        raise MalformedMessageError(f"bad options {options}", message_no=message_no)
    return parsed


def answer_agrees(initiator: dict[str, Any], responder: dict[str, Any]) -> bool:
    """Whether the responder's (well-formed) options answer the initiator's: equal but
    for ``early``, which the responder may leave out and never add (early cards
    are negotiated down, wire.md section 4)."""
    added = responder.get("early") is True and initiator.get("early") is not True
    return not added and without_early(responder) == without_early(initiator)


def coin_toss(
    env: Envelope, *, commitment: bytes, responder_coin: bytes, linked_dealer: Player | None
) -> Player:
    """The first dealer the initiator's ``coin`` (``env``) decides, or ``cheat``: the coin
    must open the ``commitment`` of the initiator's hello.  A linked game's dealer is
    its series' (the dealers alternate, wire.md section 4.1); otherwise both coins
    decide (section 4)."""
    coin = env.payload["coin"]
    if coin_commitment(coin) != commitment:
        raise CheatDetectedError(
            "coin does not open the initiator's commitment",
            step="coin",
            evidence=(env.raw,),
            message_no=env.seq,
        )
    if linked_dealer is not None:
        return linked_dealer
    return first_dealer_from_coins(coin, responder_coin)


def audit_refusal(
    stage: Stage, game: Game | None, hand_ender: Player | None, abort: Envelope
) -> tuple[Player, str] | None:
    """Who refused the audit when ``abort`` (not a resignation) comes while a ``reveal``
    is due, and in what words (wire.md sections 7 and 10); ``None`` when no reveal is
    due.  The player whose reveal was due refused it (it aborted, or the other timed
    it out), unless the other aborted for another reason than ``timeout`` while
    waiting for that reveal: then it broke the audit off itself."""
    if stage not in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
        return None
    due = expected_sender(stage, game, hand_ender)
    aborter = Player(abort.sender)
    if aborter != due and abort.payload["reason"] != "timeout":
        return aborter, "aborted while waiting for the other player's reveal"
    return due, "did not reveal its seeds when the audit was due"


def check_not_ended(stage: Stage, ending: str, env: Envelope) -> None:
    """One ending per game (wire.md section 8): after the co-signed result or an
    ``abort`` (a resignation included) nothing may follow, and another ``abort`` is
    a second ending.  ``ending`` names the first ("a resignation", ...)."""
    if stage not in (Stage.DONE, Stage.ABORTED):
        return
    if env.type == "abort":
        what = "resignation" if env.payload.get("reason") == "resign" else "abort"
        raise UnexpectedMessageError(
            f"a second ending: {what} after {ending} (a game has one ending)",
            evidence=(env.raw,),
        )
    after = "the co-signed result" if stage is Stage.DONE else ending
    raise UnexpectedMessageError(f"message after {after}", evidence=(env.raw,))


def check_turn(
    stage: Stage,
    env: Envelope,
    *,
    game: Game | None,
    hand_ender: Player | None,
    predeal: int | None,
    rest_final: bool,
    message_no: int | None = None,
) -> Stage:
    """The stage whose message ``env`` is (an owed interjection of ``stage`` or
    ``stage`` itself, :func:`~._state.due_stage`), or the error: ``unexpected-message``
    once the game ended, ``out-of-turn`` from a player who is not due, and
    ``unexpected-message`` for a type other than the one due.  ``env``'s signature,
    chain and payload shape are checked before, by the caller."""
    evidence = (env.raw,)
    if stage not in STAGES:
        raise UnexpectedMessageError(
            f"{env.type!r} after the game ended", evidence=evidence, message_no=message_no
        )
    due = due_stage(stage, game, hand_ender, predeal, rest_final=rest_final)
    sender = expected_sender(due, game, hand_ender)
    mtype = STAGES[due][1]
    if env.sender != sender:
        raise OutOfTurnError(
            f"player {env.sender} sent {env.type!r}; player {sender} was due to send {mtype!r}",
            evidence=evidence,
            message_no=message_no,
        )
    if env.type != mtype:
        raise UnexpectedMessageError(
            f"{env.type!r} where {mtype!r} is due", evidence=evidence, message_no=message_no
        )
    return due


@dataclass(frozen=True)
class Mark:
    """Before a chain position: may a player resign there, and what would it record
    (the score, ``None`` when the referee cannot replay the hand, and the hand from 1)."""

    allowed: bool
    scores: tuple[int, int] | None
    hands: int


def resignation_hand(deck: str | None, *, v1_deals: int, hand: int) -> int:
    """The hand (from 1) a resignation records: deck v1 counts the hands whose
    ``deck1`` is on the chain (what a verifier without the seeds can count too),
    deck v2 the hands started (``hand`` is the current one, from 0)."""
    return max(1, v1_deals) if deck == "v1" else hand + 1


def mark_before(stage: Stage, game: Game | None, *, hands: int) -> Mark:
    """The mark before the next position, with the game as replayed so far."""
    return Mark(
        allowed=resignable(stage, game),
        scores=game.scores if game is not None else None,
        hands=hands,
    )


def check_resignation(
    agreed: bool, mark: Mark, *, message_no: int | None = None, evidence: tuple[bytes, ...] = ()
) -> None:
    """A resignation (``abort`` reason ``resign``) is valid only when both hellos
    announced resignation (``agreed``; else ``malformed``) and, at the point of the
    chain its ``seq`` names (``mark``), the game was under way and not decided."""
    if not agreed:
        raise MalformedMessageError(
            "abort reason 'resign' was not announced in both hellos",
            evidence=evidence,
            message_no=message_no,
        )
    if not mark.allowed:
        raise UnexpectedMessageError(
            "a resignation before the game started or after it was decided",
            evidence=evidence,
            message_no=message_no,
        )


def check_redeal_material(env: Envelope, payload: dict[str, Any], *, field: str, due: bool) -> None:
    """Redeal keys (deck v1) or shares (v2), payload ``field``, ride on the dealer's
    ``accept-redeal`` and on the non-dealer's first action after it (``due``), and
    nowhere else (wire.md section 5): else ``malformed``."""
    if due != (field in payload):
        raise MalformedMessageError(
            f"redeal {field} missing" if due else f"unexpected redeal {field}",
            evidence=(env.raw,),
            message_no=env.seq,
        )


def open_due(events: Sequence[Event], actor: Player, game: Game, *, predeal: int | None) -> bool:
    """Whether the action of ``actor`` that produced ``events`` (``game`` is after it)
    must carry ``open`` (wire.md section 6b): it ends a hand, not the game, whose
    successor is pre-dealt (both pre-deal messages, ``predeal`` == 2, are on the
    chain), and its sender deals that successor.  ``open`` anywhere else is
    ``malformed``, as its absence there is."""
    ended = any(isinstance(e, RoundEnded) for e in events)
    return predeal == 2 and ended and game.phase is Phase.DEAL and actor == game.dealer


def check_open(env: Envelope, payload: dict[str, Any], *, due: bool) -> None:
    """``open`` rides exactly where :func:`open_due` says (``due``)."""
    if due != ("open" in payload):
        raise MalformedMessageError(
            "the next dealer's shares must ride on its action that ends the hand, and only there",
            evidence=(env.raw,),
            message_no=env.seq,
        )


def conditions_after(
    events: Sequence[Event],
    *,
    audit_mode: str,
    hands: int,
    audited: int,
    early_redeal: bool,
    predeal: int | None,
    opened: bool,
) -> dict[Cond, bool]:
    """Every transition condition of :mod:`._state` after an action produced
    ``events``: the hand's and the game's end, the audit, early redeal cards and the
    pipelined deal (``predeal`` of the next hand's pre-deal messages on the chain,
    ``opened``: the action carried ``open``)."""
    holds = conditions_after_action(
        events, audit_mode=audit_mode, hands=hands, audited=audited, early_redeal=early_redeal
    )
    holds.update(predeal_conditions(holds[Cond.ROUND_OVER], predeal or 0))
    holds[Cond.OPENED] = opened
    return holds


def check_reveal_covers(env: Envelope, *, audited: int, hands: int) -> list[int]:
    """The hands a ``reveal`` covers, which must be exactly those not audited yet:
    ``audited`` up to ``hands`` - 1 (wire.md section 7); else ``audit-failed``."""
    first, seeds = env.payload["first"], env.payload["seeds"]
    if first != audited or first + len(seeds) != hands:
        raise AuditFailedError(
            f"player {env.sender}'s reveal covers hands {first}..{first + len(seeds) - 1}, "
            f"expected {audited}..{hands - 1}",
            step="reveal",
            evidence=(env.raw,),
            message_no=env.seq,
        )
    return list(range(first, hands))


def expected_result(game: Game, *, hands: int, chain: bytes) -> dict[str, Any]:
    """The ``result`` payload the game as played decides (wire.md section 7): the
    outcome, ``hands`` hands, ``chain`` the hash of the envelope before the result."""
    outcome = game.outcome()
    assert outcome is not None
    return result_payload(outcome, hands=hands, chain=chain)


def check_result(env: Envelope, expected: dict[str, Any] | None) -> None:
    """A ``result`` must state exactly the ``expected`` one; else ``result-mismatch``."""
    if env.payload != expected:
        raise ResultMismatchError(
            f"player {env.sender}'s result {env.payload} disagrees with the replay {expected}",
            evidence=(env.raw,),
            message_no=env.seq,
        )
