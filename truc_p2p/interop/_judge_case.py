"""Judging one played interop case from both sides' transcripts (each checked by
:func:`~truc_p2p.protocol.verify_transcript` and against the other), the
runner's outcomes and the case's own criteria (``protocol_spec/interop.md``).
"""

from __future__ import annotations

import fnmatch
import signal
from dataclasses import dataclass
from pathlib import Path

from truc_p2p._text import printable
from truc_p2p.interop._cases import Case
from truc_p2p.interop._peer_files import STDERR_TAIL, peer_transcripts, read_tail
from truc_p2p.interop._play_case import NO_INVITE, Played
from truc_p2p.net import (
    End,
)
from truc_p2p.protocol import (
    MessageType,
    VerifyReport,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Player
from truc_p2p.transcript import verify_transcript_file

__all__ = ["NO_MAP", "ErrorMap", "judge", "judge_adversarial"]


@dataclass(frozen=True)
class _Transcript:
    path: Path
    envelopes: list[bytes]
    report: VerifyReport


def _read(path: Path) -> _Transcript | None:
    try:
        scan, report = verify_transcript_file(path, torn=False)
    except (OSError, ValueError):
        return None
    return _Transcript(path, scan.envelopes, report)


def _peer_transcripts(
    folder: Path, expected: set[str], runner_files: list[Path]
) -> tuple[dict[str, _Transcript], str]:
    """The peer's transcripts of the ``expected`` games, read within the bounds of
    :mod:`._peer_files` and verified; and ``" (refused: …)"`` naming the files
    refused, or nothing."""
    files, notes = peer_transcripts(folder, expected, runner_files)
    found = {
        game_id: _Transcript(f.path, f.envelopes, verify_transcript(f.envelopes))
        for game_id, f in files.items()
    }
    refused = f" (refused: {'; '.join(notes[:3])})" if notes else ""
    return found, refused


#: At most this many characters of the peer's last stderr line go into a detail.
LAST_WORDS = 160


def _exit(rc: int | None) -> str:
    """The peer's exit as a detail says it: ``status 3``, ``killed by SIGKILL``."""
    if rc is not None and rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"status {rc}"


def _last_words(peer_dir: Path) -> str:
    """``; its stderr ends: "…"`` with the last line the peer wrote to its stderr
    (``peer.stderr`` beside ``peer_dir``), or nothing when it wrote none."""
    try:  # the peer may have written gigabytes, or put a pipe or a link in its place
        tail = read_tail(peer_dir.parent / "peer.stderr", STDERR_TAIL)
    except OSError:
        return ""
    text = tail.decode("utf-8", "replace")
    # The peer's words reach the runner's table and terminal: printable text only.
    lines = [printable(line).strip() for line in text.splitlines() if printable(line).strip()]
    if not lines:
        return ""
    last = lines[-1]
    if len(last) > LAST_WORDS:
        last = last[: LAST_WORDS - 1] + "…"
    return f'; its stderr ends: "{last}"'


def _why(t: _Transcript) -> str:
    r = t.report
    return r.error or r.ended_by or r.status


def _first_difference(a: list[bytes], b: list[bytes]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def judge(case: Case, role: str, played: Played, peer_dir: Path) -> tuple[str, str]:
    """``(result, detail)`` of one played case."""
    if played.rc == 127:
        return "unsupported", "the peer does not support this case (exit 127)"
    stats = played.proxy.stats if played.proxy is not None else None
    seen = (
        f" ({stats.connections} connections, {stats.from_peer} frames from the peer)"
        if stats is not None
        else ""
    )
    if played.error is not None:
        if played.error != NO_INVITE:
            return "fail", played.error
        # The peer exited before it printed an invite: say how, and its last words.
        return "fail", f"{played.error} (peer exit: {_exit(played.rc)}){_last_words(peer_dir)}"
    peer_seat = Player.P1 if role == "host" else Player.P0
    runner_seat = peer_seat.other
    mine_all = [_read(o.transcript) if o.transcript is not None else None for o in played.outcomes]
    if case.link == "forge":
        expected = {decode_envelope(f).game_id.hex() for f in played.forged}
    else:
        expected = {m.report.game_id for m in mine_all if m is not None and m.report.game_id}
    runner_files = [o.transcript for o in played.outcomes if o.transcript is not None]
    peers, refused = _peer_transcripts(peer_dir, expected, runner_files)
    if case.link == "forge" and not played.hung:
        return _judge_cheat(played, peers, peer_seat, runner_seat, refused)
    if played.hung:
        return "fail", f"the case did not end within its time limit{seen}"
    if played.runner_stuck:
        said = _last_words(peer_dir)
        return "fail", f"the peer exited ({_exit(played.rc)}) before the game ended{seen}{said}"
    outcomes = played.outcomes
    if not outcomes:
        said = _last_words(peer_dir)
        return "fail", f"no game was played (peer exit: {_exit(played.rc)}){seen}{said}"
    games: list[tuple[_Transcript, _Transcript]] = []
    for number, outcome in enumerate(outcomes, 1):
        where = f"game {number}" if len(outcomes) > 1 else "the game"
        mine = mine_all[number - 1]
        if mine is None or mine.report.game_id is None:
            return "fail", f"{where} did not start: {outcome.message}"
        theirs = peers.get(mine.report.game_id)
        if mine.report.status != "complete":
            return "fail", f"{where} did not finish: {outcome.message}"
        if theirs is None:
            return "fail", f"the peer wrote no transcript of {where} in TRUC_OUT{refused}"
        if theirs.report.status != "complete":
            return "fail", f"the peer's transcript of {where} does not verify: {_why(theirs)}"
        diff = _first_difference(mine.envelopes, theirs.envelopes)
        if diff is not None:
            return "fail", f"the two transcripts of {where} differ from message {diff}"
        games.append((mine, theirs))
    reason = _criteria(case, played, games, peer_seat, runner_seat)
    if reason is not None:
        return "fail", reason
    if played.peer_stuck:
        return "fail", "the games verify but the peer did not exit after them"
    if played.rc != 0:
        said = _last_words(peer_dir)
        return "fail", f"the games verify but the peer exited ({_exit(played.rc)}){said}"
    return "pass", _summary(played, games)


def _criteria(
    case: Case,
    played: Played,
    games: list[tuple[_Transcript, _Transcript]],
    peer_seat: Player,
    runner_seat: Player,
) -> str | None:
    outcomes = played.outcomes
    stats = played.proxy.stats if played.proxy is not None else None
    last = games[-1][0].report
    if case.games == "one" and len(games) != 1:
        return f"{len(games)} games were played, not one"
    if case.games == "rematch" and len(games) != 2:
        return f"{len(games)} game(s) of the rematch were played, not 2"
    if case.games == "match3":
        wins = [g[0].report.winner for g in games]
        if max(wins.count(0), wins.count(1)) < 2:
            return f"the match ended after {len(games)} games without a winner of two"
    if case.peer_wants is not None:
        kind = case.peer_wants
        if not any(p == int(peer_seat) and a.kind is kind for p, a in last.moves):
            return f"the peer never played {kind.value!r}"
    if case.peer_resigns is not None and (
        outcomes[0].end is not End.OPPONENT_RESIGNED or last.resigned_by != int(peer_seat)
    ):
        return f"the peer did not resign: {outcomes[0].message}"
    if case.runner_resigns is not None and last.resigned_by != int(runner_seat):
        return f"the runner's resignation is not in the transcripts: {outcomes[0].message}"
    if case.link is not None and played.link_conn is None:
        return "the runner sent too few messages to cut or damage (the game ended first)"
    moved_on = stats is not None and stats.connections > (played.link_conn or 0)
    if case.link == "cut" and not moved_on:
        return "the game finished without a new connection after the cut"
    if case.link == "damage" and not moved_on:
        return "the peer did not drop the link that carried a damaged frame"
    if case.runner_thinks and stats is not None:
        thought = next((s.thought for s in played.scripts if s.thought), None)
        if thought is None:
            return "the runner never thought (the game ended first)"
        start, end = thought
        again = [t for t in stats.opened if t >= start]
        if again:
            return f"the link was lost during the runner's think ({len(again)} new connections)"
        beats = [t for t in stats.peer_heartbeats if start <= t <= end]
        if not beats:
            return f"the peer sent no heartbeat during the runner's {end - start:.0f} s think"
    return None


def _summary(played: Played, games: list[tuple[_Transcript, _Transcript]]) -> str:
    stats = played.proxy.stats if played.proxy is not None else None
    messages = sum(len(g[0].envelopes) for g in games)
    text = f"{len(games)} game{'s' if len(games) > 1 else ''}, {messages} messages, both verify"
    if stats is not None and stats.connections > len(games):
        text += f", {stats.connections} connections"
    return text


def _judge_cheat(
    played: Played,
    peers: dict[str, _Transcript],
    peer_seat: Player,
    runner_seat: Player,
    refused: str,
) -> tuple[str, str]:
    if not played.forged:
        return "fail", "the runner sent no shuffle proof to forge"
    kept = [f for f in played.forged if decode_envelope(f).game_id.hex() in peers]
    if not kept:
        return "fail", f"the peer wrote no transcript of the game in TRUC_OUT{refused}"
    forged = kept[-1]
    theirs = peers[decode_envelope(forged).game_id.hex()]
    report = theirs.report
    if report.status == "complete":
        return "fail", "the peer accepted the forged proof and finished the game"
    if forged not in theirs.envelopes:
        return "fail", "the peer's transcript does not keep the forged message as evidence"
    if report.status != "violation" or report.culprit != int(runner_seat):
        return "fail", f"the peer's transcript does not prove the runner cheated: {_why(theirs)}"
    if report.aborted_by != int(peer_seat) or report.abort_reason != "cheat":
        return "fail", "the peer did not end the game with a signed abort 'cheat'"
    if played.rc != 0:
        return "fail", f"the peer ended the game as a cheat but exited ({_exit(played.rc)})"
    return "pass", f"abort 'cheat' at message {len(theirs.envelopes) - 1}: {report.error_code}"


@dataclass(frozen=True)
class ErrorMap:
    """An implementation's own names for the spec's error codes, and the cases it
    does not support (``--error-map FILE``, interop.md §8.3): ``codes`` maps a code
    of wire.md §8 to the words the implementation's ``detail`` begins with."""

    codes: dict[str, tuple[str, ...]]
    unsupported: tuple[str, ...] = ()

    def accepts(self, expected: str, said: str) -> bool:
        return said == expected or said in self.codes.get(expected, ())

    def marks(self, case: str) -> bool:
        return any(fnmatch.fnmatchcase(case, pattern) for pattern in self.unsupported)


NO_MAP = ErrorMap({})


def _detail_code(payload: dict[str, object]) -> tuple[str, str]:
    """(the first word of an abort's ``detail``, the rest) — the error code it begins with."""
    detail = payload.get("detail")
    text = detail if isinstance(detail, str) else ""
    word, _, rest = text.partition(" ")
    return word.rstrip(":"), rest


def judge_adversarial(
    case: Case, role: str, played: Played, peer_dir: Path, errors: ErrorMap = NO_MAP
) -> tuple[str, str]:
    """``(result, detail)`` of an adversarial case (interop.md §8.2)."""
    m = case.adversary
    assert m is not None
    if played.rc == 127:
        return "unsupported", "the peer does not support this case (exit 127)"
    if played.error is not None:
        if played.error != NO_INVITE:
            return "fail", played.error
        # The peer exited before it printed an invite: say how, and its last words.
        return "fail", f"{played.error} (peer exit: {_exit(played.rc)}){_last_words(peer_dir)}"
    if played.target is None:
        if played.hung:
            return "fail", f"the runner never sent its {m.target.name} (the case timed out)"
        return "fail", f"the runner never sent its {m.target.name} (the game ended first)"
    runner_seat = 0 if role == "host" else 1
    expected = {g.hex() for g in played.game_ids}
    runner_files = [o.transcript for o in played.outcomes if o.transcript is not None]
    peers, _refused = _peer_transcripts(peer_dir, expected, runner_files)
    sent = set(played.sent)
    stats = played.proxy.stats if played.proxy is not None else None
    # the peer's transcript holding the misbehaviour, else the one of the runner's game
    theirs = next(
        (t for t in peers.values() if sent & set(t.envelopes)),
        next(iter(peers.values()), None),
    )
    last = None
    if theirs is not None and theirs.envelopes:
        last = decode_envelope(theirs.envelopes[-1])
    filed = last is not None and last.type == MessageType.ABORT and last.sender != runner_seat
    # the abort as it went over the link (a game that never started has no transcript)
    link = decode_envelope(played.peer_abort) if played.peer_abort is not None else None
    kept = theirs is not None and bool(sent & set(theirs.envelopes))
    want = m.expect
    if want.kind == "fallback":
        if not played.later_hellos:
            return "fail", "the peer did not dial again after the host turned early cards down"
        options = decode_envelope(played.later_hellos[0]).payload.get("options")
        if isinstance(options, dict) and "early" in options:
            return "fail", "the peer dialled again still proposing early cards"
        return "pass", "the peer dialled again without proposing early cards"
    if want.kind == "refuse":
        if link is not None or filed:
            shown = link or last
            said = _detail_code(shown.payload)[0] if shown is not None else "?"
            return (
                "fail",
                f"the peer ended the game (abort, {said!r}) instead of refusing the frame",
            )
        if kept:
            return "fail", "the peer recorded the refused frame in its transcript"
        conn = played.attack_conn
        if stats is None or conn is None:
            return "fail", "the runner's relay saw no connection"
        if played.peer_refused:
            how = "the peer's refuse"
        elif conn in stats.peer_closed:
            how = "closed by the peer"
        elif stats.connections > conn:
            how = "a later connection opened"
        elif played.hung:
            return "fail", "the peer neither closed the connection nor went on (timed out)"
        else:
            return "fail", "the peer did not close the connection that carried the frame"
        return "pass", f"refused: connection {conn}, {how}; no abort, nothing kept"
    abort = link or (last if filed else None)
    if abort is None:
        if played.hung:
            return "fail", "the peer did not end the game with an abort (timed out)"
        state = _why(theirs) if theirs is not None else "no transcript"
        return "fail", f"the peer sent no abort after the misbehaviour ({state})"
    reason = abort.payload.get("reason")
    code, _rest = _detail_code(abort.payload)
    if reason != want.reason:
        return "fail", f"the peer's abort says {reason!r}, not {want.reason!r} (detail {code!r})"
    if not errors.accepts(want.code, code):
        return "fail", f"the peer's abort detail begins {code!r}, not {want.code!r}"
    if theirs is None or not filed or last is None:
        return "pass", f"abort {reason!r} {code!r} on the link, no transcript of the game"
    envelopes = theirs.envelopes
    if kept and envelopes[-2] not in sent:
        return "fail", "the offending envelope is kept but not right before the abort"
    where = "kept before it" if kept else "in its place"
    return "pass", f"abort {reason!r} {code!r} at message {len(envelopes) - 1}, evidence {where}"
