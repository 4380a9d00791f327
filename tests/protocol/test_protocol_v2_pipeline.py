"""The pipelined deck v2 deal (wire.md section 6b): hand n + 1 dealt during hand n.

Two in-memory sessions negotiate ``"pipeline": true``; the next non-dealer's
``v2deck1`` and the next dealer's ``v2deck2`` (without its shares) of hand
n + 1 interleave with hand n's actions, each naming its hand; the dealer's
shares for the non-dealer's cards follow in ``v2open`` once hand n is over,
so nobody sees a card of hand n + 1 while hand n is played.  Every game ends
co-signed and verified from the transcript alone, with the last hand's
pre-deal dangling.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from helpers.games import check_finished_game
from helpers.matrix import fast_first
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    REDEALER,
    Pair,
    bot,
    deliver_and_expect,
    drain,
    expect_remote,
    resign,
    split,
    with_payload,
)

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    NEED_DATA,
    CardsDealt,
    CheatDetectedError,
    MalformedMessageError,
    RulesetMismatchError,
    Session,
    SessionOptions,
    YourTurn,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.protocol._wire import envelope_hash as hash_of
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset

SETTINGS = list(itertools.product(Ladder, RestRefused, Player))
DEAL = {"v2deck1", "v2deck2", "v2open"}


def _id(value: object) -> str:
    if isinstance(value, Player):
        return f"dealer-{value.name}"
    return str(getattr(value, "value", value))


def pipelined(tag: str, *, target: int = 6, first_dealer: Player | None = None, **kw: Any) -> Pair:
    return Pair(
        ruleset=Ruleset(target=target, **kw.pop("rules", {})),
        tag=tag,
        first_dealer=first_dealer,
        deck="v2",
        pipeline=True,
        **kw,
    )


def is_action_env(env: Envelope) -> bool:
    return env.type in ("v2action", "v2deck3")


def hand_boundaries(records: list[bytes]) -> list[list[Envelope]]:
    """For each hand after the first: the envelopes between the last action of the
    previous hand and the first action of this one (its v2deck3), both excluded,
    and those two actions around them."""
    envs = [decode_envelope(r) for r in records]
    out = []
    starts = [i for i, e in enumerate(envs) if e.type == "v2deck3"]
    for start in starts[1:]:
        last = max(i for i in range(start) if is_action_env(envs[i]))
        out.append(envs[last : start + 1])
    return out


def critical_path(records: list[bytes]) -> list[tuple[int, int, int]]:
    """Per hand boundary: (deal messages, heavy deal messages (v2deck1/v2deck2),
    deal flights) between the last action of a hand and the first of the next.
    A flight is a run of envelopes from one sender; a deal flight is one that
    carries only deal messages."""
    figures = []
    for seg in hand_boundaries(records):
        between = seg[1:-1]
        deal = [e for e in between if e.type in DEAL]
        heavy = [e for e in deal if e.type != "v2open"]
        flights = []
        for env in seg:
            if flights and flights[-1][0] == env.sender:
                flights[-1][1].append(env)
            else:
                flights.append((env.sender, [env]))
        deal_flights = sum(1 for _, f in flights if all(e.type in DEAL for e in f))
        figures.append((len(deal), len(heavy), deal_flights))
    return figures


@pytest.mark.parametrize(
    ("ladder", "rest", "dealer"),
    fast_first(SETTINGS, fast=2, ids=lambda cell: "-".join(map(_id, cell))),
)
def test_pipelined_full_games(ladder: Ladder, rest: RestRefused, dealer: Player) -> None:
    """Games over several seeds and bot pairings, both first dealers, every ruleset."""
    for seed, names in ((0, ("random", "heuristic")), (1, ("heuristic", "random"))):
        pair = pipelined(
            f"pipe-games/{seed}",
            target=4,
            rules={"ladder": ladder, "rest_refused": rest},
            first_dealer=dealer,
            bots={P0: bot(names[0], seed), P1: bot(names[1], seed + 50)},
        )
        pair.finish()
        check_finished_game(pair, first_dealer=dealer)
        report = verify_transcript(pair.records[P0])
        assert report.valid and report.hidden_cards_revealed == 0, report.summary()


@pytest.mark.parametrize("seed", fast_first(range(8), fast=3))
def test_pipelined_random_games_over_many_seeds(seed: int) -> None:
    pair = pipelined(
        f"pipe-seeds/{seed}", bots={P0: bot("random", seed), P1: bot("random", seed + 1000)}
    )
    pair.finish()
    check_finished_game(pair)
    assert verify_transcript(pair.records[P1]).valid


def test_pipelined_redeals(first_dealer: Player) -> None:
    """Every hand redealt (the redeal reuses the hand's deck, positions 6-11) while the
    next hand is pre-dealt beside it."""
    pair = pipelined("pipe-redeal", target=4, first_dealer=first_dealer)
    pair.bots = {P0: REDEALER, P1: REDEALER}
    pair.finish()
    check_finished_game(pair, first_dealer=first_dealer)
    result = pair.sessions[P0].result
    assert result is not None and result.hands >= 2
    for p in Player:
        redeals = [e for e in pair.events[p] if isinstance(e, CardsDealt) and e.redeal]
        assert len(redeals) == result.hands
    assert verify_transcript(pair.records[P0]).valid


def test_pre_deal_messages_name_their_hand_and_interleave() -> None:
    pair = pipelined("pipe-shape", bots={P0: PLAYER, P1: PLAYER})
    pair.finish()
    envs = [decode_envelope(r) for r in pair.records[P0]]
    hand = -1
    interleaved = 0
    for i, env in enumerate(envs):
        if env.type == "v2deck3":
            hand = env.payload["hand"]
        if env.type in ("v2deck1", "v2deck2") and env.payload["hand"] == hand + 1 and hand >= 0:
            # sent while hand ``hand`` was still being played: an action follows
            later = [e.type for e in envs[i + 1 :]]
            if later and later[0] in ("v2action", "v2deck2", "v2deck1"):
                interleaved += 1
            if env.type == "v2deck2" and "shares" not in env.payload:
                assert "v2open" in later or later[-2:] == ["result", "result"]
        if env.type in DEAL | {"v2deck3"}:
            assert isinstance(env.payload["hand"], int)
    assert interleaved >= 2
    # the dealer's shares for the non-dealer's cards never travel before the hand starts
    for env in envs:
        if env.type == "v2deck2" and "shares" in env.payload:
            assert env.payload["hand"] in (0, *range(1, 99))


BOT_PAIRS = [("player", "player"), ("heuristic", "player"), ("random", "heuristic")]


@pytest.mark.parametrize(
    ("seed", "names"), fast_first(itertools.product(range(3), BOT_PAIRS), fast=3)
)
def test_no_heavy_deal_message_on_the_critical_path(seed: int, names: tuple[str, str]) -> None:
    """Between the last action of a hand and the first of the next, no v2deck1 or
    v2deck2 (no shuffle, no proof) once the pre-deal had time to complete; only the
    precomputed shares of v2open, in at most one flight, and in none when the new
    dealer ended the previous hand."""

    def bots() -> dict[Player, Any]:
        return {P0: bot(names[0], seed), P1: bot(names[1], seed + 7)}

    pair = pipelined(f"pipe-path/{seed}", target=8, bots=bots())
    pair.finish()
    records = pair.records[P0]
    figures = critical_path(records)
    steady = rode = 0
    for seg, (deal, heavy, flights) in zip(hand_boundaries(records), figures, strict=True):
        if "open" in seg[0].payload:  # the new dealer ended the hand: its shares rode on it
            steady += 1
            rode += 1
            assert (deal, heavy, flights) == (0, 0, 0)
        elif any(e.type == "v2open" for e in seg):  # the new non-dealer ended it
            steady += 1
            assert (deal, heavy, flights) == (1, 0, 1)
            assert next(e for e in seg if e.type == "v2open").sender != seg[0].sender
        else:  # a hand too short to pre-deal: at most the classic deal
            assert heavy <= 2
    assert steady >= len(figures) // 2
    # The classic v2 deal, for comparison: two heavy messages on every boundary.
    classic = Pair(
        ruleset=Ruleset(target=8), tag=f"pipe-path/{seed}", deck="v2", pipeline=False, bots=bots()
    )
    classic.finish()
    assert all(heavy == 2 for _, heavy, _ in critical_path(classic.records[P0]))


def test_the_critical_path_test_sees_many_hands() -> None:
    pair = pipelined("pipe-path/many", target=8, bots={P0: PLAYER, P1: PLAYER})
    pair.finish()
    assert len(critical_path(pair.records[P0])) >= 5


@pytest.mark.parametrize("initiator", [True, False])
def test_pipelining_must_be_negotiated_by_both(initiator: bool) -> None:
    """Both sides stop before any card (the net layer answers ``incompatible``)."""
    pair = Pair(tag="pipe-neg", deck="v2", pipelines=(initiator, not initiator))
    hello0 = pair.deliver(P0)
    with pytest.raises(RulesetMismatchError) as info:
        drain(pair.sessions[P1])
    assert info.value.evidence == (hello0,)
    hello1 = pair.collect(P1)[0]
    assert ("pipeline" in decode_envelope(hello1).payload["options"]) is not initiator
    pair.deliver(P1)
    caught = expect_remote(pair, P0, RulesetMismatchError, offending=hello1)
    assert caught.report.error_code == "ruleset-mismatch"
    for p in Player:
        assert len(pair.records[p]) == 2


def test_pipeline_needs_deck_v2() -> None:

    from truc_p2p.protocol import LocalProtocolError

    with pytest.raises(LocalProtocolError):
        Session(
            identity=SigningKey.generate(),
            role=P0,
            secret=bytes(32),
            options=SessionOptions(deck="v1", pipeline=True),
        )


def _pre_deal(mtype: str, hand: int = 1) -> Callable[[Player, bytes], bool]:
    def stop(sender: Player, raw: bytes) -> bool:
        env = decode_envelope(raw)
        if mtype == "open":  # the shares riding on the action that ends a hand
            return "open" in env.payload
        if mtype == "v2open":
            return env.type == mtype
        if mtype == "v2action":
            return env.type == mtype and "open" not in env.payload
        return env.type == mtype and env.payload.get("hand") == hand

    return stop


def flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 1
    return bytes(out)


PRE_DEAL_CHEATS: list[tuple[str, str, Callable[[dict[str, Any]], Any], str]] = [
    ("predeal1-swapped", "v2deck1", lambda p: p["deck"].reverse(), "D1"),
    ("predeal1-forged-proof", "v2deck1", lambda p: p.update(proof=flip(p["proof"], 99)), "D1"),
    ("predeal2-swapped", "v2deck2", lambda p: p["deck"].reverse(), "D2"),
    ("predeal2-forged-key-proof", "v2deck2", lambda p: p.update(pok=flip(p["pok"], 3)), "D2"),
    (
        "open-forged-share",
        "v2open",
        lambda p: p["shares"].__setitem__(1, flip(p["shares"][1], 70)),
        "D2",
    ),
    ("open-shares-swapped", "v2open", lambda p: p["shares"].reverse(), "D2"),
    (
        "riding-open-forged",
        "open",
        lambda p: p["open"].__setitem__(0, flip(p["open"][0], 70)),
        "D2",
    ),
]


@pytest.mark.parametrize(
    ("mtype", "edit", "step"), [c[1:] for c in PRE_DEAL_CHEATS], ids=[c[0] for c in PRE_DEAL_CHEATS]
)
def test_a_cheat_in_a_pre_deal_message_is_caught_at_that_message(
    mtype: str, edit: Callable[[dict[str, Any]], Any], step: str, first_dealer: Player
) -> None:
    pair = pipelined("pipe-cheat", first_dealer=first_dealer, bots={P0: PLAYER, P1: PLAYER})
    cheater, raw = pair.run(until=_pre_deal(mtype))
    forged = with_payload(raw, pair.keys[cheater], edit)
    caught = deliver_and_expect(pair, cheater, forged, CheatDetectedError)
    assert isinstance(caught.error, CheatDetectedError)
    assert caught.error.step == step
    report = caught.report
    assert report.error_code == "cheat", report.summary()
    assert report.error_message_no == caught.index
    assert report.hidden_cards_revealed == 0


MALFORMED: list[tuple[str, str, Callable[[dict[str, Any]], Any]]] = [
    ("predeal1-wrong-hand", "v2deck1", lambda p: p.update(hand=5)),
    ("predeal1-no-hand", "v2deck1", lambda p: p.pop("hand")),
    ("predeal2-early-shares", "v2deck2", lambda p: p.update(shares=[bytes(97)] * 3)),
    ("predeal2-wrong-hand", "v2deck2", lambda p: p.update(hand=0)),
    ("open-wrong-hand", "v2open", lambda p: p.update(hand=p["hand"] + 3)),
    ("riding-open-missing", "open", lambda p: p.pop("open")),
    ("open-riding-where-not-due", "v2action", lambda p: p.update(open=[bytes(97)] * 3)),
]


@pytest.mark.parametrize(
    ("mtype", "edit"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_a_pre_deal_for_the_wrong_hand_or_with_early_shares_is_malformed(
    mtype: str, edit: Callable[[dict[str, Any]], Any]
) -> None:
    pair = pipelined("pipe-malformed", first_dealer=P1, bots={P0: PLAYER, P1: PLAYER})
    cheater, raw = pair.run(until=_pre_deal(mtype))
    forged = with_payload(raw, pair.keys[cheater], edit)
    caught = deliver_and_expect(pair, cheater, forged, MalformedMessageError)
    assert caught.report.error_code == "malformed", caught.report.summary()
    assert caught.report.error_message_no == caught.index


def test_a_dangling_pre_deal_verifies_and_reveals_nothing() -> None:
    pair = pipelined("pipe-dangling", target=3, bots={P0: PLAYER, P1: PLAYER})
    pair.finish()
    envs = [decode_envelope(r) for r in pair.records[P0]]
    result = pair.sessions[P0].result
    assert result is not None
    dangling = [e for e in envs if e.type == "v2deck1" and e.payload["hand"] == result.hands]
    assert dangling, "the last hand must have pre-dealt the next one"
    report = verify_transcript(pair.records[P0])
    assert report.valid and report.hands == result.hands
    assert report.hidden_cards_revealed == 0


def test_pipelined_cost_per_hand() -> None:
    """The pipelined deal adds one small message per hand (v2open) to the classic
    three, and about the same bytes per hand (plus the dangling pre-deal per game)."""
    from helpers.games import per_hand_cost

    deals, nbytes, _ = per_hand_cost("v2", pipeline=True)
    classic_deals, classic_bytes, _ = per_hand_cost("v2")
    assert classic_deals == 3
    assert 3 < deals <= 4.5  # v2open, and a dangling pre-deal per game
    assert classic_bytes < nbytes < classic_bytes + 15_000


def test_the_turn_is_handed_out_before_the_pre_deal_is_computed() -> None:
    """The next non-dealer's YourTurn comes first; its owed v2deck1 (a shuffle and a
    proof) is made on the next next_event() -- while the player thinks -- or by send()."""
    from truc_p2p.protocol import NEED_DATA, YourTurn, frame

    pair = pipelined("pipe-lazy", first_dealer=P0, bots={P0: None, P1: None})
    s = pair.sessions  # P0 deals hand 0, so it is the non-dealer of hand 1
    s[P1].receive_data(b"".join(frame(raw) for raw in pair.inflight[P0]))
    turn = None
    for _ in range(1000):
        for p in (P0, P1):
            event = s[p].next_event()
            if isinstance(event, YourTurn) and p is P0:
                turn = event
                break
            if isinstance(event, YourTurn):
                s[P0].receive_data(s[P1].send(PLAYER.choose(s[P1].game)))
            s[p.other].receive_data(s[p].data_to_send())
        if turn is not None:
            break
    assert turn is not None and s[P0].hands_dealt == 1
    assert "v2deck1" not in [decode_envelope(r).type for r in split(s[P0].data_to_send())]
    while s[P0].next_event() is not NEED_DATA:
        pass
    made = [decode_envelope(r) for r in split(s[P0].data_to_send())]
    assert [(e.type, e.payload["hand"]) for e in made] == [("v2deck1", 1)]
    # the action then follows the pre-deal on the chain
    action = [decode_envelope(r) for r in split(s[P0].send(PLAYER.choose(s[P0].game)))]
    assert [e.type for e in action] == ["v2action"]
    assert action[0].seq == made[0].seq + 1


def _pre_deal_flight(
    first_dealer: Player, edit: Callable[[dict[str, Any]], Any] | None
) -> tuple[Pair, Player, int]:
    """Hand 1's v2deck1 and the action after it (one flight), delivered together to the
    next dealer, which is pumped only up to its turn: it is never idle in between.
    Returns the pair, the next dealer and the place of v2deck1 in its transcript."""
    # The script depends on the cards dealt, hence on the hellos: pinned to the
    # options it was written for (no early cards, no early redeal cards).
    pair = pipelined(
        "pipe-defer",
        first_dealer=first_dealer,
        bots={P0: PLAYER, P1: PLAYER},
        early=False,
        early_redeals=(False, False),
    )
    sender, raw = pair.run(until=_pre_deal("v2deck1"))
    dealer = sender.other
    pair.bots[dealer] = None
    if edit is not None:
        raw = with_payload(raw, pair.keys[sender], edit)
    pair.deliver(sender, raw)
    index = len(pair.records[dealer])
    assert pair.inflight[sender], "an action rides in the same flight as the pre-deal"
    # (after a forged pre-deal, the action chains to it as the cheater would send it)
    pair.deliver(sender, resign(pair.keys[sender], pair.inflight[sender][0], prev=hash_of(raw)))
    session = pair.sessions[dealer]
    for _ in range(20):  # up to the dealer's turn, without ever reaching NEED_DATA
        event = session.next_event()
        assert event is not NEED_DATA
        if isinstance(event, YourTurn):
            break
    else:  # pragma: no cover
        raise AssertionError("no turn")
    assert decode_envelope(pair.records[dealer][index]).type == "v2deck1"
    return pair, dealer, index


@pytest.mark.parametrize("first_dealer", list(Player), ids=_id)
def test_the_turn_comes_before_the_pre_deal_is_checked_and_answered(
    first_dealer: Player,
) -> None:
    # The next dealer is handed its turn at once; checking the v2deck1 and computing
    # its v2deck2 (about 18 ms) wait for work(), i.e. while the player thinks.
    pair, dealer, _ = _pre_deal_flight(first_dealer, None)
    session = pair.sessions[dealer]
    assert session.data_to_send() == b""
    assert session.work() is True
    # ... and the v2deck2 it owes is made then, to be sent while the player thinks.
    (made,) = pair.collect(dealer)
    env = decode_envelope(made)
    assert env.type == "v2deck2" and env.payload["hand"] == 1 and "shares" not in env.payload
    assert session.work() is False
    assert session.data_to_send() == b""
    pair.bots[dealer] = PLAYER
    pair.act(dealer, PLAYER.choose(session.game))
    pair.finish()
    results = [pair.sessions[p].result for p in Player]
    assert results[0] is not None and results[0] == results[1]
    assert pair.records[P0] == pair.records[P1]
    assert verify_transcript(pair.records[P0]).valid


@pytest.mark.parametrize("call", ["work", "send"])
def test_a_put_off_pre_deal_check_still_catches_the_cheat_and_names_its_message(
    call: str,
) -> None:
    # Never idle: the check runs in work(), or at the latest when the dealer's own
    # v2deck2 must answer it -- before any share of that hand leaves.
    pair, dealer, index = _pre_deal_flight(P0, lambda p: p["deck"].reverse())
    session = pair.sessions[dealer]
    with pytest.raises(CheatDetectedError) as info:
        if call == "work":
            session.work()
        else:
            session.send(PLAYER.choose(session.game))
    exc = info.value
    assert exc.step == "D1"
    assert exc.message_no == index
    assert exc.evidence[0] == pair.records[dealer][index]
    assert session.error is exc
    with pytest.raises(CheatDetectedError) as again:
        session.next_event()
    assert again.value is exc
    assert session.data_to_send() == b""  # no v2deck2 and no action left
    report = verify_transcript(pair.records[dealer])
    assert report.error_code == "cheat" and report.error_message_no == index
