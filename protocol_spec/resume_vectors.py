"""Generate (or check) the test vectors of a game interrupted and resumed.

    python protocol_spec/resume_vectors.py          # rewrite resume_v1/_v2, evidence_v1.json
    python protocol_spec/resume_vectors.py --check  # exit 1 if either is out of date

``resume_v1.json``: two sessions with fixed identity keys and secrets play the
scripted deck-v1 game of ``generate.py``.  After the responder's ``deck2`` has
been sent, the connection drops and that envelope is lost.

``resume_v2.json``: the same for the pipelined deck-v2 script of ``generate.py``
(``wire_v2_pipelined.json``, wire.md section 6b) with other fixed keys and
secrets.  The cut is in the middle of a pipelined deal: hand n + 1's
``v2deck1`` and share-less ``v2deck2`` are on both chains, and the initiator's
action that ends hand n and carries ``open`` (its shares for hand n + 1) is
lost, so the hand is not opened yet.  Here the dialer is the side that resends.

In both, the two sides reconnect with fixed nonces (the initiator dials): the
vector holds the list of actions the script chose (``[player, action]`` in
the order played, as in the wire vectors), the two signed ``resume``
messages, the envelopes sent again, and the whole transcript up to the
co-signed result, byte for byte (Ed25519
signatures and every deck-v2 secret and proof nonce are deterministic).  See
wire.md section 13.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    FrameBuffer,
    ResumeClock,
    Resumed,
    Session,
    SessionOptions,
    YourTurn,
    decode_envelope,
    refusal,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Player


def split_frames(data: bytes) -> list[bytes]:
    """The whole envelopes of ``data``, a run of frames (a connection's output)."""
    buf = FrameBuffer()
    buf.feed(data)
    out = []
    while (env := buf.next_envelope()) is not None:
        out.append(env)
    assert not buf.pending, f"{buf.pending} trailing bytes do not form a whole frame"
    return out


HERE = Path(__file__).resolve().parent
VECTOR = HERE / "vectors" / "resume_v1.json"
VECTOR_V2 = HERE / "vectors" / "resume_v2.json"

#: Whether a flight (the envelopes one side hands to the connection at once) is
#: the one the cut loses.
Cut = Callable[[list[Envelope]], bool]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("truc_spec_generate", HERE / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def _fixed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p/v1/resume-vector/" + label.encode()).digest()


def _v1_cut(flight: list[Envelope]) -> bool:
    """The responder's deck2."""
    return any(env.type == "deck2" for env in flight)


def _v2_cut(flight: list[Envelope]) -> bool:
    """The action that ends a hand and opens the pre-dealt next one (wire.md 6b, 3)."""
    return any(env.type == "v2action" and "open" in env.payload for env in flight)


def _play(
    *,
    tag: str,
    deck: str,
    ruleset: Any,
    choose: Callable[[Session, YourTurn, int], Any],
    cut: Cut,
    clock: tuple[ResumeClock, ResumeClock] | None = None,
    secrets_tag: str | None = None,
) -> dict[str, Any]:
    """Play a scripted game whose connection drops once, on the first flight ``cut``
    picks (that flight is lost), and is resumed; return the vector's common fields.
    With ``clock`` both hellos announce the clock in resume (wire.md 13.1) and each
    side's resume carries its clock.  ``secrets_tag`` (default ``tag``) names other
    session secrets for the same keys: another game between the same two players."""
    keys = [SigningKey.from_bytes(_fixed(f"{tag}identity{p}")) for p in (0, 1)]
    secrets = [_fixed(f"{secrets_tag or tag}secret{p}") for p in (0, 1)]
    nonces = [_fixed(f"{tag}nonce{p}")[:16] for p in (0, 1)]
    transcripts: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    sessions = {
        p: Session(
            identity=keys[p],
            role=p,
            secret=secrets[p],
            record=transcripts[p].append,
            # these vectors predate resignation: no feature tag in the nonce
            # the vectors predate early cards
            # and the rest-final rule (wire.md section 6b)
            # and early redeal cards (wire.md section 6a)
            options=SessionOptions(
                ruleset=ruleset,
                name=("alice", "bob")[p],
                deck=deck,
                pipeline=deck == "v2",
                resign=False,
                early=False if deck == "v2" else None,
                rest_final=False,
                early_redeal=False,
                resume_clock=clock is not None,
            ),
        )
        for p in (Player.P0, Player.P1)
    }
    wire: dict[Player, bytes] = {Player.P0: b"", Player.P1: b""}  # bytes towards p
    control: list[dict[str, Any]] = []
    resent: list[str] = []
    resumed: list[dict[str, Any]] = []
    actions: list[list[Any]] = []
    cut_done = False

    def lost(data: bytes) -> bool:
        """Whether ``data`` is lost in the cut; if so, both sides reconnect."""
        nonlocal cut_done
        if cut_done or not data or not cut([decode_envelope(r) for r in split_frames(data)]):
            return False
        cut_done = True
        for p in (Player.P0, Player.P1):
            wire[p] = b""
            given = None if clock is None else clock[p]
            sessions[p].reconnect(nonces[p], dialer=p is Player.P0, clock=given)
        first = sessions[Player.P0].data_to_send()
        control.append({"sender": 0, "hex": split_frames(first)[0].hex()})
        wire[Player.P1] += first
        return True

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
                resumed.append(
                    {
                        "player": int(me),
                        "peer_has": event.peer_has,
                        "we_have": event.we_have,
                        "peer_left": event.peer_left,
                        "peer_away": event.peer_away,
                        "time_left_ms": event.time_left_ms,
                    }
                )
                for raw in split_frames(out):
                    env = decode_envelope(raw)
                    if env.type == "resume":
                        control.append({"sender": int(me), "hex": raw.hex()})
                    else:
                        resent.append(raw.hex())
            elif lost(out):
                # The event would be dropped with the connection: only an automatic
                # message may be cut here, never one next to a turn or the end.
                assert not isinstance(event, YourTurn) and event is not CLOSED
                continue
            wire[me.other] += out
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                action = choose(s, event, step)
                step += 1
                actions.append([int(me), str(action)])
                data = s.send(action)
                if not lost(data):
                    wire[me.other] += data
            elif event is NEED_DATA:
                continue
    assert cut_done and len(control) == 2
    assert transcripts[Player.P0] == transcripts[Player.P1]
    result = sessions[Player.P0].result
    assert result is not None
    extra = {} if clock is None else {"resumed": sorted(resumed, key=lambda r: r["player"])}
    return {
        **extra,
        "identities": [k.to_bytes().hex() for k in keys],
        "secrets": [x.hex() for x in secrets],
        "nonces": [n.hex() for n in nonces],
        "ruleset": dict(ruleset.to_dict()),
        "actions": actions,
        "resume_messages": control,
        "resent": resent,
        "game_id": result.game_id.hex(),
        "transcript": [raw.hex() for raw in transcripts[Player.P0]],
    }


def resume_vector() -> dict[str, Any]:
    """resume_v1.json: deck v1, the responder's deck2 lost."""
    gen = _generator()
    played = _play(
        tag="",
        deck="v1",  # the vector predates deck v2 and keeps its bytes
        ruleset=gen.SCRIPT_RULESET,
        choose=gen._script_choice,
        cut=_v1_cut,
    )
    return {
        "schema": "schemas/resume_v1.schema.json",
        "description": "The scripted game of wire_v1.json with other fixed keys and secrets, "
        "interrupted after the responder sent deck2 (lost in the cut) and resumed: the "
        "initiator dials and sends its resume (nonce = nonces[0], echo empty), the responder "
        "answers with its own (nonce = nonces[1], echo = the initiator's nonce) followed by "
        "the envelopes the initiator lacks. Both transcripts are the same single chain.",
        **played,
    }


def resume_vector_v2() -> dict[str, Any]:
    """resume_v2.json: deck v2 pipelined, cut before a pre-dealt hand is opened."""
    gen = _generator()
    played = _play(
        tag="v2/pipelined/",
        deck="v2",
        ruleset=gen.PIPELINED_RULESET,
        choose=gen._pipelined_choice,
        cut=_v2_cut,
    )
    envs = [decode_envelope(bytes.fromhex(h)) for h in played["transcript"]]
    lost = [env.seq for env in (decode_envelope(bytes.fromhex(h)) for h in played["resent"])]
    hand = max(e.payload["hand"] for e in envs[: lost[0]] if e.type == "v2deck1")
    predeal = [
        e.seq for e in envs if e.type in ("v2deck1", "v2deck2") and e.payload["hand"] == hand
    ]
    return {
        "schema": "schemas/resume_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": "The pipelined deck-v2 script of wire_v2_pipelined.json (wire.md "
        "section 6b) with other fixed keys and secrets, interrupted in the middle of a "
        "pipelined deal: hand n+1's v2deck1 and v2deck2 (without shares) are on both chains "
        "when the initiator's v2action that ends hand n and carries 'open' (its shares for "
        "hand n+1) is lost in the cut, so hand n+1 is not opened yet. The initiator dials "
        "and sends its resume (nonce = nonces[0], echo empty, counting the lost envelope), "
        "the responder answers with its own (nonce = nonces[1], echo = the initiator's "
        "nonce, one envelope fewer) and resends nothing; the initiator then resends the "
        "envelope the responder lacks, and the game goes on to the co-signed result. Both "
        "transcripts are the same single chain. 'cut': the hand pre-dealt at the cut, the "
        "positions of its pre-deal messages, and the positions lost in the cut.",
        "cut": {"hand": hand, "predeal": predeal, "lost": lost},
        **played,
    }


def resume_clock_vector() -> dict[str, Any]:
    """resume_clock_v1.json: resume_v2.json's cut with the clock in resume (13.1)."""
    gen = _generator()
    # Both sides time the other at the cut (each holds a flight the other lacks):
    # the dialer sent the lost envelope and times the responder; the responder
    # still waits for that move and times the initiator.
    clock = (ResumeClock(left_ms=251_500, away_ms=12_250), ResumeClock(left_ms=187_000))
    played = _play(
        tag="v2/clock/",
        deck="v2",
        ruleset=gen.PIPELINED_RULESET,
        choose=gen._pipelined_choice,
        cut=_v2_cut,
        clock=clock,
    )
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in played["identities"]]
    full = [bytes.fromhex(h) for h in played["transcript"]]
    dialer = decode_envelope(bytes.fromhex(played["resume_messages"][0]["hex"]))

    def bad(name: str, **payload: Any) -> dict[str, Any]:
        fields = {"nonce": bytes.fromhex("2e" * 16), "echo": b"", "left": 1000, "away": 0}
        fields.update(payload)
        for key in [k for k, v in fields.items() if v is _ABSENT]:
            del fields[key]
        raw = _signed(keys[0], 0, full[: dialer.seq], type="resume", seq=dialer.seq, payload=fields)
        return {"name": name, "hex": raw}

    return {
        "schema": "schemas/resume_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": "The cut of resume_v2.json (the initiator's v2action that opens "
        "the pre-dealt hand is lost) with other fixed keys and secrets, both hellos "
        "announcing the clock in resume (feature bit 4, wire.md sections 11.1, 13.1): "
        "each resume payload is {nonce, echo, left, away}. 'clock' holds what each "
        "side's clock said at the drop: the dialer (player 0) timed the responder, "
        "which lacks the lost move, and the responder timed the initiator, whose move "
        "it has not received; the responder's left (nil when a side times nobody) is "
        "moot for the initiator, which holds more envelopes (its resent move starts a "
        "new turn), while the initiator's left is the time the responder has for its "
        "move at the initiator's have. 'resumed' is what each side's session reports "
        "(time_left_ms: the peer's left when it holds; null otherwise). 'refused': "
        "dialer's resumes, signed by player 0, that the responder must refuse as "
        "malformed (the connection only, the game goes on).",
        "clock": [{"left": c.left_ms, "away": c.away_ms} for c in clock],
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


_ABSENT = object()


def _signed(key: SigningKey, sender: int, chain: list[bytes], **fields: Any) -> str:
    from truc_p2p.protocol._wire import sign_envelope

    game_id = decode_envelope(chain[-1]).game_id
    seq = fields.pop("seq", len(chain))
    prev = fields.pop("prev", hashlib.sha256(chain[seq - 1]).digest())
    raw = sign_envelope(key, game_id=game_id, seq=seq, prev=prev, sender=sender, **fields)
    return raw.hex()


def _equivocation(full: list[bytes], at: int, secret: bytes, key: SigningKey) -> bytes:
    """Another legal move of player 0 at chain position ``at`` (where it played
    ``full[at]``): its session restored from ``full[:at]`` chooses otherwise."""
    session = Session.restore(
        full[:at],
        identity=key,
        role=Player.P0,
        secret=secret,
    )
    while not isinstance(event := session.next_event(), YourTurn):
        assert event is not NEED_DATA and event is not CLOSED
    played = decode_envelope(full[at]).payload
    other = next(a for a in session.game.legal_actions() if str(a.kind.value) != played["act"])
    (raw,) = split_frames(session.send(other))
    return raw


def evidence_vector() -> dict[str, Any]:
    """evidence_v1.json: resumes kept as evidence (wire.md 13.8), judged against the
    chain the accuser held when it signed its ``abort`` ``cheat``."""
    gen = _generator()
    base = resume_vector()
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in base["identities"]]
    full = [bytes.fromhex(h) for h in base["transcript"]]
    senders = [decode_envelope(raw).sender for raw in full]
    held = 14  # what player 0 (the dialer) held when it judged
    chain = full[:held]
    own = max(p for p in range(held) if senders[p] == 1)  # player 1's last, before held
    nonce = bytes.fromhex("0e" * 16)

    def abort(code: str, upon: list[bytes] = chain) -> str:
        payload = {"reason": "cheat", "detail": f"{code}: the peer's resume contradicts the chain"}
        return _signed(keys[0], 0, upon, type="abort", payload=payload)

    def resume(
        have: int,
        *,
        echo: bytes,
        prev: bytes | None = None,
        upon: list[bytes] = chain,
        clock: dict[str, Any] | None = None,
        key: SigningKey | None = None,
        sender: int = 1,
    ) -> str:
        extra = {} if prev is None else {"prev": prev}
        payload = {"nonce": bytes.fromhex("1f" * 16), "echo": echo, **(clock or {})}
        signer = keys[1] if key is None else key
        return _signed(signer, sender, upon, type="resume", seq=have, payload=payload, **extra)

    another = hashlib.sha256(b"another chain").digest()
    # Another game between the same two keys (a rematch): the same script, other secrets.
    rematch = _play(
        tag="",
        secrets_tag="rematch/",
        deck="v1",
        ruleset=gen.SCRIPT_RULESET,
        choose=gen._script_choice,
        cut=_v1_cut,
    )
    assert rematch["identities"] == base["identities"]
    assert rematch["game_id"] != base["game_id"]
    # Player 0 played `accept` at 9 (what player 1 holds and its answer names); its
    # transcript shows another legal move there, then its abort.
    at = 9  # player 0's accept of the raise, answered by player 1's play
    assert senders[at] == 0 and decode_envelope(full[at]).payload == {"act": "accept"}
    secret0 = bytes.fromhex(base["secrets"][0])
    claimed = [*full[:at], _equivocation(full, at, secret0, keys[0])]
    honest_answer = base["resume_messages"][1]["hex"]
    answer_have = decode_envelope(bytes.fromhex(honest_answer)).seq
    bye = _signed(keys[1], 1, chain, type="bye", seq=own, prev=another, payload={})
    refuse = refusal(keys[1], "unknown-game")[4:].hex()
    return {
        "schema": "schemas/evidence_v1.schema.json",
        "description": "Evidence files of wire.md section 13.8, over the game of "
        "resume_v1.json (its keys). In each case 'transcript' is the first 'held' "
        "envelopes of that game followed by the case's 'abort' (player 0's abort cheat, "
        "signed at seq = held), or the whole finished game when 'abort' is null; "
        "'evidence' is the evidence file's envelopes. 'finding' is what a verifier "
        "proves (the player, its claim, the position it contradicts), or null when the "
        "evidence proves nothing ('why'). A resume is judged against the chain before "
        "the abort that cites it, never against later envelopes; a claim to lack one's "
        "own message convicts only in an answer (echo = the accuser's nonce).",
        "held": held,
        "nonce": nonce.hex(),
        "cases": [
            {
                "name": "answer-lacks-its-own",
                "abort": abort("bad-sequence"),
                "evidence": [resume(own, echo=nonce)],
                "finding": {"player": 1, "code": "bad-sequence", "message_no": own},
            },
            {
                "name": "another-prev",
                "abort": abort("broken-chain"),
                "evidence": [resume(own, echo=b"", prev=another)],
                "finding": {"player": 1, "code": "broken-chain", "message_no": own - 1},
            },
            {
                "name": "dialer-lacks-its-own",
                "abort": abort("bad-sequence"),
                "evidence": [resume(own, echo=b"")],
                "finding": None,
                "why": "may be older",
            },
            {
                "name": "honest-resume-against-the-finished-game",
                "abort": None,
                "evidence": [base["resume_messages"][1]["hex"]],
                "finding": None,
                "why": "does not end with",
            },
            {
                "name": "abort-cites-another-claim",
                "abort": abort("broken-chain"),
                "evidence": [resume(own, echo=nonce)],
                "finding": None,
                "why": "does not cite",
            },
            {
                "name": "another-games-resume",
                "abort": abort("broken-chain"),
                "evidence": [rematch["resume_messages"][1]["hex"]],
                "finding": None,
                "why": "names another game",
            },
            {
                "name": "equivocated-chain",
                "abort": None,
                "transcript": [raw.hex() for raw in claimed] + [abort("broken-chain", claimed)],
                "evidence": [resume(at + 1, echo=nonce, upon=full[: at + 1])],
                "finding": {"player": 1, "code": "broken-chain", "message_no": at},
            },
            {
                "name": "old-answer",
                "abort": abort("bad-sequence"),
                "evidence": [honest_answer],
                "finding": {
                    "player": 1,
                    "code": "bad-sequence",
                    "message_no": next(p for p in range(answer_have, held) if senders[p] == 1),
                },
            },
            {
                "name": "bye-is-not-evidence",
                "abort": abort("broken-chain"),
                "evidence": [bye],
                "finding": None,
                "why": "is not a resume",
            },
            {
                "name": "refuse-is-not-evidence",
                "abort": abort("broken-chain"),
                "evidence": [refuse],
                "finding": None,
                "why": "is not a resume",
            },
            # §13.1 step 2's faults of the resume itself, kept anyway: its payload is
            # not judged (a bad clock still binds its signer), its key and seat are.
            {
                "name": "bad-clock-another-prev",
                "abort": abort("broken-chain"),
                "evidence": [resume(own, echo=b"", prev=another, clock={"left": -1, "away": 1.5})],
                "finding": {"player": 1, "code": "broken-chain", "message_no": own - 1},
            },
            {
                "name": "foreign-key-resume",
                "abort": abort("broken-chain"),
                "evidence": [
                    resume(own, echo=b"", prev=another, key=SigningKey.from_bytes(nonce * 2))
                ],
                "finding": None,
                "why": "is not signed by player 1",
            },
            {
                "name": "wrong-seat-resume",
                "abort": abort("broken-chain"),
                "evidence": [resume(own, echo=b"", prev=another, sender=0)],
                "finding": None,
                "why": "is not signed by player 0",
            },
        ],
        "verdicts_description": "Each case's verdict (wire.md 13.8): 'proof' (the "
        "accused's own signatures contradict each other), 'word' (a finding that is "
        "only the accuser's word, never a proof: verify labels it 'the other player's "
        "word' and gives it weight 'word' in its JSON) or 'nothing' (the evidence "
        "proves nothing, 'why'). A case with its own 'transcript' (hex envelopes, "
        "ending with the accuser's abort) is judged against it instead of 'held' and "
        "'abort': in 'equivocated-chain' player 0 played 'accept' at 'message_no' (the "
        "envelope of resume_v1.json, which player 1's answer names) and its transcript "
        "shows another legal move there; 'another-games-resume' files player 1's "
        "honest answer of another game between the same keys (other secrets); "
        "'bad-clock-another-prev' a resume with clock fields a live listener refuses "
        "(left -1, away 1.5: its payload is not judged, its chain is), "
        "'foreign-key-resume' one signed by a key of neither hello, 'wrong-seat-resume' "
        "player 1's signature under sender 0. A replayed resume is 'old-answer'; a "
        "replayed nonce, like every other refusal of §13.1 step 4, is visible live only.",
        "verdicts": {
            "answer-lacks-its-own": "word",
            "another-prev": "proof",
            "dialer-lacks-its-own": "nothing",
            "honest-resume-against-the-finished-game": "nothing",
            "abort-cites-another-claim": "nothing",
            "another-games-resume": "nothing",
            "equivocated-chain": "word",
            "old-answer": "word",
            "bye-is-not-evidence": "nothing",
            "refuse-is-not-evidence": "nothing",
            "bad-clock-another-prev": "proof",
            "foreign-key-resume": "nothing",
            "wrong-seat-resume": "nothing",
        },
    }


VECTOR_EVIDENCE = HERE / "vectors" / "evidence_v1.json"

VECTOR_CLOCK = HERE / "vectors" / "resume_clock_v1.json"

VECTORS: dict[Path, Callable[[], dict[str, Any]]] = {
    VECTOR: resume_vector,
    VECTOR_V2: resume_vector_v2,
    VECTOR_CLOCK: resume_clock_vector,
    VECTOR_EVIDENCE: evidence_vector,
}


def main(argv: list[str]) -> int:
    stale = []
    for path, make in VECTORS.items():
        text = json.dumps(make(), indent=1) + "\n"
        old = path.read_text() if path.exists() else ""
        if text == old:
            continue
        stale.append(path)
        if "--check" not in argv:
            path.write_text(text)
    if "--check" in argv:
        for path in stale:
            print(f"out of date: {path}")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
