"""A scripted deck v2 game between two honest players (wire.md §4–§7, deck_v2.md,
rules.md): the transcript every envelope of which the wire vectors hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from deck2 import DEALER, NONDEALER, STEP_D3, STEP_REDEAL, STEP_SHOW, Side, open_card, positions
from ec import be32, enc, mul
from rules import Game, card_name

from common import Ed25519, envelope, handshake, local, sha256

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
        return open_card(
            a.deck, pos, enc(mul(a.layer(pos), a.x)), enc(mul(b.layer(pos), b.x))
        )

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
        return [
            self.side(1 - self.dealer).share(STEP_D3, q) for q in positions(DEALER, False)
        ]

    def show(self, player: int, card: int) -> tuple[int, bytes]:
        pos = next(q for q in self.held(player) if self.card(q) == card)
        return pos, self.side(player).share(STEP_SHOW, pos)


def play_classic(play: Play, choose: Choose) -> dict[str, Any]:
    """The deal of wire.md §6a (no pipeline, no early cards), until the co-signed result."""
    dealer = play.start()
    rules = Game(
        target=play.ruleset["target"],
        ladder=play.ruleset["ladder"],
        rest_refused=play.ruleset["rest_refused"],
        dealer=dealer,
    )
    step = 0
    hand_no = 0
    last_sender = 0
    while not rules.over:
        hand = Hand(play, hand_no, rules.dealer)
        nd, dl = 1 - rules.dealer, rules.dealer
        d1 = hand.side(nd).d1()
        play.send(nd, "v2deck1", d1)
        d2 = hand.side(dl).d2(d1)
        play.send(dl, "v2deck2", d2)
        hand.side(nd).receive_d2(d1, d2)
        rules.deal(hand.cards())
        owed_redeal = False
        first = True
        while True:
            p = rules.to_act
            action = choose(play, p, rules.legal(), step)
            step += 1
            play.actions.append([p, action])
            payload: dict[str, Any] = {"act": action.split()[0]}
            if action == "accept-redeal":
                payload["shares"] = hand.redeal_shares(p)
                owed_redeal = True
            elif owed_redeal and p == nd:
                payload["shares"] = hand.redeal_shares(p)
                owed_redeal = False
            if action.startswith("play "):
                card = next(c for c in rules.hands[p] if card_name(c) == action.split()[1])
                payload["pos"], payload["share"] = hand.show(p, card)
            if first:
                play.send(nd, "v2deck3", {"shares": hand.d3_shares(), "action": payload})
                first = False
            else:
                play.send(p, "v2action", payload)
            last_sender = p
            rules.push(action)
            if action == "accept-redeal":
                hand.redeal = True
                rules.deal(hand.cards())
            if rules.round_ended:
                break
        hand_no += 1
    assert rules.winner is not None and rules.reason is not None
    result = {
        "winner": rules.winner,
        "scores": list(rules.scores),
        "reason": rules.reason,
        "hands": hand_no,
        "chain": sha256(play.transcript[-1]),
    }
    play.send(1 - last_sender, "result", result)
    play.send(last_sender, "result", result)
    return {
        "winner": rules.winner,
        "scores": list(rules.scores),
        "reason": rules.reason,
        "hands": hand_no,
    }
