"""The adversarial cases of ``truc-p2p interop`` (``protocol_spec/interop.md`` §8).

Every receiver row of ``protocol_spec/conformance.md`` ("a receiver rejects X as
Y") is one or more cases here, named after its section h2spec-style
(``wire-13.1-resume-bad-clock-left``).  In each the runner is a deliberately
misbehaving peer, BoGo-style: its relay takes one of the runner's own envelopes
(the *target*: its ``hello``, ``coin``, first deck message, first action, or a
``resume`` after a cut) and replaces it with what the row forbids, signed with
the runner's key where the row needs a valid signature.  What the peer must do
is the case's :class:`Expect`: end the game with a signed ``abort`` of the
row's reason whose ``detail`` begins with the row's error code (the offending
envelope recorded before it when it joined the chain), or *refuse* it: close
that connection without an ``abort``, recording nothing of it.

A case is cheap: it misbehaves within the first messages of a game, and a
refusal is judged as soon as the next connection opens (the case stops there).
"""

from __future__ import annotations

from truc_p2p.interop._adversary_envelope import envelope_cases
from truc_p2p.interop._adversary_messages import message_cases
from truc_p2p.interop._misbehave import Context, Expect, Misbehave, Target
from truc_p2p.interop._proxy import Raw

__all__ = [
    "ADVERSARIAL",
    "Context",
    "Expect",
    "Misbehave",
    "Raw",
    "Target",
]

#: Every case by name, in the order of the spec's sections: the envelope's
#: (:mod:`._adversary_envelope`), then the messages' (:mod:`._adversary_messages`).
#: The vocabulary is :mod:`._misbehave`, the envelope surgery :mod:`._mutators`.
ADVERSARIAL: dict[str, Misbehave] = {
    case.name: case for case in (*envelope_cases(), *message_cases())
}
