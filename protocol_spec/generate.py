"""Generate the machine-made parts of the spec and the wire test vectors.

    python protocol_spec/generate.py          # rewrite generated blocks and vectors
    python protocol_spec/generate.py --check  # exit 1 if anything is out of date

The message catalogue and the state machine tables in ``wire.md`` are
rendered from :data:`truc_p2p.protocol.CATALOGUE`, ``STAGES`` and
``TRANSITIONS`` -- the same tables the session and the verifier run on.  The
wire vectors are scripted games (``wire_v1.json`` with deck v1,
``wire_v2.json`` with deck v2, ``wire_v2_pipelined.json`` with the pipelined
deck v2 deal, ``wire_v2_early.json`` and ``wire_v2_pipelined_early.json`` with
early cards, ``wire_v2_early_redeal.json`` with early redeal cards) played by two
sessions with fixed identity keys and fixed session secrets; every envelope is
reproducible byte for byte (Ed25519 signatures and every deck secret and proof
nonce are deterministic).

``wire_v2_cases.json`` holds the cases no scripted game above covers: a
pipelined game whose first hand ends with a ``fold`` carrying both redeal
``shares`` and ``open`` (accepted), and transcripts derived from it that a
receiver and the verifier must reject, each with the error code and message
number: a pipelined deal message without its ``hand``, a short frame, and
an equivocating envelope (re-signed with the sender's fixed key, so that
the rejection is for the stated reason and not the signature); and, from the
resigned game of ``wire_v2_resign.json``, transcripts with a second ending
(a resignation after a resignation, a resignation after a ``quit``): a game
has one ending (wire.md section 8).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CATALOGUE,
    CLOSED,
    INTERJECTIONS,
    INTERJECTIONS_WAIVED,
    MAX_ENVELOPE,
    NEED_DATA,
    PROTOCOL_VERSION,
    STAGES,
    TRANSITIONS,
    Session,
    SessionOptions,
    YourTurn,
    decode_envelope,
    frame,
)
from truc_p2p.protocol._messages import ACTION_FIELDS, V2_ACTION_FIELDS
from truc_p2p.protocol._wire import sign_envelope
from truc_p2p.rules import Action, Player, Ruleset

HERE = Path(__file__).resolve().parent
WIRE_MD = HERE / "wire.md"
WIRE_VECTOR = HERE / "vectors" / "wire_v1.json"
WIRE_VECTOR_V2 = HERE / "vectors" / "wire_v2.json"
WIRE_VECTOR_V2_PIPELINED = HERE / "vectors" / "wire_v2_pipelined.json"
WIRE_VECTOR_V2_CASES = HERE / "vectors" / "wire_v2_cases.json"
WIRE_VECTOR_V2_EARLY = HERE / "vectors" / "wire_v2_early.json"
WIRE_VECTOR_V2_PIPELINED_EARLY = HERE / "vectors" / "wire_v2_pipelined_early.json"
WIRE_VECTOR_RESIGN = HERE / "vectors" / "wire_v2_resign.json"
WIRE_VECTOR_REST_FINAL = HERE / "vectors" / "wire_v2_rest_final.json"
WIRE_VECTOR_EARLY_REDEAL = HERE / "vectors" / "wire_v2_early_redeal.json"


def _fixed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p/v1/test-vector/" + label.encode()).digest()


# -- generated markdown --------------------------------------------------------


def catalogue_md() -> str:
    lines = []
    for mtype, fields in CATALOGUE.items():
        lines.append(f"#### `{mtype}`\n")
        lines.append("| field | type | required | meaning |")
        lines.append("| --- | --- | --- | --- |")
        for name, f in fields.items():
            lines.append(f"| `{name}` | {f.kind} | {'yes' if f.required else 'no'} | {f.doc} |")
        lines.append("")
    for title, table in (
        ("action payload (in `action`, and in `deck4.action`)", ACTION_FIELDS),
        ("v2 action payload (in `v2action`, and in `v2deck3.action`)", V2_ACTION_FIELDS),
    ):
        lines.append(f"#### {title}\n")
        lines.append("| field | type | required | meaning |")
        lines.append("| --- | --- | --- | --- |")
        for name, f in table.items():
            lines.append(f"| `{name}` | {f.kind} | {'yes' if f.required else 'no'} | {f.doc} |")
        lines.append("")
    return "\n".join(lines[:-1]) + "\n"


def states_md() -> str:
    lines = ["| stage | sender | message | content | next stage (first that holds) |"]
    lines.append("| --- | --- | --- | --- | --- |")
    for stage, (sender, mtype, what) in STAGES.items():
        nxt = "; ".join(f"{cond.value} → `{target.value}`" for cond, target in TRANSITIONS[stage])
        lines.append(f"| `{stage.value}` | {sender.value} | `{mtype}` | {what} | {nxt} |")
    lines.append("")
    for stage, inters in INTERJECTIONS.items():
        names = " or ".join(f"`{i.value}`" for i in inters)
        lines.append(
            f"Interjections of `{stage.value}`: before its message, the player due must "
            f"send {names} first when it owes it, at the first chance (then "
            f"`{stage.value}` is due again; its message in place of the owed one is "
            f"`unexpected-message`); {INTERJECTIONS_WAIVED} (§6b, 5)."
        )
        lines.append("")
    lines.append("```mermaid\nstateDiagram-v2")
    for stage, inters in INTERJECTIONS.items():
        for inter in inters:
            lines.append(f"    {stage.name} --> {inter.name} : owed")
    for stage, transitions in TRANSITIONS.items():
        for cond, target in transitions:
            label = "" if cond.value in ("always", "otherwise") else f" : {cond.name.lower()}"
            lines.append(f"    {stage.name} --> {target.name}{label}")
    lines.append("    RESULT_SECOND --> [*]")
    lines.append("```")
    return "\n".join(lines) + "\n"


def limits_md() -> str:
    return (
        f"* protocol version: `{PROTOCOL_VERSION}`\n"
        f"* largest envelope (body + signature): {MAX_ENVELOPE} bytes\n"
    )


BLOCKS = {"catalogue": catalogue_md, "states": states_md, "limits": limits_md}


def render_wire_md(text: str) -> str:
    for name, fn in BLOCKS.items():
        pattern = re.compile(
            rf"(<!-- BEGIN GENERATED {name} -->\n).*?(<!-- END GENERATED {name} -->)", re.S
        )
        if not pattern.search(text):
            raise SystemExit(f"wire.md lacks the generated block {name!r}")
        text = pattern.sub(lambda m, fn=fn: m.group(1) + fn() + m.group(2), text)
    return text


# -- the wire vector -----------------------------------------------------------

#: The scripted game: one hand (after the coin flip) in which the non-dealer
#: asks for a redeal, the dealer accepts, then a raise is accepted and three
#: tricks are played; the target is 2, so the round ends the game.
SCRIPT_RULESET = Ruleset.from_dict({"target": 2, "ladder": "literal", "rest_refused": "game"})


def _script_choice(session: Session, event: YourTurn, step: int) -> Action:
    """A fixed, rule-driven choice so the vector needs no bot: redeal first,
    then raise once, accept what is asked, and play the lowest card held."""
    legal = event.legal_actions
    kinds = {a.kind.value: a for a in legal}
    for preferred in ("redeal", "accept-redeal", "raise", "accept"):
        if preferred in kinds and not (preferred == "raise" and step > 3):
            return kinds[preferred]
    plays = sorted((a for a in legal if a.card is not None), key=lambda a: a.card.index)  # type: ignore[union-attr]
    return plays[0]


#: The pipelined script: target 3, every hand redealt, no raise; several hands,
#: so hands are pre-dealt during the previous one and the last pre-deal dangles.
PIPELINED_RULESET = Ruleset.from_dict({"target": 3, "ladder": "literal", "rest_refused": "game"})


def _pipelined_choice(session: Session, event: YourTurn, step: int) -> Action:
    """Redeal whenever allowed and accept it, accept what is asked, never raise,
    play the lowest card held."""
    legal = event.legal_actions
    kinds = {a.kind.value: a for a in legal}
    for preferred in ("redeal", "accept-redeal", "accept"):
        if preferred in kinds:
            return kinds[preferred]
    plays = sorted((a for a in legal if a.card is not None), key=lambda a: a.card.index)  # type: ignore[union-attr]
    return plays[0]


def wire_vector(
    deck: str = "v1",
    pipeline: bool = False,
    early: bool = False,
    *,
    tag: str | None = None,
    ruleset: Ruleset | None = None,
    choose: Any = None,
    rest_final: bool = False,
    early_redeal: bool = False,
) -> dict[str, Any]:
    """The scripted game with ``deck``; v1 keeps its original labels, v2 has its own,
    the pipelined v2 deal its own too, and each v2 script with early cards its own
    (``tag``, ``ruleset``, ``choose``: another script).

    With ``early`` a player that *thinks* calls ``work()`` at each of its turns and
    sends what that made before it chooses, as the game loop does, so as the
    non-dealer it sends its ``v2deck3`` without ``action``; one that answers at once
    has its first action ride on its ``v2deck3``.  Both think in the one-hand
    classic script; in the pipelined script player 0 thinks and player 1 does not,
    so both forms occur."""
    if tag is None:
        tag = "" if deck == "v1" else "v2/pipelined/" if pipeline else "v2/"
        if early:
            tag += "early/"
    if ruleset is None:
        ruleset = PIPELINED_RULESET if pipeline else SCRIPT_RULESET
    if choose is None:
        choose = _pipelined_choice if pipeline else _script_choice
    keys = [SigningKey.from_bytes(_fixed(f"{tag}identity{p}")) for p in (0, 1)]
    secrets = [_fixed(f"{tag}secret{p}") for p in (0, 1)]
    names = ("alice", "bob")
    transcript: list[bytes] = []
    sessions = {
        p: Session(
            identity=keys[p],
            role=p,
            secret=secrets[p],
            record=transcript.append if p is Player.P0 else None,
            options=SessionOptions(
                ruleset=ruleset,
                name=names[p],
                deck=deck,
                pipeline=pipeline if deck == "v2" else None,
                resign=False,  # these vectors predate resignation: no feature tag in the nonce
                early=early if deck == "v2" else None,
                rest_final=rest_final,
                early_redeal=early_redeal,
            ),
        )
        for p in (Player.P0, Player.P1)
    }
    actions: list[list[Any]] = []
    closed: set[Player] = set()
    step = 0
    while len(closed) < 2:
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            s = sessions[me]
            event = s.next_event()
            sessions[me.other].receive_data(s.data_to_send())
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                if early and (me is Player.P0 or not pipeline):
                    s.work()  # player 0 thinks: what work() made goes out first
                    sessions[me.other].receive_data(s.data_to_send())
                action = choose(s, event, step)
                step += 1
                actions.append([int(me), str(action)])
                sessions[me.other].receive_data(s.send(action))
            elif event is NEED_DATA:
                continue
    result = sessions[Player.P0].result
    assert result is not None
    extra: dict[str, Any] = {}
    if deck != "v1":  # wire_v1.json keeps its original fields
        extra = {
            "deck": deck,
            "deck_note": "Deck v2 (deck_v2.md): the deck seed of hand h is "
            "HMAC-SHA256(secret, 'truc-p2p/v1/local/v2seed' || BE32(h)), never revealed; "
            "every proof of a hand is bound to the context = SHA-256 of the envelope just "
            "before the hand's v2deck1.",
        }
    if pipeline:
        extra["pipeline"] = True
        extra["deck_note"] += (
            " Pipelined deal (wire.md section 6b): hand n+1's v2deck1 and v2deck2 (no "
            "shares) interleave with hand n's actions and carry 'hand'; the context is "
            "still the envelope just before that v2deck1, wherever it sits. The dealer's "
            "shares follow in v2open once hand n ended; the last hand's pre-deal dangles."
        )
    if early:
        extra["early"] = True
        extra["deck_note"] += (
            " Early cards (wire.md section 6a): both hellos carry 'early': true; a player "
            "that thinks (calls work() at each turn and sends its output first) sends, as "
            "the non-dealer, v2deck3 without 'action' and its first action follows as a "
            "v2action; one that answers at once has its action ride on its v2deck3. "
            + ("Player 0 thinks, player 1 does not." if pipeline else "Both players think.")
        )
    return {
        "schema": "schemas/wire_game_v1.schema.json",
        **extra,
        "description": "A scripted game: fixed identities and session secrets produce these "
        "envelopes byte for byte. Player 0 is the initiator. Private keys are raw Ed25519 "
        "seeds; secrets are the 32-byte session secrets every local random value is "
        "derived from (see wire.md, 'Local secrets').",
        "protocol_version": PROTOCOL_VERSION,
        "identities": [k.to_bytes().hex() for k in keys],
        "public_keys": [k.public_key().to_bytes().hex() for k in keys],
        "secrets": [s.hex() for s in secrets],
        "names": list(names),
        "ruleset": dict(ruleset.to_dict()),
        "audit": "game",
        "actions": actions,
        "game_id": result.game_id.hex(),
        "result": {
            "winner": int(result.winner),
            "scores": list(result.scores),
            "reason": result.reason,
            "hands": result.hands,
        },
        "envelopes": [
            {"seq": i, "type": decode_envelope(raw).type, "hex": raw.hex()}
            for i, raw in enumerate(transcript)
        ],
    }


#: The cases script: target 2, so the fold of hand 0 does not end the game.
CASES_RULESET = Ruleset.from_dict({"target": 2, "ladder": "literal", "rest_refused": "game"})


def _cases_choice(session: Session, event: YourTurn, step: int) -> Action:
    """The pipelined script, except that the non-dealer of hand 0 folds right after its
    redeal was accepted: that fold carries its redeal shares and, ending the hand with
    both pre-deal messages of hand 1 on the chain, ``open`` (wire.md 6b)."""
    if step == 2:
        (fold,) = (a for a in event.legal_actions if a.kind.value == "fold")
        return fold
    return _pipelined_choice(session, event, step)


def _rest_choice(session: Session, event: YourTurn, step: int) -> Action:
    """The pipelined script, except that from hand 1 on the non-dealer says "my rest"
    as its first action (riding on its v2deck3) and the dealer accepts it."""
    kinds = {a.kind.value: a for a in event.legal_actions}
    if session.game.round_no >= 1 and "rest" in kinds:
        return kinds["rest"]
    return _pipelined_choice(session, event, step)


def rest_final_vector() -> dict[str, Any]:
    """wire_v2_rest_final.json: a pipelined game with the rest-final rule (both hellos
    announce it, wire.md 6b) in which "my rest" is said and accepted in hand 1: no
    pre-deal message of hand 2 is on the chain, since that hand decides the game."""
    game = wire_vector("v2", True, tag="v2/rest-final/", choose=_rest_choice, rest_final=True)
    game["deck_note"] += (
        " Rest-final rule (wire.md section 6b): both hello nonces announce feature mask "
        "00000002 (bit 1, the rest-final rule; not resignation, not early cards); "
        "from the moment 'my rest' decides the hand "
        "(pending with rest_refused 'game', or accepted) no pre-deal message is owed, so "
        "hand 1, where the non-dealer's v2deck3 says 'rest' and the dealer accepts, has no "
        "pre-deal of hand 2 on the chain."
    )
    return game


def early_redeal_vector() -> dict[str, Any]:
    """wire_v2_early_redeal.json: the pipelined script with early cards (every hand
    redealt) and early redeal cards (both hellos announce feature bit 2, wire.md 6a):
    each ``accept-redeal`` is followed at once by the non-dealer's ``v2redeal``, and
    its next action carries no ``shares``."""
    game = wire_vector("v2", True, True, tag="v2/early-redeal/", early_redeal=True)
    game["early_redeal"] = True
    game["deck_note"] += (
        " Early redeal cards (wire.md section 6a): both hello nonces announce feature mask "
        "00000004 (bit 2, early redeal cards; not resignation, not the rest-final rule). "
        "Right after the dealer's accept-redeal (which carries its shares for positions 6, "
        "8, 10) the non-dealer sends v2redeal {shares}: its shares for the dealer's positions "
        "7, 9, 11, so the dealer holds its redealt cards before the non-dealer decides; the "
        "non-dealer's next action (after any pre-deal message it owes) carries no shares."
    )
    return game


def _resigned(key: SigningKey, raw: bytes, payload: dict[str, Any]) -> str:
    """``raw`` with another payload, signed again by its sender's fixed key (hex)."""
    env = decode_envelope(raw)
    return sign_envelope(
        key,
        game_id=env.game_id,
        seq=env.seq,
        prev=env.prev,
        sender=env.sender,
        type=env.type,
        payload=payload,
    ).hex()


def cases_vector() -> dict[str, Any]:
    """wire_v2_cases.json: an action with both ``shares`` and ``open``, and rejections."""
    game = wire_vector("v2", True, tag="v2/cases/", ruleset=CASES_RULESET, choose=_cases_choice)
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in game["identities"]]
    raws = [bytes.fromhex(e["hex"]) for e in game["envelopes"]]
    envs = [decode_envelope(raw) for raw in raws]
    (both,) = (
        e.seq
        for e in envs
        if e.type == "v2action" and "shares" in e.payload and "open" in e.payload
    )
    assert list(envs[both].payload) == ["act", "shares", "open"]
    # A pipelined deal message without its hand: the first pre-dealt v2deck1.
    pre = next(e.seq for e in envs if e.type == "v2deck1" and e.payload.get("hand", 0) > 0)
    no_hand = {k: v for k, v in envs[pre].payload.items() if k != "hand"}
    # A short frame: a 10-byte frame after the two hellos.
    short = b"TRUC-P2P transcript v1\n" + b"".join(frame(r) for r in raws[:2])
    short += frame(bytes(range(10)))
    # Equivocation: player 0 signs a second coin at position 2, after message 2.
    other_coin = {"coin": hashlib.sha256(b"another coin").digest()}
    second = _second_endings()
    return {
        "schema": "schemas/wire_cases_v1.schema.json",
        "description": "Cases no other vector covers (wire.md sections 1, 2, 6b, 10). 'game': "
        "a pipelined deck-v2 game (target 2) whose hand 0 ends with the non-dealer's "
        "fold right after its redeal was accepted: that v2action carries act, shares "
        "(its redeal shares) and open (its shares for hand 1, pre-dealt), in that key "
        "order; it is valid. 'rejected': transcripts derived from it, each with the "
        "error code and the message number a receiver and the verifier report; an "
        "altered envelope is signed again with its sender's fixed key. 'short-frame' "
        "is the bytes of a transcript file (magic line and frames). 'second-resignation' "
        "and 'resignation-after-quit' derive from bob's transcript of wire_v2_resign.json "
        "(its fixed keys): a game has one ending (section 8).",
        "game": {**game, "both_shares_and_open": both},
        "rejected": [
            {
                "case": "missing-hand",
                "detail": f"message {pre}, a pre-dealt v2deck1 of a pipelined game, "
                "without its 'hand' field",
                "envelopes": [r.hex() for r in raws[:pre]]
                + [_resigned(keys[envs[pre].sender], raws[pre], no_hand)],
                "error": {"code": "malformed", "message_no": pre},
            },
            {
                "case": "short-frame",
                "detail": "a frame of 10 bytes (a header declaring 10) after the two hellos",
                "file_hex": short.hex(),
                "error": {"code": "oversize", "message_no": 2},
            },
            {
                "case": "equivocation",
                "detail": "player 1 received player 0's coin (message 2) and sent its "
                "v2deck1 (message 3); then a second coin signed by player 0 for position "
                "2 arrives and is appended as message 4",
                "envelopes": [r.hex() for r in raws[:4]]
                + [_resigned(keys[0], raws[2], other_coin)],
                "error": {"code": "equivocation", "message_no": 4},
            },
            *second,
        ],
    }


def _second_endings() -> list[dict[str, Any]]:
    """Two rejected cases from bob's transcript of the resigned game: alice's
    resignation crossing his (both resign at once), and bob's ``quit`` in place of
    his resignation followed by alice's crossing resignation (wire.md section 8:
    one ending per game; before, the last ending won and both verified)."""
    game = resign_vector()
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in game["identities"]]
    bob = [bytes.fromhex(e["hex"]) for e in game["transcripts"][1]]
    m = len(bob) - 1  # bob's resignation, the last message of his transcript
    resign = decode_envelope(bob[m])
    assert resign.payload["reason"] == "resign" and resign.seq == m

    def alice_resigns(seq: int) -> bytes:
        return sign_envelope(
            keys[0],
            game_id=resign.game_id,
            seq=seq,
            prev=resign.prev,
            sender=0,
            type="abort",
            payload={"reason": "resign", "detail": "alice resigns too"},
        )

    quit_ = _resigned(keys[1], bob[m], {"reason": "quit", "detail": ""})
    return [
        {
            "case": "second-resignation",
            "detail": f"bob's transcript of the resigned game (his resignation is message "
            f"{m}), then alice's resignation chained to the same point (seq {m}): both "
            "resigned at once, and a second ending is unexpected-message",
            "envelopes": [r.hex() for r in bob] + [alice_resigns(m).hex()],
            "error": {"code": "unexpected-message", "message_no": m + 1},
        },
        {
            "case": "resignation-after-quit",
            "detail": f"bob's transcript with a quit in place of his resignation (message "
            f"{m}), then alice's resignation chained to the same point (seq {m})",
            "envelopes": [r.hex() for r in bob[:m]] + [quit_, alice_resigns(m).hex()],
            "error": {"code": "unexpected-message", "message_no": m + 1},
        },
    ]


#: The resignation script: the pipelined deal of the pipelined vector, and after
#: this many actions bob resigns while alice is to act, and alice's move crosses it.
RESIGN_AFTER = 9


def resign_vector() -> dict[str, Any]:
    """A pipelined deck v2 game that bob resigns (wire.md section 8) while it is
    alice's turn; her move crosses the resignation, so the two transcripts differ
    (hers holds her crossed move, then his ``abort`` naming the earlier position)."""
    tag = "v2/resign/"
    keys = [SigningKey.from_bytes(_fixed(f"{tag}identity{p}")) for p in (0, 1)]
    secrets = [_fixed(f"{tag}secret{p}") for p in (0, 1)]
    names = ("alice", "bob")
    transcripts: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    sessions = {
        p: Session(
            identity=keys[p],
            role=p,
            secret=secrets[p],
            record=transcripts[p].append,
            options=SessionOptions(
                ruleset=PIPELINED_RULESET,
                name=names[p],
                deck="v2",
                pipeline=True,
                early=False,  # the vector predates early cards
                rest_final=False,  # and the rest-final rule: its nonce announces resignation only
                early_redeal=False,  # and early redeal cards
            ),
        )
        for p in (Player.P0, Player.P1)
    }
    resigner, winner = Player.P1, Player.P0
    actions: list[list[Any]] = []
    wire: dict[Player, bytes] = {Player.P0: b"", Player.P1: b""}  # bytes towards p
    resigned_at = -1
    while resigned_at < 0:
        for me in (Player.P0, Player.P1):
            s = sessions[me]
            s.receive_data(wire[me])
            wire[me] = b""
            event = s.next_event()
            wire[me.other] += s.data_to_send()
            if not isinstance(event, YourTurn):
                continue
            action = _pipelined_choice(s, event, len(actions))
            if len(actions) >= RESIGN_AFTER and me is winner:
                # bob resigns before he sees alice's move: the two cross on the wire
                resigned_at = len(transcripts[resigner])
                wire[winner] += sessions[resigner].resign("bob resigns")
                wire[resigner] += s.send(action)
                actions.append([int(me), str(action)])
                break
            actions.append([int(me), str(action)])
            wire[me.other] += s.send(action)
    for me in (winner, resigner):  # deliver what crossed: the resigner drops it
        s = sessions[me]
        s.receive_data(wire[me])
        while s.next_event() not in (NEED_DATA, CLOSED):
            pass
    resignation = sessions[winner].resignation
    assert resignation is not None and resignation == sessions[resigner].resignation
    return {
        "schema": "schemas/wire_resign_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": "A resigned game (wire.md section 8): fixed identities and session "
        "secrets produce these envelopes byte for byte. Both hellos announce resignation "
        "in the last 8 bytes of their nonce ('trc' 0x01, then the feature mask 00000001). "
        "After the listed actions bob (player 1) resigns while alice is to act; alice's "
        "last listed action crosses the resignation. Bob's transcript ends with his "
        "abort; alice's holds her crossed action and then bob's abort, whose seq and prev "
        "name the earlier position. Both verify: alice wins at the score before the "
        "resignation.",
        "protocol_version": PROTOCOL_VERSION,
        "identities": [k.to_bytes().hex() for k in keys],
        "public_keys": [k.public_key().to_bytes().hex() for k in keys],
        "secrets": [s.hex() for s in secrets],
        "names": list(names),
        "ruleset": dict(PIPELINED_RULESET.to_dict()),
        "audit": "game",
        "actions": actions,
        "game_id": resignation.game_id.hex(),
        "resignation": {
            "by": int(resignation.by),
            "seq": resigned_at,
            "detail": resignation.detail,
        },
        "result": {
            "winner": int(resignation.winner),
            "resigned_by": int(resignation.by),
            "scores": list(resignation.scores),
            "reason": "resigned",
            "hands": resignation.hand,
        },
        "transcripts": [
            [
                {"seq": i, "type": decode_envelope(raw).type, "hex": raw.hex()}
                for i, raw in enumerate(transcripts[p])
            ]
            for p in (Player.P0, Player.P1)
        ],
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    md = WIRE_MD.read_text()
    new_md = render_wire_md(md)
    vectors = {
        path: json.dumps(wire_vector(deck, pipeline, early), indent=1) + "\n"
        for path, deck, pipeline, early in (
            (WIRE_VECTOR, "v1", False, False),
            (WIRE_VECTOR_V2, "v2", False, False),
            (WIRE_VECTOR_V2_PIPELINED, "v2", True, False),
            (WIRE_VECTOR_V2_EARLY, "v2", False, True),
            (WIRE_VECTOR_V2_PIPELINED_EARLY, "v2", True, True),
        )
    }
    vectors[WIRE_VECTOR_V2_CASES] = json.dumps(cases_vector(), indent=1) + "\n"
    vectors[WIRE_VECTOR_RESIGN] = json.dumps(resign_vector(), indent=1) + "\n"
    vectors[WIRE_VECTOR_REST_FINAL] = json.dumps(rest_final_vector(), indent=1) + "\n"
    vectors[WIRE_VECTOR_EARLY_REDEAL] = json.dumps(early_redeal_vector(), indent=1) + "\n"
    if new_md != md:
        stale.append(str(WIRE_MD))
    for path, vector in vectors.items():
        if vector != (path.read_text() if path.exists() else ""):
            stale.append(str(path))
    if check:
        for path in stale:
            print(f"out of date: {path}")
        return 1 if stale else 0
    WIRE_MD.write_text(new_md)
    WIRE_VECTOR.parent.mkdir(exist_ok=True)
    for path, vector in vectors.items():
        path.write_text(vector)
    for path in stale:
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
