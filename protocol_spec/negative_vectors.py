"""Generate ``vectors/wire_v2_negative.json``: negative vectors, Wycheproof style.

Each case is a transcript made of the first ``prefix`` envelopes of
``vectors/wire_v2.json`` followed by ``hex``: one envelope that breaks one receiver
rule of ``conformance.md`` (its ``row``), signed with the sender's identity of
``wire_v2.json`` where the rule needs a valid signature.  ``result`` is
``invalid`` (a verifier must reject it, with ``code`` at message ``message``) or
``valid`` (the unchanged envelope: the prefix verifies as an unfinished game);
``flags`` name the kind of fault (explained in the file's ``flags`` object).  The
faults are those of the live adversarial cases (``truc_p2p/interop/_adversary.py``,
``interop.md`` §8), applied to the transcript instead of a connection.

    python protocol_spec/negative_vectors.py          # rewrite the file
    python protocol_spec/negative_vectors.py --check  # exit 1 if it would change
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._adversary import ADVERSARIAL, Context
from truc_p2p.protocol import decode_envelope, verify_transcript

HERE = Path(__file__).resolve().parent
BASE = HERE / "vectors" / "wire_v2.json"
OUT = HERE / "vectors" / "wire_v2_negative.json"
SCHEMA = "schemas/negative_v1.schema.json"

#: Which envelope of wire_v2.json each target of the live cases is here.
TARGETS = {"coin": 2, "deck": 3, "act": 6}
FLAGS = {
    "Envelope": "the envelope's shape or field types (wire.md §2)",
    "Decoding": "the strict msgpack rules (wire.md §2)",
    "Signature": "the signature (wire.md §2); live, a link fault (§13.7)",
    "Chain": "seq, prev or the game id (wire.md §2)",
    "Payload": "the payload against its catalogue table (wire.md §3)",
    "Order": "the message table (wire.md §5)",
    "Deck": "a deck check (deck_v2.md §7)",
    "Abort": "an abort's payload or place (wire.md §8)",
    "Unchanged": "the envelope as wire_v2.json has it: a valid prefix",
}
_ROW_FLAG = {
    "F5": "Envelope",
    "F6": "Envelope",
    "F7": "Decoding",
    "F8": "Signature",
    "F12": "Chain",
    "F13": "Chain",
    "F14": "Chain",
    "M1": "Payload",
    "M2": "Order",
    "M3": "Payload",
    "M4": "Payload",
    "S1": "Order",
    "S6": "Deck",
    "S8": "Payload",
    "N9": "Chain",
    "H5": "Payload",
    "R4": "Abort",
    "R7": "Abort",
}


def build() -> dict[str, Any]:
    base = json.loads(BASE.read_text(encoding="utf-8"))
    envelopes = [bytes.fromhex(e["hex"]) for e in base["envelopes"]]
    keys = [SigningKey.from_bytes(bytes.fromhex(seed)) for seed in base["identities"]]
    stranger = SigningKey.from_bytes(bytes(range(32)))
    cases: list[dict[str, Any]] = []
    for target, k in TARGETS.items():
        prefix = envelopes[:k]
        report = verify_transcript([*prefix, envelopes[k]])
        cases.append(
            {
                "tcId": len(cases) + 1,
                "case": f"unchanged-{target}",
                "row": "T2",
                "result": "valid",
                "flags": ["Unchanged"],
                "prefix": k,
                "hex": [envelopes[k].hex()],
                "status": report.status,
            }
        )
    for m in ADVERSARIAL.values():
        k = TARGETS.get(m.target.name)
        flag = _ROW_FLAG.get(m.row)
        if k is None or flag is None or (m.expect.kind == "refuse" and m.row != "F8"):
            continue
        if m.target.name == "deck" and flag != "Deck":
            continue  # a 5 kB envelope: its shape faults are the coin's and the action's
        raw = envelopes[k]
        sender = decode_envelope(raw).sender
        ctx = Context(keys[sender], mine=list(envelopes[:k]), stranger=stranger)
        frames = m.mutate(raw, ctx)
        if frames is None or not all(isinstance(f, bytes) for f in frames):
            continue
        sent = [f for f in frames if isinstance(f, bytes)]
        report = verify_transcript([*envelopes[:k], *sent])
        if report.error_code in (None, "incomplete"):
            continue  # a fault only a live receiver sees
        cases.append(
            {
                "tcId": len(cases) + 1,
                "case": m.name,
                "row": m.row,
                "result": "invalid",
                "flags": [flag],
                "prefix": k,
                "hex": [f.hex() for f in sent],
                "code": report.error_code,
                "message": report.error_message_no,
            }
        )
    return {
        "schema": SCHEMA,
        "description": (
            "Negative vectors, Wycheproof style: each case is the first `prefix` "
            "envelopes of wire_v2.json followed by `hex`. `result` invalid: a verifier "
            "rejects the transcript with `code` at message `message` (wire.md §8, §10); "
            "valid: the prefix verifies (status unfinished). `case` names the live "
            "adversarial case of interop.md §8 with the same fault, `row` the row of "
            "conformance.md."
        ),
        "base": "wire_v2.json",
        "flags": FLAGS,
        "numberOfTests": len(cases),
        "cases": cases,
    }


def text() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    new = text()
    if argv == ["--check"]:
        return 0 if OUT.read_text(encoding="utf-8") == new else 1
    OUT.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
