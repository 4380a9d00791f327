"""``truc-p2p verify``'s report in words, in the language in use.

The verifier (:mod:`truc_p2p.protocol`) stays language-neutral: it returns a
structured :class:`~truc_p2p.protocol.VerifyReport`, whose ``headline()`` and
``summary()`` are the English texts of ``--json`` and of the library.  The
command line renders the same fields here through the catalogs; in English the
words are byte for byte the verifier's (a test compares them).

The protocol's own explanation of a violation (``report.error``, e.g. "player 1
sent 'action'; player 0 was due...") is a technical detail quoted as it is,
after its translated frame and its ``[code]``.
"""

from __future__ import annotations

import re
from typing import Final

from truc_p2p.i18n import N_, _, ngettext
from truc_p2p.protocol import VerifyReport
from truc_p2p.transcript import TranscriptScan

from ._findings import damage_line

__all__ = ["reason_word", "verify_headline", "verify_summary"]

#: The words of the report's ``audit`` field.
_AUDIT = {
    # Translators: the audit (a check of the deck after the game) passed
    "passed": N_("passed"),
    "failed": N_("failed"),
    "not reached": N_("not reached"),
    "proofs": N_("proofs"),
}

#: The reason a game ended (GameEndReason values, and a resignation).
_REASON = {
    # Translators: how a game ended, alone after "reason:": a player reached the
    # target score (12 points by default)
    "target": N_("target"),
    # Translators: how a game ended: "my rest" was accepted and its caller won the hand
    "rest-won": N_("rest-won"),
    # Translators: how a game ended: "my rest" was refused, so its caller won the game
    "rest-refused": N_("rest-refused"),
    # Translators: how a game ended: a player resigned
    "resigned": N_("resigned"),
}

#: How the headline words the reason of an ``abort`` that ends an unfinished game.
_ABORT_WORDS = {
    "quit": N_("left without resigning"),
    "timeout": N_("the other player did not move in time"),
    "abandoned": N_("the other player's connection was lost for good"),
    "error": N_("a failure on that side"),
    "incompatible": N_("the settings did not match"),
    "cheat": N_(
        "it reports a cheat that this transcript alone does not show "
        "(its recorder can try --secret)"
    ),
}


def _word(table: dict[str, str], value: str | None) -> str:
    return _(table[value]) if value in table else str(value)


def reason_word(reason: str | None) -> str:
    """How a game ended (a GameEndReason value, or ``resigned``), in a word or two."""
    return _word(_REASON, reason)


def _name(report: VerifyReport, player: int | None) -> str:
    if player is None:
        return _("nobody")
    if player < len(report.players):
        return report.players[player].name
    return _("player {number}", number=player)


def _score_text(report: VerifyReport) -> str:
    assert report.score is not None
    return _(
        "{first} {first_score}, {second} {second_score}",
        first=_name(report, 0),
        first_score=report.score[0],
        second=_name(report, 1),
        second_score=report.score[1],
    )


def _resigned(report: VerifyReport) -> str:
    assert report.resigned_by is not None
    values = {
        "who": _name(report, report.resigned_by),
        "hand": report.hands,
        "winner": _name(report, 1 - report.resigned_by),
    }
    if report.score is not None:
        return _(
            "{who} resigned in hand {hand}; {winner} wins (score {score}); every move up "
            "to the resignation checks.",
            score=_score_text(report),
            **values,
        )
    return _(
        "{who} resigned in hand {hand}; {winner} wins; the hands since the last audit were "
        "never audited (a resignation needs no audit).",
        **values,
    )


def _complete(report: VerifyReport) -> str:
    assert report.winner is not None and report.score is not None
    values = {
        "first": _name(report, 0),
        "second": _name(report, 1),
        "winner": _name(report, report.winner),
        "won": f"{report.score[report.winner]}-{report.score[1 - report.winner]}",
    }
    v2 = report.deck == "v2"
    end = report.reason or ""
    if end not in ("target", "rest-won", "rest-refused"):
        values["won"] += f" ({report.reason})"
        end = "target"
    hands = report.hands
    if v2 and end == "target":
        return ngettext(
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} after {n} hand.",
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} after {n} hands.",
            hands,
            **values,
        )
    if v2 and end == "rest-won":
        return ngettext(
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} (a won 'my rest') after {n} hand.",
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} (a won 'my rest') after {n} hands.",
            hands,
            **values,
        )
    if v2:
        return ngettext(
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} ('my rest' refused) after {n} hand.",
            "Fair and complete: {first} and {second} each shuffled and every card was "
            "proven; {winner} won {won} ('my rest' refused) after {n} hands.",
            hands,
            **values,
        )
    if end == "target":
        return ngettext(
            "Fair and complete: {first} and {second} each shuffled and the audit checked "
            "every card; {winner} won {won} after {n} hand.",
            "Fair and complete: {first} and {second} each shuffled and the audit checked "
            "every card; {winner} won {won} after {n} hands.",
            hands,
            **values,
        )
    if end == "rest-won":
        return ngettext(
            "Fair and complete: {first} and {second} each shuffled and the audit checked "
            "every card; {winner} won {won} (a won 'my rest') after {n} hand.",
            "Fair and complete: {first} and {second} each shuffled and the audit checked "
            "every card; {winner} won {won} (a won 'my rest') after {n} hands.",
            hands,
            **values,
        )
    return ngettext(
        "Fair and complete: {first} and {second} each shuffled and the audit checked "
        "every card; {winner} won {won} ('my rest' refused) after {n} hand.",
        "Fair and complete: {first} and {second} each shuffled and the audit checked "
        "every card; {winner} won {won} ('my rest' refused) after {n} hands.",
        hands,
        **values,
    )


def _stop(report: VerifyReport) -> str:
    """Where and how an unfinished game stops (a clause of the headline)."""
    hand, scored = report.hands, report.score is not None
    score = _score_text(report) if scored else ""
    if report.aborted_by is not None:
        reason = report.abort_reason or ""
        why = _(_ABORT_WORDS[reason]) if reason in _ABORT_WORDS else f"({reason})"
        who = _name(report, report.aborted_by)
        if hand and scored:
            return _(
                "{who} ended the game in hand {hand} at {score}: {why}",
                who=who,
                hand=hand,
                score=score,
                why=why,
            )
        if hand:
            return _("{who} ended the game in hand {hand}: {why}", who=who, hand=hand, why=why)
        if scored:
            return _(
                "{who} ended the game before the first deal at {score}: {why}",
                who=who,
                score=score,
                why=why,
            )
        return _("{who} ended the game before the first deal: {why}", who=who, why=why)
    if report.error_code in ("torn", "corrupt"):
        if hand and scored:
            return _(
                "the file is cut in hand {hand} at {score} (a crash or a full disk?)",
                hand=hand,
                score=score,
            )
        if hand:
            return _("the file is cut in hand {hand} (a crash or a full disk?)", hand=hand)
        if scored:
            return _(
                "the file is cut before the first deal at {score} (a crash or a full disk?)",
                score=score,
            )
        return _("the file is cut before the first deal (a crash or a full disk?)")
    if hand and scored:
        return _(
            "the transcript stops in hand {hand} at {score} (a lost connection?)",
            hand=hand,
            score=score,
        )
    if hand:
        return _("the transcript stops in hand {hand} (a lost connection?)", hand=hand)
    if scored:
        return _(
            "the transcript stops before the first deal at {score} (a lost connection?)",
            score=score,
        )
    return _("the transcript stops before the first deal (a lost connection?)")


def verify_headline(report: VerifyReport, scan: TranscriptScan | None = None) -> str:
    """The verdict in one sentence, with the players' names (``report.headline()``
    in the language in use; ``scan`` as for :func:`verify_summary`)."""
    if report.status == "complete" and report.resigned_by is not None:
        return _resigned(report)
    if report.status == "complete":
        return _complete(report)
    if report.status == "unfinished":
        stop = _stop(report)
        if report.deck != "v1" or report.local_secret_of is not None:
            return _("Unfinished: {stop}; every move up to there checks.", stop=stop)
        return _(
            "Unfinished: {stop}; every message up to there is signed and in order, and the "
            "hands since the last audit can only be checked with their seeds (--secret).",
            stop=stop,
        )
    if report.error_code == "bad-secret":
        return _("Not checked: {error}.", error=_error(report, scan))
    if report.status == "unknown-feature":
        return _(
            "Cannot judge: this game uses {features}, unknown to this verifier; every "
            "message is signed and in order, and nobody is blamed (verify it with a build "
            "that knows it).",
            features=unknown_text(report),
        )
    edited = _edited(report, scan)
    if edited is not None:
        return edited
    values: dict[str, object] = {"error": _error(report, scan), "code": report.error_code}
    number, culprit = report.error_message_no, report.culprit
    if number is not None:
        values["n"] = number
        if culprit is not None:
            return ngettext(
                "Violation at message {n}, sent by {who}: {error} [{code}]; the {n} message "
                "before it checks, nothing from it on is proven.",
                "Violation at message {n}, sent by {who}: {error} [{code}]; the {n} messages "
                "before it check, nothing from it on is proven.",
                number,
                who=_name(report, culprit),
                error=values["error"],
                code=values["code"],
            )
        return ngettext(
            "Violation at message {n}: {error} [{code}]; the {n} message before it checks, "
            "nothing from it on is proven.",
            "Violation at message {n}: {error} [{code}]; the {n} messages before it check, "
            "nothing from it on is proven.",
            number,
            error=values["error"],
            code=values["code"],
        )
    if culprit is not None:
        return _(
            "Violation by {who}: {error} [{code}]; nothing is proven.",
            who=_name(report, culprit),
            **values,
        )
    return _("Violation: {error} [{code}]; nothing is proven.", **values)


#: Errors a player's own file shows only when its bytes changed after the game: the
#: game loop checks every signature and link before it writes a message, so a
#: message whose signature or chain no longer holds was edited, inserted or
#: removed since (a move its own signer made illegal is a violation *by* them).
EDITED: Final = frozenset({"bad-signature", "broken-chain", "bad-sequence"})


def _edited(report: VerifyReport, scan: TranscriptScan | None) -> str | None:
    """The verdict on a file changed after the game, or ``None``."""
    if report.error_code not in EDITED or (scan is not None and scan.damage is not None):
        return None
    number = report.error_message_no
    if number is None:
        return _(
            "This file was changed after the game: a message no longer matches its "
            "signature or its place; nothing is proven [{code}].",
            code=report.error_code,
        )
    if report.error_code == "bad-signature":
        return ngettext(
            "This file was changed after the game: message {n} no longer matches its "
            "signature; the {n} message before it checks [{code}].",
            "This file was changed after the game: message {n} no longer matches its "
            "signature; the {n} messages before it check [{code}].",
            number,
            code=report.error_code,
        )
    return ngettext(
        "This file was changed after the game: message {n} no longer follows the one "
        "before it (a message was removed, added or moved); the {n} message before it "
        "checks [{code}].",
        "This file was changed after the game: message {n} no longer follows the one "
        "before it (a message was removed, added or moved); the {n} messages before it "
        "check [{code}].",
        number,
        code=report.error_code,
    )


def _error(report: VerifyReport, scan: TranscriptScan | None) -> str:
    if report.error_code == "bad-secret":
        return _("the local secret does not belong to this transcript")
    if report.error_code == "bad-signature":
        return _("the message no longer matches its signature (changed after the game)")
    if report.error_code in EDITED:
        return _("the message no longer follows the one before it (changed after the game)")
    if scan is not None and scan.damage is not None and report.error_code == scan.damage:
        return damage_line(scan)
    text = str(report.error)
    if report.error_code == "incomplete":
        if match := _BLIND.fullmatch(text):
            return _(
                "the transcript ends before hand {hand} was audited (a seed was never revealed)",
                hand=match[1],
            )
        if match := _STAGE.fullmatch(text):
            return _(
                "the transcript ends in stage {stage}, before the co-signed result",
                stage=match[1],
            )
    if report.error_code == "aborted" and text.startswith(_ABORTED):
        return _(
            "the game did not finish: {why}",
            why=_ended_by(report, text[len(_ABORTED) :], named=False),
        )
    return text


#: The verifier's own words for a game that stops (``report.error``), worded again here.
_BLIND = re.compile(
    r"the transcript ends before hand (\d+) was audited \(a seed was never revealed\)"
)
_STAGE = re.compile(r"the transcript ends in stage ([\w-]+), before the co-signed result")
_ABORTED = "the game did not finish: "


def _deck_line(report: VerifyReport) -> str | None:
    """What the deck checks established, never past a violation (no label)."""
    if report.deck is None:
        return None
    failed = report.status == "violation"
    number = report.error_message_no
    if report.deck == "v2":
        if failed and number:
            return _(
                "v2: shuffles, keys and cards proven up to message {before}; message {n} is "
                "where it failed",
                before=number - 1,
                n=number,
            )
        if failed:
            return _("v2: shuffles, keys and cards proven nowhere (see the violation)")
        if report.status == "complete":
            return ngettext(
                "v2: every shuffle, key and card proven at its message; {n} unplayed card revealed",
                "v2: every shuffle, key and card proven at its message; {n} unplayed "
                "cards revealed",
                report.hidden_cards_revealed or 0,
            )
        return ngettext(
            "v2: every shuffle, key and card proven up to the last message; {n} "
            "unplayed card revealed",
            "v2: every shuffle, key and card proven up to the last message; {n} "
            "unplayed cards revealed",
            report.hidden_cards_revealed or 0,
        )
    audit = _word(_AUDIT, report.audit)
    if failed and number:
        return _(
            "v1: audit {audit}; checked up to message {before}; message {n} is where it failed",
            audit=audit,
            before=number - 1,
            n=number,
        )
    if failed:
        return _("v1: audit {audit}; checked nowhere (see the violation)", audit=audit)
    if report.audit != "passed":
        return _("v1: audit {audit}", audit=audit)
    return ngettext(
        "v1: checked by the seed audit; {n} unplayed card revealed by it",
        "v1: checked by the seed audit; {n} unplayed cards revealed by it",
        report.hidden_cards_revealed or 0,
    )


def _rules(report: VerifyReport) -> str:
    assert report.ruleset is not None
    rules = report.ruleset
    if set(rules) == {"target", "ladder", "rest_refused"}:
        # the option values (``--ladder literal``) stay as the command line takes them
        return _(
            "target={target}, ladder={ladder}, rest_refused={rest_refused}",
            target=rules["target"],
            ladder=rules["ladder"],
            rest_refused=rules["rest_refused"],
        )
    return ", ".join(f"{k}={v}" for k, v in rules.items())


_ENDED = re.compile(r"player ([01]) (resigned|aborted) at message (\d+)(?:: ([\w-]+))?(.*)\Z")


def _ended_by(report: VerifyReport, text: str, *, named: bool = True) -> str:
    """The protocol's ``ended_by`` ("player 1 aborted at message 9: quit (detail)"),
    the player by name (``named``) or as "player N" (the verifier's error keeps it)."""
    match = _ENDED.match(text)
    if match is None:
        return (
            re.sub(r"^player ([01])", lambda m: _name(report, int(m[1])), text) if named else text
        )
    player = int(match[1])
    who = _name(report, player) if named else _("player {number}", number=player)
    n, rest = int(match[3]), match[5]
    if match[2] == "resigned":
        return _("{who} resigned at message {n}", who=who, n=n) + rest
    return _("{who} aborted at message {n}: {reason}", who=who, n=n, reason=match[4]) + rest


def unknown_text(report: VerifyReport) -> str:
    """What the hellos use that this verifier does not know, in the language in use
    ("feature 9, option 'zzz'", wire.md section 11.2)."""
    return ", ".join(
        _("feature {number}", number=u) if isinstance(u, int) else _("option {name!r}", name=u)
        for u in report.unknown_features
    )


def verify_summary(report: VerifyReport, scan: TranscriptScan | None = None) -> str:
    """A one-screen summary: the headline, then the details (``report.summary()`` in
    the language in use), one ``label: value`` line each.  ``scan``: the file's, to
    word its damage (a torn or corrupt transcript) in the language in use too."""
    word = {
        "complete": N_("VALID"),
        "unfinished": N_("UNFINISHED"),
        "unknown-feature": N_("NOT JUDGED"),
    }.get(report.status, N_("INVALID"))
    rows: list[tuple[str, str]] = [
        (
            _("transcript:"),
            ngettext(
                "{word} ({n} message)", "{word} ({n} messages)", report.messages, word=_(word)
            ),
        )
    ]
    if report.game_id:
        rows.append((_("game id:"), report.game_id))
    for i, p in enumerate(report.players):
        rows.append((_("player {number}:", number=i), f"{p.name}  {p.fingerprint}"))
    if report.ruleset:
        checked = (
            _("deck v2: no audit needed")
            if report.deck == "v2"
            else _("deck v1, audit every {mode}", mode=report.audit_mode)
        )
        rows.append((_("ruleset:"), f"{_rules(report)}; {checked}"))
    rows.append((_("hands:"), str(report.hands)))
    if report.score is not None:
        rows.append((_("score:"), f"{report.score[0]} - {report.score[1]}"))
    if report.winner is not None and report.status == "complete":
        winner = _name(report, report.winner)
        rows.append((_("winner:"), f"{winner} ({reason_word(report.reason)})"))
    rows.append((_("audit:"), _word(_AUDIT, report.audit)))
    deck = _deck_line(report)
    if deck is not None:
        rows.append((_("deck:"), deck))
    if report.ended_by:
        rows.append((_("ended by:"), _ended_by(report, report.ended_by)))
    if report.local_secret_of is not None:
        rows.append(
            (
                _("local key:"),
                _(
                    "{who}'s session secret replayed its unrevealed hands (only that player "
                    "can show these findings)",
                    who=_name(report, report.local_secret_of),
                ),
            )
        )
    if report.error:
        where = (
            _("message {n}: ", n=report.error_message_no)
            if report.error_message_no is not None
            else ""
        )
        label = (
            _("violation:")
            if report.status == "violation"
            else _("not judged:")
            if report.status == "unknown-feature"
            else _("unfinished:")
        )
        error = unknown_text(report) if report.status == "unknown-feature" else _error(report, scan)
        rows.append((label, f"{where}{error} [{report.error_code}]"))
    width = max(12, *(len(label) + 1 for label, _value in rows))
    lines = [verify_headline(report, scan)]
    lines += [f"{label:<{width}}{value}" for label, value in rows]
    return "\n".join(lines)
