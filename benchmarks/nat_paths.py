"""Which path each NAT topology takes, how long ``join`` takes to the first card,
and what the relay pays per game.  Needs root, ``ip`` and ``nft``.

    sudo .venv/bin/python benchmarks/nat_paths.py [--runs 3] [--json]

For every topology the script builds the namespaces of ``tests/helpers/netns.py``
(an "internet" 198.18.0.0/15 with the relay at 198.18.0.1:4456, homes 10.N.0.0/24
behind nftables masquerade routers that drop unsolicited inbound traffic),
runs ``truc-p2p relay``, ``host --relay`` and ``join`` as processes, and reads
the joiner's narrated output with timestamps (with "TURN", a coturn from
Debian's package runs on the internet too and the host offers it, connect.md
§11): "connect" is the time from
starting ``join`` to its "connected (PATH path)" line, "first card" to its
first "-- hand 1" line (its own cards dealt).  Both include the Python
interpreter's start-up (about 0.25 s here), which is printed separately as
"startup" (the first line the process prints).  The relay's per-session
report gives the bytes it carried and the connections the session used.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers

from helpers.netns import (
    Lab,
    start_coturn,
    start_host,
    start_join,
    start_relay,
    turn_args,
    unavailable,
)

TOPOLOGIES = {
    "port-preserving NATs": {"a": False, "b": False, "lan": False},
    "one random-port NAT": {"a": False, "b": True, "lan": False},
    "two random-port NATs": {"a": True, "b": True, "lan": False},
    "two random-port NATs, TURN": {"a": True, "b": True, "lan": False, "turn": True},
    "port-preserving NATs, TURN": {"a": False, "b": False, "lan": False, "turn": True},
    "same LAN (relay invite)": {"lan": True},
    "same LAN (mDNS, no invite)": {"lan": True, "mdns": True},
}


def one_run(name: str, spec: dict[str, bool], workdir: Path) -> dict[str, Any]:
    lab = Lab()
    try:
        lab.internet()
        if spec.get("lan"):
            lab.home("a", players=2)
            join_ns = "ha2"
        else:
            lab.home("a", random_ports=spec["a"])
            lab.home("b", random_ports=spec["b"])
            join_ns = "hb"
        relay = start_relay(lab, workdir)
        coturn = start_coturn(lab, workdir) if spec.get("turn") else None
        try:
            host, invite = start_host(lab, "ha", workdir, *(turn_args() if coturn else ()))
            if spec.get("mdns"):
                joiner = start_join(lab, join_ns, workdir, stdin="1\n")
            else:
                joiner = start_join(lab, join_ns, workdir, invite)
            startup, _ = joiner.wait_for(lambda line: bool(line.strip()), 30)
            connect_at, line = joiner.wait_for(lambda line: line.startswith("connected ("), 30)
            first_card, _ = joiner.wait_for(lambda line: line.startswith("-- hand 1"), 30)
            joiner.finish()
            host.finish()
            result = host.last_json()
        finally:
            relay.stop()
            if coturn is not None:
                coturn.terminate()
                coturn.wait(10)
        why = next((t for _, _, t in joiner.lines if t.startswith(("direct:", "took the "))), "")
        sessions = [
            json.loads(text)
            for _, stream, text in relay.lines
            if stream == "out" and '"event": "session"' in text
        ]
        return {
            "topology": name,
            "path": line.split("(")[1].split()[0].lower(),
            "why": why,
            "host_path": result["path"],
            "valid": result["valid"],
            "startup_s": round(startup, 3),
            "connect_s": round(connect_at, 3),
            "first_card_s": round(first_card, 3),
            "relay_bytes": sum(s["bytes"] for s in sessions),
            "relay_connections": sum(s["connections"] for s in sessions),
            "game_bytes": result["bytes"],
        }
    finally:
        lab.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per topology (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    args = parser.parse_args()
    why = unavailable()
    if why is not None:
        print(f"nat_paths: {why}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in TOPOLOGIES.items():
            for _ in range(args.runs):
                row = one_run(name, spec, Path(tmp))
                rows.append(row)
                if args.json:
                    print(json.dumps(row), flush=True)
    if not args.json:
        print(
            f"{'topology':28} {'path':9} {'startup':>8} {'connect':>8} {'1st card':>9} "
            f"{'relay bytes':>12} {'relay conns':>11}"
        )
        for name in TOPOLOGIES:
            mine = [r for r in rows if r["topology"] == name]
            paths = "/".join(sorted({r["path"] for r in mine}))

            def med(key: str, rows: list[dict[str, Any]] = mine) -> float:
                return statistics.median(r[key] for r in rows)

            print(
                f"{name:28} {paths:9} {med('startup_s'):7.2f}s {med('connect_s'):7.2f}s "
                f"{med('first_card_s'):8.2f}s {med('relay_bytes'):12.0f} "
                f"{med('relay_connections'):11.0f}"
            )
        print(f"(medians of {args.runs} run(s); every game valid: {all(r['valid'] for r in rows)})")
        print("why (the joiner's line, last run of each):")
        for name in TOPOLOGIES:
            last = [r for r in rows if r["topology"] == name][-1]
            print(f"  {name:28} {last['why'] or '(no relay race: a direct invite)'}")
    return 0 if all(r["valid"] and r["path"] == r["host_path"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
