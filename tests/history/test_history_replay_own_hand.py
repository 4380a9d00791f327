"""Issue 32: the replay of your own transcript shows your whole hand of every deal face
up, the cards you never played too, when your secret and key are beside it; without
them (or with another key) it shows only the cards you played later, and no replay
ever shows the opponent's unplayed cards."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers.cli import run
from helpers.history import P0, P1, StoryGame, key, story_game

from truc_p2p.cli._replay import render_step
from truc_p2p.history._record import public_moves, read_game
from truc_p2p.history._replay_own import own_hands
from truc_p2p.history._replay_steps import Replay, build_replay
from truc_p2p.history._replay_web import replay_json
from truc_p2p.rules import Card, Player

CARD = re.compile(r"(?<![\w])(?:10|[789JQKA])[SHDC](?![\w])")
BANNER = re.compile(r"^== hand (\d+) of (\d+) ==$")
NAMES = ("alice", "bob")


def _shown(text: str) -> dict[int, set[Card]]:
    """0-based hand -> the cards the ``--all --ascii`` replay shows in that hand (each
    hand is dealt from a new deck: a card may be anyone's in another hand)."""
    shown: dict[int, set[Card]] = {}
    hand = -1
    for line in text.splitlines():
        found = BANNER.match(line)
        if found:
            hand = int(found.group(1)) - 1
        elif hand >= 0:
            shown.setdefault(hand, set()).update(Card.from_str(c) for c in CARD.findall(line))
    return shown


def _on_page(page: dict[str, object]) -> dict[int, set[Card]]:
    """0-based hand -> the cards the page's steps of that hand hold."""
    on: dict[int, set[Card]] = {}
    for step in page["steps"]:  # type: ignore[attr-defined]
        cards = re.findall(r'"card": "(\w+)"', json.dumps(step))
        on.setdefault(step["hand"] - 1, set()).update(Card.from_str(c) for c in cards)
    return on


def _keep_key(path: Path, name: str, *, as_name: str | None = None) -> Path:
    """Write ``name``'s key and a ``.meta.json`` naming it beside ``path``, as ``join``
    does with ``--identity``; the key file."""
    key_file = path.parent / f"{as_name or name}.key"
    raw = key(name).to_bytes()
    key_file.write_bytes(raw)
    meta = {"format": 1, "role": "join", "name": name, "audit": "game", "identity": str(key_file)}
    path.with_name(path.name + ".meta.json").write_text(json.dumps(meta))
    return key_file


@pytest.fixture(params=["v2", "v1"])
def story(request: pytest.FixtureRequest, tmp_path: Path) -> StoryGame:
    game = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"}, deck=request.param)
    for p in (P0, P1):
        _keep_key(game.paths[p], NAMES[p])
    return game


def _replay(path: Path) -> Replay:
    record = read_game(path)
    return build_replay(record, ascii=True, own=own_hands(record))


def _never_played(story: StoryGame, hand: int, player: Player) -> set[Card]:
    return story.dealt[(hand, player)] - story.played.get((hand, player), set())


def test_your_own_replay_shows_your_whole_hand_from_the_deal(story: StoryGame) -> None:
    for owner in (P0, P1):
        replay = _replay(story.paths[owner])
        assert replay.voice.me is owner
        deals = [s for s in replay.steps if s.kind == "deal"]
        assert len(deals) == 4  # the redeal is a deal of its own
        for step in replay.steps:
            assert len(step.mine) == step.held["me"], step  # every card face up
            assert set(step.mine) <= story.dealt[(step.hand, owner)]
            assert not set(step.mine) & story.dealt[(step.hand, owner.other)]
        # hand 2 ended with a fold: the folded cards were never played, yet shown
        (fold_deal,) = (s for s in deals if s.hand == 1)
        assert set(fold_deal.mine) == story.dealt[(1, owner)]
        assert story.played.get((1, owner), set()) == set()
        i = replay.steps.index(fold_deal)
        text = "\n".join(render_step(replay, i))
        assert "your hand: " + " ".join(str(c) for c in fold_deal.mine) in text
        assert "did not play" not in text


def test_the_terminal_replay_shows_a_card_never_played(story: StoryGame, tmp_path: Path) -> None:
    done = run(tmp_path, "replay", "--all", "--ascii", story.paths[P0])
    assert done.returncode == 0, done.stderr
    shown = _shown(done.stdout)
    never = _never_played(story, 1, P0)
    assert never and never <= shown[1]  # the folded hand, face up
    for hand in range(3):  # bob's unplayed cards never
        assert not shown.get(hand, set()) & _never_played(story, hand, P1)
    assert "did not play" not in done.stdout


def test_without_the_secret_the_unplayed_cards_stay_face_down(
    story: StoryGame, tmp_path: Path
) -> None:
    path = story.paths[P0]
    path.with_name(path.name + ".secret").unlink()
    record = read_game(path)
    assert record.owner is P0  # the .meta.json still says whose it is
    assert own_hands(record) is None
    done = run(tmp_path, "replay", "--all", "--ascii", path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stderr == ""
    assert not _shown(done.stdout)[1] & _never_played(story, 1, P0)  # face down, as before
    assert "your hand: 3 cards you did not play" in done.stdout
    for step in build_replay(record, own=own_hands(record)).steps:
        assert set(step.mine) <= story.played.get((step.hand, P0), set())


@pytest.mark.parametrize("damage", ["other-key", "no-key", "no-meta", "bad-secret"])
def test_a_key_or_secret_that_does_not_match_falls_back_quietly(
    story: StoryGame, damage: str
) -> None:
    path = story.paths[P0]
    if damage == "other-key":
        _keep_key(path, "bob", as_name="alice")  # bob's key where alice's was
    elif damage == "no-key":
        (path.parent / "alice.key").unlink()
    elif damage == "no-meta":
        path.with_name(path.name + ".meta.json").unlink()
    else:  # a secret of the right size that is not alice's: not her transcript
        path.with_name(path.name + ".secret").write_bytes(bytes(32))
    record = read_game(path)
    assert own_hands(record) is None
    replay = build_replay(record, ascii=True, own=own_hands(record))
    for step in replay.steps:
        assert set(step.mine) <= story.played.get((step.hand, P0), set())


def test_someone_else_s_transcript_shows_none_of_their_cards(
    story: StoryGame, tmp_path: Path
) -> None:
    """Bob's transcript in alice's folder, with alice's key and meta beside it: no
    secret of bob's, or bob's secret but alice's key: nothing of bob's hand shows."""
    mine = tmp_path / "copy"
    mine.mkdir()
    copy = mine / story.paths[P1].name
    shutil.copy(story.paths[P1], copy)
    _keep_key(copy, "alice")
    for secret in (False, True):
        if secret:
            shutil.copy(story.paths[P1].with_name(copy.name + ".secret"), mine)
        record = read_game(copy)
        assert own_hands(record) is None
        replay = build_replay(record, ascii=True, own=own_hands(record))
        on_page = _on_page(replay_json(replay))
        for hand in range(3):
            assert not on_page.get(hand, set()) & _never_played(story, hand, P1)
            assert not on_page.get(hand, set()) & _never_played(story, hand, P0)


def test_the_page_json_holds_the_whole_hand(story: StoryGame) -> None:
    page = replay_json(_replay(story.paths[P0]))
    (deal,) = (s for s in page["steps"] if s["kind"] == "deal" and s["hand"] == 2)
    assert {Card.from_str(c["card"]) for c in deal["mine"]} == story.dealt[(1, P0)]
    assert deal["held"] == {"me": 3, "opp": 3}
    on_page = _on_page(page)
    assert _never_played(story, 1, P0) <= on_page[1]
    for hand in range(3):
        assert not on_page.get(hand, set()) & _never_played(story, hand, P1)


def test_a_play_game_replays_with_the_folded_hand_face_up(tmp_path: Path) -> None:
    """``truc-p2p play`` keeps the player's key (a one-off one too) and meta beside
    its transcript: folding at every turn leaves whole hands never played, and its
    replay shows them; the bot's own transcript shows none of the player's cards."""
    keys = "f\n1\na\nn\n" * 100
    done = run(tmp_path, "play", "--bot", "random", "--seed", "3", "--target", "2",
               "--out", "games", "--name", "ana", stdin=keys)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (path,) = (tmp_path / "games").glob("*.truc")
    record = read_game(path)
    own = own_hands(record)
    assert own is not None
    never: dict[int, set[Card]] = {}  # 0-based hand -> ana's cards she never played
    for deal in own:
        never.setdefault(deal.round_no, set()).update(deal.cards)
    for move in public_moves(record):
        if move.player is P0 and move.action.card is not None:
            never[move.hand].discard(move.action.card)
    assert any(never.values())  # a fold left cards of ana's never played
    replay = build_replay(record, ascii=True, own=own)
    assert all(len(s.mine) == s.held["me"] for s in replay.steps)
    shown = _shown(run(tmp_path, "replay", "--all", "--ascii", path).stdout)
    for hand, cards in never.items():
        assert cards <= shown[hand]
    (bot,) = (tmp_path / "games" / ".bot").glob("*.opponent")
    theirs = read_game(bot)
    assert theirs.owner is P1 and own_hands(theirs) is None  # no key of the bot's named
    bot_shown = _shown(run(tmp_path, "replay", "--all", "--ascii", bot).stdout)
    for hand, cards in never.items():
        assert not bot_shown.get(hand, set()) & cards
