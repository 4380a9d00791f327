"""Early redeal cards in the game loop (wire.md section 6a, feature bit 2): after an
accepted redeal the non-dealer's ``v2redeal`` goes out before it starts thinking, so
the dealer's redealt hand shows while the non-dealer thinks over its next move --
classic and pipelined deal; without the feature the dealer waits for that move."""

from __future__ import annotations

import hashlib

import pytest
import trio
import trio.testing
from helpers.net import bot, play_pair

from truc_p2p.crypto import SigningKey
from truc_p2p.net import BotStrategy, End
from truc_p2p.protocol import (
    CardsDealt,
    Session,
    SessionOptions,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Action, ActionKind, Game, Player, Ruleset

P0, P1 = Player.P0, Player.P1
THINK_S = 3.0


class RedealThinker:
    """Thinks :data:`THINK_S` seconds over every move, asks for every redeal it may and
    accepts every one asked; notes when it accepted (as the dealer) and when it made
    its first move after the redeal (as the non-dealer), per round."""

    def __init__(self, me: Player, seed: int) -> None:
        self.me = me
        self.bot: BotStrategy = bot(seed)
        self.accepted: dict[int, float] = {}
        self.moved: dict[int, float] = {}

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        await trio.sleep(THINK_S)
        for kind in (ActionKind.ASK_REDEAL, ActionKind.ACCEPT_REDEAL):
            if Action(kind) in legal:
                if kind is ActionKind.ACCEPT_REDEAL:
                    self.accepted[game.round_no] = trio.current_time()
                return Action(kind)
        if game.redealt and game.dealer != self.me:
            self.moved.setdefault(game.round_no, trio.current_time())
        return await self.bot.choose(game, legal)


def _session(me: Player, record: list[bytes], *, pipeline: bool, early_redeal: bool) -> Session:
    def derive(label: str) -> bytes:
        return hashlib.sha256(f"net-early-redeal/{int(me)}/{label}".encode()).digest()

    return Session(
        identity=SigningKey.from_bytes(derive("key")),
        role=me,
        secret=derive("secret"),
        record=record.append,
        options=SessionOptions(
            ruleset=Ruleset(target=3),
            name=("joiner", "host")[me],
            pipeline=pipeline,
            early_redeal=early_redeal,
        ),
    )


async def _play(
    *, pipeline: bool, early_redeal: bool
) -> tuple[dict[Player, RedealThinker], dict[Player, dict[int, float]], list[bytes]]:
    """Play a game over a memory link; per player, when its redealt cards came."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {
        p: _session(p, records[p], pipeline=pipeline, early_redeal=early_redeal) for p in Player
    }
    thinkers = {p: RedealThinker(p, int(p) + 5) for p in Player}
    redealt: dict[Player, dict[int, float]] = {P0: {}, P1: {}}

    def on_event(me: Player, event: object) -> None:
        if isinstance(event, CardsDealt) and event.redeal:
            redealt[me][event.round_no] = trio.current_time()

    ends = await play_pair(sessions, thinkers, on_event)
    assert ends == {P0: End.FINISHED, P1: End.FINISHED}
    for p in Player:
        assert verify_transcript(records[p]).valid
    return thinkers, redealt, records[P0]


@pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])
async def test_the_dealers_redealt_hand_shows_while_the_nondealer_thinks(
    autojump_clock: trio.abc.Clock, pipeline: bool
) -> None:
    thinkers, redealt, record = await _play(pipeline=pipeline, early_redeal=True)
    hands = 0
    for dealer in Player:
        for round_no, accepted in thinkers[dealer].accepted.items():
            hands += 1
            shown = redealt[dealer][round_no]
            moved = thinkers[dealer.other].moved[round_no]
            # the non-dealer got the accept, sent its v2redeal, then thought THINK_S
            assert shown - accepted < 0.001, (round_no, accepted, shown)
            assert shown <= moved - THINK_S + 0.001, (round_no, shown, moved)
            assert redealt[dealer.other][round_no] - accepted < 0.001
    assert hands >= 2
    assert "v2redeal" in [decode_envelope(r).type for r in record]


async def test_without_early_redeal_cards_the_dealer_waits_for_the_move(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The same game with the feature off: the measurement above fails."""
    thinkers, redealt, record = await _play(pipeline=True, early_redeal=False)
    assert thinkers[P0].accepted and thinkers[P1].accepted
    for dealer in Player:
        for round_no, accepted in thinkers[dealer].accepted.items():
            shown = redealt[dealer][round_no]
            assert shown >= thinkers[dealer.other].moved[round_no] >= accepted + THINK_S
    assert "v2redeal" not in [decode_envelope(r).type for r in record]
