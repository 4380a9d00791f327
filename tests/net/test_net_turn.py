"""The TURN client (``truc_p2p/net/_turn.py``) against a small STUN server in this
test, on loopback: the long-term credential's 401 and 438 dances, a wrong password,
a server that is down or silent, and an allocation whose peer connects, is bound and
carries bytes.  (coturn itself runs in ``test_net_nat.py``.)"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio
from helpers.relay import running_relay

from truc_p2p.cli import main as cli_main
from truc_p2p.cli._path_words import tries_line
from truc_p2p.i18n import use_language
from truc_p2p.net import PathTry
from truc_p2p.net._relay_wire import read_exactly
from truc_p2p.net._rendezvous import open_rendezvous
from truc_p2p.net._stun import (
    ALLOCATE,
    CONNECTION_ATTEMPT,
    CONNECTION_BIND,
    CREATE_PERMISSION,
    ERROR,
    HEADER,
    INDICATION,
    REFRESH,
    SUCCESS,
    Attr,
    Message,
    error_code,
    long_term_key,
    message_length,
    xor_address,
)
from truc_p2p.net._turn import TurnAuthError, TurnError, TurnServer, open_allocation
from truc_p2p.ui._notice_text import notice_text

USER, PASSWORD, REALM = "alice", "pw", "test.realm"


class FakeTurn:
    """Enough of a TURN server: checks MESSAGE-INTEGRITY, answers 438 once to the
    first CreatePermission, relays one peer connection through ConnectionBind."""

    def __init__(self) -> None:
        self.key = long_term_key(USER, REALM, PASSWORD)
        self.nonce = b"n1"
        self.stale_once = True
        self.seen: list[str] = []
        self.permitted: set[str] = set()
        self.peers: dict[bytes, trio.SocketStream] = {}
        self.control: trio.SocketStream | None = None
        self.relay_listener: trio.SocketListener | None = None
        self.silent = False

    async def answer(self, stream: trio.SocketStream) -> None:
        while True:
            header = await read_exactly(stream, HEADER)
            raw = header + await read_exactly(stream, message_length(header) - HEADER)
            msg = Message.decode(raw)
            self.seen.append(f"{msg.method}:{msg.get(Attr.NONCE)!r}")
            if self.silent:
                continue
            if msg.get(Attr.MESSAGE_INTEGRITY) is None or not msg.check_integrity(raw, self.key):
                await self.error(stream, msg, 401, "Unauthorized")
                continue
            if msg.method == CREATE_PERMISSION and self.stale_once:
                self.stale_once, self.nonce = False, b"n2"
                await self.error(stream, msg, 438, "Stale Nonce")
                continue
            if msg.get(Attr.NONCE) != self.nonce:
                await self.error(stream, msg, 438, "Stale Nonce")
                continue
            attrs: tuple[tuple[int, bytes], ...] = ()
            if msg.method == ALLOCATE:
                self.control = stream
                assert self.relay_listener is not None
                port = self.relay_listener.socket.getsockname()[1]
                attrs = ((Attr.XOR_RELAYED_ADDRESS, xor_address("127.0.0.1", port, msg.txid)),)
            elif msg.method == CREATE_PERMISSION:
                peer = msg.address(Attr.XOR_PEER_ADDRESS)
                assert peer is not None
                self.permitted.add(peer[0])
            await stream.send_all(Message(msg.method, SUCCESS, msg.txid, attrs).encode(self.key))
            if msg.method == CONNECTION_BIND:
                peer_stream = self.peers[msg.get(Attr.CONNECTION_ID) or b""]
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_pipe, stream, peer_stream)
                    nursery.start_soon(_pipe, peer_stream, stream)
                return

    async def error(self, stream: trio.SocketStream, msg: Message, code: int, why: str) -> None:
        attrs = (
            (Attr.ERROR_CODE, error_code(code, why)),
            (Attr.REALM, REALM.encode()),
            (Attr.NONCE, self.nonce),
        )
        await stream.send_all(Message(msg.method, ERROR, msg.txid, attrs).encode())

    async def relay_accept(self, peer: trio.SocketStream) -> None:
        if "127.0.0.1" not in self.permitted or self.control is None:
            await peer.aclose()
            return
        cid = len(self.peers).to_bytes(4, "big")
        self.peers[cid] = peer
        indication = Message(
            CONNECTION_ATTEMPT,
            INDICATION,
            b"\x07" * 12,
            ((Attr.CONNECTION_ID, cid), (Attr.XOR_PEER_ADDRESS, xor_address("127.0.0.1", 1, b""))),
        )
        await self.control.send_all(indication.encode())
        await trio.sleep_forever()  # serve_tcp would close the peer's stream on return


async def _pipe(src: trio.SocketStream, dst: trio.SocketStream) -> None:
    try:
        async for chunk in src:
            await dst.send_all(chunk)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


@asynccontextmanager
async def fake_turn() -> AsyncIterator[tuple[FakeTurn, int]]:
    fake = FakeTurn()
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(partial(trio.serve_tcp, host="127.0.0.1"), fake.answer, 0)
        (relay,) = await nursery.start(
            partial(trio.serve_tcp, host="127.0.0.1"), fake.relay_accept, 0
        )
        fake.relay_listener = relay
        yield fake, listener.socket.getsockname()[1]
        nursery.cancel_scope.cancel()


async def test_allocate_permit_and_bind_carry_a_peer_s_bytes() -> None:
    server = TurnServer("127.0.0.1", 0, USER, PASSWORD)
    with trio.fail_after(10):
        async with fake_turn() as (fake, port):
            server = TurnServer("127.0.0.1", port, USER, PASSWORD)
            async with open_allocation(server) as alloc:
                assert alloc.relayed[0] == "127.0.0.1"
                await alloc.permit("127.0.0.1")  # 438 once: retried with the new nonce
                async with await trio.open_tcp_stream(*alloc.relayed) as peer:
                    cid, _ = await alloc.attempts.receive()
                    async with await alloc.bind(cid) as data:
                        await peer.send_all(b"hello")
                        assert await data.receive_some(5) == b"hello"
                        await data.send_all(b"back")
                        assert await peer.receive_some(4) == b"back"
    # the first Allocate went without credentials, the 438 brought nonce n2
    assert fake.seen[0] == "3:None" and any(s == "8:b'n2'" for s in fake.seen)
    assert "pw" not in repr(server)  # the password is never shown


async def test_a_wrong_password_is_one_typed_error() -> None:
    with trio.fail_after(10):
        async with fake_turn() as (_fake, port):
            with pytest.raises(TurnAuthError) as caught:
                async with open_allocation(TurnServer("127.0.0.1", port, USER, "nope")):
                    pass  # pragma: no cover
    text = str(caught.value)
    assert text == (
        f"the TURN server 127.0.0.1:{port} refused the user name or password (401 Unauthorized)"
    )
    assert "nope" not in text and "\n" not in text
    # the player's language: the error is a notice, not only its English sentence
    use_language("fr")
    try:
        said = notice_text(caught.value.words)
    finally:
        use_language("en")
    assert said == (
        f"le serveur TURN 127.0.0.1:{port} a refusé le nom d’utilisateur ou le mot de passe"
        " (401 Unauthorized)"
    )


async def test_a_server_that_is_down_or_silent_is_a_turn_error_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    down_port = free.getsockname()[1]
    free.close()
    with trio.fail_after(5):
        with pytest.raises(TurnError, match="cannot reach the TURN server"):
            async with open_allocation(TurnServer("127.0.0.1", down_port, USER, PASSWORD)):
                pass  # pragma: no cover
    monkeypatch.setattr("truc_p2p.net._turn.REQUEST_TIMEOUT", 0.3)
    with trio.fail_after(5):
        async with fake_turn() as (fake, port):
            fake.silent = True
            with pytest.raises(TurnError, match=r"did not answer within 0\.3 s"):
                async with open_allocation(TurnServer("127.0.0.1", port, USER, PASSWORD)):
                    pass  # pragma: no cover


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--turn", "turn:t.example:3478", "--turn-user", "u", "--turn-password", "p"],
         "--turn offers a path through the relay: add --relay HOST:PORT"),
        (["--relay", "127.0.0.1:9", "--turn", "turn:t.example:3478"],
         "--turn needs --turn-user and a password (--turn-password or TRUC_P2P_TURN_PASSWORD)"),
        (["--relay", "127.0.0.1:9", "--turn", "t.example:3478", "--turn-user", "u"],
         "--turn: 't.example:3478' is not a turn: URL (turn:HOST:PORT)"),
        (["--turn-user", "u"], "--turn-user and --turn-password need --turn"),
        (["--relay", "127.0.0.1:9", "--turn", "turn:t.example", "--turn-user", "u\u0007",
          "--turn-password", "p"],
         "the TURN user name is refused by SASLprep (RFC 4013): an ASCII control character "
         "(U+0007)"),
        (["--relay", "127.0.0.1:9", "--turn", "turn:t.example", "--turn-user", "u",
          "--turn-password", "\u0627\u0031"],
         "the TURN password is refused by SASLprep (RFC 4013): right-to-left text not begun "
         "and ended right-to-left"),
    ],
)  # fmt: skip
def test_bad_turn_options_are_one_line_and_status_2(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRUC_P2P_TURN_PASSWORD", raising=False)
    assert cli_main(["host", "--bot", "random", "--port", "0", *args]) == 2
    err = capsys.readouterr().err
    assert err == f"truc-p2p host: {says}\n"


def test_join_checks_its_turn_options_the_same_way(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRUC_P2P_TURN_PASSWORD", raising=False)
    invite = "truc://127.0.0.1:9/?fp=" + "0" * 64
    assert cli_main(["join", invite, "--bot", "random", "--turn", "turn:t.example"]) == 2
    assert capsys.readouterr().err == (
        "truc-p2p join: --turn needs --turn-user and a password "
        "(--turn-password or TRUC_P2P_TURN_PASSWORD)\n"
    )


async def test_a_host_whose_turn_server_is_down_says_so_once_and_registers() -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    down = free.getsockname()[1]
    free.close()
    told: list[str] = []
    with trio.fail_after(10):
        async with (
            running_relay() as (_server, port, _reports),
            open_rendezvous(
                ("127.0.0.1", port),
                turn=TurnServer("127.0.0.1", down, USER, PASSWORD),
                on_notice=told.append,
            ) as rendezvous,
        ):
            assert rendezvous.registrations == 1 and rendezvous.turn is None
            assert rendezvous._extra() == []  # no relayed address announced
    assert len(told) == 1 and told[0].startswith(
        f"no path through TURN (cannot reach the TURN server 127.0.0.1:{down}: "
    ), told
    assert told[0].endswith("); joiners use the other paths") and PASSWORD not in told[0]
    use_language("es")  # the operating system's refusal too, in the player's words
    try:
        said = notice_text(told[0])
    finally:
        use_language("en")
    assert said.startswith(
        f"ningún camino por TURN (no se puede contactar con el servidor TURN 127.0.0.1:{down}: "
    ), said
    assert said.endswith("conexión rechazada); los invitados usan los otros caminos"), said


@pytest.fixture
def loopback_coturn(tmp_path: Path) -> Iterator[int]:
    """Debian's coturn on 127.0.0.1 (loopback peers allowed), for Connect and Refresh."""
    if shutil.which("turnserver") is None:
        if os.environ.get("CI"):
            pytest.fail("the TURN tests must run in CI: .ci/run installs coturn")
        pytest.skip("needs coturn's turnserver (apt-get install coturn)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    conf = tmp_path / "turnserver.conf"
    conf.write_text(
        f"listening-ip=127.0.0.1\nrelay-ip=127.0.0.1\nlistening-port={port}\nno-tls\n"
        f"no-dtls\nno-udp\nno-cli\nlt-cred-mech\nuser={USER}:{PASSWORD}\nrealm={REALM}\n"
        "allow-loopback-peers\nallowed-peer-ip=127.0.0.1\n"
        f"userdb={tmp_path / 'db'}\npidfile={tmp_path / 'pid'}\nlog-file=/dev/null\n"
    )
    server = subprocess.Popen(
        ["turnserver", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, "coturn did not start"
            time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(10)


ROOT = Path(__file__).resolve().parents[2]


def _documented_coturn_config(page: str) -> str:
    """The coturn configuration a page shows (the fenced block with ``lt-cred-mech``)."""
    blocks: list[list[str]] = []
    inside = False
    for line in (ROOT / page).read_text().splitlines(keepends=True):
        if line.startswith("```"):
            inside = not inside
            blocks += [[]] if inside else []
        elif inside:
            blocks[-1].append(line)
    found = ["".join(block) for block in blocks if "lt-cred-mech\n" in block]
    assert len(found) == 1, page
    return found[0]


@pytest.mark.slow
@pytest.mark.parametrize("page", ["README.md", "docs/friends.md", "protocol_spec/connect.md"])
async def test_the_documented_coturn_configuration_works(page: str, tmp_path: Path) -> None:
    """The configuration the README, play-a-friend and the spec show, its address made
    127.0.0.1 and its port a free one: coturn starts with it and allocates for its
    user (coturn reads a comment after a value as part of the value)."""
    if shutil.which("turnserver") is None:
        if os.environ.get("CI"):
            pytest.fail("the TURN tests must run in CI: .ci/run installs coturn")
        pytest.skip("needs coturn's turnserver (apt-get install coturn)")
    text = _documented_coturn_config(page)
    user, password = re.findall(r"^user=([^:\n]+):(\S+)$", text, re.M)[0]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    text = text.replace("203.0.113.10", "127.0.0.1").replace("=3478", f"={port}")
    conf = tmp_path / "turnserver.conf"
    conf.write_text(
        f"{text}userdb={tmp_path / 'db'}\npidfile={tmp_path / 'pid'}\nlog-file=/dev/null\n"
    )
    server = subprocess.Popen(
        ["turnserver", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        with trio.fail_after(20):
            while True:
                try:
                    await (await trio.open_tcp_stream("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    assert server.poll() is None, (
                        f"coturn did not start with {page}'s configuration"
                    )
                    await trio.sleep(0.1)
            async with open_allocation(TurnServer("127.0.0.1", port, user, password)) as alloc:
                assert alloc.relayed[0] == "127.0.0.1"
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.slow
async def test_coturn_connects_out_refreshes_and_deletes(loopback_coturn: int) -> None:
    """RFC 6062's Connect (the server dials a peer), a Refresh, and the delete on close."""
    server = TurnServer("127.0.0.1", loopback_coturn, USER, PASSWORD)
    with trio.fail_after(20):
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        peer_port = listeners[0].socket.getsockname()[1]
        async with open_allocation(server) as alloc:
            await alloc.permit("127.0.0.1")
            cid = await alloc.connect(("127.0.0.1", peer_port))
            async with await listeners[0].accept() as peer, await alloc.bind(cid) as data:
                await peer.send_all(b"from the peer")
                assert await read_exactly(data, 13) == b"from the peer"
                await data.send_all(b"back")
                assert await read_exactly(peer, 4) == b"back"
            answer = await alloc.request(REFRESH, ((Attr.LIFETIME, (600).to_bytes(4, "big")),))
            assert answer.uint32(Attr.LIFETIME) == 600
            relayed = alloc.relayed
        await listeners[0].aclose()
        # deleted on close: the relayed port is closed again (once coturn has read it)
        with trio.fail_after(5):
            while True:
                try:
                    stream = await trio.open_tcp_stream(*relayed)
                except OSError:
                    break
                await stream.aclose()
                await trio.sleep(0.1)


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "direct: refused; punched: timed out after 3 s; via TURN 198.51.100.7:49152"),
        ("fr", "direct : refusé ; percé : pas de réponse après 3 s ; par TURN 198.51.100.7:49152"),
    ],
)
def test_the_why_line_says_each_failed_path_then_the_one_taken(lang: str, line: str) -> None:
    tries = [
        PathTry("direct", "refused"),
        PathTry("punched", "timed-out", 3.0),
        PathTry("turn", "won", 3.0, "198.51.100.7:49152"),
    ]
    use_language(lang)
    try:
        assert tries_line([t.as_json() for t in tries]) == line
    finally:
        use_language("en")
    relayed = [PathTry("direct", "no-answer-yet"), PathTry("relayed", "won", 3.1, "r.example:4456")]
    assert tries_line([t.as_json() for t in relayed]) == (
        "direct: no answer yet; via the relay r.example:4456"
    )
    assert tries[1].as_json() == {"path": "punched", "result": "timed-out", "seconds": 3.0}
