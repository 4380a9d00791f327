"""Helpers for the evidence tests (wire.md 13.8): honest resumes taken from real
sessions, an accuser's signed ``abort`` ``cheat``, and a duel between an honest
player and an adversary that keeps every message it ever saw.

Everything runs on :class:`helpers.protocol.Pair` (real keys, real signatures, deck
v1 for speed); two pairs with one ``tag`` share both identity keys, so pairs with
other secrets are other games (a rematch, another game of a match) between the
same two players.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from helpers.protocol import P0, P1, Pair, digest, split
from truc_p2p.bots import Bot
from truc_p2p.evidence import check_evidence
from truc_p2p.protocol import (
    CheatDetectedError,
    IllegalMoveError,
    LocalProtocolError,
    MessageType,
    RemoteProtocolError,
    Resumed,
    ResumeLieError,
    ResumeRefusedError,
    Session,
    Stage,
    decode_envelope,
    frame,
    refusal,
    verify_transcript,
)
from truc_p2p.protocol._values import game_id_of
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

__all__ = [
    "CODES",
    "RESUME_MOVES",
    "TALLY",
    "TAMPER_MOVES",
    "Duel",
    "Tally",
    "accusation",
    "chain_of",
    "game",
    "honest_cut",
    "other_games",
    "resign_tail",
]

#: A short game: the property test and the benchmark play many.
RULESET = Ruleset(target=3)


def game(tag: str, number: int = 0, **options: Any) -> Pair:
    """Game ``number`` between the two players of ``tag`` (same keys, own secrets)."""
    pair_secrets = (digest(f"evidence/{tag}/{number}/0"), digest(f"evidence/{tag}/{number}/1"))
    options.setdefault("ruleset", RULESET)
    return Pair(tag=f"evidence/{tag}", secrets=pair_secrets, **options)


def chain_of(records: list[bytes]) -> list[bytes]:
    """The chain envelopes of a transcript (an ``abort`` is recorded off the chain)."""
    return [raw for raw in records if decode_envelope(raw).type != MessageType.ABORT]


def accusation(
    pair: Pair,
    accuser: Player,
    chain: list[bytes],
    code: str,
    *,
    seq: int | None = None,
) -> bytes:
    """The accuser's signed ``abort`` ``cheat`` citing ``code``, at ``seq`` (default:
    after the whole ``chain``), chained to the envelope before it."""
    at = len(chain) if seq is None else seq
    return sign_envelope(
        pair.keys[accuser],
        game_id=game_id_of(chain[0], chain[1]),
        seq=at,
        prev=envelope_hash(chain[at - 1]) if at else GENESIS,
        sender=int(accuser),
        type="abort",
        payload={"reason": "cheat", "detail": f"{code}: the peer's resume contradicts the chain"},
    )


def resign_tail(
    pair: Pair,
    signer: Player,
    chain: list[bytes],
    start: int,
    change: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[bytes]:
    """``chain`` with its envelopes from ``start`` on (all ``signer``'s)
    replaced by others of that signer, each payload passed through ``change``, re-chained:
    what an equivocating player writes in its own transcript."""
    out = list(chain[:start])
    for raw in chain[start:]:
        env = decode_envelope(raw)
        out.append(
            sign_envelope(
                pair.keys[signer],
                game_id=env.game_id,
                seq=len(out),
                prev=envelope_hash(out[-1]),
                sender=env.sender,
                type=str(env.type),
                payload=change(dict(env.payload)),
            )
        )
    return out


def honest_cut(pair: Pair) -> tuple[bytes, bytes]:
    """The link drops (what is in flight is lost) and both sides resume honestly: the
    joiner (player 0) dials.  Returns the joiner's ``resume`` and the host's answer;
    the answer and what the host resends are queued in flight."""
    for p in (P0, P1):
        pair.inflight[p].clear()
    dialer, listener = pair.sessions[P0], pair.sessions[P1]
    dialer.reconnect(secrets.token_bytes(16), dialer=True)
    (dial,) = split(dialer.data_to_send())
    listener.reconnect(secrets.token_bytes(16), dialer=False)
    listener.receive_data(frame(dial))
    pair.pull(P1)
    answer = pair.inflight[P1][0]
    assert decode_envelope(answer).type == MessageType.RESUME
    assert any(isinstance(e, Resumed) for e in pair.events[P1])
    return dial, answer


# -- the duel: an honest player against an adversary (the property test) -------------

#: What the adversary may do in place of an honest ``resume`` when the link drops.
RESUME_MOVES = ("honest", "lie-prev", "lie-have", "replay", "none")
#: What it may put in place of its next chain envelope in flight.
TAMPER_MOVES = ("equivocate", "replay")
#: The ``detail`` codes its ``abort`` ``cheat`` may cite.
CODES = ("broken-chain", "bad-sequence", "equivocation")


def _holds(records: list[bytes], count: int) -> bool:
    return len(records) >= count


@functools.cache
def other_games(tag: str, number: int, count: int = 2) -> tuple[bytes, ...]:
    """Every message of ``count`` other games between the players of ``tag`` (both
    sides' chain envelopes, both resumes of a reconnection in the middle, and the
    byes at the end): what an adversary that played them kept."""
    out: list[bytes] = []
    for other in range(number + 1, number + 1 + count):
        pair = game(tag, other)
        pair.run(when=functools.partial(_holds, pair.records[P1], 9))
        out.extend(honest_cut(pair))
        pair.finish()
        out.extend(pair.records[P0])
        out.extend(pair.records[P1])
        out.extend(split(pair.sessions[p].farewell())[0] for p in (P0, P1))
    return tuple(out)


#: Answers whose payload is the act alone: one may stand for another.
_BARE = ("accept", "refuse", "fold", "rest")


def _changed(payload: dict[str, Any], salt: int) -> dict[str, Any]:
    """Another payload of the same shape where one can be made (an equivocation)."""
    if set(payload) == {"act"} and payload["act"] in _BARE:
        others = [act for act in _BARE if act != payload["act"]]
        return {"act": others[salt % len(others)]}
    out = dict(payload)
    for key, value in out.items():
        changed = _other(value, salt)
        if changed is not None:
            out[key] = changed
            return out
    out["x"] = salt  # nothing to change in place: a malformed one, then
    return out


def _other(value: Any, salt: int) -> Any:
    """``value`` changed in its first byte string or integer (bits kept in range)."""
    if isinstance(value, bytes) and value:
        return bytes([value[0] ^ (1 + salt % 255)]) + value[1:]
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return 1 - value if value in (0, 1) else value + 1
    if isinstance(value, list):
        for i, item in enumerate(value):
            changed = _other(item, salt)
            if changed is not None:
                return [*value[:i], changed, *value[i + 1 :]]
    return None


@dataclass
class Tally:
    """What the property test and the benchmark count."""

    examples: int = 0
    moves: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    #: why evidence proved nothing, by message (numbers left out)
    why: Counter[str] = field(default_factory=Counter)

    def line(self) -> str:
        moves = sum(self.moves.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.moves.items()))
        verdicts = ", ".join(f"{k} {n}" for k, n in sorted(self.verdicts.items()))
        return f"{self.examples} examples, {moves} adversary moves ({kinds}); verdicts: {verdicts}"


TALLY = Tally()


class Duel:
    """One game between an honest player (real session, random bot, the game loop's
    reactions to errors) and an adversary: a real session for the moves, plus every
    message it ever saw (of this game and of other games of the same keys) and its
    own signing key, to lie, replay, equivocate and file evidence with.

    :meth:`file` is the property: whatever transcript and evidence file the adversary
    writes, ``verify`` never holds the honest player responsible -- no finding that
    is a proof against it, and no violation whose culprit it is.
    """

    def __init__(self, honest: Player, number: int, tag: str = "duel") -> None:
        self.honest, self.adversary = honest, honest.other
        self.pair = pair = game(tag, number)
        self.seen: list[bytes] = list(other_games(tag, number))
        self.h_out = 0  # how many of the honest side's queued envelopes were seen
        if honest is P1:  # a host signs refusals for connections it does not serve
            self.seen.append(refusal(pair.keys[P1], "unknown-game")[4:])
        bot = pair.bots[honest]
        assert bot is not None
        self.bot: Bot = bot
        self.h_done = False  # the honest side ended the game (its abort is sent)
        self.a_dead = False  # the adversary's own session is broken: it only files
        original = pair.collect

        def collect(p: Player, data: bytes | None = None) -> list[bytes]:
            out = original(p, data)
            if p is honest:
                self.seen.extend(out)
            return out

        pair.collect = collect  # type: ignore[method-assign]

    @property
    def h(self) -> Session:
        return self.pair.sessions[self.honest]

    @property
    def a(self) -> Session:
        return self.pair.sessions[self.adversary]

    def _honest_error(self, exc: RemoteProtocolError) -> None:
        """What the honest game loop does with a peer's error: a new connection that
        fails is condemned alone; anything else ends the game with a signed abort."""
        if isinstance(exc, ResumeRefusedError):
            return
        cheat = isinstance(exc, ResumeLieError | CheatDetectedError | IllegalMoveError)
        data = self.h.abort("cheat" if cheat else "error", f"{exc.code}: {exc}")
        self.seen.extend(split(data))
        self.h_done = True

    def _pull(self, p: Player) -> bool:
        try:
            return self.pair.pull(p)
        except RemoteProtocolError as exc:
            if p is self.honest:
                self._honest_error(exc)
            else:
                self.a_dead = True
            return True
        except LocalProtocolError:
            if p is self.adversary:
                self.a_dead = True
            return False

    def _to_honest(self, raw: bytes) -> None:
        self.h.receive_data(frame(raw))
        self._pull(self.honest)

    # -- the adversary's moves ----------------------------------------------------------

    def play(self, steps: int, *, think: bool = False) -> None:
        """Let the game run: up to ``steps`` deliveries, each side's bot moving; an
        honest side that ``think``s leaves its turn pending (a person deciding), so a
        drop can come while the adversary's last move is the last message it holds."""
        TALLY.moves["think" if think else "play"] += 1
        self.pair.bots[self.honest] = None if think else self.bot
        turn = self.pair.waiting[self.honest]
        if not think and turn is not None and not self.h_done:
            try:
                self.pair.act(self.honest, self.bot.choose(self.h.game))
            except LocalProtocolError:
                self.pair.waiting[self.honest] = None  # the turn is gone (the game ended)
        for _ in range(steps):
            progressed = self._pull(P0)
            progressed = self._pull(P1) or progressed
            nxt = self.pair.peek()
            if nxt is None:
                if not progressed:
                    return
                continue
            sender, raw = nxt
            self.pair.inflight[sender].popleft()
            if sender is self.adversary and self.a_dead:
                continue
            if sender is self.honest:
                if not self.a_dead:
                    self.a.receive_data(frame(raw))
            else:
                self._to_honest(raw)

    def cut(self, move: str, pick: int) -> None:
        """The link drops (what is in flight is lost) and the sides reconnect; the
        adversary resumes honestly, lies in its resume, replays a message it saw in
        its place, or sends nothing."""
        TALLY.moves[f"cut-{move}"] += 1
        for p in (P0, P1):
            self.pair.inflight[p].clear()
        if self.h_done or not self.h.resumable:
            return
        honest_dials = self.honest is P0
        self.h.reconnect(secrets.token_bytes(16), dialer=honest_dials)
        h_dial = split(self.h.data_to_send())
        self.seen.extend(h_dial)
        echo = decode_envelope(h_dial[0]).payload["nonce"] if honest_dials else b""
        if move == "honest" and not self.a_dead and self.a.resumable:
            self.a.reconnect(secrets.token_bytes(16), dialer=not honest_dials)
            if honest_dials:
                self.a.receive_data(frame(h_dial[0]))
                self._pull(self.adversary)
            else:
                (a_dial,) = split(self.a.data_to_send())
                self._to_honest(a_dial)
            return
        if move == "none":
            return
        if move == "replay":
            self._to_honest(self.seen[pick % len(self.seen)])
            return
        chain = chain_of(self.pair.records[self.honest])
        have = pick % (len(chain) + 1)
        prev = (
            hashlib.sha256(b"another chain %d" % pick).digest()
            if move == "lie-prev"
            else envelope_hash(chain[have - 1])
            if have
            else GENESIS
        )
        lie = sign_envelope(
            self.pair.keys[self.adversary],
            game_id=self.h.game_id,
            seq=have,
            prev=prev,
            sender=int(self.adversary),
            type="resume",
            payload={"nonce": secrets.token_bytes(16), "echo": echo},
        )
        self._to_honest(lie)

    def tamper(self, move: str, pick: int) -> None:
        """The adversary's next envelope in flight is replaced: by another of its own
        signed at that position (it equivocates), or by a message it saw."""
        TALLY.moves[f"tamper-{move}"] += 1
        queue = self.pair.inflight[self.adversary]
        if not queue and not self.a_dead:
            self._pull(self.adversary)  # whatever it has to send now
        if not queue or self.h_done:
            return
        raw = queue.popleft()
        if move == "replay":
            self._to_honest(self.seen[pick % len(self.seen)])
            return
        env = decode_envelope(raw)
        other = sign_envelope(
            self.pair.keys[self.adversary],
            game_id=env.game_id,
            seq=env.seq,
            prev=env.prev,
            sender=env.sender,
            type=str(env.type),
            payload=_changed(dict(env.payload), pick),
        )
        self._to_honest(other)

    def farewell(self) -> None:
        """A finished honest side says bye: one more signed message seen."""
        TALLY.moves["bye"] += 1
        if self.h.stage is Stage.DONE:
            self.seen.extend(split(self.h.farewell()))

    def file(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        """The adversary writes a transcript ending with its ``abort`` ``cheat`` and
        an evidence file of messages it saw; ``verify`` must not blame the honest side."""
        TALLY.moves["file"] += 1
        base = chain_of(self.pair.records[self.adversary])
        if len(base) < 2:
            return
        TALLY.verdicts["filed"] += 1
        length = draw(st.one_of(st.just(len(base)), st.integers(2, len(base))))
        chain = base[:length]
        signed_by_honest = [
            i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(self.honest)
        ]
        last_honest = max(signed_by_honest, default=-1)
        if last_honest < length - 1 and draw(st.booleans()):  # rewrite its own tail
            start = draw(st.integers(max(last_honest + 1, 2), length - 1)) if length > 2 else 2
            salt = draw(st.integers(0, 1000))
            chain = resign_tail(
                self.pair, self.adversary, chain, start, lambda p: _changed(p, salt)
            )
        at = len(chain)
        senders = [decode_envelope(raw).sender for raw in chain]
        crossed = [  # an abort may chain to an earlier point if only the peer's follow
            s
            for s in range(2, len(chain))
            if all(sender == int(self.honest) for sender in senders[s:])
        ]
        if crossed and draw(st.booleans()):
            at = draw(st.sampled_from(crossed))
        abort = accusation(self.pair, self.adversary, chain, draw(st.sampled_from(CODES)), seq=at)
        transcript = [*chain, abort]
        forged = sign_envelope(  # and a resume of its own, to be judged too
            self.pair.keys[self.adversary],
            game_id=game_id_of(chain[0], chain[1]),
            seq=draw(st.integers(0, len(chain))),
            prev=hashlib.sha256(b"its own lie").digest(),
            sender=int(self.adversary),
            type="resume",
            payload={"nonce": bytes(16), "echo": b""},
        )
        resumes = [raw for raw in self.seen if decode_envelope(raw).type == MessageType.RESUME]
        ours = [raw for raw in resumes if decode_envelope(raw).game_id == self.h.game_id]
        pools = [pool for pool in (ours, resumes, self.seen, [forged]) if pool]
        evidence = []
        for _ in range(draw(st.integers(1, 3))):
            pool = draw(st.sampled_from(pools))
            evidence.append(pool[-1 - draw(st.integers(0, len(pool) - 1))])  # recent first
        for one in [*([e] for e in evidence), evidence]:
            try:
                findings = check_evidence(transcript, one)
            except ValueError as exc:
                TALLY.verdicts["nothing"] += 1
                TALLY.why[re.sub(r"\d+", "N", str(exc))] += 1
                continue
            for finding in findings:
                against = "honest" if finding.player == int(self.honest) else "adversary"
                TALLY.verdicts[f"{finding.weight}-against-{against}"] += 1
                TALLY.verdicts[f"{finding.weight}-{finding.code}-against-{against}"] += 1
                assert not (finding.proof and against == "honest"), (finding, transcript, one)
        report = verify_transcript(transcript)
        TALLY.verdicts[f"transcript-{report.status}"] += 1
        assert report.culprit != int(self.honest), report.summary()
