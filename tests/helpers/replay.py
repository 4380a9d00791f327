"""The fixed game of the restore tests: a seeded pair, and a session restored from its
records."""

from __future__ import annotations

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
    assert pair.secrets is not None
    options: dict[str, Any] = {
        "identity": pair.keys[p],
        "role": p,
        "secret": pair.secrets[p],
        "ruleset": pair.sessions[p].ruleset,
        "name": pair.names[p],
        "audit": pair.sessions[p].audit_mode,
        "deck": pair.sessions[p].deck,
    }
    options.update(changes)
    return Session.restore(envelopes, **options)
