"""What the player may do now: each legal action with its key, its label and what
choosing it costs, in the order the screens offer them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Action, ActionKind, Game, GameEnded, RoundEnded, RulesetError
from truc_p2p.ui._texts import action_label
from truc_p2p.ui._voice import Voice

__all__ = ["Choice", "aliases", "choices", "keymap", "next_value"]

_KEYS: dict[ActionKind, str] = {
    ActionKind.RAISE: "r",
    ActionKind.REST: "m",
    ActionKind.ACCEPT: "a",
    ActionKind.REFUSE: "x",
    ActionKind.FOLD: "f",
    ActionKind.ASK_REDEAL: "d",
    ActionKind.ACCEPT_REDEAL: "d",
    ActionKind.DECLINE_REDEAL: "n",
}

#: Keys that also choose an action (an answer's usual key): see :func:`aliases`.
_ALIASES: dict[ActionKind, str] = {
    ActionKind.ACCEPT_REDEAL: "a",
    ActionKind.DECLINE_REDEAL: "x",
}

#: Buttons in this order: answers first.
_ORDER = (
    ActionKind.ACCEPT,
    ActionKind.REFUSE,
    ActionKind.ACCEPT_REDEAL,
    ActionKind.DECLINE_REDEAL,
    ActionKind.RAISE,
    ActionKind.REST,
    ActionKind.ASK_REDEAL,
    ActionKind.FOLD,
)


def keymap(game: Game, legal: Iterable[Action]) -> dict[str, Action]:
    """Key -> legal action: digits for the cards in hand order, letters for the rest."""
    legal = tuple(legal)
    keys: dict[str, Action] = {}
    me = game.view if game.view is not None else game.to_act
    hand = game.hand(me) if me is not None else None
    for i, card in enumerate(hand or ()):
        action = Action.play(card)
        if action in legal:
            keys[str(i + 1)] = action
    order = {kind: i for i, kind in enumerate(_ORDER)}
    for action in sorted(legal, key=lambda a: order.get(a.kind, len(order))):
        key = _KEYS.get(action.kind)
        if key is not None:
            keys[key] = action
    return keys


def aliases(keys: dict[str, Action]) -> dict[str, Action]:
    """The other keys a player may press for an action of ``keys`` (a keymap):
    ``a`` and ``x``, which accept and refuse a raise, also accept and decline a
    redeal request (its own keys are ``d`` and ``n``)."""
    out: dict[str, Action] = {}
    for action in keys.values():
        alt = _ALIASES.get(action.kind)
        if alt is not None and alt not in keys:
            out[alt] = action
    return out


def next_value(game: Game) -> int | None:
    try:
        return game.ruleset.next_value(game.round_value)
    except RulesetError:  # the engine only offers reachable raises
        return None


@dataclass(frozen=True, kw_only=True)
class Choice:
    """One thing the player may do now, with its key, its label and what it costs."""

    action: Action
    key: str
    label: str
    #: What happens if chosen ("Bob scores 1 now"); ``None`` for a card.
    cost: str | None = None
    #: Another key that chooses it (:func:`aliases`), not shown.
    alt: str | None = None


def _cost(game: Game, action: Action, voice: Voice) -> str | None:
    """What choosing ``action`` now brings or costs, from its chooser's side."""
    me = game.to_act
    if me is None:
        return None
    opp = voice.name(me.other)
    kind = action.kind
    if kind is ActionKind.PLAY:
        return None
    if kind is ActionKind.ACCEPT:
        if game.pending is ActionKind.REST:
            return _("this hand decides the game")
        to = next_value(game)
        return _("the hand is worth {value}", value=to)
    if kind in (ActionKind.REFUSE, ActionKind.FOLD):
        return _ending(game, action, voice)
    if kind in (ActionKind.RAISE, ActionKind.REST):
        trial = game.copy()
        trial.push(action)
        refused = _ending(trial, Action.REFUSE, voice)
        if kind is ActionKind.RAISE:
            return _(
                "if refused, {refused}; if accepted, the hand is worth {value}",
                refused=refused,
                value=next_value(game),
            )
        return _(
            "if refused, {refused}; if accepted, this hand decides the game",
            refused=refused,
        )
    if kind is ActionKind.ASK_REDEAL:
        return _("new cards for both if {name} agrees", name=opp)
    if kind is ActionKind.ACCEPT_REDEAL:
        return _("new cards for both")
    if kind is ActionKind.DECLINE_REDEAL:
        return _("play these cards")
    return None


def _ending(game: Game, action: Action, voice: Voice) -> str:
    """The score change ``action`` makes at once ("Bob scores 1 now")."""
    trial = game.copy()
    events = trial.push(action)
    for event in events:
        if isinstance(event, GameEnded):
            winner = event.outcome.winner
            if voice.is_me(winner):
                return _("you win the game now")
            return _("{name} wins the game now", name=voice.name(winner))
    for event in events:
        if isinstance(event, RoundEnded) and event.winner is not None:
            if voice.is_me(event.winner):
                return ngettext("you score {n} point now", "you score {n} points now", event.points)
            return ngettext(
                "{name} scores {n} point now",
                "{name} scores {n} points now",
                event.points,
                name=voice.name(event.winner),
            )
    return _("nobody scores")


def choices(game: Game, legal: Iterable[Action], voice: Voice) -> tuple[Choice, ...]:
    """The keys and buttons for ``legal``: cards first, then the rest, answers first."""
    keys = keymap(game, legal)
    alt = {action: key for key, action in aliases(keys).items()}
    rest_pending = game.pending is ActionKind.REST
    to = next_value(game)
    cards = [Choice(action=a, key=k, label=action_label(a)) for k, a in keys.items() if k.isdigit()]
    others = [
        Choice(
            action=a,
            key=k,
            label=voice.out(action_label(a, to=to, rest_pending=rest_pending)),
            cost=(c := _cost(game, a, voice)) and voice.out(c),
            alt=alt.get(a),
        )
        for k, a in keys.items()
        if not k.isdigit()
    ]
    order = {kind: i for i, kind in enumerate(_ORDER)}
    others.sort(key=lambda c: order[c.action.kind])
    return (*cards, *others)
