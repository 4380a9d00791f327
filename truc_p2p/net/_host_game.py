"""Whole games in one call, the host's side: :func:`host_game`.

The host is the protocol's **responder** (player 1): the joiner connects and
speaks first, like a client.  A dropped connection is awaited for ``grace``
seconds.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.net._clocks import GameSettings
from truc_p2p.net._host import Admission, GameSlot, HostLoop
from truc_p2p.net._invite import Invite, settings_fields
from truc_p2p.net._lobby import LobbyListing, listing_fields
from truc_p2p.net._local_game import (
    LocalGame,
    _started,
    prepare_game,
    relay_claim,
    transcript_path,
)
from truc_p2p.net._nostr_client import NostrLister
from truc_p2p.net._notice import Notice
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import play_game
from truc_p2p.net._play_options import EventHook, PlayOptions
from truc_p2p.net._reach import Reach, RelaySpot, open_reach
from truc_p2p.net._relay_wire import code_for_claim
from truc_p2p.net._rendezvous import Rendezvous
from truc_p2p.net._settings import Listen, Reporting, Storage
from truc_p2p.net._strategy import Strategy
from truc_p2p.net._tcp import GameListener, serve_game
from truc_p2p.protocol import (
    MessageType,
    RemoteProtocolError,
    Series,
    decode_envelope,
    fingerprint,
)
from truc_p2p.rules import Player

__all__ = ["host_game"]


def _hosted(
    identity: SigningKey,
    path: Path | None,
    settings: GameSettings,
    storage: Storage,
    accept_series: Callable[[Series, str], bool] | None,
    meta: dict[str, Any],
) -> LocalGame:
    """The host's side (P1) of one game, recording into ``path``."""
    return prepare_game(
        identity=identity,
        role=Player.P1,
        transcript=path,
        options=settings.session,
        storage=replace(storage, meta=meta),
        accept_series=accept_series,
    )


def _relay_claim(
    identity: SigningKey, relay: tuple[str, int] | None, nonce: bytes | None = None
) -> tuple[bytes | None, dict[str, Any]]:
    """The claim a host registers with at ``relay`` (its code derives from it; the
    same ``nonce``, the same code), and what a resumed host needs to register again
    with the same code."""
    if relay is None:
        return None, {}
    relay_nonce = nonce if nonce is not None else secrets.token_bytes(16)
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
    identity: SigningKey,
    settings: GameSettings = GameSettings(),
    listen: Listen = Listen(),
    storage: Storage = Storage(),
    report: Reporting = Reporting(),
    stop: trio.Event | None = None,
    players: Callable[[], tuple[Strategy, EventHook | None]] | None = None,
) -> GameOutcome:
    """Listen, hand the invite to ``on_invite``, and play: the first game, or with
    ``listen.forever`` every game until ``stop`` is set (default: never).

    Connections are served concurrently (:class:`~._host.HostLoop`): one
    that sends no valid hello within ``settings.clocks.hello_timeout`` is dropped,
    joiners beyond ``listen.capacity`` running games are told the host is busy,
    keys not in ``listen.allow`` (fingerprints) are refused, and none of that
    ends the host.
    Without ``listen.forever`` the host returns the outcome of its first game that
    started (a joiner who drops during the handshake or proposes other
    settings does not count); with it, every game's outcome goes to
    ``report.on_outcome`` until ``stop`` is set.  ``players`` makes a fresh
    strategy and event hook per game (needed when games run at once).

    Beyond the listening port (:func:`~._reach.open_reach`): ``listen.relay``
    (host, port) registers with a relay so joiners behind NAT get in by a
    direct, punched or relayed path, ``listen.portmap`` asks the router to
    forward the port, ``listen.announce`` advertises the game on the LAN (both
    skipped on a loopback ``bind``), and ``report.on_path(path, peer)`` hears
    how each connection came: a game's first, and each a joiner's resume brought.
    Raises ``OSError`` if the address cannot be bound or the relay cannot be
    reached.
    """
    hosting = _Hosting(
        strategy=strategy,
        identity=identity,
        settings=settings,
        listen=listen,
        storage=storage,
        report=report,
        stop=stop if stop is not None else trio.Event(),
        forever=listen.forever,
        players=players,
    )
    return await hosting.run()


@dataclass
class _Hosting:
    """One :func:`host_game` call: its options, and what the handlers of its
    connections share (the games that ended, the prevs already followed)."""

    strategy: Strategy
    identity: SigningKey
    settings: GameSettings
    listen: Listen
    storage: Storage
    report: Reporting
    stop: trio.Event
    forever: bool
    players: Callable[[], tuple[Strategy, EventHook | None]] | None
    outcomes: list[GameOutcome] = field(default_factory=list)
    # host --forever: the games that ended, by game id: (joiner, first dealer, match length)
    finished_with: dict[bytes, tuple[str, Player, int]] = field(default_factory=dict)
    finished: trio.Event = field(default_factory=trio.Event)
    # wire.md 4.1: a game is followed once; the prevs of games started here
    followed: set[bytes] = field(default_factory=set)
    started_with: dict[bytes, bool] = field(default_factory=dict)
    relay_meta: dict[str, Any] = field(default_factory=dict)
    listing: bytes | None = None
    nostr: NostrLister | None = None
    # set by run(), once listening
    listener: GameListener = field(init=False)
    reach: Reach = field(init=False)
    loop: HostLoop = field(init=False)
    accept_series: Callable[[Series, str], bool] | None = field(init=False, default=None)

    @property
    def name(self) -> str:
        return self.settings.session.name

    def _turn_try(self, path: str) -> tuple[dict[str, Any], ...] | None:
        """What became of the host's TURN path (connect.md §4.1), if it has one."""
        rendezvous = self.reach.rendezvous if self.reach is not None else None
        if rendezvous is None or rendezvous.turn_server is None:
            return None
        server = str(rendezvous.turn_server)
        if path == "turn":
            return ({"path": "turn", "result": "won", "via": server},)
        if rendezvous.turn_failed is not None and rendezvous.turn is None:
            return ({"path": "turn", "result": "failed", "via": server},)
        return ({"path": "turn", "result": "not-used", "via": server},)

    async def run(self) -> GameOutcome:
        settings, listen, report, identity = self.settings, self.listen, self.report, self.identity
        game = settings.session
        relay = listen.relay
        # What a joiner must agree to: in the invite, the mDNS record (connect.md 1.1, 7)
        advertised = settings_fields(game)
        claim, self.relay_meta = _relay_claim(identity, relay, listen.relay_nonce)
        async with (
            serve_game(bind=listen.bind, port=listen.port) as listener,
            open_reach(
                listener,
                fingerprint=fingerprint(identity.public_key()),
                advertise=listen.advertise,
                relay=(
                    RelaySpot(address=relay, claim=claim, turn=listen.turn)
                    if relay is not None
                    else None
                ),
                portmap=listen.portmap,
                announce_as=self.name if listen.announce else None,
                settings=advertised,
                on_notice=report.on_notice,
            ) as reach,
        ):
            self.listener, self.reach = listener, reach
            invite = reach.invite()
            if listen.public and reach.rendezvous is not None:
                self.listing = _lobby_listing(
                    identity, settings, self.name, invite, reach.rendezvous
                )
            if listen.public and listen.nostr:
                self.nostr = nostr_lister(
                    identity,
                    settings,
                    self.name,
                    invite,
                    listen.nostr,
                    reach.rendezvous,
                    on_line=report.notice,
                )
            self.accept_series = listen.accept_series
            if self.accept_series is None and self.forever:
                self.accept_series = _rematch_of(self.finished_with, game.series)
            self.followed = set(listen.played)
            self.loop = loop = HostLoop(
                reach,
                identity,
                self.start,
                hello_timeout=settings.clocks.hello_timeout,
                admission=Admission(capacity=listen.capacity, allow=listen.allow),
                on_notice=report.on_notice,
                on_resumed=self._on_path,
            )
            if report.on_invite is not None:
                report.on_invite(invite)
            try:
                await self.set_listed(True)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(loop.serve)
                    nursery.start_soon(self.until_stopped)
                    if self.nostr is not None:
                        nursery.start_soon(self.nostr.refresh)
                    await self.finished.wait()
                    nursery.cancel_scope.cancel()
            finally:
                if self.nostr is not None:
                    await self.nostr.close()  # a host that stops unlists itself
        if self.outcomes and not self.forever:
            return self.outcomes[0]
        if self.outcomes:
            return self.outcomes[-1]
        return GameOutcome.told(End.QUIT, "nobody-joined", {}, me=Player.P1)

    async def until_stopped(self) -> None:
        await self.stop.wait()
        self.loop.accepting = False
        while self.loop.running:  # running games end themselves with a signed quit
            await trio.sleep(0.05)
        self.finished.set()

    async def set_listed(self, listed: bool) -> None:
        if self.listing is not None and self.reach.rendezvous is not None:
            await self.reach.rendezvous.set_listing(self.listing if listed else None)
        if self.nostr is not None:
            await self.nostr.set_listed(listed)

    async def start(self, stream: trio.abc.Stream, first: bytes, peer: str) -> None:
        """A joiner's connection, its hello read (``first``): a game linked to one
        played already is refused, else the game is played."""
        prev = _hello_prev(first)
        if prev is not None and prev in self.followed:
            self.report.notice(Notice("played", peer=peer, game=prev.hex()[:16]))
            await self.loop.refuse(stream, "played", "the game after this one was played already")
            return
        if prev is not None:
            self.followed.add(prev)  # taken now: a second hello naming it is refused
        try:
            await self.play_linked(stream, first, peer)
        finally:
            if prev is not None and not self.started_with.pop(prev, False):
                self.followed.discard(prev)  # no game started: the place is free again

    def open_game(self) -> LocalGame:
        """The host's side of a new game (``OSError``: its files cannot be written)."""
        storage, name = self.storage, self.name
        out_dir = storage.out_dir
        path = transcript_path(out_dir, f"host-{name}") if out_dir is not None else None
        meta = {**storage.meta, **self.relay_meta, "role": "host", "port": self.listener.port}
        return _hosted(self.identity, path, self.settings, storage, self.accept_series, meta)

    def _on_path(self, slot: GameSlot, stream: trio.abc.Stream, peer: str) -> None:
        """A new link of ``slot``'s game, its first or one a resume brought: kept in
        its ``links`` (connect.md §4.1), and told to ``report.on_path``."""
        path = self.reach.path_of(stream)
        slot.links.append({"path": path, "tries": list(self._turn_try(path) or ())})
        if self.report.on_path is not None:
            self.report.on_path(path, self.reach.peer_of(stream, peer))

    async def play_linked(self, stream: trio.abc.Stream, first: bytes, peer: str) -> None:
        loop, report, stop = self.loop, self.report, self.stop
        prev = _hello_prev(first)
        try:
            local = self.open_game()
        except OSError as exc:
            why = exc.strerror or str(exc)
            report.notice(Notice("cannot-start", peer=peer, error=why))
            with trio.CancelScope(shield=True):  # the joiner is told, not left guessing
                await loop.refuse(stream, "busy", f"the host cannot write a transcript: {why}")
            return
        slot = GameSlot(local.session, peer=peer)
        loop.games.append(slot)
        if len(loop.games) >= self.listen.capacity:
            await self.set_listed(False)  # no place left: off the lobby
        self._on_path(slot, stream, peer)
        players = self.players
        strat, hook = players() if players is not None else (self.strategy, report.on_event)
        outcome: GameOutcome | None = None
        try:
            with slot.scope:
                async with stream:
                    outcome = await play_game(
                        stream,
                        local.session,
                        strat,
                        PlayOptions(
                            clocks=self.settings.clocks,
                            on_event=hook,
                            stop=stop,
                            prefix=first,
                            reconnector=slot.reconnector,
                            before_send=local.sync,
                            on_evidence=local.keep_evidence,
                            away_file=local.away_file,
                        ),
                    )
        finally:
            if prev is not None:
                self.started_with[prev] = _started(local.session)
            local.close()
            loop.games.remove(slot)
            await slot.reconnector.aclose()
            if (
                loop.accepting
                and not stop.is_set()
                and (self.forever or not _started(local.session))
            ):
                with trio.CancelScope(shield=True), trio.move_on_after(5):
                    await self.set_listed(True)  # a place is free again
        self.game_ended(local, outcome, stream, peer, tuple(slot.links))

    def game_ended(
        self,
        local: LocalGame,
        outcome: GameOutcome | None,
        stream: trio.abc.Stream,
        peer: str,
        links: tuple[dict[str, Any], ...],
    ) -> None:
        """File the outcome of a game first played on ``stream`` over ``links`` (or
        drop a game that never started); without ``forever`` the first game's end
        ends the host."""
        report = self.report
        if outcome is None or (not _started(local.session) and not self.stop.is_set()):
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
        path = self.reach.path_of(stream)
        outcome = replace(
            outcome,
            transcript=local.transcript,
            path=path,
            path_tries=self._turn_try(path),
            links=links or None,
        )
        self.outcomes.append(outcome)
        if outcome.complete and local.session.peer_fingerprint is not None:
            self.finished_with[local.session.game_id] = (
                local.session.peer_fingerprint,
                local.session.game.first_dealer,
                local.session.series.match,
            )
        if report.on_outcome is not None:
            report.on_outcome(outcome)
        if not self.forever:
            self.loop.accepting = False
            self.finished.set()


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
    identity: SigningKey,
    settings: GameSettings,
    name: str,
    invite: Invite,
    rendezvous: Rendezvous,
) -> bytes:
    """The signed ``LIST`` body of a public host (``connect.md`` §2.2)."""
    listing = _host_listing(identity, settings, name, invite, rendezvous)
    return listing.sign(identity, rendezvous.code)


def _host_listing(
    identity: SigningKey,
    settings: GameSettings,
    name: str,
    invite: Invite,
    rendezvous: Rendezvous | None,
) -> LobbyListing:
    """What a public host lists, in a relay's lobby and on Nostr alike."""
    game = settings.session
    host = invite.host
    try:
        ipaddress.ip_address(host)
        addr = (host, invite.port)
    except ValueError:  # an advertised DNS name: the listing carries an address
        seen = rendezvous.observed[0] if rendezvous is not None and rendezvous.observed else None
        addr = (seen or "0.0.0.0", invite.port)
    return LobbyListing(
        key=identity.public_key().to_bytes(),
        addr=addr,
        fields=listing_fields(
            name=name,
            ruleset=game.ruleset.to_dict(),
            audit=game.audit,
            deck=game.deck,
            # the deal as the host plays it, as its invite says
            pipeline=bool(game.pipeline),
            early=game.early,
            match=game.series.match,
        ),
    )


def nostr_lister(
    identity: SigningKey,
    settings: GameSettings,
    name: str,
    invite: Invite,
    urls: tuple[str, ...],
    rendezvous: Rendezvous | None,
    *,
    on_line: Callable[[str], None],
) -> NostrLister:
    """The host's listing on Nostr relays (``connect.md`` §10): the relay lobby's
    listing, with the truc-p2p relay and code when the host is registered."""
    listing = _host_listing(identity, settings, name, invite, rendezvous)
    return NostrLister(
        identity,
        list(urls),
        listing,
        relay=invite.relay,
        code=invite.code,
        on_line=on_line,
    )


def _rematch_of(
    finished_with: dict[bytes, tuple[str, Player, int]], own: Series
) -> Callable[[Series, str], bool]:
    """``host --forever``: a joiner may link its game to a game it ended with us (a
    rematch, or the next game of a match), the other player dealing first, same
    match length; a first game must have our match length."""
    length = own.match

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
