"""``truc-p2p verify`` speaks plainly: the first line is the verdict in one sentence with
the players' names, and the exit status tells complete (0), violation (1) and
unfinished (3) apart.  Transcripts come from in-memory pairs of real sessions; the
command runs in-process (``truc_p2p.cli.main``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.protocol import Pair, bot, transcript_types

from truc_p2p.cli import main
from truc_p2p.protocol import RemoteProtocolError, encode_transcript
from truc_p2p.rules import Player, Ruleset

P0, P1 = Player.P0, Player.P1


def _verify(
    tmp_path: Path, records: list[bytes], capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str]]:
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(records))
    code = main(["verify", str(path), *extra])
    return code, capsys.readouterr().out.splitlines()


@pytest.fixture(scope="module")
def finished() -> Pair:
    pair = Pair(
        deck="v2",
        ruleset=Ruleset(target=3),
        tag="plain-finished",
        bots={P0: bot("random", 1), P1: bot("heuristic", 2)},
    )
    pair.finish()
    return pair


def test_a_complete_game_reads_fair_and_complete_with_names(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = finished.sessions[P0].result
    assert result is not None
    code, lines = _verify(tmp_path, finished.records[P1], capsys)
    winner, loser = result.winner, result.winner.other
    hands = f"{result.hands} hand{'s' * (result.hands != 1)}"
    assert code == 0
    assert lines[0].startswith(
        "Fair and complete: alice and bob each shuffled and every card was proven; "
        f"{finished.names[winner]} won {result.scores[winner]}-{result.scores[loser]}"
    )
    assert lines[0].endswith(f" after {hands}.") and result.reason not in lines[0]
    assert "player 0" not in lines[0] and lines[1].startswith("transcript: VALID")
    code, lines = _verify(tmp_path, finished.records[P1], capsys, "--json")
    out = json.loads(lines[0])
    assert code == 0 and out["status"] == "complete" and out["valid"] is True
    assert out["names"] == ["alice", "bob"] and out["winner_name"] == finished.names[winner]
    assert out["resigned_by"] is None and out["headline"].startswith("Fair and complete")


def test_an_unfinished_game_is_not_a_violation(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The transcript stops mid-game (a dropped connection): exit 3, 'unfinished',
    every move up to there checks, and no word of a violation."""
    records = finished.records[P0][: transcript_types(finished.records[P0]).index("v2action") + 2]
    code, lines = _verify(tmp_path, records, capsys)
    assert code == 3
    assert lines[0].startswith("Unfinished: the transcript stops in hand 1 at alice 0, bob 0")
    assert lines[0].endswith("every move up to there checks.")
    text = "\n".join(lines)
    assert "INVALID" not in text and "violation" not in text.lower()
    assert lines[1].startswith("transcript: UNFINISHED")
    code, lines = _verify(tmp_path, records, capsys, "--json")
    out = json.loads(lines[0])
    assert code == 3 and out["status"] == "unfinished" and out["valid"] is False
    assert out["error_code"] == "incomplete"  # the existing keys keep their meaning


def test_a_quit_without_resignation_is_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = Pair(deck="v2", tag="plain-quit", resigns=(False, True), bots={P0: None, P1: None})
    pair.run(when=lambda: any(pair.waiting.values()))
    quitter = P0 if pair.waiting[P0] else P1
    pair.collect(quitter, pair.sessions[quitter].abort("quit", "the player left"))
    pair.deliver(quitter)
    pair.pull(quitter.other)
    code, lines = _verify(tmp_path, pair.records[quitter.other], capsys)
    assert code == 3
    assert lines[0].startswith(
        f"Unfinished: {pair.names[quitter]} ended the game in hand 1 at alice 0, bob 0: "
        "left without resigning"
    )


def test_a_tampered_file_names_the_violation_and_claims_nothing_after_it(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A byte of a deal message flipped: the verdict names the message, and no line
    claims the deck proven past it."""
    records = list(finished.records[P0])
    index = transcript_types(records).index("v2deck2")
    raw = bytearray(records[index])
    raw[200] ^= 1  # inside the deck; the signature no longer verifies
    records[index] = bytes(raw)
    code, lines = _verify(tmp_path, records, capsys)
    assert code == 1
    # an edited file, told apart from a move its signer made illegal (issue 32)
    assert lines[0] == (
        f"This file was changed after the game: message {index} no longer matches its "
        f"signature; the {index} messages before it check [bad-signature]."
    )
    text = "\n".join(lines)
    assert "v2deck2" not in text and "does not verify" not in text
    assert "every shuffle, key and card proven" not in text
    assert "Fair and complete" not in text and "VALID (" not in text.replace("INVALID", "")
    assert f"proven up to message {index - 1}; message {index} is where it failed" in text
    assert "sent by" not in lines[0]  # a broken signature proves nothing about who sent it
    # and in the player's language, the whole line (no English left in it)
    code, lines = _verify(tmp_path, records, capsys, "--lang", "fr")
    assert code == 1
    edited = "Ce fichier a été modifié après la partie\u00a0: le message"
    assert lines[0].startswith(f"{edited} {index} ")
    assert "signature" in lines[0] and "changed" not in "\n".join(lines)


def test_a_removed_message_is_an_edited_file_too(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = list(finished.records[P0])
    del records[12]
    code, lines = _verify(tmp_path, records, capsys)
    assert code == 1
    assert lines[0].startswith("This file was changed after the game: message 12 no longer ")
    assert "sent by" not in lines[0]


def test_a_forged_move_is_blamed_on_its_signer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An illegal but correctly signed move: the verdict names the player by name."""
    pair = Pair(deck="v2", tag="plain-forged", bots={P0: None, P1: None})
    pair.run(when=lambda: any(pair.waiting.values()))
    idle = P1 if pair.waiting[P0] else P0  # not its turn: any action is out of turn
    forged = pair.forge_next(idle, "v2action", {"act": "fold"})
    pair.inject(idle, forged)
    with pytest.raises(RemoteProtocolError):
        pair.pull(idle.other)
    code, lines = _verify(tmp_path, pair.records[idle.other], capsys)
    assert code == 1
    assert lines[0].startswith(
        f"Violation at message {len(pair.records[idle.other]) - 1}, sent by {pair.names[idle]}:"
    )


def test_a_resigned_game_reads_who_resigned_and_who_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = Pair(deck="v2", tag="plain-resign", bots={P0: None, P1: None})
    pair.run(when=lambda: any(pair.waiting.values()))
    resigner = P0 if pair.waiting[P0] else P1
    pair.collect(resigner, pair.sessions[resigner].resign())
    pair.deliver(resigner)
    pair.pull(resigner.other)
    for p in Player:
        code, lines = _verify(tmp_path, pair.records[p], capsys)
        assert code == 0
        assert lines[0] == (
            f"{pair.names[resigner]} resigned in hand 1; {pair.names[resigner.other]} wins "
            "(score alice 0, bob 0); every move up to the resignation checks."
        )
        code, lines = _verify(tmp_path, pair.records[p], capsys, "--json")
        out = json.loads(lines[0])
        assert out["reason"] == "resigned" and out["status"] == "complete"
        assert out["winner"] == int(resigner.other) and out["resigned_by"] == int(resigner)


def test_a_torn_file_is_unfinished_and_a_corrupt_one_a_violation(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = encode_transcript(finished.records[P0])
    path = tmp_path / "torn.truc"
    path.write_bytes(data[:-10])  # a crash while the last frame was written
    assert main(["verify", str(path)]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Unfinished: the file is cut")
    assert lines[1].startswith("transcript: UNFINISHED")
    cut = len(finished.records[P0]) - 1
    length = len(finished.records[P0][-1])
    start = len(data) - length - 4
    path.write_bytes(data[:start] + b"\x00\x00\x00\x00" + b"\x01" * 20)  # no writer does this
    assert main(["verify", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"Violation at message {cut}")


def test_verify_help_documents_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("0 complete", "1 violation", "2 the file cannot be read", "3 unfinished"):
        assert words in text


def test_the_end_of_game_verdict_uses_the_same_words_and_statuses(
    finished: Pair, tmp_path: Path
) -> None:
    """``transcript_verdict`` (for the web and terminal end screens): a game that
    stopped is unfinished, never a violation; the headline is verify's first line."""
    from truc_p2p.cli._common import transcript_verdict

    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(finished.records[P0]))
    done = transcript_verdict(path)
    assert done["status"] == "complete" and done["valid"] is True
    assert str(done["headline"]).startswith("Fair and complete: alice and bob")
    assert str(done["summary"]).startswith(str(done["headline"]))
    path.write_bytes(encode_transcript(finished.records[P0][:12]))
    stopped = transcript_verdict(path)
    assert stopped["status"] == "unfinished" and stopped["valid"] is False
    assert str(stopped["headline"]).startswith("Unfinished:")
    path.write_bytes(encode_transcript(finished.records[P0])[:-5])
    assert transcript_verdict(path)["status"] == "unfinished"  # torn by a crash
    records = list(finished.records[P0])
    records[5] = records[5][:-1] + bytes([records[5][-1] ^ 1])
    path.write_bytes(encode_transcript(records))
    assert transcript_verdict(path)["status"] == "violation"
    missing = transcript_verdict(tmp_path / "nope.truc")
    assert missing["status"] == "unreadable" and missing["valid"] is False
