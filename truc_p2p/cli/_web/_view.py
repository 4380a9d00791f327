"""What the page is sent: one player's view of the game as plain JSON-able dicts.

Only what this player may know goes in: its own hand, the cards on the
table, the finished tricks, the scores and requests, and the opponent's
card *count*.  Seats are told as ``"me"`` / ``"opp"`` so the page never
needs to know which protocol seat it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from truc_p2p.cli._tui import keymap
from truc_p2p.rules import Action, ActionKind, Card, Game, Player, RulesetError, Suit

__all__ = ["action_buttons", "card_json", "seat", "table_state"]

_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})

_BUTTON_ORDER = (
    ActionKind.ACCEPT,
    ActionKind.REFUSE,
    ActionKind.ACCEPT_REDEAL,
    ActionKind.DECLINE_REDEAL,
    ActionKind.RAISE,
    ActionKind.REST,
    ActionKind.ASK_REDEAL,
    ActionKind.FOLD,
)


def seat(player: Player | None, me: Player) -> str | None:
    """``"me"``, ``"opp"`` or ``None``."""
    if player is None:
        return None
    return "me" if player is me else "opp"


def card_json(card: Card) -> dict[str, Any]:
    """A card as the page draws it."""
    return {
        "card": str(card),
        "rank": card.rank.symbol,
        "suit": card.suit.value,
        "symbol": card.suit.symbol,
        "red": card.suit in _RED,
    }


def _label(action: Action, game: Game) -> str:
    kind = action.kind
    if kind is ActionKind.RAISE:
        try:
            return f"“2 more?” (to {game.ruleset.next_value(game.round_value)})"
        except RulesetError:  # pragma: no cover - the engine only offers reachable raises
            return "“2 more?”"
    if kind is ActionKind.ACCEPT and game.pending is ActionKind.REST:
        return "accept “my rest”"
    return {
        ActionKind.REST: "“my rest”",
        ActionKind.ACCEPT: "accept",
        ActionKind.REFUSE: "refuse",
        ActionKind.FOLD: "fold",
        ActionKind.ASK_REDEAL: "ask for a redeal",
        ActionKind.ACCEPT_REDEAL: "accept the redeal",
        ActionKind.DECLINE_REDEAL: "decline the redeal",
    }.get(kind, str(action))


def action_buttons(game: Game, legal: Iterable[Action]) -> list[dict[str, Any]]:
    """One button per legal action that is not a card play, with its key (as in the
    terminal) and label, answers first."""
    by_action = {action: key for key, action in keymap(game, legal).items()}
    buttons = [
        {"action": str(a), "kind": a.kind.value, "key": k, "label": _label(a, game)}
        for a, k in by_action.items()
        if a.kind is not ActionKind.PLAY
    ]
    order = {kind.value: i for i, kind in enumerate(_BUTTON_ORDER)}
    return sorted(buttons, key=lambda b: order[b["kind"]])


def table_state(
    game: Game,
    me: Player,
    *,
    legal: tuple[Action, ...] = (),
    turn: int | None = None,
) -> dict[str, Any]:
    """The whole table from ``me``'s view; ``legal`` and ``turn`` when ``me`` is to act."""
    keys = {action: key for key, action in keymap(game, legal).items()} if legal else {}
    hand = []
    for card in game.hand(me) or ():
        item = card_json(card)
        play = Action.play(card)
        item["action"] = str(play) if play in keys else None
        item["key"] = keys.get(play)
        hand.append(item)
    pending: dict[str, Any] | None = None
    if game.pending is not None:
        pending = {"kind": game.pending.value, "by": seat(game.requester, me)}
        if game.pending is ActionKind.RAISE:
            try:
                pending["to"] = game.ruleset.next_value(game.round_value)
            except RulesetError:  # pragma: no cover - a pending raise is reachable
                pending["to"] = None
    scores = game.scores
    return {
        "hand_no": game.round_no + 1,
        "trick_no": min(game.trick_no + 1, 3),
        "phase": game.phase.value,
        "scores": {"me": scores[me], "opp": scores[me.other]},
        "target": game.ruleset.target,
        "round_value": game.round_value,
        "rest_answered": game.rest_answered,
        "dealer": seat(game.dealer, me),
        "leader": seat(game.leader, me),
        "to_act": seat(game.to_act, me),
        "hand": hand,
        "opp_cards": game.hand_size(me.other),
        "table": [{"by": seat(p, me), **card_json(c)} for p, c in game.table],
        "tricks": [
            {
                "winner": seat(t.winner, me),
                "cards": [
                    {"by": seat(t.leader, me), **card_json(t.cards[0])},
                    {"by": seat(t.leader.other, me), **card_json(t.cards[1])},
                ],
            }
            for t in game.tricks
        ],
        "pending": pending,
        "turn": turn if legal else None,
        "buttons": action_buttons(game, legal) if legal else [],
    }
