"""The game state machine.

Theory of operation
-------------------
A :class:`Game` is a python-chess-like state object: ``deal`` gives it the
cards of a deal, ``push`` applies one action of the player to act, and both
return the :mod:`events <truc_p2p.rules._events>` that happened.  The engine
never draws cards itself and does no I/O.

The game is in one of three phases: ``DEAL`` (waiting for the cards of the
first deal of a round, or of the redeal), ``PLAY`` and ``OVER``.  During
``PLAY`` exactly one player is to act, determined by two facts only:

* if a request (raise, rest or redeal) is pending, the requester's opponent
  answers it (:data:`ANSWERS` lists the allowed answers);
* otherwise the player who is to play the next card of the current trick acts
  (the leader when the table is empty, else the follower).  Before playing, it
  may make its one request of the trick, fold, or (as the non-dealer's very
  first action of the round) ask for a redeal.

A game may be run from an omniscient view (``view=None``: both hands known),
from a spectator's view (``spectator=True``: no hand known, only the cards
played; what a third-party verifier of a deck v2 game sees) or from one
player's view (``view=p``): then the opponent's hand is only a
count, and any card that could still be in it (not in ``p``'s hand, not in
``p``'s discarded pre-redeal hand, not played this round) is a legal play for
the opponent.  Checking that a played card really was dealt to that player is
the deck layer's job.

Every action is validated by :meth:`Game._check` before anything changes, so an
illegal action raises a specific :class:`IllegalActionError` and leaves the
state untouched; ``legal_actions`` is the set of candidates that pass the same
check, so ``action in game.legal_actions()`` iff ``game.push(action)`` succeeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from truc_p2p.rules._actions import Action, ActionKind
from truc_p2p.rules._cards import Card, Player
from truc_p2p.rules._errors import (
    ActionError,
    AnswerMismatchError,
    CardNotHeldError,
    DealError,
    GameOverError,
    IllegalActionError,
    NoRequestAfterRestError,
    NoRequestPendingError,
    NotDealtError,
    NotYourTurnError,
    OneRequestPerTrickError,
    PlayerError,
    RedealNotAllowedError,
    RequestPendingError,
)
from truc_p2p.rules._events import (
    Acted,
    Dealt,
    Event,
    GameEnded,
    GameEndReason,
    Outcome,
    RoundEnded,
    RoundEndReason,
    Trick,
    TrickEnded,
)
from truc_p2p.rules._game_state import GameState
from truc_p2p.rules._round import (
    _ANSWER_KINDS,
    _NON_PLAY_ACTIONS,
    _PLAY_ACTIONS,
    ANSWERS,
    HAND_SIZE,
    LegalActions,
    Phase,
    round_result,
)
from truc_p2p.rules._ruleset import RestRefused

__all__ = ["ANSWERS", "HAND_SIZE", "Game", "LegalActions", "Phase", "round_result"]


class Game(GameState):
    """A game of 2-player Le Truc, from the omniscient view or one player's view.

    ``Game(ruleset, first_dealer=Player.P0)`` starts in :attr:`Phase.DEAL`;
    call :meth:`deal` with the hands, then :meth:`push` actions.

    Wherever a :class:`Player` is expected, the plain int seat 0 or 1 is
    accepted too (see :meth:`Player.coerce`); any other value raises
    :class:`PlayerError`.  No method raises anything but a :class:`RulesError`
    for a bad argument.
    """

    # ------------------------------------------------------------ dealing

    def deal(self, hands: Mapping[Player, Sequence[Card]]) -> list[Event]:
        """Give the engine the cards of a deal; only in :attr:`Phase.DEAL`.

        The omniscient view needs both hands, player ``p``'s view exactly
        ``{p: hand}``, a spectator's view ``{}``.  Each hand is 3 distinct
        cards, none seen earlier this round.  Raises :class:`DealError` (state
        unchanged) otherwise.
        """
        if self._phase is not Phase.DEAL:
            raise DealError(f"cannot deal in phase {self._phase.value}", rule="deal-phase")
        if not isinstance(hands, Mapping):
            raise DealError("hands must be a mapping from Player to cards", rule="deal-shape")
        expected: set[Player] = (
            set() if self._spectator else set(Player) if self._view is None else {self._view}
        )
        names = sorted(str(p) for p in expected)
        by_player: dict[Player, object] = {}
        for key, value in hands.items():
            try:
                by_player[Player.coerce(key)] = value
            except PlayerError:
                raise DealError(
                    f"this view must be dealt exactly the hands of {names}, not {key!r}",
                    rule="deal-shape",
                ) from None
        if len(by_player) != len(hands) or set(by_player) != expected:
            raise DealError(
                f"this view must be dealt exactly the hands of {names}", rule="deal-shape"
            )
        parsed: dict[Player, tuple[Card, ...]] = {}
        seen: set[Card] = set()
        for player in sorted(expected):
            cards = by_player[player]
            if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
                raise DealError(f"{player}'s hand must be a sequence of cards", rule="deal-shape")
            hand = tuple(cards)
            if len(hand) != HAND_SIZE or not all(isinstance(c, Card) for c in hand):
                raise DealError(f"{player}'s hand must be exactly 3 cards", rule="deal-shape")
            if len(set(hand) | seen) != len(seen) + HAND_SIZE:
                raise DealError("the same card was dealt twice", rule="deal-distinct")
            reused = set(hand) & self._discarded
            if reused:
                listed = " ".join(sorted(str(c) for c in reused))
                raise DealError(f"already seen this round: {listed}", rule="deal-distinct")
            seen.update(hand)
            parsed[player] = hand
        for player in Player:
            self._hands[player] = list(parsed.get(player, ()))
            self._sizes[player] = HAND_SIZE
        self._deals.append(parsed)
        self._phase = Phase.PLAY
        return [Dealt(round_no=self._round_no, dealer=self._dealer, redeal=self._redealt)]

    # ------------------------------------------------------------ actions

    def legal_actions(self, player: Player | None = None) -> LegalActions:
        """The legal actions of the player to act (empty unless phase is ``PLAY``).

        With ``player`` given, the legal actions of that player: empty when it
        is not the one to act.
        """
        if player is not None:
            player = Player.coerce(player)
        actor = self.to_act
        if actor is None or (player is not None and player is not actor):
            return LegalActions(())
        if self._pending is not None:
            candidates: Sequence[Action] = _NON_PLAY_ACTIONS
        else:
            playable = {c.index for c in self.possible_cards(actor)}
            candidates = [a for i, a in enumerate(_PLAY_ACTIONS) if i in playable]
            candidates += _NON_PLAY_ACTIONS
        return LegalActions([a for a in candidates if self._check(a, None) is None])

    def is_legal(self, action: Action, player: Player | None = None) -> bool:
        """Whether :meth:`push` would accept ``action`` (for ``player``, if given)."""
        if player is not None:
            player = Player.coerce(player)
        return isinstance(action, Action) and self._check(action, player) is None

    def push(self, action: Action, *, player: Player | None = None) -> list[Event]:
        """Apply ``action`` for the player to act and return the events.

        ``player``, if given, must be the player to act.  Raises an
        :class:`IllegalActionError` subclass naming the broken rule; the state
        is unchanged after an error.
        """
        if not isinstance(action, Action):
            raise ActionError(f"not an Action: {action!r}")
        if player is not None:
            player = Player.coerce(player)
        error = self._check(action, player)
        if error is not None:
            raise error
        actor = self.to_act
        assert actor is not None
        events: list[Event] = [Acted(player=actor, action=action)]
        self._history.append((actor, action))
        self._round_actions += 1
        kind = action.kind
        if kind is ActionKind.PLAY:
            assert action.card is not None
            self._play(actor, action.card, events)
        elif kind in (ActionKind.RAISE, ActionKind.REST, ActionKind.ASK_REDEAL):
            self._pending = kind
            self._requester = actor
            if kind.is_request:
                self._requested[actor] = True
        elif kind is ActionKind.ACCEPT:
            if self._pending is ActionKind.RAISE:
                self._round_value = self._ruleset.next_value(self._round_value)
            else:
                self._rest_answered = True
            self._clear_pending()
        elif kind is ActionKind.REFUSE:
            requester = self._requester
            assert requester is not None
            if self._pending is ActionKind.RAISE:
                self._end_round(requester, self._round_value, RoundEndReason.REFUSED, events)
            else:
                self._rest_refused(requester, events)
        elif kind is ActionKind.FOLD:
            self._fold(actor, events)
        elif kind is ActionKind.ACCEPT_REDEAL:
            for player in Player:
                self._discarded.update(self._hands[player])
                self._hands[player] = []
                self._sizes[player] = 0
            self._clear_pending()
            self._redealt = True
            self._phase = Phase.DEAL
        elif kind is ActionKind.DECLINE_REDEAL:
            self._clear_pending()
        return events

    def _check(self, action: Action, player: Player | None) -> IllegalActionError | None:
        """The error ``push(action)`` would raise, or ``None`` if it is legal."""
        if self._phase is Phase.DEAL:
            return NotDealtError("the cards must be dealt first")
        if self._phase is Phase.OVER:
            return GameOverError("the game is over")
        actor = self.to_act
        assert actor is not None
        if player is not None and player is not actor:
            return NotYourTurnError(f"it is {actor}'s turn, not {player}'s")
        kind = action.kind
        if self._pending is not None:
            allowed = ANSWERS[self._pending]
            if kind in allowed:
                return None
            if kind in _ANSWER_KINDS:
                return AnswerMismatchError(
                    f"{kind.value} does not answer a pending {self._pending.value}; "
                    f"answer with {' / '.join(sorted(k.value for k in allowed))}"
                )
            return RequestPendingError(
                f"{actor} must first answer the pending {self._pending.value} "
                f"({' / '.join(sorted(k.value for k in allowed))})"
            )
        if kind in _ANSWER_KINDS:
            return NoRequestPendingError(f"there is no pending request to {kind.value}")
        if kind is ActionKind.PLAY:
            card = action.card
            assert card is not None
            if not self._could_hold(actor, card):
                if self.knows_hand(actor):
                    return CardNotHeldError(f"{actor} does not hold {card}")
                return CardNotHeldError(f"{card} cannot be in {actor}'s hand")
            return None
        if kind.is_request:
            if self._rest_answered:
                return NoRequestAfterRestError(
                    '"my rest" was answered: no more requests this round'
                )
            if self._requested[actor]:
                return OneRequestPerTrickError(
                    f"{actor} already made its request in trick {self.trick_no}"
                )
            return None
        if kind is ActionKind.ASK_REDEAL:
            if actor is self._dealer:
                return RedealNotAllowedError("only the non-dealer may ask for a redeal")
            if self._redealt:
                return RedealNotAllowedError("at most one redeal per round")
            if self._round_actions:
                return RedealNotAllowedError(
                    "a redeal may only be asked as the non-dealer's first action of the round"
                )
            return None
        return None  # FOLD: always allowed at one's turn.

    # ----------------------------------------------------------- internals

    def _clear_pending(self) -> None:
        self._pending = None
        self._requester = None

    def _play(self, actor: Player, card: Card, events: list[Event]) -> None:
        if self.knows_hand(actor):
            self._hands[actor].remove(card)
        self._sizes[actor] -= 1
        self._played.add(card)
        self._table.append((actor, card))
        if len(self._table) < 2:
            return
        (leader, lead_card), (follower, follow_card) = self._table
        winner: Player | None = None
        if lead_card.strength > follow_card.strength:
            winner = leader
        elif follow_card.strength > lead_card.strength:
            winner = follower
        trick = Trick(leader=leader, cards=(lead_card, follow_card), winner=winner)
        self._tricks.append(trick)
        events.append(
            TrickEnded(
                trick_no=len(self._tricks) - 1,
                leader=leader,
                cards=trick.cards,
                winner=winner,
            )
        )
        self._table = []
        self._requested = [False, False]
        # A spoiled trick is led again by the same player.
        self._leader = leader if winner is None else winner
        decided, round_winner = round_result([t.winner for t in self._tricks])
        if not decided:
            return
        if round_winner is None:
            self._end_round(None, 0, RoundEndReason.SPOILED, events)
        elif self._rest_answered:
            self._end_round(
                round_winner, 0, RoundEndReason.REST_WON, events, GameEndReason.REST_WON
            )
        else:
            self._end_round(round_winner, self._round_value, RoundEndReason.TRICKS, events)

    def _rest_refused(self, declarer: Player, events: list[Event]) -> None:
        if self._ruleset.rest_refused is RestRefused.GAME:
            self._end_round(
                declarer, 0, RoundEndReason.REST_REFUSED, events, GameEndReason.REST_REFUSED
            )
        else:
            self._end_round(declarer, self._round_value, RoundEndReason.REST_REFUSED, events)

    def _fold(self, folder: Player, events: list[Event]) -> None:
        winner = folder.other
        if self._pending is ActionKind.REST:
            # Decision: folding on a pending "my rest" is refusing it.
            self._rest_refused(winner, events)
        elif self._rest_answered:
            self._end_round(winner, 0, RoundEndReason.FOLDED, events, GameEndReason.REST_WON)
        else:
            self._end_round(winner, self._round_value, RoundEndReason.FOLDED, events)

    def _end_round(
        self,
        winner: Player | None,
        points: int,
        reason: RoundEndReason,
        events: list[Event],
        game_reason: GameEndReason | None = None,
    ) -> None:
        if winner is not None:
            self._scores[winner] += points
        self._clear_pending()
        events.append(
            RoundEnded(
                round_no=self._round_no,
                winner=winner,
                points=points,
                reason=reason,
                scores=self.scores,
            )
        )
        if (
            game_reason is None
            and winner is not None
            and self._scores[winner] >= self._ruleset.target
        ):
            game_reason = GameEndReason.TARGET
        if game_reason is not None:
            assert winner is not None
            self._outcome = Outcome(winner=winner, reason=game_reason, scores=self.scores)
            self._phase = Phase.OVER
            events.append(GameEnded(outcome=self._outcome))
            return
        self._round_no += 1
        self._dealer = self._dealer.other
        self._new_round()

    # ------------------------------------------------------------- copying

    def copy(self) -> Game:
        """An independent copy of this game (history included)."""
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new._scores = list(self._scores)
        new._history = list(self._history)
        new._deals = list(self._deals)  # the dicts are never mutated
        new._table = list(self._table)
        new._tricks = list(self._tricks)
        new._requested = list(self._requested)
        new._hands = [list(h) for h in self._hands]
        new._sizes = list(self._sizes)
        new._discarded = set(self._discarded)
        new._played = set(self._played)
        return new

    def __copy__(self) -> Game:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        """Two games are equal when their whole state (history included) is."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        view = (
            "spectator"
            if self._spectator
            else "omniscient"
            if self._view is None
            else f"view={self._view}"
        )
        return (
            f"<Game {view} phase={self._phase.value} round={self._round_no} "
            f"dealer={self._dealer} scores={self.scores} to_act={self.to_act}>"
        )
