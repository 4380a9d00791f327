"""connect.md §9.6's nginx example, run for real: ``wss://`` and ``https://`` end at
nginx (a self-signed certificate, on loopback), which passes them to the relay.

The configuration is read out of the spec (only the listen address, the
certificate's paths and the relay's port are changed), so the example a reader
copies is the one that was run.
"""

from __future__ import annotations

import datetime
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from helpers.net import bot, free_port, new_session
from helpers.ws import expect, open_ws, running_relay, upgrade_request, ws_attach

from truc_p2p.net import Invite, PlayOptions, connect, play_game
from truc_p2p.net._relay_http import SITE_CSP
from truc_p2p.net._relay_wire import MAGIC, Msg, decode_addr, encode, encode_addrs
from truc_p2p.protocol import verify_transcript
from truc_p2p.rules import Player

pytestmark = pytest.mark.slow

SPEC = (Path(__file__).resolve().parents[2] / "protocol_spec" / "connect.md").read_text()
NAME = "relay.example.org"


def _example() -> str:
    (block,) = re.findall(r"```nginx\n(.*?)```", SPEC, flags=re.S)
    return str(block)


def _certificate(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    crt, pem = directory / "fullchain.pem", directory / "privkey.pem"
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return crt, pem


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[tuple[int, int, ssl.SSLContext]]:
    """nginx with the spec's example in front of a relay port; (nginx's port, the
    relay's port to serve, a client TLS context trusting the certificate)."""
    binary = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if binary is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    crt, pem = _certificate(tmp_path)
    port, relay_port = free_port(), free_port()
    site = _example()
    for old, new in (
        ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
        (f"/etc/letsencrypt/live/{NAME}/fullchain.pem", str(crt)),
        (f"/etc/letsencrypt/live/{NAME}/privkey.pem", str(pem)),
        ("127.0.0.1:4456", f"127.0.0.1:{relay_port}"),
    ):
        assert old in site, old
        site = site.replace(old, new)
    (tmp_path / "truc-relay.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"daemon off;\nmaster_process off;\npid {tmp_path}/nginx.pid;\n"
        f"error_log {tmp_path}/error.log;\nevents {{ worker_connections 64; }}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
        f"  proxy_temp_path {tmp_path}/proxy;\n  include {tmp_path}/truc-relay.conf;\n}}\n"
    )
    proc = subprocess.Popen(
        [binary, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
         "-e", str(tmp_path / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.05)
        context = ssl.create_default_context(cafile=str(crt))
        yield port, relay_port, context
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


async def _https_get(port: int, context: ssl.SSLContext, path: str) -> bytes:
    tcp = await trio.open_tcp_stream("127.0.0.1", port)
    stream = trio.SSLStream(tcp, context, server_hostname=NAME)
    async with stream:
        await stream.send_all(
            f"GET {path} HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        with trio.fail_after(10):
            try:
                while chunk := await stream.receive_some(65536):
                    data += chunk
            except trio.BrokenResourceError:
                pass
    return data


async def _serve(tmp_path: Path, nginx: tuple[int, int, ssl.SSLContext]) -> None:
    port, relay_port, tls = nginx
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>truc</title>")
    records: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    sessions = {p: new_session(p, record=records[p], seed=3) for p in records}
    async with running_relay(site=site, port=relay_port) as (server, relay, reports):
        server.trusted_proxies = frozenset({"127.0.0.1"})
        # the site through https, with the relay's headers passed on
        page = await _https_get(port, tls, "/")
        assert page.startswith(b"HTTP/1.1 200") and page.endswith(b"<title>truc</title>")
        assert f"Content-Security-Policy: {SITE_CSP}".encode() in page
        # a browser host over wss; a forged X-Forwarded-For is not believed
        headers = upgrade_request(port, b"dGhlIHNhbXBsZSBub25jZQ==", host=NAME)
        headers.append(("X-Forwarded-For", "203.0.113.9"))
        control = await open_ws(port, headers=headers, tls=tls, server_name=NAME)
        await control.send_all(MAGIC + encode(Msg.REGISTER, encode_addrs([])))
        body = await expect(control, Msg.REGISTERED)
        code = body[1 : 1 + body[0]].decode()
        assert decode_addr(body, 1 + body[0])[0][0] == "127.0.0.1"
        # a desktop joiner over plain TCP, to the relay's own port
        invite = Invite("127.0.0.1", 9, sessions[Player.P1].fingerprint, ("127.0.0.1", relay), code)
        outcomes = {}
        async with control, trio.open_nursery() as nursery:
            attached = []

            async def host() -> None:
                attached.append(await ws_attach(port, control, tls=tls, server_name=NAME))

            nursery.start_soon(host)
            stream, path = await connect(invite, direct_window=0.2)
            assert path == "relayed"

        pinned = sessions[Player.P1].fingerprint

        async def side(me: Player, s: trio.abc.Stream) -> None:
            async with s:
                pin = PlayOptions(expected_fingerprint=None if me is Player.P1 else pinned)
                outcomes[me] = await play_game(s, sessions[me], bot(int(me)), pin)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(side, Player.P1, attached[0])
            nursery.start_soon(side, Player.P0, stream)
    assert all(o.valid for o in outcomes.values())
    assert all(verify_transcript(r).valid for r in records.values())
    assert reports[0].spliced and server.stats["websockets"] == 2


def test_the_spec_nginx_example_carries_wss_and_https_to_the_relay(
    tmp_path: Path, nginx: tuple[int, int, ssl.SSLContext]
) -> None:
    trio.run(_serve, tmp_path, nginx)
