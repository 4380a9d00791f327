"""One-line notices for a person (``on_notice``), language-neutral.

A :class:`Notice` *is* the English sentence (a ``str``, so an ``on_notice``
written for plain strings keeps working) and carries what happened without
words: a ``kind`` (a key of :data:`KINDS`) and its ``facts``.  The command line
renders the same facts in the player's language (its own copy of these msgids,
which a test keeps equal); error texts from the operating system, exception
details and the relay's or the peer's own words are facts quoted as they are.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from typing import Any

from truc_p2p._text import printable

__all__ = ["KINDS", "Notice", "english_text", "os_error_facts"]

#: The English sentence of every kind of notice, filled with its facts.  A pair is
#: the singular and plural form, chosen by the fact ``n``.  A fact that is itself a
#: :class:`Notice` (``error`` of ``relay-lost``) is rendered in its turn; ``text`` of
#: ``no-game`` is a game outcome's sentence (facts ``outcome_kind``, ``outcome_facts``).
KINDS: dict[str, str | tuple[str, str]] = {
    # the host, per connection
    "cannot-start": "cannot start a game with {peer}: {error}",
    "no-game": "no game with {peer}: {text}",
    "dropped-no-first": "dropped a connection from {peer}: no valid first message",
    "dropped-bad-first": "dropped a connection from {peer}: {error}",
    "dropped-began-with": "dropped a connection from {peer}: it began with {type}",
    "not-allowed": "refused {peer}: key {key}… is not on the --allow list",
    "busy": "told {peer} the host is busy",
    "unknown-game": "refused a reconnection from {peer}: no such game here",
    "played": "refused {peer}: the game after {game}… was played already",
    # a joiner redialing a host that does not answer (its process is gone?)
    "host-not-answering": "the host {address} is not answering ({error}); trying again for "
    "the rest of the grace ({seconds} s left, Ctrl-C to stop); to come back to the game "
    "later: truc-p2p resume {file}",
    "host-not-answering-unsaved": "the host {address} is not answering ({error}); trying "
    "again for the rest of the grace ({seconds} s left, Ctrl-C to stop)",
    # the router
    "port-mapped": "your router forwards {address} to this machine ({method}, removed "
    "when you stop)",
    # a relay server
    "accept-shortage": "relay: cannot accept connections: {error}; waiting for some to close",
    "accept-shortage-more": (
        "relay: cannot accept connections: {error}; waiting for some to close ({n} more "
        "since the last notice)",
        "relay: cannot accept connections: {error}; waiting for some to close ({n} more "
        "since the last notice)",
    ),
    # a host registered with a relay
    "relay-no-lobby": "the relay closed the connection on our lobby listing (a relay without "
    "a lobby?): registering again without it; the invite still works",
    "relay-replaced": "the relay {relay} gave our code to a newer registration of this "
    "invite (another truc-p2p process with it?); not registering again; games already "
    "connected go on",
    "relay-lost": "lost the relay ({error}): registering again with the same code, so the "
    "invite stays valid; games already connected go on",
    "relay-closed": "the relay closed the connection",
    "relay-silent": "no word from the relay for {seconds} s",
    "relay-codes-gone": "the relay does not keep codes ({error}): the invite no longer works "
    "through it; start a new host for a new invite",
    "relay-refused-again": "the relay refused to register us again ({error}); retrying",
    "relay-registered-again": "registered with the relay again after {seconds} s (same code "
    "{code}): the invite works as before",
    "relay-unlisted": "the relay did not list the game in its lobby: {reason}",
    "relay-retry": "cannot register with the relay {relay} ({error}); trying again in {seconds} s",
    "relay-no-codes": "the relay does not keep codes ({error}); not registering there",
    "relay-background": "cannot register with the relay ({error}); trying again in the background",
    # what a TURN server did (the error of turn-failed, turn-lost)
    "turn-auth": "the TURN server {server} refused the user name or password ({code} {reason})",
    "turn-auth-again": "the TURN server {server} kept asking for the user name and password",
    "turn-refused": "the TURN server {server} refused: {code} {reason}",
    "turn-unreachable": "cannot reach the TURN server {server}: {error}",
    "turn-timeout": "the TURN server {server} did not answer within {seconds} s",
    "turn-unresolved": "cannot find the TURN server {server} (no such name)",
    "turn-closed": "the TURN server {server} closed the connection",
    "turn-broken": "the TURN server {server} answered wrongly ({detail})",
    # a host with a TURN server (connect.md §11)
    "turn-allocated": "TURN server {server}: joiners behind any NAT can reach you through "
    "{address}",
    "turn-failed": "no path through TURN ({error}); joiners use the other paths",
    "turn-lost": "lost the TURN allocation on {server} ({error}): allocating again; games "
    "connected through it may be cut and come back",
    "turn-moved": "the TURN relayed address changed",
}


def os_error_facts(exc: OSError) -> dict[str, str]:
    """The facts of a failed connection or file operation: ``error``, the operating
    system's words, and ``errno``, the name of its error code when it has one
    (``ECONNREFUSED``), from which a screen says it in the player's language.

    trio's "all attempts to connect to ... failed" stands for the error of each
    address it tried: the first of those is the one told.
    """
    cause: BaseException = exc
    group = exc.__cause__
    if exc.errno is None and isinstance(group, BaseExceptionGroup):
        coded = [e for e in group.exceptions if isinstance(e, OSError) and e.errno]
        if coded:
            cause = coded[0]
    assert isinstance(cause, OSError)
    name = errno.errorcode.get(cause.errno or 0)
    if name is None:
        return {"error": str(cause.strerror or cause)}
    # trio's own error of one address quotes the address again before the words
    return {"error": os.strerror(cause.errno or 0), "errno": name}


def english_text(kind: str, facts: Mapping[str, Any]) -> str:
    """The English sentence of a notice of ``kind`` with ``facts``."""
    values = {k: str(v) if isinstance(v, Notice) else v for k, v in facts.items()}
    template = KINDS[kind]
    if isinstance(template, tuple):
        template = template[0] if values["n"] == 1 else template[1]
    return template.format(**values)


def _restore(kind: str, facts: dict[str, Any]) -> Notice:
    return Notice(kind, **facts)


class Notice(str):
    """A notice: its English sentence (the ``str`` itself), ``kind`` and ``facts``."""

    kind: str
    facts: Mapping[str, Any]

    def __new__(cls, kind: str, /, **facts: Any) -> Notice:
        # Facts quote the relay's, the peer's and the system's words: printable only.
        facts = {k: printable(v) if type(v) is str else v for k, v in facts.items()}
        self = super().__new__(cls, english_text(kind, facts))
        self.kind = kind
        self.facts = facts
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.kind, dict(self.facts)))
