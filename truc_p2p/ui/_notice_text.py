"""The notices of the net layer (``on_notice``), in the player's language.

The net layer stays language-neutral: a :class:`~truc_p2p.net.Notice` is the English
sentence (a ``str``) and carries a ``kind`` and its ``facts``.  The command line
renders the facts here through the catalogs.  The msgids below are the net layer's
English templates (:data:`truc_p2p.net._notice.KINDS`), word for word: a test keeps
the two tables equal, so that a new kind of notice without a translation fails, and
English output stays the library's.

Exception details and the relay's or the peer's own words are quoted as they are,
and so are the operating system's errors, except the commonest (``errno`` among the
facts: refused, timed out, unreachable, reset), said in the player's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from truc_p2p.i18n import N_, _, ngettext
from truc_p2p.ui._outcome_text import os_error_words, render_outcome

__all__ = ["KINDS", "notice_text", "render_notice"]

#: Each kind of notice: its msgid, or the singular and plural msgids of an
#: ``ngettext`` (chosen by the fact ``n``; see :func:`_plural_texts`).
KINDS: dict[str, str | tuple[str, str]] = {
    "cannot-start": N_("cannot start a game with {peer}: {error}"),
    "no-game": N_("no game with {peer}: {text}"),
    "dropped-no-first": N_("dropped a connection from {peer}: no valid first message"),
    "dropped-bad-first": N_("dropped a connection from {peer}: {error}"),
    "dropped-began-with": N_("dropped a connection from {peer}: it began with {type}"),
    "not-allowed": N_("refused {peer}: key {key}… is not on the --allow list"),
    "busy": N_("told {peer} the host is busy"),
    "unknown-game": N_("refused a reconnection from {peer}: no such game here"),
    "played": N_("refused {peer}: the game after {game}… was played already"),
    "host-not-answering": N_(
        "the host {address} is not answering ({error}); trying again for the rest of the "
        "grace ({seconds} s left, Ctrl-C to stop); to come back to the game later: "
        "truc-p2p resume {file}"
    ),
    "host-not-answering-unsaved": N_(
        "the host {address} is not answering ({error}); trying again for the rest of the "
        "grace ({seconds} s left, Ctrl-C to stop)"
    ),
    "port-mapped": N_(
        "your router forwards {address} to this machine ({method}, removed when you stop)"
    ),
    "accept-shortage": N_("relay: cannot accept connections: {error}; waiting for some to close"),
    "accept-shortage-more": (
        "relay: cannot accept connections: {error}; waiting for some to close ({n} "
        "more since the last notice)",
        "relay: cannot accept connections: {error}; waiting for some to close ({n} "
        "more since the last notice)",
    ),
    "relay-no-lobby": N_(
        "the relay closed the connection on our lobby listing (a relay without a "
        "lobby?): registering again without it; the invite still works"
    ),
    "relay-replaced": N_(
        "the relay {relay} gave our code to a newer registration of this invite (another "
        "truc-p2p process with it?); not registering again; games already connected go on"
    ),
    "relay-lost": N_(
        "lost the relay ({error}): registering again with the same code, so the invite "
        "stays valid; games already connected go on"
    ),
    "relay-closed": N_("the relay closed the connection"),
    "relay-silent": N_("no word from the relay for {seconds} s"),
    "relay-codes-gone": N_(
        "the relay does not keep codes ({error}): the invite no longer works through it; "
        "start a new host for a new invite"
    ),
    "relay-refused-again": N_("the relay refused to register us again ({error}); retrying"),
    "relay-registered-again": N_(
        "registered with the relay again after {seconds} s (same code {code}): the "
        "invite works as before"
    ),
    "relay-unlisted": N_("the relay did not list the game in its lobby: {reason}"),
    "relay-retry": N_(
        "cannot register with the relay {relay} ({error}); trying again in {seconds} s"
    ),
    "relay-no-codes": N_("the relay does not keep codes ({error}); not registering there"),
    "relay-background": N_(
        "cannot register with the relay ({error}); trying again in the background"
    ),
    "turn-auth": N_("the TURN server {server} refused the user name or password ({code} {reason})"),
    "turn-auth-again": N_("the TURN server {server} kept asking for the user name and password"),
    "turn-refused": N_("the TURN server {server} refused: {code} {reason}"),
    "turn-unreachable": N_("cannot reach the TURN server {server}: {error}"),
    "turn-timeout": N_("the TURN server {server} did not answer within {seconds} s"),
    "turn-unresolved": N_("cannot find the TURN server {server} (no such name)"),
    "turn-closed": N_("the TURN server {server} closed the connection"),
    "turn-broken": N_("the TURN server {server} answered wrongly ({detail})"),
    "turn-allocated": N_(
        "TURN server {server}: joiners behind any NAT can reach you through {address}"
    ),
    "turn-failed": N_("no path through TURN ({error}); joiners use the other paths"),
    "turn-lost": N_(
        "lost the TURN allocation on {server} ({error}): allocating again; games connected "
        "through it may be cut and come back"
    ),
    "turn-moved": N_("the TURN relayed address changed"),
}


def _plural_texts() -> None:  # pragma: no cover - extraction only
    ngettext(
        "relay: cannot accept connections: {error}; waiting for some to close ({n} "
        "more since the last notice)",
        "relay: cannot accept connections: {error}; waiting for some to close ({n} "
        "more since the last notice)",
        1,
    )


def render_notice(kind: str, facts: Mapping[str, Any]) -> str:
    """The sentence of a notice of ``kind`` with ``facts``, in the language in use."""
    values: dict[str, Any] = {
        key: notice_text(v) if isinstance(v, str) else v for key, v in facts.items()
    }
    os_error_words(values)
    outcome_kind = values.pop("outcome_kind", "")
    outcome_facts: Mapping[str, Any] = values.pop("outcome_facts", {})
    if kind == "no-game" and outcome_kind:
        values["text"] = render_outcome(outcome_kind, outcome_facts)
    template = KINDS[kind]
    if isinstance(template, tuple):
        n: int = values.pop("n")
        return ngettext(template[0], template[1], n, **values)
    return _(template, **values)


def notice_text(notice: str) -> str:
    """A notice in the language in use (a plain ``str`` is shown as it is)."""
    kind = getattr(notice, "kind", "")
    if not kind:
        return str(notice)
    return render_notice(kind, notice.facts)  # type: ignore[attr-defined]
