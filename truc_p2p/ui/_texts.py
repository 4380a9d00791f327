"""Every sentence the game screens show, in one place, from the viewer's side.

The terminal, the web table, ``demo`` and the end screens ask here for whole
sentences; each one goes through :mod:`._i18n`, so a catalog translates it
with its placeholders wherever the language puts them.  A sentence about a
player comes in two messages, one for "you" and one for a named player,
because languages conjugate them differently ("you win" / "Bob wins").

:class:`Voice` says who is speaking: ``me`` is the viewer's seat (``None``
for a neutral narrator such as ``demo``, which names both players).
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    GameEndReason,
    Player,
    Rank,
    RoundEndReason,
    Suit,
)
from truc_p2p.ui._i18n import N_, _, ngettext

__all__ = [
    "HELP",
    "KEY_NAMES",
    "NOT_NOW",
    "Voice",
    "action_label",
    "bot_player_name",
    "card_name",
    "card_text",
    "clock",
    "fit",
    "move_clock_words",
    "plain",
    "screen_width",
    "show_cards",
]

#: A card's rank and suit as a screen reader says them ("seven of hearts"): each
#: suit word is only used in a card's name (a language may decline it there).
_RANK_NAMES = {
    Rank.SEVEN: N_("seven"),
    Rank.EIGHT: N_("eight"),
    Rank.NINE: N_("nine"),
    Rank.TEN: N_("ten"),
    Rank.JACK: N_("jack"),
    Rank.QUEEN: N_("queen"),
    Rank.KING: N_("king"),
    Rank.ACE: N_("ace"),
}
_SUIT_NAMES = {
    Suit.CLUBS: N_("of clubs"),
    Suit.DIAMONDS: N_("of diamonds"),
    Suit.HEARTS: N_("of hearts"),
    Suit.SPADES: N_("of spades"),
}


def card_name(card: Card) -> str:
    """A card's spoken name ("seven of hearts"), in the language in use."""
    return _("{rank} {of_suit}", rank=_(_RANK_NAMES[card.rank]), of_suit=_(_SUIT_NAMES[card.suit]))


_PLAIN = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "«": '"',  # French, Spanish, Catalan, Occitan quotes (the catalogs)
        "»": '"',
        "„": '"',  # Icelandic, Estonian, German-style opening quote
        "‘": "'",
        "’": "'",
        "\u202f": " ",  # narrow no-break space
        "\u00a0": " ",  # the no-break space of French typography (« 2 de plus ? »)
        "–": "-",
        "—": "-",
        "·": "|",
        "…": "...",
        "→": "->",
        "✔": "ok",
        "✘": "x",
    }
)


def plain(text: str) -> str:
    """Replace typographic punctuation with ASCII."""
    return text.translate(_PLAIN)


#: The width of what is not a terminal (a pipe, a file): the layout tests read.
WIDTH = 80
#: Narrower than this, a terminal is taken to be this wide (words still whole).
MIN_WIDTH = 30


def screen_width(stream: TextIO | None) -> int:
    """The columns of the terminal ``stream`` writes to (``$COLUMNS`` first, as the
    shell sets it, then the terminal's own size), else :data:`WIDTH`."""
    try:
        if stream is None or not stream.isatty():
            return WIDTH
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return WIDTH
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    try:
        size = os.get_terminal_size(fd).columns
    except OSError:
        return WIDTH
    return max(MIN_WIDTH, size) if size > 0 else WIDTH


#: Spaces that must not become a line break: just inside «…» (« 2 de plus ? »).
_KEEP_TOGETHER = re.compile(r"(?<=«) | (?=»)")


def fit(text: str, width: int) -> str:
    """``text`` with each line wrapped at word boundaries to ``width`` columns; the
    lines a long one is cut into are indented three more than it."""
    lines: list[str] = []
    # a quote mark stays with its words (« 2 de plus ? »)
    text = _KEEP_TOGETHER.sub("\u00a0", text)
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        lines += textwrap.wrap(
            line,
            width,
            subsequent_indent=indent + "   ",
            break_long_words=False,
            break_on_hyphens=False,
        ) or [line]
    return "\n".join(lines)


#: The face cards' letters as a table of that language prints them (French V D R).
RANK_LETTERS: dict[Rank, str] = {
    # Translators: the jack as the one letter printed on the card (French "V", valet)
    Rank.JACK: N_("J"),
    # Translators: the queen as the one letter printed on the card (French "D", dame)
    Rank.QUEEN: N_("Q"),
    # Translators: the king as the one letter printed on the card (French "R", roi)
    Rank.KING: N_("K"),
    # Translators: the ace as the one letter printed on the card (French "A", as)
    Rank.ACE: N_("A"),
}


def card_text(card: Card, *, ascii: bool = False) -> str:
    """``"D♥"`` in French for the queen of hearts: the rank as the language's cards
    print it (``--ascii`` keeps the protocol's letters, ``QH``, which the tools read)."""
    if ascii:
        return card.pretty(ascii=True)
    letter = RANK_LETTERS.get(card.rank)
    rank = _(letter) if letter is not None else card.rank.symbol
    return f"{rank}{card.suit.symbol}"


def show_cards(cards: tuple[Card, ...] | list[Card], *, ascii: bool = False) -> str:
    return " ".join(card_text(c, ascii=ascii) for c in cards)


def move_clock_words(seconds: float) -> str:
    """How long the player has for each move, in whole minutes when it is."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return ngettext(
            "you have {n} minute for each move; the clock shows what is left",
            "you have {n} minutes for each move; the clock shows what is left",
            minutes,
        )
    whole = max(1, round(seconds))
    return ngettext(
        "you have {n} second for each move; the clock shows what is left",
        "you have {n} seconds for each move; the clock shows what is left",
        whole,
    )


def clock(seconds: float) -> str:
    """``m:ss`` for a countdown (never negative)."""
    s = max(0, int(seconds + 0.999))
    return f"{s // 60}:{s % 60:02d}"


#: The name a level's bot plays under in ``truc-p2p play`` (its hello carries it).
BOT_PLAYER_NAMES: dict[str, str] = {
    # Translators: the name of the opponent bot of level "easy" (as a player's name)
    "easy": N_("easy-bot"),
    # Translators: the name of the opponent bot of level "medium" (as a player's name)
    "medium": N_("medium-bot"),
    # Translators: the name of the opponent bot of level "hard" (as a player's name)
    "hard": N_("hard-bot"),
    # Translators: the name of the opponent bot of level "strongest" (as a player's name)
    "strongest": N_("strongest-bot"),
}


def bot_player_name(level: str) -> str:
    """The opponent's name for bot ``level`` in the language in use (``LEVEL-bot``
    for a bot that is not one of the levels, e.g. ``search:fast-bot``)."""
    known = BOT_PLAYER_NAMES.get(level)
    return _(known) if known is not None else f"{level}-bot"


#: What a key does, for the help and for "nothing to … now".
KEY_NAMES: dict[str, str] = {
    "r": N_("“2 more?”"),
    "m": N_("“my rest”"),
    # Translators: what key a does: accept the opponent's "2 more?" or "my rest"
    "a": N_("accept"),
    # Translators: what key x does: refuse the opponent's "2 more?" or "my rest"
    "x": N_("refuse"),
    # Translators: what key f does: give up the hand (the opponent scores it)
    "f": N_("fold"),
    # Translators: what key d does: ask for (or accept) new cards for both players
    "d": N_("redeal"),
    "n": N_("decline the redeal"),
}


#: Keys that exist but may not fit the moment: what to say then (the terminal and
#: the web table say the same).
NOT_NOW: dict[str, str] = {
    "a": N_("nothing to accept now"),
    "x": N_("nothing to refuse now"),
    "n": N_("no redeal to decline now"),
    "d": N_("no redeal to ask for or accept now"),
    "r": N_("you cannot ask “2 more?” now"),
    "m": N_("you cannot call “my rest” now"),
    "f": N_("you cannot fold now"),
}


def help_text() -> str:
    """The rules in short and the keys (``?`` in the terminal); it points to the guided
    hand (``truc-p2p learn``), not to a file an installed package does not have."""
    head = _("Le Truc for two, in short (truc-p2p learn plays a guided hand)")
    return (
        head
        + "\n"
        + _(
            "  * 32 cards; suits never matter. Strength, high to low: 7 8 A K Q J 10 9.\n"
            "  * Each hand: three cards each, up to three tricks. Win two tricks (or\n"
            "    the first trick won, when the others are spoiled) to win the hand.\n"
            "    Equal ranks spoil a trick: nobody wins it, the leader leads again.\n"
            "  * A hand is worth 1 point. Before playing a card you may ask\n"
            "    “2 more?” (key r): accepted, the hand is worth more (1, 2, 6, 8,\n"
            "    10...); refused, you score the value before the request.\n"
            "  * “My rest” (key m) stakes the whole game on this hand; refused, its\n"
            "    caller wins the game.\n"
            "  * Fold (key f) at any of your turns: the opponent scores the hand.\n"
            "  * The non-dealer's very first action may ask for a redeal (key d);\n"
            "    the dealer accepts (d) or declines (n).\n"
            "  * First to the target score (12 by default) wins.\n"
            "Keys: 1-3 play the card with that number, r “2 more?”, m “my rest”,\n"
            "a accept, x refuse, f fold, d redeal, n decline the redeal, ? this help,\n"
            "q leave (resign)."
        )
    )


#: The help in English (import time); views call :func:`help_text` for the language in use.
HELP = help_text()


def action_label(action: Action, *, to: int | None = None, rest_pending: bool = False) -> str:
    """The short name of an action on a key or a button."""
    kind = action.kind
    if kind is ActionKind.PLAY and action.card is not None:
        return _("play {card}", card=card_text(action.card))
    if kind is ActionKind.RAISE:
        return _("“2 more?” (to {value})", value=to) if to is not None else _("“2 more?”")
    if kind is ActionKind.ACCEPT:
        return _("accept “my rest”") if rest_pending else _("accept")
    return {
        ActionKind.REST: _("“my rest”"),
        ActionKind.REFUSE: _("refuse"),
        ActionKind.FOLD: _("fold"),
        ActionKind.ASK_REDEAL: _("ask for a redeal"),
        ActionKind.ACCEPT_REDEAL: _("accept the redeal"),
        ActionKind.DECLINE_REDEAL: _("decline the redeal"),
    }.get(kind, str(action))


@dataclass(frozen=True)
class Voice:
    """Who the sentences are for: ``me`` reads "you"; ``None`` names everyone."""

    names: Mapping[Player, str]
    me: Player | None = None
    ascii: bool = False
    #: Whose score comes first when nobody is "you" (a bot's operator: its own side).
    side: Player | None = None

    def is_me(self, player: Player) -> bool:
        return self.me is not None and player is self.me

    def name(self, player: Player | None) -> str:
        """A player as a sentence's subject: "you" or the name."""
        if player is None:
            return _("nobody")
        return _("you") if self.is_me(player) else self.names[player]

    def out(self, text: str) -> str:
        return plain(text) if self.ascii else text

    def card(self, card: Card) -> str:
        return card_text(card, ascii=self.ascii)

    # -- scores, always from the viewer's side -------------------------------

    def score(self, scores: tuple[int, int] | Mapping[Player, int]) -> str:
        """ "you 5 – Bob 0" (the viewer first), or "alice 5 – bob 0" in seat order."""
        first = self.me if self.me is not None else (self.side or Player.P0)
        second = first.other
        return self.out(
            _(
                "{a} {x} – {b} {y}",
                a=self.name(first),
                x=scores[first],
                b=self.name(second),
                y=scores[second],
            )
        )

    # -- moves -----------------------------------------------------------------

    def acted(
        self, player: Player, action: Action, *, value: int, to: int | None, rest: bool
    ) -> str:
        """One move: "you play 7♠", "Bob asks “2 more?” (to 2)"; ``value`` is the
        hand's worth after the move, ``to`` what a raise asks for, ``rest`` whether
        an accept answered “my rest”."""
        kind = action.kind
        me = self.is_me(player)
        who = self.names.get(player, "")
        if kind is ActionKind.PLAY and action.card is not None:
            card = self.card(action.card)
            text = (
                _("you play {card}", card=card)
                if me
                else _("{name} plays {card}", name=who, card=card)
            )
        elif kind is ActionKind.RAISE:
            text = (
                _("you ask “2 more?” (to {value})", value=to)
                if me
                else _("{name} asks “2 more?” (to {value})", name=who, value=to)
            )
        elif kind is ActionKind.REST:
            text = _("you call “my rest”") if me else _("{name} calls “my rest”", name=who)
        elif kind is ActionKind.ACCEPT and rest:
            text = (
                _("you accept “my rest”: this hand decides the game")
                if me
                else _("{name} accepts “my rest”: this hand decides the game", name=who)
            )
        elif kind is ActionKind.ACCEPT:
            text = (
                _("you accept: the hand is worth {value}", value=value)
                if me
                else _("{name} accepts: the hand is worth {value}", name=who, value=value)
            )
        else:
            text = {
                ActionKind.REFUSE: (_("you refuse"), _("{name} refuses", name=who)),
                ActionKind.FOLD: (_("you fold"), _("{name} folds", name=who)),
                ActionKind.ASK_REDEAL: (
                    _("you ask for a redeal"),
                    _("{name} asks for a redeal", name=who),
                ),
                ActionKind.ACCEPT_REDEAL: (
                    _("you accept the redeal: new cards for both"),
                    _("{name} accepts the redeal: new cards for both", name=who),
                ),
                ActionKind.DECLINE_REDEAL: (
                    _("you decline the redeal"),
                    _("{name} declines the redeal", name=who),
                ),
            }[kind][0 if me else 1]
        return self.out(text)

    def trick(self, trick_no: int, winner: Player | None) -> str:
        n = trick_no + 1
        if winner is None:
            text = _("trick {n} is spoiled (equal ranks)", n=n)
        elif self.is_me(winner):
            text = _("trick {n}: you win it", n=n)
        else:
            text = _("trick {n}: {name} wins it", n=n, name=self.names[winner])
        return self.out(text)

    def hand_result(
        self,
        *,
        hand_no: int,
        winner: Player | None,
        points: int,
        reason: RoundEndReason,
        game_over: bool,
        tricks: Sequence[Player | None] = (),
    ) -> str:
        """How a hand ended, from the viewer's side ("you win hand 2: +1 point");
        ``tricks`` (each trick's winner, ``None`` when spoiled) tells a hand that a
        single trick decided because another was spoiled."""
        h = hand_no + 1
        if winner is None:
            return self.out(_("hand {hand}: every trick spoiled, nobody scores", hand=h))
        me = self.is_me(winner)
        who = self.names[winner]
        loser = self.names[winner.other]
        if points == 0 and game_over:
            # "my rest" decided the game: the game line says how
            return self.out(
                _("you win hand {hand}, and with it the game", hand=h)
                if me
                else _("{name} wins hand {hand}, and with it the game", name=who, hand=h)
            )
        why = {
            RoundEndReason.TRICKS: _("on tricks"),
            RoundEndReason.REST_WON: _("on tricks"),
            # "you" is its own sentence: the verb agrees with it (never "{name}" = "you")
            RoundEndReason.REFUSED: _("you refused “2 more?”")
            if self.is_me(winner.other)
            else _("{name} refused “2 more?”", name=loser),
            RoundEndReason.REST_REFUSED: _("you turned down “my rest”")
            if self.is_me(winner.other)
            else _("{name} turned down “my rest”", name=loser),
            RoundEndReason.FOLDED: _("you folded")
            if self.is_me(winner.other)
            else _("{name} folded", name=loser),
            RoundEndReason.SPOILED: _("every trick spoiled"),
        }[reason]
        won = [i for i, w in enumerate(tricks) if w is winner]
        if reason is RoundEndReason.TRICKS and None in tricks and len(won) < 2 and won:
            # e.g. trick 1 won, trick 2 spoiled: the first trick won decides the hand
            why = _(
                "trick {won} decided it: trick {spoiled} was spoiled",
                won=won[0] + 1,
                spoiled=list(tricks).index(None) + 1,
            )
        if me:
            text = ngettext(
                "you win hand {hand}: +{n} point ({why})",
                "you win hand {hand}: +{n} points ({why})",
                points,
                hand=h,
                why=why,
            )
        else:
            text = ngettext(
                "{name} wins hand {hand}: +{n} point ({why})",
                "{name} wins hand {hand}: +{n} points ({why})",
                points,
                name=who,
                hand=h,
                why=why,
            )
        return self.out(text)

    def game_result(
        self, *, winner: Player, reason: GameEndReason, scores: tuple[int, int], hand_no: int
    ) -> str:
        """How the game ended, in one line that explains itself."""
        h = hand_no + 1
        me = self.is_me(winner)
        who = self.names[winner]
        loser = winner.other
        score = self.score(scores)
        if reason is GameEndReason.REST_WON:
            text = (
                _(
                    "you win the game: “my rest” was accepted in hand {hand} "
                    "and you won that hand ({score})",
                    hand=h,
                    score=score,
                )
                if me
                else _(
                    "{name} wins the game: “my rest” was accepted in hand {hand} "
                    "and {name} won that hand ({score})",
                    name=who,
                    hand=h,
                    score=score,
                )
            )
        elif reason is GameEndReason.REST_REFUSED:
            text = (
                _(
                    "you win the game: {loser} turned down your “my rest” in hand {hand} ({score})",
                    loser=self.name(loser),
                    hand=h,
                    score=score,
                )
                if me
                else _(
                    "{name} wins the game: “my rest” of {name} was turned down in hand "
                    "{hand} ({score})",
                    name=who,
                    hand=h,
                    score=score,
                )
            )
        else:
            text = (
                _("you win the game, {score}", score=score)
                if me
                else _("{name} wins the game, {score}", name=who, score=score)
            )
        return self.out(text)

    def resigned(self, *, by: Player, hand: int, scores: tuple[int, int]) -> str:
        """ "you resigned in hand 3: bob wins the game (you 4 – bob 7)"."""
        score = self.score(scores)
        if self.is_me(by):
            text = _(
                "you resigned in hand {hand}: {name} wins the game ({score})",
                hand=hand,
                name=self.name(by.other),
                score=score,
            )
        elif self.is_me(by.other):
            text = _(
                "{name} resigned in hand {hand}: you win the game ({score})",
                hand=hand,
                name=self.names[by],
                score=score,
            )
        else:
            text = _(
                "{name} resigned in hand {hand}: {winner} wins the game ({score})",
                hand=hand,
                name=self.names[by],
                winner=self.names[by.other],
                score=score,
            )
        return self.out(text)

    def match_score(self, wins: Mapping[Player, int], *, games: int) -> str:
        """ "match: you 1 – bob 0 (first to win 2 of 3 games)"."""
        return _(
            "match: {score} (first to win {need} of {games} games)",
            score=self.score(wins),
            need=games // 2 + 1 if games % 2 else games // 2,
            games=games,
        )

    def match_resigned(self, by: Player, wins: Mapping[Player, int]) -> str:
        """A resignation ended the match (the one who resigned leaves it): who, and
        the games score with this game counted."""
        if self.is_me(by):
            return _(
                "match over: you resigned, so {name} wins the match, {score}",
                name=self.name(by.other),
                score=self.score(wins),
            )
        return _(
            "match over: {name} resigned, so you win the match, {score}",
            name=self.name(by),
            score=self.score(wins),
        )

    def match_won(self, winner: Player, wins: Mapping[Player, int]) -> str:
        """The match is over: who won it, and the games score."""
        if self.is_me(winner):
            return _("match over: you win the match, {score}", score=self.score(wins))
        return _(
            "match over: {name} wins the match, {score}",
            name=self.name(winner),
            score=self.score(wins),
        )

    def cosigned(self, *, winner: Player, scores: tuple[int, int], hands: int) -> str:
        score = self.score(scores)
        if self.is_me(winner):
            text = ngettext(
                "result co-signed by both players: you win, {score}, after {n} hand",
                "result co-signed by both players: you win, {score}, after {n} hands",
                hands,
                score=score,
            )
        else:
            text = ngettext(
                "result co-signed by both players: {name} wins, {score}, after {n} hand",
                "result co-signed by both players: {name} wins, {score}, after {n} hands",
                hands,
                name=self.names[winner],
                score=score,
            )
        return self.out(text)

    def signed_points(self, points: str, *, hands: int) -> str:
        """The points under a player's ending headline (``points``, labelled by
        :func:`~._outcome_text.score_label`), how many hands, and that both signed the
        result: the headline alone says who won."""
        return self.out(
            ngettext(
                "{points} ({n} hand) · result co-signed by both players",
                "{points} ({n} hands) · result co-signed by both players",
                hands,
                points=points,
            )
        )

    def dealt(
        self,
        *,
        hand_no: int,
        dealer: Player,
        holder: Player,
        cards: tuple[Card, ...],
        redeal: bool,
    ) -> str:
        """ "-- hand 2, Bob deals: you get 7♠ 9♥ A♦" (a redeal says so)."""
        shown = "  ".join(self.card(c) for c in cards)
        h = hand_no + 1
        deals = _("you deal") if self.is_me(dealer) else _("{name} deals", name=self.names[dealer])
        if self.is_me(holder):
            text = (
                _(
                    "-- redeal of hand {hand}, {deals}: you get {cards}",
                    hand=h,
                    deals=deals,
                    cards=shown,
                )
                if redeal
                else _("-- hand {hand}, {deals}: you get {cards}", hand=h, deals=deals, cards=shown)
            )
        else:
            who = self.names[holder]
            text = (
                _(
                    "-- redeal of hand {hand}, {deals}: {name} gets {cards}",
                    hand=h,
                    deals=deals,
                    name=who,
                    cards=shown,
                )
                if redeal
                else _(
                    "-- hand {hand}, {deals}: {name} gets {cards}",
                    hand=h,
                    deals=deals,
                    name=who,
                    cards=shown,
                )
            )
        return self.out(text)
