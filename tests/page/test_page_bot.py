"""A game against a bot in the page: the same table messages as ``--web``, the end
screen with the verifier's verdict, a rematch, leaving, and the transcript file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.page import PagePlayer, new_app, some_point

from truc_p2p._layers import PAGE_NET
from truc_p2p.cli import main as cli_main
from truc_p2p.protocol import decode_envelope, scan_transcript, verify_transcript


def _cards_first(actions: list[str]) -> str:
    """Play cards and accept: long games, no early "my rest"."""
    cards = [a for a in actions if a.startswith("play")]
    return cards[0] if cards else sorted(actions)[0]


def _play_to_the_end(player: PagePlayer, limit: int = 3000) -> None:
    for _ in range(limit):
        if player.final is not None:
            return
        assert player.step(0.0), "the table offers nothing and the game is not over"
    raise AssertionError("the game did not end")


def _bot_game(level: str = "easy", lang: str = "en") -> PagePlayer:
    player = PagePlayer(new_app(), pick=_cards_first)
    player.call({"type": "hello", "lang": lang}, 0.0)
    player.call({"type": "bot", "level": level}, 0.0)
    return player


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_a_bot_game_in_the_page_plays_to_a_verified_end(level: str) -> None:
    player = _bot_game(level)
    assert player.texts("texts") and player.texts("app_texts")
    assert any(m.get("screen") == "table" for m in player.texts("app"))
    _play_to_the_end(player)
    final = player.final
    assert final is not None
    assert final["outcome"] == "finished" and final["cosigned"]
    assert final["verdict"]["status"] == "complete"
    assert final["again"] is True and final["level"] == level  # a rematch is offered
    assert final["hands"] >= 1 and final["score"] is not None
    assert verify_transcript(player.app.envelopes).valid
    lines = [m["text"] for m in player.texts("log")]
    assert lines[0].startswith("playing against ")
    # the deal as the terminal says it: "hand 1, you deal: you get 7♠  9♥  A♦"
    assert any(line.startswith("hand 1, ") and ": you get " in line for line in lines)


def test_the_table_is_in_the_players_language() -> None:
    player = _bot_game(lang="fr")
    texts = player.texts("texts")[-1]
    assert texts["lang"] == "fr" and texts["leave_button"] != "leave (q)"
    log = [m["text"] for m in player.texts("log")]
    assert not any(line.startswith("playing ") for line in log)


def test_a_stale_turn_or_an_illegal_action_is_refused() -> None:
    player = _bot_game()
    table = player.state["table"] if player.state else None
    assert table is not None and table["turn"] is not None
    player.call({"type": "act", "turn": table["turn"] - 1, "action": "accept"}, 0.0)
    player.call({"type": "act", "turn": table["turn"], "action": "nonsense"}, 0.0)
    notices = player.texts("notice")
    assert len(notices) == 2 and "nonsense" in notices[1]["text"]
    assert player.final is None


def test_leaving_resigns_and_the_bot_wins() -> None:
    player = _bot_game()
    player.quit_at_turn = 3
    _play_to_the_end(player)
    assert player.final is not None
    assert player.final["outcome"] == "resigned" and not player.final["won"]
    assert verify_transcript(player.app.envelopes).status == "complete"


def test_a_rematch_starts_a_new_game_on_the_same_table() -> None:
    player = _bot_game()
    _play_to_the_end(player)
    first = list(player.app.envelopes)
    player.call({"type": "again", "yes": True, "level": "medium"}, 0.0)
    assert player.texts("new_game")
    assert player.final is None and player.state is not None
    assert player.state["game_line"] == "game 2"
    _play_to_the_end(player)
    assert player.app.envelopes != first
    assert player.app.game is not None and player.app.game.kind == "bot"
    assert player.final is not None and player.final["level"] == "medium"


def test_a_game_chosen_on_the_home_screen_is_game_1_again() -> None:
    """After a bot game, a game started from the home screen (the bot again, or hosting
    for a friend) is that opponent's first game, not "game 2" of the last one's."""
    player = _bot_game()
    _play_to_the_end(player)
    player.call({"type": "home"}, 0.0)
    said = len(player.messages)
    player.call({"type": "bot", "level": "easy"}, 0.0)
    assert player.state is not None and player.state["game_line"] is None
    # the last game's end screen leaves the table (table.js clears it on new_game)
    assert any(m.get("type") == "new_game" for m in player.messages[said:])
    assert {"type": "log_all", "lines": []} in player.messages[said:]
    player.call({"type": "home"}, 0.0)
    player.call({"type": "host", "relay": "127.0.0.1:9", "match": 1}, 0.0)
    assert player.state["game_line"] is None


def test_the_transcript_download_is_the_desktops_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    player = _bot_game()
    _play_to_the_end(player)
    player.call({"type": "download"}, 0.0)
    ((name, data),) = player.downloads.items()
    assert name.endswith(".truc") and name == player.final["transcript"]  # type: ignore[index]
    assert scan_transcript(data).envelopes == player.app.envelopes
    path = tmp_path / name
    path.write_bytes(data)
    capsys.readouterr()
    assert cli_main(["verify", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "complete"


def test_the_identity_key_is_kept_exported_and_imported() -> None:
    first = new_app()
    player = PagePlayer(first)
    player.take(first.handle({"type": "hello", "lang": "en"}, 0.0))
    raw = player.stored["identity"]
    again = PagePlayer(new_app(stored={"identity": raw}))
    again.call({"type": "hello"}, 0.0)
    assert again.app.fingerprint == first.fingerprint  # a reload keeps the key
    player.call({"type": "identity_export"}, 0.0)
    pem = player.downloads["identity.pem"]
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    other = PagePlayer(new_app())
    other.call({"type": "identity_import", "data": pem}, 0.0)
    assert other.app.fingerprint == first.fingerprint
    assert other.texts("identity")[-1]["fingerprint"] == first.fingerprint
    other.call({"type": "identity_import", "data": b"not a key"}, 0.0)
    assert other.texts("app_error") and other.app.fingerprint == first.fingerprint


def test_the_exported_key_is_one_the_desktop_reads(tmp_path: Path) -> None:
    from truc_p2p.identity import load_identity

    player = PagePlayer(new_app())
    player.call({"type": "identity_export"}, 0.0)
    path = tmp_path / "identity.pem"
    path.write_bytes(player.downloads["identity.pem"])
    assert load_identity(path).fingerprint == player.app.fingerprint


def test_bad_messages_from_the_page_are_ignored_or_one_line() -> None:
    player = PagePlayer(new_app())
    for message in ("not json", "[1, 2]", json.dumps({"type": 7}), json.dumps({})):
        player.take(player.app.handle(message, 0.0))
    player.call({"type": "join", "invite": "truc://nowhere"}, 0.0)
    player.call({"type": "join", "invite": 5}, 0.0)
    player.call({"type": "host", "relay": "not an address"}, 0.0)
    assert len(player.texts("app_error")) == 3
    assert player.app.game is None


@pytest.mark.slow
def test_the_page_imports_no_trio_and_no_socket() -> None:
    """What the worker loads to play a bot game and verify a file: no trio, no
    socket, and of ``net`` only its trio-free modules (``_layers.PAGE_NET``)."""
    code = (
        "import os, sys, json\n"
        "from truc_p2p.page import PageApp\n"
        "app = PageApp(randbytes=os.urandom)\n"
        "app.handle({'type': 'hello'}, 0.0)\n"
        "app.handle({'type': 'bot', 'level': 'easy'}, 0.0)\n"
        "app.handle({'type': 'verify', 'data': b'x'}, 0.0)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert not loaded & {"trio", "socket", "asyncio", "selectors", "subprocess", "ssl"}
    net = {m for m in loaded if m.startswith("truc_p2p.net.")}
    assert net and net <= set(PAGE_NET)
    assert not any(m.startswith("truc_p2p.cli") for m in loaded)


def test_the_players_name_is_kept_and_is_the_one_the_opponent_sees() -> None:
    player = PagePlayer(new_app())
    player.call({"type": "hello", "lang": "en"}, 0.0)
    default = player.texts("identity")[-1]["name"]
    assert default == f"player-{player.app.fingerprint[:4]}"
    player.call({"type": "name", "name": "  Ana  "}, 0.0)
    player.call({"type": "name", "name": "x" * 41}, 0.0)  # too long: kept as it was
    player.call({"type": "name", "name": "a\nb"}, 0.0)  # not printable: kept
    assert player.stored["name"] == "Ana" and player.texts("identity")[-1]["name"] == "Ana"
    player.call({"type": "bot", "level": "easy"}, 0.0)  # this page's next game too
    assert player.state is not None and player.state["started"]["me"] == "Ana"
    again = PagePlayer(new_app(stored=dict(player.stored)))
    again.call({"type": "hello"}, 0.0)
    again.call({"type": "bot", "level": "easy"}, 0.0)
    assert again.state is not None and again.state["started"]["me"] == "Ana"
    assert again.app.game is not None and again.app.game.side.session.name == "Ana"


def test_a_cheating_peer_is_caught_at_its_message_and_the_evidence_kept() -> None:
    """The opponent signs an action it may not play: the page refuses that message,
    signs a ``cheat`` abort, and its transcript holds the signed cheat (verify says
    violation there), as the desktop does."""
    from helpers.protocol import split, with_payload

    from truc_p2p.page._games import BotGame
    from truc_p2p.protocol import decode_envelope, frame

    tampered: list[int] = []
    real_step = BotGame._bot_step

    def cheat(self: BotGame) -> bytes:
        out = real_step(self)
        if tampered or not out:
            return out
        frames = []
        for raw in split(out):
            env = decode_envelope(raw)
            if not tampered and env.type == "v2action" and env.payload["act"] == "play":
                # its card's share (a point and its proof) names another point
                other = some_point() + env.payload["share"][33:]
                raw = with_payload(raw, self.bot_key, lambda p, o=other: p.update(share=o))
                tampered.append(env.seq)
            frames.append(frame(raw))
        return b"".join(frames)

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(BotGame, "_bot_step", cheat)
    try:
        player = _bot_game()
        _play_to_the_end(player)
    finally:
        monkeypatch.undo()
    assert tampered, "the bot never acted"
    final = player.final
    assert final is not None and final["outcome"] == "protocol-error", final
    report = verify_transcript(player.app.envelopes)
    assert report.status == "violation" and report.error_message_no == tampered[0]
    abort = decode_envelope(player.app.envelopes[-1])
    assert abort.type == "abort" and abort.payload["reason"] == "cheat"


def test_the_default_name_is_in_the_players_language_and_a_chosen_one_stays() -> None:
    """A first visit names the player in the page's language ("joueur-1a2b" in French,
    not the English "player-"), which its games send in their hello; a name the player
    typed stays, whatever the language."""
    player = _bot_game(lang="fr")
    fingerprint = player.app.fingerprint
    assert player.texts("identity")[-1]["name"] == f"joueur-{fingerprint[:4]}"
    assert player.app.name == f"joueur-{fingerprint[:4]}"
    hello = decode_envelope(player.app.envelopes[0])
    assert hello.payload["name"] == f"joueur-{fingerprint[:4]}"
    spanish = PagePlayer(new_app(stored=dict(player.stored)))
    spanish.call({"type": "hello", "lang": "es"}, 0.0)
    assert spanish.app.name == f"jugador-{fingerprint[:4]}"  # still the default: follows
    spanish.call({"type": "name", "name": "Pau"}, 0.0)
    assert spanish.stored["name"] == "Pau"
    catalan = PagePlayer(new_app(stored=dict(spanish.stored)))
    catalan.call({"type": "hello", "lang": "ca"}, 0.0)
    assert catalan.app.name == "Pau"
    assert catalan.texts("identity")[-1]["name"] == "Pau"
