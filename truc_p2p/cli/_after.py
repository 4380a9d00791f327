"""What follows a game: its end on the screen and in the last lines, the match it
counts in (its record, the words for it) and whether another game follows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import trio

from truc_p2p.cli._game_args import GameOptions
from truc_p2p.cli._run import print_outcome
from truc_p2p.cli._web import show_web_result
from truc_p2p.history import MatchRecord
from truc_p2p.i18n import _
from truc_p2p.net import End, GameOutcome, conceded
from truc_p2p.rules import Player
from truc_p2p.transcript import verify_transcript_file
from truc_p2p.ui import Screen, TerminalPlayer, Voice, WebPlayer

__all__ = [
    "after_game",
    "left_the_page",
    "match_meta",
    "match_so_far",
    "stored_match",
    "tell_match_cost",
]


def left_the_page(player: object) -> bool:
    """Whether the player left from the web page (not Ctrl-C)."""
    return isinstance(player, Screen) and player.leave is not None and player.leave.is_set()


def stored_match(meta: dict[str, Any], path: Path) -> MatchRecord | None:
    """The match a resumed game belongs to, as stored beside it (``None``: no match)."""
    if not isinstance(meta.get("match"), dict):
        return None
    try:
        return MatchRecord.from_json(meta["match"], folder=path.parent)
    except ValueError as exc:
        print(
            "truc-p2p resume: " + _("{reason}; the match does not go on", reason=exc),
            file=sys.stderr,
        )
        return None


def match_so_far(player: object, record: MatchRecord | None, me: Player) -> None:
    """A resumed game of a match: the screen shows the match score before it, as the
    game started (``new_game`` with the match line)."""
    if record is None or not record.is_match or not record.played or not record.players:
        return
    names = {p: record.players[p]["name"] for p in Player}
    line = _match_words(me, names, record)
    if isinstance(player, Screen):
        player.new_game(line)
    if isinstance(player, TerminalPlayer):
        player.show_match(line)


def match_meta(record: MatchRecord, opts: GameOptions) -> dict[str, Any]:
    """What ``resume`` needs to go on with a match after the game it resumes: the
    match so far and the command line that started it."""
    if not record.is_match:
        return {}
    return {"match": record.to_json(), "argv": list(opts.argv)}


def tell_match_cost(player: object, record: MatchRecord) -> None:
    """In a match, the leave question (the terminal's, the web table's) says what leaving
    the match costs and offers to concede only the game in play."""
    if not isinstance(player, TerminalPlayer | WebPlayer) or not record.is_match:
        return

    def cost() -> tuple[str, str]:
        me = player.model.me
        wins = dict(record.wins)
        wins[me.other] += 1  # the game in play, given up
        voice = Voice({me: _("you"), me.other: player.model.opp_name}, me)
        return player.model.opp_name, voice.score(wins)

    player.match_cost = cost


async def after_game(
    player: object,
    outcome: GameOutcome,
    record: MatchRecord,
    opts: GameOptions,
    stop: trio.Event,
    *,
    ask: bool = True,
    bot_again: bool = False,
) -> bool:
    """Show the end of a game, count it in the match, and say whether another game
    follows: the next game of a match not yet won, or a rematch the player asks for
    (``y``/Enter at the terminal, "play again" on the web table; only when ``ask``;
    ``bot_again``: a bot asks for it, ``join --bot --rematches N``)."""
    await show_web_result(player, outcome)
    print_outcome(outcome, as_json=opts.screen.json, quiet=opts.screen.quiet)
    if not outcome.complete or outcome.game_id is None:
        return False
    resignation = outcome.resignation
    # conceding one game of a match plays the next (wire.md 4.1); any other
    # resignation, Ctrl-C's included, leaves the match
    goes_on = resignation is not None and conceded(resignation.detail) and not stop.is_set()
    if outcome.end in (End.QUIT, End.RESIGNED) and not (record.is_match and goes_on):
        # we left: no "play again?", match or not
        _resigned_match(player, outcome, record)
        if record.is_match and outcome.end is End.RESIGNED:
            await _record_left(outcome, record, opts)
        return False
    if stop.is_set():
        return False
    me = outcome.me
    linked = await trio.to_thread.run_sync(_linked_game, outcome)
    if linked is None:
        print("truc-p2p: " + _("this game cannot be linked to another"), file=sys.stderr)
        return False
    record.add(**linked)
    if record.is_match and resignation is not None and not goes_on and record.winner is None:
        record.left = resignation.by  # the opponent resigned and left the match
    names = {p: record.players[p]["name"] for p in Player}
    voice = Voice({me: _("you"), me.other: names[me.other] or _("opponent")}, me)
    match_line = None
    if record.is_match:
        try:
            where = record.write()
        except OSError as exc:
            print(
                "truc-p2p: " + _("cannot write the match record: {reason}", reason=exc),
                file=sys.stderr,
            )
            where = None
        match_line = voice.match_score(record.wins, games=record.games)
        winner = record.winner
        shown = voice.match_won(winner, record.wins) if winner is not None else match_line
        # the one who resigned has left the match: both ends say it is over
        left = record.left is not None
        if left and outcome.resignation is not None:
            shown = voice.match_resigned(outcome.resignation.by, record.wins)
        if isinstance(player, Screen):
            player.show_match(shown, lambda: _match_words(me, names, record, left=left))
        if not opts.screen.json:
            if not isinstance(player, TerminalPlayer):
                print(shown, flush=True)
            if where is not None and (winner is not None or left):
                print(_("match record: {path}", path=where), flush=True)
                print(
                    _("verify it with: {command}", command=f"truc-p2p verify --match {where}"),
                    flush=True,
                )
        if winner is not None or left:
            return False
        # the web end screen stays until "next game" (the terminal goes straight on)
        if isinstance(player, WebPlayer) and not await player.ask_again(next_game=True):
            return False
    else:
        if outcome.end is End.OPPONENT_RESIGNED:
            return False  # a resignation leaves the table: nobody to play again with
        # a bot plays on as a person answering y would; a person is asked
        if not bot_again and not (ask and isinstance(player, Screen) and await player.ask_again()):
            return False
    if isinstance(player, Screen):
        player.new_game(match_line)
    return True


async def _record_left(outcome: GameOutcome, record: MatchRecord, opts: GameOptions) -> None:
    """We resigned a game of a match and left it: our match record keeps that game and
    says we left (``games`` shows the match finished, as the opponent's does)."""
    resignation = outcome.resignation
    if resignation is None or record.winner is not None:
        return
    linked = await trio.to_thread.run_sync(_linked_game, outcome)
    if linked is None:
        return
    record.add(**linked)
    if record.winner is None:  # else this game won the match for the opponent anyway
        record.left = resignation.by
    try:
        where = record.write()
    except OSError as exc:
        print(
            "truc-p2p: " + _("cannot write the match record: {reason}", reason=exc),
            file=sys.stderr,
        )
        where = None
    if where is not None and not opts.screen.json:
        print(_("match record: {path}", path=where), flush=True)


def _resigned_match(player: object, outcome: GameOutcome, record: MatchRecord) -> None:
    """We resigned a game of a match and leave it: our end screen says the match is
    over, as the opponent's does (the games score counts this game)."""
    resignation = outcome.resignation
    if not record.is_match or resignation is None or record.winner is not None:
        return
    me = outcome.me
    wins = dict(record.wins)
    wins[resignation.winner] += 1
    peer = outcome.names[me.other] or _("opponent")

    def line() -> str:
        return Voice({me: _("you"), me.other: peer}, me).match_resigned(resignation.by, wins)

    if isinstance(player, Screen):
        player.show_match(line(), line)
    else:  # the terminal too: every road out of a match says how it ended
        print(line(), flush=True)


def _match_words(
    me: Player, names: dict[Player, Any], record: MatchRecord, *, left: bool = False
) -> str:
    """The match line of the end screen, in the language in use (``left``: the
    opponent resigned and left the match)."""
    voice = Voice({me: _("you"), me.other: names[me.other] or _("opponent")}, me)
    if left:
        return voice.match_resigned(me.other, record.wins)
    if record.winner is not None:
        return voice.match_won(record.winner, record.wins)
    return voice.match_score(record.wins, games=record.games)


def _linked_game(outcome: GameOutcome) -> dict[str, Any] | None:
    """What a match record keeps of a finished game, from its transcript when there is
    one (a resumed game's outcome may not know who dealt first), else the outcome."""
    path = outcome.transcript
    if path is not None:
        try:
            _scan, report = verify_transcript_file(path, torn=False)
        except (OSError, ValueError):
            return None
        if report.game_id is None or report.first_dealer is None or len(report.players) != 2:
            return None
        return {
            "game_id": bytes.fromhex(report.game_id),
            "first_dealer": Player(report.first_dealer),
            "winner": Player(report.winner) if report.winner is not None else None,
            "transcript": path,
            "names": (report.players[0].name, report.players[1].name),
            "fingerprints": (report.players[0].fingerprint, report.players[1].fingerprint),
        }
    if outcome.first_dealer is None or outcome.game_id is None:
        return None
    if outcome.fingerprint is None or outcome.peer_fingerprint is None:
        return None
    me = outcome.me
    fps = {me: outcome.fingerprint, me.other: outcome.peer_fingerprint}
    names = {p: outcome.names[p] or "" for p in Player}
    return {
        "game_id": outcome.game_id,
        "first_dealer": outcome.first_dealer,
        "winner": outcome.winner,
        "transcript": None,
        "names": (names[Player.P0], names[Player.P1]),
        "fingerprints": (fps[Player.P0], fps[Player.P1]),
    }
