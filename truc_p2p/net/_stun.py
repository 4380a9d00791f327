"""STUN messages (RFC 8489) as TURN over TCP uses them (RFC 8656, RFC 6062): pure bytes.

Theory of operation.  A STUN message is a 20-byte header (type, body length,
the magic cookie ``0x2112A442``, a 12-byte transaction id) and TLV attributes
padded to 4 bytes.  On TCP messages follow each other with no framing of their
own, so :func:`message_length` tells from the header how many bytes one takes;
the trio client (:mod:`._turn`) reads exactly that many, never a byte past it, so
a data connection can carry raw bytes right after its ConnectionBind answer.

The long-term credential (RFC 8489 §9.2) keys MESSAGE-INTEGRITY (HMAC-SHA1 over
the message up to that attribute, the header's length counting it) with
``MD5(username ":" realm ":" password)``; names and passwords are taken as UTF-8
without SASLprep/OpaqueString (ASCII credentials, as coturn's ``user=`` lines,
are the same either way).  Nothing here does I/O, keeps time or draws randomness:
the caller passes the transaction id in.  Anything malformed from the server is a
:class:`StunError`.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import struct
from dataclasses import dataclass, field

__all__ = [
    "ALLOCATE",
    "CONNECT",
    "CONNECTION_ATTEMPT",
    "CONNECTION_BIND",
    "CREATE_PERMISSION",
    "ERROR",
    "HEADER",
    "INDICATION",
    "MAGIC_COOKIE",
    "REFRESH",
    "REQUEST",
    "SUCCESS",
    "Attr",
    "Message",
    "StunError",
    "long_term_key",
    "message_length",
    "xor_address",
]

HEADER = 20
MAGIC_COOKIE = 0x2112A442
#: The longest message read from a server (coturn's answers are a few hundred bytes).
MAX_MESSAGE = 2048

# methods (RFC 8656 §18, RFC 6062 §6.1)
ALLOCATE = 0x003
REFRESH = 0x004
CREATE_PERMISSION = 0x008
CONNECT = 0x00A
CONNECTION_BIND = 0x00B
CONNECTION_ATTEMPT = 0x00C
# classes
REQUEST, INDICATION, SUCCESS, ERROR = 0, 1, 2, 3

#: The protocol number of TCP in REQUESTED-TRANSPORT (RFC 6062 §5.1).
TCP = 6


class Attr:
    """Attribute types used here (RFC 8489 §18.3, RFC 8656 §18, RFC 6062 §6.2)."""

    MAPPED_ADDRESS = 0x0001
    USERNAME = 0x0006
    MESSAGE_INTEGRITY = 0x0008
    ERROR_CODE = 0x0009
    LIFETIME = 0x000D
    XOR_PEER_ADDRESS = 0x0012
    REALM = 0x0014
    NONCE = 0x0015
    XOR_RELAYED_ADDRESS = 0x0016
    REQUESTED_TRANSPORT = 0x0019
    XOR_MAPPED_ADDRESS = 0x0020
    CONNECTION_ID = 0x002A
    SOFTWARE = 0x8022
    FINGERPRINT = 0x8028


class StunError(Exception):
    """Bytes that are not a STUN message this client can read (the server's fault)."""


def _type(method: int, cls: int) -> int:
    return (
        (method & 0x000F)
        | ((method & 0x0070) << 1)
        | ((method & 0x0F80) << 2)
        | ((cls & 1) << 4)
        | ((cls & 2) << 7)
    )


def _split_type(value: int) -> tuple[int, int]:
    method = (value & 0x000F) | ((value & 0x00E0) >> 1) | ((value & 0x3E00) >> 2)
    cls = ((value >> 4) & 1) | ((value >> 7) & 2)
    return method, cls


def long_term_key(username: str, realm: str, password: str) -> bytes:
    """The long-term credential's HMAC key, ``MD5(username ":" realm ":" password)``,
    of a user name and password already through SASLprep (:func:`~._saslprep.saslprep`)."""
    return hashlib.md5(f"{username}:{realm}:{password}".encode()).digest()


def xor_address(ip: str, port: int, txid: bytes) -> bytes:
    """The value of an XOR-*-ADDRESS attribute for ``ip``:``port``."""
    addr = ipaddress.ip_address(ip)
    cookie = struct.pack("!I", MAGIC_COOKIE)
    mask = cookie if addr.version == 4 else cookie + txid
    packed = bytes(a ^ b for a, b in zip(addr.packed, mask, strict=True))
    family = 1 if addr.version == 4 else 2
    return struct.pack("!BBH", 0, family, port ^ (MAGIC_COOKIE >> 16)) + packed


def _read_xor_address(value: bytes, txid: bytes) -> tuple[str, int]:
    if len(value) < 4 or value[1] not in (1, 2):
        raise StunError("bad address attribute")
    size = 4 if value[1] == 1 else 16
    if len(value) != 4 + size:
        raise StunError("bad address attribute length")
    (xport,) = struct.unpack("!H", value[2:4])
    cookie = struct.pack("!I", MAGIC_COOKIE)
    mask = cookie if size == 4 else cookie + txid
    raw = bytes(a ^ b for a, b in zip(value[4:], mask, strict=True))
    return str(ipaddress.ip_address(raw)), xport ^ (MAGIC_COOKIE >> 16)


def message_length(header: bytes) -> int:
    """Bytes of the whole message that starts with this 20-byte ``header``."""
    if len(header) < HEADER:
        raise StunError("short STUN header")
    kind, length, cookie = (int(x) for x in struct.unpack("!HHI", header[:8]))
    if kind & 0xC000 or cookie != MAGIC_COOKIE or length % 4:
        raise StunError("not a STUN message")
    if HEADER + length > MAX_MESSAGE:
        raise StunError(f"STUN message of {HEADER + length} bytes")
    return HEADER + length


def _attribute(kind: int, value: bytes) -> bytes:
    pad = (-len(value)) % 4
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * pad


@dataclass(frozen=True)
class Message:
    """One STUN message: ``method``, ``cls``, 12-byte ``txid`` and its attributes in
    order (type, value) — MESSAGE-INTEGRITY and FINGERPRINT included when decoded."""

    method: int
    cls: int
    txid: bytes
    attrs: tuple[tuple[int, bytes], ...] = field(default=())

    def encode(self, key: bytes | None = None) -> bytes:
        """The bytes; with ``key``, MESSAGE-INTEGRITY is appended (long-term key)."""
        if len(self.txid) != 12:
            raise ValueError("a transaction id is 12 bytes")
        body = b"".join(_attribute(k, v) for k, v in self.attrs)
        header = struct.pack("!HHI", _type(self.method, self.cls), len(body), MAGIC_COOKIE)
        if key is None:
            return header + self.txid + body
        header = struct.pack("!HHI", _type(self.method, self.cls), len(body) + 24, MAGIC_COOKIE)
        mac = hmac.new(key, header + self.txid + body, hashlib.sha1).digest()
        return header + self.txid + body + _attribute(Attr.MESSAGE_INTEGRITY, mac)

    @classmethod
    def decode(cls, data: bytes) -> Message:
        """Read one whole message (:func:`message_length` bytes); :class:`StunError`."""
        if len(data) != message_length(data[:HEADER]):
            raise StunError("STUN message length mismatch")
        kind = struct.unpack("!H", data[:2])[0]
        method, klass = _split_type(kind)
        attrs = []
        at = HEADER
        while at < len(data):
            if at + 4 > len(data):
                raise StunError("truncated STUN attribute")
            akind, alen = struct.unpack("!HH", data[at : at + 4])
            end = at + 4 + alen
            if end > len(data):
                raise StunError("truncated STUN attribute")
            attrs.append((akind, data[at + 4 : end]))
            at = end + (-alen) % 4
        if at != len(data):
            raise StunError("bad STUN attribute padding")
        return cls(method, klass, data[8:HEADER], tuple(attrs))

    def get(self, kind: int) -> bytes | None:
        """The first value of attribute ``kind`` (``None``: absent)."""
        for k, v in self.attrs:
            if k == kind:
                return v
        return None

    def text(self, kind: int) -> str | None:
        value = self.get(kind)
        return None if value is None else value.decode("utf-8", "replace")

    def address(self, kind: int) -> tuple[str, int] | None:
        """An XOR-*-ADDRESS attribute, decoded (``None``: absent)."""
        value = self.get(kind)
        return None if value is None else _read_xor_address(value, self.txid)

    def uint32(self, kind: int) -> int | None:
        value = self.get(kind)
        if value is None:
            return None
        if len(value) != 4:
            raise StunError("bad 32-bit attribute")
        return int(struct.unpack("!I", value)[0])

    def error(self) -> tuple[int, str]:
        """An error response's code and reason (RFC 8489 §14.8)."""
        value = self.get(Attr.ERROR_CODE)
        if value is None or len(value) < 4:
            raise StunError("error response without ERROR-CODE")
        code = (value[2] & 0x7) * 100 + value[3]
        return code, value[4:].decode("utf-8", "replace")

    def check_integrity(self, raw: bytes, key: bytes) -> bool:
        """Does MESSAGE-INTEGRITY in ``raw`` (this message's bytes) match ``key``?"""
        at = HEADER
        while at < len(raw):
            akind, alen = struct.unpack("!HH", raw[at : at + 4])
            if akind == Attr.MESSAGE_INTEGRITY:
                if alen != 20:
                    return False
                header = raw[:2] + struct.pack("!H", at - HEADER + 24) + raw[4:HEADER]
                mac = hmac.new(key, header + raw[HEADER:at], hashlib.sha1).digest()
                return hmac.compare_digest(mac, raw[at + 4 : at + 24])
            at += 4 + alen + (-alen) % 4
        return False


def error_code(code: int, reason: str) -> bytes:
    """An ERROR-CODE value (for tests and vectors)."""
    return struct.pack("!HBB", 0, code // 100, code % 100) + reason.encode()
