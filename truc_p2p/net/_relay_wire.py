"""Bytes of the relay protocol and of the path probe (``protocol_spec/connect.md``).

A relay connection opens with the 8-byte magic ``TRUCRLY1`` from the
client; after it both directions carry **control messages**: one type byte,
a 2-byte big-endian body length (at most :data:`MAX_BODY`) and the body.
Reads never take a byte past the message they want (``receive_some`` is
asked for exactly the bytes still missing), so once a relay splices two
connections, or a probe is answered, the stream can be handed on with
nothing buffered on our side.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pure codec runs in the page too (no trio there)
    import trio

    from truc_p2p.crypto import SigningKey

from truc_p2p._text import printable

__all__ = [
    "CLAIM_LEN",
    "MAGIC",
    "MAX_BODY",
    "MAX_LISTING",
    "PROBE_MAGIC",
    "REPLACED",
    "Addr",
    "Msg",
    "RelayProtocolError",
    "code_for_claim",
    "decode_addr",
    "decode_addrs",
    "encode",
    "encode_addr",
    "encode_addrs",
    "read_exactly",
    "read_message",
    "relay_claim",
    "relay_text",
]

MAGIC = b"TRUCRLY1"
PROBE_MAGIC = b"TRUCPRB1"
MAX_BODY = 512
MAX_ADDRS = 8
#: Bytes of a lobby listing (``LIST`` body) at most, signature included.
MAX_LISTING = 400
SESSION_LEN = 16
#: Bytes of the claim a host may append to ``REGISTER`` (its code is derived from it).
CLAIM_LEN = 16
#: The ``ERROR`` reason sent on a control connection whose code a newer ``REGISTER``
#: with the same claim took over; a host that reads it does not register again.
REPLACED = "replaced by a newer registration of this code"


class Msg:
    """Control message types (client to relay below 0x80, relay to client above)."""

    REGISTER = 0x01
    JOIN = 0x02
    ATTACH = 0x03
    SPLICE = 0x04
    PING = 0x05
    #: host → relay on its control connection: list (body: a signed listing) or unlist (empty)
    LIST = 0x06
    #: first message of a lobby connection: ask for the open games
    LOBBY = 0x07
    REGISTERED = 0x81
    MEET = 0x82
    SPLICED = 0x84
    PONG = 0x85
    #: relay → host after LIST: empty when listed (or unlisted), else why not
    LISTED = 0x86
    #: relay → lobby client: one open game (code, seconds waiting, listing)
    GAME = 0x87
    #: relay → lobby client: no more games (body: 2-byte count of games listed in all)
    END = 0x88
    ERROR = 0xEE


class RelayProtocolError(Exception):
    """The other end sent something the relay protocol does not allow."""


#: An IP address (text form) and a port.
Addr = tuple[str, int]


async def read_exactly(stream: trio.abc.ReceiveStream, n: int) -> bytes:
    """Exactly ``n`` bytes; :class:`RelayProtocolError` on EOF first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = await stream.receive_some(n - len(buf))
        if not chunk:
            raise RelayProtocolError("the connection closed")
        buf += chunk
    return bytes(buf)


def encode(kind: int, body: bytes = b"") -> bytes:
    if len(body) > MAX_BODY:
        raise ValueError("control message body too long")
    return struct.pack("!BH", kind, len(body)) + body


async def read_message(stream: trio.abc.ReceiveStream) -> tuple[int, bytes]:
    kind, size = struct.unpack("!BH", await read_exactly(stream, 3))
    if size > MAX_BODY:
        raise RelayProtocolError(f"control message of {size} bytes")
    return kind, await read_exactly(stream, size)


def relay_text(body: bytes) -> str:
    """A text the relay sent (an ``ERROR``'s or ``LISTED``'s reason, a code) as it
    may be shown: decoded, then :func:`~truc_p2p._text.printable` (a relay is
    untrusted, and its words reach the terminal)."""
    return printable(body.decode("utf-8", "replace"), 200)


def encode_addr(addr: Addr) -> bytes:
    ip = ipaddress.ip_address(addr[0].split("%")[0])
    return bytes([ip.version]) + ip.packed + struct.pack("!H", addr[1])


def decode_addr(data: bytes, at: int = 0) -> tuple[Addr, int]:
    """One address from ``data[at:]``; returns it and the offset after it."""
    if at >= len(data) or data[at] not in (4, 6):
        raise RelayProtocolError("bad address family")
    size = 4 if data[at] == 4 else 16
    end = at + 1 + size + 2
    if end > len(data):
        raise RelayProtocolError("truncated address")
    ip = ipaddress.ip_address(data[at + 1 : at + 1 + size])
    (port,) = struct.unpack("!H", data[end - 2 : end])
    return (str(ip), port), end


def encode_addrs(addrs: list[Addr]) -> bytes:
    addrs = addrs[:MAX_ADDRS]
    return bytes([len(addrs)]) + b"".join(encode_addr(a) for a in addrs)


def decode_addrs(data: bytes, at: int = 0) -> tuple[list[Addr], int]:
    if at >= len(data) or data[at] > MAX_ADDRS:
        raise RelayProtocolError("bad address list")
    count, at = data[at], at + 1
    out = []
    for _ in range(count):
        addr, at = decode_addr(data, at)
        out.append(addr)
    return out, at


def code_for_claim(claim: bytes) -> str:
    """The code a relay gives a ``REGISTER`` carrying ``claim``: the first 80 bits of
    ``SHA-256("truc-p2p relay code v1" || claim)`` as 16 lowercase base32 characters.

    Whoever knows the claim can register that code again (after the relay restarted
    or the control connection dropped); the invite shows only the code.
    """
    if len(claim) != CLAIM_LEN:
        raise ValueError(f"a claim is {CLAIM_LEN} bytes")
    digest = hashlib.sha256(b"truc-p2p relay code v1" + claim).digest()
    return base64.b32encode(digest[:10]).decode().lower()


@dataclass(frozen=True)
class Meet:
    """A ``MEET``: the session id, this side's and the other side's observed
    addresses, and the other side's own (LAN) addresses."""

    session: bytes
    you: Addr
    peer: Addr
    peer_lan: list[Addr]

    def encode(self) -> bytes:
        return encode(
            Msg.MEET,
            self.session
            + encode_addr(self.you)
            + encode_addr(self.peer)
            + encode_addrs(self.peer_lan),
        )

    @classmethod
    def decode(cls, body: bytes) -> Meet:
        if len(body) < SESSION_LEN:
            raise RelayProtocolError("short MEET")
        you, at = decode_addr(body, SESSION_LEN)
        peer, at = decode_addr(body, at)
        lan, at = decode_addrs(body, at)
        if at != len(body):
            raise RelayProtocolError("trailing bytes in MEET")
        return cls(body[:SESSION_LEN], you, peer, lan)


def relay_claim(identity: SigningKey, nonce: bytes) -> bytes:
    """The claim a host registers with a relay (``connect.md`` §2.1): derived from its
    key and a random ``nonce`` (stored in the game's meta, which holds no secrets),
    so ``truc-p2p resume`` registers the same code again and nobody else can."""
    signature = identity.sign(b"truc-p2p relay claim v1" + nonce)  # Ed25519: deterministic
    return hashlib.sha256(signature).digest()[:CLAIM_LEN]
