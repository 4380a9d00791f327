"""The offline verifier on whole transcripts: any flipped byte is caught; the report's shape."""

from __future__ import annotations

import json
import random

import pytest
from helpers.examples import examples
from helpers.protocol import P0, P1, Pair, transcript_types

from truc_p2p.protocol import (
    TRANSCRIPT_MAGIC,
    TranscriptFormatError,
    VerifyReport,
    decode_envelope,
    encode_transcript,
    parse_transcript,
    verify_transcript,
)

REPORT_KEYS = {
    "valid",
    "game_id",
    "players",
    "score",
    "winner",
    "reason",
    "hands",
    "audit",
    "error",
}


def rejects(data: bytes) -> bool:
    """Whether the transcript bytes fail to parse or fail to verify."""
    try:
        envelopes = parse_transcript(data)
    except TranscriptFormatError:
        return True
    report = verify_transcript(envelopes)
    assert isinstance(report, VerifyReport)
    if report.valid:
        return False
    assert report.error and report.error_code
    return True


def flip_positions(data: bytes, count: int, seed: int) -> list[int]:
    """``count`` sampled positions plus the structurally interesting ones: the magic line,
    the first frame headers, the first body byte and signature byte, the last byte."""
    rng = random.Random(seed)
    special = {0, len(TRANSCRIPT_MAGIC) - 1, len(data) - 1}
    offset = len(TRANSCRIPT_MAGIC)
    for raw in parse_transcript(data)[:3]:
        special.update(range(offset, offset + 4))  # the length prefix
        special.update({offset + 4, offset + 4 + len(raw) - 64})  # body start, signature start
        offset += 4 + len(raw)
    return sorted(special | set(rng.sample(range(len(data)), count)))


def test_the_transcript_verifies_unchanged(finished_pair: Pair) -> None:
    data = encode_transcript(finished_pair.records[P0])
    assert parse_transcript(data) == finished_pair.records[P0]
    assert not rejects(data)


def test_any_flipped_byte_is_rejected(finished_pair: Pair) -> None:
    data = encode_transcript(finished_pair.records[P0])
    rng = random.Random(7)
    count = examples(100)  # 100 in CI, fewer in the fast loop (helpers.examples)
    positions = flip_positions(data, count, seed=1)
    assert len(positions) >= count
    accepted = []
    for pos in positions:
        mask = rng.randrange(1, 256)
        flipped = data[:pos] + bytes([data[pos] ^ mask]) + data[pos + 1 :]
        if not rejects(flipped):
            accepted.append((pos, mask))
    assert accepted == []


def test_every_single_bit_of_the_co_signed_result(finished_pair: Pair) -> None:
    """All 8 bit flips of a body byte, the last payload byte and a signature byte of the
    last ``result``."""
    records = finished_pair.records[P0]
    data = encode_transcript(records)
    end = len(data)
    for pos in (end - len(records[-1]) + 1, end - 65, end - 1):
        for bit in range(8):
            flipped = data[:pos] + bytes([data[pos] ^ (1 << bit)]) + data[pos + 1 :]
            assert rejects(flipped), (pos, bit)


def test_reordered_dropped_or_extra_messages_are_rejected(finished_pair: Pair) -> None:
    records = list(finished_pair.records[P0])
    mid = len(records) // 2
    variants = {
        "dropped": records[:mid] + records[mid + 1 :],
        "duplicated": records[: mid + 1] + records[mid:],
        "swapped": [*records[: mid - 1], records[mid], records[mid - 1], *records[mid + 1 :]],
        "result-repeated": [*records, records[-1]],
        "no-second-result": records[:-1],
        "no-results": records[:-2],
        "reversed": records[::-1],
        "only-hellos": records[:2],
        "empty": [],
    }
    for name, envelopes in variants.items():
        report = verify_transcript(envelopes)
        assert not report.valid, name
        assert report.error and report.error_code, name


def test_truncated_transcripts(finished_pair: Pair) -> None:
    """A crash mid-write: an error, unless dropped on request; still not a valid game."""
    data = encode_transcript(finished_pair.records[P0])
    for cut in (len(data) - 1, len(data) - 70, len(TRANSCRIPT_MAGIC) + 2):
        with pytest.raises(TranscriptFormatError):
            parse_transcript(data[:cut])
        envelopes = parse_transcript(data[:cut], allow_truncated=True)
        assert envelopes == finished_pair.records[P0][: len(envelopes)]
        assert not verify_transcript(envelopes).valid
    with pytest.raises(TranscriptFormatError):
        parse_transcript(b"TRUC-P2P transcript v2\n")


def test_report_json_of_a_valid_game(finished_pair: Pair) -> None:
    result = finished_pair.sessions[P0].result
    assert result is not None
    report = verify_transcript(finished_pair.records[P1])
    out = json.loads(json.dumps(report.to_json()))
    assert set(out) >= REPORT_KEYS
    assert out["valid"] is True and out["error"] is None and out["audit"] == "passed"
    assert out["game_id"] == result.game_id.hex()
    assert out["score"] == list(result.scores)
    assert out["winner"] == int(result.winner)
    assert out["reason"] == result.reason
    assert out["hands"] == result.hands
    assert out["players"] == [
        {"name": finished_pair.names[p], "fingerprint": finished_pair.sessions[p].fingerprint}
        for p in (P0, P1)
    ]
    summary = report.summary()
    assert "VALID" in summary and "INVALID" not in summary
    for p in (P0, P1):
        assert finished_pair.sessions[p].fingerprint in summary
    assert f"{result.scores[0]} - {result.scores[1]}" in summary


def test_report_json_of_an_invalid_game(finished_pair: Pair) -> None:
    records = list(finished_pair.records[P0])
    index = transcript_types(records).index("deck2")
    raw = records[index]
    records[index] = raw[:-1] + bytes([raw[-1] ^ 1])
    report = verify_transcript(records)
    out = json.loads(json.dumps(report.to_json()))
    assert set(out) >= REPORT_KEYS
    assert out["valid"] is False
    assert out["error"] and out["error_code"] == "bad-signature"
    assert out["error_message"] == index
    assert out["game_id"] == finished_pair.sessions[P0].game_id.hex()
    assert len(out["players"]) == 2
    summary = report.summary()
    assert "INVALID" in summary and f"message {index}" in summary and "bad-signature" in summary


@pytest.mark.parametrize("envelopes", [[], [b"\x00" * 100]], ids=["empty", "garbage"])
def test_report_json_of_no_game(envelopes: list[bytes]) -> None:
    report = verify_transcript(envelopes)
    out = json.loads(json.dumps(report.to_json()))
    assert set(out) >= REPORT_KEYS
    assert out["valid"] is False and out["error"]
    assert out["game_id"] is None and out["players"] == [] and out["winner"] is None


def test_the_transcript_holds_both_hellos(finished_pair: Pair) -> None:
    """Self-contained: both keys, names, the ruleset and the options are inside."""
    records = finished_pair.records[P0]
    hellos = [decode_envelope(r).payload for r in records[:2]]
    for p, hello in zip((P0, P1), hellos, strict=True):
        assert hello["name"] == finished_pair.names[p]
        assert hello["ruleset"] == finished_pair.sessions[p].ruleset.to_dict()
        assert hello["options"] == {"audit": "hand"}
    report = verify_transcript(records)
    assert report.ruleset == finished_pair.sessions[P0].ruleset.to_dict()
    assert report.audit_mode == "hand"
