"""Invites: ``truc://HOST:PORT/?fp=FINGERPRINT[&relay=RHOST:RPORT&code=CODE]``.

An invite tells a friend where the host listens and which key the host will
present.  ``HOST`` is a DNS name, a dotted IPv4 address or an IPv6 address in
square brackets; ``PORT`` is the TCP port (always written); ``fp`` is the
host's key fingerprint, 64 lowercase hex digits
(:func:`truc_p2p.protocol.fingerprint`).  A host registered with a relay
adds ``relay`` (the relay's ``HOST:PORT``, IPv6 in brackets) and ``code``
(its one-time code, 4 to 32 lowercase letters and digits); both or neither.
Unknown query parameters are ignored so later versions may add some, and
an older reader simply ignores ``relay`` and ``code``.  Examples::

    truc://192.168.1.20:4455/?fp=3f0c…
    truc://[2001:db8::7]:4455/?fp=3f0c…
    truc://192.168.1.20:4455/?fp=3f0c…&relay=relay.example.org:4456&code=k3j…
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
_CODE_RE = re.compile(r"[a-z0-9]{4,32}")
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
    #: The relay's (host, port) where the host is registered, if any.
    relay: tuple[str, int] | None = None
    #: The host's one-time code at that relay.
    code: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "host", _check_host(self.host))
        if type(self.port) is not int or not 1 <= self.port <= 65535:
            raise InviteError(f"port must be in 1..65535, not {self.port!r}")
        if not isinstance(self.fingerprint, str) or not _FP_RE.fullmatch(self.fingerprint):
            raise InviteError("fingerprint must be 64 lowercase hex digits")
        if (self.relay is None) != (self.code is None):
            raise InviteError("an invite carries both relay= and code=, or neither")
        if self.relay is not None:
            rhost, rport = self.relay
            if type(rport) is not int or not 1 <= rport <= 65535:
                raise InviteError(f"relay port must be in 1..65535, not {rport!r}")
            object.__setattr__(self, "relay", (_check_host(rhost), rport))
        if self.code is not None and not _CODE_RE.fullmatch(self.code):
            raise InviteError("code must be 4 to 32 lowercase letters and digits")

    @property
    def is_ipv6(self) -> bool:
        return ":" in self.host

    def __str__(self) -> str:
        text = f"{SCHEME}://{_bracket(self.host)}:{self.port}/?fp={self.fingerprint}"
        if self.relay is not None:
            text += f"&relay={_bracket(self.relay[0])}:{self.relay[1]}&code={self.code}"
        return text

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
        query = [(k.lower(), v) for k, v in parse_qsl(parts.query)]
        fps = [v for k, v in query if k == "fp"]
        if len(fps) != 1:
            raise InviteError("the invite must carry exactly one fp=FINGERPRINT")
        relays = [v for k, v in query if k == "relay"]
        codes = [v for k, v in query if k == "code"]
        if len(relays) > 1 or len(codes) > 1:
            raise InviteError("the invite carries more than one relay= or code=")
        relay = _parse_relay(relays[0]) if relays else None
        code = codes[0].lower() if codes else None
        return cls(host, port, fps[0].lower(), relay=relay, code=code)


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def parse_host_port(text: str, *, what: str = "address") -> tuple[str, int]:
    """``HOST:PORT`` or ``[V6]:PORT`` as (host, port); :class:`InviteError` otherwise."""
    match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\]:(\d{1,5})|([^:\[\]]+):(\d{1,5})", text.strip())
    if match is None:
        raise InviteError(f"{what} must be HOST:PORT (IPv6 in brackets), not {text!r}")
    host = match.group(1) or match.group(3)
    port = int(match.group(2) or match.group(4))
    if not 1 <= port <= 65535:
        raise InviteError(f"{what} port must be in 1..65535, not {port}")
    return _check_host(host), port


def _parse_relay(text: str) -> tuple[str, int]:
    return parse_host_port(text, what="relay")
