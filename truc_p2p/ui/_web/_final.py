"""The end screen's ``final`` message, trio-free: built from a
:class:`~truc_p2p.net.GameOutcome` and the verifier's report, for ``--web`` and the
site's page alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Player
from truc_p2p.ui._outcome_text import headline as headline_text
from truc_p2p.ui._outcome_text import headline_key, outcome_text, score_label
from truc_p2p.ui._voice import Voice
from truc_p2p.verdict import verdict_words

if TYPE_CHECKING:
    from truc_p2p.net import GameOutcome

__all__ = ["final_message", "verdict_json"]


#: Headlines (besides a won result) that the end screen shows as a win.
_WON = frozenset({"opponent-resigned", "opponent-gone", "opponent-timeout"})


def final_message(outcome: GameOutcome, report: object = None) -> dict[str, Any]:
    """The end screen: result, co-signed status and the verifier's verdict, in the
    language in use (``report``: the verifier's report on the transcript, or the
    exception that made it unreadable; ``None``: no verdict shown).

    ``verdict.status`` tells a complete game from an unfinished one (left, timed
    out, connection lost: every move up to there checks) and from a violation;
    ``verdict.line`` / ``cosigned_line`` are the sentences the page shows."""
    me = outcome.me
    names = outcome.names
    scores = outcome.scores
    key, _hand = headline_key(outcome)
    # the headline names the reason from the viewer's side (one table of them)
    headline = headline_text(outcome)
    won = key.startswith("won-") or key in _WON
    verdict: dict[str, Any] | None = None
    path = outcome.transcript
    if report is not None:
        verdict = verdict_json(report)
    voice = Voice({p: names[p] or (_("you") if p is me else _("opponent")) for p in Player}, me)
    score_line = score_label(outcome, voice.score(scores)) if scores is not None else None
    message = outcome_text(outcome)
    cosigned_line = (
        _("✔ result co-signed by both players")
        if outcome.valid
        else _("no co-signed result: the game did not reach its end")
    )
    resignation = outcome.resignation
    if outcome.valid and outcome.result is not None:
        # the headline, the score and the co-signed line say the rest
        message = ngettext("{n} hand played", "{n} hands played", outcome.result.hands)
    elif outcome.complete and resignation is not None:
        # a signed resignation ends the game: no co-signed result is owed; the headline
        # says who resigned and when, the points are labelled as the score then
        message = ngettext("{n} hand played", "{n} hands played", resignation.hand)
        cosigned_line = _("✔ the resignation is signed: the game is over")
    return {
        "headline": headline,
        "message": message,
        "outcome": outcome.end.value,
        "won": won,
        "score": {"me": scores[me], "opp": scores[me.other]} if scores is not None else None,
        "score_line": score_line,
        "hands": outcome.hands,
        "cosigned": outcome.valid or (outcome.complete and resignation is not None),
        "cosigned_line": cosigned_line,
        "verdict": verdict,
        "transcript": str(path) if path is not None else None,
    }


#: What the end screen says of the transcript, by ``verdict.status``.
_VERDICT_LINES = {
    "complete": lambda: _("✔ verified: the transcript replays as a fair, complete game"),
    "unfinished": lambda: _(
        "unfinished: the game stopped before its end; every move up to there checks"
    ),
    "violation": lambda: _("✘ the verifier found a violation in this transcript"),
    "unreadable": lambda: _("the transcript could not be read"),
}
#: Verifier error codes that only mean "stopped early", not a fault.
_UNFINISHED = frozenset({"incomplete", "aborted"})


def verdict_json(report: object) -> dict[str, Any]:
    """The verifier's verdict, in ``truc-p2p verify``'s own words and statuses."""
    verdict = verdict_words(report)
    status = str(verdict["status"])
    line = _VERDICT_LINES.get(status)
    return {
        "valid": bool(verdict["valid"]),
        "status": status,
        "line": line() if line is not None else status,
        "headline": verdict["headline"],
        "summary": verdict["summary"],
    }
