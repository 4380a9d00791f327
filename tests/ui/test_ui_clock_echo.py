"""One clock on both screens (issue 43), as the table model keeps it: every move starts
the next one's clock, also when its player keeps the turn; the clock stops with the link
and goes on after the resume; and a move typed while the opponent is away is said at
once ("you play 7♠ (sent as soon as bob is back)")."""

from __future__ import annotations

import io

from test_ui_table import ME, OPP, Clock, cards, model_after_deal, started

from truc_p2p.net import PeerDisconnected, PeerReconnected
from truc_p2p.protocol import CardsDealt
from truc_p2p.rules import Acted, Action, Card
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer


def test_a_player_who_keeps_the_turn_has_the_full_time_again() -> None:
    clock = Clock()
    model = model_after_deal(clock)
    clock.t += 100
    assert model.seconds_left() == 200  # bob, first to act, thinks for 100 s
    # bob raises; alice accepts at once; bob, to act again, has his whole time
    model.acted(Acted(player=OPP, action=Action.RAISE))
    clock.t += 30
    assert model.seconds_left() == 270
    model.acted(Acted(player=ME, action=Action.ACCEPT))
    assert model.seconds_left() == 300  # bob again: a new move, a new clock
    clock.t += 10
    model.acted(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    clock.t += 5
    model.acted(Acted(player=ME, action=Action.play(Card.from_str("AD"))))
    assert model.game is not None and model.game.to_act is ME  # alice won the trick
    clock.t += 3
    assert model.seconds_left() == 297  # alice won the trick and leads: from 300


def test_the_clock_stops_with_the_link_and_goes_on_after_the_resume() -> None:
    clock = Clock()
    model = model_after_deal(clock)
    clock.t += 40
    model.feed(PeerDisconnected(reason="reset", seconds_left=120, grace=120))
    clock.t += 60  # the opponent is away: its clock does not run (wire.md 13.5)
    model.feed(PeerDisconnected(reason="reset", seconds_left=60, grace=120))  # countdown
    clock.t += 30
    assert model.seconds_left() == 260
    model.feed(PeerReconnected(after=90.0, resent=0, received_again=0))
    assert model.seconds_left() == 260
    clock.t += 10
    assert model.seconds_left() == 250
    # after a restart no clock survives: the move due has its whole time again
    model.feed(PeerDisconnected(reason="reset", seconds_left=120, grace=120))
    clock.t += 5
    model.feed(PeerReconnected(after=5.0, resent=0, received_again=0, we_came_back=True))
    assert model.seconds_left() == 300


async def test_a_move_typed_while_the_opponent_is_away_is_said_at_once() -> None:
    out = io.StringIO()
    ui = TerminalPlayer(ScriptedLines(["1"]), "alice", out=out, confirm_quit=False)
    ui(started(first_dealer=ME))
    ui(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
    ui(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    ui(PeerDisconnected(reason="reset", seconds_left=60, grace=60))
    game = ui.model.game
    assert game is not None
    chosen = await ui.choose(game.copy(), tuple(game.legal_actions()))
    assert chosen == Action.play(Card.from_str("7S"))
    assert "   you play 7♠ (sent as soon as bob is back)\n" in out.getvalue()
    # once bob is back, a move is only told when it goes (the Acted line)
    ui(PeerReconnected(after=3.0, resent=0, received_again=0))
    out.truncate(0)
    game = ui.model.game
    assert game is not None
    ui.lines = ScriptedLines(["1"])
    await ui.choose(game.copy(), tuple(game.legal_actions()))
    assert "sent as soon as" not in out.getvalue()
