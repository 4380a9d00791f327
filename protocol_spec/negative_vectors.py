"""Generate ``vectors/wire_v2_negative.json``: negative vectors, Wycheproof style.

Each case is a transcript made of the first ``prefix`` envelopes of
``vectors/wire_v2.json`` followed by ``hex``: one envelope that breaks one receiver
rule of ``conformance.md`` (its ``row``), signed with the sender's identity of
``wire_v2.json`` where the rule needs a valid signature.  ``result`` is
``invalid`` (a verifier must reject it, with ``code`` at message ``message``) or
``valid`` (the unchanged envelope: the prefix verifies as an unfinished game);
``flags`` name the kind of fault (explained in the file's ``flags`` object).  The
faults are those of the live adversarial cases (``truc_p2p/interop/_adversary.py``,
``interop.md`` §8), applied to the transcript instead of a connection; then the
cases only a verifier meets (flag ``Offline``, named after their section like the
live ones): the order of aborts and the one ending of wire.md §8, and a ``resume``
recorded in a transcript (§13).

    python protocol_spec/negative_vectors.py          # rewrite the file
    python protocol_spec/negative_vectors.py --check  # exit 1 if it would change
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._adversary import ADVERSARIAL, Context
from truc_p2p.protocol import decode_envelope, sign_envelope, verify_transcript

HERE = Path(__file__).resolve().parent
BASE = HERE / "vectors" / "wire_v2.json"
OUT = HERE / "vectors" / "wire_v2_negative.json"
SCHEMA = "schemas/negative_v1.schema.json"

#: Which envelope of wire_v2.json each target of the live cases is here.
TARGETS = {"coin": 2, "deck": 3, "act": 6, "result": 13}
FLAGS = {
    "Envelope": "the envelope's shape or field types (wire.md §2)",
    "Decoding": "the strict msgpack rules (wire.md §2)",
    "Signature": "the signature (wire.md §2); live, a link fault (§13.7)",
    "Chain": "seq, prev or the game id (wire.md §2)",
    "Payload": "the payload against its catalogue table (wire.md §3)",
    "Order": "the message table (wire.md §5)",
    "Deck": "a deck check (deck_v2.md §7)",
    "Abort": "an abort's payload or place (wire.md §8)",
    "Rules": "an action the receiver's rules engine does not allow (wire.md §6)",
    "Result": "the co-signed result against the game (wire.md §7)",
    "Ending": "a second ending, or a message after the end (wire.md §8, one ending per game)",
    "Resume": "a resume recorded in a transcript, where it never belongs (wire.md §13)",
    "Offline": "no live case: only a verifier meets it (a live receiver reads nothing "
    "after the end, records no resume) or no live case plays it yet; `case` is this "
    "file's own name for it",
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
    "R3": "Abort",
    "R4": "Abort",
    "S2": "Rules",
    "S5": "Payload",
    "S9": "Payload",
    "R1": "Result",
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
        # the sender's own envelopes so far, as the live relay holds them
        own = [e for e in envelopes[:k] if decode_envelope(e).sender == sender]
        ctx = Context(keys[sender], mine=own, stranger=stranger)
        frames = m.mutate(raw, ctx)
        if frames is None or not all(isinstance(f, bytes) for f in frames):
            continue
        sent = [f for f in frames if isinstance(f, bytes)]
        report = verify_transcript([*envelopes[:k], *sent])
        if report.error_code in (None, "incomplete", "aborted"):
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
    for case in _offline(envelopes, keys, stranger):
        report = verify_transcript([*envelopes[: case["prefix"]], *map(bytes.fromhex, case["hex"])])
        if case["result"] == "valid":
            assert report.culprit is None and report.error_code == "aborted", case["case"]
            case["status"] = report.status
        else:
            assert report.error_code not in (None, "incomplete", "aborted"), case["case"]
            case["code"] = report.error_code
            case["message"] = report.error_message_no
        cases.append({"tcId": len(cases) + 1, **case})
    return {
        "schema": SCHEMA,
        "description": (
            "Negative vectors, Wycheproof style: each case is the first `prefix` "
            "envelopes of wire_v2.json followed by `hex`. `result` invalid: a verifier "
            "rejects the transcript with `code` at message `message` (wire.md §8, §10); "
            "valid: the prefix verifies (status unfinished, the last message an abort "
            "where there is one). `case` names the live adversarial case of interop.md "
            "§8 with the same fault (flag Offline: this file's own name), `row` the row "
            "of conformance.md. A resume's own faults on a new connection (wire.md "
            "§13.1 steps 2-4: bad clock fields, a foreign key, the wrong seat, a "
            "replayed nonce, a wrong echo) are only visible live, since a refused "
            "connection records nothing: they are the live cases wire-13.1-* alone; "
            "here a resume recorded in a transcript is judged as what it is, never a "
            "chain message (malformed; bad-signature where its signature fails). A "
            "resume kept as evidence is judged by evidence_v1.json."
        ),
        "base": "wire_v2.json",
        "flags": FLAGS,
        "numberOfTests": len(cases),
        "cases": cases,
    }


def _offline(
    envelopes: list[bytes], keys: list[SigningKey], stranger: SigningKey
) -> list[dict[str, Any]]:
    """The cases only a verifier meets (wire.md §8's order of aborts and one ending,
    §13's resume outside the chain), each ``prefix`` envelopes of wire_v2.json
    followed by envelopes signed here; ``code``/``status`` come from the verifier."""
    envs = [decode_envelope(raw) for raw in envelopes]
    game_id = envs[2].game_id
    end = len(envelopes)

    def signed(
        sender: int,
        seq: int,
        type_: str,
        payload: dict[str, Any],
        *,
        after: bytes | None = None,
        key: SigningKey | None = None,
    ) -> bytes:
        prev = hashlib.sha256(after if after is not None else envelopes[seq - 1]).digest()
        return sign_envelope(
            key or keys[sender],
            game_id=game_id,
            seq=seq,
            prev=prev,
            sender=sender,
            type=type_,
            payload=payload,
        )

    def abort(sender: int, seq: int, reason: str = "quit", **kw: Any) -> bytes:
        return signed(sender, seq, "abort", {"reason": reason, "detail": ""}, **kw)

    out: list[dict[str, Any]] = []

    def add(
        name: str, row: str, flag: str, prefix: int, frames: list[bytes], ok: bool = False
    ) -> None:
        out.append(
            {
                "case": name,
                "row": row,
                "result": "valid" if ok else "invalid",
                "flags": [flag, "Offline"],
                "prefix": prefix,
                "hex": [f.hex() for f in frames],
            }
        )

    # W §8, one ending per game: after the co-signed result or an abort, nothing.
    add("wire-8-abort-after-result", "R9", "Ending", end, [abort(0, end)])
    cosigner = envs[end - 2].sender  # the first result's: its abort crosses the second
    add(
        "wire-8-abort-crossing-the-cosignature",
        "R9",
        "Ending",
        end,
        [abort(cosigner, end - 1, "error", after=envelopes[end - 2])],
    )
    for target, k in (("coin", TARGETS["coin"]), ("act", TARGETS["act"])):
        me = envs[k].sender
        first = abort(me, k)
        add(
            f"wire-8-second-abort-same-player-{target}",
            "R9",
            "Ending",
            k,
            [first, abort(me, k + 1, "error", after=first)],
        )
        add(
            f"wire-8-second-abort-other-player-{target}",
            "R9",
            "Ending",
            k,
            [first, abort(1 - me, k, "error")],
        )
    k = TARGETS["act"]
    me = envs[k].sender
    first = abort(me, k)
    add(
        "wire-8-action-after-abort",
        "R9",
        "Ending",
        k,
        [first, signed(me, k + 1, "v2action", {"act": "fold"}, after=first)],
    )
    # W §8: the reasons, and where an abort may chain (R3: back to k only over the
    # receiver's own messages).
    for target, k in (("deck", TARGETS["deck"]), ("act", TARGETS["act"])):
        add(
            f"wire-8-abort-unknown-reason-{target}",
            "R4",
            "Abort",
            k,
            [abort(envs[k].sender, k, "bored")],
        )
    for k in (4, 6):
        last = envs[k - 1].sender
        add(f"wire-8-abort-crossing-{k - 1}", "R3", "Abort", k, [abort(1 - last, k - 1)], ok=True)
    k = TARGETS["act"]
    me = envs[k].sender
    add("wire-8-abort-seq-ahead", "R3", "Abort", k, [abort(me, k + 1, after=envelopes[k - 1])])
    # W §13: a resume is never a chain message; its §13.1 faults are live-only.
    nonce = hashlib.sha256(b"negative vector resume nonce").digest()[:16]
    for target, k in (("coin", TARGETS["coin"]), ("act", TARGETS["act"])):
        me = envs[k].sender
        resume = {"nonce": nonce, "echo": b""}
        add(
            f"wire-13-resume-in-transcript-{target}",
            "N1",
            "Resume",
            k,
            [signed(me, k, "resume", resume)],
        )
    k = TARGETS["act"]
    me = envs[k].sender
    for name, payload, sender, key in (
        ("answer-in-transcript", {"nonce": nonce, "echo": nonce[::-1]}, me, None),
        (
            "resume-in-transcript-bad-clock",
            {"nonce": nonce, "echo": b"", "left": -1, "away": 1.5},
            me,
            None,
        ),
        ("resume-in-transcript-foreign-key", {"nonce": nonce, "echo": b""}, me, stranger),
        ("resume-in-transcript-wrong-seat", {"nonce": nonce, "echo": b""}, 1 - me, keys[me]),
    ):
        add(f"wire-13-{name}", "N1", "Resume", k, [signed(sender, k, "resume", payload, key=key)])
    return out


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
