"""Whole games in one call: :func:`host_game` and :func:`join_game`.

Both write the transcript (every envelope, flushed before it is acted on;
our own envelopes fsynced before they are sent) and store the session
secret beside it (``<transcript>.secret``, mode 0600) and what a restart
needs (``<transcript>.meta.json``: role, address, settings) so that
:func:`resume_game` can finish a game whose process died.  The host is the
protocol's **responder** (player 1): the joiner connects and speaks first,
like a client, and checks the host's key against the invite as soon as the
host's hello arrives.  A dropped connection is redialled by the joiner and
awaited by the host for ``grace`` seconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from truc_p2p.evidence import keep_evidence
from truc_p2p.identity import write_private_file
from truc_p2p.net._connect import DIRECT_WINDOW, Rendezvous, connect
from truc_p2p.net._host import GameSlot, HostLoop
from truc_p2p.net._invite import Invite, host_port, settings_fields
from truc_p2p.net._lobby import LobbyListing, listing_fields
from truc_p2p.net._notice import Notice
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import EventHook, play_game
from truc_p2p.net._reach import open_reach
from truc_p2p.net._reconnect import BYE_WINDOW, Reconnector
from truc_p2p.net._relay_wire import CLAIM_LEN, code_for_claim
from truc_p2p.net._settings import Dial, GameSettings, Listen, Reporting, Storage
from truc_p2p.net._strategy import Strategy
from truc_p2p.net._tcp import serve_game
from truc_p2p.protocol import (
    MessageType,
    RemoteProtocolError,
    Series,
    Session,
    decode_envelope,
    fingerprint,
)
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import TranscriptWriter

__all__ = [
    "LocalGame",
    "Redialer",
    "Restored",
    "host_game",
    "join_game",
    "meta_path_for",
    "prepare_game",
    "read_meta",
    "relay_claim",
    "restore_game",
    "resume_game",
    "secret_path_for",
    "transcript_path",
    "write_meta",
]

T = TypeVar("T")


def transcript_path(out_dir: str | os.PathLike[str], label: str) -> Path:
    """A fresh transcript file name: ``<out_dir>/game-<date>-<time>-<random>-<label>.truc``."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", label)[:40] or "player"
    tag = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    return Path(out_dir) / f"game-{tag}-{safe}.truc"


@dataclass
class LocalGame:
    """A new session, with its transcript writer (if any)."""

    session: Session
    transcript: Path | None
    writer: TranscriptWriter | None

    @property
    def secret_path(self) -> Path | None:
        return None if self.transcript is None else secret_path_for(self.transcript)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def sync(self) -> None:
        """Our own envelopes reach the disk before their bytes leave (no equivocation)."""
        if self.writer is not None:
            self.writer.sync()

    def keep_evidence(self, error: RemoteProtocolError) -> None:
        """Keep the signed control messages of ``error`` beside the transcript."""
        if self.transcript is not None:
            with contextlib.suppress(OSError):  # the abort still says what happened
                keep_evidence(self.transcript, error)

    def discard(self) -> None:
        """Close and delete the files (a connection that never started a game)."""
        self.close()
        if self.transcript is None:
            return
        for path in (self.transcript, self.secret_path, meta_path_for(self.transcript)):
            if path is not None:
                path.unlink(missing_ok=True)


def secret_path_for(transcript: Path) -> Path:
    return transcript.with_name(transcript.name + ".secret")


def meta_path_for(transcript: Path) -> Path:
    return transcript.with_name(transcript.name + ".meta.json")


def write_meta(transcript: Path, meta: dict[str, Any]) -> None:
    """Store what ``truc-p2p resume`` needs beside the transcript (no secrets in it)."""
    path = meta_path_for(transcript)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"format": 1, **meta}, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_meta(transcript: Path) -> dict[str, Any]:
    """The stored settings of a transcript (``OSError``/``ValueError`` when unusable)."""
    meta = json.loads(meta_path_for(transcript).read_text())
    if not isinstance(meta, dict) or meta.get("format") != 1:
        raise ValueError("not a truc-p2p game settings file")
    return meta


def relay_claim(identity: Ed25519PrivateKey, nonce: bytes) -> bytes:
    """The claim a host registers with a relay (``connect.md`` §2.1): derived from its
    key and a random ``nonce`` (stored in the game's meta, which holds no secrets),
    so ``truc-p2p resume`` registers the same code again and nobody else can."""
    signature = identity.sign(b"truc-p2p relay claim v1" + nonce)  # Ed25519: deterministic
    return hashlib.sha256(signature).digest()[:CLAIM_LEN]


def prepare_game(
    *,
    identity: Ed25519PrivateKey,
    role: Player,
    transcript: str | os.PathLike[str] | None,
    ruleset: Ruleset | None = None,
    name: str = "player",
    audit: str = "game",
    secret: bytes | None = None,
    fsync: bool = True,
    lazy_sync: bool = True,
    expected_peer_fingerprint: str | None = None,
    deck: str = "v2",
    pipeline: bool | None = None,
    meta: dict[str, Any] | None = None,
    early: bool | None = None,
    series: Series | None = None,
    accept_series: Callable[[Series, str], bool] | None = None,
) -> LocalGame:
    """Create a session recording into ``transcript`` (``None``: no files).

    ``early`` proposes early cards (wire.md 6a; ``None``: the session's default).

    The 32-byte ``secret`` (fresh random by default) is written to
    ``<transcript>.secret`` with mode 0600; it is never printed or logged.  ``meta``
    (what ``truc-p2p resume`` needs, no secrets) goes to ``<transcript>.meta.json``.
    """
    secret = secrets.token_bytes(32) if secret is None else secret
    path = Path(transcript) if transcript is not None else None
    writer = None
    if path is not None:
        writer = TranscriptWriter(
            path, sync=("on-demand" if lazy_sync else "each") if fsync else "never"
        )
        try:
            write_private_file(secret_path_for(path), secret)
            if meta is not None:
                write_meta(path, meta)
        except BaseException:
            writer.close()
            raise
    session = Session(
        identity=identity,
        role=role,
        secret=secret,
        ruleset=ruleset,
        name=name,
        audit=audit,
        record=writer.append if writer is not None else None,
        expected_peer_fingerprint=expected_peer_fingerprint,
        deck=deck,
        pipeline=pipeline,
        early=early,
        series=series,
        accept_series=accept_series,
        heartbeat=True,  # we speak heartbeats (wire.md 11.1, 13.6): our hello says so
    )
    return LocalGame(session, path, writer)


async def _unless_stopped(stop: trio.Event | None, fn: Callable[[], Awaitable[T]]) -> T | None:
    """Run ``fn``; ``None`` if ``stop`` is set first."""
    if stop is None:
        return await fn()
    result: list[T] = []
    errors: list[Exception] = []
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            await stop.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        try:
            result.append(await fn())
        except Exception as exc:  # re-raised below, outside the nursery's group
            errors.append(exc)
        nursery.cancel_scope.cancel()
    if errors:
        raise errors[0]
    return result[0] if result else None


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
    now) and ``on_path`` hears the path.
    """

    def __init__(
        self,
        host: str | Invite,
        port: int | None = None,
        *,
        connect_timeout: float = 5.0,
        on_path: Callable[[str], None] | None = None,
    ) -> None:
        self.invite = host if isinstance(host, Invite) else None
        self.host = host.host if isinstance(host, Invite) else host
        self.port = host.port if isinstance(host, Invite) else port
        self.connect_timeout = connect_timeout
        self.on_path = on_path
        self.attempts = 0

    async def _dial(self) -> trio.abc.Stream:
        if self.invite is None or self.invite.relay is None:
            assert self.port is not None
            return await _connect(self.host, self.port, self.connect_timeout)
        timeout = max(self.connect_timeout, DIRECT_WINDOW + 5)
        stream, route = await connect(self.invite, connect_timeout=timeout)
        if self.on_path is not None:
            self.on_path(route)
        return stream

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        delay = 0.25
        while True:
            self.attempts += 1
            try:
                stream = await self._dial()
            except OSError:
                await trio.sleep(delay)
                delay = min(delay * 2, 4.0)
                continue
            return stream, b"", True


def _started(session: Session) -> bool:
    """Whether the game got past the handshake (the first dealer is drawn)."""
    return session.started


async def host_game(
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
    settings: GameSettings = GameSettings(),
    listen: Listen = Listen(),
    storage: Storage = Storage(),
    report: Reporting = Reporting(),
    stop: trio.Event | None = None,
    forever: bool = False,
    players: Callable[[], tuple[Strategy, EventHook | None]] | None = None,
) -> GameOutcome:
    """Listen, hand the invite to ``on_invite``, and play.

    Connections are served concurrently (:class:`~._host.HostLoop`): one
    that sends no valid hello within ``settings.hello_timeout`` is dropped,
    joiners beyond ``listen.capacity`` running games are told the host is busy,
    keys not in ``listen.allow`` (fingerprints) are refused, and none of that
    ends the host.
    Without ``forever`` the host returns the outcome of its first game that
    started (a joiner who drops during the handshake or proposes other
    settings does not count); with it, every game's outcome goes to
    ``report.on_outcome`` until ``stop`` is set.  ``players`` makes a fresh
    strategy and event hook per game (needed when games run at once).

    Beyond the listening port (:func:`~._reach.open_reach`): ``listen.relay``
    (host, port) registers with a relay so joiners behind NAT get in by a
    direct, punched or relayed path, ``listen.portmap`` asks the router to
    forward the port, ``listen.announce`` advertises the game on the LAN (both
    skipped on a loopback ``bind``), and ``report.on_path(path, peer)`` hears
    how each connection came.
    Raises ``OSError`` if the address cannot be bound or the relay cannot be
    reached.
    """
    outcomes: list[GameOutcome] = []
    # host --forever: the games that ended, by game id: (joiner, first dealer, match length)
    finished_with: dict[bytes, tuple[str, Player, int]] = {}
    finished = trio.Event()
    stop = stop if stop is not None else trio.Event()
    rules = settings.ruleset or Ruleset()
    name = settings.name or "host"
    relay = listen.relay
    # What a joiner must agree to: in the invite, the mDNS record (connect.md 1.1, 7)
    match = settings.series.match if settings.series is not None else 1
    advertised = settings_fields(
        rules, audit=settings.audit, deck=settings.deck, pipeline=settings.pipeline, match=match
    )
    relay_nonce = secrets.token_bytes(16)
    claim = relay_claim(identity, relay_nonce) if relay is not None else None
    relay_meta: dict[str, Any] = {}
    if relay is not None and claim is not None:  # what a resumed host registers again with
        relay_meta = {
            "relay": [relay[0], relay[1]],
            "relay_nonce": relay_nonce.hex(),
            "relay_code": code_for_claim(claim),
        }
    async with (
        serve_game(bind=listen.bind, port=listen.port) as listener,
        open_reach(
            listener,
            fingerprint=fingerprint(identity.public_key()),
            name=name,
            advertise=listen.advertise,
            relay=relay,
            relay_claim=claim,
            portmap=listen.portmap,
            announce=listen.announce,
            settings=advertised,
            on_notice=report.on_notice,
        ) as reach,
    ):
        invite = reach.invite()
        listing = (
            _lobby_listing(identity, settings, name, invite, reach.rendezvous)
            if listen.public and reach.rendezvous is not None
            else None
        )

        async def set_listed(listed: bool) -> None:
            if listing is not None and reach.rendezvous is not None:
                await reach.rendezvous.set_listing(listing if listed else None)

        accept_series = settings.accept_series
        if accept_series is None and forever:
            accept_series = _rematch_of(finished_with, settings.series)
        # wire.md 4.1: a game is followed once; the prevs of games started here
        followed: set[bytes] = set(settings.played)

        async def start(stream: trio.abc.Stream, first: bytes, peer: str) -> None:
            prev = _hello_prev(first)
            if prev is not None and prev in followed:
                report.notice(Notice("played", peer=peer, game=prev.hex()[:16]))
                await loop.refuse(stream, "played", "the game after this one was played already")
                return
            if prev is not None:
                followed.add(prev)  # taken now: a second hello naming it is refused
            try:
                await play_linked(stream, first, peer)
            finally:
                if prev is not None and not started_with.pop(prev, False):
                    followed.discard(prev)  # no game started: the place is free again

        started_with: dict[bytes, bool] = {}

        async def play_linked(stream: trio.abc.Stream, first: bytes, peer: str) -> None:
            prev = _hello_prev(first)
            out_dir = storage.out_dir
            path = transcript_path(out_dir, f"host-{name}") if out_dir is not None else None
            try:
                local = prepare_game(
                    identity=identity,
                    role=Player.P1,
                    transcript=path,
                    ruleset=settings.ruleset,
                    name=name,
                    audit=settings.audit,
                    fsync=storage.fsync,
                    lazy_sync=not storage.sync_each,
                    deck=settings.deck,
                    pipeline=settings.pipeline,
                    early=settings.early,
                    series=settings.series,
                    accept_series=accept_series,
                    meta={**storage.meta, **relay_meta, "role": "host", "port": listener.port},
                )
            except OSError as exc:
                why = exc.strerror or str(exc)
                report.notice(Notice("cannot-start", peer=peer, error=why))
                with trio.CancelScope(shield=True):  # the joiner is told, not left guessing
                    await loop.refuse(stream, "busy", f"the host cannot write a transcript: {why}")
                return
            slot = GameSlot(local.session, peer=peer)
            loop.games.append(slot)
            if len(loop.games) >= listen.capacity:
                await set_listed(False)  # no place left: off the lobby
            if report.on_path is not None:
                report.on_path(reach.path_of(stream), reach.peer_of(stream, peer))
            strat, hook = players() if players is not None else (strategy, report.on_event)
            outcome: GameOutcome | None = None
            try:
                with slot.scope:
                    async with stream:
                        outcome = await play_game(
                            stream,
                            local.session,
                            strat,
                            turn_timeout=settings.turn_timeout,
                            hello_timeout=settings.hello_timeout,
                            on_event=hook,
                            stop=stop,
                            prefix=first,
                            reconnector=slot.reconnector,
                            grace=settings.grace,
                            away_budget=settings.away_budget,
                            heartbeat=settings.heartbeat,
                            dead_after=settings.dead_after,
                            before_send=local.sync,
                            on_evidence=local.keep_evidence,
                        )
            finally:
                if prev is not None:
                    started_with[prev] = _started(local.session)
                local.close()
                loop.games.remove(slot)
                await slot.reconnector.aclose()
                if (
                    loop.accepting
                    and not stop.is_set()
                    and (forever or not _started(local.session))
                ):
                    with trio.CancelScope(shield=True), trio.move_on_after(5):
                        await set_listed(True)  # a place is free again
            if outcome is None or (not _started(local.session) and not stop.is_set()):
                local.discard()
                if outcome is None:
                    return  # replaced by a new joiner before the game started
                report.notice(
                    Notice(
                        "no-game",
                        peer=peer,
                        text=outcome.message,
                        outcome_kind=outcome.kind,
                        outcome_facts=dict(outcome.facts),
                    )
                )
                return
            outcome = replace(outcome, transcript=local.transcript, path=reach.path_of(stream))
            outcomes.append(outcome)
            if outcome.complete and local.session.peer_fingerprint is not None:
                finished_with[local.session.game_id] = (
                    local.session.peer_fingerprint,
                    local.session.game.first_dealer,
                    local.session.series.match,
                )
            if report.on_outcome is not None:
                report.on_outcome(outcome)
            if not forever:
                loop.accepting = False
                finished.set()

        loop = HostLoop(
            reach,
            identity,
            start,
            hello_timeout=settings.hello_timeout,
            capacity=listen.capacity,
            allow=listen.allow,
            on_notice=report.on_notice,
        )
        if report.on_invite is not None:
            report.on_invite(invite)
        await set_listed(True)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(loop.serve)

            async def until_stopped() -> None:
                await stop.wait()
                loop.accepting = False
                while loop.running:  # running games end themselves with a signed quit
                    await trio.sleep(0.05)
                finished.set()

            nursery.start_soon(until_stopped)
            await finished.wait()
            nursery.cancel_scope.cancel()
    if outcomes and not forever:
        return outcomes[0]
    if outcomes:
        return outcomes[-1]
    return GameOutcome.told(End.QUIT, "nobody-joined", {}, me=Player.P1)


def _hello_prev(first: bytes) -> bytes | None:
    """The ``prev`` a joiner's first frame (its hello) names, if any (wire.md 4.1)."""
    try:
        env = decode_envelope(first[4 : 4 + int.from_bytes(first[:4], "big")])
    except RemoteProtocolError:
        return None
    options = env.payload.get("options") if env.type == MessageType.HELLO else None
    prev = options.get("prev") if isinstance(options, dict) else None
    return prev if isinstance(prev, bytes) and len(prev) == 32 else None


def _lobby_listing(
    identity: Ed25519PrivateKey,
    settings: GameSettings,
    name: str,
    invite: Invite,
    rendezvous: Rendezvous,
) -> bytes:
    """The signed ``LIST`` body of a public host (``connect.md`` §2.2)."""
    rules = settings.ruleset or Ruleset()
    host = invite.host
    try:
        ipaddress.ip_address(host)
        addr = (host, invite.port)
    except ValueError:  # an advertised DNS name: the listing carries an address
        addr = (rendezvous.observed[0] if rendezvous.observed else "0.0.0.0", invite.port)
    listing = LobbyListing(
        key=identity.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
        addr=addr,
        fields=listing_fields(
            name=name,
            ruleset=rules.to_dict(),
            audit=settings.audit,
            deck=settings.deck,
            # the deal as the host plays it, as its invite says (None: the default, on)
            pipeline=(settings.deck == "v2")
            if settings.pipeline is None
            else (settings.pipeline and settings.deck == "v2"),
            early=settings.early,
            match=settings.series.match if settings.series is not None else 1,
        ),
    )
    return listing.sign(identity, rendezvous.code)


def _rematch_of(
    finished_with: dict[bytes, tuple[str, Player, int]], own: Series | None
) -> Callable[[Series, str], bool]:
    """``host --forever``: a joiner may link its game to a game it ended with us (a
    rematch, or the next game of a match), the other player dealing first, same
    match length; a first game must have our match length."""
    length = own.match if own is not None else 1

    def accept(series: Series, peer: str) -> bool:
        if series.prev is None:
            return series.match == length
        before = finished_with.get(series.prev)
        return (
            before is not None
            and before[0] == peer
            and series.dealer is before[1].other
            and series.match == before[2]
        )

    return accept


async def join_game(
    invite: Invite | str,
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
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
    patience = settings.hello_timeout + HANDSHAKE_MARGIN
    attempt, delay = 0, HANDSHAKE_FIRST_DELAY
    if _host_key(invite) in _HOSTS_WITHOUT_EARLY and settings.early is not False:
        settings = replace(settings, early=False)  # this host turned them down before
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
            settings = replace(settings, early=False)
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


#: How often a joiner starts over, at least, when the connection drops before the game began.
HANDSHAKE_ATTEMPTS = 5
#: Seconds beyond the hello timeout a joiner keeps starting over.
HANDSHAKE_MARGIN = 5.0
#: The joiner's backoff between two handshake attempts: first and largest delay.
HANDSHAKE_FIRST_DELAY = 0.25
HANDSHAKE_MAX_DELAY = 4.0
#: ``_join_once``'s answer when the host may predate early cards (wire.md 6a, 11.1):
#: our hello proposed them and the game ended before the coin was flipped the ways
#: older hosts answer an option they do not know (see :func:`_host_refused_early`).
#: The joiner starts a new game, once, without proposing them.
_WITHOUT_EARLY = "without-early"
#: Hosts (key, address, port) that turned early cards down in this process: the
#: games that follow with them (a rematch, the rest of a match) do not propose them.
_HOSTS_WITHOUT_EARLY: set[tuple[str, str, int]] = set()
#: The abort reasons with which hosts of earlier specs refuse an unknown option:
#: ``malformed`` (the option map has another shape) or ``incompatible``.
_REFUSALS_OF_EARLY = frozenset({"malformed", "incompatible"})


def _host_key(inv: Invite) -> tuple[str, str, int]:
    return (inv.fingerprint.lower(), inv.host, inv.port)


def _host_refused_early(session: Session, outcome: GameOutcome) -> bool:
    """Whether ``outcome`` may be an older host turning down our early-cards proposal
    (wire.md 11.1): our hello proposed them, the host signed nothing but perhaps a
    hello and the abort, and the host either aborted ``malformed`` or ``incompatible`` -- after
    a hello that lacks only ``early`` (anything else we would have found ourselves)
    or without a hello -- or closed the connection before its hello.  A new host
    that merely dropped us is then played without early cards: a small loss, where
    a wrong guess the other way loses the game."""
    if not session.early_proposed or session.peer_played:
        return False
    if session.peer_fingerprint is not None and session.early:
        return False  # its hello took early cards: the refusal is of something else
    if outcome.end is End.OPPONENT_ABORTED:
        return outcome.abort_reason in _REFUSALS_OF_EARLY
    return outcome.end is End.CONNECTION_LOST and session.peer_fingerprint is None


async def _join_once(
    inv: Invite,
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
    settings: GameSettings,
    dial: Dial,
    storage: Storage,
    report: Reporting,
    stop: trio.Event | None,
) -> GameOutcome | str | None:
    """One attempt; ``None`` when the connection dropped before the game id existed,
    :data:`_WITHOUT_EARLY` when the host predates early cards."""
    name = settings.name or "guest"
    out_dir = storage.out_dir
    path = transcript_path(out_dir, f"join-{name}") if out_dir is not None else None
    try:
        connected = await _unless_stopped(
            stop,
            lambda: connect(
                inv, connect_timeout=dial.connect_timeout, direct_window=dial.direct_window
            ),
        )
    except OSError as exc:
        return GameOutcome.told(
            End.CONNECTION_FAILED,
            "cannot-connect",
            {"address": host_port(inv.host, inv.port), "error": str(exc.strerror or exc)},
            me=Player.P0,
        )
    if connected is None:
        return GameOutcome.told(End.QUIT, "not-connected", {}, me=Player.P0)
    stream, route = connected
    on_path = _joiner_path_hook(report, inv)
    if on_path is not None:
        on_path(route)
    try:
        local = prepare_game(
            identity=identity,
            role=Player.P0,
            transcript=path,
            ruleset=settings.ruleset,
            name=name,
            audit=settings.audit,
            fsync=storage.fsync,
            lazy_sync=not storage.sync_each,
            expected_peer_fingerprint=inv.fingerprint.lower(),
            deck=settings.deck,
            pipeline=settings.pipeline,
            early=settings.early,
            series=settings.series,
            meta={**storage.meta, "role": "join", "invite": str(inv)},
        )
    except OSError as exc:
        await trio.aclose_forcefully(stream)
        return GameOutcome.told(
            End.DISK_ERROR,
            "transcript-unwritable",
            {"error": str(exc.strerror or exc)},
            me=Player.P0,
        )
    try:
        async with stream:
            outcome = await play_game(
                stream,
                local.session,
                strategy,
                turn_timeout=settings.turn_timeout,
                hello_timeout=settings.hello_timeout,
                expected_fingerprint=inv.fingerprint,
                on_event=report.on_event,
                stop=stop,
                reconnector=Redialer(inv, on_path=on_path),
                grace=settings.grace,
                away_budget=settings.away_budget,
                heartbeat=settings.heartbeat,
                dead_after=settings.dead_after,
                before_send=local.sync,
                on_evidence=local.keep_evidence,
            )
    finally:
        local.close()
    if _host_refused_early(local.session, outcome):
        local.discard()  # nothing was played: the host never took the coin
        return _WITHOUT_EARLY
    if not local.session.game_id and outcome.end is End.CONNECTION_LOST:
        local.discard()
        return None  # cut during the handshake: start over
    if not _started(local.session) and outcome.end is End.REFUSED:
        local.discard()
        return outcome
    if not _started(local.session) and _incompatible(outcome):
        # The hellos differ: nothing was played, and a transcript ending in the host's
        # honest hello would read as its violation (wire.md 4): keep none, as the host.
        local.discard()
        return outcome
    return replace(outcome, transcript=local.transcript, path=route)


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


def _abandon(session: Session, grace: float, stop: trio.Event) -> None:
    """Record our signed abort when the opponent never came back (or we stopped)."""
    if stop.is_set():
        session.abort("quit", "the player left while waiting for the opponent")
    else:
        session.abort("abandoned", f"the opponent did not come back within {grace:g} s")


@dataclass
class Restored:
    """A session rebuilt from its transcript, ready to reconnect."""

    session: Session
    writer: TranscriptWriter
    torn_bytes: int
    meta: dict[str, Any]


def restore_game(
    transcript: str | os.PathLike[str],
    *,
    identity: Ed25519PrivateKey,
    ruleset: Ruleset | None,
    name: str,
    audit: str,
    role: Player,
    meta: dict[str, Any] | None = None,
) -> Restored:
    """Reopen ``transcript`` for appending (cutting a torn last frame) and rebuild its
    session with the stored secret.  Raises ``OSError`` or ``ValueError``
    (:class:`~truc_p2p.protocol.LocalProtocolError` when the transcript is not
    this identity's and secret's)."""
    path = Path(transcript)
    secret = secret_path_for(path).read_bytes()
    writer = TranscriptWriter.open_append(path, sync="on-demand")
    envelopes = writer.existing
    torn = writer.repaired.dropped if writer.repaired is not None else 0
    try:
        session = Session.restore(
            envelopes,
            identity=identity,
            role=role,
            secret=secret,
            ruleset=ruleset,
            name=name,
            audit=audit,
            record=writer.append,
        )
    except BaseException:
        writer.close()
        raise
    return Restored(session, writer, torn, meta or {})


async def resume_game(
    restored: Restored,
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
    listen: Listen | None = None,
    invite: Invite | None = None,
    settings: GameSettings = GameSettings(),
    report: Reporting = Reporting(),
    stop: trio.Event | None = None,
    claim: bytes | None = None,
) -> GameOutcome:
    """Finish a restored game: a joiner (``invite``) redials, a host (``listen``:
    its ``bind``, ``port`` and ``relay``) listens again on its port.  Of
    ``settings`` only the clocks count (the rest is in the transcript).  The
    opponent, still waiting in its grace period, resumes; the game then goes on
    to its end.

    A host that was registered with a relay passes it and its ``claim``
    (:func:`relay_claim` of the stored nonce): it registers the same code again
    (retrying in the background while the relay is unreachable), so a joiner
    behind NAT redials through the relay route of its invite."""
    session = restored.session
    me = session.me
    grace = settings.grace
    if session.result is not None:
        # Already co-signed: the opponent may only lack our last message; it redials
        # for that soon after the cut, or never (it has everything).
        grace = min(grace, BYE_WINDOW)
    stop = stop if stop is not None else trio.Event()
    if not session.resumable:
        restored.writer.close()
        what = "ended" if session.finished else "unstarted"
        return GameOutcome.told(End.LOCAL_ERROR, f"nothing-to-resume-{what}", {}, me=me)

    async def play(source: Reconnector) -> GameOutcome | None:
        """Wait (within the grace) for the first connection from ``source`` and play."""
        got = None
        with trio.move_on_after(grace):
            got = await _unless_stopped(stop, source.next_stream)
        if got is None:
            if session.result is None:  # a finished game is not abandoned: nothing to sign
                _abandon(session, grace, stop)
            return None
        stream, prefix, dialled = got
        async with stream:
            return await play_game(
                stream,
                session,
                strategy,
                turn_timeout=settings.turn_timeout,
                hello_timeout=settings.hello_timeout,
                on_event=report.on_event,
                stop=stop,
                reconnector=source,
                grace=grace,
                away_budget=settings.away_budget,
                heartbeat=settings.heartbeat,
                dead_after=settings.dead_after,
                prefix=prefix,
                resuming=dialled,
                before_send=restored.writer.sync,
                on_evidence=lambda exc: _keep(restored.writer.path, exc),
            )

    outcome: GameOutcome | None = None
    try:
        if invite is not None:
            outcome = await play(Redialer(invite))
            where: dict[str, Any] = {
                "kind": "host-unreachable",
                "address": host_port(invite.host, invite.port),
            }
        else:
            assert listen is not None
            slot = GameSlot(session)

            async def no_new_games(stream: trio.abc.Stream, first: bytes, peer: str) -> None:
                raise AssertionError("capacity 0: unreachable")  # pragma: no cover

            async with (
                serve_game(bind=listen.bind, port=listen.port) as listener,
                open_reach(
                    listener,
                    fingerprint=session.fingerprint,
                    relay=listen.relay,
                    relay_claim=claim,
                    relay_required=False,
                    portmap=False,
                    announce=False,
                    on_notice=report.on_notice,
                ) as reach,
            ):
                loop = HostLoop(
                    reach,
                    identity,
                    no_new_games,
                    hello_timeout=settings.hello_timeout,
                    capacity=0,
                    on_notice=report.on_notice,
                )
                loop.games.append(slot)
                if report.on_listening is not None:
                    report.on_listening(listener.port)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(loop.serve)
                    outcome = await play(slot.reconnector)
                    nursery.cancel_scope.cancel()
                await slot.reconnector.aclose()
            where = {"kind": "opponent-gone"}
    finally:
        restored.writer.close()
    result = session.result
    if outcome is None and result is not None:
        return GameOutcome.told(
            End.FINISHED,
            "already-ended",
            {"first": result.scores[0], "second": result.scores[1], "grace": float(grace)},
            me=me,
            result=result,
            scores=result.scores,
            game_id=session.game_id or None,
            transcript=restored.writer.path,
        )
    if outcome is None:
        if stop.is_set():
            return GameOutcome.told(End.QUIT, "stopped-resuming", {}, me=me)
        kind = where.pop("kind")
        return GameOutcome.told(
            End.OPPONENT_ABANDONED, kind, {**where, "grace": float(grace)}, me=me
        )
    assert outcome is not None
    return replace(outcome, transcript=restored.writer.path)
