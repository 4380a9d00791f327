"""The vocabulary of the adversarial cases (:mod:`._adversary`): what a case
targets (:class:`Target`), what it does to it (a :data:`Mutator` over a
:class:`Context`) and what the peer must do then (:class:`Expect`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._proxy import Raw

__all__ = [
    "ACT",
    "COIN",
    "DECK",
    "FALLBACK",
    "HELLO",
    "REFUSE",
    "RESULT",
    "RESUME",
    "Context",
    "Expect",
    "Misbehave",
    "Mutator",
    "Target",
    "abort_with",
    "lie",
]


@dataclass(frozen=True)
class Expect:
    """What the peer must do: ``abort`` with ``reason`` and a ``detail`` that
    begins with ``code``; or ``refuse`` (close the connection, no abort, nothing
    recorded)."""

    kind: str  # "abort", "refuse" or "fallback" (dial again without early cards)
    code: str = ""
    reason: str = ""


def abort_with(code: str) -> Expect:
    reason = {
        "version-mismatch": "incompatible",
        "ruleset-mismatch": "incompatible",
        "cheat": "cheat",
        "illegal-move": "cheat",
        "equivocation": "cheat",
        "result-mismatch": "cheat",
    }.get(code, "error")
    return Expect("abort", code, reason)


def lie(code: str) -> Expect:
    """A resume answer that lies about the chain: ``abort`` ``cheat`` (wire.md 13.1 step 5)."""
    return Expect("abort", code, "cheat")


REFUSE = Expect("refuse")
FALLBACK = Expect("fallback")


@dataclass(frozen=True)
class Target:
    """Which envelope of the runner the relay changes: the first of ``types`` (any
    type when empty) that carries ``key`` in its payload, on connection 1 unless
    ``resume`` (then the first ``resume`` on a later connection, after the relay cut
    connection 1 at the runner's ``cut_at``-th envelope)."""

    name: str
    types: tuple[str, ...] = ()
    key: str | None = None
    resume: bool = False
    cut_at: int = 3
    #: the target comes at the end of a whole game: the case has an honest game's time
    late: bool = False


COIN = Target("coin", ("coin",))
DECK = Target("deck", ("v2deck1", "v2deck2"))
ACT = Target("act", (), key="act")
HELLO = Target("hello", ("hello",))
RESUME = Target("resume", ("resume",), resume=True)
RESULT = Target("result", ("result",), late=True)


@dataclass
class Context:
    """What a misbehaviour may use: the runner's key, the runner's envelopes so far
    on this connection and the peer's, and a stranger's key."""

    key: SigningKey
    mine: list[bytes] = field(default_factory=list)
    theirs: list[bytes] = field(default_factory=list)
    stranger: SigningKey = field(default_factory=SigningKey.generate)


#: ``misbehave(envelope, context)`` -> the frames to send instead (envelope bytes, or
#: :class:`Raw` bytes written as they are), or ``None`` to close the connection.
Mutator = Callable[[bytes, Context], list[bytes | Raw] | None]


@dataclass(frozen=True)
class Misbehave:
    """One adversarial case: ``row`` of conformance.md, ``section`` of the spec it
    is named after; ``level`` ``must`` or ``should`` (``--strict``)."""

    name: str
    row: str
    summary: str
    target: Target
    mutate: Mutator
    expect: Expect
    roles: tuple[str, ...] = ("host",)
    level: str = "must"
