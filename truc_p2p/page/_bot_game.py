"""The page's game against a bot: two sessions back to back in memory."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from truc_p2p.bots import make_bot
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    RemoteProtocolError,
    Series,
    Session,
    SessionOptions,
    YourTurn,
)
from truc_p2p.rules import Action, Player, Ruleset
from truc_p2p.ui import bot_player_name

from ._keys import key_from_raw
from ._side import Side
from ._wires import Wires

__all__ = ["BotGame"]


class BotGame:
    """Me against a bot of ``level``: two sessions back to back in memory (real
    crypto and signatures, as ``truc-p2p play``), the bot answering at once."""

    kind: Literal["bot"] = "bot"

    def __init__(
        self,
        wires: Wires,
        *,
        name: str,
        level: str,
        ruleset: Ruleset | None = None,
        series: Series | None = None,
    ) -> None:
        key, randbytes = wires.key, wires.randbytes
        self.level = level
        # both sessions with the same rules and the same place in a match (the
        # start panel's variants, issue 42): each checks the other's hello
        common = SessionOptions(ruleset=ruleset or Ruleset(), series=series or Series())
        self._bot = make_bot(level, seed=int.from_bytes(randbytes(8), "big"))
        bot_key = self.bot_key = key_from_raw(randbytes(32))
        me = Session(
            identity=key,
            role=Player.P0,
            secret=randbytes(32),
            record=wires.record,
            options=replace(common, name=name),
        )
        self._peer = Session(
            identity=bot_key,
            role=Player.P1,
            secret=randbytes(32),
            options=replace(common, name=bot_player_name(level)),
        )
        self._to_bot: list[bytes] = []
        self.side = Side(me, wires.feed, send=self._to_bot.append, ended=wires.ended)

    def start(self) -> None:
        self.side.start()
        self._settle()

    def act(self, choice: Action | None) -> None:
        self.side.act(choice)
        self._settle()

    def leave(self) -> None:
        self.side.leave()
        self._settle()

    def _settle(self) -> None:
        """Carry bytes both ways until neither side has anything to say."""
        while True:
            moved = False
            if self._to_bot:
                data = b"".join(self._to_bot)
                self._to_bot.clear()
                self._peer.receive_data(data)
                moved = True
            out = self._bot_step()
            if out:
                self.side.data(out)
                moved = True
            if not moved:
                return

    def _bot_step(self) -> bytes:
        out = bytearray()
        peer = self._peer
        while True:
            try:
                event = peer.next_event()
            except RemoteProtocolError:  # an honest pair: only our own abort gets here
                return bytes(out)
            out += peer.data_to_send()
            if event is NEED_DATA or event is CLOSED:
                return bytes(out)
            if isinstance(event, YourTurn):
                out += peer.send(self._bot.choose(peer.game))

    # a bot game has no sockets and no clocks
    def receive(self, socket: str, data: bytes, now: float) -> None:
        pass

    def closed(self, socket: str, now: float) -> None:
        pass

    def tick(self, now: float) -> None:
        pass

    def next_timer(self) -> float | None:
        return None

    def stop(self) -> None:
        pass
