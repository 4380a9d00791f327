"""The next hand's put-off deck work in the game loop (wire.md section 6b): it runs
while the player thinks, and a cheat it finds ends the game with evidence."""

from __future__ import annotations

import hashlib

import trio
from helpers.net import bot, forward, new_session, run_game

from truc_p2p.crypto import SigningKey
from truc_p2p.net import BotStrategy, End
from truc_p2p.protocol import Session, decode_envelope, frame
from truc_p2p.protocol._wire import envelope_hash, sign_envelope
from truc_p2p.rules import Action, Game, Player

P0, P1 = Player.P0, Player.P1


class Thinker:
    """A bot that thinks for a second of (autojumped) time before each move, then
    asks the session whether any deck work was left for it."""

    def __init__(self, session: Session, seed: int) -> None:
        self.session = session
        self.bot: BotStrategy = bot(seed)
        self.thinking = False
        self.left_for_the_move = 0
        self.thoughts: list[tuple[float, float]] = []

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        start = trio.current_time()
        await trio.sleep(1)
        self.thoughts.append((start, trio.current_time()))
        self.thinking = True
        self.left_for_the_move += self.session.work()
        self.thinking = False
        return await self.bot.choose(game, legal)


async def test_the_next_hands_deck_work_runs_while_the_player_thinks(
    autojump_clock: trio.abc.Clock,
) -> None:
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {p: new_session(p, record=records[p]) for p in Player}
    thinkers = {p: Thinker(sessions[p], int(p) + 1) for p in Player}
    done_by_the_loop = {p: 0 for p in Player}
    for p, session in sessions.items():
        work = session.work

        def spy(p: Player = p, work: object = work) -> bool:
            assert callable(work)
            found = bool(work())
            if not thinkers[p].thinking:
                done_by_the_loop[p] += found
            return found

        session.work = spy  # type: ignore[method-assign]
    predeals: list[float] = []  # when the host's pre-deal messages left it

    async def watch(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        env = decode_envelope(envelope)
        if env.type in ("v2deck1", "v2deck2") and "shares" not in env.payload:
            predeals.append(trio.current_time())
        return await forward(n, envelope, joiner)

    run = await run_game(dict(thinkers), sessions=sessions, tamper=watch)
    assert {o.end for o in run.outcomes.values()} == {End.FINISHED}
    # The host's pre-deal messages went out while it thought, not with its move.
    assert predeals and all(
        any(start <= t < end for start, end in thinkers[P1].thoughts) for t in predeals
    )
    assert run.outcomes[P0].hands >= 2
    # Each pre-deal message the player received was checked and answered while it
    # thought, by the loop; none was left for the moment it moved.
    assert sum(done_by_the_loop.values()) >= run.outcomes[P0].hands - 1
    assert all(t.left_for_the_move == 0 for t in thinkers.values())


async def test_a_cheat_in_a_put_off_pre_deal_ends_the_game_with_evidence(
    autojump_clock: trio.abc.Clock,
) -> None:
    # The host's first pre-deal v2deck1 has its deck reversed (re-signed with the
    # host's key, the next envelope re-chained to it). The joiner's bot answers at
    # once, so the put-off check runs when its own v2deck2 must answer the forgery.
    key = SigningKey.from_bytes(
        hashlib.sha256(b"net-tests/0/1/key").digest()  # new_session(P1)'s identity
    )
    forged: list[bytes] = []

    def resigned(envelope: bytes, **changes: object) -> bytes:
        env = decode_envelope(envelope)
        fields: dict[str, object] = {
            "game_id": env.game_id, "seq": env.seq, "prev": env.prev,
            "sender": env.sender, "type": env.type, "payload": env.payload,
        }  # fmt: skip
        fields.update(changes)
        return sign_envelope(key, **fields)  # type: ignore[arg-type]

    async def cheat(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        env = decode_envelope(envelope)
        if not forged and env.type == "v2deck1" and env.payload.get("hand", 0) >= 1:
            payload = dict(env.payload)
            payload["deck"] = list(reversed(payload["deck"]))
            forged.extend([envelope, resigned(envelope, payload=payload)])
            return True  # held back, to arrive in one piece with the action after it
        if len(forged) == 2 and env.prev == envelope_hash(forged[0]):
            await joiner.send_all(frame(forged[1]) + frame(resigned(envelope, prev=hash_of(1))))
            return True
        return await forward(n, envelope, joiner)

    def hash_of(i: int) -> bytes:
        return envelope_hash(forged[i])

    run = await run_game({P0: bot(1), P1: bot(2)}, tamper=cheat)
    joiner = run.outcomes[P0]
    assert forged, "the host pre-dealt a hand"
    assert joiner.end is End.PROTOCOL_ERROR and joiner.error_code == "cheat"
    assert joiner.abort_reason == "cheat"
    assert joiner.error_message_no == decode_envelope(forged[1]).seq
    assert run.records[P0][joiner.error_message_no] == forged[1]
    # (the host's own chain never held the forgery: the joiner's abort, chained to
    # it, reads as a broken chain there; either way the game is over)
    assert run.outcomes[P1].end is not End.FINISHED
