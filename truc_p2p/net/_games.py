"""A game whose process died, finished: :func:`restore_game` rebuilds the session
from the transcript and its secret, :func:`resume_game` plays it on (the host
listens again, the joiner redials).

The games of one call live beside it: :mod:`._local_game` (a side's session and
files), :mod:`._host_game` and :mod:`._join_game`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.net._away import away_path_for
from truc_p2p.net._clocks import Clocks, GameSettings
from truc_p2p.net._host import Admission, GameSlot, HostLoop
from truc_p2p.net._invite import Invite, host_port
from truc_p2p.net._join_game import Redialer, _keep
from truc_p2p.net._local_game import _unless_stopped, relay_claim, secret_path_for
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import play_game
from truc_p2p.net._play_options import PlayOptions
from truc_p2p.net._reach import RelaySpot, open_reach
from truc_p2p.net._reconnect import BYE_WINDOW, Reconnector
from truc_p2p.net._settings import Listen, Reporting
from truc_p2p.net._strategy import Strategy
from truc_p2p.net._tcp import serve_game
from truc_p2p.protocol import Session, own_options
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter

__all__ = ["Restored", "restore_game", "resume_game"]


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
    #: what the session was rebuilt with, and the clocks the game goes on with
    settings: GameSettings


def restore_game(
    transcript: str | os.PathLike[str],
    *,
    identity: SigningKey,
    role: Player,
    settings: GameSettings = GameSettings(),
    meta: dict[str, Any] | None = None,
) -> Restored:
    """Reopen ``transcript`` for appending (cutting a torn last frame) and rebuild its
    session with the stored secret, with the options our hello in it was made with
    (``settings.session`` while it holds none: it is made again with them); the
    game goes on with ``settings.clocks``.  Raises ``OSError`` or ``ValueError``
    (:class:`~truc_p2p.protocol.LocalProtocolError` when the transcript is not
    this identity's and secret's)."""
    path = Path(transcript)
    secret = secret_path_for(path).read_bytes()
    writer = TranscriptWriter.open_append(path, sync="on-demand")
    envelopes = writer.existing
    torn = writer.repaired.dropped if writer.repaired is not None else 0
    try:
        options = own_options(envelopes, role) or settings.session
        session = Session.restore(
            envelopes,
            identity=identity,
            role=role,
            secret=secret,
            record=writer.append,
            options=options,
        )
    except BaseException:
        writer.close()
        raise
    return Restored(session, writer, torn, meta or {}, replace(settings, session=options))


async def resume_game(
    restored: Restored,
    strategy: Strategy,
    *,
    identity: SigningKey,
    report: Reporting = Reporting(),
    stop: trio.Event | None = None,
    invite: Invite | None = None,
    listen: Listen | None = None,
    first_wait: float | None = None,
) -> GameOutcome:
    """Finish a restored game with the clocks it was restored with: a joiner
    (``invite``) redials, a host (``listen``: its ``bind``, ``port`` and ``relay``)
    listens again on its port.  The opponent, still waiting in its grace period,
    resumes; the game then goes on to its end.  ``first_wait`` bounds the wait for
    the opponent's first coming back (``None``: the grace): a game stopped longer
    ago than the opponent waits was most likely ended by it, and waiting the whole
    grace for it only costs the player.

    A host that was registered with a relay passes it and the stored nonce of its
    claim (``listen.relay`` and ``listen.relay_nonce``): it registers the same code again
    (retrying in the background while the relay is unreachable), so a joiner
    behind NAT redials through the relay route of its invite."""
    session = restored.session
    me = session.me
    clocks = restored.settings.clocks
    grace = clocks.grace
    if session.result is not None:
        # Already co-signed: the opponent may only lack our last message; it redials
        # for that soon after the cut, or never (it has everything).
        grace = min(grace, BYE_WINDOW)
    wait = grace if first_wait is None else min(grace, first_wait)
    stop = stop if stop is not None else trio.Event()
    if not session.resumable:
        restored.writer.close()
        what = "ended" if session.finished else "unstarted"
        return GameOutcome.told(End.LOCAL_ERROR, f"nothing-to-resume-{what}", {}, me=me)

    async def play(source: Reconnector) -> GameOutcome | None:
        """Wait (within the grace) for the first connection from ``source`` and play."""
        got = None
        if isinstance(source, Redialer):  # it says so at once if the host is not answering
            source.waiting_until(trio.current_time() + wait)
        with trio.move_on_after(wait):
            got = await _unless_stopped(stop, source.next_stream)
        if got is None:
            if session.result is None:  # a finished game is not abandoned: nothing to sign
                _abandon(session, wait, stop)
            return None
        stream, prefix, dialled = got
        async with stream:
            return await play_game(
                stream,
                session,
                strategy,
                PlayOptions(
                    clocks=replace(clocks, grace=grace),
                    on_event=report.on_event,
                    stop=stop,
                    reconnector=source,
                    prefix=prefix,
                    resuming=dialled,
                    before_send=restored.writer.sync,
                    on_evidence=lambda exc: _keep(restored.writer.path, exc),
                    away_file=away_path_for(restored.writer.path),
                ),
            )

    outcome: GameOutcome | None = None
    try:
        if invite is not None:
            outcome = await play(
                Redialer(invite, on_notice=report.on_notice, transcript=restored.writer.path)
            )
            where: dict[str, Any] = {
                "kind": "host-unreachable",
                "address": host_port(invite.host, invite.port),
            }
        else:
            assert listen is not None
            outcome = await _listen_again(
                listen, session, identity, clocks=clocks, report=report, play=play
            )
            where = {"kind": "opponent-gone"}
    finally:
        restored.writer.close()
    if outcome is None:
        return _not_resumed(restored, wait, stop.is_set(), where)
    return replace(outcome, transcript=restored.writer.path)


async def _listen_again(
    listen: Listen,
    session: Session,
    identity: SigningKey,
    *,
    clocks: Clocks,
    report: Reporting,
    play: Callable[[Reconnector], Awaitable[GameOutcome | None]],
) -> GameOutcome | None:
    """A resuming host: listen again on its port (and relay), admit only the
    opponent's connections back into the game, and ``play`` it."""
    slot = GameSlot(session)
    nonce = listen.relay_nonce
    claim = relay_claim(identity, nonce) if nonce is not None else None

    async def no_new_games(stream: trio.abc.Stream, first: bytes, peer: str) -> None:
        raise AssertionError("capacity 0: unreachable")  # pragma: no cover

    async with (
        serve_game(bind=listen.bind, port=listen.port) as listener,
        open_reach(
            listener,
            fingerprint=session.fingerprint,
            relay=(
                RelaySpot(address=listen.relay, claim=claim, required=False)
                if listen.relay is not None
                else None
            ),
            portmap=False,
            announce_as=None,
            on_notice=report.on_notice,
        ) as reach,
    ):
        loop = HostLoop(
            reach,
            identity,
            no_new_games,
            hello_timeout=clocks.hello_timeout,
            admission=Admission(capacity=0),
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
    return outcome


def _not_resumed(
    restored: Restored, grace: float, stopped: bool, where: dict[str, Any]
) -> GameOutcome:
    """The outcome when the opponent did not come back (``where``: its kind and
    facts): a game co-signed already has ended, else we stopped or it is gone."""
    session = restored.session
    me = session.me
    result = session.result
    if result is not None:
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
    if stopped:
        return GameOutcome.told(End.QUIT, "stopped-resuming", {}, me=me)
    kind = where.pop("kind")
    return GameOutcome.told(End.OPPONENT_ABANDONED, kind, {**where, "grace": float(grace)}, me=me)
