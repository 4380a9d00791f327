"""The browser player without a browser: what a view is encoded as, the buttons for
the legal actions, the page's answers, the disconnection countdown, and a whole game
in which the page never sees a secret or an unplayed card of the opponent."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from helpers.web import RaisingBot, derive

from truc_p2p.cli._web import final_message
from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    End,
    PeerDisconnected,
    PeerReconnected,
    PlayOptions,
    QuitGame,
    Storage,
    play_game,
    prepare_game,
)
from truc_p2p.protocol import CardsDealt, SessionOptions
from truc_p2p.rules import Acted, Action, Card, Game, Player, Ruleset
from truc_p2p.ui._web import WebPlayer, action_buttons, card_json, table_state


def cards(*texts: str) -> list[Card]:
    return [Card.from_str(t) for t in texts]


class Recorder:
    """A page that only records what it is sent."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def publish(self, message: dict[str, Any]) -> None:
        json.dumps(message)  # every message must be JSON
        self.messages.append(message)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


def test_card_json_colours() -> None:
    assert card_json(Card.from_str("10H")) == {
        "card": "10H",
        "rank": "10",
        "suit": "H",
        "symbol": "♥",
        "red": True,
        "name": "ten of hearts",  # what a screen reader says
    }
    assert card_json(Card.from_str("7S"))["red"] is False
    assert card_json(Card.from_str("QC"))["name"] == "queen of clubs"
    assert card_json(Card.from_str("AD"))["red"] is True


def test_view_of_the_player_to_act_has_keys_and_buttons() -> None:
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: cards("7S", "9H", "AD")})
    legal = tuple(game.legal_actions())
    state = table_state(game, Player.P0, legal=legal, turn=4)
    assert [(c["card"], c["key"], c["action"]) for c in state["hand"]] == [
        ("7S", "1", "play 7S"),
        ("9H", "2", "play 9H"),
        ("AD", "3", "play AD"),
    ]
    assert [(b["kind"], b["key"]) for b in state["buttons"]] == [
        ("raise", "r"),
        ("rest", "m"),
        ("redeal", "d"),
        ("fold", "f"),
    ]
    assert state["buttons"][0]["label"] == "“2 more?” (to 2)"
    assert state["turn"] == 4 and state["to_act"] == "me"
    assert state["dealer"] == "opp" and state["leader"] == "me"
    assert state["opp_cards"] == 3 and state["scores"] == {"me": 0, "opp": 0}
    # not our turn: same cards, nothing to click
    idle = table_state(game, Player.P0)
    assert idle["turn"] is None and idle["buttons"] == []
    assert all(c["action"] is None and c["key"] is None for c in idle["hand"])


def test_answer_buttons_come_first_for_a_pending_raise() -> None:
    game = Game(first_dealer=Player.P0, view=Player.P0)
    game.deal({Player.P0: cards("8C", "KH", "JD")})
    game.push(Action.RAISE, player=Player.P1)  # the opponent asks "2 more?"
    legal = tuple(game.legal_actions())
    state = table_state(game, Player.P0, legal=legal, turn=1)
    assert state["pending"] == {
        "kind": "raise",
        "by": "opp",
        "to": 2,
        "text": "opponent asks “2 more?” (to 2)",
    }
    costs = {b["kind"]: b["cost"] for b in state["buttons"]}
    assert costs == {
        "accept": "the hand is worth 2",
        "refuse": "opponent scores 1 point now",
        "fold": "opponent scores 1 point now",
    }
    assert [(b["action"], b["key"]) for b in state["buttons"]] == [
        ("accept", "a"),
        ("refuse", "x"),
        ("fold", "f"),
    ]
    assert all(c["action"] is None for c in state["hand"])  # answer first
    assert [b["action"] for b in action_buttons(game, legal)] == ["accept", "refuse", "fold"]


def test_view_never_holds_the_opponents_hand() -> None:
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: cards("7S", "9H", "AD")})
    game.push(Action.play(Card.from_str("9H")), player=Player.P0)
    game.push(Action.play(Card.from_str("KC")), player=Player.P1)
    state = table_state(game, Player.P0)
    text = json.dumps(state)
    shown = {c["card"] for t in state["tricks"] for c in t["cards"]} | {
        c["card"] for c in state["hand"]
    }
    assert shown == {"7S", "9H", "AD", "KC"}
    assert state["tricks"] == [
        {
            "winner": "opp",
            "cards": [
                {"by": "me", **card_json(Card.from_str("9H"))},
                {"by": "opp", **card_json(Card.from_str("KC"))},
            ],
        }
    ]
    assert state["opp_cards"] == 2 and "P1" not in text


async def test_choose_waits_for_a_legal_click_of_this_turn() -> None:
    page = Recorder()
    player = WebPlayer("alice", move_seconds=60)
    player.publisher = page
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: cards("7S", "9H", "AD")})
    legal = tuple(game.legal_actions())
    chosen: list[Action] = []
    async with trio.open_nursery() as nursery:

        async def choose() -> None:
            chosen.append(await player.choose(game, legal))

        nursery.start_soon(choose)
        await trio.testing.wait_all_tasks_blocked()
        table = page.of("state")[-1]["table"]
        turn = table["turn"]
        assert turn == 1 and table["buttons"]
        assert page.of("state")[-1]["seconds_left"] == pytest.approx(60, abs=1)
        player.receive({"type": "act", "turn": turn + 1, "action": "play 7S"})  # stale
        player.receive({"type": "act", "turn": turn, "action": "play KC"})  # not held
        player.receive({"type": "act", "turn": turn, "action": "accept"})  # nothing pending
        player.receive({"type": "act", "turn": turn, "action": 7})  # not text
        player.receive({"type": "hello"})  # unknown: ignored
        await trio.testing.wait_all_tasks_blocked()
        assert chosen == []
        assert len(page.of("notice")) == 4
        player.receive({"type": "act", "turn": turn, "action": "play 9H"})
    assert chosen == [Action.play(Card.from_str("9H"))]
    after = page.of("state")[-1]["table"]
    assert after["turn"] is None and after["buttons"] == []
    player.receive({"type": "act", "turn": turn, "action": "play 7S"})  # too late
    assert len(page.of("notice")) == 5


async def test_quit_from_the_page_leaves_the_game() -> None:
    player = WebPlayer("alice")
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: cards("7S", "9H", "AD")})
    raised: list[BaseException] = []

    async def choose() -> None:
        try:
            await player.choose(game, tuple(game.legal_actions()))
        except QuitGame as exc:
            raised.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(choose)
        await trio.testing.wait_all_tasks_blocked()
        player.receive({"type": "quit", "turn": 1})
    assert len(raised) == 1


async def test_disconnection_countdown(autojump_clock: trio.testing.MockClock) -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player.on_disconnect(30.0)
    assert page.messages[-1] == {"type": "peer_disconnected", "seconds_left": 30.0}
    await trio.sleep(10)
    # a page that connects now sees the countdown where it is
    late = [m for m in player.snapshot() if m["type"] == "peer_disconnected"]
    assert late == [{"type": "peer_disconnected", "seconds_left": pytest.approx(20.0)}]
    player.on_reconnect()
    assert page.messages[-1] == {"type": "peer_reconnected"}
    assert not [m for m in player.snapshot() if m["type"] == "peer_disconnected"]


async def test_a_lost_and_restored_link_is_told_in_the_log_as_the_terminal_tells_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player(PeerDisconnected(reason="eof", seconds_left=120.0, grace=120.0))
    assert page.of("peer_disconnected")
    player(PeerReconnected(after=7.74, resent=0, received_again=0))
    assert page.of("peer_reconnected")
    texts = [m["text"] for m in page.of("log")]
    assert any(t.startswith("connection to ") and "120 s" in t for t in texts), texts
    assert any(t.endswith("is back after 7.7 s; play goes on") for t in texts), texts
    came_back = Recorder()
    resumed = WebPlayer("alice")
    resumed.publisher = came_back
    resumed(PeerReconnected(after=0.0, resent=0, received_again=0, we_came_back=True))
    assert any(m["text"].startswith("back at the table with") for m in came_back.of("log")), (
        came_back.messages
    )


def test_unknown_events_are_ignored() -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player(object())  # e.g. a network event this page does not know yet
    player(Acted(player=Player.P1, action=Action.RAISE))  # before the game started
    player(
        CardsDealt(round_no=0, dealer=Player.P0, cards=tuple(cards("7S", "9H", "AD")), redeal=False)
    )
    assert page.of("state") and page.of("state")[-1]["table"] is None


async def test_a_whole_game_shows_no_secret_and_no_unplayed_opponent_card(
    tmp_path: Path,
) -> None:
    """A scripted page plays a game; every message it got is checked afterwards."""
    player = WebPlayer("alice", move_seconds=300)
    events: list[object] = []

    class Page(Recorder):
        def publish(self, message: dict[str, Any]) -> None:
            super().publish(message)
            table = message.get("table") if message["type"] == "state" else None
            if table and table["turn"] is not None:
                first = next((c["action"] for c in table["hand"] if c["action"]), None)
                action = first or table["buttons"][0]["action"]
                player.receive({"type": "act", "turn": table["turn"], "action": action})

    page = Page()
    player.publisher = page
    mine = prepare_game(
        identity=SigningKey.from_bytes(derive(5, Player.P0, "key")),
        role=Player.P0,
        transcript=tmp_path / "alice.truc",
        storage=Storage(fsync=False),
        options=SessionOptions(ruleset=Ruleset(target=3), name="alice"),
    )
    secret = (tmp_path / "alice.truc.secret").read_bytes()
    theirs = prepare_game(
        identity=SigningKey.from_bytes(derive(5, Player.P1, "key")),
        role=Player.P1,
        transcript=None,
        secret=derive(5, Player.P1, "secret"),
        options=SessionOptions(ruleset=Ruleset(target=3), name="bot"),
    )

    def hook(event: object) -> None:
        events.append(event)
        player(event)  # type: ignore[arg-type]

    a, b = trio.testing.memory_stream_pair()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_game, b, theirs.session, RaisingBot(5))
            outcome = await play_game(a, mine.session, player, PlayOptions(on_event=hook))
    mine.close()
    assert outcome.end is End.FINISHED
    final = final_message(replace(outcome, transcript=tmp_path / "alice.truc"))
    player.finish(final)
    assert final["cosigned"] is True and final["verdict"]["valid"] is True
    assert final["transcript"] == str(tmp_path / "alice.truc")
    # the headline, score and co-signed line say who won: the message does not repeat it
    assert outcome.result is not None
    n = outcome.result.hands
    assert final["message"] == (f"{n} hand played" if n == 1 else f"{n} hands played")
    assert page.of("final")[-1]["type"] == "final"

    everything = json.dumps(page.messages, ensure_ascii=False)
    for hidden in (secret, derive(5, Player.P1, "secret")):
        assert hidden.hex() not in everything
    mine_dealt = {str(c) for e in events if isinstance(e, CardsDealt) for c in e.cards}
    opp_played = {
        str(e.action.card)
        for e in events
        if isinstance(e, Acted) and e.player is Player.P1 and e.action.card is not None
    }
    shown = {m["card"] for m in _walk(page.messages) if "card" in m}
    assert shown <= mine_dealt | opp_played
    assert opp_played <= shown  # the opponent's moves were shown

    # the language menu tells the log again: the very same lines in the same language...
    said = [m["text"] for m in page.of("log")][-40:]
    last_round = page.of("state")[-1]["last_round"]["text"]
    player.switch_language("en")
    assert [m["text"] for m in page.of("log_all")[-1]["lines"]] == said
    # ...and every one of them in French after a switch, the hand's result too
    player.switch_language("fr")
    french = [m["text"] for m in page.of("log_all")[-1]["lines"]]
    assert len(french) == len(said)
    # each deal's line, as the terminal says it ("hand 2, bob deals: you get ...")
    hands = [m[1] for t in said if (m := re.match(r"hand (\d+), ", t))]
    in_french = [m[1] for t in french if (m := re.match(r"main (\d+), ", t))]
    assert hands and in_french == hands
    assert sum(e != f for e, f in zip(said, french, strict=True)) >= len(said) - 2
    assert page.of("state")[-1]["last_round"]["text"] != last_round
    assert [m["text"] for m in player.snapshot() if m["type"] == "log"] == french


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


async def test_leaving_while_the_opponent_thinks_sets_the_leave_event() -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player.receive({"type": "quit", "turn": None})  # no command wired it: refused
    assert page.of("notice")[-1]["text"] == "that is not possible now"
    player.leave = trio.Event()
    player.receive({"type": "quit", "turn": None})
    assert player.leave.is_set()
    assert "leaving" in page.of("notice")[-1]["text"]


def test_snapshot_brings_the_page_texts_and_the_hosts_invite() -> None:
    player = WebPlayer("alice", move_seconds=300)
    invite = "truc://127.0.0.1:4455/?fp=" + "0" * 64
    player.invite(invite, "host with --relay HOST:PORT")
    messages = player.snapshot()
    texts = messages[0]
    assert texts["type"] == "texts"
    # every fixed text of the page comes from here (a catalog can translate it)
    assert texts["copy"] == "copy" and "Keys:" in texts["help"]
    assert texts["not_now"]["a"] == "nothing to accept now"
    assert all(
        isinstance(v, str) and v
        for k, v in texts.items()
        if k not in ("not_now", "languages", "levels", "card_names", "opp_cards", "variants")
    )
    # the longer games' variants (issue 42): a code, a name and its one line each
    assert [v["code"] for v in texts["variants"]] and all(
        v["name"] and v["text"] for v in texts["variants"]
    )
    # "bob holds 1 card", "bob holds 2 cards": one form per count a hand may hold
    assert texts["opp_cards"][1] == "{name} holds 1 card" and len(texts["opp_cards"]) == 4
    shown = messages[1]
    assert shown["type"] == "invite" and shown["text"] == invite
    assert shown["hint"] == "host with --relay HOST:PORT"
    assert "qr" not in shown  # a truc:// address no phone camera opens
    state = messages[2]
    assert state["type"] == "state" and state["table"] is None
    assert state["status_template"] is None
    assert state["texts"]["leave_confirm"] == "Stop and leave? No game has started yet."
    # the clock of every move is said before the game, as the terminal says it
    assert state["clock_note"] == "you have 5 minutes for each move; the clock shows what is left"
    assert WebPlayer("alice").state()["clock_note"] is None


def test_the_clock_of_each_move_is_in_the_log_at_the_start_and_in_french_after() -> None:
    page = Recorder()
    player = WebPlayer("alice", move_seconds=90)
    player.publisher = page
    player(_started())
    said = [m["text"] for m in page.of("log")]
    assert said[1] == "you have 90 seconds for each move; the clock shows what is left"
    player.switch_language("fr")
    try:
        again = [m["text"] for m in page.of("log_all")[-1]["lines"]]
        assert "90 secondes" in again[1] and "90 secondes" in player.state()["clock_note"]
    finally:
        player.switch_language("en")


def test_the_end_screen_is_told_again_in_a_new_language(tmp_path: Path) -> None:
    """Headline, outcome, verdict and match line of the end screen follow the page's
    language menu after the game; what the player chose there (again, level) stays."""
    from truc_p2p.cli._common import transcript_report
    from truc_p2p.net import GameOutcome
    from truc_p2p.ui._voice import Voice

    player = WebPlayer("alice")
    page = Recorder()
    player.publisher = page
    me = Player.P0
    broken = tmp_path / "broken.truc"
    broken.write_bytes(b"not a transcript")
    outcome = GameOutcome.told(
        End.RESIGNED,
        "resigned",
        {"hand": 2, "peer": "bob", "me": "alice", "my_score": 3, "peer_score": 5},
        me=me,
        names=("alice", "bob"),
        scores=(3, 5),
        hands=2,
        transcript=broken,
    )
    report = transcript_report(broken)
    player.finish(final_message(outcome, report), retell=lambda: final_message(outcome, report))
    wins = {Player.P0: 0, Player.P1: 1}

    def match() -> str:
        return Voice({me: "you", me.other: "bob"}, me).match_score(wins, games=3)

    player.show_match(match(), match)
    player._final["again"] = True  # type: ignore[index]  # the player asked for another
    english = page.of("final")[-1]
    assert english["message"].startswith("you resigned in hand 2; bob wins")
    assert english["headline"] == "bob won: you resigned in hand 2"
    assert english["score_line"] == "points when you resigned: you 3 – bob 5"
    assert english["match_line"].startswith("match: ")
    player.switch_language("fr")
    french = page.of("final")[-1]
    assert french is not english and french["again"] is True
    assert french["message"].startswith("vous avez abandonné à la main 2\u00a0; bob gagne")
    for key in ("headline", "cosigned_line", "match_line", "score_line"):
        assert french[key] != english[key], key
    assert french["verdict"]["line"] != english["verdict"]["line"]
    assert french["verdict"]["status"] == english["verdict"]["status"] == "unreadable"
    assert player.match_line == french["match_line"]
    assert [m for m in player.snapshot() if m["type"] == "final"] == [french]
    player.switch_language("en")
    assert page.of("final")[-1] == {**english, "again": True}


async def test_a_click_from_the_last_game_is_stale_in_the_next() -> None:
    """Turns go on counting over a rematch: the page's move names the set of choices
    it was shown, and game 1's turn 1 never plays game 2's turn 1."""
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    for game_no in range(2):
        game = Game(first_dealer=Player.P1, view=Player.P0)
        game.deal({Player.P0: cards("7S", "9H", "AD")})
        chosen: list[Action] = []
        async with trio.open_nursery() as nursery:

            async def choose(game: Game = game, chosen: list[Action] = chosen) -> None:
                chosen.append(await player.choose(game, tuple(game.legal_actions())))

            nursery.start_soon(choose)
            await trio.testing.wait_all_tasks_blocked()
            turn = page.of("state")[-1]["table"]["turn"]
            assert turn == game_no + 1
            if game_no == 1:
                player.receive({"type": "act", "turn": 1, "action": "play 7S"})  # game 1's
                await trio.testing.wait_all_tasks_blocked()
                assert chosen == [] and page.of("notice")[-1]["text"] == "that is not possible now"
            player.receive({"type": "act", "turn": turn, "action": "play 9H"})
        assert chosen == [Action.play(Card.from_str("9H"))]
        player.new_game()


def _started() -> object:
    from truc_p2p.protocol import GameStarted

    return GameStarted(
        game_id=bytes(32),
        me=Player.P0,
        peer_name="bob",
        peer_fingerprint="ab" * 32,
        ruleset=Ruleset(target=3),
        audit="game",
        first_dealer=Player.P0,
        deck="v2",
    )


def test_each_game_of_a_match_has_its_heading_in_the_log_and_on_the_table() -> None:
    """Game 1 of a match says so; the next game's lines start under their own heading
    (told again after a change of language); a lone game has no heading."""
    page = Recorder()
    player = WebPlayer("alice", match_games=3)
    player.publisher = page
    assert player.state()["game_line"] == "game 1 of 3"
    player(_started())
    player.new_game("match: you 1 – bob 0 (first to win 2 of 3 games)")
    assert player.state()["game_line"] == "game 2 of 3"
    player(_started())
    headings = [m["text"] for m in page.of("log") if m["who"] == "game"]
    assert headings == ["game 1 of 3", "game 2 of 3"]
    player.switch_language("fr")
    again = page.of("log_all")[-1]["lines"]
    told = [m["text"] for m in again if m["who"] == "game"]
    assert told == ["partie 1 sur 3", "partie 2 sur 3"]
    player.switch_language("en")
    single = WebPlayer("alice")
    single.publisher = Recorder()
    single(_started())
    assert single.state()["game_line"] is None
    single.new_game()
    assert single.state()["game_line"] == "game 2"


def test_card_faces_print_the_ranks_of_the_players_cards() -> None:
    from truc_p2p.i18n import speaking

    queen = Card.from_str("QH")
    assert card_json(queen)["rank"] == "Q"
    with speaking("fr"):
        assert card_json(queen)["rank"] == "D"  # as the log says it: "Bernat joue D♥"
        assert card_json(Card.from_str("10H"))["rank"] == "10"
