"""Real Nostr relays on loopback for the tests: ``nostr-relay`` (PyPI), which
``.ci/run`` installs, pinned, into ``.cache/nostr-relay`` (its own venv)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".cache" / "nostr-relay"
BINARY = VENV / "bin" / "nostr-relay"

_CONFIG = """\
DEBUG: false
relay_name: truc-p2p test relay {port}
storage:
  sqlalchemy.url: sqlite+aiosqlite:///{db}
  num_concurrent_reqs: 10
  num_concurrent_adds: 2
  validators:
    - nostr_relay.validators.is_signed
gunicorn:
  bind: 127.0.0.1:{port}
  workers: 1
  loglevel: warning
  reload: false
authentication:
  enabled: false
message_timeout: 1800
subscription_limit: 32
max_limit: 6000
"""


def relay_binary() -> Path:
    """The relay program; in CI it must be there, elsewhere the test skips and says how."""
    if not BINARY.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"{BINARY} is missing: .ci/run installs it")
        pytest.skip(
            "no Nostr relay: python3 -m venv .cache/nostr-relay && "
            ".cache/nostr-relay/bin/pip install -r tests/nostr/requirements.txt"
        )
    return BINARY


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class NostrRelay:
    """One ``nostr-relay serve`` process on a loopback port, its data in ``folder``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.port = _free_port()
        self.url = f"ws://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        config = self.folder / "config.yaml"
        config.write_text(_CONFIG.format(port=self.port, db=self.folder / "nostr.sqlite3"))
        with (self.folder / "relay.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [str(relay_binary()), "-c", str(config), "serve", "--use-uvicorn"],
                cwd=self.folder,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, (self.folder / "relay.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "the Nostr relay did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None


@contextmanager
def nostr_relays(folder: Path, count: int) -> Iterator[list[NostrRelay]]:
    """``count`` relays running on loopback, stopped at the end."""
    relays = [NostrRelay(folder / f"nostr{i}") for i in range(count)]
    try:
        for relay in relays:
            relay.start()
        yield relays
    finally:
        for relay in relays:
            relay.stop()
