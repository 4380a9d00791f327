"""Nothing a peer or the network sends reaches the terminal as anything but printable
text (issue 46): escape sequences, C0 and C1 controls and bidi overrides are
stripped from the relay's ERROR and LISTED texts, an mDNS announcement's name,
the peer's stderr line quoted in the interop table and a notice's facts, all by
the one function :func:`truc_p2p._text.printable`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from helpers.relay import running_relay

from truc_p2p._text import printable
from truc_p2p.interop._judge_case import _last_words
from truc_p2p.net import ConnectError, Invite, RelayServer, connect, open_rendezvous
from truc_p2p.net._discovery import _decode
from truc_p2p.net._lobby import fetch_lobby_answer
from truc_p2p.net._notice import Notice
from truc_p2p.net._relay import _error
from truc_p2p.net._relay_wire import RelayProtocolError

#: Clear the screen, retitle the window, a red "OK", an OSC 8 link, a C1 CSI, a
#: bell, a carriage return that overwrites the line, a bidi override and isolate.
EVIL = (
    "\x1b[2J\x1b]0;pwned\x07\x1b[31mOK\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"
    "\x9b31m\x07\rfake\u202etxt.exe\u2066x\u2069 \x1bc\x7f\x85end"
)


def _clean(text: str) -> None:
    assert text.isprintable(), repr(text)
    assert "pwned" not in text and "[31m" not in text and "http" not in text


def test_printable_strips_sequences_controls_and_bidi_and_keeps_words() -> None:
    clean = printable(EVIL)
    _clean(clean)
    assert clean == "OK link faketxt.exex  end"
    assert printable("ana\tand\nbea") == "ana and bea"
    assert printable("José 王 ♠️ 10\u00a0€") == "José 王 ♠️ 10 €"
    assert printable("\x1b]0;never ends") == "" and printable("x" * 300, 200) == "x" * 200


class _EvilRelay(RelayServer):
    """A relay whose words are escape sequences: its LISTED reason, its ERROR to a
    JOIN and to a LOBBY."""

    def _list(self, reg: object, listing: bytes) -> str:
        return EVIL

    async def _join(self, stream: trio.SocketStream, ip: str, body: bytes) -> None:
        await _error(stream, EVIL)

    async def _lobby(self, stream: trio.SocketStream, body: bytes) -> None:
        await _error(stream, EVIL)


async def test_the_relays_error_and_listed_texts_are_made_printable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("helpers.relay.RelayServer", _EvilRelay)
    notices: list[str] = []
    with trio.fail_after(20):
        async with (
            running_relay() as (_, port, _),
            open_rendezvous(("127.0.0.1", port), on_notice=notices.append) as rendezvous,
        ):
            await rendezvous.set_listing(b"anything")
            while rendezvous.unlisted_because is None:
                await trio.sleep(0.02)
            _clean(rendezvous.unlisted_because)
            assert notices and all(n.isprintable() for n in notices), notices
            invite = rendezvous.invite(Invite("127.0.0.1", 9, "ab" * 32))
            with pytest.raises(ConnectError) as joined:
                await connect(invite, paths=frozenset({"relayed"}), direct_window=0.1)
            _clean(str(joined.value))
            assert "fake" in str(joined.value)
            with pytest.raises(RelayProtocolError) as asked:
                await fetch_lobby_answer(("127.0.0.1", port))
            _clean(str(asked.value))


def test_an_mdns_announcements_name_and_keys_are_made_printable() -> None:
    info = SimpleNamespace(
        properties={
            b"v": b"1",
            b"fp": b"ab" * 32,
            b"name": EVIL.encode(),
            b"tar\x1b[2Jget": b"12",
            b"target": b"12\x1b[2J",
        },
        port=4455,
        parsed_addresses=lambda: ["192.168.1.20"],
    )
    found = _decode(info)
    assert found is not None
    _clean(found.name)
    assert "fake" in found.name
    assert all(k.isprintable() and v.isprintable() for k, v in found.settings.items())


def test_the_peers_quoted_stderr_is_made_printable(tmp_path: Path) -> None:
    (tmp_path / "peer").mkdir()
    last = "error: \x1b[2J\x1b]0;pwned\x07\x1b[31mbad\x1b[0m move\u202e\x9b1A\x00"
    (tmp_path / "peer.stderr").write_bytes(f"first line\n{last}\n".encode())
    said = _last_words(tmp_path / "peer")
    _clean(said)
    assert said == '; its stderr ends: "error: bad move"'


def test_a_notices_facts_are_made_printable() -> None:
    notice = Notice("relay-unlisted", reason=EVIL)
    _clean(notice)
    assert all(not isinstance(v, str) or v.isprintable() for v in notice.facts.values())
