"""``truc-p2p demo``: two bots play each other over a real loopback TCP connection.

Both peers run in this process, each with its own session, keys and
transcript, connected through ``127.0.0.1`` exactly as two machines would be
(``--in-memory`` pumps the bytes between the sessions directly instead).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import trio

from truc_p2p.bots import BOT_NAMES, Bot, make_bot
from truc_p2p.cli._common import (
    MAX_COUNT,
    UsageError,
    add_pipeline_arg,
    add_ruleset_args,
    check_out_dir,
    first_exception,
    pipeline_of,
    ruleset_from_args,
    use_ascii,
)
from truc_p2p.cli._loopback import loopback_game
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.crypto import SigningKey
from truc_p2p.i18n import _, ngettext
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    BotStrategy,
    Clocks,
    GameOutcome,
    NetEvent,
    PlayOptions,
    play_game,
)
from truc_p2p.protocol import (
    AnyEvent,
    CardsDealt,
    GameResult,
    GameStarted,
    Session,
    SessionEvent,
    SessionOptions,
)
from truc_p2p.rules import Event, Player, Ruleset
from truc_p2p.transcript import TranscriptWriteError, TranscriptWriter
from truc_p2p.ui import Tally, Voice, describe
from truc_p2p.verdict import reason_word

__all__ = ["DEMO_OUT", "add_ruleset_args", "register", "ruleset_from_args"]

#: Where the demo's bot-against-bot games go: not ``games/``, which ``truc-p2p games``
#: lists as the person's own history (issue 43).
DEMO_OUT = "demo-games"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help=_(COMMAND_HELP["demo"]),
        description=_(
            "Two bots play through two protocol sessions (real keys, real "
            "signatures, real mental-poker deck) connected by a real TCP connection on "
            "127.0.0.1, writing one transcript per player and game."
        ),
    )
    parser.add_argument("--games", type=int, default=1, help=_("games to play (default 1)"))
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help=_("make bots, keys and shuffles reproducible (demo only: never for real games)"),
    )
    parser.add_argument(
        "--out",
        default=DEMO_OUT,
        help=_(
            "directory for the bots' transcripts (default {dir}/: apart from your own "
            "games, which truc-p2p games lists)",
            dir=DEMO_OUT,
        ),
    )
    parser.add_argument(
        "--bots",
        nargs=2,
        default=["heuristic", "heuristic"],
        choices=BOT_NAMES,
        metavar="BOT",
        help=_("the two bots ({names}; default heuristic heuristic)", names=", ".join(BOT_NAMES)),
    )
    parser.add_argument("--quiet", action="store_true", help=_("print only the results"))
    parser.add_argument("--json", action="store_true", help=_("one JSON object per game"))
    parser.add_argument("--ascii", action="store_true", help=_("plain-ASCII card names"))
    parser.add_argument(
        "--in-memory",
        action="store_true",
        help=_("pass the bytes between the two sessions in memory instead of over TCP"),
    )
    add_ruleset_args(parser)
    add_pipeline_arg(parser)
    parser.set_defaults(func=_demo)


def _demo_secret(seed: int | None, game: int, label: str) -> bytes:
    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(f"truc-p2p demo/{seed}/{game}/{label}".encode()).digest()


@dataclass
class _Played:
    """What one demo game produced, whichever transport carried it."""

    results: dict[Player, GameResult | None]
    messages: int
    nbytes: int
    problem: str | None = None


async def _play_tcp(
    sessions: dict[Player, Session],
    bots: dict[Player, Bot],
    on_event: Callable[[Player, Event | SessionEvent | NetEvent], None],
) -> _Played:
    """Both sessions over a real TCP connection on 127.0.0.1 (P1 hosts, P0 joins)."""

    async def side(me: Player, stream: trio.abc.Stream) -> GameOutcome:
        return await play_game(
            stream,
            sessions[me],
            BotStrategy(bots[me]),
            PlayOptions(
                clocks=Clocks(turn_timeout=DEFAULT_BOT_TIMEOUT),
                expected_fingerprint=sessions[me.other].fingerprint if me is Player.P0 else None,
                on_event=lambda event: on_event(me, event),
            ),
        )

    joined, hosted = await loopback_game(partial(side, Player.P0), partial(side, Player.P1))
    assert hosted is not None  # awaited, never cancelled
    outcomes = {Player.P0: joined, Player.P1: hosted}
    first = outcomes[Player.P0]
    problems = [o.message for o in outcomes.values() if not o.valid]
    return _Played(  # first's counters: its transcript's messages and bytes
        results={p: o.result for p, o in outcomes.items()},
        messages=first.messages,
        nbytes=first.nbytes,
        problem="; ".join(problems) or None,
    )


def _play_memory(
    sessions: dict[Player, Session],
    bots: dict[Player, Bot],
    on_event: Callable[[Player, Event | SessionEvent | NetEvent], None],
) -> _Played:
    def hook(me: Player, event: AnyEvent) -> None:
        if isinstance(event, Event | SessionEvent):
            on_event(me, event)

    pair = run_pair(sessions, bots, on_event=hook)
    return _Played(results=pair.results, messages=pair.messages, nbytes=pair.nbytes)


def _recorder(
    writer: TranscriptWriter, errors: list[TranscriptWriteError]
) -> Callable[[bytes], None]:
    """``writer.append``, remembering a write error (the game loop turns it into an outcome)."""

    def record(envelope: bytes) -> None:
        try:
            writer.append(envelope)
        except TranscriptWriteError as exc:
            errors.append(exc)
            raise

    return record


def _open_writers(paths: list[Path]) -> list[TranscriptWriter]:
    """Both transcripts of a game, or none (the first is removed if the second fails)."""
    writers: list[TranscriptWriter] = []
    try:
        for path in paths:
            writers.append(TranscriptWriter(path, sync="never"))
    except TranscriptWriteError:
        for writer in writers:
            writer.close()
            writer.path.unlink(missing_ok=True)
        raise
    return writers


def _demo(args: argparse.Namespace) -> int:
    ruleset = ruleset_from_args(args)
    if args.games < 1:
        raise UsageError(_("--games must be at least 1, not {n}", n=args.games))
    if args.games > MAX_COUNT:
        raise UsageError(_("--games must be at most {most}, not {n}", most=MAX_COUNT, n=args.games))
    ascii = use_ascii(args.ascii)
    out = Path(args.out)
    if (status := check_out_dir(out, "demo")) is not None:
        return status
    failures = 0
    for g in range(args.games):
        ok = _demo_game(args, g, ruleset=ruleset, out=out, ascii=ascii)
        if ok is None:
            return 1
        failures += not ok
    return 1 if failures else 0


#: The demo's two players.
_NAMES = {Player.P0: "alice", Player.P1: "bob"}


def _demo_game(
    args: argparse.Namespace, g: int, *, ruleset: Ruleset, out: Path, ascii: bool
) -> bool | None:
    """Play and report game ``g`` (from 0): whether both sides agree on its result, or
    ``None`` when a transcript could not be written (said on stderr)."""
    names = _NAMES
    show = not (args.quiet or args.json)
    keys = tuple(SigningKey.from_bytes(_demo_secret(args.seed, g, f"key{p}")) for p in (0, 1))
    game_secrets = (_demo_secret(args.seed, g, "s0"), _demo_secret(args.seed, g, "s1"))
    tag = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    paths = [out / f"game-{g + 1:03d}-{tag}-{names[p]}.truc" for p in (Player.P0, Player.P1)]
    write_errors: list[TranscriptWriteError] = []
    try:
        writers = _open_writers(paths)
    except TranscriptWriteError as exc:
        print(
            "truc-p2p demo: " + _("game {number} not started: {reason}", number=g + 1, reason=exc),
            file=sys.stderr,
        )
        return None
    sessions = make_pair(
        SessionOptions(ruleset=ruleset, pipeline=pipeline_of(args)),
        names=(names[Player.P0], names[Player.P1]),
        identities=(keys[0], keys[1]),
        secrets=game_secrets,
        records=(_recorder(writers[0], write_errors), _recorder(writers[1], write_errors)),
    )
    bot_seed = None if args.seed is None else args.seed * 1000 + g
    bots = {
        p: make_bot(args.bots[p], None if bot_seed is None else bot_seed + p)
        for p in (Player.P0, Player.P1)
    }

    tally = Tally()  # a neutral narrator: both players by name, follows P0's events
    # Each deal is told twice, once per player's cards, as each side's session learns
    # them; P0's moves wait until both are told, so the story keeps its order (a move
    # never comes between the two halves of the deal it was played from).
    deals = [0]
    held: list[str] = []

    def on_event(me: Player, event: Event | SessionEvent | NetEvent, tally: Tally = tally) -> None:
        if not show or (me is Player.P1 and not isinstance(event, CardsDealt)):
            return
        side = None if isinstance(event, GameStarted) else me
        line = describe(event, Voice(names, None, ascii, side=side), tally)
        if isinstance(event, CardsDealt):
            deals[0] += 1
        elif deals[0] % 2 and line:
            held.append(line)
            return
        if line:
            print(line, flush=True)
        if not deals[0] % 2:
            for waited in held:
                print(waited, flush=True)
            held.clear()

    write_error: TranscriptWriteError | None = None
    try:
        if args.in_memory:
            played = _play_memory(sessions, bots, on_event)
        else:
            played = trio.run(_play_tcp, sessions, bots, on_event)
    except BaseException as exc:
        write_error = first_exception(exc, TranscriptWriteError)
        if write_error is None:
            raise
    finally:
        for w in writers:
            w.close()
        for waited in held:  # a game cut between the halves of a deal
            print(waited, flush=True)
    if write_error is None and write_errors:  # the game loop ended it as a disk error
        write_error = write_errors[0]
    if write_error is not None:
        _report_write_error(g, write_error, paths, as_json=args.json)
        return None
    return _report_game(args, g, played, sessions, paths)


def _report_game(
    args: argparse.Namespace,
    g: int,
    played: _Played,
    sessions: dict[Player, Session],
    paths: list[Path],
) -> bool:
    """Print game ``g``'s result (a JSON line, a sentence, or why there is none);
    whether both sides agree on it."""
    names = _NAMES
    result = played.results.get(Player.P0)
    ok = result is not None and result == played.results.get(Player.P1)
    if args.json:
        print(
            json.dumps(
                {
                    "game": g + 1,
                    "valid": ok,
                    "game_id": result.game_id.hex() if result else None,
                    "players": [names[Player.P0], names[Player.P1]],
                    "winner": int(result.winner) if result else None,
                    "winner_name": names[result.winner] if result else None,
                    "score": list(result.scores) if result else None,
                    "hands": result.hands if result else None,
                    "reason": result.reason if result else played.problem,
                    "messages": played.messages,
                    "bytes": played.nbytes,
                    "transport": "memory" if args.in_memory else "tcp",
                    "deck": sessions[Player.P0].deck,
                    "pipeline": sessions[Player.P0].pipeline,
                    "transcript": str(paths[0]),
                    "transcripts": [str(p) for p in paths],
                }
            ),
            flush=True,
        )
    elif result is not None and ok:
        print(
            ngettext(
                "game {number}: {winner} wins ({first} {first_score} - {second} "
                "{second_score}) after {n} hand ({reason}); transcripts: {files}",
                "game {number}: {winner} wins ({first} {first_score} - {second} "
                "{second_score}) after {n} hands ({reason}); transcripts: {files}",
                result.hands,
                number=g + 1,
                winner=names[result.winner],
                first=names[Player.P0],
                first_score=result.scores[0],
                second=names[Player.P1],
                second_score=result.scores[1],
                reason=reason_word(str(result.reason)),
                files=f"{paths[0]} {paths[1]}",
            ),
            flush=True,
        )
    else:
        print(
            _(
                "game {number}: no result: {why}",
                number=g + 1,
                why=played.problem or _("results differ"),
            ),
            file=sys.stderr,
        )
    return ok


def _report_write_error(
    g: int, error: TranscriptWriteError, paths: list[Path], *, as_json: bool
) -> None:
    """A transcript could not be written (full disk, I/O error): say so in one line.

    The writer cut the unfinished frame off, so both files end with whole
    messages and ``verify`` reads them as incomplete games.
    """
    print(
        "truc-p2p demo: "
        + _(
            "game {number} stopped: {reason} (the transcripts keep the whole messages "
            "written before; verify reports the game as incomplete)",
            number=g + 1,
            reason=error,
        ),
        file=sys.stderr,
    )
    if as_json:
        print(
            json.dumps(
                {
                    "game": g + 1,
                    "valid": False,
                    "reason": "write-error",
                    "error": str(error),
                    "transcript": str(paths[0]),
                    "transcripts": [str(p) for p in paths],
                }
            ),
            flush=True,
        )
