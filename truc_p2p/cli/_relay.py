"""``truc-p2p relay``: run the rendezvous and relay server for players behind NAT."""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.cli._run import run_until_interrupted
from truc_p2p.i18n import _, decimal
from truc_p2p.net import DEFAULT_RELAY_PORT, RelayLimits, RelayServer, SessionReport, host_port
from truc_p2p.ui import notice_text

__all__ = ["register"]


def register(subparsers: Any) -> None:
    relay = subparsers.add_parser(
        "relay",
        help=_(COMMAND_HELP["relay"]),
        description=_(
            "Help players behind NAT meet: hosts register (host --relay HOST:PORT), "
            "joiners find them by the invite's one-time code, both try direct paths and hole "
            "punching, and the relay copies bytes between them when nothing else works. Hosts "
            "with --public are listed in its lobby (truc-p2p lobby, join --relay). The "
            "relay is untrusted: it sees addresses and signed moves, never hidden cards, and "
            "cannot forge, reorder or impersonate."
        ),
    )
    relay.add_argument(
        "--bind", default=None, metavar="ADDR", help=_("address to listen on (default: all)")
    )
    relay.add_argument(
        "--port",
        type=int,
        default=DEFAULT_RELAY_PORT,
        help=_("TCP port (default {default}; 0: any)", default=DEFAULT_RELAY_PORT),
    )
    relay.add_argument(
        "--site",
        type=Path,
        default=None,
        metavar="DIR",
        help=_(
            "also serve the built site (truc-p2p site build DIR) over HTTP on the same port; "
            "browsers reach the relay at /ws either way"
        ),
    )
    relay.add_argument(
        "--trust-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help=_(
            "a reverse proxy (e.g. 127.0.0.1) whose X-Forwarded-For names a browser's "
            "address, so the per-address limits count browsers, not the proxy (repeatable)"
        ),
    )
    relay.add_argument(
        "--max-connections",
        type=int,
        default=RelayLimits.max_connections,
        metavar="N",
        help=_(
            "connections held at once, from all addresses together; more are refused "
            "(default {default}; a relayed game holds 3)",
            default=RelayLimits.max_connections,
        ),
    )
    relay.add_argument(
        "--json", action="store_true", help=_("print one JSON object per line (start, sessions)")
    )
    relay.set_defaults(func=_relay)


def _relay(args: argparse.Namespace) -> int:
    problem = _bad_argument(args)
    if problem is not None:
        print("truc-p2p relay: " + problem, file=sys.stderr)
        return 2
    trusted = frozenset(str(ipaddress.ip_address(a)) for a in args.trust_proxy)
    server = RelayServer(
        RelayLimits(max_connections=args.max_connections),
        on_report=partial(_print_session, args.json),
        site=args.site,
        trusted_proxies=trusted,
    )
    return run_until_interrupted(partial(_serve, args, server), stopping=_("stopping the relay..."))


def _bad_argument(args: argparse.Namespace) -> str | None:
    """The one line saying what is wrong with the arguments, or ``None``."""
    if not 0 <= args.port <= 65535:
        return _("--port must be in 0..65535, not {port}", port=args.port)
    if args.max_connections < 1:
        return _("--max-connections must be at least 1, not {n}", n=args.max_connections)
    if args.site is not None and not args.site.is_dir():
        return _("--site {path} is not a directory", path=args.site)
    for address in args.trust_proxy:
        try:
            ipaddress.ip_address(address)
        except ValueError as exc:
            return "--trust-proxy: " + str(exc)
    return None


def _print_session(as_json: bool, item: SessionReport) -> None:
    if as_json:
        print(json.dumps(item.to_json()), flush=True)
        return
    how = _("spliced") if item.spliced else _("not spliced (direct path)")
    print(
        _(
            "session {session}: {how}, {bytes} bytes, {connections} connections, "
            "{seconds} s, end: {end}",
            session=item.session,
            how=how,
            bytes=item.bytes,
            connections=item.connections,
            seconds=decimal(item.seconds),
            end=item.end,
        ),
        flush=True,
    )


async def _serve(args: argparse.Namespace, server: RelayServer, stop: trio.Event) -> int:
    """Listen, serve until ``stop``, then say what the relay did."""
    try:
        listeners = await trio.open_tcp_listeners(args.port, host=args.bind)
    except OSError as exc:
        print(
            "truc-p2p relay: "
            + _(
                "cannot listen on {where} port {port}: {reason}",
                where=args.bind or _("all interfaces"),
                port=args.port,
                reason=exc.strerror or exc,
            ),
            file=sys.stderr,
        )
        return 2
    _print_listening(args, [x.socket.getsockname()[:2] for x in listeners])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            partial(
                server.serve,
                listeners,
                on_notice=lambda text: print(notice_text(text), file=sys.stderr),
            )
        )
        await stop.wait()
        nursery.cancel_scope.cancel()
    _print_stopped(args.json, dict(server.stats))
    return 0


def _print_listening(args: argparse.Namespace, addresses: list[Any]) -> None:
    if args.json:
        site = None if args.site is None else str(args.site)
        print(
            json.dumps({"event": "listening", "addresses": addresses, "site": site}),
            flush=True,
        )
        return
    where = ", ".join(host_port(a, p) for a, p in addresses)
    print(_("relay listening on {where} (Ctrl-C to stop)", where=where), flush=True)
    if args.site is not None:
        print(
            _(
                "serving the site {path} at http://{where}/",
                path=args.site,
                where=host_port(*addresses[0]),
            ),
            flush=True,
        )


def _print_stopped(as_json: bool, totals: dict[str, Any]) -> None:
    if as_json:
        print(json.dumps({"event": "stopped", **totals}), flush=True)
        return
    print(
        _(
            "relay stopped: connections {connections}, meetings {meetings}, "
            "relayed {splices}, bytes copied {bytes}",
            connections=totals.get("connections", 0),
            meetings=totals.get("meetings", 0),
            splices=totals.get("splices", 0),
            bytes=totals.get("bytes", 0),
        ),
        flush=True,
    )
