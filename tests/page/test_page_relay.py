"""The page against real peers through a real relay: the page's WebSocket bytes carried
over plain TCP (the same stream, SITE.md), a ``truc-p2p host`` or ``join`` process on
the other side, or another page."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from helpers.cli import LIMIT, last_json, spawn, start_host
from helpers.page import PagePlayer, Relay, TcpWorker, new_app, run_page

from truc_p2p.protocol import scan_transcript, verify_transcript
from truc_p2p.transcript import read_transcript

#: processes and real sockets: out of the fast loop
pytestmark = pytest.mark.slow


@pytest.fixture
def relay(tmp_path: Path) -> Iterator[Relay]:
    r = Relay(tmp_path)
    try:
        yield r
    finally:
        r.stop()


def _cards_first(actions: list[str]) -> str:
    """Play cards and accept: no early "my rest" (a game long enough to reload in)."""
    cards = [a for a in actions if a.startswith("play")]
    return cards[0] if cards else sorted(actions)[0]


def _page(
    relay: Relay, seed: int, pick: Callable[[list[str]], str] | None = None
) -> tuple[PagePlayer, TcpWorker]:
    player = PagePlayer(new_app(site="https://truc.example/"), seed=seed, pick=pick)
    player.call({"type": "hello", "lang": "en"}, time.monotonic())
    return player, TcpWorker(player, ("127.0.0.1", relay.port))


def test_the_page_joins_a_desktop_host_through_the_relay(tmp_path: Path, relay: Relay) -> None:
    host = start_host(
        tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "1",
        "--timeout", "30", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    player, worker = _page(relay, 2)
    try:
        player.call({"type": "join", "invite": host.invite}, time.monotonic())
        run_page([(player, worker)], until=lambda: player.final is not None, timeout=LIMIT)
        status, out, err = host.finish()
    finally:
        worker.close()
    assert player.final is not None
    assert player.final["outcome"] == "finished", player.final
    assert player.final["verdict"]["status"] == "complete"
    assert status == 0, out + err
    (path,) = (tmp_path / "h").glob("*.truc")
    # both sides hold the same signed game
    assert read_transcript(path) == player.app.envelopes
    assert verify_transcript(player.app.envelopes).valid


def test_the_page_hosts_and_a_desktop_joins_through_the_relay(tmp_path: Path, relay: Relay) -> None:
    player, worker = _page(relay, 3)
    joiner: subprocess.Popen[str] | None = None
    try:
        player.call({"type": "host", "relay": relay.address}, time.monotonic())
        run_page([(player, worker)], until=lambda: bool(player.texts("invite")), timeout=20)
        link = player.texts("invite")[-1]["text"]
        assert link.startswith("https://truc.example/#join=truc://")
        invite = unquote(link.split("#join=", 1)[1])
        joiner = spawn(
            tmp_path, "join", invite, "--bot", "random", "--seed", "4", "--timeout", "30",
            "--identity", "j.key", "--out", "j", "--json",
        )  # fmt: skip
        run_page([(player, worker)], until=lambda: player.final is not None, timeout=LIMIT)
        out, err = joiner.communicate(timeout=LIMIT)
    finally:
        worker.close()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
    assert player.final is not None and player.final["outcome"] == "finished", player.final
    assert joiner.returncode == 0, out + err
    result = last_json(out)
    assert result["valid"] and result["path"] == "relayed"
    (path,) = (tmp_path / "j").glob("*.truc")
    assert read_transcript(path) == player.app.envelopes


def test_two_pages_play_through_the_relay(relay: Relay) -> None:
    host, host_worker = _page(relay, 5)
    guest, guest_worker = _page(relay, 6)
    pages = [(host, host_worker), (guest, guest_worker)]
    try:
        host.call({"type": "host", "relay": relay.address}, time.monotonic())
        run_page(pages, until=lambda: bool(host.texts("invite")), timeout=20)
        guest.call({"type": "join", "invite": host.texts("invite")[-1]["text"]}, time.monotonic())
        run_page(
            pages, until=lambda: host.final is not None and guest.final is not None, timeout=LIMIT
        )
    finally:
        host_worker.close()
        guest_worker.close()
    assert host.final is not None and guest.final is not None
    assert host.final["outcome"] == guest.final["outcome"] == "finished"
    assert host.final["won"] != guest.final["won"]
    assert host.app.envelopes == guest.app.envelopes
    data = host.app.transcript()
    assert scan_transcript(data).envelopes == host.app.envelopes


def test_a_reload_mid_hand_resumes_the_game(tmp_path: Path, relay: Relay) -> None:
    """The page's tab reloads during a hand: a new app, given only what IndexedDB kept
    (the key, the secret, the transcript), resumes the game with the desktop host."""
    host = start_host(
        tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "7",
        "--timeout", "60", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    first, first_worker = _page(relay, 8, _cards_first)
    second: PagePlayer | None = None
    second_worker: TcpWorker | None = None
    try:
        first.call({"type": "join", "invite": host.invite}, time.monotonic())

        first.answer_limit = 1  # one move, then the tab reloads at the next turn
        run_page([(first, first_worker)], until=lambda: _held(first), timeout=LIMIT)
        assert first.final is None
        kept = dict(first.stored)
        assert {"identity", "game", "secret", "env:00000"} <= set(kept)
        first_worker.close()  # the tab is gone: its connections drop
        second, second_worker = _page_from(relay, kept, 9)
        assert second.app.fingerprint == first.app.fingerprint
        # before the relay links it again, the table is the game's (its cards, the
        # score), not "waiting for the game to start"
        table = (second.state or {}).get("table") or {}
        assert second.state is not None and second.state.get("started") is not None
        assert table.get("hand"), second.state
        resumed = second
        run_page([(resumed, second_worker)], until=lambda: resumed.final is not None, timeout=LIMIT)
        status, out, err = host.finish()
    finally:
        first_worker.close()
        if second_worker is not None:
            second_worker.close()
    assert second is not None and second.final is not None
    assert second.final["outcome"] == "finished", second.final
    assert status == 0, out + err
    assert any(m.get("type") == "log" and "hand" in m["text"] for m in second.messages)
    (path,) = (tmp_path / "h").glob("*.truc")
    assert read_transcript(path) == second.app.envelopes
    assert verify_transcript(second.app.envelopes).status == "complete"
    # the finished game's keys left IndexedDB; the identity stays
    assert set(second.stored) >= {"identity"} and "game" not in second.stored


@pytest.mark.parametrize("page_hosts", [False, True])
def test_a_lost_link_mid_game_is_resumed_without_a_reload(
    tmp_path: Path, relay: Relay, page_hosts: bool
) -> None:
    """The page's relay connection drops mid-hand (a phone changing networks): the
    page dials the relay again (joining) or registers its code again (hosting), both
    sides resume (wire.md 13) and the game finishes, one transcript on both sides."""
    player, worker = _page(relay, 12, _cards_first)
    peer = None
    try:
        if page_hosts:
            player.call({"type": "host", "relay": relay.address}, time.monotonic())
            run_page([(player, worker)], until=lambda: bool(player.texts("invite")), timeout=20)
            invite = unquote(player.texts("invite")[-1]["text"].split("#join=", 1)[1])
            peer = spawn(
                tmp_path, "join", invite, "--bot", "random", "--seed", "3", "--timeout", "60",
                "--identity", "j.key", "--out", "j", "--json",
            )  # fmt: skip
        else:
            host = start_host(
                tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "7",
                "--timeout", "60", "--identity", "h.key", "--out", "j",
            )  # fmt: skip
            peer = host.proc
            player.call({"type": "join", "invite": host.invite}, time.monotonic())
        player.answer_limit = 2  # two moves, then the link drops
        run_page([(player, worker)], until=lambda: _held(player), timeout=LIMIT)
        assert player.final is None
        game = player.app.game
        assert game is not None and game.side is not None
        cut = game._socket
        assert cut is not None
        worker.socks[cut].shutdown(socket.SHUT_RDWR)  # the network is gone
        player.answer_limit = None
        run_page([(player, worker)], until=lambda: player.final is not None, timeout=LIMIT)
        out, err = peer.communicate(timeout=LIMIT)
    finally:
        worker.close()
        if peer is not None and peer.poll() is None:
            peer.kill()
            peer.communicate()
    assert player.final is not None and player.final["outcome"] == "finished", player.final
    assert any(".r" in name for name, _ in player.opened)  # a new connection for the game
    assert peer.returncode == 0, out + err
    (path,) = (tmp_path / "j").glob("*.truc")
    assert read_transcript(path) == player.app.envelopes
    assert verify_transcript(player.app.envelopes).status == "complete"


def _held(player: PagePlayer) -> bool:
    """The player stopped answering at a turn with cards in hand (mid-hand), or the
    game ended first (then the test's assertions say so)."""
    table = (player.state or {}).get("table") or {}
    at_turn = bool(table.get("hand")) and player.offered() != []
    return (at_turn and player.answers >= (player.answer_limit or 0)) or player.final is not None


def _page_from(relay: Relay, stored: dict[str, object], seed: int) -> tuple[PagePlayer, TcpWorker]:
    player = PagePlayer(
        new_app(stored=stored, site="https://truc.example/"), seed=seed, pick=_cards_first
    )
    player.stored = dict(stored)
    player.call({"type": "hello", "lang": "en"}, time.monotonic())
    return player, TcpWorker(player, ("127.0.0.1", relay.port))


def test_a_hosting_page_reloads_and_the_desktop_joiner_comes_back(
    tmp_path: Path, relay: Relay
) -> None:
    """The hosting page reloads mid-hand: it registers the same code again (its claim's
    nonce was kept) and the ``truc-p2p join`` process redials it and resumes."""
    first, first_worker = _page(relay, 10, _cards_first)
    second: PagePlayer | None = None
    second_worker: TcpWorker | None = None
    joiner: subprocess.Popen[str] | None = None
    try:
        first.call({"type": "host", "relay": relay.address}, time.monotonic())
        run_page([(first, first_worker)], until=lambda: bool(first.texts("invite")), timeout=20)
        invite = unquote(first.texts("invite")[-1]["text"].split("#join=", 1)[1])
        joiner = spawn(
            tmp_path, "join", invite, "--bot", "random", "--seed", "11", "--timeout", "60",
            "--identity", "j.key", "--out", "j", "--json",
        )  # fmt: skip

        first.answer_limit = 1  # one move, then the tab reloads at the next turn
        run_page([(first, first_worker)], until=lambda: _held(first), timeout=LIMIT)
        kept = dict(first.stored)
        first_worker.close()
        second, second_worker = _page_from(relay, kept, 12)
        resumed = second
        run_page([(resumed, second_worker)], until=lambda: resumed.final is not None, timeout=LIMIT)
        out, err = joiner.communicate(timeout=LIMIT)
    finally:
        first_worker.close()
        if second_worker is not None:
            second_worker.close()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
            joiner.communicate()
    assert second is not None and second.final is not None
    assert second.final["outcome"] == "finished", second.final
    assert joiner.returncode == 0, out + err
    (path,) = (tmp_path / "j").glob("*.truc")
    assert read_transcript(path) == second.app.envelopes
