"""The four game commands wired together: ``host``, ``join``, ``resume`` and ``play``.

They need each other's roads: the same command run again after a crash goes on
with the unfinished game on ``resume``'s road (the come-back road, passed into
:func:`~._lifecycle.run_game`), and a resumed game of a match goes on with the
command line that started the match (:data:`~._lifecycle.NextGames`).  This module
hands each command the roads it needs, so that none of them imports another and the
lifecycle imports no command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from truc_p2p.cli._game_args import GameOptions
from truc_p2p.cli._host import HostRoad
from truc_p2p.cli._host import register as register_host
from truc_p2p.cli._join import JoinRoad
from truc_p2p.cli._join import register as register_join
from truc_p2p.cli._lifecycle import Road
from truc_p2p.cli._parser import command_parser
from truc_p2p.cli._play import PlayRoad
from truc_p2p.cli._play import register as register_play
from truc_p2p.cli._resume import come_back_road
from truc_p2p.cli._resume import register as register_resume
from truc_p2p.crypto import SigningKey
from truc_p2p.identity import Identity

__all__ = ["register"]


def register(subparsers: Any) -> None:
    come_back = come_back_road(next_games)
    register_host(subparsers, come_back=come_back)
    register_join(subparsers, come_back=come_back)
    register_resume(subparsers, next_games=next_games)
    register_play(subparsers, come_back=come_back)


def next_games(
    argv: Sequence[str], keys: tuple[Identity, SigningKey] | None
) -> tuple[GameOptions, Road]:
    """The options and the road of the stored command line ``argv`` (``host``, ``join``
    or ``play`` and its options) for a match's next games; ``keys``: a ``play``
    match's player's and bot's keys."""
    come_back = come_back_road(next_games)
    parser = command_parser(
        partial(register, come_back=come_back)
        for register in (register_host, register_join, register_play)
    )
    args = parser.parse_args(list(argv))
    opts = replace(GameOptions.from_args(args), argv=tuple(argv))
    road: Road = JoinRoad()
    if opts.command == "play":
        road = PlayRoad(keys)
    elif opts.command == "host":
        road = HostRoad()
    return opts, road
