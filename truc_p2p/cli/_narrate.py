"""Turn session and rules events into one-line, human-readable text."""

from __future__ import annotations

import sys
from typing import TextIO

from truc_p2p.net import NetEvent, PeerDisconnected, PeerReconnected
from truc_p2p.protocol import (
    AnyEvent,
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    PeerAborted,
    SessionEvent,
)
from truc_p2p.rules import (
    Acted,
    Action,
    ActionKind,
    Card,
    Event,
    GameEnded,
    Player,
    RoundEnded,
    RoundEndReason,
    TrickEnded,
)

__all__ = ["Narrator", "describe", "describe_action", "plain", "show_cards"]

_REST_ENDS = {
    RoundEndReason.REST_WON: "wins the round, and with it the game (“my rest” was answered)",
    RoundEndReason.REST_REFUSED: "wins: “my rest” was refused",
}

_ACTION_WORDS = {
    ActionKind.RAISE: "asks “2 more?”",
    ActionKind.REST: "declares “my rest”",
    ActionKind.ACCEPT: "accepts",
    ActionKind.REFUSE: "refuses",
    ActionKind.FOLD: "folds",
    ActionKind.ASK_REDEAL: "asks for a redeal",
    ActionKind.ACCEPT_REDEAL: "accepts the redeal",
    ActionKind.DECLINE_REDEAL: "declines the redeal",
}
_PLAIN = str.maketrans({"“": '"', "”": '"', "–": "-", "—": "-", "·": "|", "…": "..."})


def plain(text: str) -> str:
    """Replace typographic punctuation with ASCII."""
    return text.translate(_PLAIN)


def show_cards(cards: tuple[Card, ...] | list[Card], *, ascii: bool = False) -> str:
    return " ".join(c.pretty(ascii=ascii) for c in cards)


def describe_action(action: Action, *, ascii: bool = False) -> str:
    if action.kind is ActionKind.PLAY and action.card is not None:
        return f"plays {action.card.pretty(ascii=ascii)}"
    text = _ACTION_WORDS.get(action.kind, str(action))
    return plain(text) if ascii else text


def describe(
    event: AnyEvent | NetEvent, names: dict[Player, str], *, me: Player, ascii: bool = False
) -> str | None:
    """One line for ``event`` as seen by player ``me``, or ``None`` if not worth printing."""
    line = _describe(event, names, me=me, ascii=ascii)
    return plain(line) if ascii and line is not None else line


def _describe(
    event: AnyEvent | NetEvent, names: dict[Player, str], *, me: Player, ascii: bool
) -> str | None:
    if isinstance(event, GameStarted):
        return (
            f"game {event.game_id.hex()[:16]}: {names[Player.P0]} vs {names[Player.P1]}, "
            f"first dealer {names[event.first_dealer]} "
            f"(ruleset: {', '.join(f'{k}={v}' for k, v in event.ruleset.to_dict().items())}; "
            f"deck {event.deck})"
        )
    if isinstance(event, CardsDealt):
        what = "redeal" if event.redeal else f"hand {event.round_no + 1}"
        return (
            f"-- {what}, dealer {names[event.dealer]}: {names[me]} holds "
            f"{show_cards(event.cards, ascii=ascii)}"
        )
    if isinstance(event, Acted):
        return f"   {names[event.player]} {describe_action(event.action, ascii=ascii)}"
    if isinstance(event, TrickEnded):
        who = "spoiled" if event.winner is None else f"won by {names[event.winner]}"
        return f"   trick {event.trick_no + 1} {who}"
    if isinstance(event, RoundEnded):
        if event.winner is None:
            return f"   round {event.round_no + 1}: nobody scores ({event.reason.value})"
        if event.reason in _REST_ENDS:
            what = _REST_ENDS[event.reason]
            return f"   round {event.round_no + 1}: {names[event.winner]} {what}"
        return (
            f"   round {event.round_no + 1}: {names[event.winner]} "
            f"{_agree(names[event.winner], 'scores')} {event.points} "
            f"({event.reason.value}) -> {event.scores[0]}-{event.scores[1]}"
        )
    if isinstance(event, GameEnded):
        o = event.outcome
        wins = _agree(names[o.winner], "wins")
        return (
            f"== {names[o.winner]} {wins} the game ({o.reason.value}), {o.scores[0]}-{o.scores[1]}"
        )
    if isinstance(event, AuditPassed):
        hands = event.hands
        span = f"{hands[0] + 1}" if len(hands) == 1 else f"{hands[0] + 1}-{hands[-1] + 1}"
        return f"   audit passed: seeds of hand(s) {span} recompute every deck"
    if isinstance(event, GameFinished):
        r = event.result
        return (
            f"== result co-signed by both: {names[r.winner]} {_agree(names[r.winner], 'wins')} "
            f"{r.scores[0]}-{r.scores[1]} after {r.hands} hand{'s' * (r.hands != 1)} ({r.reason})"
        )
    if isinstance(event, PeerAborted):
        return f"!! peer ended the game: {event.reason} {event.detail}".rstrip()
    if isinstance(event, PeerDisconnected):
        peer = names[me.other]
        left = f"{event.seconds_left:.0f} s"
        if event.seconds_left >= event.grace - 0.5:
            return (
                f"!! connection to {peer} lost ({event.reason}); waiting up to {left} for "
                f"{peer} to come back -- the game goes on where it stopped"
            )
        return f".. {peer} is still away: {left} left before the game counts as abandoned"
    if isinstance(event, PeerReconnected):
        again = f", {event.resent} message(s) sent again" if event.resent else ""
        return f"== {names[me.other]} is back after {event.after:.1f} s{again}; play goes on"
    return None


def _agree(subject: str, phrase: str) -> str:
    """``phrase`` (third person) agreeing with ``subject``: "you" takes "win", not "wins"."""
    if subject != "you":
        return phrase
    verb, _, rest = phrase.partition(" ")
    return (verb[:-1] if verb.endswith("s") else verb) + (f" {rest}" if rest else "")


class Narrator:
    """Prints one line per event from one player's point of view (an ``on_event`` hook)."""

    def __init__(self, my_name: str, *, ascii: bool = False, out: TextIO | None = None) -> None:
        self.my_name = my_name
        self.ascii = ascii
        self.out = out
        self.me = Player.P0
        self.names = {Player.P0: "player 0", Player.P1: "player 1"}

    def start(self, event: GameStarted) -> None:
        """Learn our seat and the opponent's name (told apart if both names are equal)."""
        self.me = event.me
        peer = event.peer_name
        if peer == self.my_name:
            peer = f"{peer} (opponent)"
        self.names = {event.me: self.my_name, event.me.other: peer}

    def write(self, line: str) -> None:
        print(plain(line) if self.ascii else line, file=self.out or sys.stdout, flush=True)

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        if isinstance(event, GameStarted):
            self.start(event)
        line = describe(event, self.names, me=self.me, ascii=self.ascii)
        if line:
            self.write(line)
