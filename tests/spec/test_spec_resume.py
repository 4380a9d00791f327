"""The resume vector (wire.md section 13) says what the code does, checked independently."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.protocol import verify_transcript

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTOR: dict[str, Any] = json.loads((SPEC / "vectors" / "resume_v1.json").read_text())


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("truc_resume_vectors", SPEC / "resume_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().resume_vector() == VECTOR


def test_the_resumed_transcript_is_one_valid_chain() -> None:
    envelopes = [bytes.fromhex(h) for h in VECTOR["transcript"]]
    report = verify_transcript(envelopes)
    assert report.valid, report.summary()
    assert report.game_id == VECTOR["game_id"]


def _body(raw: bytes) -> list[Any]:
    """An independent decoding of an envelope body (wire.md section 2)."""
    body: list[Any] = msgpack.unpackb(raw[:-64], raw=False)
    return body


def test_resume_messages_follow_section_13() -> None:
    transcript = [bytes.fromhex(h) for h in VECTOR["transcript"]]
    keys = [Ed25519PrivateKey.from_private_bytes(bytes.fromhex(k)) for k in VECTOR["identities"]]
    nonces = [bytes.fromhex(n) for n in VECTOR["nonces"]]
    dialer, answer = (bytes.fromhex(m["hex"]) for m in VECTOR["resume_messages"])
    for raw, sender, echo in ((dialer, 0, b""), (answer, 1, nonces[0])):
        version, game_id, seq, prev, who, mtype, payload = _body(raw)
        assert (version, who, mtype) == (1, sender, "resume")
        assert game_id.hex() == VECTOR["game_id"]
        keys[sender].public_key().verify(raw[-64:], raw[:-64])  # signed, raises if not
        assert payload == {"nonce": nonces[sender], "echo": echo}
        # seq = how many chain envelopes the sender holds; prev = the last of them.
        assert 0 < seq < len(transcript)
        assert prev == hashlib.sha256(transcript[seq - 1]).digest()
    # The dialer lacked the responder's lost message: exactly that one is sent again.
    have = _body(dialer)[2]
    assert [bytes.fromhex(h) for h in VECTOR["resent"]] == [transcript[have]]
    assert _body(transcript[have])[5] == "deck2"
    # Resume messages are outside the chain: never in the transcript.
    assert dialer not in transcript and answer not in transcript
