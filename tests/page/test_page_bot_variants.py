"""The home screen's variants of a game against the bot (issue 42): "refused 'my
rest' scores the hand" sets both sessions' ruleset, "best of 3" plays a match of
three games counted as a match with a peer (page/_series.py), each game its own
verified transcript, the end panel offering "next game" and saying the match line."""

from __future__ import annotations

from helpers.page import PagePlayer, new_app

from truc_p2p.page._games import BotGame
from truc_p2p.protocol import verify_transcript
from truc_p2p.rules import Player, RestRefused


def _cards_first(actions: list[str]) -> str:
    cards = [a for a in actions if a.startswith("play")]
    return cards[0] if cards else sorted(actions)[0]


def _play_to_the_end(player: PagePlayer, limit: int = 3000) -> None:
    for _ in range(limit):
        if player.final is not None:
            return
        assert player.step(0.0), "the table offers nothing and the game is not over"
    raise AssertionError("the game did not end")


def _bot_game(variants: object, level: str = "easy") -> PagePlayer:
    player = PagePlayer(new_app(), pick=_cards_first)
    player.call({"type": "hello", "lang": "en"}, 0.0)
    player.call({"type": "bot", "level": level, "variants": variants}, 0.0)
    return player


def _bot(player: PagePlayer) -> BotGame:
    game = player.app.game
    assert isinstance(game, BotGame)
    return game


def test_the_table_texts_carry_the_variants_the_home_screen_offers() -> None:
    player = _bot_game([])
    texts = player.texts("texts")[-1]
    assert [v["code"] for v in texts["variants"]] == ["value", "best3"]
    assert all(v["name"] and v["text"] for v in texts["variants"])


def test_value_sets_both_sessions_ruleset() -> None:
    player = _bot_game(["value"])
    game = _bot(player)
    assert game.side.session.game.ruleset.rest_refused is RestRefused.VALUE
    assert game._peer.game.ruleset.rest_refused is RestRefused.VALUE
    assert player.state is not None and player.state["game_line"] is None  # one game
    _play_to_the_end(player)
    report = verify_transcript(player.app.envelopes)
    assert report.status == "complete"
    assert report.ruleset is not None and report.ruleset["rest_refused"] == "value"
    # a rematch keeps the variant
    player.call({"type": "again", "yes": True}, 0.0)
    assert _bot(player).side.session.game.ruleset.rest_refused is RestRefused.VALUE


def test_no_variant_or_unknown_ones_play_the_usual_game() -> None:
    for variants in (None, [], ["nonsense", 3], "value", {"value": 1}):
        player = _bot_game(variants)
        game = _bot(player)
        assert game.side.session.game.ruleset.rest_refused is RestRefused.GAME
        assert game.side.session.series.match == 1
        assert player.app.bot_variants == frozenset()


def test_best_of_3_plays_a_match_against_the_bot_to_its_match_line() -> None:
    player = _bot_game(["best3"])
    ids: list[bytes] = []
    finals = []
    for number in range(1, 4):
        game = _bot(player)
        session = game.side.session
        assert session.series.match == 3 and game._peer.series.match == 3
        assert session.game.ruleset.rest_refused is RestRefused.GAME  # best3 alone
        if ids:  # the next game names the last one, as with a peer (wire.md 4.1)
            assert session.series.prev == ids[-1]
        assert player.state is not None
        assert player.state["game_line"] == f"game {number} of 3"
        _play_to_the_end(player)
        assert verify_transcript(player.app.envelopes).status == "complete"
        ids.append(session.game_id)
        final = player.final
        assert final is not None and final["match_line"]
        finals.append(final)
        if final["again"] != "next":
            break
        assert final["level"] is None  # no change of level inside a match
        player.call({"type": "again", "yes": True}, 0.0)
    last = finals[-1]["match_line"]
    assert last.startswith("match over: ") and 2 <= len(finals) <= 3
    assert all(f["again"] == "next" for f in finals[:-1])
    wins = player.app._linked.wins if player.app._linked else {}
    assert max(wins.values()) == 2 and sum(wins.values()) == len(finals)
    # the match over, "play again" starts a new match of 3
    assert finals[-1]["again"] is True
    player.call({"type": "again", "yes": True}, 0.0)
    assert player.state is not None and player.state["game_line"] == "game 1 of 3"
    assert _bot(player).side.session.series.prev is None
    assert player.app._linked is not None and player.app._linked.wins == dict.fromkeys(Player, 0)


def test_both_variants_together() -> None:
    player = _bot_game(["best3", "value"])
    game = _bot(player)
    assert game.side.session.game.ruleset.rest_refused is RestRefused.VALUE
    assert game.side.session.series.match == 3


def test_conceding_a_game_of_the_match_plays_the_next_one() -> None:
    """The table's "concede this game" in a match against the bot gives that game
    away and offers the next one, as in a match with a peer."""
    player = _bot_game(["best3"])
    assert player.state is not None
    turn = player.state["table"]["turn"]
    player.call({"type": "quit", "turn": turn, "concede": True}, 0.0)
    final = player.final
    assert final is not None and final["outcome"] == "resigned" and not final["won"]
    assert final["again"] == "next" and final["match_line"].startswith("match: you 0 – "), final
    player.call({"type": "again", "yes": True}, 0.0)
    assert player.state is not None and player.state["game_line"] == "game 2 of 3"
