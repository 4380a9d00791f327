"""A real Chromium at the relay: the page comes from ``truc-p2p relay --site DIR`` under
its Content-Security-Policy, opens ``ws://…/ws`` with the subprotocol, registers, and
is spliced with a TCP joiner (the net API's ``connect``) through the relay."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import trio
from helpers.cli import spawn
from helpers.web import OPEN_PAGES

from truc_p2p.net import Invite, connect
from truc_p2p.net._relay_wire import read_exactly

PAGE = Path(__file__).resolve().parent / "relay_ws_page"


async def _tcp_joiner(port: int, code: str) -> tuple[bytes, str]:
    invite = Invite("127.0.0.1", 9, "ab" * 32, relay=("127.0.0.1", port), code=code)
    with trio.fail_after(30):
        stream, path = await connect(invite, paths=frozenset({"relayed"}), direct_window=0)
        async with stream:
            hello = await read_exactly(stream, len(b"hello from chromium"))
            await stream.send_all(b"olleh")
            await trio.sleep(0.2)
    return hello, path


def test_chromium_hosts_at_the_relay_and_is_spliced_with_a_tcp_joiner(
    browser: Any, tmp_path: Path
) -> None:
    relay = spawn(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json",
                  "--site", PAGE)  # fmt: skip
    try:
        assert relay.stdout is not None
        port = json.loads(relay.stdout.readline())["addresses"][0][1]
        page = browser.new_page()  # the relay's CSP applies: no bypass
        OPEN_PAGES.append(page)
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("body[data-code], body[data-error]", timeout=15_000)
        assert page.get_attribute("body", "data-error") is None, page.get_attribute(
            "body", "data-error"
        )
        code = page.get_attribute("body", "data-code")
        assert code is not None and len(code) == 16
        hello, path = trio.run(_tcp_joiner, port, code)
        assert (hello, path) == (b"hello from chromium", "relayed")
        page.wait_for_selector("body[data-done], body[data-error]", timeout=15_000)
        # the answer came back; the subprotocol was agreed, no extension
        assert page.get_attribute("body", "data-done") == "olleh/truc-p2p.relay.v1/none"
        assert problems == []
    finally:
        relay.send_signal(signal.SIGINT)
        out, err = relay.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert '"spliced": true' in out, out
