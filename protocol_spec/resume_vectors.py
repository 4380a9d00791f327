"""Generate (or check) the test vector of a game interrupted and resumed.

    python protocol_spec/resume_vectors.py          # rewrite vectors/resume_v1.json
    python protocol_spec/resume_vectors.py --check  # exit 1 if it is out of date

Two sessions with fixed identity keys and secrets play the scripted game of
``generate.py``.  After the responder's ``deck2`` has been sent, the
connection drops and that envelope is lost.  Both sides reconnect with fixed
nonces (the initiator dials): the vector holds the two signed ``resume``
messages, the envelope sent again, and the whole transcript, byte for byte
(Ed25519 signatures are deterministic).  See wire.md section 13.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    Resumed,
    Session,
    YourTurn,
    decode_envelope,
)
from truc_p2p.protocol._wire import split_frames
from truc_p2p.rules import Player

HERE = Path(__file__).resolve().parent
VECTOR = HERE / "vectors" / "resume_v1.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("truc_spec_generate", HERE / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def _fixed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p/v1/resume-vector/" + label.encode()).digest()


def resume_vector() -> dict[str, Any]:
    gen = _generator()
    keys = [Ed25519PrivateKey.from_private_bytes(_fixed(f"identity{p}")) for p in (0, 1)]
    secrets = [_fixed(f"secret{p}") for p in (0, 1)]
    nonces = [_fixed(f"nonce{p}")[:16] for p in (0, 1)]
    transcripts: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    sessions = {
        p: Session(
            identity=keys[p],
            role=p,
            secret=secrets[p],
            ruleset=gen.SCRIPT_RULESET,
            name=("alice", "bob")[p],
            record=transcripts[p].append,
            deck="v1",  # the vector predates deck v2 and keeps its bytes
        )
        for p in (Player.P0, Player.P1)
    }
    wire: dict[Player, bytes] = {Player.P0: b"", Player.P1: b""}  # bytes towards p
    control: list[dict[str, Any]] = []
    resent: list[str] = []
    cut_done = False
    closed: set[Player] = set()
    step = 0
    while len(closed) < 2:
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            s = sessions[me]
            if wire[me]:
                s.receive_data(wire[me])
                wire[me] = b""
            event = s.next_event()
            out = s.data_to_send()
            if isinstance(event, Resumed):
                for raw in split_frames(out):
                    env = decode_envelope(raw)
                    if env.type == "resume":
                        control.append({"sender": int(me), "hex": raw.hex()})
                    else:
                        resent.append(raw.hex())
            elif (
                out
                and not cut_done
                and any(decode_envelope(r).type == "deck2" for r in split_frames(out))
            ):
                # The connection drops: the responder's deck2 never arrives.
                cut_done = True
                for p in (Player.P0, Player.P1):
                    wire[p] = b""
                    sessions[p].reconnect(nonces[p], dialer=p is Player.P0)
                first = sessions[Player.P0].data_to_send()
                control.append({"sender": 0, "hex": split_frames(first)[0].hex()})
                wire[Player.P1] += first
                continue
            wire[me.other] += out
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                action = gen._script_choice(s, event, step)
                step += 1
                wire[me.other] += s.send(action)
            elif event is NEED_DATA:
                continue
    assert transcripts[Player.P0] == transcripts[Player.P1]
    result = sessions[Player.P0].result
    assert result is not None
    return {
        "description": "The scripted game of wire_v1.json with other fixed keys and secrets, "
        "interrupted after the responder sent deck2 (lost in the cut) and resumed: the "
        "initiator dials and sends its resume (nonce = nonces[0], echo empty), the responder "
        "answers with its own (nonce = nonces[1], echo = the initiator's nonce) followed by "
        "the envelopes the initiator lacks. Both transcripts are the same single chain.",
        "identities": [k.private_bytes_raw().hex() for k in keys],
        "secrets": [x.hex() for x in secrets],
        "nonces": [n.hex() for n in nonces],
        "ruleset": dict(gen.SCRIPT_RULESET.to_dict()),
        "resume_messages": control,
        "resent": resent,
        "game_id": result.game_id.hex(),
        "transcript": [raw.hex() for raw in transcripts[Player.P0]],
    }


def main(argv: list[str]) -> int:
    text = json.dumps(resume_vector(), indent=1) + "\n"
    old = VECTOR.read_text() if VECTOR.exists() else ""
    if "--check" in argv:
        if text != old:
            print(f"out of date: {VECTOR}")
            return 1
        return 0
    VECTOR.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
