"""How a networked game ended, in the player's language.

The net layer stays language-neutral: a :class:`~truc_p2p.net.GameOutcome`
carries a ``kind`` and its ``facts`` (and ``message``, the English sentence of
the library and of ``--json``).  The command line, the terminal and the web
table render the same facts here through the catalogs.  The msgids below are
the net layer's English templates (:data:`truc_p2p.net._outcome.KINDS`), word
for word: a test keeps the two tables equal, so that a new kind of ending
without a translation fails, and English output stays the library's.

The peer's or the host's own words (an abort's detail), error texts from the
operating system and protocol explanations are quoted as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from truc_p2p.ui._i18n import N_, _, ngettext
from truc_p2p.ui._verify_text import reason_word

if TYPE_CHECKING:  # pragma: no cover
    from truc_p2p.net import GameOutcome

__all__ = ["KINDS", "WHERE", "outcome_text", "render_outcome"]

#: Each kind of ending: its msgid, or the singular and plural msgids of an
#: ``ngettext`` (chosen by the fact ``n``; see :func:`_plural_texts`).
KINDS: dict[str, str | tuple[str, str]] = {
    "key-mismatch": N_(
        "refused the host: {error}; nothing was played (wrong or stale invite, "
        "or someone is impersonating the host)"
    ),
    "fingerprint-mismatch": N_(
        "refused the host: its key has fingerprint {actual}, the invite "
        "expects {expected}; nothing was played (wrong or stale invite, or someone is "
        "impersonating the host)"
    ),
    "local-refused": N_("our player chose an action the session refused: {error}"),
    "quit": N_("you left the game; the opponent was told"),
    "resigned": N_(
        "you resigned in hand {hand}; {peer} wins (score {me} {my_score}, {peer} "
        "{peer_score}); both transcripts record the resignation"
    ),
    "opponent-resigned": N_(
        "{peer} resigned in hand {hand}; you win (score {me} {my_score}, "
        "{peer} {peer_score}); the signed resignation is in your transcript"
    ),
    "hello-timeout": N_(
        "opponent timed out: the peer sent no hello for {limit} s {where}; a "
        "signed abort 'timeout' ends the transcript"
    ),
    "turn-timeout": N_(
        "opponent timed out: the opponent did not play for {limit} s {where}; a "
        "signed abort 'timeout' ends the transcript"
    ),
    "disk-error-told": N_(
        "cannot write the transcript ({error}) {where}; a signed abort 'error' "
        "told the opponent; what was written stays readable by verify"
    ),
    "disk-error": N_(
        "cannot write the transcript ({error}) {where}; nothing more was sent: free "
        "some space and run 'truc-p2p resume' on the transcript while the opponent waits"
    ),
    "connection-lost": N_("connection lost {where}: {error}"),
    "abandoned": N_(
        "the opponent abandoned the game: disconnected for {grace} s {where}; a "
        "signed abort 'abandoned' ends your transcript"
    ),
    "refused-busy": N_("the host is busy with another game; try again later"),
    "refused-not-allowed": N_("the host does not admit your key (it hosts with --allow)"),
    "refused-unknown-game": N_("the host no longer has this game (it ended or was abandoned)"),
    "refused-played": N_(
        "the host has already played the game that follows this one: each game "
        "of a match, and each rematch, is played once"
    ),
    "refused": N_("the host refused ({reason})"),
    "incompatible": N_("incompatible settings, nothing was played: {error}"),
    "host-plays-match": N_("{host} plays a match of {n} games: join with --match {n}"),
    "host-plays-single": N_("{host} plays a single game: join without --match"),
    "joiner-asks-single": N_(
        "{joiner} asked for a single game, you host a match of {n} games: nothing was played"
    ),
    "joiner-asks-match": N_(
        "{joiner} asked for a match of {asked} games, you host a single game: nothing was played"
    ),
    "joiner-asks-other-match": N_(
        "{joiner} asked for a match of {asked} games, you host a match of {n} games: nothing "
        "was played"
    ),
    "protocol-error": N_("the opponent broke the protocol {where}: {code}: {error}"),
    "protocol-error-at": N_(
        "the opponent broke the protocol {where}: {code} at message {number}: {error}"
    ),
    "protocol-error-kept": N_(
        "the opponent broke the protocol {where}: {code}: {error} (its "
        "signed message is kept in the transcript)"
    ),
    "protocol-error-at-kept": N_(
        "the opponent broke the protocol {where}: {code} at message "
        "{number}: {error} (its signed message is kept in the transcript)"
    ),
    "peer-quit": N_("the opponent left the game {where}"),
    "peer-timeout": N_("the opponent ended the game because we took too long {where}"),
    "peer-cheat": N_("the opponent accuses us of cheating and ended the game {where}"),
    "peer-incompatible": N_("the opponent uses other settings and ended the game {where}"),
    "peer-aborted": N_("the opponent ended the game ({reason}) {where}"),
    "no-result": N_("the session closed without a result"),
    "won": (
        "you win, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); result "
        "co-signed by both players",
        "you win, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); result "
        "co-signed by both players",
    ),
    "lost": (
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); "
        "result co-signed by both players",
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); "
        "result co-signed by both players",
    ),
    "nobody-joined": N_("stopped before anyone joined"),
    "handshake-dropped": (
        "the connection dropped during the handshake {n} time in {seconds} s (the host may "
        "be flooded or restarting)",
        "the connection dropped during the handshake {n} times in {seconds} s (the host may "
        "be flooded or restarting)",
    ),
    "cannot-connect": N_("cannot connect to {address}: {error}"),
    "not-connected": N_("stopped before connecting"),
    "transcript-unwritable": N_("cannot write the transcript: {error}"),
    "nothing-to-resume-ended": N_("nothing to resume: the game has already ended"),
    "nothing-to-resume-unstarted": N_("nothing to resume: the game never started"),
    "already-ended": N_(
        "the game had already ended {first}-{second} with a co-signed result; the "
        "opponent did not come back for our last message within {grace} s (it may already "
        "hold it); nothing more was signed"
    ),
    "stopped-resuming": N_("stopped before the opponent came back"),
    "host-unreachable": N_(
        "could not reach the host at {address} within {grace} s; a signed "
        "abort 'abandoned' ends your transcript"
    ),
    "opponent-gone": N_(
        "the opponent did not come back within {grace} s; a signed abort "
        "'abandoned' ends your transcript"
    ),
    "no-next-game": N_("the host did not start another game: {text}"),
}

#: When it ended (the fact ``where``).
WHERE: dict[str, str] = {
    "before-game": N_("before the game started"),
    "before-deal": N_("before the first deal"),
    "hand": N_("during hand {hand}"),
}


def _plural_texts() -> None:  # pragma: no cover - extraction only
    ngettext(
        "you win, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); result "
        "co-signed by both players",
        "you win, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); result "
        "co-signed by both players",
        1,
    )
    ngettext(
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); "
        "result co-signed by both players",
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); "
        "result co-signed by both players",
        1,
    )
    ngettext(
        "the connection dropped during the handshake {n} time in {seconds} s (the host may "
        "be flooded or restarting)",
        "the connection dropped during the handshake {n} times in {seconds} s (the host may "
        "be flooded or restarting)",
        1,
    )


def render_outcome(kind: str, facts: Mapping[str, Any]) -> str:
    """The sentence of an ending of ``kind`` with ``facts``, in the language in use."""
    values = dict(facts)
    if "where" in values:
        values["where"] = _(WHERE[values["where"]], hand=values.get("hand"))
    if "peer" in values and values["peer"] is None:
        values["peer"] = _("opponent") if kind in ("won", "lost") else _("the opponent")
    for key in ("limit", "grace"):
        if isinstance(values.get(key), float):
            values[key] = f"{values[key]:g}"
    if kind in ("won", "lost"):
        values["reason"] = reason_word(values["reason"])
    if kind == "no-next-game":
        values["text"] = render_outcome(values["kind"], values["facts"])
    template = KINDS[kind]
    detail = values.pop("detail", None)
    if kind == "refused-busy" and isinstance(detail, str):
        # as net's shown_detail (the test of each kind holds them equal): an older
        # host's own "try again later" would say the advice twice
        detail = detail.removesuffix("try again later").rstrip("; ")
    if isinstance(template, tuple):
        n = values.pop("n")
        text = ngettext(template[0], template[1], n, **values)
    else:
        text = _(template, **values)
    if detail:
        text = _("{text}: {detail}", text=text, detail=detail)
    return text


def outcome_text(outcome: GameOutcome) -> str:
    """What happened, in the language in use (``outcome.message`` in English)."""
    kind = getattr(outcome, "kind", "")  # an outcome-like object may carry no kind
    if not kind:
        return outcome.message
    return render_outcome(kind, outcome.facts)
