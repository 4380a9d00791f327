"""Whole games in one call, the joiner's side: :func:`join_game`.

The joiner connects and speaks first, checks the host's key against the invite
as soon as the host's hello arrives, and redials a dropped connection
(:class:`Redialer`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.evidence import keep_evidence
from truc_p2p.net._clocks import GameSettings
from truc_p2p.net._connect import DIRECT_WINDOW, PathTry, connect
from truc_p2p.net._invite import Invite, host_port
from truc_p2p.net._local_game import _started, _unless_stopped, prepare_game, transcript_path
from truc_p2p.net._notice import Notice, os_error_facts
from truc_p2p.net._outcome import End, GameOutcome, host_refused_early
from truc_p2p.net._play import play_game
from truc_p2p.net._play_options import PlayOptions
from truc_p2p.net._settings import Dial, Reporting, Storage
from truc_p2p.net._strategy import Strategy
from truc_p2p.net._turn import TurnServer
from truc_p2p.protocol import (
    RemoteProtocolError,
    Session,
)
from truc_p2p.rules import Player

__all__ = ["Redialer", "join_game"]


async def _connect(host: str, port: int, timeout: float) -> trio.SocketStream:
    stream: trio.SocketStream | None = None
    with trio.move_on_after(timeout):
        stream = await trio.open_tcp_stream(host, port)
    if stream is None:
        raise TimeoutError(f"no answer from {host} port {port} within {timeout:g} s")
    return stream


class Redialer:
    """The joiner's reconnector: dial the host again, with backoff, until it answers.

    Given an :class:`Invite` with a relay, every redial goes through
    :func:`~truc_p2p.net.connect` (direct, punched or relayed, whichever works
    now) and ``on_path`` hears the path.  When the redials fail (the host's process
    is gone: connection refused, unreachable) ``on_notice`` is told once, within
    :data:`NOT_ANSWERING_AFTER` seconds, that the host is not answering, how long
    the game keeps trying and how to resume ``transcript`` later.
    """

    def __init__(
        self,
        host: str | Invite,
        port: int | None = None,
        *,
        connect_timeout: float = 5.0,
        on_path: Callable[[str], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
        transcript: Path | None = None,
        turn: TurnServer | None = None,
        on_tries: Callable[[list[PathTry]], None] | None = None,
    ) -> None:
        self.invite = host if isinstance(host, Invite) else None
        self.host = host.host if isinstance(host, Invite) else host
        self.port = host.port if isinstance(host, Invite) else port
        self.connect_timeout = connect_timeout
        self.on_path = on_path
        self.on_notice = on_notice
        self.transcript = transcript
        #: The joiner's own TURN server (``Dial.turn``), offered on every redial.
        self.turn = turn
        #: Hears what became of each kind of path on every redial that raced them
        #: (before ``on_path``), like the first connection's "why this path" line.
        self.on_tries = on_tries
        #: One ``{"path", "tries"}`` per new link that raced the paths (connect.md §4.1).
        self.links: list[dict[str, Any]] = []
        self.attempts = 0
        self._until: float | None = None

    def waiting_until(self, deadline: float) -> None:
        """The game waits for the next stream until trio time ``deadline`` (the notice
        says how long that is)."""
        self._until = deadline

    def _not_answering(self, exc: OSError) -> None:
        if self.on_notice is None:
            return
        left = 0.0 if self._until is None else max(0.0, self._until - trio.current_time())
        facts = {
            "address": host_port(self.host, self.port or 0),
            **os_error_facts(exc),
            "seconds": f"{left:.0f}",
        }
        if self.transcript is None:
            self.on_notice(Notice("host-not-answering-unsaved", **facts))
        else:
            self.on_notice(Notice("host-not-answering", **facts, file=str(self.transcript)))

    async def _dial(self) -> trio.abc.Stream:
        if self.invite is None or self.invite.relay is None:
            assert self.port is not None
            return await _connect(self.host, self.port, self.connect_timeout)
        timeout = max(self.connect_timeout, DIRECT_WINDOW + 5)
        tries: list[PathTry] = []
        stream, route = await connect(
            self.invite,
            connect_timeout=timeout,
            tries=tries,
            turn=self.turn,
            on_notice=self.on_notice,
        )
        if tries:
            self.links.append(_link(route, tries))
            if self.on_tries is not None:
                self.on_tries(tries)
        if self.on_path is not None:
            self.on_path(route)
        return stream

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        delay = 0.25
        failures, since, told = 0, trio.current_time(), False
        while True:
            self.attempts += 1
            try:
                stream = await self._dial()
            except OSError as exc:
                failures += 1
                slow = trio.current_time() - since >= NOT_ANSWERING_AFTER
                if not told and (failures >= NOT_ANSWERING_TRIES or slow):
                    told = True  # once per wait: the person knows, the redials go on
                    self._not_answering(exc)
                await trio.sleep(delay)
                delay = min(delay * 2, 4.0)
                continue
            return stream, b"", True


async def join_game(
    invite: Invite | str,
    strategy: Strategy,
    *,
    identity: SigningKey,
    settings: GameSettings = GameSettings(),
    dial: Dial = Dial(),
    storage: Storage = Storage(),
    report: Reporting = Reporting(),
    stop: trio.Event | None = None,
) -> GameOutcome:
    """Connect to the host of ``invite`` and play one game, refusing a host whose key
    does not have the invite's fingerprint; a dropped connection is redialled for
    ``settings.grace`` seconds.  Raises :class:`InviteError` for a malformed invite; every
    other failure is an outcome.  An invite with a relay races direct paths,
    hole punching and a relay splice (:func:`~truc_p2p.net.connect`), on the
    first connection and on every redial; ``report.on_path(path, host)`` hears
    which path won.
    """
    if isinstance(invite, str):
        invite = Invite.parse(invite)
    # A host whose waiting places are taken (someone floods it) closes us on
    # arrival: keep trying, with backoff, across at least one hello timeout (the
    # time in which any place frees up), and at least HANDSHAKE_ATTEMPTS times.
    started = trio.current_time()
    patience = settings.clocks.hello_timeout + HANDSHAKE_MARGIN
    attempt, delay, silent = 0, HANDSHAKE_FIRST_DELAY, 0
    if _host_key(invite) in _HOSTS_WITHOUT_EARLY:
        settings = _without_early(settings)  # this host turned them down before
    if invite.settings.empty:
        # An invite without settings keys is an older host's (connect.md 1.1): propose
        # nothing it may not know, so that the game is played on the first connection
        # (some older hosts accept only one, and a refused option ends it; wire.md 11.1).
        settings = _without_early(settings)
    while True:
        attempt += 1
        outcome = await _join_once(
            invite,
            strategy,
            identity=identity,
            settings=settings,
            dial=dial,
            storage=storage,
            report=report,
            stop=stop,
        )
        if outcome == _WITHOUT_EARLY:
            # a host that predates early cards: join again, once, without proposing
            # them, and never propose them to it again (wire.md 11.1)
            _HOSTS_WITHOUT_EARLY.add(_host_key(invite))
            settings = _without_early(settings)
            continue
        if isinstance(outcome, GameOutcome) and outcome.kind == "hello-timeout":
            # no hello came on a link that may have been cut silently on the way (a
            # half-open link, wire.md 13.5): start over, a bounded number of times
            silent += 1
            if silent >= SILENT_HANDSHAKES:
                return outcome
            await trio.sleep(delay)
            continue
        if isinstance(outcome, GameOutcome):
            return outcome
        waited = trio.current_time() - started
        if attempt >= HANDSHAKE_ATTEMPTS and waited >= patience:
            break
        await trio.sleep(delay)
        delay = min(delay * 2, HANDSHAKE_MAX_DELAY)
    return GameOutcome.told(
        End.CONNECTION_LOST,
        "handshake-dropped",
        {"n": attempt, "seconds": f"{trio.current_time() - started:.0f}"},
        me=Player.P0,
    )


#: A redialing joiner says the host is not answering after this many failed
#: redials (0.25 + 0.5 s of backoff with a refused connection) ...
NOT_ANSWERING_TRIES = 3
#: ... or after this many seconds of failed redials (a dial that times out).
NOT_ANSWERING_AFTER = 2.0
#: How often a joiner starts over, at least, when the connection drops before the game began.
HANDSHAKE_ATTEMPTS = 5
#: Seconds beyond the hello timeout a joiner keeps starting over.
HANDSHAKE_MARGIN = 5.0
#: How many handshakes in a row may get no hello within the hello timeout before the
#: joiner gives up (a host cut off by a half-open link, not a silent one, answers the next).
SILENT_HANDSHAKES = 2
#: The joiner's backoff between two handshake attempts: first and largest delay.
HANDSHAKE_FIRST_DELAY = 0.25
HANDSHAKE_MAX_DELAY = 4.0
#: ``_join_once``'s answer when the host may predate early cards (wire.md 6a, 11.1):
#: our hello proposed them and the game ended before the coin was flipped the ways
#: older hosts answer an option they do not know (see :func:`~._outcome.host_refused_early`).
#: The joiner starts a new game, once, without proposing them.
_WITHOUT_EARLY = "without-early"
#: Hosts (key, address, port) that turned early cards down in this process: the
#: games that follow with them (a rematch, the rest of a match) do not propose them.
_HOSTS_WITHOUT_EARLY: set[tuple[str, str, int]] = set()


def _host_key(inv: Invite) -> tuple[str, str, int]:
    return (inv.fingerprint.lower(), inv.host, inv.port)


def _without_early(settings: GameSettings) -> GameSettings:
    """``settings`` proposing no early cards (to a host that predates them)."""
    return replace(settings, session=replace(settings.session, early=False))


async def _join_once(
    inv: Invite,
    strategy: Strategy,
    *,
    identity: SigningKey,
    settings: GameSettings,
    dial: Dial,
    storage: Storage,
    report: Reporting,
    stop: trio.Event | None,
) -> GameOutcome | str | None:
    """One attempt; ``None`` when the connection dropped before the game id existed,
    :data:`_WITHOUT_EARLY` when the host predates early cards."""
    name = settings.session.name
    out_dir = storage.out_dir
    path = transcript_path(out_dir, f"join-{name}") if out_dir is not None else None
    tries: list[PathTry] = []
    connected = await _dial(inv, dial, report, stop, tries)
    if isinstance(connected, GameOutcome):
        return connected
    stream, route = connected
    if report.on_tries is not None and tries:
        report.on_tries(tries)
    on_path = _joiner_path_hook(report, inv)
    if on_path is not None:
        on_path(route)
    try:
        local = prepare_game(
            identity=identity,
            role=Player.P0,
            transcript=path,
            options=settings.session,
            storage=replace(storage, meta={**storage.meta, "role": "join", "invite": str(inv)}),
            expected_peer_fingerprint=inv.fingerprint.lower(),
        )
    except OSError as exc:
        await trio.aclose_forcefully(stream)
        return GameOutcome.told(
            End.DISK_ERROR,
            "transcript-unwritable",
            os_error_facts(exc),
            me=Player.P0,
        )
    redialer = Redialer(
        inv,
        on_path=on_path,
        on_notice=report.on_notice,
        transcript=local.transcript,
        turn=dial.turn,
        on_tries=report.on_tries,
    )
    try:
        async with stream:
            outcome = await play_game(
                stream,
                local.session,
                strategy,
                PlayOptions(
                    clocks=settings.clocks,
                    expected_fingerprint=inv.fingerprint,
                    on_event=report.on_event,
                    stop=stop,
                    reconnector=redialer,
                    before_send=local.sync,
                    on_evidence=local.keep_evidence,
                    away_file=local.away_file,
                ),
            )
    finally:
        local.close()
    unplayed = _unplayed(local.session, outcome)
    if unplayed is not None:
        local.discard()  # nothing was played: keep no transcript
        return {_WITHOUT_EARLY: _WITHOUT_EARLY, _START_OVER: None}.get(unplayed, outcome)
    return replace(
        outcome,
        transcript=local.transcript,
        path=route,
        path_tries=tuple(t.as_json() for t in tries) or None,
        links=(_link(route, tries), *redialer.links) if tries else None,
    )


async def _dial(
    inv: Invite, dial: Dial, report: Reporting, stop: trio.Event | None, tries: list[PathTry]
) -> tuple[trio.abc.Stream, str] | GameOutcome:
    """Reach the host of ``inv``: the stream and its path, or the outcome of a join
    that could not connect (or was stopped first).  ``tries`` gets what became of
    each kind of path."""
    try:
        connected = await _unless_stopped(
            stop,
            lambda: connect(
                inv,
                connect_timeout=dial.connect_timeout,
                direct_window=dial.direct_window,
                tries=tries,
                turn=dial.turn,
                on_notice=report.on_notice,
            ),
        )
    except OSError as exc:
        return GameOutcome.told(
            End.CONNECTION_FAILED,
            "cannot-connect",
            {"address": host_port(inv.host, inv.port), **os_error_facts(exc)},
            me=Player.P0,
        )
    if connected is None:
        return GameOutcome.told(End.QUIT, "not-connected", {}, me=Player.P0)
    return connected


#: :func:`_unplayed`'s word for a connection cut during the handshake: start over.
_START_OVER = "start-over"


def _unplayed(session: Session, outcome: GameOutcome) -> str | None:
    """Why nothing of a game was played, so that its transcript is not kept, or
    ``None`` when it was: :data:`_WITHOUT_EARLY`, :data:`_START_OVER`, or another
    word (the outcome stands)."""
    if host_refused_early(session, outcome):
        return _WITHOUT_EARLY  # the host never took the coin
    if not session.game_id and outcome.end is End.CONNECTION_LOST:
        return _START_OVER  # cut during the handshake
    if not session.game_id and outcome.kind == "hello-timeout":
        return "no-hello"  # the caller may start over
    if not _started(session) and outcome.end is End.REFUSED:
        return "refused"
    if not _started(session) and _incompatible(outcome):
        # The hellos differ: a transcript ending in the host's honest hello would
        # read as its violation (wire.md 4): keep none, as the host.
        return "incompatible"
    return None


def _link(route: str, tries: list[PathTry]) -> dict[str, Any]:
    """One link's path and what became of each kind of path raced for it."""
    return {"path": route, "tries": [t.as_json() for t in tries]}


def _incompatible(outcome: GameOutcome) -> bool:
    """Whether a game ended because the two sides' settings differ (either side said so)."""
    return outcome.end is End.INCOMPATIBLE or (
        outcome.end is End.OPPONENT_ABORTED and outcome.abort_reason == "incompatible"
    )


def _keep(transcript: Path, error: RemoteProtocolError) -> None:
    with contextlib.suppress(OSError):
        keep_evidence(transcript, error)


def _joiner_path_hook(report: Reporting, inv: Invite) -> Callable[[str], None] | None:
    """``report.on_path`` with the host's address as the peer, for the joiner's side."""
    hook = report.on_path
    if hook is None:
        return None
    peer = host_port(inv.host, inv.port)
    return lambda route: hook(route, peer)
