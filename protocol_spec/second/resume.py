"""vectors/resume_v2.json and resume_clock_v1.json: a pipelined game cut and resumed
(wire.md §13.1)."""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack
from common import Ed25519, envelope, sha256
from game import Features, Play, play_game
from game1 import play_v1
from wire_v2 import script_choice
from wire_v2_more import PIPELINED_RULESET, SCRIPT_RULESET, pipelined_choice

RESUMED_V2 = (
    "The pipelined deck-v2 script of wire_v2_pipelined.json (wire.md section 6b) with "
    "other fixed keys and secrets, interrupted in the middle of a pipelined deal: hand "
    "n+1's v2deck1 and v2deck2 (without shares) are on both chains when the initiator's "
    "v2action that ends hand n and carries 'open' (its shares for hand n+1) is lost in "
    "the cut, so hand n+1 is not opened yet. The initiator dials and sends its resume "
    "(nonce = nonces[0], echo empty, counting the lost envelope), the responder answers "
    "with its own (nonce = nonces[1], echo = the initiator's nonce, one envelope fewer) "
    "and resends nothing; the initiator then resends the envelope the responder lacks, "
    "and the game goes on to the co-signed result. Both transcripts are the same single "
    "chain. 'cut': the hand pre-dealt at the cut, the positions of its pre-deal "
    "messages, and the positions lost in the cut."
)
CLOCK = (
    "The cut of resume_v2.json (the initiator's v2action that opens the pre-dealt hand "
    "is lost) with other fixed keys and secrets, both hellos announcing the clock in "
    "resume (feature bit 4, wire.md sections 11.1, 13.1): each resume payload is {nonce, "
    "echo, left, away}. 'clock' holds what each side's clock said at the drop: the dialer "
    "(player 0) timed the responder, which lacks the lost move, and the responder timed "
    "the initiator, whose move it has not received; the responder's left (nil when a "
    "side times nobody) is moot for the initiator, which holds more envelopes (its "
    "resent move starts a new turn), while the initiator's left is the time the "
    "responder has for its move at the initiator's have. 'resumed' is what each side's "
    "session reports (time_left_ms: the peer's left when it holds; null otherwise). "
    "'refused': dialer's resumes, signed by player 0, that the responder must refuse as "
    "malformed (the connection only, the game goes on)."
)
#: wire.md §13.1: envelopes that carry an action of the rules engine (not automatic)
DECIDED = ("action", "deck4", "v2action")


def fixed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p/v1/resume-vector/" + label.encode()).digest()


def body(raw: bytes) -> list[Any]:
    decoded: list[Any] = msgpack.unpackb(raw[:-64], raw=False)
    return decoded


def resume_message(
    play: Play, sender: int, have: int, nonce: bytes, echo: bytes, clock: dict[str, Any]
) -> bytes:
    """wire.md §13.1: seq = have, prev = the hash of envelope have − 1."""
    prev = sha256(play.transcript[have - 1]) if have else bytes(32)
    payload = {"nonce": nonce, "echo": echo, **clock}
    return envelope(play.keys[sender], play.game_id, have, prev, sender, "resume", payload)


def automatic(raw: bytes) -> bool:
    kind, payload = body(raw)[5:7]
    return not (kind in DECIDED or (kind == "v2deck3" and "action" in payload))


def cut_game(
    tag: str, masks: tuple[int, int], v1: bool = False, secrets_tag: str | None = None
) -> tuple[Play, list[int]]:
    """The script played whole, and the positions the cut loses: deck v1, the
    responder's ``deck2``; deck v2 (pipelined), the flight (owed pre-deal and action)
    of the first action that carries ``open``."""
    secrets = secrets_tag if secrets_tag is not None else tag
    play = Play(
        keys=(Ed25519(fixed(f"{tag}identity0")), Ed25519(fixed(f"{tag}identity1"))),
        names=("alice", "bob"),
        secrets=(fixed(f"{secrets}secret0"), fixed(f"{secrets}secret1")),
        ruleset=SCRIPT_RULESET if v1 else PIPELINED_RULESET,
        options={"audit": "game"} if v1 else {"audit": "game", "deck": "v2", "pipeline": True},
        masks=masks,
    )
    if v1:
        play_v1(play, script_choice)
        at = next(i for i, raw in enumerate(play.transcript) if body(raw)[5] == "deck2")
        return play, [at]
    play_game(play, pipelined_choice, Features(pipeline=True))
    at = next(
        i
        for i, raw in enumerate(play.transcript)
        if body(raw)[5] == "v2action" and "open" in body(raw)[6]
    )
    start = max(s for s in play.turns if s <= at)
    return play, list(range(start, at + 1))


def resumed(
    tag: str,
    masks: tuple[int, int],
    clocks: tuple[dict[str, Any], dict[str, Any]] | None,
    v1: bool = False,
    secrets_tag: str | None = None,
) -> tuple[Play, list[int], dict[str, Any]]:
    play, lost = cut_game(tag, masks, v1, secrets_tag)
    nonces = [fixed(f"{tag}nonce{p}")[:16] for p in (0, 1)]
    cutter = body(play.transcript[lost[0]])[4]
    have = {cutter: lost[-1] + 1, 1 - cutter: lost[0]}
    empty: dict[str, Any] = {}
    dialer = resume_message(
        play, 0, have[0], nonces[0], b"", empty if clocks is None else clocks[0]
    )
    answer = resume_message(
        play, 1, have[1], nonces[1], nonces[0], empty if clocks is None else clocks[1]
    )

    def own(p: int, since: int, until: int) -> list[str]:
        return [
            play.transcript[i].hex()
            for i in range(since, until)
            if body(play.transcript[i])[4] == p
        ]

    # the listener resends its own from the dialer's have, then the dialer its own
    resent = own(1, have[0], have[1]) + own(0, have[1], have[0])
    played: dict[str, Any] = {
        "identities": [k.seed.hex() for k in play.keys],
        "secrets": [s.hex() for s in play.secrets],
        "nonces": [n.hex() for n in nonces],
        "ruleset": play.ruleset,
        "actions": play.actions,
        "resume_messages": [{"sender": 0, "hex": dialer.hex()}, {"sender": 1, "hex": answer.hex()}],
        "resent": resent,
        "game_id": play.game_id.hex(),
        "transcript": [raw.hex() for raw in play.transcript],
    }
    if clocks is not None:
        reports = []
        for p in (0, 1):
            peer = clocks[1 - p]
            holds = have[1 - p] > have[p] or (
                have[1 - p] == have[p]
                and have[p] < len(play.transcript)
                and not automatic(play.transcript[have[p]])
            )
            reports.append(
                {
                    "player": p,
                    "peer_has": have[1 - p],
                    "we_have": have[p],
                    "peer_left": peer["left"],
                    "peer_away": peer["away"],
                    "time_left_ms": peer["left"] if holds else None,
                }
            )
        played = {"resumed": reports, **played}
    return play, lost, played


def resume_v2() -> dict[str, Any]:
    play, lost, played = resumed("v2/pipelined/", (0, 0), None)
    bodies = [body(raw) for raw in play.transcript]
    hand = max(b[6]["hand"] for b in bodies[: lost[0]] if b[5] == "v2deck1")
    predeal = [
        i for i, b in enumerate(bodies) if b[5] in ("v2deck1", "v2deck2") and b[6]["hand"] == hand
    ]
    return {
        "schema": "schemas/resume_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": RESUMED_V2,
        "cut": {"hand": hand, "predeal": predeal, "lost": lost},
        **played,
    }


_ABSENT = object()


def resume_clock() -> dict[str, Any]:
    clocks = ({"left": 251_500, "away": 12_250}, {"left": 187_000, "away": 0})
    play, _, played = resumed("v2/clock/", (0x10, 0x10), clocks)
    dialer_have = body(bytes.fromhex(played["resume_messages"][0]["hex"]))[2]

    def bad(name: str, **changes: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {"nonce": bytes.fromhex("2e" * 16), "echo": b"", "left": 1000}
        fields["away"] = 0
        fields.update(changes)
        fields = {k: v for k, v in fields.items() if v is not _ABSENT}
        prev = sha256(play.transcript[dialer_have - 1])
        raw = envelope(play.keys[0], play.game_id, dialer_have, prev, 0, "resume", fields)
        return {"name": name, "hex": raw.hex()}

    return {
        "schema": "schemas/resume_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": CLOCK,
        "clock": list(clocks),
        "refused": [
            bad("left-negative", left=-1),
            bad("left-over-a-day", left=86_400_001),
            bad("away-over-a-day", away=86_400_001),
            bad("away-nil", away=None),
            bad("left-float", left=1000.0),
            bad("away-missing", away=_ABSENT),
            bad("extra-field", more=1),
        ],
        **played,
    }


RESUMED_V1 = (
    "The scripted game of wire_v1.json with other fixed keys and secrets, interrupted "
    "after the responder sent deck2 (lost in the cut) and resumed: the initiator dials "
    "and sends its resume (nonce = nonces[0], echo empty), the responder answers with "
    "its own (nonce = nonces[1], echo = the initiator's nonce) followed by the envelopes "
    "the initiator lacks. Both transcripts are the same single chain."
)


def resume_v1() -> dict[str, Any]:
    _, _, played = resumed("", (0, 0), None, v1=True)
    return {"schema": "schemas/resume_v1.schema.json", "description": RESUMED_V1, **played}
