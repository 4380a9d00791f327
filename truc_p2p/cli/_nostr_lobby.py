"""``truc-p2p lobby --nostr URL…``: the open games listed on Nostr relays (``connect.md`` §10).

Every relay is asked at once, each within ``--timeout``; what they hold is
merged, one game per host key, after the joiner's checks (the Nostr
signature, the expiration, the host's Ed25519 signature over the listing).
A relay that cannot be asked costs one line on stderr; a dropped listing one
note.  Each game comes with its invite, which ``join`` takes as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

import trio

from truc_p2p.cli._lobby_words import describe_game, lobby_filter
from truc_p2p.i18n import _
from truc_p2p.net import (
    ListingError,
    LobbyFilter,
    LobbyGame,
    NostrGame,
    check_relay_url,
    fetch_nostr_lobby,
)

if TYPE_CHECKING:
    from truc_p2p.cli._game_args import GameOptions

__all__ = ["fetch_for_page", "nostr_lobby", "nostr_lobby_json", "pick_nostr_game"]


def nostr_lobby_json(
    urls: list[str], games: list[NostrGame], notes: list[str], down: list[str]
) -> dict[str, Any]:
    """``lobby --nostr … --json``: the games (each with the relays that hold it)."""
    return {
        "nostr": urls,
        "games": [{**g.game.to_json(), "relays": list(g.relays)} for g in games],
        "dropped": notes,
        "unreachable": down,
    }


def nostr_lobby(args: argparse.Namespace) -> int:
    urls: list[str] = list(args.nostr)
    try:
        for url in urls:
            check_relay_url(url)
        wanted: LobbyFilter = lobby_filter(args.name_filter, args.fingerprint)
    except (ValueError, ListingError) as exc:
        print(f"truc-p2p lobby: {exc}", file=sys.stderr)
        return 2
    games, notes, down = trio.run(
        partial(fetch_nostr_lobby, urls, timeout=args.timeout, wanted=wanted)
    )
    if args.json:
        print(json.dumps(nostr_lobby_json(urls, games, notes, down)), flush=True)
        return 4 if len(down) == len(set(urls)) else 0
    for line in [*down, *notes]:
        print(f"truc-p2p lobby: {line}", file=sys.stderr)
    if len(down) == len(set(urls)):
        return 4
    if not games:
        print(_("no open game on the Nostr relays"), file=sys.stderr)
        return 1
    for i, found in enumerate(games, 1):
        print(f"{i}. {describe_game(found.game)}")
        print(f"   {found.game.invite}")
    sys.stdout.flush()
    print(_("join one with: truc-p2p join INVITE"), file=sys.stderr)
    return 0


def pick_nostr_game(opts: GameOptions) -> LobbyGame | int:
    """``join --nostr URL…`` without an invite: list the games of those relays on
    stderr and take the one numbered ``--pick N`` or read from stdin; the game, or
    an exit status."""
    out = sys.stderr
    urls = list(opts.network.nostr or ())
    try:
        for url in urls:
            check_relay_url(url)
    except ValueError as exc:
        print(f"truc-p2p join: {exc}", file=out)
        return 2
    games, notes, down = trio.run(
        partial(fetch_nostr_lobby, urls, timeout=opts.clocks.connect_timeout)
    )
    for line in [*down, *notes]:
        print(f"truc-p2p join: {line}", file=out)
    if len(down) == len(set(urls)):
        return 4
    if not games:
        print("truc-p2p join: " + _("no open game on the Nostr relays"), file=out)
        return 4
    for i, found in enumerate(games, 1):
        print(f"{i}. {describe_game(found.game)}", file=out)
    if opts.network.pick is not None:
        line = str(opts.network.pick)
    else:
        print(_("which game (1-{n})? ", n=len(games)), end="", file=out, flush=True)
        line = sys.stdin.readline().strip()
    if not line.isdigit() or not 1 <= int(line) <= len(games):
        print(_("truc-p2p join: no game picked ({line})", line=repr(line)), file=out)
        return 2
    return games[int(line) - 1].game


async def fetch_for_page(
    urls: list[str], timeout: float
) -> tuple[list[LobbyGame], list[str], str | None]:
    """One look for the lobby page: the merged games, the notes (a relay that is
    down is a note), and a reason only when no relay answered."""
    games, notes, down = await fetch_nostr_lobby(urls, timeout=timeout)
    problem = "; ".join(down) if len(down) == len(set(urls)) else None
    return [g.game for g in games], [*down, *notes] if problem is None else notes, problem
