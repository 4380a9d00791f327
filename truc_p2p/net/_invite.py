"""Invites: ``truc://HOST:PORT/?fp=FINGERPRINT``.

An invite tells a friend where the host listens and which key the host will
present.  ``HOST`` is a DNS name, a dotted IPv4 address or an IPv6 address in
square brackets; ``PORT`` is the TCP port (always written); ``fp`` is the
host's key fingerprint, 64 lowercase hex digits
(:func:`truc_p2p.protocol.fingerprint`).  Unknown query parameters are
ignored so later versions may add some.  Examples::

    truc://192.168.1.20:4455/?fp=3f0c…
    truc://[2001:db8::7]:4455/?fp=3f0c…
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

__all__ = ["DEFAULT_PORT", "Invite", "InviteError"]

#: The port ``truc-p2p host`` listens on unless told otherwise.
DEFAULT_PORT = 4455
SCHEME = "truc"
_FP_RE = re.compile(r"[0-9a-f]{64}")
_NAME_RE = re.compile(
    r"[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.?"
)


class InviteError(ValueError):
    """Text that is not a valid ``truc://`` invite."""


def _check_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if len(host) > 253 or not _NAME_RE.fullmatch(host):
        raise InviteError(f"not a host name or IP address: {host!r}")
    return host.lower()


@dataclass(frozen=True)
class Invite:
    """Where to reach a host, and the fingerprint its key must have."""

    host: str
    port: int
    fingerprint: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "host", _check_host(self.host))
        if type(self.port) is not int or not 1 <= self.port <= 65535:
            raise InviteError(f"port must be in 1..65535, not {self.port!r}")
        if not isinstance(self.fingerprint, str) or not _FP_RE.fullmatch(self.fingerprint):
            raise InviteError("fingerprint must be 64 lowercase hex digits")

    @property
    def is_ipv6(self) -> bool:
        return ":" in self.host

    def __str__(self) -> str:
        host = f"[{self.host}]" if self.is_ipv6 else self.host
        return f"{SCHEME}://{host}:{self.port}/?fp={self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Parse an invite; raises :class:`InviteError` with a readable reason."""
        text = text.strip()
        if not text.lower().startswith(SCHEME + "://"):
            raise InviteError(f"an invite starts with {SCHEME}://")
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise InviteError(f"malformed invite: {exc}") from None
        host = parts.hostname
        if not host:
            raise InviteError("the invite names no host")
        if port is None:
            raise InviteError("the invite names no port")
        if "[" not in parts.netloc and ":" in host:
            raise InviteError("an IPv6 address must be written in brackets")
        if parts.username is not None or parts.password is not None:
            raise InviteError("an invite carries no user name or password")
        fps = [v for k, v in parse_qsl(parts.query) if k.lower() == "fp"]
        if len(fps) != 1:
            raise InviteError("the invite must carry exactly one fp=FINGERPRINT")
        return cls(host, port, fps[0].lower())
