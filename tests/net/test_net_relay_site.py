"""``relay --site DIR``: the static site over HTTP on the relay's port (connect.md §9.5)."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import h11
import pytest
import trio
from helpers.netns import LIMIT, Proc, truc_command

from truc_p2p.net import RelayServer
from truc_p2p.net._relay_http import SITE_CSP, WebLimits

Answer = tuple[int, dict[str, str], bytes]


@asynccontextmanager
async def site_relay(site: Path | None, web: WebLimits | None = None) -> AsyncIterator[int]:
    server = RelayServer(site=site, web=web)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(server.serve, listeners)
        try:
            yield int(listeners[0].socket.getsockname()[1])
        finally:
            nursery.cancel_scope.cancel()
            for listener in listeners:
                listener.socket.close()  # not awaited: a failure in the body must show


async def fetch(
    port: int, *targets: str, method: str = "GET", headers: list[tuple[str, str]] | None = None
) -> list[Answer]:
    """Ask for each target in turn on one kept-alive connection; the answers got
    before the relay closed it."""
    answers: list[Answer] = []
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = h11.Connection(h11.CLIENT)
    async with stream:
        for target in targets:
            request = h11.Request(
                method=method, target=target, headers=[("Host", "relay"), *(headers or [])]
            )
            try:
                await stream.send_all(conn.send(request) + conn.send(h11.EndOfMessage()))
            except trio.BrokenResourceError:
                return answers
            status, got, body = 0, {}, b""
            with trio.fail_after(10):
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        conn.receive_data(await stream.receive_some(65536))
                    elif isinstance(event, h11.Response):
                        status = event.status_code
                        got = {k.decode().lower(): v.decode() for k, v in event.headers}
                    elif isinstance(event, h11.Data):
                        body += event.data
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    else:
                        return answers
            answers.append((status, got, body))
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return answers
            conn.start_next_cycle()
    return answers


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "vendor" / "pyodide").mkdir(parents=True)
    (root / "icons").mkdir()
    files = {
        "index.html": b"<!doctype html><title>truc</title>",
        "app.js": b"export const x = 1;\n",
        "app.css": b"body{}\n",
        "sw.js": b"self.addEventListener('fetch', () => {});\n",
        "site.webmanifest": b'{"name": "truc"}',
        "manifest.json": b'{"files": {}}',
        "site.json": b'{"version": "0"}',
        "icons/icon.svg": b"<svg/>",
        "vendor/pyodide/pyodide.asm.wasm": b"\0asm\1\0\0\0" + os.urandom(200_000),
        "vendor/pyodide/python_stdlib.zip": b"PK\5\6" + bytes(18),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    (tmp_path / "secret.txt").write_text("the opponent's key\n")
    (root / ".hidden").write_text("no\n")
    (root / "outside").symlink_to(tmp_path / "secret.txt")
    return root


async def test_the_site_is_served_with_its_types_cache_rules_and_security_headers(
    site: Path,
) -> None:
    targets = {
        "/": ("text/html; charset=utf-8", "no-cache"),
        "/index.html": ("text/html; charset=utf-8", "no-cache"),
        "/app.js": ("text/javascript; charset=utf-8", "max-age=600"),
        "/app.css": ("text/css; charset=utf-8", "max-age=600"),
        "/sw.js": ("text/javascript; charset=utf-8", "no-cache"),
        "/site.webmanifest": ("application/manifest+json", "max-age=600"),
        "/manifest.json": ("application/json", "no-cache"),
        "/site.json": ("application/json", "no-cache"),
        "/icons/icon.svg": ("image/svg+xml", "max-age=600"),
        "/vendor/pyodide/pyodide.asm.wasm": ("application/wasm", "max-age=600"),
        "/vendor/pyodide/python_stdlib.zip?v=1": ("application/zip", "max-age=600"),
    }
    async with site_relay(site) as port:
        answers = await fetch(port, *targets)
        heads = await fetch(port, "/vendor/pyodide/pyodide.asm.wasm", method="HEAD")
    assert len(answers) == len(targets)
    for (target, (ctype, cache)), (status, headers, body) in zip(
        targets.items(), answers, strict=True
    ):
        name = target.split("?")[0].lstrip("/") or "index.html"
        assert status == 200, target
        assert body == (site / name).read_bytes(), target
        assert headers["content-type"] == ctype, target
        assert headers["cache-control"] == cache, target
        assert headers["content-security-policy"] == SITE_CSP
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    for part in (
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self'",
        "connect-src 'self' ws: wss:",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ):
        assert part in SITE_CSP
    ((status, headers, body),) = heads
    assert status == 200 and body == b""
    assert headers["content-length"] == str(
        (site / "vendor/pyodide/pyodide.asm.wasm").stat().st_size
    )


async def test_a_file_not_changed_is_not_sent_again(site: Path) -> None:
    async with site_relay(site) as port:
        ((_, headers, _),) = await fetch(port, "/sw.js")
        ((status, again, body),) = await fetch(
            port, "/sw.js", headers=[("If-None-Match", headers["etag"])]
        )
    assert status == 304 and body == b"" and again["etag"] == headers["etag"]


@pytest.mark.parametrize(
    "target",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/vendor/..%2f..%2fsecret.txt",
        "/vendor/%2e%2e/%2e%2e/secret.txt",
        "/vendor/..%5c..%5csecret.txt",
        "/outside",  # a symbolic link out of the site
        "/.hidden",
        "/index.html%00.js",
        "/%ff",
        "/nothing.js",
        "/vendor",  # a folder without an index
        "*",
        "http://elsewhere/../../secret.txt",
    ],
)
async def test_no_request_reaches_a_file_outside_the_site(site: Path, target: str) -> None:
    async with site_relay(site) as port:
        ((status, headers, body),) = await fetch(port, target)
    assert status in (400, 404)
    assert b"opponent" not in body
    assert headers["x-content-type-options"] == "nosniff"


async def test_without_a_site_a_get_is_a_short_404_and_other_methods_405() -> None:
    async with site_relay(None) as port:
        ((status, headers, body),) = await fetch(port, "/")
        assert (status, body) == (404, b"not found: this relay serves no site\n")
        assert headers["content-type"] == "text/plain; charset=utf-8"
        # the first request must look like HTTP (GET/HEAD); later ones may be anything
        answers = await fetch(port, "/", "/x", method="HEAD")
        assert [a[0] for a in answers] == [404, 404]
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            await stream.send_all(
                b"GET / HTTP/1.1\r\nHost: r\r\n\r\nPOST / HTTP/1.1\r\nHost: r\r\n\r\n"
            )
            data = b""
            with trio.fail_after(5):
                while chunk := await stream.receive_some(4096):
                    data += chunk
        assert data.count(b"HTTP/1.1 404") == 1 and b"HTTP/1.1 405" in data


async def test_a_connection_carries_a_bounded_number_of_requests_with_bounded_heads(
    site: Path,
) -> None:
    async with site_relay(site, WebLimits(max_requests=3)) as port:
        answers = await fetch(port, *["/app.js"] * 5)
        assert [a[0] for a in answers] == [200, 200, 200]
        assert answers[-1][1]["connection"] == "close"
        ((status, _, _),) = await fetch(port, "/app.js", headers=[("X-Big", "y" * 9000)])
        assert status == 431


@pytest.mark.slow
def test_relay_site_serves_a_directory_and_refuses_a_missing_one(
    site: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [*truc_command(), "relay", "--port", "0", "--site", str(tmp_path / "nope")],
        capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert done.returncode == 2 and "--site" in done.stderr and "Traceback" not in done.stderr
    relay = Proc(None, None, tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json",
                 "--site", str(site))  # fmt: skip
    try:
        _, line = relay.wait_for(lambda text: '"listening"' in text, 20)
        port = json.loads(line)["addresses"][0][1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
            assert answer.read() == (site / "index.html").read_bytes()
            assert answer.headers["Content-Security-Policy"] == SITE_CSP
    finally:
        relay.stop()
    assert "Traceback" not in relay.text()
