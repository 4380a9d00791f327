"""The protocol state machine, as data.

Everything that decides *who may send what next* lives in :data:`STAGES` and
:data:`TRANSITIONS`; the one referee (:class:`~._referee_core.RefereeCore`), which
the session and the offline verifier both run, walks them, and
``protocol_spec/wire.md`` is generated from them (see
``python -m truc_p2p.protocol._specgen``).

A stage names the one message type that may come next and which player must
send it.  Deck v1 and deck v2 share the handshake and the co-signed result;
the coin flip branches on the negotiated deck (``Cond.DECK_V2``): v1 deals in
four messages and audits revealed seeds, v2 deals in three proven messages
(the non-dealer first) and goes from the last action straight to the result.
After a message is applied, the first transition of the stage whose
condition holds gives the next stage.

**Pipelined deal** (deck v2 with ``"pipeline": true``): the deal of hand
*n + 1* is interleaved with the play of hand *n*.  Its two heavy messages are
*interjections* (:data:`INTERJECTIONS`): while ``v2play`` is the stage, the
player due sends its owed pre-deal message first (``v2predeal1``: the next
non-dealer's ``v2deck1``, owed from the end of hand *n*'s deal;
``v2predeal2``: the next dealer's ``v2deck2`` without shares, owed once the
``v2deck1`` is on the chain), then its action.  When hand *n* ends, the
first transition that holds picks up the deal where the pre-deal left it:
the new dealer's shares rode on its hand-ending action (``open``,
``Cond.OPENED``) or follow in ``v2open``, or the deal resumes at ``v2deck2``
or ``v2deck1``.

**Early cards** (deck v2 with ``"early": true`` in both hellos): the
non-dealer may send its ``v2deck3`` without ``action`` as soon as it holds
its cards (``Cond.EARLY``), so the dealer sees its hand while the non-dealer
thinks; its first action then follows in ``v2first`` as a ``v2action``.

**Early redeal cards** (deck v2, both hello nonces announce feature bit 2):
right after the dealer's ``accept-redeal`` the non-dealer sends its shares
for the dealer's new cards in a ``v2redeal`` of their own (``Cond.REDEALT``,
stage ``v2redeal``), so the dealer sees its redealt hand while the
non-dealer thinks; the non-dealer's next action then carries no ``shares``.
``abort`` may be sent by either player in any stage before ``DONE``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from truc_p2p.protocol._messages import MAX_SEEDS_PER_REVEAL, MessageType
from truc_p2p.rules import (
    Acted,
    ActionKind,
    Event,
    Game,
    GameEnded,
    Player,
    RestRefused,
    RoundEnded,
)

__all__ = [
    "ACTION_STAGES",
    "FIRST_DEAL_STAGES",
    "INTERJECTIONS",
    "INTERJECTIONS_WAIVED",
    "STAGES",
    "TRANSITIONS",
    "V2_DEAL_STARTS",
    "Cond",
    "Sender",
    "Stage",
    "conditions_after_action",
    "due_stage",
    "expected_sender",
    "next_stage",
    "predeal_conditions",
    "rest_decides",
]


class Stage(enum.Enum):
    HELLO_INITIATOR = "hello-initiator"
    HELLO_RESPONDER = "hello-responder"
    COIN = "coin"
    DECK1 = "deck1"
    DECK2 = "deck2"
    DECK3 = "deck3"
    DECK4 = "deck4"
    PLAY = "play"
    V2_DECK1 = "v2deck1"
    V2_DECK2 = "v2deck2"
    V2_DECK3 = "v2deck3"
    V2_FIRST = "v2first"
    V2_PLAY = "v2play"
    V2_REDEAL = "v2redeal"
    V2_PREDEAL1 = "v2predeal1"
    V2_PREDEAL2 = "v2predeal2"
    V2_OPEN = "v2open"
    REVEAL_FIRST = "reveal-first"
    REVEAL_SECOND = "reveal-second"
    RESULT_FIRST = "result-first"
    RESULT_SECOND = "result-second"
    DONE = "done"
    ABORTED = "aborted"
    ERROR = "error"


class Sender(enum.Enum):
    """Which player sends in a stage, in protocol terms."""

    INITIATOR = "initiator (player 0)"
    RESPONDER = "responder (player 1)"
    DEALER = "dealer of the hand"
    NONDEALER = "non-dealer of the hand"
    NEXT_NONDEALER = "non-dealer of the next hand"
    NEXT_DEALER = "dealer of the next hand"
    TO_ACT = "player to act (rules engine); the non-dealer while a redeal is being dealt"
    FIRST = "the player who did not send the message that ended the hand"
    SECOND = "the player who sent the message that ended the hand"


class Cond(enum.Enum):
    ALWAYS = "always"
    DECK_V2 = "the players chose deck v2"
    AUDIT_DUE = "game over, or audit after every hand, or 32 hands since the last audit"
    ROUND_OVER = "the round ended (and no earlier condition holds)"
    GAME_OVER = "the game is over"
    EARLY = 'the v2deck3 carried no `action` (early cards, both hellos have `"early": true`)'
    OPENED = (
        "the action ended the round and carried the pre-dealt hand's `open` shares (pipelined deal)"
    )
    PREDEALT = (
        "the action ended the round (not the game) and the next hand's v2deck1 and "
        "v2deck2 are on the chain (pipelined deal)"
    )
    PREDEAL_STARTED = (
        "the action ended the round (not the game) and only the next hand's v2deck1 "
        "is on the chain (pipelined deal)"
    )
    REDEALT = (
        "the action was the dealer's `accept-redeal` and both hello nonces announce "
        "bit 2 (early redeal cards)"
    )
    OTHERWISE = "otherwise"


#: stage -> (who sends, message type, what happens)
STAGES: Mapping[Stage, tuple[Sender, str, str]] = {
    Stage.HELLO_INITIATOR: (
        Sender.INITIATOR,
        MessageType.HELLO,
        "key, nonce, ruleset, options, commitment to the initiator's coin",
    ),
    Stage.HELLO_RESPONDER: (
        Sender.RESPONDER,
        MessageType.HELLO,
        "key, nonce, ruleset, options, the responder's coin in clear",
    ),
    Stage.COIN: (Sender.INITIATOR, MessageType.COIN, "opens the coin; fixes the first dealer"),
    Stage.DECK1: (Sender.DEALER, MessageType.DECK1, "D1 and the dealer's seed commitment"),
    Stage.DECK2: (Sender.NONDEALER, MessageType.DECK2, "D2 and the non-dealer's commitment"),
    Stage.DECK3: (Sender.DEALER, MessageType.DECK3, "D3 and keys for the non-dealer's cards"),
    Stage.DECK4: (
        Sender.NONDEALER,
        MessageType.DECK4,
        "D4, keys for the dealer's cards and the non-dealer's first action",
    ),
    Stage.PLAY: (Sender.TO_ACT, MessageType.ACTION, "one action of the rules engine"),
    Stage.V2_DECK1: (
        Sender.NONDEALER,
        MessageType.V2DECK1,
        "v2 D1: key share, shuffled encrypted deck, key and shuffle proofs",
    ),
    Stage.V2_DECK2: (
        Sender.DEALER,
        MessageType.V2DECK2,
        "v2 D2: key share, reshuffled deck, proofs, shares for the non-dealer's cards",
    ),
    Stage.V2_DECK3: (
        Sender.NONDEALER,
        MessageType.V2DECK3,
        "v2 D3: shares for the dealer's cards, and the non-dealer's first action "
        "unless the players chose early cards and the sender sends it later",
    ),
    Stage.V2_FIRST: (
        Sender.NONDEALER,
        MessageType.V2ACTION,
        "early cards: the non-dealer's first action of the hand, after its v2deck3 "
        "without `action`",
    ),
    Stage.V2_PLAY: (
        Sender.TO_ACT,
        MessageType.V2ACTION,
        "one action of the rules engine (cards shown by shares)",
    ),
    Stage.V2_REDEAL: (
        Sender.NONDEALER,
        MessageType.V2REDEAL,
        "early redeal cards: the non-dealer's shares for the dealer's redeal cards, "
        "before its next action",
    ),
    Stage.V2_PREDEAL1: (
        Sender.NEXT_NONDEALER,
        MessageType.V2DECK1,
        "pre-deal: the next hand's v2deck1 (with `hand`), sent during this hand",
    ),
    Stage.V2_PREDEAL2: (
        Sender.NEXT_DEALER,
        MessageType.V2DECK2,
        "pre-deal: the next hand's v2deck2 without its shares (with `hand`)",
    ),
    Stage.V2_OPEN: (
        Sender.DEALER,
        MessageType.V2OPEN,
        "the dealer's shares for the non-dealer's cards of the pre-dealt hand",
    ),
    Stage.REVEAL_FIRST: (Sender.FIRST, MessageType.REVEAL, "seeds of the hands to audit"),
    Stage.REVEAL_SECOND: (
        Sender.SECOND,
        MessageType.REVEAL,
        "seeds; sent only after its own audit passed",
    ),
    Stage.RESULT_FIRST: (
        Sender.FIRST,
        MessageType.RESULT,
        "the result (deck v1: after a passed audit; v2: after the last action)",
    ),
    Stage.RESULT_SECOND: (Sender.SECOND, MessageType.RESULT, "the same result: co-signature"),
}

_V2_AFTER_ACTION: tuple[tuple[Cond, Stage], ...] = (
    (Cond.GAME_OVER, Stage.RESULT_FIRST),
    (Cond.OPENED, Stage.V2_DECK3),
    (Cond.PREDEALT, Stage.V2_OPEN),
    (Cond.PREDEAL_STARTED, Stage.V2_DECK2),
    (Cond.ROUND_OVER, Stage.V2_DECK1),
    (Cond.OTHERWISE, Stage.V2_PLAY),
)

#: stage -> ordered (condition, next stage); the first condition that holds wins.
TRANSITIONS: Mapping[Stage, tuple[tuple[Cond, Stage], ...]] = {
    Stage.HELLO_INITIATOR: ((Cond.ALWAYS, Stage.HELLO_RESPONDER),),
    Stage.HELLO_RESPONDER: ((Cond.ALWAYS, Stage.COIN),),
    Stage.COIN: ((Cond.DECK_V2, Stage.V2_DECK1), (Cond.OTHERWISE, Stage.DECK1)),
    Stage.DECK1: ((Cond.ALWAYS, Stage.DECK2),),
    Stage.DECK2: ((Cond.ALWAYS, Stage.DECK3),),
    Stage.DECK3: ((Cond.ALWAYS, Stage.DECK4),),
    Stage.DECK4: (
        (Cond.AUDIT_DUE, Stage.REVEAL_FIRST),
        (Cond.ROUND_OVER, Stage.DECK1),
        (Cond.OTHERWISE, Stage.PLAY),
    ),
    Stage.PLAY: (
        (Cond.AUDIT_DUE, Stage.REVEAL_FIRST),
        (Cond.ROUND_OVER, Stage.DECK1),
        (Cond.OTHERWISE, Stage.PLAY),
    ),
    Stage.V2_DECK1: ((Cond.ALWAYS, Stage.V2_DECK2),),
    Stage.V2_DECK2: ((Cond.ALWAYS, Stage.V2_DECK3),),
    Stage.V2_DECK3: ((Cond.EARLY, Stage.V2_FIRST), *_V2_AFTER_ACTION),
    Stage.V2_FIRST: _V2_AFTER_ACTION,
    Stage.V2_PLAY: (*_V2_AFTER_ACTION[:-1], (Cond.REDEALT, Stage.V2_REDEAL), _V2_AFTER_ACTION[-1]),
    Stage.V2_REDEAL: ((Cond.ALWAYS, Stage.V2_PLAY),),
    # Interjections: after one, the stage it interrupted is due again.
    Stage.V2_PREDEAL1: ((Cond.ALWAYS, Stage.V2_PLAY),),
    Stage.V2_PREDEAL2: ((Cond.ALWAYS, Stage.V2_PLAY),),
    Stage.V2_OPEN: ((Cond.ALWAYS, Stage.V2_DECK3),),
    Stage.REVEAL_FIRST: ((Cond.ALWAYS, Stage.REVEAL_SECOND),),
    Stage.REVEAL_SECOND: ((Cond.GAME_OVER, Stage.RESULT_FIRST), (Cond.OTHERWISE, Stage.DECK1)),
    Stage.RESULT_FIRST: ((Cond.ALWAYS, Stage.RESULT_SECOND),),
    Stage.RESULT_SECOND: ((Cond.ALWAYS, Stage.DONE),),
}


#: Stages in which the player to act sends its decision (the message type that carries it).
ACTION_STAGES: Mapping[Stage, str] = {
    Stage.DECK4: MessageType.DECK4,
    Stage.PLAY: MessageType.ACTION,
    Stage.V2_DECK3: MessageType.V2DECK3,
    Stage.V2_FIRST: MessageType.V2ACTION,
    Stage.V2_PLAY: MessageType.V2ACTION,
}
#: stage -> interjections, in order: before the stage's own message, the player
#: due sends the first interjection it owes (pipelined deal: the pre-deal of the
#: next hand).  Owed means: ``v2predeal1`` from the end of the current hand's
#: deal (its ``v2deck3``) until the next hand's ``v2deck1`` is on the chain;
#: ``v2predeal2`` from then until its ``v2deck2`` is; with the rest-final rule
#: (wire.md 6b) neither while "my rest" decides the hand (``rest_decides``).
#: The interjection's transition leads back to the interrupted stage.
INTERJECTIONS: Mapping[Stage, tuple[Stage, ...]] = {
    Stage.V2_PLAY: (Stage.V2_PREDEAL1, Stage.V2_PREDEAL2),
}
#: When no interjection is owed although one would be (wire.md 6b.5, ``due_stage``).
INTERJECTIONS_WAIVED = (
    'with the rest-final rule (both hello nonces announce bit 1) nothing is owed while "my '
    'rest" decides the hand: accepted, or pending with `rest_refused` "game"'
)
#: Stages whose message starts the deal of a hand after the previous one ended.
V2_DEAL_STARTS: tuple[Stage, ...] = (Stage.V2_DECK1, Stage.V2_DECK2, Stage.V2_OPEN)
#: The stage that starts each hand, by deck version.
FIRST_DEAL_STAGES: Mapping[str, Stage] = {"v1": Stage.DECK1, "v2": Stage.V2_DECK1}


def next_stage(stage: Stage, holds: Mapping[Cond, bool]) -> Stage:
    """The stage after a message in ``stage``, given which conditions hold."""
    for cond, target in TRANSITIONS[stage]:
        if cond in (Cond.ALWAYS, Cond.OTHERWISE) or holds.get(cond, False):
            return target
    raise AssertionError(f"no transition from {stage}")  # pragma: no cover - table is total


def expected_sender(stage: Stage, game: Game | None, hand_ender: Player | None) -> Player:
    """The player who must send the next message in ``stage``.

    ``game`` is any view of the rules engine (needed from the coin flip on);
    ``hand_ender`` is the player whose message ended the last hand (needed in
    the reveal and result stages).
    """
    who = STAGES[stage][0]
    if who is Sender.INITIATOR:
        return Player.P0
    if who is Sender.RESPONDER:
        return Player.P1
    if game is None:
        raise ValueError(f"stage {stage.value} needs a game")
    if who is Sender.DEALER:
        return game.dealer
    if who in (Sender.NONDEALER, Sender.NEXT_DEALER):
        return game.dealer.other  # the dealer alternates every round (rules.md section 3)
    if who is Sender.NEXT_NONDEALER:
        return game.dealer
    if who is Sender.TO_ACT:
        return game.to_act if game.to_act is not None else game.dealer.other
    if hand_ender is None:
        raise ValueError(f"stage {stage.value} needs the hand's last sender")
    return hand_ender.other if who is Sender.FIRST else hand_ender


def conditions_after_action(
    events: Sequence[Event],
    *,
    audit_mode: str,
    hands: int,
    audited: int,
    early_redeal: bool = False,
) -> dict[Cond, bool]:
    """Which transition conditions hold after an action produced ``events``.

    ``hands`` is the number of hands dealt so far and ``audited`` how many of
    them were already audited; ``early_redeal``: both hellos announce early
    redeal cards (feature bit 2, wire.md 6a).
    """
    round_over = any(isinstance(e, RoundEnded) for e in events)
    game_over = any(isinstance(e, GameEnded) for e in events)
    audit_due = round_over and (
        game_over or audit_mode == "hand" or hands - audited >= MAX_SEEDS_PER_REVEAL
    )
    redealt = early_redeal and any(
        isinstance(e, Acted) and e.action.kind is ActionKind.ACCEPT_REDEAL for e in events
    )
    return {
        Cond.AUDIT_DUE: audit_due,
        Cond.ROUND_OVER: round_over,
        Cond.GAME_OVER: game_over,
        Cond.REDEALT: redealt,
    }


#: interjection -> how many pre-deal messages of the next hand are on the chain
#: when it is owed.
INTERJECTION_OWED: Mapping[Stage, int] = {Stage.V2_PREDEAL1: 0, Stage.V2_PREDEAL2: 1}


def due_stage(
    stage: Stage,
    game: Game | None,
    hand_ender: Player | None,
    predeal: int | None,
    *,
    rest_final: bool = False,
) -> Stage:
    """The stage whose message comes next: the first interjection of ``stage`` owed
    by the player due (``predeal`` pre-deal messages of the next hand are on the
    chain; ``None`` while no pre-deal may run), else ``stage`` itself.

    With ``rest_final`` (both hellos announce the rest-final feature, wire.md 6b)
    nothing is owed while the hand is final (:func:`rest_decides`).
    """
    inters = INTERJECTIONS.get(stage, ())
    if not inters or predeal is None:
        return stage
    if rest_final and game is not None and rest_decides(game):
        return stage
    due = expected_sender(stage, game, hand_ender)
    for inter in inters:
        if predeal == INTERJECTION_OWED[inter] and expected_sender(inter, game, hand_ender) == due:
            return inter
    return stage


def rest_decides(game: Game) -> bool:
    """Whether "my rest" makes the current hand decide the game whatever is still
    played (wire.md 6b, the rest-final rule): it was accepted (the rules engine's
    ``rest_answered``), or it is pending and a refusal ends the game too
    (``rest_refused`` "game").  Only a spoiled hand then leads to another one."""
    if game.rest_answered:
        return True
    return game.pending is ActionKind.REST and game.ruleset.rest_refused is RestRefused.GAME


def predeal_conditions(round_over: bool, predeal_sent: int) -> dict[Cond, bool]:
    """The pipelined-deal conditions at the end of a hand: ``predeal_sent`` of the
    next hand's two pre-deal messages are on the chain."""
    return {
        Cond.PREDEALT: round_over and predeal_sent == 2,
        Cond.PREDEAL_STARTED: round_over and predeal_sent == 1,
    }
