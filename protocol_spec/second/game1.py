"""A scripted deck v1 game (wire.md §6, §7; deck.md): four deck messages per hand,
actions with per-card keys, the audit by revealed seeds and the co-signed result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common import local, sha256
from deck1 import DEALER, NONDEALER, Hand, Side, positions
from ec import be32
from game import Choose, Play
from rules import Game, card_name


def play_v1(
    play: Play, choose: Choose, stop: Callable[[Play, int, str], bool] | None = None
) -> dict[str, Any]:
    dealer = play.start()
    rules = Game(
        target=play.ruleset["target"],
        ladder=play.ruleset["ladder"],
        rest_refused=play.ruleset["rest_refused"],
        dealer=dealer,
    )
    play.rules = rules
    step = 0
    hand_no = 0
    audited = 0  # first hand not yet audited
    every_hand = play.options.get("audit") == "hand"
    while True:
        dl = rules.dealer
        nd = 1 - dl

        def seed(p: int, h: int) -> bytes:
            return local(play.secrets[p], b"seed" + be32(h))

        sides = {
            dl: Side(DEALER, seed(dl, hand_no), play.game_id, hand_no),
            nd: Side(NONDEALER, seed(nd, hand_no), play.game_id, hand_no),
        }
        deck = Hand(sides[dl], sides[nd])

        def keys(p: int, where: list[int], sides: dict[int, Side] = sides) -> list[bytes]:
            return [sides[p].key_bytes(q) for q in where]

        play.send(dl, "deck1", {"deck": deck.d1, "commitment": sides[dl].commitment})
        play.send(nd, "deck2", {"deck": deck.d2, "commitment": sides[nd].commitment})
        play.send(dl, "deck3", {"deck": deck.d3, "keys": keys(dl, positions(NONDEALER, False))})
        redeal = False

        def cards(redeal: bool, deck: Hand = deck, dl: int = dl) -> dict[int, list[int]]:
            return {
                dl: [deck.card(q) for q in positions(DEALER, redeal)],
                1 - dl: [deck.card(q) for q in positions(NONDEALER, redeal)],
            }

        rules.deal(cards(False))
        owed = False
        first = True
        while True:
            p = rules.to_act
            action = choose(play, p, rules.legal(), step)
            step += 1
            play.actions.append([p, action])
            payload: dict[str, Any] = {"act": action.split()[0]}
            if action == "accept-redeal":
                payload["keys"] = keys(p, positions(NONDEALER, True))
                owed = True
            elif owed and p == nd:
                payload["keys"] = keys(p, positions(DEALER, True))
                owed = False
            if action.startswith("play "):
                card = next(c for c in rules.hands[p] if card_name(c) == action.split()[1])
                role = DEALER if p == dl else NONDEALER
                pos = next(q for q in positions(role, redeal) if deck.card(q) == card)
                payload["pos"], payload["key"] = pos, sides[p].key_bytes(pos)
            if stop is not None and stop(play, p, action):
                return {"stopped": (p, payload, first, deck, keys)}
            if first:
                body = {
                    "deck": deck.d4,
                    "keys": keys(nd, positions(DEALER, False)),
                    "action": payload,
                }
                play.send(nd, "deck4", body)
                first = False
            else:
                play.send(p, "action", payload)
            last = p
            rules.push(action)
            if action == "accept-redeal":
                redeal = True
                rules.deal(cards(True))
            if rules.round_ended:
                break
        hand_no += 1
        if rules.over or every_hand or hand_no - audited >= 32:
            for p in (1 - last, last):  # wire.md §7: first, then second
                seeds = [seed(p, h) for h in range(audited, hand_no)]
                play.send(p, "reveal", {"first": audited, "seeds": seeds})
            audited = hand_no
        if rules.over:
            break
    assert rules.winner is not None and rules.reason is not None
    result = {
        "winner": rules.winner,
        "scores": list(rules.scores),
        "reason": rules.reason,
        "hands": hand_no,
        "chain": sha256(play.transcript[-1]),
    }
    play.send(1 - last, "result", result)
    play.send(last, "result", result)
    return {k: result[k] for k in ("winner", "scores", "reason", "hands")}
