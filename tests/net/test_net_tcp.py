"""host_game / join_game over real loopback TCP (IPv4 and IPv6), in one process."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
import trio
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Storage,
    host_game,
    join_game,
    open_game,
    serve_game,
)
from truc_p2p.protocol import SessionOptions, fingerprint, verify_transcript
from truc_p2p.rules import Player
from truc_p2p.transcript import read_transcript


def _has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


async def _host_and_join(
    tmp_path: Path,
    *,
    bind: str,
    fp: str | None = None,
    junk_first: bool = False,
    then_real: bool = False,
) -> tuple[GameOutcome, GameOutcome, list[str]]:
    host_key, join_key = SigningKey.generate(), SigningKey.generate()
    invites: list[Invite] = []
    notices: list[str] = []
    got_invite = trio.Event()
    results: dict[str, GameOutcome] = {}

    def on_invite(invite: Invite) -> None:
        invites.append(invite)
        got_invite.set()

    async def host() -> None:
        results["host"] = await host_game(
            bot(1),
            identity=host_key,
            settings=GameSettings(session=SessionOptions(name="h")),
            listen=Listen(bind=bind, port=0),
            storage=Storage(out_dir=tmp_path / "host", fsync=False),
            report=Reporting(on_invite=on_invite, on_notice=notices.append),
        )

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            await got_invite.wait()
            invite = invites[0]
            if junk_first:  # a port scanner: connects, says nonsense, leaves
                async with open_game(invite) as stream:
                    await stream.send_all(b"GET / HTTP/1.0\r\n\r\n")
            if fp is not None:
                invite = Invite(invite.host, invite.port, fp)
            results["join"] = await join_game(
                invite,
                bot(2),
                identity=join_key,
                settings=GameSettings(session=SessionOptions(name="j")),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
            )
            if then_real:  # the right invite, after the wrong one
                await join_game(
                    invites[0],
                    bot(3),
                    identity=join_key,
                    settings=GameSettings(session=SessionOptions(name="j2")),
                    storage=Storage(out_dir=tmp_path / "j2", fsync=False),
                )
    assert invites[0].fingerprint == fingerprint(host_key.public_key())
    return results["join"], results["host"], notices


@pytest.mark.parametrize(
    "bind",
    [
        "127.0.0.1",
        pytest.param("::1", marks=pytest.mark.skipif(not _has_ipv6(), reason="no IPv6 loopback")),
    ],
)
async def test_host_and_join_play_a_verified_game(tmp_path: Path, bind: str) -> None:
    joined, hosted, _ = await _host_and_join(tmp_path, bind=bind)
    assert joined.end is End.FINISHED and hosted.end is End.FINISHED
    assert joined.result == hosted.result
    assert joined.me is Player.P0 and hosted.me is Player.P1  # the host is the responder
    for outcome in (joined, hosted):
        assert outcome.transcript is not None and outcome.transcript.exists()
        assert verify_transcript(read_transcript(outcome.transcript)).valid
        secret = outcome.transcript.with_name(outcome.transcript.name + ".secret")
        assert len(secret.read_bytes()) == 32
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        assert secret.read_bytes().hex() not in outcome.summary()


async def test_join_refuses_a_host_with_another_key_and_the_host_goes_on(
    tmp_path: Path,
) -> None:
    joined, hosted, _ = await _host_and_join(
        tmp_path, bind="127.0.0.1", fp="0" * 64, then_real=True
    )
    assert joined.end is End.FINGERPRINT_MISMATCH and joined.exit_code == 3
    assert "nothing was played" in joined.message
    # The stale invite did not end the host: the next joiner played a full game.
    assert hosted.end is End.FINISHED
    assert len(list((tmp_path / "host").glob("*.truc"))) == 1


async def test_host_ignores_a_connection_that_never_starts_a_game(tmp_path: Path) -> None:
    joined, hosted, notices = await _host_and_join(tmp_path, bind="127.0.0.1", junk_first=True)
    assert joined.end is End.FINISHED and hosted.end is End.FINISHED
    assert len(notices) == 1 and "dropped a connection" in notices[0]
    assert len(list((tmp_path / "host").glob("*.truc"))) == 1  # the junk left no file


async def test_join_reports_a_refused_connection(tmp_path: Path) -> None:
    async with serve_game(bind="127.0.0.1", port=0) as listener:
        port = listener.port  # bound, then closed: nobody listens there any more
    outcome = await join_game(
        Invite("127.0.0.1", port, "a" * 64),
        bot(),
        identity=SigningKey.generate(),
        storage=Storage(out_dir=tmp_path),
    )
    assert outcome.end is End.CONNECTION_FAILED and outcome.exit_code == 4
    assert f"127.0.0.1:{port}" in outcome.message
    assert not list(tmp_path.glob("*.truc"))


async def test_serve_game_without_bind_listens_on_one_port_for_both_families() -> None:
    async with serve_game(port=0) as listener:
        ports = {port for _, port in listener.addresses}
        assert ports == {listener.port}
        async with open_game("127.0.0.1", listener.port) as stream:
            accepted = await listener.accept()
            await stream.send_all(b"x")
            assert await accepted.receive_some(1) == b"x"
            await accepted.aclose()


async def _host_join_decks(tmp_path: Path, host_deck: str, join_deck: str) -> GameOutcome:
    stop = trio.Event()
    async with hosting(
        strategy=bot(1),
        identity=SigningKey.generate(),
        settings=GameSettings(session=SessionOptions(deck=host_deck)),
        storage=Storage(out_dir=tmp_path / "h"),
        stop=stop,
    ) as (invite, _):
        joined = await join_game(
            invite,
            bot(2),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(deck=join_deck)),
            storage=Storage(out_dir=tmp_path / "j", fsync=False),
        )
        stop.set()
    return joined


async def test_both_deck_versions_play_over_the_network(tmp_path: Path) -> None:
    for deck in ("v1", "v2"):
        joined = await _host_join_decks(tmp_path / deck, deck, deck)
        assert joined.end is End.FINISHED, joined.message
        assert joined.transcript is not None
        report = verify_transcript(read_transcript(joined.transcript))
        assert report.valid and report.to_json()["deck"] == deck


async def test_different_deck_versions_stop_before_any_card(tmp_path: Path) -> None:
    joined = await _host_join_decks(tmp_path, "v2", "v1")
    assert joined.end is End.INCOMPATIBLE and joined.hands == 0
