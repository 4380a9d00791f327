"""LAN discovery with mDNS/DNS-SD (``_truc._tcp.local.``) through ``zeroconf``.

``zeroconf`` runs its own asyncio loop in a thread of its own; its blocking
API is called here from worker threads (:func:`trio.to_thread.run_sync`), so
the trio side never blocks.  A host's service carries its game port and
addresses, and TXT keys ``v`` (1), ``fp`` (the key fingerprint), ``name``,
and the host's settings as in its invite: ``target``, ``ladder``, ``rest``,
``audit``, ``deck`` and ``pipeline`` (connect.md 1.1, 7).  The fingerprint is only a
hint to choose by: the joiner still pins the one it picked, so a spoofed
announcement can waste a click, not steal a game.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio

from truc_p2p._text import printable
from truc_p2p.net._invite import SETTING_KEYS, HostSettings, Invite, InviteError

__all__ = ["SERVICE_TYPE", "FoundGame", "advertise_game", "find_games"]

SERVICE_TYPE = "_truc._tcp.local."
#: TXT keys of the host's settings: those of the invite (connect.md 1.1, 7).
_SETTINGS = SETTING_KEYS


@dataclass(frozen=True)
class FoundGame:
    """A game announced on the LAN."""

    name: str
    fingerprint: str
    addresses: tuple[str, ...]
    port: int
    settings: dict[str, str] = field(default_factory=dict, hash=False)

    @property
    def invite(self) -> Invite:
        """An invite to the first announced address (IPv4 first), with the settings
        the record carries (a bad value is left out, never trusted)."""
        try:
            settings = HostSettings.from_fields(self.settings)
        except InviteError:
            settings = HostSettings()
        return Invite(self.addresses[0], self.port, self.fingerprint, settings=settings)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fingerprint": self.fingerprint,
            "addresses": list(self.addresses),
            "port": self.port,
            "settings": dict(self.settings),
            "invite": str(self.invite),
        }


def _properties(name: str, fingerprint: str, settings: dict[str, str]) -> dict[str, str]:
    props = {"v": "1", "fp": fingerprint, "name": name[:40]}
    props.update({k: str(v)[:40] for k, v in settings.items() if k in _SETTINGS})
    return props


def _decode(info: Any) -> FoundGame | None:
    """A :class:`FoundGame` from a resolved ``zeroconf.ServiceInfo``, or ``None``.
    Anyone on the LAN may announce, so every key and value is made
    :func:`~truc_p2p._text.printable` here, before ``hosts`` or ``join`` shows it."""
    props = {
        printable(k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)): (
            printable(v.decode("utf-8", "replace"), 64) if isinstance(v, bytes) else ""
        )
        for k, v in (info.properties or {}).items()
    }
    addresses = sorted(info.parsed_addresses(), key=lambda a: (":" in a, a))
    if props.get("v") != "1" or not addresses or not info.port:
        return None
    try:
        found = FoundGame(
            name=props.get("name", "")[:40] or "?",
            fingerprint=props.get("fp", ""),
            addresses=tuple(addresses),
            port=int(info.port),
            settings={k: props[k] for k in _SETTINGS if k in props},
        )
        _ = found.invite  # validates the address, port and fingerprint
    except (InviteError, ValueError):
        return None
    return found


@asynccontextmanager
async def advertise_game(
    *,
    name: str,
    port: int,
    fingerprint: str,
    addresses: list[str],
    settings: dict[str, str] | None = None,
) -> AsyncIterator[None]:
    """Announce a game on the LAN while the block runs (best effort: a LAN without
    multicast simply hears nothing).  The announcement is withdrawn on exit."""
    from zeroconf import ServiceInfo, Zeroconf

    packed = [ipaddress.ip_address(a).packed for a in addresses]
    instance = f"{name[:30]} {fingerprint[:8]}"
    info = ServiceInfo(
        SERVICE_TYPE,
        f"{instance}.{SERVICE_TYPE}",
        addresses=packed,
        port=port,
        properties=_properties(name, fingerprint, settings or {}),
        server=f"truc-{fingerprint[:12]}.local.",
    )
    zc: Any = None
    try:
        zc = await trio.to_thread.run_sync(Zeroconf)
    except OSError:
        zc = None  # no multicast-capable interface
    async with trio.open_nursery() as nursery:
        if zc is not None:
            nursery.start_soon(_quietly, lambda: zc.register_service(info, allow_name_change=True))
        try:
            yield
        finally:
            nursery.cancel_scope.cancel()
            if zc is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(3):
                    await _quietly(lambda: (zc.unregister_service(info), zc.close()))


async def _quietly(fn: Any) -> None:
    try:
        await trio.to_thread.run_sync(fn, abandon_on_cancel=True)
    except Exception:  # zeroconf errors (a name clash, a closed socket) are not fatal
        return


def _browse(wait: float) -> list[FoundGame]:
    from zeroconf import ServiceBrowser, ServiceListener, Zeroconf

    zc = Zeroconf()
    names: set[str] = set()

    class Listener(ServiceListener):
        def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            names.add(name)

        def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            names.add(name)

        def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            names.discard(name)

    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, Listener())
        time.sleep(wait)
        browser.cancel()
        found: list[FoundGame] = []
        for service in sorted(names):
            info = zc.get_service_info(SERVICE_TYPE, service, timeout=1500)
            game = _decode(info) if info is not None else None
            if game is not None and game not in found:
                found.append(game)
        return found
    finally:
        zc.close()


async def find_games(wait: float = 2.0) -> list[FoundGame]:
    """Games announced on the LAN, after listening ``wait`` seconds."""
    try:
        return await trio.to_thread.run_sync(_browse, wait, abandon_on_cancel=True)
    except OSError:
        return []
