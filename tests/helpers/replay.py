"""The fixed game of the restore tests: a seeded pair, and a session restored from its
records."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from helpers.protocol import P0, P1, Pair, bot
from truc_p2p.protocol import (
    Session,
)
from truc_p2p.rules import Player, RestRefused, Ruleset

RULESET = Ruleset(target=3, rest_refused=RestRefused.VALUE)


def new_pair(audit: str, deck: str = "v1") -> Pair:
    """The same game every time: fixed keys, secrets and freshly seeded bots."""
    return Pair(
        ruleset=RULESET,
        audit=audit,
        tag="replay",
        bots={P0: bot("random", 11), P1: bot("heuristic", 12)},
        deck=deck,
    )


def restore(pair: Pair, p: Player, envelopes: list[bytes], **changes: Any) -> Session:
    """Restore side ``p`` of ``pair``: with the options of its own hello in ``envelopes``,
    or, given options among ``changes``, with its live options so changed (another
    ``deck`` takes that deck's defaults)."""
    assert pair.secrets is not None
    keys: dict[str, Any] = {"identity": pair.keys[p], "role": p, "secret": pair.secrets[p]}
    keys |= {k: v for k, v in changes.items() if k in ("identity", "role", "secret", "record")}
    changed = {k: v for k, v in changes.items() if k not in keys}
    if "deck" in changed:
        changed |= {"pipeline": None, "early": None}
    options = replace(pair.sessions[p].options, **changed) if changed else None
    return Session.restore(envelopes, options=options, **keys)
