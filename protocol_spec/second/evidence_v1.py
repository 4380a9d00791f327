"""vectors/evidence_v1.json: resumes kept as evidence, judged as wire.md §13.8 says,
over the deck v1 game of resume_v1.json."""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack
from common import Ed25519, envelope, sha256
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from resume import resumed

FILE = "evidence_v1.json"
INDENT = 1
ASCII = True  # non-ASCII escaped as \uXXXX
HELD = 14  # what player 0 (the dialer) held when it judged
DESCRIPTION = (
    "Evidence files of wire.md section 13.8, over the game of resume_v1.json (its keys). "
    "In each case 'transcript' is the first 'held' envelopes of that game followed by the "
    "case's 'abort' (player 0's abort cheat, signed at seq = held), or the whole finished "
    "game when 'abort' is null; 'evidence' is the evidence file's envelopes. 'finding' is "
    "what a verifier proves (the player, its claim, the position it contradicts), or null "
    "when the evidence proves nothing ('why'). A resume is judged against the chain before "
    "the abort that cites it, never against later envelopes; a claim to lack one's own "
    "message convicts only in an answer (echo = the accuser's nonce)."
)
VERDICTS = (
    "Each case's verdict (wire.md 13.8): 'proof' (the accused's own signatures contradict "
    "each other), 'word' (a finding that is only the accuser's word, never a proof: verify "
    "labels it 'the other player's word' and gives it weight 'word' in its JSON) or "
    "'nothing' (the evidence proves nothing, 'why'). A case with its own 'transcript' (hex "
    "envelopes, ending with the accuser's abort) is judged against it instead of 'held' and "
    "'abort': in 'equivocated-chain' player 0 played 'accept' at 'message_no' (the envelope "
    "of resume_v1.json, which player 1's answer names) and its transcript shows another "
    "legal move there; 'another-games-resume' files player 1's honest answer of another "
    "game between the same keys (other secrets); 'bad-clock-another-prev' a resume with "
    "clock fields a live listener refuses (left -1, away 1.5: its payload is not judged, "
    "its chain is), 'foreign-key-resume' one signed by a key of neither hello, "
    "'wrong-seat-resume' player 1's signature under sender 0. A replayed resume is "
    "'old-answer'; a replayed nonce, like every other refusal of §13.1 step 4, is visible "
    "live only."
)


def body(raw: bytes) -> list[Any]:
    decoded: list[Any] = msgpack.unpackb(raw[:-64], raw=False)
    return decoded


def judge(transcript: list[bytes], entry: bytes) -> tuple[dict[str, Any] | None, str, str]:
    """wire.md §13.8 steps 1–5: (finding, weight or 'nothing', why)."""
    hellos = [body(raw) for raw in transcript[:2]]
    keys = {h[4]: h[6]["key"] for h in hellos}
    _, game_id, have, prev, sender, kind, payload = body(entry)
    if kind != "resume":
        return None, "nothing", "is not a resume"
    try:
        Ed25519PublicKey.from_public_bytes(keys[sender]).verify(entry[-64:], entry[:-64])
    except (InvalidSignature, KeyError):
        return None, "nothing", f"is not signed by player {sender}"
    if game_id != sha256(b"truc-p2p/v1/game", transcript[0], transcript[1]):
        return None, "nothing", "names another game"
    last = body(transcript[-1])
    if last[5] != "abort" or last[6].get("reason") != "cheat" or last[4] == sender:
        return None, "nothing", "does not end with the other player's abort cheat"
    n = last[2]
    chain = transcript[:n]
    if have > n:
        return None, "nothing", "names a position after the abort"
    expected = sha256(chain[have - 1]) if have else bytes(32)
    if prev != expected:
        code, at = "broken-chain", have - 1
    elif payload.get("echo") and any(body(chain[q])[4] == sender for q in range(have, n)):
        code = "bad-sequence"
        at = next(q for q in range(have, n) if body(chain[q])[4] == sender)
    else:
        return None, "nothing", "may be older than its sender's envelopes"
    if not last[6].get("detail", "").startswith(code):
        return None, "nothing", "does not cite this claim"
    committed = max(q for q in range(n) if body(chain[q])[4] == sender)
    weight = "proof" if code == "broken-chain" and at <= committed else "word"
    return {"player": sender, "code": code, "message_no": at}, weight, ""


#: the start of each reason the file keeps as ``why``
WHY = (
    "may be older",
    "does not end with",
    "does not cite",
    "names another game",
    "is not a resume",
    "is not signed by player 1",
    "is not signed by player 0",
)


def build() -> dict[str, Any]:
    play, _, base = resumed("", (0, 0), None, v1=True)
    keys = play.keys
    full = play.transcript
    senders = [body(raw)[4] for raw in full]
    chain = full[:HELD]
    own = max(p for p in range(HELD) if senders[p] == 1)
    nonce = bytes.fromhex("0e" * 16)
    another = hashlib.sha256(b"another chain").digest()

    def signed(
        key: Ed25519, sender: int, upon: list[bytes], kind: str, payload: dict[str, Any],
        seq: int | None = None, prev: bytes | None = None,
    ) -> bytes:  # fmt: skip
        at = len(upon) if seq is None else seq
        link = sha256(upon[at - 1]) if prev is None else prev
        return envelope(key, play.game_id, at, link, sender, kind, payload)

    def abort(code: str, upon: list[bytes] = chain) -> bytes:
        detail = f"{code}: the peer's resume contradicts the chain"
        return signed(keys[0], 0, upon, "abort", {"reason": "cheat", "detail": detail})

    def resume(
        have: int, echo: bytes, prev: bytes | None = None, upon: list[bytes] = chain,
        clock: dict[str, Any] | None = None, key: Ed25519 | None = None, sender: int = 1,
    ) -> bytes:  # fmt: skip
        payload = {"nonce": bytes.fromhex("1f" * 16), "echo": echo, **(clock or {})}
        return signed(key or keys[1], sender, upon, "resume", payload, have, prev)

    _, _, rematch = resumed("", (0, 0), None, v1=True, secrets_tag="rematch/")
    # player 0 played accept at 9; its file shows another legal move there
    at = 9
    assert senders[at] == 0 and body(full[at])[6] == {"act": "accept"}
    other = next(a for a in ("accept", "refuse", "fold") if a != "accept")
    claimed = [*full[:at], signed(keys[0], 0, full[:at], "action", {"act": other})]
    honest = bytes.fromhex(base["resume_messages"][1]["hex"])
    bye = signed(keys[1], 1, chain, "bye", {}, own, another)
    refuse = envelope(
        keys[1], b"", 0, bytes(32), 1, "refuse",
        {"key": keys[1].public, "reason": "unknown-game", "detail": ""},
    )  # fmt: skip
    cases: list[tuple[str, bytes | None, list[bytes] | None, bytes]] = [
        ("answer-lacks-its-own", abort("bad-sequence"), None, resume(own, nonce)),
        ("another-prev", abort("broken-chain"), None, resume(own, b"", another)),
        ("dialer-lacks-its-own", abort("bad-sequence"), None, resume(own, b"")),
        ("honest-resume-against-the-finished-game", None, None, honest),
        ("abort-cites-another-claim", abort("broken-chain"), None, resume(own, nonce)),
        ("another-games-resume", abort("broken-chain"), None,
         bytes.fromhex(rematch["resume_messages"][1]["hex"])),
        ("equivocated-chain", None, [*claimed, abort("broken-chain", claimed)],
         resume(at + 1, nonce, upon=full[: at + 1])),
        ("old-answer", abort("bad-sequence"), None, honest),
        ("bye-is-not-evidence", abort("broken-chain"), None, bye),
        ("refuse-is-not-evidence", abort("broken-chain"), None, refuse),
        ("bad-clock-another-prev", abort("broken-chain"), None,
         resume(own, b"", another, clock={"left": -1, "away": 1.5})),
        ("foreign-key-resume", abort("broken-chain"), None,
         resume(own, b"", another, key=Ed25519(nonce * 2))),
        ("wrong-seat-resume", abort("broken-chain"), None, resume(own, b"", another, sender=0)),
    ]  # fmt: skip
    out = []
    verdicts = {}
    for name, ending, own_transcript, entry in cases:
        if own_transcript is not None:
            judged = own_transcript
        elif ending is None:
            judged = full
        else:
            judged = [*chain, ending]
        finding, weight, why = judge(judged, entry)
        case: dict[str, Any] = {"name": name, "abort": None if ending is None else ending.hex()}
        if own_transcript is not None:
            case["transcript"] = [raw.hex() for raw in own_transcript]
        case["evidence"] = [entry.hex()]
        case["finding"] = finding
        if finding is None:
            case["why"] = next(w for w in WHY if why.startswith(w))
        out.append(case)
        verdicts[name] = weight
    return {
        "schema": "schemas/evidence_v1.schema.json",
        "description": DESCRIPTION,
        "held": HELD,
        "nonce": nonce.hex(),
        "cases": out,
        "verdicts_description": VERDICTS,
        "verdicts": verdicts,
    }
