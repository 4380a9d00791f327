"""The other scripted deck v2 games: pipelined, early cards, rest-final, early redeal."""

from __future__ import annotations

from typing import Any

from game import Features, Play, play_game
from wire_v2 import DECK_NOTE, layout, script_choice, setup

PIPELINED_RULESET = {"target": 3, "ladder": "literal", "rest_refused": "game"}
SCRIPT_RULESET = {"target": 2, "ladder": "literal", "rest_refused": "game"}
PIPELINE_NOTE = (
    " Pipelined deal (wire.md section 6b): hand n+1's v2deck1 and v2deck2 (no "
    "shares) interleave with hand n's actions and carry 'hand'; the context is "
    "still the envelope just before that v2deck1, wherever it sits. The dealer's "
    "shares follow in v2open once hand n ended; the last hand's pre-deal dangles."
)


def early_note(pipeline: bool) -> str:
    return (
        " Early cards (wire.md section 6a): both hellos carry 'early': true; a player "
        "that thinks (calls work() at each turn and sends its output first) sends, as "
        "the non-dealer, v2deck3 without 'action' and its first action follows as a "
        "v2action; one that answers at once has its action ride on its v2deck3. "
        + ("Player 0 thinks, player 1 does not." if pipeline else "Both players think.")
    )


def pipelined_choice(play: Play, player: int, legal: list[str], step: int) -> str:
    """Redeal whenever allowed and accept it, accept what is asked, never raise, play
    the lowest card index held."""
    for preferred in ("redeal", "accept-redeal", "accept"):
        if preferred in legal:
            return preferred
    return next(a for a in legal if a.startswith("play "))


def scripted(
    tag: str,
    pipeline: bool,
    early: bool,
    ruleset: dict[str, Any],
    choose: Any,
    masks: tuple[int, int] = (0, 0),
    features: Features | None = None,
) -> tuple[Play, dict[str, Any], dict[str, Any]]:
    options: dict[str, Any] = {"audit": "game", "deck": "v2"}
    if pipeline:
        options["pipeline"] = True
    if early:
        options["early"] = True
    play = setup(tag, ruleset, options, masks)
    f = features or Features()
    f.pipeline, f.early = pipeline, early
    if early:
        f.thinkers = (0,) if pipeline else (0, 1)
    result = play_game(play, choose, f)
    extra: dict[str, Any] = {"deck": "v2", "deck_note": DECK_NOTE}
    if pipeline:
        extra["pipeline"] = True
        extra["deck_note"] += PIPELINE_NOTE
    if early:
        extra["early"] = True
        extra["deck_note"] += early_note(pipeline)
    return play, extra, result


def pipelined() -> dict[str, Any]:
    return layout(*scripted("v2/pipelined/", True, False, PIPELINED_RULESET, pipelined_choice))


def early() -> dict[str, Any]:
    return layout(*scripted("v2/early/", False, True, SCRIPT_RULESET, script_choice))


def pipelined_early() -> dict[str, Any]:
    return layout(*scripted("v2/pipelined/early/", True, True, PIPELINED_RULESET, pipelined_choice))


def rest_choice(play: Play, player: int, legal: list[str], step: int) -> str:
    """The pipelined script, except that from hand 1 on "my rest" is said whenever it
    is legal (the non-dealer's first action), and accepted."""
    if play.rules.round_no >= 1 and "rest" in legal:
        return "rest"
    return pipelined_choice(play, player, legal, step)


def rest_final() -> dict[str, Any]:
    play, extra, result = scripted(
        "v2/rest-final/", True, False, PIPELINED_RULESET, rest_choice, (2, 2),
        Features(rest_final=True),
    )  # fmt: skip
    extra["deck_note"] += (
        " Rest-final rule (wire.md section 6b): both hello nonces announce feature mask "
        "00000002 (bit 1, the rest-final rule; not resignation, not early cards); "
        "from the moment 'my rest' decides the hand "
        "(pending with rest_refused 'game', or accepted) no pre-deal message is owed, so "
        "hand 1, where the non-dealer's v2deck3 says 'rest' and the dealer accepts, has no "
        "pre-deal of hand 2 on the chain."
    )
    return layout(play, extra, result)


def early_redeal() -> dict[str, Any]:
    play, extra, result = scripted(
        "v2/early-redeal/", True, True, PIPELINED_RULESET, pipelined_choice, (4, 4),
        Features(early_redeal=True),
    )  # fmt: skip
    extra["deck_note"] += (
        " Early redeal cards (wire.md section 6a): both hello nonces announce feature mask "
        "00000004 (bit 2, early redeal cards; not resignation, not the rest-final rule). "
        "Right after the dealer's accept-redeal (which carries its shares for positions 6, "
        "8, 10) the non-dealer sends v2redeal {shares}: its shares for the dealer's positions "
        "7, 9, 11, so the dealer holds its redealt cards before the non-dealer decides; the "
        "non-dealer's next action (after any pre-deal message it owes) carries no shares."
    )
    return {**layout(play, extra, result), "early_redeal": True}
