"""The lobby on Nostr (connect.md §10) with real Nostr relays on loopback (nostr-relay,
installed by .ci/run): a host lists on two of three relays, a joiner finds it and plays
with two of the three down; junk and forged listings hide no host and none is shown;
the host publishes nothing once the game starts; an unreachable relay costs one line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.netns import LIMIT, Proc, truc_command
from helpers.nostr import NostrRelay, nostr_relays

from truc_p2p.crypto import SigningKey
from truc_p2p.net._lobby import LobbyListing
from truc_p2p.net._nostr import (
    LISTING_KIND,
    NostrKey,
    listing_binding,
    listing_event,
    sign_event,
)
from truc_p2p.net._nostr_client import NostrError, NostrSocket, publish_event
from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

pytestmark = pytest.mark.slow


def _run(cwd: Path, *args: str, timeout: float = LIMIT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*truc_command(), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
        env={**os.environ, "XDG_DATA_HOME": str(cwd / "xdg")},
    )  # fmt: skip


class Watcher:
    """A live subscription to a relay's truc-p2p events (listings and deletions),
    in a thread: what the relay took, each with the monotonic time it arrived."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: list[tuple[float, dict[str, Any]]] = []
        self.ready = threading.Event()
        self._stop: trio.Event | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._watch,), daemon=True)
        self._thread.start()
        assert self.ready.wait(20), "the watcher did not subscribe"

    async def _watch(self) -> None:
        self._stop, self._token = trio.Event(), trio.lowlevel.current_trio_token()
        sock = await NostrSocket.connect(self.url)
        await sock.send(["REQ", "watch", {"kinds": [LISTING_KIND, 5]}])
        async with trio.open_nursery() as nursery:

            async def read() -> None:
                try:
                    while True:
                        message = await sock.receive()
                        if message[0] == "EOSE":
                            self.ready.set()
                        elif message[0] == "EVENT":
                            self.seen.append((time.monotonic(), message[2]))
                except NostrError:
                    pass  # the relay stopped: nothing more to count there

            nursery.start_soon(read)
            await self._stop.wait()
            nursery.cancel_scope.cancel()
        await sock.aclose()

    def close(self) -> None:
        if self._token is not None and self._stop is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join(10)


def _host(cwd: Path, name: str, *urls: str) -> Proc:
    nostr = [arg for url in urls for arg in ("--nostr", url)]
    return Proc(
        None, None, cwd, "host", "--public", *nostr, "--bind", "127.0.0.1", "--port", "0",
        "--no-portmap", "--no-announce", "--bot", "random", "--seed", "1", "--timeout", "30",
        "--name", name, "--identity", f"{name}.key", "--out", name, "--verbose",
    )  # fmt: skip


def _lobby(cwd: Path, *urls: str, timeout: float = 3) -> subprocess.CompletedProcess[str]:
    nostr = [arg for url in urls for arg in ("--nostr", url)]
    return _run(cwd, "lobby", *nostr, "--json", "--timeout", str(timeout))


def _found(cwd: Path, urls: list[str], name: str) -> dict[str, Any]:
    """The lobby's JSON once ``name`` is listed (the host publishes just after it
    prints its invite)."""
    deadline = time.monotonic() + 20
    while True:
        answer = _lobby(cwd, *urls)
        data: dict[str, Any] = json.loads(answer.stdout)
        if any(g["name"] == name for g in data["games"]):
            return data
        assert time.monotonic() < deadline, answer.stdout + answer.stderr
        time.sleep(0.3)


def _dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{probe.getsockname()[1]}"


def test_a_host_on_two_relays_is_joined_with_two_of_three_down(tmp_path: Path) -> None:
    dead = _dead_url()
    with nostr_relays(tmp_path, 3) as (a, b, c):
        watchers = [Watcher(a.url), Watcher(b.url)]
        host = _host(tmp_path, "ana", a.url, b.url, dead)
        try:
            host.wait_for(lambda text: "listed on the Nostr relays as ana" in text, 20)
            listed = _found(tmp_path, [a.url, b.url, c.url], "ana")
            (game,) = listed["games"]
            assert sorted(game["relays"]) == sorted([a.url, b.url])
            # The dead relay costs the host one line, and no traceback.
            host.wait_for(lambda text: f"Nostr relay {dead}:" in text, 20)
            a.stop()
            c.stop()
            started = time.monotonic()
            answer = _lobby(tmp_path, a.url, b.url, c.url, timeout=3)
            assert time.monotonic() - started < 3 + 5
            data = json.loads(answer.stdout)
            assert answer.returncode == 0, answer.stderr
            assert [g["name"] for g in data["games"]] == ["ana"]
            assert data["games"][0]["relays"] == [b.url]
            assert len(data["unreachable"]) == 2
            # join --nostr picks from the same merged list (two relays down: two lines)
            joiner = Proc(
                None, None, tmp_path, "join", "--nostr", a.url, "--nostr", b.url, "--nostr",
                c.url, "--pick", "1", "--connect-timeout", "3", "--bot", "random", "--seed",
                "2", "--timeout", "30", "--identity", "j.key", "--out", "j", "--json",
            )  # fmt: skip
            assert joiner.finish() == 0, joiner.text()
            result = joiner.last_json()
            assert result["valid"] and result["players"][1] == "ana"
            down = [t for _, w, t in joiner.lines if w == "err" and "cannot reach the Nostr" in t]
            assert len(down) == 2 and "1. ana  " in joiner.text()
            assert host.finish() == 0, host.text()
            assert "Traceback" not in host.text()
            dealt, _ = host.wait_for(lambda text: text.startswith("-- hand 1,"))
            dealt += host.started
            time.sleep(1)
        finally:
            host.stop()
            for watcher in watchers:
                watcher.close()
        # Counted on relay b: the listing (refreshes aside), then the deletion, and
        # nothing after it; the deletion arrived before the first card was dealt.
        kinds = [event["kind"] for _, event in watchers[1].seen]
        assert kinds[-1] == 5 and set(kinds[:-1]) == {LISTING_KIND}, kinds
        deleted_at = watchers[1].seen[-1][0]
        assert deleted_at < dealt, (deleted_at, dealt)
        assert json.loads(_lobby(tmp_path, b.url).stdout)["games"] == []
        (transcript,) = (tmp_path / "ana").glob("*.truc")
        assert verify_transcript(read_transcript(transcript)).valid


def _identity_listing(name: str) -> tuple[SigningKey, LobbyListing]:
    identity = SigningKey.generate()
    key = identity.public_key().to_bytes()
    return identity, LobbyListing(
        key=key, addr=("127.0.0.1", 4455), fields={"name": name, "target": "12", "match": "1"}
    )


def _junk(real: dict[str, Any]) -> list[Any]:
    """Events a flood may hold, each valid for the relay (signed by its own Nostr key)."""
    now = int(time.time())
    out: list[Any] = []
    for i in range(60):  # garbage content under the listing kind
        key = NostrKey(os.urandom(32))
        content = ["", "{}", "not json", json.dumps({"listing": "zz"}), "x" * 3000][i % 5]
        tags = [["d", os.urandom(32).hex()], ["expiration", str(now + 300)]]
        out.append(
            sign_event(key, created_at=now, kind=LISTING_KIND, tags=tags, content=content,
                       aux=os.urandom(32))
        )  # fmt: skip
    # The real host's listing, carried by another Nostr key (its binding names the host's).
    thief = NostrKey(os.urandom(32))
    out.append(
        sign_event(thief, created_at=now + 1, kind=LISTING_KIND, tags=real["tags"],
                   content=real["content"], aux=os.urandom(32))
    )  # fmt: skip
    # A forger's listing whose Ed25519 signature is broken.
    forger, listing = _identity_listing("forged-sig")
    event = listing_event(NostrKey(os.urandom(32)), forger, listing, now=now, lifetime=300,
                          aux=os.urandom(32))  # fmt: skip
    body = json.loads(event.content)
    body["listing"] = body["listing"][:-2] + ("00" if body["listing"][-2:] != "00" else "01")
    key = NostrKey(os.urandom(32))
    out.append(
        sign_event(key, created_at=now, kind=LISTING_KIND, tags=event.tags,
                   content=json.dumps(body), aux=os.urandom(32))
    )  # fmt: skip
    # An expired listing, valid in every other way.
    old, listing = _identity_listing("expired")
    out.append(
        listing_event(NostrKey(os.urandom(32)), old, listing, now=now - 400, lifetime=300,
                      aux=os.urandom(32))
    )  # fmt: skip
    # A listing that names the real host's fingerprint in its d tag, signed by another key.
    other, listing = _identity_listing("ana")
    event = listing_event(NostrKey(os.urandom(32)), other, listing, now=now, lifetime=300,
                          aux=os.urandom(32))  # fmt: skip
    tags = [["d", real["tags"][0][1]], event.tags[1]]
    out.append(
        sign_event(NostrKey(os.urandom(32)), created_at=now, kind=LISTING_KIND, tags=tags,
                   content=event.content, aux=os.urandom(32))
    )  # fmt: skip
    return out


def test_a_flood_of_junk_and_forged_listings_hides_no_host(tmp_path: Path) -> None:
    with nostr_relays(tmp_path, 2) as relays:
        urls = [r.url for r in relays]
        host = _host(tmp_path, "ana", *urls)
        try:
            listed = _found(tmp_path, urls, "ana")
            fingerprint = listed["games"][0]["fingerprint"]

            async def real_event() -> dict[str, Any]:
                from truc_p2p.net._nostr_client import query_relay

                (event,) = [
                    e
                    for e in await query_relay(urls[0], {"kinds": [LISTING_KIND]}, timeout=5)
                    if isinstance(e, dict) and e["tags"][0][1] == fingerprint
                ]
                return event

            real = trio.run(real_event)
            junk = _junk(real)

            async def flood() -> int:
                taken = 0
                for event in junk:
                    for url in urls:
                        try:
                            await publish_event(url, event, timeout=5)
                            taken += 1
                        except NostrError:
                            pass  # a relay may refuse some (an expired one): fine
                return taken

            assert trio.run(flood) >= len(junk)
            answer = _lobby(tmp_path, *urls)
            data = json.loads(answer.stdout)
            assert answer.returncode == 0, answer.stderr
            assert [(g["name"], g["fingerprint"]) for g in data["games"]] == [("ana", fingerprint)]
            assert len(data["dropped"]) >= len(junk) - 1
            text = _run(tmp_path, "lobby", *[x for u in urls for x in ("--nostr", u)])
            assert text.returncode == 0 and "forged" not in text.stdout
            assert "expired" not in text.stdout and text.stdout.count("ana") == 1
        finally:
            host.stop()


def test_an_unreachable_or_silent_relay_costs_one_line(tmp_path: Path) -> None:
    dead = _dead_url()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        quiet = f"ws://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        answer = _run(tmp_path, "lobby", "--nostr", dead, "--nostr", quiet, "--timeout", "1")
        took = time.monotonic() - started
    assert answer.returncode == 4 and answer.stdout == ""
    lines = answer.stderr.splitlines()
    assert len(lines) == 2 and all("cannot reach the Nostr relay" in line for line in lines)
    assert "no answer in time" in answer.stderr and took < 1 + 4
    bad = _run(tmp_path, "lobby", "--nostr", "http://example.invalid/")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
    host = _run(tmp_path, "host", "--public", "--nostr", "relay.example", "--bot", "random")
    assert host.returncode == 2 and host.stderr.count("\n") == 1 and "ws://" in host.stderr
    unlisted = _run(tmp_path, "host", "--nostr", dead, "--bot", "random")
    assert unlisted.returncode == 2 and "--public" in unlisted.stderr
    assert "Traceback" not in answer.stderr + bad.stderr + host.stderr + unlisted.stderr


def test_relay_helper_starts(tmp_path: Path) -> None:
    relay = NostrRelay(tmp_path / "one")
    relay.start()
    try:
        assert relay.proc is not None and relay.proc.poll() is None
    finally:
        relay.stop()
    assert listing_binding("ab" * 32, 5) == "nostr " + "ab" * 32 + " 5"
