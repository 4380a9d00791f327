"""The page's game against a peer through a relay's byte stream (joined or hosted);
the other kind, against a bot in memory, is :mod:`._bot_game`'s."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

from truc_p2p.i18n import _
from truc_p2p.net import (
    DEFAULT_GRACE,
    DEFAULT_HEARTBEAT,
    DEFAULT_TURN_TIMEOUT,
    GameSettings,
    HostSettings,
    Invite,
    parse_host_port,
)
from truc_p2p.net._gate import HEARTBEAT, FrameGate, LinkFault
from truc_p2p.net._outcome import host_refused_early
from truc_p2p.net._play_endings import timeout_outcome
from truc_p2p.net._relay_wire import RelayProtocolError, relay_claim
from truc_p2p.protocol import (
    LocalProtocolError,
    Series,
    Session,
    SessionOptions,
    own_options,
)
from truc_p2p.rules import Action, Ladder, Player, RestRefused, Ruleset

from ._bot_game import BotGame
from ._out import Outbox
from ._relay import Attach, Control, Join, RelayRefused
from ._side import Side
from ._wires import Meeting, Wires

if TYPE_CHECKING:
    from truc_p2p.net import GameOutcome

__all__ = ["DEAD_AFTER", "PING_EVERY", "BotGame", "NetGame", "NetOptions", "Restore"]

#: Seconds between PINGs on a host's control connection (connect.md §2).
PING_EVERY = 25.0
#: Seconds without any frame from a peer that speaks heartbeats: its link is dead.
DEAD_AFTER = 20.0


@dataclass(frozen=True)
class NetOptions:
    """What a page changes in its peer games (the interop adapter's case): the deal
    options it proposes (``None``: the session's default) and its clocks (wire.md
    13.6: heartbeats, a dead link after ``dead_after`` s of silence; ``grace``: how
    long a lost link is redialled or waited for before the game stops)."""

    pipeline: bool | None = None
    early: bool | None = None
    heartbeat: float = DEFAULT_HEARTBEAT
    dead_after: float = DEAD_AFTER
    turn_timeout: float = DEFAULT_TURN_TIMEOUT
    grace: float = DEFAULT_GRACE

    def apply(self, settings: GameSettings) -> GameSettings:
        session = settings.session
        if self.pipeline is not None:
            session = replace(session, pipeline=self.pipeline)
        if self.early is not None:
            session = replace(session, early=self.early)
        clocks = replace(
            settings.clocks,
            heartbeat=self.heartbeat,
            dead_after=self.dead_after,
            turn_timeout=self.turn_timeout,
            grace=self.grace,
        )
        return GameSettings(session=session, clocks=clocks)


@dataclass(frozen=True)
class Restore:
    """A game to resume after a reload: its transcript's envelopes, the session secret,
    and for a host the nonce of its relay claim (the same code again)."""

    envelopes: list[bytes]
    secret: bytes
    claim_nonce: bytes | None = None


def _adopt_invite(options: SessionOptions, settings: HostSettings) -> SessionOptions:
    """``options`` with the session settings a joiner adopts from the host's invite
    (connect.md 1.1)."""
    base = options.ruleset
    ruleset = Ruleset(
        target=settings.target if settings.target is not None else base.target,
        ladder=Ladder(settings.ladder) if settings.ladder is not None else base.ladder,
        rest_refused=(
            RestRefused(settings.rest) if settings.rest is not None else base.rest_refused
        ),
    )
    return replace(
        options,
        ruleset=ruleset,
        audit=settings.audit if settings.audit is not None else options.audit,
        deck=settings.deck if settings.deck is not None else options.deck,
        pipeline=settings.pipeline,
        # the deck's default, with the deck the invite says; but never to a host that
        # turned them down (wire.md 11.1: False stays False)
        early=False if options.early is False else None,
    )


#: Seconds a joiner of a linked game waits for the host to listen again (the
#: desktop's ``--again-wait`` default), and between two dials meanwhile.
REMATCH_WAIT = 120.0
REDIAL_EVERY = 0.5


class NetGame:
    """A game against a peer through a relay (WebSocket; the same bytes as TCP):
    ``invite`` given, we join; else we host and hand out an invite link.

    Sockets: ``game`` (a joiner's one connection), ``ctl`` (a host's control
    connection) and ``att-N`` (a host's attach connection of meeting N)."""

    kind: Literal["net"] = "net"

    def __init__(
        self,
        wires: Wires,
        meeting: Meeting,
        *,
        settings: GameSettings,
        out: Outbox,
        now: float,
        restore: Restore | None = None,
        began: Callable[[NetGame], None] | None = None,
        number: int = 1,
    ) -> None:
        self._key = wires.key
        #: our session's options (an invite's settings aside) and the clocks
        self.settings = settings
        self.feed = wires.feed
        self._out = out
        self._randbytes = randbytes = wires.randbytes
        self._record = wires.record
        self._ended = wires.ended
        self.invite = meeting.invite
        self.relay = meeting.relay
        self._site = meeting.site
        self.side: Side | None = None
        self._gate: FrameGate | None = None
        self._socket: str | None = None  # the game's connection, once spliced
        self._join: Join | None = None
        self._control: Control | None = None
        self._attach: dict[str, Attach] = {}
        self._meetings = 0
        self._last_sent = self._last_heard = self._last_ping = now
        self._now = now
        self.error: str | None = None
        #: The invite link a host hands out (``<site>#join=<invite>``).
        self.link: str | None = None
        #: A game to resume (a reload): its transcript and secret; ``None``: a new game.
        self.restore = restore
        self._began = began
        #: The hello's linked-game options (wire.md 4.1: a match, the game this one
        #: follows); ``None``: a first single game (its hello says none of them).
        #: The game's number in a series of linked games: its sockets' names differ
        #: from the last game's (bytes still in flight on those are never taken for its own).
        self.number = number
        tag = "" if number == 1 else str(number)
        self._game_socket, self._ctl_socket, self._att = f"game{tag}", f"ctl{tag}", f"att{tag}-"
        self._tag = tag
        #: A linked game's joiner dials again until the host listens again (4.1's
        #: redial): when, and until when (``REMATCH_WAIT`` after the first dial).
        self._redial_at: float | None = None
        self._redial_until: float | None = None
        self._dials = 0
        #: A lost link of a started game (wire.md 13): until when it is redialled (a
        #: joiner) or waited for (a host), and how many new links were tried.
        self._grace_until: float | None = None
        self._relinks = 0
        #: The session secret (kept with the transcript: a reload resumes with it).
        self.secret = restore.secret if restore is not None else randbytes(32)
        #: The claim's nonce (a host's: registering again gives the same code).
        self.claim_nonce = restore.claim_nonce if restore is not None else randbytes(16)
        if restore is not None and restore.claim_nonce is None:
            self.claim_nonce = randbytes(16)

    # -- starting ------------------------------------------------------------------

    def start(self) -> None:
        if self.restore is not None and self.side is None:
            self._restored()
        if self.invite is not None:
            if self._redial_until is None:
                self._redial_until = self._now + REMATCH_WAIT
            code = self.invite.code
            assert code is not None
            self._join = Join(code)
            self._out.open(self._game_socket, self.relay)
            self._out.send(self._game_socket, self._join.first)
        else:
            assert self.claim_nonce is not None
            claim = relay_claim(self._key, self.claim_nonce)
            self._control = Control(claim)
            self._last_ping = self._now
            self._out.open(self._ctl_socket, self.relay)
            self._out.send(self._ctl_socket, self._control.first)
            if self.side is None:
                self.feed.notice(_("registering with the relay {relay}…", relay=self.relay))

    @property
    def options(self) -> SessionOptions:
        """What our session proposes, an invite's settings aside."""
        return self.settings.session

    @property
    def series(self) -> Series:
        """The linked games this one belongs to (wire.md 4.1)."""
        return self.settings.session.series

    def _begin(self, socket: str, role: Player, rest: bytes) -> None:
        """The connection is the game's now: start the session on it (a new one, or
        the restored one, which resumes: wire.md 13)."""
        if self.side is not None:  # a new link for the game going on
            self._relink(socket, role, rest)
            return
        self._socket = socket
        options, expected = self.options, None
        if self.invite is not None:
            options = _adopt_invite(options, self.invite.settings)
            expected = self.invite.fingerprint
        session = Session(
            identity=self._key,
            role=role,
            secret=self.secret,
            record=self._record,
            expected_peer_fingerprint=expected,
            options=options,
        )
        self._gate = FrameGate(lambda: session.peer_key)
        self.side = self._side(session)
        self._last_heard = self._last_sent = self._now
        if self._control is not None:  # one game per invite: no more meetings
            self._out.close(self._ctl_socket)
            self._control = None
        if self._began is not None:
            self._began(self)
        self.side.start()
        if rest:
            self._frames(rest)

    def _side(self, session: Session) -> Side:
        """Our side of the game on ``session``: a refused resume condemns the link, not
        the game (the page links again)."""
        return Side(
            session,
            self.feed,
            send=self._send_game,
            ended=self._over,
            condemned=self._link_gone,
        )

    def _restored(self) -> None:
        """A game kept over a reload: its table comes back at once, from the transcript
        (the restored session's history), and it resumes once the relay links us."""
        assert self.restore is not None
        envelopes = self.restore.envelopes
        role = Player.P0 if self.invite is not None else Player.P1
        session = Session.restore(
            envelopes,
            identity=self._key,
            role=role,
            secret=self.secret,
            record=self._record,
            options=own_options(envelopes, role) or self.options,
        )
        self.side = self._side(session)
        if self._began is not None:
            self._began(self)
        self.side.start()
        if self.side.outcome is None:
            self.feed.notice(_("resuming the game: connecting to the relay…"))

    def _relink(self, socket: str, role: Player, rest: bytes) -> None:
        """A new link for the game after one was lost: both sides exchange signed
        ``resume`` messages (wire.md 13) and the game goes on where it was."""
        side = self.side
        assert side is not None
        self._socket = socket
        session = side.session
        session.reconnect(self._randbytes(16), dialer=role is Player.P0)
        self._gate = FrameGate(lambda: session.peer_key)
        self._last_heard = self._last_sent = self._now
        if self._control is not None:
            self._out.close(self._ctl_socket)
            self._control = None
        for other in list(self._attach):
            self._out.close(other)
        self._attach.clear()
        self.feed.notice(_("connected again: the game goes on"))
        side.relinked()
        if rest:
            self._frames(rest)

    # -- bytes ---------------------------------------------------------------------

    def _send_game(self, data: bytes) -> None:
        if self._socket is not None:
            self._out.send(self._socket, data)
            self._last_sent = self._now

    def receive(self, socket: str, data: bytes, now: float) -> None:
        self._now = now
        try:
            if socket == self._socket and self.side is not None:
                self._frames(data)
            elif socket == self._game_socket and self._join is not None:
                step = self._join.feed(data)
                self._out.send(self._game_socket, step.send)
                if step.game is not None:
                    self._join = None
                    self._begin(self._game_socket, Player.P0, step.game)
            elif socket == self._ctl_socket and self._control is not None:
                had = self._control.code
                meets = self._control.feed(data)
                if had is None and self._control.code is not None:
                    self._registered(self._control.code)
                for session_id in meets:
                    self._meet(session_id)
            elif socket in self._attach:
                attach = self._attach[socket]
                step = attach.feed(data)
                self._out.send(socket, step.send)
                if step.game is not None and self._socket is None:
                    del self._attach[socket]
                    for other in list(self._attach):  # another meeting lost the race
                        self._out.close(other)
                    self._attach.clear()
                    self._begin(socket, Player.P1, step.game)
        except RelayRefused as exc:
            self._fail(socket, _("the relay refused: {reason}", reason=str(exc)))
        except (RelayProtocolError, ValueError) as exc:
            self._fail(socket, _("the relay sent something wrong: {reason}", reason=str(exc)))

    def _frames(self, data: bytes) -> None:
        gate, side = self._gate, self.side
        assert gate is not None and side is not None
        before = gate.frames
        try:
            frames = gate.feed(data)
        except LinkFault as exc:
            self._link_gone(str(exc))
            return
        if gate.frames != before:
            self._last_heard = self._now
        if frames:
            side.data(frames)

    def _registered(self, code: str) -> None:
        host, port = parse_host_port(self.relay, what="relay")
        options = self.options
        invite = Invite(
            host,
            port,
            self._fingerprint(),
            relay=(host, port),
            code=code,
            settings=HostSettings.of_game(
                options.ruleset,
                audit=options.audit,
                deck=options.deck,
                pipeline=options.pipeline,
                match=options.series.match,
            ),
        )
        self.link = f"{self._site}#join={quote(str(invite), safe=':/?&=[]')}"
        self.feed.invite(
            self.link,
            _("send this link to your friend: it opens the game in their browser"),
        )

    def _fingerprint(self) -> str:
        from truc_p2p.protocol import fingerprint

        return fingerprint(self._key.public_key())

    def _meet(self, session_id: bytes) -> None:
        if self._socket is not None:
            return
        self._meetings += 1
        socket = f"{self._att}{self._meetings}"
        attach = self._attach[socket] = Attach(session_id)
        self._out.open(socket, self.relay)
        self._out.send(socket, attach.first)

    def closed(self, socket: str, now: float) -> None:
        self._now = now
        if socket == self._socket:
            self._link_gone(_("the connection to the relay closed"))
        elif socket in self._attach:
            del self._attach[socket]
        elif socket in (self._ctl_socket, self._game_socket) and self._socket is None:
            self._fail(socket, _("the connection to the relay closed"))

    def _link_gone(self, reason: str) -> None:
        if self._socket is not None:
            self._out.close(self._socket)
            self._socket = None
        side = self.side
        if side is None or side.outcome is not None:
            return
        if not side.session.resumable:
            side.lost(reason)
            return
        if self._grace_until is None:
            self._grace_until = self._now + self.settings.clocks.grace
        self.feed.notice(_("the link dropped ({reason}): connecting again…", reason=reason))
        self._try_again()

    def _try_again(self) -> None:
        """Another link for the started game, in a moment: a joiner dials the relay
        again, a host registers its code again and waits for the joiner's dial."""
        side = self.side
        assert side is not None
        if self._grace_until is not None and self._now >= self._grace_until:
            grace = int(self.settings.clocks.grace)
            side.lost(_("no new connection within {n} s", n=grace))
            return
        self._relinks += 1
        tag = f"{self._tag}.r{self._relinks}"
        if self.invite is not None:
            self._join = None
            self._game_socket = f"game{tag}"
        else:
            if self._control is not None:
                self._out.close(self._ctl_socket)
                self._control = None
            self._ctl_socket, self._att = f"ctl{tag}", f"att{tag}-"
        self._redial_at = self._now + (0.0 if self._relinks == 1 else REDIAL_EVERY)

    def _redials(self) -> bool:
        """A linked game's joiner whose host does not listen yet (it registers again
        when its player is ready): dial again in a moment, up to ``REMATCH_WAIT``."""
        series = self.series
        if self.invite is None or series is None or series.prev is None or self.side is not None:
            return False
        if self._redial_until is None or self._now >= self._redial_until:
            return False
        self._join = None
        self._redial_at = self._now + REDIAL_EVERY
        if self._dials == 0:
            self.feed.notice(_("waiting for the host to start the next game…"))
        self._dials += 1
        self._game_socket = f"game{self._tag}.{self._dials}"
        return True

    def _fail(self, socket: str, text: str) -> None:
        """The relay handshake failed: nothing was played (or, for a started game,
        that try of a new link failed)."""
        self._out.close(socket)
        if socket in self._attach:
            del self._attach[socket]
            return
        if self.side is not None and self._socket is None and self.side.outcome is None:
            self._try_again()
            return
        if self._redials():
            return
        if self.side is None:
            self.error = text
            self.stop()
            self.feed.notice(text)
        else:
            self._link_gone(text)

    def refused_early(self, outcome: GameOutcome) -> bool:
        """Whether our join ended as an older host turns down early cards (wire.md
        11.1): the page joins again, once, without proposing them, as the desktop does."""
        side = self.side
        return (
            self.invite is not None
            and side is not None
            and host_refused_early(side.session, outcome)
        )

    def _over(self, outcome: GameOutcome) -> None:
        if self._socket is not None and self.side is not None:
            # after the co-signed result: our bye, so the peer stops waiting (13.2);
            # without one (no co-signed result) there is nothing to say bye to
            with contextlib.suppress(LocalProtocolError):
                self._send_game(self.side.session.farewell())
        if self._socket is not None:
            self._out.close(self._socket)  # the worker sends what is queued first
            self._socket = None
        self._ended(outcome)

    def stop(self) -> None:
        """Close every connection (leaving the screen, or the handshake failed)."""
        for socket in [*self._attach, *([self._ctl_socket] if self._control else [])]:
            self._out.close(socket)
        if self._join is not None:
            self._out.close(self._game_socket)
        self._attach.clear()
        self._control = self._join = None
        self._redial_at = None
        if self._socket is not None:
            self._out.close(self._socket)
            self._socket = None

    # -- the player ----------------------------------------------------------------

    def act(self, choice: Action | None) -> None:
        if self.side is not None:
            self.side.act(choice)

    def leave(self) -> None:
        if self.side is not None:
            self.side.leave()
        else:
            self.stop()

    # -- clocks --------------------------------------------------------------------

    def _deadline(self) -> float | None:
        side = self.side
        if side is None or not side.waiting or self._socket is None:
            return None
        clocks = self.settings.clocks
        limit = clocks.turn_timeout if side.session.peer_fingerprint else clocks.hello_timeout
        return max(self._last_sent, self._last_heard) + limit

    def _speaks_heartbeats(self) -> bool:
        side = self.side
        return side is not None and bool(side.session.heartbeats_agreed)

    def next_timer(self) -> float | None:
        times: list[float] = []
        if self._redial_at is not None:
            times.append(self._redial_at)
        deadline = self._deadline()
        if deadline is not None:
            times.append(deadline)
        if self._socket is not None and self._speaks_heartbeats():
            times.append(self._last_sent + self.settings.clocks.heartbeat)
            times.append(self._last_heard + self.settings.clocks.dead_after)
        if self._grace_until is not None and self._socket is None and self.side is not None:
            times.append(self._grace_until)
        if self._control is not None:
            times.append(self._last_ping + PING_EVERY)
        return min(times) if times else None

    def tick(self, now: float) -> None:
        self._now = now
        if self._redial_at is not None and now >= self._redial_at:
            self._redial_at = None
            self.start()
        if self._control is not None and now >= self._last_ping + PING_EVERY:
            self._out.send(self._ctl_socket, Control.ping())
            self._last_ping = now
        side = self.side
        if side is None or side.outcome is not None:
            return
        if self._socket is None:
            if self._grace_until is not None and now >= self._grace_until:
                self._try_again()  # the grace is over: the game stops
            return
        deadline = self._deadline()
        if deadline is not None and now >= deadline:
            side.end_with(
                timeout_outcome(
                    side.session,
                    turn_timeout=self.settings.clocks.turn_timeout,
                    hello_timeout=self.settings.clocks.hello_timeout,
                )
            )
            return
        if self._speaks_heartbeats():
            dead = self.settings.clocks.dead_after
            if now >= self._last_heard + dead:
                self._link_gone(_("no sign of life from the opponent for {n} s", n=int(dead)))
                return
            if now >= self._last_sent + self.settings.clocks.heartbeat:
                self._send_game(HEARTBEAT)
