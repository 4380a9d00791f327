"""Whole games in one call, the host's side: :func:`host_game`.

The host is the protocol's **responder** (player 1): the joiner connects and
speaks first, like a client.  A dropped connection is awaited for ``grace``
seconds.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from truc_p2p.net._host import GameSlot, HostLoop
from truc_p2p.net._invite import Invite, settings_fields
from truc_p2p.net._lobby import LobbyListing, listing_fields
from truc_p2p.net._local_game import (
    LocalGame,
    _started,
    prepare_game,
    relay_claim,
    transcript_path,
)
from truc_p2p.net._notice import Notice
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import play_game
from truc_p2p.net._play_options import EventHook
from truc_p2p.net._reach import open_reach
from truc_p2p.net._relay_wire import code_for_claim
from truc_p2p.net._rendezvous import Rendezvous
from truc_p2p.net._settings import GameSettings, Listen, Reporting, Storage
from truc_p2p.net._strategy import Strategy
from truc_p2p.net._tcp import serve_game
from truc_p2p.protocol import (
    MessageType,
    RemoteProtocolError,
    Series,
    decode_envelope,
    fingerprint,
)
from truc_p2p.rules import Player, Ruleset

__all__ = ["host_game"]


def _hosted(
    identity: Ed25519PrivateKey,
    path: Path | None,
    settings: GameSettings,
    storage: Storage,
    name: str,
    accept_series: Callable[[Series, str], bool] | None,
    meta: dict[str, Any],
) -> LocalGame:
    """The host's side (P1) of one game, recording into ``path``."""
    return prepare_game(
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
        meta=meta,
    )


def _relay_claim(
    identity: Ed25519PrivateKey, relay: tuple[str, int] | None
) -> tuple[bytes | None, dict[str, Any]]:
    """The claim a host registers with at ``relay`` (its code derives from it), and
    what a resumed host needs to register again with the same code."""
    if relay is None:
        return None, {}
    relay_nonce = secrets.token_bytes(16)
    claim = relay_claim(identity, relay_nonce)
    meta = {
        "relay": [relay[0], relay[1]],
        "relay_nonce": relay_nonce.hex(),
        "relay_code": code_for_claim(claim),
    }
    return claim, meta


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
    claim, relay_meta = _relay_claim(identity, relay)
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
                meta = {**storage.meta, **relay_meta, "role": "host", "port": listener.port}
                local = _hosted(identity, path, settings, storage, name, accept_series, meta)
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
                            **settings.clocks(),
                            on_event=hook,
                            stop=stop,
                            prefix=first,
                            reconnector=slot.reconnector,
                            before_send=local.sync,
                            on_evidence=local.keep_evidence,
                            away_file=local.away_file,
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
