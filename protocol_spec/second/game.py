"""A scripted deck v2 game between two honest players (wire.md §4–§7, deck_v2.md,
rules.md): the transcript every envelope of which the wire vectors hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common import Ed25519, envelope, handshake, local, sha256
from deck2 import DEALER, NONDEALER, STEP_D3, STEP_REDEAL, STEP_SHOW, Side, open_card, positions
from ec import be32, enc, mul
from rules import Game, card_name

Choose = Callable[["Play", int, list[str], int], str]


@dataclass
class Play:
    keys: tuple[Ed25519, Ed25519]
    names: tuple[str, str]
    secrets: tuple[bytes, bytes]
    ruleset: dict[str, Any]
    options: dict[str, Any]
    masks: tuple[int, int] = (0, 0)
    transcript: list[bytes] = field(default_factory=list)
    game_id: bytes = b""
    actions: list[list[Any]] = field(default_factory=list)
    rules: Any = None  # the rules engine of the game being played
    turns: list[int] = field(default_factory=list)  # where each player's turn began

    def send(self, sender: int, kind: str, payload: dict[str, Any]) -> bytes:
        raw = envelope(
            self.keys[sender],
            self.game_id,
            len(self.transcript),
            sha256(self.transcript[-1]),
            sender,
            kind,
            payload,
        )
        self.transcript.append(raw)
        return raw

    def start(self) -> int:
        made = handshake(
            self.keys, self.names, self.secrets, self.options, self.masks, self.ruleset
        )
        self.transcript = [*made["hellos"], made["coin"]]
        self.game_id = made["game_id"]
        dealer: int = made["coin_dealer"]
        return dealer


class Hand:
    """One hand's deck: both sides, the positions each holds, the shares owed."""

    def __init__(self, play: Play, hand: int, dealer: int) -> None:
        self.number = hand
        self.dealer = dealer
        context = sha256(play.transcript[-1])
        seed = {p: local(play.secrets[p], b"v2seed" + be32(hand)) for p in (0, 1)}
        self.sides = {
            dealer: Side(DEALER, seed[dealer], play.game_id, hand, context),
            1 - dealer: Side(NONDEALER, seed[1 - dealer], play.game_id, hand, context),
        }
        self.redeal = False

    def side(self, player: int) -> Side:
        return self.sides[player]

    def card(self, pos: int) -> int:
        a, b = self.sides[self.dealer], self.sides[1 - self.dealer]
        return open_card(a.deck, pos, enc(mul(a.layer(pos), a.x)), enc(mul(b.layer(pos), b.x)))

    def held(self, player: int) -> list[int]:
        role = DEALER if player == self.dealer else NONDEALER
        return positions(role, self.redeal)

    def cards(self) -> dict[int, list[int]]:
        return {p: [self.card(q) for q in self.held(p)] for p in (0, 1)}

    def redeal_shares(self, player: int) -> list[bytes]:
        """The shares ``player`` gives for the other player's redeal positions."""
        other = DEALER if player != self.dealer else NONDEALER
        return [self.side(player).share(STEP_REDEAL, q) for q in positions(other, True)]

    def d3_shares(self) -> list[bytes]:
        return [self.side(1 - self.dealer).share(STEP_D3, q) for q in positions(DEALER, False)]

    def show(self, player: int, card: int) -> tuple[int, bytes]:
        pos = next(q for q in self.held(player) if self.card(q) == card)
        return pos, self.side(player).share(STEP_SHOW, pos)


def play_classic(play: Play, choose: Choose) -> dict[str, Any]:
    """The deal of wire.md §6a (no pipeline, no early cards), until the co-signed result."""
    return play_game(play, choose)


@dataclass
class Features:
    pipeline: bool = False
    early: bool = False  # both hellos carry "early": true
    thinkers: tuple[int, ...] = ()  # players that send work()'s output before choosing
    early_redeal: bool = False  # nonce bit 2 agreed
    rest_final: bool = False  # nonce bit 1 agreed


def play_game(
    play: Play,
    choose: Choose,
    features: Features | None = None,
    stop: Callable[[Play, int, str], bool] | None = None,
) -> dict[str, Any]:
    """A whole game (wire.md §5, §6a, §6b) until the co-signed result, or until
    ``stop(play, player, action)`` says to stop before ``player`` sends ``action``."""
    f = features or Features()
    dealer = play.start()
    rules = Game(
        target=play.ruleset["target"],
        ladder=play.ruleset["ladder"],
        rest_refused=play.ruleset["rest_refused"],
        dealer=dealer,
    )
    play.rules = rules
    step = 0
    cur = 0
    last_sender = 0
    hands: dict[int, Hand] = {}
    sent: dict[int, dict[str, Any]] = {}  # hand -> its v2deck1 / v2deck2 as made
    pre = {"d1": False, "d2": False}

    def tagged(number: int, body: dict[str, Any]) -> dict[str, Any]:
        return {"hand": number, **body} if f.pipeline else body

    def send_d1(number: int) -> None:
        hand = Hand(play, number, 1 - hands[cur].dealer if number > cur else rules.dealer)
        hands[number] = hand
        nd = 1 - hand.dealer
        d1 = hand.side(nd).d1()
        sent[number] = {"d1": d1}
        play.send(nd, "v2deck1", tagged(number, d1))

    def send_d2(number: int, with_shares: bool) -> None:
        hand = hands[number]
        d1 = sent[number]["d1"]
        d2 = hand.side(hand.dealer).d2(d1)
        sent[number]["d2"] = d2
        body = d2 if with_shares else {k: v for k, v in d2.items() if k != "shares"}
        play.send(hand.dealer, "v2deck2", tagged(number, body))
        hand.side(1 - hand.dealer).receive_d2(d1, d2)

    def rest_decides() -> bool:
        return f.rest_final and (
            rules.rest_answered or (rules.pending == "rest" and rules.rest_refused == "game")
        )

    def interjections(p: int) -> None:
        """wire.md §6b 1–2: the pre-deal message ``p`` owes, at its first chance."""
        if not f.pipeline or rest_decides():
            return
        nxt = hands[cur]
        if not pre["d1"] and p == nxt.dealer:
            send_d1(cur + 1)
            pre["d1"] = True
        elif pre["d1"] and not pre["d2"] and p == 1 - nxt.dealer:
            send_d2(cur + 1, False)
            pre["d2"] = True

    ended = False
    while not ended:
        # open hand ``cur`` (wire.md §6b 3)
        if cur not in hands:
            send_d1(cur)
            send_d2(cur, True)
        elif "d2" not in sent[cur]:
            send_d2(cur, True)
        hand = hands[cur]
        nd = 1 - hand.dealer
        rules.deal(hand.cards())
        pre = {"d1": False, "d2": False}
        owed_redeal = False
        first = True
        while True:
            p = rules.to_act
            play.turns.append(len(play.transcript))
            if not first:
                interjections(p)
            elif f.early and p in f.thinkers:
                play.send(nd, "v2deck3", tagged(cur, {"shares": hand.d3_shares()}))
                first = False
            action = choose(play, p, rules.legal(), step)
            stopping = stop is not None and stop(play, p, action)
            step += 1
            play.actions.append([p, action])
            payload: dict[str, Any] = {"act": action.split()[0]}
            if action == "accept-redeal":
                payload["shares"] = hand.redeal_shares(p)
                owed_redeal = not f.early_redeal
            elif owed_redeal and p == nd:
                payload["shares"] = hand.redeal_shares(p)
                owed_redeal = False
            if action.startswith("play "):
                card = next(c for c in rules.hands[p] if card_name(c) == action.split()[1])
                payload["pos"], payload["share"] = hand.show(p, card)
            after = _after(rules, action)
            if (
                f.pipeline
                and after.round_ended
                and not after.over
                and pre["d1"]
                and pre["d2"]
                and p == hands[cur + 1].dealer
            ):
                payload["open"] = sent[cur + 1]["d2"]["shares"]
            if stopping:
                kind = "v2deck3" if first else "v2action"
                body = (
                    tagged(cur, {"shares": hand.d3_shares(), "action": payload})
                    if first
                    else payload
                )
                return {"stopped": (p, kind, body), "scores": list(rules.scores), "hands": cur + 1}
            if first:
                play.send(
                    nd, "v2deck3", tagged(cur, {"shares": hand.d3_shares(), "action": payload})
                )
                first = False
            else:
                play.send(p, "v2action", payload)
            last_sender = p
            rules.push(action)
            if action == "accept-redeal":
                hand.redeal = True
                rules.deal(hand.cards())
                if f.early_redeal:
                    play.send(nd, "v2redeal", {"shares": hand.redeal_shares(nd)})
            if rules.round_ended:
                break
        if rules.over:
            ended = True
            break
        if f.pipeline and pre["d1"] and pre["d2"] and "open" not in payload:
            nxt = hands[cur + 1]
            play.send(
                nxt.dealer, "v2open", {"hand": cur + 1, "shares": sent[cur + 1]["d2"]["shares"]}
            )
        cur += 1
        if not (f.pipeline and pre["d1"]):
            hands.pop(cur, None)
    assert rules.winner is not None and rules.reason is not None
    hands_opened = cur + 1
    result = {
        "winner": rules.winner,
        "scores": list(rules.scores),
        "reason": rules.reason,
        "hands": hands_opened,
        "chain": sha256(play.transcript[-1]),
    }
    play.send(1 - last_sender, "result", result)
    play.send(last_sender, "result", result)
    return {
        "winner": rules.winner,
        "scores": list(rules.scores),
        "reason": rules.reason,
        "hands": hands_opened,
    }


def _after(rules: Game, action: str) -> Game:
    """The rules state after ``action``, ``rules`` untouched."""
    import copy

    probe = copy.deepcopy(rules)
    probe.push(action)
    return probe
