"""How a networked game ended, in the player's language.

The net layer stays language-neutral: a :class:`~truc_p2p.net.GameOutcome`
carries a ``kind`` and its ``facts`` (and ``message``, the English sentence of
the library and of ``--json``).  The command line, the terminal and the web
table render the same facts here through the catalogs.  The msgids are the
net layer's English templates (:data:`truc_p2p.net._outcome.KINDS`), marked for
extraction where they are written (one table), so English output stays the
library's and a new kind of ending is in the catalogs at once.

The peer's or the host's own words (an abort's detail), error texts from the
operating system and protocol explanations are quoted as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from truc_p2p.i18n import N_, _, ngettext
from truc_p2p.net import OUTCOME_KINDS, OUTCOME_WHERE, conceded
from truc_p2p.ui._abort_text import SILENT
from truc_p2p.verdict import reason_word

if TYPE_CHECKING:  # pragma: no cover
    from truc_p2p.net import GameOutcome

__all__ = [
    "HEADLINES",
    "KINDS",
    "SCORE_LABELS",
    "WHERE",
    "headline",
    "headline_key",
    "os_error_words",
    "outcome_text",
    "render_outcome",
    "score_label",
]

#: Each kind of ending: its msgid, or the singular and plural msgids of an
#: ``ngettext`` (chosen by the fact ``n``), and when it ended (the fact ``where``):
#: the net layer's English templates are the catalogs' msgids (one table, marked
#: there for extraction).
KINDS = OUTCOME_KINDS
WHERE = OUTCOME_WHERE

#: The operating system's errors a player meets most, by the name of their code (the
#: fact ``errno``): said in the player's language instead of the system's English
#: (the msgids are the system's own words, so English output is unchanged).
OS_ERRORS: dict[str, str] = {
    "ECONNREFUSED": N_("Connection refused"),
    "ETIMEDOUT": N_("Connection timed out"),
    "EHOSTUNREACH": N_("No route to host"),
    "ENETUNREACH": N_("Network is unreachable"),
    "ECONNRESET": N_("Connection reset by peer"),
}


def os_error_words(values: dict[str, Any]) -> None:
    """Replace the fact ``error`` by its words in the language in use when the fact
    ``errno`` names a known error (``errno`` itself is dropped either way)."""
    known = OS_ERRORS.get(str(values.pop("errno", "")))
    if known is not None and "error" in values:
        values["error"] = _(known)


def render_outcome(kind: str, facts: Mapping[str, Any]) -> str:
    """The sentence of an ending of ``kind`` with ``facts``, in the language in use."""
    values = dict(facts)
    os_error_words(values)
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
    if kind == "peer-timeout" and isinstance(detail, str):
        # the reference implementation's words (net's timeout_outcome), said in the
        # player's language; another implementation's are quoted as they are
        silent = SILENT.fullmatch(detail)
        if silent is not None:
            detail = _("no message for {seconds} s", seconds=silent[1])
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


#: The one headline of each ending, from the viewer's side, naming the reason: the
#: web end screen's title and the terminal's last word.  ``{name}`` is the
#: opponent, ``{hand}`` the hand it ended in (counted from 1).
HEADLINES: dict[str, str] = {
    "won-target": N_("You won: you reached the target score first"),
    "lost-target": N_("{name} won: first to reach the target score"),
    "won-rest-won": N_(
        "You won: the game was staked on hand {hand} (“my rest”) and you won that hand"
    ),
    "lost-rest-won": N_(
        "{name} won: the game was staked on hand {hand} (“my rest”) and {name} won that hand"
    ),
    "won-rest-refused": N_("You won: {name} turned down your “my rest” in hand {hand}"),
    "lost-rest-refused": N_("{name} won: you turned down “my rest” in hand {hand}"),
    "opponent-resigned": N_("You won: {name} resigned in hand {hand}"),
    "resigned": N_("{name} won: you resigned in hand {hand}"),
    # a game of a match given up on its own (the match goes on with the next one)
    "opponent-conceded": N_("You won this game: {name} conceded it in hand {hand}"),
    "conceded": N_("{name} won this game: you conceded it in hand {hand}"),
    "opponent-gone": N_("You won: {name} left and did not come back"),
    "opponent-timeout": N_("You won: {name} did not play in time"),
    "cheat": N_("Cheat caught: {name} sent a move that does not check; the game stopped"),
    "quit": N_("You left the game: it stopped unfinished"),
    "peer-quit": N_("{name} left the game: it stopped unfinished"),
    "peer-timeout": N_("{name} ended the game: you took too long to play"),
    "peer-cheat": N_("{name} ended the game, saying that you cheated"),
    "peer-aborted": N_("{name} ended the game: it stopped unfinished"),
    "connection-lost": N_("The connection to {name} was lost: the game stopped unfinished"),
    "host-unreachable": N_("The host could not be reached again: the game stopped unfinished"),
    "settings": N_("Nothing was played: you and {name} use different settings"),
    "refused": N_("Nothing was played: the host turned you away"),
    "wrong-host": N_("Nothing was played: the host is not the one of the invite"),
    "no-game": N_("Nothing was played"),
    "disk": N_("The game stopped: the transcript cannot be written"),
    "local": N_("The game stopped: this program chose a move it may not make"),
    "already-ended": N_("The game was already over"),
    "unfinished": N_("The game stopped before its end"),
}

#: The headline of each kind of ending that is not a result (see :func:`headline`).
_HEADLINE_OF_KIND = {
    "quit": "quit",
    "hello-timeout": "no-game",
    "turn-timeout": "opponent-timeout",
    "abandoned": "opponent-gone",
    "opponent-gone": "opponent-gone",
    "host-unreachable": "host-unreachable",
    "protocol-error": "cheat",
    "protocol-error-at": "cheat",
    "protocol-error-kept": "cheat",
    "protocol-error-at-kept": "cheat",
    "peer-quit": "peer-quit",
    "peer-timeout": "peer-timeout",
    "peer-cheat": "peer-cheat",
    "peer-incompatible": "settings",
    "peer-aborted": "peer-aborted",
    "connection-lost": "connection-lost",
    "incompatible": "settings",
    "host-plays-match": "settings",
    "host-plays-single": "settings",
    "joiner-asks-single": "settings",
    "joiner-asks-match": "settings",
    "joiner-asks-other-match": "settings",
    "refused-busy": "refused",
    "refused-not-allowed": "refused",
    "refused-unknown-game": "refused",
    "refused-played": "refused",
    "refused": "refused",
    "key-mismatch": "wrong-host",
    "fingerprint-mismatch": "wrong-host",
    "disk-error": "disk",
    "disk-error-told": "disk",
    "transcript-unwritable": "disk",
    "local-refused": "local",
    "already-ended": "already-ended",
    "nothing-to-resume-ended": "already-ended",
    "nobody-joined": "no-game",
    "not-connected": "no-game",
    "cannot-connect": "no-game",
    "handshake-dropped": "no-game",
    "nothing-to-resume-unstarted": "no-game",
}

#: The headline of an ending by its ``End`` value, for an outcome without a kind.
_HEADLINE_OF_END = {
    "quit": "quit",
    "opponent-timeout": "opponent-timeout",
    "opponent-aborted": "peer-aborted",
    "opponent-abandoned": "opponent-gone",
    "connection-lost": "connection-lost",
    "connection-failed": "no-game",
    "protocol-error": "cheat",
    "incompatible": "settings",
    "fingerprint-mismatch": "wrong-host",
    "refused": "refused",
    "disk-error": "disk",
    "local-error": "local",
}

#: The game's points under the headline, labelled so they never read as a result
#: of their own (``{score}``: the viewer first).
SCORE_LABELS: dict[str, str] = {
    "target": N_("points: {score}"),
    "staked": N_("points before the staked hand: {score}"),
    "resigned": N_("points when you resigned: {score}"),
    "opponent-resigned": N_("points when {name} resigned: {score}"),
    "conceded": N_("points when you conceded: {score}"),
    "opponent-conceded": N_("points when {name} conceded: {score}"),
    "stopped": N_("points when the game stopped: {score}"),
}


def headline_key(outcome: GameOutcome) -> tuple[str, int]:
    """Which :data:`HEADLINES` entry tells ``outcome``, and the hand it ended in."""
    result = getattr(outcome, "result", None)  # an outcome-like object may carry none
    if outcome.valid and result is not None:
        side = "won" if result.winner is outcome.me else "lost"
        reason = result.reason if result.reason in ("rest-won", "rest-refused") else "target"
        return f"{side}-{reason}", result.hands
    end = outcome.end.value
    resignation = outcome.resignation
    if end in ("resigned", "opponent-resigned") or resignation is not None:
        if resignation is not None:
            mine = resignation.by is outcome.me
            if conceded(resignation.detail):  # this game only: the match goes on
                return ("conceded" if mine else "opponent-conceded"), resignation.hand
            end = "resigned" if mine else "opponent-resigned"
        return end, resignation.hand if resignation is not None else outcome.hands
    kind = getattr(outcome, "kind", "")
    if kind == "no-next-game":
        kind = str(outcome.facts.get("kind", ""))
    key = _HEADLINE_OF_KIND.get(kind) or _HEADLINE_OF_END.get(end, "unfinished")
    return key, outcome.hands


def headline(outcome: GameOutcome) -> str:
    """The one sentence that says how the game ended, for the viewer ("You won:
    Bob resigned in hand 3"), in the language in use."""
    key, hand = headline_key(outcome)
    name = outcome.names[outcome.me.other] or _("your opponent")
    return _(HEADLINES[key], name=name, hand=hand)


def score_label(outcome: GameOutcome, score: str) -> str:
    """The game's points (``score``, already told from the viewer's side) under a label
    that says what they are."""
    key, _hand = headline_key(outcome)
    if key.endswith(("-target", "-rest-refused")):  # a refused "my rest" staked nothing
        label = "target"
    elif key.startswith(("won-", "lost-")):
        label = "staked"
    elif key in ("resigned", "opponent-resigned", "conceded", "opponent-conceded"):
        label = key
    else:
        label = "stopped"
    name = outcome.names[outcome.me.other] or _("your opponent")
    return _(SCORE_LABELS[label], score=score, name=name)
