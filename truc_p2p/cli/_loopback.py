"""Both sides of a game in this process, over a real TCP connection on 127.0.0.1:
``demo``'s two bots, and ``play``'s player against its bot (a ``play`` game that
``resume`` rebuilds too).  The host side (P1) listens on a free port and the joining
side (P0) dials it, as two machines would.

``play`` keeps the bot's side of each game out of the player's sight, in
:data:`BOT_DIR` beside the player's transcript: what ``resume`` needs to rebuild both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    Clocks,
    GameOutcome,
    PlayOptions,
    Strategy,
    open_game,
    play_game,
    serve_game,
)
from truc_p2p.protocol import Session

__all__ = ["BOT_DIR", "Side", "loopback_game", "opponent_key_path", "opponent_path", "play_locally"]

#: One side of the game, given its end of the connection: its outcome.
Side = Callable[[trio.abc.Stream], Awaitable[GameOutcome]]

#: The subfolder where ``play`` keeps the bot's side of each game (its transcript,
#: secret and key) and the player's own throwaway key: what ``resume`` needs, out of
#: the player's sight.
BOT_DIR = ".bot"


async def loopback_game(
    join: Side, host: Side, *, host_grace: float | None = None
) -> tuple[GameOutcome, GameOutcome | None]:
    """``join`` (P0) and ``host`` (P1) connected over loopback TCP; their outcomes.
    With ``host_grace`` the host side gets that many seconds after the joining side's
    end and is then cancelled (its outcome ``None``), else both are awaited."""
    outcomes: dict[str, GameOutcome] = {}
    async with serve_game(bind="127.0.0.1", port=0) as listener, trio.open_nursery() as nursery:

        async def hosting() -> None:
            async with await listener.accept() as stream:
                outcomes["host"] = await host(stream)

        nursery.start_soon(hosting)
        try:
            async with open_game("127.0.0.1", listener.port) as stream:
                outcomes["join"] = await join(stream)
        finally:
            if host_grace is not None:
                nursery.cancel_scope.deadline = trio.current_time() + host_grace
    return outcomes["join"], outcomes.get("host")


async def play_locally(
    mine: Session,
    theirs: Session,
    human: Strategy,
    bot: Strategy,
    *,
    bot_timeout: float,
    stop: trio.Event,
    syncs: tuple[Callable[[], object], Callable[[], object]],
    resuming: bool = False,
) -> GameOutcome:
    """The player (P0) against the bot (P1) over loopback TCP, both sides in this process."""
    hook = human if callable(human) else None

    async def bot_side(stream: trio.abc.Stream) -> GameOutcome:
        return await play_game(
            stream,
            theirs,
            bot,
            PlayOptions(
                clocks=Clocks(turn_timeout=bot_timeout),
                resuming=False if resuming else None,
                before_send=syncs[1],
            ),
        )

    async def player_side(stream: trio.abc.Stream) -> GameOutcome:
        return await play_game(
            stream,
            mine,
            human,
            PlayOptions(
                clocks=Clocks(turn_timeout=DEFAULT_BOT_TIMEOUT),
                expected_fingerprint=theirs.fingerprint,
                on_event=hook,
                stop=stop,
                resuming=True if resuming else None,
                before_send=syncs[0],
            ),
        )

    outcome, _bot = await loopback_game(player_side, bot_side, host_grace=5)
    return outcome


def opponent_path(transcript: Path) -> Path:
    """Where ``play`` keeps the bot's own transcript; games from before the
    subfolder kept it beside the player's, and still resume from there."""
    old = transcript.with_name(transcript.name + ".opponent")
    if old.exists():
        return old
    return transcript.parent / BOT_DIR / (transcript.name + ".opponent")


def opponent_key_path(transcript: Path) -> Path:
    """Where ``play`` keeps the bot's key (beside the player's transcript before the
    subfolder)."""
    old = transcript.with_name(transcript.name + ".opponent.key")
    if old.exists():
        return old
    return transcript.parent / BOT_DIR / (transcript.name + ".opponent.key")
