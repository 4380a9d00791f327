"""What the page is sent: a :class:`~truc_p2p.ui._table.TableView` as plain
JSON-able dicts.

Only what this player may know goes in: its own hand, the cards on the
table, the finished tricks, the scores and requests, and the opponent's
card *count*.  Seats are told as ``"me"`` / ``"opp"`` so the page never
needs to know which protocol seat it is.  Every text is already in the
view (from :mod:`truc_p2p.ui._texts`); the page only places it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from truc_p2p.i18n import LANGUAGES, _, current, ngettext
from truc_p2p.rules import ALL_CARDS, Action, Card, Game, Player, Suit
from truc_p2p.ui._table import Choice, TableView, TrickView, build_view, choices, seat
from truc_p2p.ui._texts import NOT_NOW, card_name, help_text, rank_text
from truc_p2p.ui._variants import variants_json
from truc_p2p.ui._voice import Voice

__all__ = [
    "GUARD_SECONDS",
    "action_buttons",
    "card_json",
    "invite_json",
    "page_texts",
    "seat",
    "table_state",
    "view_json",
]

#: Seconds the page ignores keys, clicks and taps after the hand or the set of
#: choices changed (sent with each ``state`` as ``guard_ms``; ``table.js`` falls back
#: to the same).
GUARD_SECONDS = 0.5

_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})


def card_json(card: Card) -> dict[str, Any]:
    """A card as the page draws it."""
    return {
        "card": str(card),
        "rank": rank_text(card),  # as the language's cards print it (French D for Q)
        "suit": card.suit.value,
        "symbol": card.suit.symbol,
        "red": card.suit in _RED,
        "name": card_name(card),  # as a screen reader says it ("seven of hearts")
    }


def _button(choice: Choice) -> dict[str, Any]:
    return {
        "action": str(choice.action),
        "kind": choice.action.kind.value,
        "key": choice.key,
        "alt": choice.alt,
        "label": choice.label,
        "cost": choice.cost,
    }


def _trick(trick: TrickView) -> dict[str, Any]:
    return {
        "no": trick.no + 1,
        "winner": trick.winner,
        "text": trick.text,
        "cards": [{"by": by, **card_json(c)} for by, c in trick.cards],
    }


def action_buttons(game: Game, legal: Iterable[Action]) -> list[dict[str, Any]]:
    """One button per legal action that is not a card play, with its key (as in the
    terminal), label and what it costs, answers first."""
    me = game.view if game.view is not None else game.to_act
    assert me is not None
    voice = Voice({me: "you", me.other: "opponent"}, me)
    return [_button(c) for c in choices(game, legal, voice) if not c.key.isdigit()]


def view_json(view: TableView) -> dict[str, Any]:
    """The whole table as the page draws it."""
    hand = []
    for card, (action, key) in zip(view.hand, view.hand_actions, strict=True):
        item = card_json(card)
        item["action"] = str(action) if action is not None else None
        item["key"] = key
        hand.append(item)
    pending: dict[str, Any] | None = None
    if view.pending is not None:
        pending = {"kind": view.pending.kind.value, "by": view.pending.by}
        if view.pending.to is not None:
            pending["to"] = view.pending.to
        pending["text"] = view.pending.text
    result = view.hand_result
    return {
        "hand_no": view.hand_no,
        "trick_no": view.trick_no,
        "phase": view.phase,
        "scores": dict(view.scores),
        "score_line": view.score_line,
        "target": view.target,
        "round_value": view.round_value,
        "rest_answered": view.rest_on,
        "worth": view.worth,
        "dealer": view.dealer,
        "leader": view.leader,
        "to_act": view.to_act,
        "hand": hand,
        "opp_cards": view.opp_cards,
        "table": [{"by": by, **card_json(c)} for by, c in view.table],
        "tricks": [
            {k: v for k, v in _trick(t).items() if k in ("winner", "cards")} for t in view.tricks
        ],
        "trick_marks": list(view.trick_marks),
        "tricks_line": view.tricks_line,
        "last_trick": _trick(view.last_trick) if view.last_trick is not None else None,
        "pending": pending,
        "turn": view.turn,
        "buttons": [_button(c) for c in view.choices if not c.key.isdigit()],
        "status": view.status,
        "hand_result": (
            {
                "seq": result.seq,
                "hand_no": result.hand_no,
                "winner": result.winner,
                "points": result.points,
                "text": result.text,
                "game_over": result.game_over,
            }
            if result is not None
            else None
        ),
    }


def table_state(
    game: Game,
    me: Player,
    *,
    legal: tuple[Action, ...] = (),
    turn: int | None = None,
    names: dict[Player, str] | None = None,
) -> dict[str, Any]:
    """The whole table from ``me``'s view of ``game``; ``legal`` and ``turn`` when
    ``me`` is to act."""
    voice = Voice(names or {me: "you", me.other: "opponent"}, me)
    return view_json(build_view(game, me, voice, legal=legal, turn=turn))


def page_texts() -> dict[str, Any]:
    """The page's fixed texts (buttons, help, end screen), sent once as a ``texts``
    message so a catalog translates them like every other text; ``{name}`` and
    ``{time}`` are filled by the page."""
    return {
        "title": _("Le Truc — truc-p2p"),
        "connecting": _("connecting…"),
        "waiting_start": _("waiting for the game to start…"),
        "waiting_joiner": _("waiting for your opponent to join…"),
        "conn_lost": _("lost the connection to the game program; retrying…"),
        "disconnected": _("opponent disconnected — waiting {time} for them to come back"),
        "dealer": _("dealer"),
        "you": _("{name} (you)"),
        "you_short": _("you"),
        "target": _("first to {n}"),
        "help_button": _("? rules & keys"),
        # a touch screen has no keys: its buttons say no key
        "help_button_touch": _("? rules"),
        "leave_button": _("leave (q)"),
        "leave_confirm": _("Leave the game? You resign: your opponent wins the game."),
        # a toggle's name stays the same; aria-pressed says whether it is on
        "sound": _("sound"),
        "four_colours": _("four-colour deck"),
        "your_turn": _("your move"),
        "waiting_for": _("waiting for {name}"),
        "help": help_text(),
        "close": _("close"),
        "copy": _("copy"),
        "copied": _("copied"),
        "copy_failed": _("select the invite and copy it"),
        "invite_title": _("Send this invite to your opponent"),
        "tricks": _("tricks this hand"),
        "log": _("what happened"),
        "verifier_report": _("verifier report"),
        "transcript": _("Transcript: {path}"),
        "no_transcript": _("no transcript was written"),
        "close_tab": _("You can close this tab."),
        "play_again": _("play again"),
        "next_game": _("next game"),
        "stop_here": _("stop here"),
        "again_waiting": _("starting the next game…"),
        "not_your_turn": _("wait for your turn"),
        "answer_first": _("answer the request first: accept, refuse or fold"),
        "not_this_card": _("this card cannot be played now"),
        # a screen reader's table (issue 43): names without the keys, what the felt
        # holds, and what the live region says when a hand starts
        "leave": _("leave"),
        "rules": _("rules and keys"),
        "your_hand": _("your hand"),
        "on_table": _("cards on the table"),
        # Translators: a trick of the hand not played yet, as a screen reader says it
        "trick_todo": _("to play"),
        "choices": _("your choices"),
        "opp_cards": [
            ngettext("{name} holds {n} card", "{name} holds {n} cards", n, name="{name}")
            for n in range(4)
        ],
        "card_by": _("{card}, played by {name}"),
        "new_hand": _("hand {n}; your cards: {cards}"),
        "empty_table": _("no card on the table"),
        "say_key": _("s: hear the score, the cards on the table and your hand"),
        "you_play": _("you play {card}"),
        "sent_when_back": _("{move} (sent as soon as {name} is back)"),
        "no_card": _("no card {key} to play now"),
        "not_now": {key: _(text) for key, text in NOT_NOW.items()},
        # what a screen reader says for each card as the texts show it ("7♠")
        "card_names": {card.pretty(): card_name(card) for card in ALL_CARDS},
        # play: the bot's level, on the start panel and for a rematch
        "choose_level": _("Choose your opponent"),
        "your_name": _("your name, shown to your opponent"),
        "start": _("start"),
        "next_level": _("next opponent"),
        # play: the rule variants of a longer game, on the start panel (issue 42)
        "longer": _("A longer game? (optional)"),
        "variants": variants_json(),
        "levels": [
            {"code": "easy", "name": _("easy"), "text": _("a beginner: any card, any answer")},
            {
                "code": "medium",
                "name": _("medium"),
                "text": _("raises on good hands, refuses bad ones"),
            },
            {"code": "hard", "name": _("hard"), "text": _("thinks ahead: a solid player")},
            {
                "code": "strongest",
                "name": _("strongest"),
                "text": _("mixes its bets so it cannot be read: the strongest bot"),
            },
        ],
        # the language menu: each language in its own name, and the one in use
        "lang": current(),
        "language": _("language"),
        "languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
    }


def invite_json(text: str, hint: str | None) -> dict[str, Any]:
    """The ``invite`` message: the invite and how to reach a host behind NAT.

    No QR code: the invite is a ``truc://`` address for ``truc-p2p join`` on the other
    player's computer, which no phone camera opens; the copy button sends it through
    a chat or a mail, which is how an invite travels."""
    return {"type": "invite", "text": text, "hint": hint}
