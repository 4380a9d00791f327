"""Linked games (wire.md 4.1) between the page and a desktop peer through a real relay:
the page joins a ``truc-p2p host --match 3`` invite and plays the match, takes a rematch
from ``host --forever``, and hosts a match that ``truc-p2p join`` plays."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from helpers.cli import LIMIT, ROOT, spawn, start_host
from helpers.page import PagePlayer, Relay, TcpWorker, new_app, run_page

from truc_p2p.protocol import decode_envelope, series_of, verify_transcript
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


def _page(relay: Relay, seed: int) -> tuple[PagePlayer, TcpWorker]:
    player = PagePlayer(new_app(site="https://truc.example/"), seed=seed)
    player.call({"type": "hello", "lang": "en"}, time.monotonic())
    return player, TcpWorker(player, ("127.0.0.1", relay.port))


def _play_games(
    player: PagePlayer, worker: TcpWorker, *, most: int, again: bool = True
) -> list[tuple[dict[str, Any], list[bytes]]]:
    """Play game after game: each end screen and the game's envelopes; the page
    clicks "next game" / "play again" while offered, up to ``most`` games."""
    games: list[tuple[dict[str, Any], list[bytes]]] = []
    while True:
        run_page([(player, worker)], until=lambda: player.final is not None, timeout=LIMIT)
        final = player.final
        assert final is not None
        games.append((final, list(player.app.envelopes)))
        if not final.get("again") or len(games) >= most or not again:
            return games
        player.call({"type": "again", "yes": True}, time.monotonic())


def _verify_match(record: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "truc_p2p.cli", "verify", "--match", str(record)],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _linked(games: list[tuple[dict[str, Any], list[bytes]]], match: int) -> None:
    """Each game names the one before it and its first dealer is the other player."""
    before = None
    for _final, envelopes in games:
        report = verify_transcript(envelopes)
        assert report.valid, report
        series = series_of(decode_envelope(envelopes[0]).payload["options"])
        assert series is not None and series.match == match
        if before is None:
            assert series.prev is None
        else:
            assert series.prev == bytes.fromhex(before.game_id)
            assert series.dealer is not None
            assert int(series.dealer) == 1 - int(before.first_dealer)
        before = report


def test_the_page_joins_a_hosted_match(tmp_path: Path, relay: Relay) -> None:
    host = start_host(
        tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "1", "--match", "3",
        "--target", "2", "--timeout", "30", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    assert "match=3" in host.invite
    player, worker = _page(relay, 2)
    try:
        player.call({"type": "join", "invite": host.invite}, time.monotonic())
        games = _play_games(player, worker, most=3)
        status, out, err = host.finish()
    finally:
        worker.close()
    assert status == 0, out + err
    assert 2 <= len(games) <= 3
    # every end screen but the last offers the next game, and says the match score
    for final, _envelopes in games[:-1]:
        assert final["again"] == "next" and final["match_line"].startswith("match: you ")
    last = games[-1][0]
    assert not last.get("again") and last["match_line"].startswith("match over: ")
    _linked(games, 3)
    # the desktop's record of the match verifies, game by game the page's own
    (record,) = (tmp_path / "h").glob("match-*.json")
    _verify_match(record)
    transcripts = sorted((tmp_path / "h").glob("*.truc"), key=lambda p: p.stat().st_mtime)
    assert [read_transcript(p) for p in transcripts] == [e for _f, e in games]


def test_the_page_takes_a_rematch(tmp_path: Path, relay: Relay) -> None:
    host = start_host(
        tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "3", "--forever",
        "--target", "2", "--timeout", "30", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    player, worker = _page(relay, 4)
    try:
        player.call({"type": "join", "invite": host.invite}, time.monotonic())
        games = _play_games(player, worker, most=2)
    finally:
        worker.close()
        host.proc.kill()
        host.proc.communicate()
    assert len(games) == 2
    assert games[0][0]["again"] is True  # "play again", no match line
    assert games[0][0].get("match_line") is None
    _linked(games, 1)
    # the host kept both games (its last writes may trail the kill: compared by game id)
    kept = {verify_transcript(read_transcript(p)).game_id for p in (tmp_path / "h").glob("*.truc")}
    assert {verify_transcript(e).game_id for _f, e in games} <= kept


def test_the_page_hosts_a_match_a_desktop_joins(tmp_path: Path, relay: Relay) -> None:
    player, worker = _page(relay, 5)
    joiner: subprocess.Popen[str] | None = None
    try:
        player.call({"type": "host", "relay": relay.address, "match": 3}, time.monotonic())
        run_page([(player, worker)], until=lambda: bool(player.texts("invite")), timeout=20)
        invite = unquote(player.texts("invite")[-1]["text"].split("#join=", 1)[1])
        assert "match=3" in invite
        joiner = spawn(
            tmp_path, "join", invite, "--bot", "random", "--seed", "6", "--timeout", "30",
            "--identity", "j.key", "--out", "j",
        )  # fmt: skip
        games = _play_games(player, worker, most=3)
        out, err = joiner.communicate(timeout=LIMIT)
    finally:
        worker.close()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
    assert joiner.returncode == 0, out + err
    assert 2 <= len(games) <= 3
    assert games[-1][0]["match_line"].startswith("match over: ")
    _linked(games, 3)
    (record,) = (tmp_path / "j").glob("match-*.json")
    _verify_match(record)


def test_a_bad_match_length_is_one_line(relay: Relay) -> None:
    player, worker = _page(relay, 7)
    try:
        player.call({"type": "host", "relay": relay.address, "match": 0}, time.monotonic())
    finally:
        worker.close()
    (error,) = player.texts("app_error")
    assert error["text"].startswith("cannot host: match must be in 1..99")
    assert player.opened == []


def test_the_page_concedes_one_game_of_a_match(tmp_path: Path, relay: Relay) -> None:
    """The table's "concede this game" resigns game 1 with the concession's signed
    detail: the match goes on, on both sides, and the desktop's record verifies."""
    host = start_host(
        tmp_path, "--relay", relay.address, "--bot", "random", "--seed", "8", "--match", "3",
        "--target", "2", "--timeout", "30", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    player, worker = _page(relay, 9)
    try:
        player.call({"type": "join", "invite": host.invite}, time.monotonic())
        player.answer_limit = 0  # hold the first turn
        run_page([(player, worker)], until=lambda: player.offered() != [], timeout=LIMIT)
        assert player.state is not None
        texts = player.state["texts"]
        # the leave question names the match and what leaving it costs
        assert texts["leave_confirm"] == (
            "Leave the match? You resign it: host wins the match, you 0 – host 1."
        )
        assert texts["concede_button"] == "concede this game"
        turn = player.state["table"]["turn"]
        player.call({"type": "quit", "concede": True, "turn": turn}, time.monotonic())
        assert player.final is not None
        assert player.final["again"] == "next"
        assert player.final["match_line"].startswith("match: you 0 – host 1")
        conceded = list(player.app.envelopes)
        player.answer_limit = None
        player.call({"type": "again", "yes": True}, time.monotonic())
        games = [(player.final, conceded), *_play_games(player, worker, most=2)]
        status, out, err = host.finish()
    finally:
        worker.close()
    assert status == 0, out + err
    report = verify_transcript(conceded)
    assert report.valid and report.resigned_by == 0  # the page joined: player 0
    details = [decode_envelope(e).payload.get("detail") for e in conceded]
    assert "the player conceded this game; the match goes on" in details
    assert games[-1][0]["match_line"].startswith("match over: ")
    _linked(games, 3)
    (record,) = (tmp_path / "h").glob("match-*.json")
    _verify_match(record)


def test_two_pages_play_a_rematch(relay: Relay) -> None:
    """A hosting page and a joining page both ask for a rematch: the host registers
    the same code again, the guest dials its invite again, game 2 follows game 1."""
    host, host_worker = _page(relay, 10)
    guest, guest_worker = _page(relay, 11)
    pages = [(host, host_worker), (guest, guest_worker)]
    games: list[list[bytes]] = []
    try:
        host.call({"type": "host", "relay": relay.address}, time.monotonic())
        run_page(pages, until=lambda: bool(host.texts("invite")), timeout=20)
        guest.call({"type": "join", "invite": host.texts("invite")[-1]["text"]}, time.monotonic())
        for number in (1, 2):
            run_page(
                pages,
                until=lambda: host.final is not None and guest.final is not None,
                timeout=LIMIT,
            )
            assert host.final is not None and guest.final is not None
            assert host.app.envelopes == guest.app.envelopes
            games.append(list(host.app.envelopes))
            if number == 1:
                assert host.final["again"] is True and guest.final["again"] is True
                guest.call({"type": "again", "yes": True}, time.monotonic())  # dials first
                host.call({"type": "again", "yes": True}, time.monotonic())
    finally:
        host_worker.close()
        guest_worker.close()
    # the host's second registration gave the same code: one invite for both games
    assert len({m["text"] for m in host.texts("invite")}) == 1
    _linked([({}, e) for e in games], 1)
