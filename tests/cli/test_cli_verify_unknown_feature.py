"""A verifier that meets a feature it does not know says so (wire.md section 11.2):
``truc-p2p verify`` reports "cannot judge", status ``unknown-feature``, exit 4, and
blames nobody, where it used to report a violation by an honest player of a later
version.  The envelope layer (signatures, chain) is still checked.

The later version is played here by two sessions whose hellos also announce a
feature bit this build does not know (bit 9); its chain is then re-signed with a
message of an unknown type (``v9thing``) where that feature would put one, or
with an unknown key in the hellos' options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.protocol import Pair, bot

from truc_p2p.cli import main
from truc_p2p.protocol import decode_envelope, encode_transcript
from truc_p2p.protocol._hello import Negotiation
from truc_p2p.protocol._values import game_id_of
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

P0, P1 = Player.P0, Player.P1
#: A feature bit no build of this text knows.
LATER = 1 << 9


def _play(announce: tuple[bool, bool]) -> Pair:
    """A whole game; player ``p``'s hello also announces bit 9 when ``announce[p]``."""
    known = Negotiation.features

    def features(self: Negotiation) -> int:
        later = announce[int(self._me)]
        return int(known.fget(self)) | (LATER if later else 0)  # type: ignore[misc]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Negotiation, "features", property(features))
        pair = Pair(
            deck="v2",
            ruleset=Ruleset(target=3),
            tag="unknown-feature",
            bots={P0: bot("random", 1), P1: bot("heuristic", 2)},
        )
        pair.finish()
    return pair


@pytest.fixture(scope="module")
def finished() -> Pair:
    return _play((True, True))


def _rechain(
    pair: Pair,
    records: list[bytes],
    *,
    option: str | None = None,
    only: int | None = None,
    insert: int | None = None,
) -> list[bytes]:
    """``records`` re-signed with ``option`` added to both hellos' options (to hello
    ``only`` alone, if given), and, at position ``insert``, a ``v9thing`` message of
    the player who sent the one before."""
    out: list[bytes] = []
    envs = [decode_envelope(raw) for raw in records]
    if insert is not None:
        envs.insert(insert, None)  # type: ignore[arg-type]
    for n, env in enumerate(envs):
        if env is None:
            sender, mtype, payload = int(decode_envelope(out[-1]).sender), "v9thing", {}
        else:
            sender, mtype, payload = env.sender, env.type, dict(env.payload)
        if n < 2 and option is not None and only in (None, n):
            payload["options"] = {**payload["options"], option: True}
        fields: dict[str, Any] = {
            "game_id": game_id_of(out[0], out[1]) if n >= 2 else b"",
            "seq": n,
            "prev": envelope_hash(out[-1]) if out else GENESIS,
            "sender": sender,
            "type": mtype,
            "payload": payload,
        }
        out.append(sign_envelope(pair.keys[Player(sender)], **fields))
    return out


def _verify(
    tmp_path: Path, records: list[bytes], capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str]]:
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(records))
    code = main(["verify", str(path), *extra])
    return code, capsys.readouterr().out.splitlines()


def _chain(records: list[bytes]) -> list[bytes]:
    return [r for r in records if decode_envelope(r).type != "abort"]


def test_an_unknown_message_of_an_agreed_later_feature_cannot_be_judged(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    later = _rechain(finished, _chain(finished.records[P0]), insert=6)
    code, lines = _verify(tmp_path, later, capsys)
    assert code == 4, lines
    assert lines[0].startswith("Cannot judge: this game uses feature 9, unknown to this verifier")
    assert "nobody is blamed" in lines[0] and "Violation" not in "\n".join(lines)
    assert lines[1].startswith("transcript: NOT JUDGED")
    code, lines = _verify(tmp_path, later, capsys, "--json")
    report = json.loads(lines[0])
    assert code == 4
    assert report["status"] == "unknown-feature" and report["valid"] is False
    assert report["error_code"] == "unknown-feature" and report["culprit"] is None
    assert report["unknown_features"] == [9]
    assert report["names"] == ["alice", "bob"]


def test_the_same_message_without_the_feature_is_a_violation(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a feature both hellos announce excuses it: one hello's bit is not agreed."""
    for announce in ((False, False), (True, False), (False, True)):
        pair = _play(announce)
        later = _rechain(pair, _chain(pair.records[P0]), insert=6)
        code, lines = _verify(tmp_path, later, capsys)
        assert code == 1, (announce, lines)
        assert lines[0].startswith("Violation at message 6"), lines[0]


def test_a_whole_game_with_an_unknown_feature_is_not_called_complete(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The feature may change what is legal, so a game that replays under today's
    rules is not judged complete either."""
    code, lines = _verify(tmp_path, finished.records[P0], capsys)
    assert code == 4 and lines[0].startswith("Cannot judge: "), lines
    one = _play((True, False))
    code, lines = _verify(tmp_path, one.records[P0], capsys)
    assert code == 0 and lines[0].startswith("Fair and complete"), lines


def test_an_unknown_option_in_both_hellos_cannot_be_judged(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A setting both sides share is an agreed feature; in one hello only, the hello
    is malformed, as a live receiver of this build finds it (one judge)."""
    pair = _play((False, False))
    later = _rechain(pair, _chain(pair.records[P0])[:2], option="zzz")
    code, lines = _verify(tmp_path, later, capsys)
    assert code == 4, lines
    assert lines[0].startswith("Cannot judge: this game uses option 'zzz', unknown"), lines[0]
    for one in (0, 1):
        alone = _rechain(pair, _chain(pair.records[P0])[:2], option="zzz", only=one)
        code, lines = _verify(tmp_path, alone, capsys)
        assert code == 1 and lines[0].startswith(f"Violation at message {one}"), lines[0]
        assert "[malformed]" in lines[0]


def test_the_envelopes_are_still_checked(
    finished: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken signature is proven whatever the features: still a violation (1)."""
    later = _rechain(finished, _chain(finished.records[P0]), insert=6)
    raw = bytearray(later[8])
    raw[-1] ^= 1
    later[8] = bytes(raw)
    code, lines = _verify(tmp_path, later, capsys)
    assert code == 1, lines
    assert "message 8 no longer matches its signature" in lines[0], lines[0]
    code, lines = _verify(tmp_path, later, capsys, "--json")
    report = json.loads(lines[0])
    assert report["status"] == "violation" and report["error_code"] == "bad-signature"


def test_verify_help_names_exit_4(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "4 cannot judge" in out
