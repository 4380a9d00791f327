"""Reconnect and crash resume in the sans-IO session (wire.md section 13).

A lossy in-memory link cuts the connection at random points (mid-frame,
during the deal, the audit and the result), drops whatever was in flight and
reconnects the two sessions with a ``resume`` exchange; some cuts also
"crash" one side, rebuilding it from its transcript with ``Session.restore``.
Every game must finish with one co-signed result and two transcripts that
verify, with nothing duplicated or lost.
"""

from __future__ import annotations

import itertools
import random
import secrets as _secrets

import pytest
from helpers.examples import examples
from helpers.matrix import fast_first
from helpers.protocol import P0, P1, PLAYER, REDEALER, identity, resign
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    EquivocationError,
    LocalProtocolError,
    PeerKeyMismatchError,
    Refused,
    RemoteProtocolError,
    Resumed,
    ResumeRefusedError,
    Session,
    SessionOptions,
    Stage,
    YourTurn,
    decode_envelope,
    fingerprint,
    frame,
    refusal,
    verify_transcript,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Player, Ruleset


class LossyGame:
    """Two sessions over a link that can be cut; a side can be crashed and restored."""

    def __init__(self, seed: int, *, target: int = 3, deck: str = "v2") -> None:
        self.rng = random.Random(seed)
        # "v2p": deck v2 with the pipelined deal (restore reads it from the own hello)
        self.pipeline = deck == "v2p"
        deck = deck[:2]
        self.deck = deck
        self.keys = (identity(f"resume-a-{seed}"), identity(f"resume-b-{seed}"))
        self.secrets = (_secrets.token_bytes(32), _secrets.token_bytes(32))
        self.ruleset = Ruleset(target=target)
        self.records: dict[Player, list[bytes]] = {P0: [], P1: []}
        self.sessions = make_pair(
            SessionOptions(
                ruleset=self.ruleset, deck=deck, pipeline=self.pipeline if deck == "v2" else None
            ),
            identities=self.keys,
            secrets=self.secrets,
            records=(self.records[P0].append, self.records[P1].append),
        )
        self.bots = {p: make_bot("random", seed * 2 + int(p)) for p in (P0, P1)}
        self.wire: dict[Player, bytearray] = {P0: bytearray(), P1: bytearray()}  # towards p
        self.cuts = 0
        self.crashes = 0
        self.resumes: list[Resumed] = []

    def send(self, sender: Player, data: bytes) -> None:
        self.wire[sender.other] += data

    def deliver_some(self, p: Player) -> None:
        buf = self.wire[p]
        if buf:
            n = self.rng.randint(1, len(buf))
            self.sessions[p].receive_data(bytes(buf[:n]))
            del buf[:n]

    def cut(self, *, crash: Player | None = None) -> None:
        """Drop the connection: part of what is in flight arrives, the rest is lost."""
        for p in (P0, P1):
            buf = self.wire[p]
            if buf:  # a random prefix arrives, possibly ending mid-frame
                self.sessions[p].receive_data(bytes(buf[: self.rng.randint(0, len(buf))]))
            buf.clear()
        if crash is not None:
            self.crash(crash)
        self.cuts += 1
        for p in (P0, P1):
            self.sessions[p].reconnect(_secrets.token_bytes(16), dialer=p is P0)
            self.send(p, self.sessions[p].data_to_send())

    def crash(self, p: Player) -> None:
        """Lose ``p``'s process: rebuild its session from its transcript and secret."""
        records = self.records[p]
        self.sessions[p] = Session.restore(
            list(records),
            identity=self.keys[p],
            role=p,
            secret=self.secrets[p],
            record=records.append,
        )
        self.crashes += 1

    def step(self, p: Player) -> bool:
        session = self.sessions[p]
        event = session.next_event()
        self.send(p, session.data_to_send())
        if event is CLOSED:
            return False
        if isinstance(event, Resumed):
            self.resumes.append(event)
        if isinstance(event, YourTurn):
            self.send(p, session.send(self.bots[p].choose(session.game)))
        return event is not NEED_DATA

    def run(self, *, cut_rate: float, crash_rate: float = 0.0, max_steps: int = 200_000) -> None:
        for _ in range(max_steps):
            if all(s.finished for s in self.sessions.values()):
                return
            if self.rng.random() < cut_rate and all(s.resumable for s in self.sessions.values()):
                crash = None
                # The first cut of a crashing run always crashes a side.
                if self.rng.random() < crash_rate or (crash_rate and not self.crashes):
                    crash = self.rng.choice((P0, P1))
                self.cut(crash=crash)
            p = self.rng.choice((P0, P1))
            self.deliver_some(p)
            self.step(p)
        raise AssertionError("the game did not finish")


def check_both_verify(game: LossyGame) -> None:
    s0, s1 = game.sessions[P0], game.sessions[P1]
    assert s0.stage is Stage.DONE and s1.stage is Stage.DONE
    assert s0.result is not None and s0.result == s1.result
    for p in (P0, P1):
        records = game.records[p]
        seqs = [decode_envelope(r).seq for r in records]
        assert seqs == list(range(len(records))), "a transcript lost or duplicated a message"
        report = verify_transcript(records)
        assert report.valid, report.error
    assert game.records[P0] == game.records[P1]


DECKS = pytest.mark.parametrize("deck", ["v1", "v2", "v2p"])


@DECKS
@pytest.mark.parametrize("seed", fast_first(range(40), fast=4))
def test_cut_anywhere_then_resume(seed: int, deck: str) -> None:
    game = LossyGame(seed, deck=deck)
    game.run(cut_rate=0.08)
    assert game.cuts >= 3, "the test must cut the connection several times"
    check_both_verify(game)


@DECKS
@pytest.mark.parametrize("seed", fast_first(range(20), fast=2))
def test_crash_and_restore_from_the_transcript(seed: int, deck: str) -> None:
    game = LossyGame(1000 + seed, deck=deck)
    game.run(cut_rate=0.03, crash_rate=0.5)
    check_both_verify(game)
    assert game.crashes >= 1 or game.cuts == 0


@DECKS
def test_resume_resends_exactly_what_the_peer_lacks(deck: str) -> None:
    game = LossyGame(7, target=1, deck=deck)
    # Play until P1 has sent messages that P0 has not received.
    for _ in range(10_000):
        for p in (P0, P1):
            game.deliver_some(p)
            game.step(p)
        if game.sessions[P0].game_id and len(game.records[P1]) > len(game.records[P0]):
            break
    else:
        raise AssertionError("P0 never fell behind")
    lacking = len(game.records[P1]) - len(game.records[P0])
    game.wire[P0].clear()  # everything in flight towards P0 is lost
    game.wire[P1].clear()
    for p in (P0, P1):
        game.sessions[p].reconnect(b"n" * 15 + bytes([int(p)]), dialer=p is P0)
        game.send(p, game.sessions[p].data_to_send())
    game.run(cut_rate=0.0)
    resumed = {r.we_have: r for r in game.resumes}
    assert any(r.resent == lacking for r in resumed.values())
    check_both_verify(game)


def _reconnecting_pair(seed: int) -> LossyGame:
    game = LossyGame(seed, target=1)
    while not (game.sessions[P0].game_id and game.sessions[P1].game_id):
        for p in (P0, P1):
            game.deliver_some(p)
            game.step(p)
    game.wire[P0].clear()
    game.wire[P1].clear()
    game.sessions[P1].reconnect(b"h" * 16, dialer=False)
    return game


def test_a_stranger_or_replay_cannot_take_over_the_game() -> None:
    game = _reconnecting_pair(11)
    host = game.sessions[P1]
    # A stranger signs a resume with its own key: refused, the game lives on.
    stranger = Session(identity=identity("stranger"), role=P0, secret=b"s" * 32)
    stranger.game_id = host.game_id
    stranger._control.bind(host.game_id, identity("stranger").public_key())
    host.receive_data(frame(stranger._control.resume_envelope(b"x" * 16, echo=b"")))
    with pytest.raises(ResumeRefusedError, match="not signed"):
        host.next_event()
    assert host.resumable and host.reconnecting
    # Garbage: refused as well.
    host.reconnect(b"h" * 16, dialer=False)
    host.receive_data(b"\x00\x00\x00\x05hello")
    with pytest.raises(ResumeRefusedError):
        host.next_event()
    # The real joiner's resume is accepted ...
    host.reconnect(b"h" * 16, dialer=False)
    game.sessions[P0].reconnect(b"j" * 16, dialer=True)
    first = game.sessions[P0].data_to_send()
    host.receive_data(first)
    assert isinstance(host.next_event(), Resumed)
    # ... and the same bytes replayed later are refused.
    host.reconnect(b"k" * 16, dialer=False)
    host.receive_data(first)
    with pytest.raises(ResumeRefusedError, match="replayed"):
        host.next_event()
    assert host.resumable


def test_the_dialer_refuses_an_answer_that_does_not_echo_its_nonce() -> None:
    game = _reconnecting_pair(12)
    joiner, host = game.sessions[P0], game.sessions[P1]
    joiner.reconnect(b"j" * 16, dialer=True)
    stale = host._control.resume_envelope(b"h" * 16, echo=b"z" * 16)
    joiner.receive_data(frame(stale))
    with pytest.raises(ResumeRefusedError, match="echo"):
        joiner.next_event()
    assert joiner.resumable


def test_reconnect_is_refused_before_the_game_id_exists() -> None:
    sessions = make_pair()
    with pytest.raises(LocalProtocolError):
        sessions[P0].reconnect(b"n" * 16, dialer=True)
    with pytest.raises(LocalProtocolError):
        sessions[P0].reconnect(b"short", dialer=True)


@DECKS
def test_equivocation_is_caught_with_both_envelopes(deck: str) -> None:
    game = LossyGame(21, target=1, deck=deck)
    # Run until P0 has received at least one deck message from P1.
    while not any(
        "deck" in decode_envelope(r).type and decode_envelope(r).sender == 1
        for r in game.records[P0]
    ):
        for p in (P0, P1):
            game.deliver_some(p)
            game.step(p)
    held = next(
        r
        for r in game.records[P0]
        if decode_envelope(r).sender == 1 and "deck" in decode_envelope(r).type
    )
    env = decode_envelope(held)
    other = resign(game.keys[P1], held, payload={**env.payload, "deck": env.payload["deck"][::-1]})
    assert other != held
    s0 = game.sessions[P0]
    s0.receive_data(frame(other))
    with pytest.raises(EquivocationError) as info:
        while True:
            if s0.next_event() is NEED_DATA:
                game.deliver_some(P0)
    assert info.value.evidence == (held, other)
    assert info.value.code == "equivocation"
    # The evidence is in the transcript, and the verifier names it too.
    report = verify_transcript(game.records[P0])
    assert report.error_code == "equivocation"


def test_refusal_is_an_event_for_the_joiner_and_checked_against_the_pin() -> None:
    host_key = identity("refusing-host")
    pinned = fingerprint(host_key.public_key())
    joiner = Session(
        identity=identity("joiner"),
        role=P0,
        secret=b"j" * 32,
        expected_peer_fingerprint=pinned,
    )
    joiner.data_to_send()
    joiner.receive_data(refusal(host_key, "busy", "a game is running"))
    event = joiner.next_event()
    assert event == Refused(reason="busy", detail="a game is running")
    assert joiner.next_event() is CLOSED
    # A refusal signed by another key than the pinned one is not believed.
    other = Session(
        identity=identity("joiner2"),
        role=P0,
        secret=b"k" * 32,
        expected_peer_fingerprint=pinned,
    )
    other.receive_data(refusal(identity("impostor"), "busy"))
    with pytest.raises(PeerKeyMismatchError):
        other.next_event()


@pytest.mark.parametrize(
    ("deck", "answer"),
    [
        ("v1", "deck3"),
        ("v2", "v2deck2"),
        ("v2p", "v2deck2"),
        ("v2", "v2redeal"),
        ("v2p", "v2redeal"),
    ],
)
def test_a_crash_between_a_message_and_its_automatic_answer(deck: str, answer: str) -> None:
    """The process died after recording the peer's deal message but before recording the
    one it answers with automatically (v1: deck3 after deck2; v2: v2deck2 after v2deck1;
    with early redeal cards, the non-dealer's v2redeal after the accept-redeal): the
    restored session records and sends that answer."""
    game = LossyGame(31, target=1, deck=deck)
    if answer == "v2redeal":
        game.bots = {P0: REDEALER, P1: REDEALER}
    found = False
    while not found:
        for p in (P0, P1):
            game.deliver_some(p)
            game.step(p)
        for p in (P0, P1):
            types = [decode_envelope(r).type for r in game.records[p]]
            if (
                answer in types
                and decode_envelope(game.records[p][types.index(answer)]).sender == p
            ):
                answerer, cut_at = p, types.index(answer)
                found = True
    for p in (P0, P1):
        game.wire[p].clear()
    del game.records[answerer][cut_at:]  # the answer never reached the disk
    game.crash(answerer)
    # recorded on restore (a v2redeal may be followed by the pre-deal the player owes)
    assert decode_envelope(game.records[answerer][cut_at]).type == answer
    for p in (P0, P1):
        game.sessions[p].reconnect(bytes([int(p)]) * 16, dialer=p is P0)
        game.send(p, game.sessions[p].data_to_send())
    game.run(cut_rate=0.0)
    check_both_verify(game)


def _is_pre_deal(raw: bytes) -> bool:
    env = decode_envelope(raw)
    return (
        env.type in ("v2deck1", "v2deck2")
        and "shares" not in env.payload
        and (env.payload.get("hand", 0) >= 1)
    )


def _opens(env: Envelope) -> bool:
    """The pre-dealt hand's dealer shares: a v2open, or riding on an action as open."""
    return env.type == "v2open" or "open" in env.payload


#: (crash, what) of the pipelined-deal cuts: each crash and each stage once in the fast
#: loop (the diagonal first), every pair in CI.
_PIPELINED_CUTS = sorted(
    itertools.product(["sender", "receiver", "none"], ["predeal", "open", "redeal"]),
    key=lambda c: c not in {("sender", "predeal"), ("receiver", "open"), ("none", "redeal")},
)


@pytest.mark.parametrize(("crash", "what"), fast_first(_PIPELINED_CUTS, fast=3))
@pytest.mark.parametrize("seed", fast_first(range(3)))
def test_cut_and_crash_in_the_middle_of_a_pipelined_deal(seed: int, crash: str, what: str) -> None:
    """The connection drops (and a side may die) right after a pre-deal message of the
    next hand, its opening shares (v2open or a riding open) or, with early redeal cards,
    a v2redeal was recorded by its sender and before the peer got it: resume and restore
    carry on."""
    game = LossyGame(500 + seed, target=8, deck="v2p")
    game.bots = {P0: PLAYER, P1: REDEALER if seed % 2 else PLAYER}  # long games, no rest
    if what == "redeal":
        game.bots = {P0: REDEALER, P1: REDEALER}
    found = {"predeal": _is_pre_deal, "open": lambda r: _opens(decode_envelope(r))}.get(
        what, lambda r: decode_envelope(r).type == "v2redeal"
    )
    hit = None
    for _ in range(200_000):
        p = game.rng.choice((P0, P1))
        game.deliver_some(p)
        game.step(p)
        for q in (P0, P1):
            # q's pre-deal (or v2open) is among its last two records and still in flight
            tail = [decode_envelope(r) for r in game.records[q][-2:]]
            if len(game.records[q.other]) < len(game.records[q]) and any(
                e.sender == q and found(e.raw) for e in tail
            ):
                hit = q
        if hit is not None or all(s.finished for s in game.sessions.values()):
            break
    assert hit is not None, "the game never reached a pipelined deal"
    victim = {"sender": hit, "receiver": hit.other, "none": None}[crash]
    game.cut(crash=victim)
    game.run(cut_rate=0.02)
    check_both_verify(game)


@settings(max_examples=examples(150), deadline=None)
@given(data=st.binary(max_size=300), dialer=st.booleans(), flip=st.integers(0, 10_000))
def test_any_bytes_on_a_new_connection_only_refuse_it(data: bytes, dialer: bool, flip: int) -> None:
    """Garbage, truncated or bit-flipped resume frames: only the remote-error family
    escapes, and none of it ends the game (the next connection may still resume)."""
    game = _FUZZ_GAME

    def rebuilt(p: Player) -> Session:
        return Session.restore(
            list(game.records[p]),
            identity=game.keys[p],
            role=p,
            secret=game.secrets[p],
        )

    side, peer = (rebuilt(P1), rebuilt(P0)) if dialer else (rebuilt(P0), rebuilt(P1))
    peer.reconnect(b"p" * 16, dialer=True)
    genuine = bytearray(peer.data_to_send())
    genuine[flip % len(genuine)] ^= 1 << (flip % 8)
    for feed in (data, bytes(genuine)):
        side.reconnect(b"s" * 16, dialer=False)
        side.receive_data(feed)
        try:
            while side.next_event() is not NEED_DATA:
                pass
        except RemoteProtocolError:
            pass
        assert side.resumable or side.error is not None


def _fuzz_game() -> LossyGame:
    game = LossyGame(77, target=1)
    while not all(s.started for s in game.sessions.values()):
        for p in (P0, P1):
            game.deliver_some(p)
            game.step(p)
    return game


_FUZZ_GAME = _fuzz_game()
