"""The page's ``Side`` (one session of the page, fed bytes and clicks) on a new link
whose first message is not a valid resume (wire.md 13.1): the connection is refused,
not the game; the page links again, as the desktop program does (interop case
``wire-13.1-answer-bad-clock-left``, seen failing in the page before)."""

from __future__ import annotations

from helpers.protocol import P0, P1, Pair

from truc_p2p.page._side import Side
from truc_p2p.ui import TableFeed


def _reconnecting_side(condemned: list[str] | None) -> Side:
    pair = Pair(tag="page-side", deck="v2", bots={P0: None})
    pair.run_to_turn(P0)  # the game is under way: P1 waits for P0
    session = pair.sessions[P1]
    ended: list[object] = []
    side = Side(
        session,
        TableFeed("bob"),
        send=lambda data: None,
        ended=ended.append,
        condemned=None if condemned is None else condemned.append,
    )
    session.reconnect(b"h" * 16, dialer=False)
    assert session.reconnecting
    return side


def test_a_refused_resume_condemns_the_link_not_the_game() -> None:
    condemned: list[str] = []
    side = _reconnecting_side(condemned)
    side.data(b"\x00\x00\x00\x05hello")  # a frame that is no resume
    assert len(condemned) == 1 and condemned[0]
    assert side.outcome is None
    assert side.session.resumable  # the next link can still resume the game


def test_without_a_way_to_link_again_the_refusal_ends_the_game() -> None:
    side = _reconnecting_side(None)
    side.data(b"\x00\x00\x00\x05hello")
    assert side.outcome is not None
