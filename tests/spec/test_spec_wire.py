"""The wire spec and its test vectors say the same thing as the code."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from truc_p2p.protocol import decode_envelope, verify_transcript

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truc_spec_generate", SPEC / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return _load_generator()


@pytest.fixture(scope="module")
def vector() -> dict[str, object]:
    data: dict[str, object] = json.loads((SPEC / "vectors" / "wire_v1.json").read_text())
    return data


def test_generated_blocks_of_wire_md_are_current(generator: ModuleType) -> None:
    text = (SPEC / "wire.md").read_text()
    assert generator.render_wire_md(text) == text, "run: python protocol_spec/generate.py"


def test_wire_md_names_every_message_type_and_stage() -> None:
    from truc_p2p.protocol import CATALOGUE, STAGES

    text = (SPEC / "wire.md").read_text()
    for mtype in CATALOGUE:
        assert f"#### `{mtype}`" in text
    for stage in STAGES:
        assert f"| `{stage.value}` |" in text


def test_wire_vector_is_reproduced_byte_for_byte(
    generator: ModuleType, vector: dict[str, object]
) -> None:
    fresh = generator.wire_vector()
    assert fresh["envelopes"] == vector["envelopes"]
    assert fresh["game_id"] == vector["game_id"]
    assert fresh["actions"] == vector["actions"]
    assert fresh["result"] == vector["result"]


def test_wire_vector_verifies_and_matches_its_declared_fields(vector: dict[str, object]) -> None:
    envelopes = [bytes.fromhex(e["hex"]) for e in vector["envelopes"]]  # type: ignore[attr-defined]
    report = verify_transcript(envelopes)
    assert report.valid, report.summary()
    assert report.game_id == vector["game_id"]
    result = vector["result"]
    assert isinstance(result, dict)
    assert report.winner == result["winner"]
    assert list(report.score or ()) == result["scores"]
    for i, raw in enumerate(envelopes):
        env = decode_envelope(raw)
        assert env.seq == i
        assert env.type == vector["envelopes"][i]["type"]  # type: ignore[index]
    hellos = [decode_envelope(envelopes[i]).payload for i in (0, 1)]
    assert [h["key"].hex() for h in hellos] == vector["public_keys"]
    assert [h["name"] for h in hellos] == vector["names"]


def test_wire_vector_rejects_any_altered_envelope(vector: dict[str, object]) -> None:
    envelopes = [bytes.fromhex(e["hex"]) for e in vector["envelopes"]]  # type: ignore[attr-defined]
    for i in range(len(envelopes)):
        tampered = list(envelopes)
        raw = bytearray(tampered[i])
        raw[len(raw) // 2] ^= 0x01
        tampered[i] = bytes(raw)
        report = verify_transcript(tampered)
        assert not report.valid
        assert report.error_message_no == i


@pytest.fixture(scope="module")
def vector_v2() -> dict[str, object]:
    data: dict[str, object] = json.loads((SPEC / "vectors" / "wire_v2.json").read_text())
    return data


def test_wire_v2_vector_is_reproduced_byte_for_byte(
    generator: ModuleType, vector_v2: dict[str, object]
) -> None:
    fresh = generator.wire_vector("v2")
    assert fresh == vector_v2


def test_wire_v2_vector_verifies_without_any_seed(vector_v2: dict[str, object]) -> None:
    envelopes = [bytes.fromhex(e["hex"]) for e in vector_v2["envelopes"]]  # type: ignore[attr-defined]
    report = verify_transcript(envelopes)
    assert report.valid, report.summary()
    assert report.deck == "v2" and report.audit == "proofs"
    assert report.hidden_cards_revealed == 0
    assert report.to_json()["deck"] == "v2"
    types = [decode_envelope(raw).type for raw in envelopes]
    assert types[3:6] == ["v2deck1", "v2deck2", "v2deck3"]
    assert "reveal" not in types and types[-2:] == ["result", "result"]
    hello = decode_envelope(envelopes[0]).payload
    assert hello["options"] == {"audit": "game", "deck": "v2"}
    # The vector exercises a redeal (shares on the accept and the next action) and plays.
    acts = [a for _, a in vector_v2["actions"]]  # type: ignore[attr-defined]
    assert acts[:2] == ["redeal", "accept-redeal"] and any(a.startswith("play") for a in acts)


def test_wire_v2_vector_rejects_any_altered_envelope(vector_v2: dict[str, object]) -> None:
    envelopes = [bytes.fromhex(e["hex"]) for e in vector_v2["envelopes"]]  # type: ignore[attr-defined]
    for i in range(len(envelopes)):
        tampered = list(envelopes)
        raw = bytearray(tampered[i])
        raw[len(raw) // 2] ^= 0x01
        tampered[i] = bytes(raw)
        report = verify_transcript(tampered)
        assert not report.valid
        assert report.error_message_no == i


def test_wire_v1_vector_reports_what_its_audit_disclosed(vector: dict[str, object]) -> None:
    envelopes = [bytes.fromhex(e["hex"]) for e in vector["envelopes"]]  # type: ignore[attr-defined]
    report = verify_transcript(envelopes)
    plays = sum(1 for _, a in vector["actions"] if a.startswith("play"))  # type: ignore[attr-defined]
    assert report.deck == "v1" and report.hidden_cards_revealed == 32 - plays


@pytest.mark.parametrize("name", ["wire_v2.json", "wire_v2_early.json"])
def test_wire_v2_vector_context_binding_and_cards_independently(name: str) -> None:
    """Recompute what wire.md section 6a says from the raw bytes alone: the game id, each
    hand's context (SHA-256 of the envelope before its v2deck1), every proof with the deck
    library's third-party verifier, and the cards the shown shares open (with early cards
    too: a v2deck3 of shares only, then the first action as a v2action)."""
    import hashlib

    import msgpack

    from truc_p2p.deck import HandVerifierV2, Role
    from truc_p2p.rules import Card

    vector_v2 = json.loads((SPEC / "vectors" / name).read_text())
    raws = [bytes.fromhex(e["hex"]) for e in vector_v2["envelopes"]]  # type: ignore[attr-defined]
    bodies = [msgpack.unpackb(r[:-64], raw=False) for r in raws]
    game_id = hashlib.sha256(b"truc-p2p/v1/game" + raws[0] + raws[1]).digest()
    assert game_id.hex() == vector_v2["game_id"]
    opened: list[str] = []
    verifier: HandVerifierV2 | None = None
    roles: dict[int, Role] = {}
    shares_due: Role | None = None
    hand = -1
    for i, (_, gid, seq, _, sender, mtype, payload) in enumerate(bodies):
        assert seq == i
        if mtype == "v2deck1":
            hand += 1
            context = hashlib.sha256(raws[i - 1]).digest()
            verifier = HandVerifierV2(game_id=gid, hand=hand, context=context)
            roles = {sender: Role.NONDEALER, 1 - sender: Role.DEALER}
            verifier.d1(payload)
        elif mtype == "v2deck2":
            assert verifier is not None
            verifier.d2(payload)
        if mtype in ("v2deck3", "v2action"):
            assert verifier is not None
            action = payload.get("action") if mtype == "v2deck3" else payload
            if mtype == "v2deck3":
                verifier.d3({"shares": payload["shares"]})
            if action is None:  # early cards: the first action follows as a v2action
                assert list(payload) == ["shares"] and bodies[i + 1][5] == "v2action"
                assert bodies[i + 1][4] == sender
                continue
            if "shares" in action:
                verifier.redeal(roles[sender], action["shares"])
                shares_due = Role.NONDEALER if action["act"] == "accept-redeal" else None
            if action["act"] == "play":
                card = verifier.show(roles[sender], action["pos"], action["share"])
                opened.append(f"play {Card.from_index(card)}")
    assert shares_due is None and verifier is not None
    assert verifier.report().redeal and verifier.report().hidden_cards_revealed == 0
    plays = [a for _, a in vector_v2["actions"] if a.startswith("play")]  # type: ignore[attr-defined]
    assert opened == plays


def test_pipelined_v2_vector_is_reproduced_and_verifies(generator: ModuleType) -> None:
    """wire_v2_pipelined.json: byte for byte, verified, with interleaved pre-deals."""
    stored = json.loads((SPEC / "vectors" / "wire_v2_pipelined.json").read_text())
    fresh = generator.wire_vector("v2", pipeline=True)
    assert fresh["envelopes"] == stored["envelopes"]
    assert fresh["actions"] == stored["actions"] and fresh["result"] == stored["result"]
    envelopes = [bytes.fromhex(e["hex"]) for e in stored["envelopes"]]
    report = verify_transcript(envelopes)
    assert report.valid, report.summary()
    assert report.hands == stored["result"]["hands"] >= 3
    envs = [decode_envelope(raw) for raw in envelopes]
    hello = envs[0].payload["options"]
    assert hello == {"audit": "game", "deck": "v2", "pipeline": True}
    types = [e.type for e in envs]
    assert "v2open" in types
    # a pre-deal sits between two actions of the previous hand, and names its hand
    pre = [
        i
        for i, e in enumerate(envs)
        if e.type == "v2deck2" and "shares" not in e.payload and types[i + 1] == "v2action"
    ]
    assert pre
    # the last hand's pre-deal dangles: a v2deck1 for a hand that never started
    last = max(e.payload["hand"] for e in envs if e.type == "v2deck1")
    assert last == report.hands
    # the non-pipelined v2 vector has no hand fields at all
    plain = json.loads((SPEC / "vectors" / "wire_v2.json").read_text())
    for e in plain["envelopes"]:
        assert "hand" not in decode_envelope(bytes.fromhex(e["hex"])).payload


def _resign_vector() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SPEC / "vectors" / "wire_v2_resign.json").read_text())
    return data


def test_resign_vector_is_reproduced_byte_for_byte(generator: ModuleType) -> None:
    """Both transcripts of the resigned game (wire.md section 8), the crossed move too."""
    vector = _resign_vector()
    fresh = generator.resign_vector()
    assert fresh["transcripts"] == vector["transcripts"]
    assert fresh["actions"] == vector["actions"]
    assert fresh["result"] == vector["result"] and fresh["resignation"] == vector["resignation"]


def test_resign_vector_verifies_from_both_sides_as_the_resignation_says() -> None:
    vector = _resign_vector()
    by, seq = vector["resignation"]["by"], vector["resignation"]["seq"]
    result = vector["result"]
    for transcript in vector["transcripts"]:
        raws = [bytes.fromhex(e["hex"]) for e in transcript]
        # both hellos announce the feature in the last 8 bytes of their nonce
        for hello in raws[:2]:
            assert decode_envelope(hello).payload["nonce"][24:] == b"trc\x01\x00\x00\x00\x01"
        last = decode_envelope(raws[-1])
        assert (last.type, last.sender, last.seq) == ("abort", by, seq)
        assert last.payload == {"reason": "resign", "detail": vector["resignation"]["detail"]}
        report = verify_transcript(raws)
        assert report.valid and report.status == "complete", report.summary()
        assert report.reason == result["reason"] == "resigned"
        assert (report.winner, report.resigned_by) == (result["winner"], result["resigned_by"])
        assert list(report.score or ()) == result["scores"] and report.hands == result["hands"]
    alice, bob = (len(t) for t in vector["transcripts"])
    assert alice == bob + 1 == seq + 2  # alice holds her move that crossed the resignation


def test_resign_vector_rejects_an_altered_resignation() -> None:
    """The resignation is signed: another detail, a changed sender or a broken signature fails."""
    vector = _resign_vector()
    raws = [bytes.fromhex(e["hex"]) for e in vector["transcripts"][1]]
    last = bytearray(raws[-1])
    last[-1] ^= 1  # the signature
    report = verify_transcript([*raws[:-1], bytes(last)])
    assert not report.valid and report.status == "violation"
    assert report.error_code == "bad-signature" and report.resigned_by is None


@pytest.mark.parametrize(
    ("name", "pipeline"),
    [("wire_v2_early.json", False), ("wire_v2_pipelined_early.json", True)],
)
def test_early_cards_vectors_are_reproduced_and_verify(
    generator: ModuleType, name: str, pipeline: bool
) -> None:
    """wire_v2_early.json and wire_v2_pipelined_early.json (wire.md 6a, early cards):
    byte for byte, verified, and checked against the spec with a plain msgpack decoding:
    the option is last in both hellos' options, every v2deck3 has the keys [hand,]
    shares[, action] in that order, and a shares-only one is followed at once by its
    sender's first action as a v2action."""
    import msgpack

    stored = json.loads((SPEC / "vectors" / name).read_text())
    fresh = generator.wire_vector("v2", pipeline=pipeline, early=True)
    assert fresh == stored
    raws = [bytes.fromhex(e["hex"]) for e in stored["envelopes"]]
    report = verify_transcript(raws)
    assert report.valid, report.summary()
    bodies = [msgpack.unpackb(r[:-64], raw=False) for r in raws]
    for i in (0, 1):
        assert list(bodies[i][6]["options"]) == ["audit", "deck"] + (
            ["pipeline"] if pipeline else []
        ) + ["early"]
        assert bodies[i][6]["options"]["early"] is True
    forms = {"with-action": 0, "shares-only": 0}
    head = ["hand"] if pipeline else []
    for i, (_, _, _, _, sender, mtype, payload) in enumerate(bodies):
        if mtype != "v2deck3":
            continue
        if "action" in payload:
            assert list(payload) == [*head, "shares", "action"]
            forms["with-action"] += 1
        else:
            assert list(payload) == [*head, "shares"]
            assert bodies[i + 1][5] == "v2action" and bodies[i + 1][4] == sender
            forms["shares-only"] += 1
    assert forms["shares-only"] >= 1
    if pipeline:
        assert forms["with-action"] >= 1  # player 1 answers at once: the old form too


def test_rest_final_vector_is_reproduced_and_has_no_predeal_after_the_rest(
    generator: ModuleType,
) -> None:
    """wire_v2_rest_final.json (wire.md 6b, the rest-final rule): byte for byte,
    verified; both nonces announce mask 2; no v2deck1/v2deck2 of a later hand
    follows the "rest", while every earlier hand boundary was pre-dealt."""
    stored = json.loads((SPEC / "vectors" / "wire_v2_rest_final.json").read_text())
    assert generator.rest_final_vector() == stored
    raws = [bytes.fromhex(e["hex"]) for e in stored["envelopes"]]
    report = verify_transcript(raws)
    assert report.valid, report.summary()
    envs = [decode_envelope(raw) for raw in raws]
    for hello in envs[:2]:
        assert hello.payload["nonce"][24:] == b"trc\x01\x00\x00\x00\x02"
    rest = next(
        i
        for i, e in enumerate(envs)
        if e.type == "v2deck3" and e.payload.get("action", {}).get("act") == "rest"
    )
    assert envs[rest + 1].type == "v2action" and envs[rest + 1].payload["act"] == "accept"
    assert not [e for e in envs[rest:] if e.type in ("v2deck1", "v2deck2")]
    assert [e.payload["hand"] for e in envs[:rest] if e.type == "v2deck1"] == [0, 1]
    assert stored["result"]["reason"] == "rest-won"


def test_early_redeal_vector_is_reproduced_and_sends_the_shares_at_once(
    generator: ModuleType,
) -> None:
    """wire_v2_early_redeal.json (wire.md 6a, early redeal cards): byte for byte,
    verified, and checked with a plain msgpack decoding: both nonces announce mask 4
    only, every accept-redeal is followed at once by the other player's v2redeal
    {shares} (3 shares of 97 bytes), whose next action carries no shares; the
    non-dealer's pre-deal message, when owed, sits between the two."""
    import msgpack

    stored = json.loads((SPEC / "vectors" / "wire_v2_early_redeal.json").read_text())
    assert generator.early_redeal_vector() == stored
    raws = [bytes.fromhex(e["hex"]) for e in stored["envelopes"]]
    report = verify_transcript(raws)
    assert report.valid, report.summary()
    bodies = [msgpack.unpackb(r[:-64], raw=False) for r in raws]
    for i in (0, 1):
        assert bodies[i][6]["nonce"][24:] == b"trc\x01\x00\x00\x00\x04"
    accepts = [i for i, b in enumerate(bodies) if b[6].get("act") == "accept-redeal"]
    assert len(accepts) == stored["result"]["hands"]  # every hand opened is redealt
    for i in accepts:
        _, _, _, _, dealer, _, _ = bodies[i]
        _, _, _, _, sender, mtype, payload = bodies[i + 1]
        assert (mtype, sender) == ("v2redeal", 1 - dealer)
        assert list(payload) == ["shares"] and [len(s) for s in payload["shares"]] == [97] * 3
        nxt = next(b for b in bodies[i + 2 :] if b[5] == "v2action")
        assert nxt[4] == sender and "shares" not in nxt[6]
        between = [b[5] for b in bodies[i + 2 : bodies.index(nxt)]]
        assert between in ([], ["v2deck2"])
    assert [b[5] for b in bodies].count("v2redeal") == len(accepts)
