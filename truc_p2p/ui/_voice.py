"""The sentences about the players, from the viewer's side: :class:`Voice`.

``me`` is the viewer's seat (``None`` for a neutral narrator such as ``demo``,
which names both players).  A sentence about a player comes in two messages,
one for "you" and one for a named player, because languages conjugate them
differently ("you win" / "Bob wins").  The words of cards, keys and actions are
in :mod:`._texts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Action, ActionKind, Card, GameEndReason, Player, RoundEndReason
from truc_p2p.ui._texts import card_text, plain

__all__ = ["Voice"]


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
        """ "hand 2, Bob deals: you get 7♠ 9♥ A♦" (a redeal says so); without
        ``cards`` (a replay that never saw them) "hand 2: Bob deals"."""
        h = hand_no + 1
        if not cards:
            if redeal:
                return self.out(_("hand {hand}: the cards are dealt again, face down", hand=h))
            if self.is_me(dealer):
                return self.out(_("hand {hand}: you deal", hand=h))
            return self.out(_("hand {hand}: {name} deals", hand=h, name=self.names[dealer]))
        shown = "  ".join(self.card(c) for c in cards)
        deals = _("you deal") if self.is_me(dealer) else _("{name} deals", name=self.names[dealer])
        if self.is_me(holder):
            text = (
                _(
                    "redeal of hand {hand}, {deals}: you get {cards}",
                    hand=h,
                    deals=deals,
                    cards=shown,
                )
                if redeal
                else _("hand {hand}, {deals}: you get {cards}", hand=h, deals=deals, cards=shown)
            )
        else:
            who = self.names[holder]
            text = (
                _(
                    "redeal of hand {hand}, {deals}: {name} gets {cards}",
                    hand=h,
                    deals=deals,
                    name=who,
                    cards=shown,
                )
                if redeal
                else _(
                    "hand {hand}, {deals}: {name} gets {cards}",
                    hand=h,
                    deals=deals,
                    name=who,
                    cards=shown,
                )
            )
        return self.out(text)
