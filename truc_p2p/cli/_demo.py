"""``truc-p2p demo``: bots play each other through two full protocol sessions."""

from __future__ import annotations

import argparse
import hashlib
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.bots import BOT_NAMES, make_bot
from truc_p2p.cli._narrate import describe
from truc_p2p.local import make_pair, run_pair
from truc_p2p.protocol import AnyEvent, CardsDealt
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset
from truc_p2p.transcript import TranscriptWriter

__all__ = ["add_ruleset_args", "register", "ruleset_from_args"]


def add_ruleset_args(parser: argparse.ArgumentParser) -> None:
    """Options that choose the Ruleset (both peers must pass the same ones)."""
    parser.add_argument("--target", type=int, default=12, help="points to win (default 12)")
    parser.add_argument(
        "--ladder",
        choices=[x.value for x in Ladder],
        default=Ladder.LITERAL.value,
        help="raise ladder: literal 1,2,6,8,10... (default) or even 1,2,4,6,8...",
    )
    parser.add_argument(
        "--rest-refused",
        choices=[x.value for x in RestRefused],
        default=RestRefused.GAME.value,
        help="a refused 'my rest' wins the game (default) or scores the round value",
    )
    parser.add_argument(
        "--audit",
        choices=["game", "hand"],
        default="game",
        help="reveal seeds and audit at the end of the game (default) or of every hand",
    )


def ruleset_from_args(args: argparse.Namespace) -> Ruleset:
    return Ruleset.from_dict(
        {"target": args.target, "ladder": args.ladder, "rest_refused": args.rest_refused}
    )


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="watch two bots play through the full protocol",
        description="Two bots play through two protocol sessions (real keys, real "
        "signatures, real mental-poker deck), writing one transcript per game.",
    )
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="make bots, keys and shuffles reproducible (demo only: never for real games)",
    )
    parser.add_argument("--out", default="games", help="directory for transcripts (default games/)")
    parser.add_argument(
        "--bots",
        nargs=2,
        default=["heuristic", "heuristic"],
        choices=BOT_NAMES,
        metavar="BOT",
        help=f"the two bots ({', '.join(BOT_NAMES)}; default heuristic heuristic)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the results")
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    parser.add_argument("--ascii", action="store_true", help="plain-ASCII card names")
    add_ruleset_args(parser)
    parser.set_defaults(func=_demo)


def _demo_secret(seed: int | None, game: int, label: str) -> bytes:
    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(f"truc-p2p demo/{seed}/{game}/{label}".encode()).digest()


def _demo(args: argparse.Namespace) -> int:
    ruleset = ruleset_from_args(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = {Player.P0: "alice", Player.P1: "bob"}
    failures = 0
    show = not (args.quiet or args.json)
    for g in range(args.games):
        keys = tuple(
            Ed25519PrivateKey.from_private_bytes(_demo_secret(args.seed, g, f"key{p}"))
            for p in (0, 1)
        )
        game_secrets = (_demo_secret(args.seed, g, "s0"), _demo_secret(args.seed, g, "s1"))
        tag = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        paths = [out / f"game-{g + 1:03d}-{tag}-{names[p]}.truc" for p in (Player.P0, Player.P1)]
        writers = [TranscriptWriter(p, fsync=False) for p in paths]
        sessions = make_pair(
            ruleset=ruleset,
            audit=args.audit,
            names=(names[Player.P0], names[Player.P1]),
            identities=(keys[0], keys[1]),
            secrets=game_secrets,
            records=(writers[0].append, writers[1].append),
        )
        bot_seed = None if args.seed is None else args.seed * 1000 + g
        bots = {
            p: make_bot(args.bots[p], None if bot_seed is None else bot_seed + p)
            for p in (Player.P0, Player.P1)
        }
        def on_event(me: Player, event: AnyEvent) -> None:
            if not show or (me is Player.P1 and not isinstance(event, CardsDealt)):
                return
            line = describe(event, names, me=me, ascii=args.ascii)
            if line:
                print(line)

        try:
            pair = run_pair(sessions, bots, on_event=on_event)
        finally:
            for w in writers:
                w.close()
        result = pair.results[Player.P0]
        ok = result is not None and result == pair.results[Player.P1]
        failures += not ok
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
                        "reason": result.reason if result else None,
                        "messages": pair.messages,
                        "bytes": pair.nbytes,
                        "transcript": str(paths[0]),
                        "transcripts": [str(p) for p in paths],
                    }
                ),
                flush=True,
            )
        elif result is not None:
            print(
                f"game {g + 1}: {names[result.winner]} wins {result.scores[0]}-{result.scores[1]}"
                f" after {result.hands} hands ({result.reason}); transcripts: "
                f"{paths[0]} {paths[1]}",
                flush=True,
            )
        else:
            print(f"game {g + 1}: no result", file=sys.stderr)
    return 1 if failures else 0
