"""``games``, ``replay`` and ``export``: the history of a folder, a game watched again
hand by hand (never a card that was not shown), and the plain-text record."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.cli import run
from helpers.history import P0, P1, StoryGame, story_game

from truc_p2p.history._export import export_record, parse_record
from truc_p2p.history._record import read_game
from truc_p2p.history._replay_steps import build_replay
from truc_p2p.history._replay_web import replay_json
from truc_p2p.protocol import encode_transcript, verify_transcript
from truc_p2p.rules import Action, Card, Game, Player, Ruleset

CARD = re.compile(r"(?<![\w])(?:10|[789JQKA])[SHDC](?![\w])")
BANNER = re.compile(r"^== hand (\d+) of (\d+) ==$")


@pytest.fixture(scope="module", params=["v2", "v1"])
def story(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> StoryGame:
    root = tmp_path_factory.mktemp(f"story-{request.param}")
    return story_game({P0: root / "alice", P1: root / "bob"}, deck=request.param)


# -- games ------------------------------------------------------------------------------


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def test_games_json_over_finished_unfinished_resumable_and_tampered(tmp_path: Path) -> None:
    games = tmp_path / "games"
    other = tmp_path / "bob"
    won = story_game({P0: games, P1: other}, stamp="20261201-100000", tag="a")  # alice wins
    # a second game where alice sits as player 1 and bob wins
    lost = story_game(
        {P0: tmp_path / "x", P1: games}, stamp="20261202-100000", tag="lost", names=("bob", "alice")
    )
    assert lost.paths[P1].parent == games
    records = won.records[P0]
    cut = games / "game-20261203-100000-cut-alice.truc"
    cut.write_bytes(encode_transcript(records[:9]))
    cut.with_name(cut.name + ".secret").write_bytes(
        won.paths[P0].with_name(won.paths[P0].name + ".secret").read_bytes()
    )
    resumable = games / "game-20261204-100000-resume-alice.truc"
    resumable.write_bytes(encode_transcript(records[:12]))
    resumable.with_name(resumable.name + ".meta.json").write_text('{"format": 1, "role": "join"}')
    tampered = games / "game-20261205-100000-tampered-alice.truc"
    data = won.paths[P0].read_bytes()
    tampered.write_bytes(_flip(data, len(data) - 10))  # inside the last signed result
    tampered.with_name(tampered.name + ".secret").write_bytes(b"\x00" * 32)
    (games / ".bot").mkdir()
    (games / ".bot" / "game-20261206-100000-bot.truc").write_bytes(data)
    (games / "game-x.truc.key").write_bytes(b"key")

    # who won each game comes from its deals; the listing must say it from alice's side
    first_result = "won" if verify_transcript(won.records[P0]).winner == 0 else "lost"
    second_result = "won" if verify_transcript(lost.records[P1]).winner == 1 else "lost"
    wins = [first_result, second_result].count("won")

    done = run(tmp_path, "games", "--json")
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    files = [Path(g["file"]).name for g in listing["games"]]
    assert files == [  # newest first; .bot/, .secret, .meta.json and .key skipped
        tampered.name,
        resumable.name,
        cut.name,
        lost.paths[P1].name,
        won.paths[P0].name,
    ]
    by = {Path(g["file"]).name: g for g in listing["games"]}
    first = by[won.paths[P0].name]
    assert first["status"] == "finished" and first["verifies"] is True
    assert first["you"]["name"] == "alice" and first["opponent"]["name"] == "bob"
    assert first["result"] == first_result and first["hands"] >= 1
    assert first["date"] == "2026-12-01T10:00:00"
    second = by[lost.paths[P1].name]
    assert second["seat"] == 1 and second["result"] == second_result
    assert second["verifies"] is True
    assert by[cut.name]["status"] == "unfinished" and by[cut.name]["verifies"] is False
    assert by[cut.name]["result"] is None and by[cut.name]["you"]["name"] == "alice"
    assert by[resumable.name]["status"] == "resumable"
    bad = by[tampered.name]
    assert bad["status"] == "finished" and bad["verifies"] is False
    assert bad["you"] is None  # the secret beside it is not alice's: no side known
    (record,) = listing["records"]  # the tampered and unfinished games do not count
    assert record["opponent"]["name"] == "bob"
    assert (record["won"], record["lost"]) == (wins, 2 - wins)
    assert listing["unreadable"] == []

    text = run(tmp_path, "games")
    assert text.returncode == 0, text.stderr
    assert "against bob (" in text.stdout
    assert f"won {wins} game{'s' * (wins != 1)}, lost {2 - wins} game{'s' * (wins != 1)}" in (
        text.stdout
    )
    assert "resumable" in text.stdout and "NO" in text.stdout
    # the verified column: a stopped game checked so far, a tampered one broken
    verified = [line.rsplit("  ", 1)[-1].strip() for line in text.stdout.splitlines()[1:6]]
    assert verified == ["NO", "so far", "so far", "yes", "yes"], text.stdout


def test_games_names_an_unreadable_file_and_a_missing_folder_in_one_line(tmp_path: Path) -> None:
    games = tmp_path / "games"
    story_game({P0: games, P1: tmp_path / "bob"}, tag="one")
    (games / "notes.truc").write_text("not a game\n")
    done = run(tmp_path, "games", "--json")
    assert done.returncode == 1
    assert len(json.loads(done.stdout)["games"]) == 1
    assert done.stderr.count("\n") == 1 and "notes.truc" in done.stderr
    for where in ("missing", "games/notes.truc"):
        done = run(tmp_path, "games", where)
        assert done.returncode == 2
        assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("truc-p2p games: cannot list")
        assert "Traceback" not in done.stderr


# -- replay -----------------------------------------------------------------------------


def _sections(text: str) -> dict[int, str]:
    """Hand number (1-based) -> the replay's text for that hand."""
    out: dict[int, list[str]] = {}
    current = 0
    for line in text.splitlines():
        found = BANNER.match(line)
        if found:
            current = int(found.group(1))
        out.setdefault(current, []).append(line)
    return {h: "\n".join(lines) for h, lines in out.items()}


def test_replay_through_a_pipe_steps_hands_and_quits(story: StoryGame, tmp_path: Path) -> None:
    done = run(tmp_path, "replay", story.paths[P0], stdin="\n\n\n3\np\n\n1\nn\nx\n99\nq\nnever\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    banners = [int(m.group(1)) for m in map(BANNER.match, out.splitlines()) if m]
    assert banners == [1, 3, 2, 1, 2]  # start, jump to 3, back to 2, jump to 1, next hand
    assert re.search(r"(you ask|bob asks) for a redeal", out)
    assert re.search(r"(you accept|bob accepts) the redeal", out)
    assert "no hand 99" in out
    assert "Enter: next step" in out
    assert out.count("Enter: next step") == 2  # at the start, and after "x"
    assert out.count("[hand ") == 4 + 1 + 2 + 1 + 1  # the steps shown


def test_replay_all_tells_redeal_fold_and_rest_with_the_proofs(
    story: StoryGame, tmp_path: Path
) -> None:
    done = run(tmp_path, "replay", "--all", story.paths[P1])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you: bob (" in out and "player: alice (" in out
    for text in (
        "for a redeal",
        "the redeal: new cards for both",
        "hand 1: the cards are dealt again, face down",
        " fold",
        "“my rest”",
        "“my rest”: this hand decides the game",
        "MY REST: this hand decides the game",
        "result co-signed by both players",
        "the whole transcript verifies",
    ):
        assert text in out, text
    deck = read_game(story.paths[P1]).deck
    if deck == "v2":
        assert "card opened with a proof (message" in out
        assert "shuffle proven" in out
    else:
        assert "card opened with its key, checked by the seed audit (message" in out
        assert "shuffle checked by the seed audit at message" in out
    assert sorted(_sections(out)) == [0, 1, 2, 3]


@pytest.mark.parametrize("owner", [P0, P1])
def test_replay_never_shows_a_card_that_was_not_played(
    story: StoryGame, tmp_path: Path, owner: Player
) -> None:
    done = run(tmp_path, "replay", "--all", "--ascii", story.paths[owner])
    assert done.returncode == 0, done.stderr
    sections = _sections(done.stdout)
    assert not CARD.findall(sections[0])  # the header shows no card
    hidden_somewhere = False
    for hand in range(3):
        shown = {Card.from_str(c) for c in CARD.findall(sections[hand + 1])}
        mine = story.dealt[(hand, owner)]
        played_by_other = story.played.get((hand, owner.other), set())
        played = story.played.get((hand, owner), set()) | played_by_other
        assert shown <= mine | played_by_other, (hand, shown)
        assert shown == played, (hand, shown, played)  # every played card, nothing else
        never = story.dealt[(hand, owner.other)] - played_by_other
        hidden_somewhere |= bool(never)
        assert not shown & never
    assert hidden_somewhere  # the fold and the redeal left cards unseen
    page = json.dumps(replay_json(build_replay(read_game(story.paths[owner]), ascii=True)))
    on_page = {Card.from_str(c) for c in re.findall(r'"card": "(\w+)"', page)}
    assert on_page == set().union(*story.played.values())


def test_both_transcripts_replay_identically_apart_from_the_side(story: StoryGame) -> None:
    a = build_replay(read_game(story.paths[P0]))
    b = build_replay(read_game(story.paths[P1]))
    assert a.voice.me is P0 and b.voice.me is P1
    assert len(a.steps) == len(b.steps) > 10
    swap = {"me": "opp", "opp": "me"}
    for x, y in zip(a.steps, b.steps, strict=True):
        assert (x.hand, x.kind, x.message) == (y.hand, y.kind, y.message)
        assert x.view.scores == {"me": y.view.scores["opp"], "opp": y.view.scores["me"]}
        assert [(swap[s], c) for s, c in x.view.table] == list(y.view.table)
        assert x.held == {"me": y.held["opp"], "opp": y.held["me"]}
        assert len(x.lines) == len(y.lines)


def test_replay_of_an_unfinished_game_says_so_and_exits_1(story: StoryGame, tmp_path: Path) -> None:
    path = tmp_path / "cut.truc"
    path.write_bytes(encode_transcript(story.records[P0][:12]))
    done = run(tmp_path, "replay", "--all", path)
    assert done.returncode == 1, done.stderr
    assert "the transcript ends here: the game is unfinished" in done.stdout
    assert "the transcript does NOT verify" in done.stdout
    if read_game(path).deck == "v1":  # no seeds revealed yet: no card can be opened
        assert "[hand 1/1 · step 1/1]" in done.stdout
        # ... unless the owner's secret lies beside it (from the owner's view, as verify)
        secret = story.paths[P0].with_name(story.paths[P0].name + ".secret")
        path.with_name(path.name + ".secret").write_bytes(secret.read_bytes())
        done = run(tmp_path, "replay", "--all", path)
        assert done.returncode == 1
        assert "the transcript ends here: the game is unfinished" in done.stdout
    assert "[hand 1/1 · step 2/" in done.stdout


# -- export -----------------------------------------------------------------------------


def test_export_round_trip(story: StoryGame, tmp_path: Path) -> None:
    done = run(tmp_path, "export", story.paths[P1])
    assert done.returncode == 0, done.stderr
    game = read_game(story.paths[P1])
    assert done.stdout == export_record(game)
    parsed = parse_record(done.stdout)
    tags = parsed.tags
    report = game.report
    assert tags["GameId"] == report.game_id
    assert (tags["Player0"], tags["Player1"]) == ("alice", "bob")
    assert tags["Fingerprint1"] == report.players[1].fingerprint
    assert tags["Verified"] == "yes" and tags["Hands"] == "3"
    assert report.score is not None
    score = f"{report.score[0]}-{report.score[1]}"
    assert tags["Score"] == score
    assert parsed.result == [str(report.winner), str(report.reason), score]
    assert len(parsed.hands) == report.hands == 3
    assert all(result for _d, _m, result in parsed.hands)  # every hand has its result
    # the record alone replays the game to the same end
    rules = dict(kv.split("=") for kv in tags["Rules"].split())
    replayed = Game(
        Ruleset.from_dict({**rules, "target": int(rules["target"])}),
        first_dealer=Player(int(tags["FirstDealer"])),
        spectator=True,
    )
    for dealer, moves, result in parsed.hands:
        assert replayed.dealer == dealer
        for seat, token in moves:
            if replayed.phase.value == "deal":
                replayed.deal({})
            action = Action.from_str(token if not CARD.fullmatch(token) else f"play {token}")
            replayed.push(action, player=Player(seat))
        assert f"{replayed.scores[0]}-{replayed.scores[1]}" == result[-1]
    outcome = replayed.outcome()
    assert outcome is not None and int(outcome.winner) == report.winner
    assert not story.dealt[(1, P0)] & {  # the folded hand's cards are nowhere in it
        Card.from_str(c) for c in CARD.findall(done.stdout.split("\n2. ")[1].split("\n")[0])
    } - story.played.get((1, P0), set())


@pytest.mark.parametrize("command", ["replay", "export"])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    (tmp_path / "garbage.truc").write_bytes(b"\x00\x01 not a transcript")
    (tmp_path / "folder").mkdir()
    for target in ("missing.truc", "garbage.truc", "folder"):
        done = run(tmp_path, command, target)
        assert done.returncode == 2, (target, done.stdout, done.stderr)
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"truc-p2p {command}: cannot read {target}: ")


# -- a real terminal, and what the commands load ------------------------------------------


def _read_until(fd: int, want: str, seen: list[str], limit: float = 20.0) -> str:
    """Read the pseudo-terminal until ``want`` appears in what came since the last call."""
    deadline = time.monotonic() + limit
    chunk = ""
    while want not in chunk:
        left = deadline - time.monotonic()
        assert left > 0, f"{want!r} never came; got {chunk!r}"
        ready, _w, _x = select.select([fd], [], [], left)
        if ready:
            try:
                data = os.read(fd, 4096).decode("utf-8", "replace")
            except OSError:  # the child closed the terminal
                break
            chunk += data
    seen.append(chunk)
    return chunk


def test_replay_in_a_pseudo_terminal(story: StoryGame, tmp_path: Path) -> None:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", "replay", str(story.paths[P0])],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen: list[str] = []
    try:
        first = _read_until(master, "> ", seen)  # the prompt: only on a terminal
        assert "[hand 1/3 · step 1/" in first
        os.write(master, b"\n")
        assert "step 2/" in _read_until(master, "> ", seen)
        os.write(master, b"3\n")
        assert "== hand 3 of 3 ==" in _read_until(master, "> ", seen)
        os.write(master, b"q\n")
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


PROBE = """
import sys
from truc_p2p.cli import main
status = main(sys.argv[1:])
HEAVY = ("trio", "truc_p2p.net", "truc_p2p.protocol._session")
heavy = sorted(m for m in HEAVY if m in sys.modules)
print("LOADED", ",".join(heavy))
sys.exit(status)
"""


@pytest.mark.parametrize(
    "command", [["games", "{dir}"], ["replay", "--all", "{file}"], ["export", "{file}"]]
)
def test_history_commands_load_neither_trio_nor_the_session(
    story: StoryGame, command: list[str]
) -> None:
    path = story.paths[P0]
    args = [a.format(dir=path.parent, file=path) for a in command]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("LOADED"), done.stdout[-200:]


def test_a_tampered_game_replays_and_exports_only_up_to_the_violation(
    story: StoryGame, tmp_path: Path
) -> None:
    data = story.paths[P0].read_bytes()
    path = tmp_path / "tampered.truc"
    path.write_bytes(_flip(data, len(data) // 2))
    report = read_game(path).report
    assert not report.valid and report.error_message_no is not None
    done = run(tmp_path, "replay", "--all", path)
    assert done.returncode == 1
    assert f"✘ violation: {report.error} (message {report.error_message_no})" in done.stdout
    messages = [int(n) for n in re.findall(r"\(message (\d+)\)", done.stdout)]
    assert max(messages) == report.error_message_no  # nothing past the violation
    record = run(tmp_path, "export", path)
    assert record.returncode == 1
    parsed = parse_record(record.stdout)
    assert parsed.tags["Verified"] == f"no {report.error_code}"
    assert parsed.result[:2] == ["*", "unverified"]


def test_history_page_pushes_only_a_known_game_s_replay(story: StoryGame) -> None:
    from truc_p2p.history._games_web import HistoryTable

    class Server:
        def __init__(self) -> None:
            self.sent: list[dict[str, object]] = []

        def publish(self, message: dict[str, object]) -> None:
            self.sent.append(message)

    game = read_game(story.paths[P0])
    table = HistoryTable(story.paths[P0].parent, [game])
    table.server = server = Server()
    (listing,) = table.snapshot()
    assert listing["type"] == "games" and len(listing["games"]) == 1
    for bad in ({"type": "open", "game": 1}, {"type": "open", "game": "0"}, {"game": 0}):
        table.receive(bad)
    assert server.sent == []
    table.receive({"type": "open", "game": 0})
    (replay,) = server.sent
    assert replay["type"] == "replay" and replay["game"] == 0
    assert replay["steps"] == replay_json(build_replay(game))["steps"]


def test_games_counts_an_abandoned_game_as_unconfirmed(tmp_path: Path) -> None:
    """Issue 30: the side that stayed signs ``abort`` ``abandoned`` (wire.md 13.4);
    ``games`` shows "abandoned by bob", counts it in the record, and says that it is
    unconfirmed (a transcript cannot prove who left)."""
    from helpers.history import _digest, key

    from truc_p2p.protocol import decode_envelope
    from truc_p2p.protocol._wire import envelope_hash, sign_envelope

    games = tmp_path / "games"
    story = story_game({P0: games, P1: tmp_path / "bob"}, stamp="20261201-100000", tag="left")
    story.paths[P0].unlink()  # alice keeps only the abandoned game
    held = story.records[P0][:12]
    secret = _digest("secret/left/0")
    abort = sign_envelope(  # what alice's game loop signs when bob's grace runs out
        key("alice"),
        game_id=decode_envelope(held[-1]).game_id,
        seq=len(held),
        prev=envelope_hash(held[-1]),
        sender=0,
        type="abort",
        payload={"reason": "abandoned", "detail": "the opponent did not come back within 120 s"},
    )
    kept = [abort]
    left = games / "game-20261202-100000-left-alice.truc"
    left.write_bytes(encode_transcript(story.records[P0][:12] + kept[-1:]))
    left.with_name(left.name + ".secret").write_bytes(secret)

    listing = json.loads(run(tmp_path, "games", "--json").stdout)
    (game,) = listing["games"]
    assert game["abandoned_by"] == 1 and game["status"] == "unfinished"
    assert game["error_code"] == "aborted" and game["result"] is None
    text = run(tmp_path, "games")
    assert text.returncode == 0, text.stderr
    assert "abandoned by bob at " in text.stdout and "(unconfirmed)" in text.stdout
    assert "won 0 games, lost 0 games, abandoned by them 1 time (unconfirmed)" in text.stdout


def test_the_replays_rules_line_is_in_the_players_words(story: StoryGame) -> None:
    """The replay's header says the rules as a joiner reads them ("to 12 points; refusing
    “my rest” loses the game"), in the reader's language, not the options' values
    ("ladder literal, refused rest game, deck v2")."""
    from truc_p2p.i18n import use_language

    record = read_game(story.paths[P0])
    use_language("fr")
    try:
        header = build_replay(record).header
    finally:
        use_language("en")
    target = record.ruleset().target  # type: ignore[union-attr]
    rules = [line for line in header if line.startswith("règles")]
    nbsp = "\u00a0"
    expected = (
        f"règles{nbsp}: en {target} points{nbsp}; refuser « mon reste » fait perdre la partie"
    )
    assert rules == [expected], header
    assert not any(word in line for line in header for word in ("literal", " game", "v2"))
