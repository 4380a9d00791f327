"""Invites: ``truc://HOST:PORT/?fp=FINGERPRINT[&relay=RHOST:RPORT&code=CODE][&SETTINGS]``.

An invite tells a friend where the host listens and which key the host will
present.  ``HOST`` is a DNS name, a dotted IPv4 address or an IPv6 address in
square brackets; ``PORT`` is the TCP port (always written); ``fp`` is the
host's key fingerprint, 64 lowercase hex digits
(:func:`truc_p2p.protocol.fingerprint`).  A host registered with a relay
adds ``relay`` (the relay's ``HOST:PORT``, IPv6 in brackets) and ``code``
(its one-time code, 4 to 32 lowercase letters and digits); both or neither.
The host's game settings — what a joiner must agree to, else the hellos
do not match (wire.md 4) — follow as ``target``, ``ladder``, ``rest``,
``audit``, ``deck`` and ``pipeline`` (:class:`HostSettings`, connect.md
1.1), then ``match``, the games of the host's match (wire.md 4.1; only for
a match of 2 games or more: absent, a single game); the same keys and
values are the mDNS TXT record's and a lobby listing's
(:func:`settings_fields`).  Each is optional: an invite without
them (an older host's) still works, and the joiner then learns a mismatch
only from the host's hello.  Unknown query parameters are ignored so later
versions may add some, and an older reader simply ignores ``relay``,
``code`` and the settings.  Examples::

    truc://192.168.1.20:4455/?fp=3f0c…
    truc://[2001:db8::7]:4455/?fp=3f0c…
    truc://192.168.1.20:4455/?fp=3f0c…&relay=relay.example.org:4456&code=k3j…
    truc://192.168.1.20:4455/?fp=3f0c…&target=24&ladder=literal&rest=game&audit=game&deck=v2&pipeline=1
    truc://192.168.1.20:4455/?fp=3f0c…&target=12&ladder=literal&rest=game&audit=game&deck=v2&pipeline=1&match=3
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from truc_p2p.protocol import AUDIT_MODES, DECK_VERSIONS, SessionOptions
from truc_p2p.rules import MAX_TARGET, Ladder, RestRefused, Ruleset

__all__ = [
    "DEFAULT_PORT",
    "SETTING_KEYS",
    "HostSettings",
    "Invite",
    "InviteError",
    "host_port",
    "settings_fields",
]

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


#: The settings keys of an invite, an mDNS TXT record and a lobby listing, in order.
SETTING_KEYS = ("target", "ladder", "rest", "audit", "deck", "pipeline", "match")
#: The most games a match may have (wire.md 4.1).
MAX_MATCH = 99
_AUDITS = AUDIT_MODES
_DECKS = DECK_VERSIONS


@dataclass(frozen=True)
class HostSettings:
    """What a joiner must agree to (connect.md 1.1): the host's ruleset, audit
    mode, deck version, whether the deal is pipelined, and the games of its
    match (wire.md 4.1; 1: a single game).  ``None``: not said (an older invite
    or record, or a host's single game), so nothing can be checked before the
    hello."""

    target: int | None = None
    ladder: str | None = None
    rest: str | None = None
    audit: str | None = None
    deck: str | None = None
    pipeline: bool | None = None
    match: int | None = None

    def __post_init__(self) -> None:
        if self.target is not None and (
            type(self.target) is not int or not 1 <= self.target <= MAX_TARGET
        ):
            raise InviteError(f"target must be in 1..{MAX_TARGET}, not {self.target!r}")
        if self.ladder is not None and self.ladder not in {x.value for x in Ladder}:
            raise InviteError(f"not a ladder: {self.ladder!r}")
        if self.rest is not None and self.rest not in {x.value for x in RestRefused}:
            raise InviteError(f"not a rest rule: {self.rest!r}")
        if self.audit is not None and self.audit not in _AUDITS:
            raise InviteError(f"audit must be game or hand, not {self.audit!r}")
        if self.deck is not None and self.deck not in _DECKS:
            raise InviteError(f"deck must be v1 or v2, not {self.deck!r}")
        if self.pipeline and self.deck == "v1":
            raise InviteError("the pipelined deal needs deck v2")
        if self.match is not None and (
            type(self.match) is not int or not 1 <= self.match <= MAX_MATCH
        ):
            raise InviteError(f"match must be in 1..{MAX_MATCH} games, not {self.match!r}")

    @classmethod
    def of_game(
        cls,
        ruleset: Ruleset | None,
        *,
        audit: str,
        deck: str,
        pipeline: bool | None,
        match: int = 1,
    ) -> HostSettings:
        """The settings of a game the way the host plays it (``pipeline`` ``None``:
        the session's default, on with deck v2).  A single game (``match`` 1) says
        no ``match``, so its invite is an older host's, byte for byte."""
        rules = ruleset or Ruleset()
        return cls(
            target=rules.target,
            ladder=rules.ladder.value,
            rest=rules.rest_refused.value,
            audit=audit,
            deck=deck,
            pipeline=(deck == "v2") if pipeline is None else (pipeline and deck == "v2"),
            match=match if match > 1 else None,
        )

    @property
    def empty(self) -> bool:
        return not self.fields()

    def fields(self) -> dict[str, str]:
        """The settings said, as text fields in :data:`SETTING_KEYS` order."""
        out: dict[str, str] = {}
        for key in SETTING_KEYS:
            value = getattr(self, key)
            if value is None:
                continue
            out[key] = ("1" if value else "0") if key == "pipeline" else str(value)
        return out

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> HostSettings:
        """Read the settings keys of ``fields`` (others are ignored); a bad value
        raises :class:`InviteError`."""
        values: dict[str, object] = {}
        for key in SETTING_KEYS:
            text = fields.get(key)
            if text is None:
                continue
            if key in ("target", "match"):
                if not re.fullmatch(r"[0-9]{1,4}", text):
                    raise InviteError(f"{key} must be a number, not {text!r}")
                values[key] = int(text)
            elif key == "pipeline":
                if text not in ("0", "1"):
                    raise InviteError(f"pipeline must be 0 or 1, not {text!r}")
                values[key] = text == "1"
            else:
                values[key] = text.lower()
        return cls(**values)  # type: ignore[arg-type]

    def conflicts(self, mine: HostSettings) -> list[str]:
        """The keys (:data:`SETTING_KEYS` order) that both name with other values:
        ``mine`` is what a joiner insists on, ``self`` what the host said."""
        theirs, ours = self.fields(), mine.fields()
        return [k for k in SETTING_KEYS if k in theirs and k in ours and theirs[k] != ours[k]]

    def describe(self) -> str:
        """The settings in words, e.g. ``to 24, ladder literal, a refused rest
        loses the game, audit game, deck v2 pipelined``."""
        parts = []
        if self.target is not None:
            parts.append(f"to {self.target}")
        if self.ladder is not None:
            parts.append(f"ladder {self.ladder}")
        if self.rest is not None:
            parts.append(f"refused rest: {self.rest}")
        if self.audit is not None:
            parts.append(f"audit {self.audit}")
        if self.deck is not None:
            deal = "" if self.pipeline is None else " pipelined" if self.pipeline else " classic"
            parts.append(f"deck {self.deck}{deal}")
        elif self.pipeline is not None:
            parts.append("pipelined deal" if self.pipeline else "classic deal")
        if self.match is not None:
            parts.append("a single game" if self.match == 1 else f"a match of {self.match} games")
        return ", ".join(parts)


def settings_fields(options: SessionOptions) -> dict[str, str]:
    """A host's game settings (its session's ``options``) as the text fields of its
    invite, its mDNS TXT record and a lobby listing (connect.md 1.1): keys
    :data:`SETTING_KEYS`, in that order (``match`` only for a match of 2 games or more)."""
    return HostSettings.of_game(
        options.ruleset,
        audit=options.audit,
        deck=options.deck,
        pipeline=options.pipeline,
        match=options.series.match,
    ).fields()


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
    #: What a joiner must agree to, as far as the invite says (connect.md 1.1).
    settings: HostSettings = HostSettings()

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

    @property
    def address(self) -> str:
        """The host's address as a person types it back (IPv6 in brackets)."""
        return host_port(self.host, self.port)

    def __str__(self) -> str:
        text = f"{SCHEME}://{_bracket(self.host)}:{self.port}/?fp={self.fingerprint}"
        if self.relay is not None:
            text += f"&relay={_bracket(self.relay[0])}:{self.relay[1]}&code={self.code}"
        for key, value in self.settings.fields().items():
            text += f"&{key}={value}"
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
        said: dict[str, str] = {}
        for k, v in query:
            if k in SETTING_KEYS:
                if k in said:
                    raise InviteError(f"the invite carries more than one {k}=")
                said[k] = v
        settings = HostSettings.from_fields(said)
        return cls(host, port, fps[0].lower(), relay=relay, code=code, settings=settings)


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def host_port(host: str, port: int) -> str:
    """``HOST:PORT`` as a person types it back: an IPv6 address in brackets
    (``[fe80::1]:7777``, never the ambiguous ``fe80::1:7777``)."""
    return f"{_bracket(host)}:{port}"


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
