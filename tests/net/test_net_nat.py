"""Real NAT topologies in Linux network namespaces (see ``netns.py``).

Every case runs ``truc-p2p relay``, ``host`` and ``join`` as processes inside
the namespaces, plays a whole bot game, checks the path both sides report
and verifies both transcripts.  Needs root, ``ip`` and ``nft`` (``.ci/run``
installs nftables); elsewhere the cases skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.netns import (
    NAT_PMP_DAEMON,
    RELAY,
    TURN_IP,
    TURN_PASSWORD,
    Lab,
    Proc,
    start_coturn,
    start_host,
    start_join,
    start_relay,
    truc_command,
    turn_args,
    unavailable,
    verify,
)

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


@pytest.fixture
def lab() -> Iterator[Lab]:
    why = unavailable()
    if why is not None:
        if os.environ.get("CI"):  # CI runs as root with nftables: a skip there hides a gap
            pytest.fail(f"the NAT namespace tests must run in CI: {why}")
        print(f"skipping the NAT namespace tests: {why}")
        pytest.skip(why)
    made = Lab()
    try:
        made.internet()
        yield made
    finally:
        made.close()


def _check_game(cwd: Path, host: Proc, joiner: Proc, path: str) -> None:
    statuses = (joiner.finish(), host.finish())
    assert statuses == (0, 0), f"joiner:\n{joiner.text()}\nhost:\n{host.text()}"
    mine, theirs = joiner.last_json(), host.last_json()
    assert (mine["path"], theirs["path"]) == (path, path), (joiner.text(), host.text())
    assert mine["valid"] and theirs["valid"]
    assert mine["game_id"] == theirs["game_id"]
    for result in (mine, theirs):
        checked = verify(cwd, result["transcript"])
        assert checked.returncode == 0 and "VALID" in checked.stdout, checked.stdout


def test_two_homes_behind_port_preserving_nats_punch_a_hole(lab: Lab, tmp_path: Path) -> None:
    lab.home("a")
    lab.home("b")
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path)
        assert "&relay=198.18.0.1:4456&code=" in invite
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "punched")
    finally:
        relay.stop()
    assert '"spliced": false' in relay.text()


@pytest.mark.parametrize("randomized", ["joiner", "both"])
def test_random_port_nats_fall_back_to_the_relay(lab: Lab, tmp_path: Path, randomized: str) -> None:
    lab.home("a", random_ports=randomized == "both")
    lab.home("b", random_ports=True)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path)
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "relayed")
    finally:
        relay.stop()
    assert '"spliced": true' in relay.text()


def test_same_lan_goes_direct_and_is_found_by_mdns(lab: Lab, tmp_path: Path) -> None:
    lab.home("a", players=2)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path)
        joiner = start_join(lab, "ha2", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "direct")
        # No invite at all: the joiner lists the LAN's games and picks the first.
        host, _ = start_host(lab, "ha", tmp_path, "--name", "lanhost")
        listed = lab.run("ha2", *truc_command(), "hosts", "--json")
        (found,) = json.loads(listed.stdout)
        assert found["name"] == "lanhost" and found["addresses"] == ["10.1.0.2"]
        assert found["settings"] == {
            "target": "12",
            "ladder": "literal",
            "rest": "game",
            "audit": "game",
            "deck": "v2",  # the invite's settings (connect.md 1.1)
            "pipeline": "1",
        }
        joiner = start_join(lab, "ha2", tmp_path, "--json", stdin="1\n")
        _check_game(tmp_path, host, joiner, "direct")
        assert "1. lanhost" in joiner.text()
    finally:
        relay.stop()


def test_the_relay_can_stop_once_the_punched_path_is_up(lab: Lab, tmp_path: Path) -> None:
    lab.home("a")
    lab.home("b")
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path)
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        host.wait_for(lambda line: "(punched path)" in line, 20)
        host.proc.send_signal(signal.SIGSTOP)  # hold the game mid-way...
        try:
            assert joiner.proc.poll() is None  # ...so it cannot have finished yet
            relay.stop()
            assert relay.proc.returncode is not None
        finally:
            host.proc.send_signal(signal.SIGCONT)
        _check_game(tmp_path, host, joiner, "punched")
        assert "lost the relay" in host.text()
    finally:
        relay.stop()


def test_a_relay_under_a_flood_of_bogus_registrations_still_serves_a_pair(
    lab: Lab, tmp_path: Path
) -> None:
    lab.home("a", random_ports=True)
    lab.home("b", random_ports=True)
    lab.outsider("evil", "198.18.0.66")
    relay = start_relay(lab, tmp_path)
    flood = (
        "import socket, time\n"
        "socks = []\n"
        "for i in range(300):\n"
        "    s = socket.socket()\n"
        "    s.settimeout(2)\n"
        "    try:\n"
        "        s.connect(('198.18.0.1', 4456))\n"
        "        s.sendall(b'TRUCRLY1' + [b'\\x01\\x00\\x01\\x00', b'junk', b''][i % 3])\n"
        "    except OSError:\n"
        "        pass\n"
        "    socks.append(s)\n"
        "print('flooding', flush=True)\n"
        "time.sleep(30)\n"
    )
    attacker = lab.popen("evil", "python3", "-c", flood)
    try:
        assert attacker.stdout is not None
        assert attacker.stdout.readline().strip() == "flooding"
        host, invite = start_host(lab, "ha", tmp_path)
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "relayed")
    finally:
        attacker.kill()
        attacker.wait()
        if attacker.stdout is not None:
            attacker.stdout.close()
        relay.stop()
    stats = relay.last_json()
    assert stats["event"] == "stopped"
    assert stats["refused_connections"] > 0 and stats["refused_registrations"] > 0
    assert stats["splices"] == 1, relay.text()


def test_a_router_with_nat_pmp_maps_the_host_port_and_unmaps_it_on_exit(
    lab: Lab, tmp_path: Path
) -> None:
    lab.home("a")
    lab.home("b")
    daemon = lab.popen("ra", "python3", "-c", NAT_PMP_DAEMON, "198.18.0.11", "10.1.0.1")
    try:
        assert daemon.stdout is not None
        assert daemon.stdout.readline().strip() == "ready"
        host, invite = start_host(lab, "ha", tmp_path, relay=False)
        port = invite.split("/?")[0].rsplit(":", 1)[1]
        assert invite.startswith(f"truc://198.18.0.11:{port}/?fp=")  # the mapped address
        assert daemon.stdout.readline().strip() == f"mapped {port} to 10.1.0.2"
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "direct")
        assert daemon.stdout.readline().strip() == f"unmapped {port}"
        assert f"your router forwards 198.18.0.11:{port} to this machine (nat-pmp" in host.text()
    finally:
        daemon.kill()
        daemon.wait()
        if daemon.stdout is not None:
            daemon.stdout.close()


def test_an_empty_lan_lists_no_game_and_join_says_so(lab: Lab, tmp_path: Path) -> None:
    lab.home("a")
    listed = lab.run("ha", *truc_command(), "hosts", "--wait", "0.5", check=False)
    assert listed.returncode == 1 and "no game found" in listed.stderr
    as_json = lab.run("ha", *truc_command(), "hosts", "--wait", "0.5", "--json", check=False)
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == []
    joiner = start_join(lab, "ha", tmp_path, "--wait", "0.5", stdin="")
    assert joiner.finish() == 4
    assert "no game found on this LAN" in joiner.text()


@pytest.mark.parametrize("randomized", [False, True], ids=["punched", "relayed"])
def test_a_public_host_behind_nat_is_found_in_the_lobby_and_joined(
    lab: Lab, tmp_path: Path, randomized: bool
) -> None:
    """``host --public`` in one home, ``lobby`` from an outsider, ``join --relay --pick``
    from another home: the listing carries what an invite does, the paths are the same."""
    lab.home("a")
    lab.home("b", random_ports=randomized)
    lab.outsider("x", "198.18.0.99")
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path, "--public")
        listed = lab.run("x", *truc_command(), "lobby", "198.18.0.1", "--json", check=False)
        assert listed.returncode == 0, listed.stderr
        (game,) = json.loads(listed.stdout)["games"]
        assert game["invite"] == invite and game["name"] == "host"
        joiner = start_join(
            lab, "hb", tmp_path, "--relay", f"{RELAY[0]}:{RELAY[1]}", "--pick", "1", "--json"
        )
        _check_game(tmp_path, host, joiner, "relayed" if randomized else "punched")
        gone = lab.run("x", *truc_command(), "lobby", "198.18.0.1", check=False)
        assert gone.returncode == 1 and "no open game" in gone.stderr
    finally:
        relay.stop()


# --------------------------------------------------------------------------- TURN

#: A bot that takes its time, so that a game is still running when it is cut.
SLOW_BOT = ("--bot", "search", "--think", "0.05", "--target", "24", "--rest-refused", "value")


@pytest.fixture
def coturn(lab: Lab, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """coturn (Debian's ``turnserver``) on the lab's internet at ``TURN_IP:3478``."""
    if shutil.which("turnserver") is None:
        if os.environ.get("CI"):
            pytest.fail("the TURN tests must run in CI: .ci/run installs coturn")
        pytest.skip("the TURN tests need coturn's turnserver (apt-get install coturn)")
    server = start_coturn(lab, tmp_path)
    try:
        yield server
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize("cut", ["data", "allocation"])
def test_two_symmetric_nats_play_through_turn_with_a_cut_and_a_resume(
    lab: Lab, tmp_path: Path, coturn: subprocess.Popen[bytes], cut: str
) -> None:
    """Both homes behind random-port NATs (punching fails): the host allocates on
    coturn, the joiner reaches its relayed address; mid-game the joiner's data
    connection is cut (``data``), or every TCP link of the host to coturn, which
    ends its allocation (``allocation``: the host allocates again at once and
    registers the new relayed address); both come back (through TURN, or through the
    relay splice when the joiner redialled before the host noticed); both transcripts
    verify."""
    lab.home("a", random_ports=True)
    lab.home("b", random_ports=True)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path, *turn_args(), *SLOW_BOT)
        assert f"TURN server {TURN_IP}:3478: joiners behind any NAT" in host.text()
        joiner = Proc(
            lab, "hb", tmp_path, "join", invite, "--json", *SLOW_BOT, "--seed", "2",
            "--timeout", "30", "--identity", "join.key", "--out", "join-games",
        )  # fmt: skip
        joiner.wait_for(lambda line: line.startswith("connected (TURN path)"), 30)
        _, why = joiner.wait_for(lambda line: "via TURN" in line, 5)
        assert why.startswith("direct: "), why  # the failed paths first, then the one taken
        assert "punched: timed out after" in why and f"via TURN {TURN_IP}:" in why
        host.wait_for(lambda line: "(TURN path)" in line, 10)
        time.sleep(1.5)  # the game has begun: a search bot to 24 takes many seconds
        # cut the game in the middle: the joiner's link to the relayed address, or the
        # host's links to coturn (its control connection too: the allocation is gone)
        killed = lab.run("hb" if cut == "data" else "ha", "ss", "-K", "dst", TURN_IP, check=False)
        assert killed.returncode == 0, killed.stderr
        # After a lost allocation a joiner that redials before the host has noticed
        # meets the old relayed address and comes back through the relay splice.
        back = (
            ("reconnected (TURN path)",)
            if cut == "data"
            else ("reconnected (TURN path)", "reconnected (relayed path)")
        )
        joiner.wait_for(lambda line: line.startswith(back), 40)
        if cut == "allocation":
            host.wait_for(lambda line: line.startswith("lost the TURN allocation on"), 5)
            allocated = [line for _, _, line in host.lines if "joiners behind any NAT" in line]
            assert len(allocated) == 2 and allocated[0] != allocated[1], host.text()
        _check_game(tmp_path, host, joiner, "turn")
        # one game resumed mid-way, not a new one (one transcript); each link, the
        # redial's too, said why it took its path
        assert _why_lines(joiner) == _links(joiner) >= 2, joiner.text()
        assert len(list((tmp_path / "join-games").glob("*.truc"))) == 1
        mine = joiner.last_json()
        assert len(mine["links"]) == _links(joiner) and mine["links"][0]["path"] == "turn"
        paths = {t["path"]: t for t in mine["path_tries"]}
        assert paths["turn"]["result"] == "won" and paths["punched"]["result"] == "timed-out"
        assert host.last_json()["path_tries"] == [
            {"path": "turn", "result": "won", "via": f"{TURN_IP}:3478"}
        ]
        assert TURN_PASSWORD not in host.text() + joiner.text()
    finally:
        relay.stop()
    if cut == "data":
        stats = relay.last_json()  # the relay only met the two sides: no splice, no game byte
        assert (stats["splices"], stats["bytes"]) == (0, 0), relay.text()
    log = (tmp_path / "turnserver.log").read_text()
    binds = log.count("CONNECTION_BIND processed, success")
    assert binds >= (2 if cut == "data" else 1), log[-3000:]


def _why_lines(joiner: Proc) -> int:
    """The joiner's "why this path" lines (connect.md §4.1): direct is raced first."""
    return sum(line.startswith("direct: ") for _, _, line in joiner.lines)


def _links(joiner: Proc) -> int:
    """The joiner's links: its first connection and each redial."""
    return sum(line.startswith(("connected (", "reconnected (")) for _, _, line in joiner.lines)


def test_a_wrong_turn_password_says_so_once_and_the_relay_splice_carries_the_game(
    lab: Lab, tmp_path: Path, coturn: subprocess.Popen[bytes]
) -> None:
    lab.home("a", random_ports=True)
    lab.home("b", random_ports=True)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path, *turn_args("wrong"))
        joiner = start_join(lab, "hb", tmp_path, invite, "--json")
        _check_game(tmp_path, host, joiner, "relayed")
        told = [line for _, _, line in host.lines if "TURN" in line]
        assert told == [
            f"no path through TURN (the TURN server {TURN_IP}:3478 refused the user name or "
            "password (401 Unauthorized)); joiners use the other paths"
        ], host.text()
        assert "Traceback" not in host.text() and "wrong" not in host.text()
        assert host.last_json()["path_tries"] == [
            {"path": "turn", "result": "failed", "via": f"{TURN_IP}:3478"}
        ]
    finally:
        relay.stop()


def test_a_joiner_s_own_turn_server_carries_the_game_of_a_host_without_one(
    lab: Lab, tmp_path: Path, coturn: subprocess.Popen[bytes]
) -> None:
    """``join --turn`` (connect.md §11.1): the joiner allocates, offers its relayed
    address in JOIN, the host connects out to it; both behind random-port NATs."""
    lab.home("a", random_ports=True)
    lab.home("b", random_ports=True)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path)
        joiner = start_join(lab, "hb", tmp_path, invite, "--json", *turn_args())
        _check_game(tmp_path, host, joiner, "turn")
        paths = {t["path"]: t for t in joiner.last_json()["path_tries"]}
        assert paths["turn"]["result"] == "won" and paths["turn"]["via"].startswith(TURN_IP)
        assert "path_tries" not in host.last_json()  # the host has no TURN server of its own
        assert TURN_PASSWORD not in host.text() + joiner.text()
    finally:
        relay.stop()
    stats = relay.last_json()
    assert (stats["splices"], stats["bytes"]) == (0, 0), relay.text()


@pytest.mark.parametrize("cut", ["data", "allocation"])
def test_a_game_on_the_joiner_s_own_turn_allocation_is_cut_and_resumes(
    lab: Lab, tmp_path: Path, coturn: subprocess.Popen[bytes], cut: str
) -> None:
    """``join --turn`` behind a random-port NAT, a host without TURN behind another:
    the game runs through the joiner's allocation; mid-game the host's link to the
    joiner's relayed address is cut (``data``), or every TCP link of the joiner to
    coturn, which ends its allocation (``allocation``); the joiner redials, allocates
    again if it must, says again why it took its path, and the game resumes through
    TURN and finishes; both transcripts verify; the relay carried no game byte."""
    lab.home("a", random_ports=True)
    lab.home("b", random_ports=True)
    relay = start_relay(lab, tmp_path)
    try:
        host, invite = start_host(lab, "ha", tmp_path, *SLOW_BOT)
        joiner = Proc(
            lab, "hb", tmp_path, "join", invite, "--json", *SLOW_BOT, "--seed", "2",
            "--timeout", "30", "--identity", "join.key", "--out", "join-games", *turn_args(),
        )  # fmt: skip
        joiner.wait_for(lambda line: line.startswith("connected (TURN path)"), 30)
        host.wait_for(lambda line: "(TURN path)" in line, 10)
        time.sleep(1.5)  # the game has begun: a search bot to 24 takes many seconds
        killed = lab.run("ha" if cut == "data" else "hb", "ss", "-K", "dst", TURN_IP, check=False)
        assert killed.returncode == 0, killed.stderr
        joiner.wait_for(lambda line: line.startswith("reconnected (TURN path)"), 40)
        _check_game(tmp_path, host, joiner, "turn")
        assert len(list((tmp_path / "join-games").glob("*.truc"))) == 1  # resumed, not anew
        assert _why_lines(joiner) == _links(joiner) >= 2, joiner.text()
        links = joiner.last_json()["links"]
        assert len(links) == _links(joiner) and {link["path"] for link in links} == {"turn"}
        for link in links:
            won = [t for t in link["tries"] if t["result"] == "won"]
            assert [t["path"] for t in won] == ["turn"] and won[0]["via"].startswith(TURN_IP)
        assert "path_tries" not in host.last_json()  # the host has no TURN server of its own
        # the host says the path of the link the game resumed on too
        assert sum(line.endswith("(TURN path)") for _, _, line in host.lines) >= 2, host.text()
        assert TURN_PASSWORD not in host.text() + joiner.text()
    finally:
        relay.stop()
    stats = relay.last_json()  # the relay only met the two sides: no splice, no game byte
    assert (stats["splices"], stats["bytes"]) == (0, 0), relay.text()
    log = (tmp_path / "turnserver.log").read_text()
    assert log.count("CONNECTION_BIND processed, success") >= 2, log[-3000:]
