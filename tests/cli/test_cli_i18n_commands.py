"""The command line in another language: every ``--help``, argparse's own errors, and
``verify``'s report; ``verify --json`` stays the same bytes in every language, and the
report in English is word for word the verifier's own (``VerifyReport.summary``)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from helpers.cli import run
from helpers.i18n import TRANSLATED, english_left
from helpers.protocol import Pair, bot, transcript_types

from truc_p2p.cli import COMMANDS, main
from truc_p2p.i18n import use_language
from truc_p2p.protocol import VerifyReport, encode_transcript
from truc_p2p.protocol._verify import PlayerInfo
from truc_p2p.rules import Player, Ruleset
from truc_p2p.verdict import EDITED, verify_headline, verify_summary

P0, P1 = Player.P0, Player.P1

#: Every ``--help`` screen: the top level, each command, ``bench``'s own commands.
HELPS = [
    (),
    *((name,) for name in COMMANDS),
    ("bench", "bots"),
    ("bench", "deck"),
    ("bench", "game"),
]


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*args, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", HELPS, ids=lambda c: " ".join(c) or "truc-p2p")
def test_every_help_screen_is_in_french(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _help(capsys, "--lang", "fr", *command)
    assert shown.startswith("utilisation\u00a0: truc-p2p")
    assert "options" in shown and "afficher ce message d’aide et quitter" in shown
    assert english_left(shown, "fr") == [], shown
    # the check can fail: the English screen is caught
    english = _help(capsys, *command)
    assert len(english_left(english, "fr")) > 3
    # group headings ("web table:") too, even when their words are also French
    # ("options" is the French word as well)
    assert not (_headings(shown) & _headings(english)) - {"options:"}, _headings(shown)


def _headings(screen: str) -> set[str]:
    return {line for line in screen.splitlines() if re.fullmatch(r"\S[^:]*:", line)}


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_top_level_help_in_every_language(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _help(capsys, "--lang", code)
    assert english_left(shown, code) == [], shown
    assert "show this help message" not in shown and "positional arguments" not in shown


def test_an_argparse_error_is_french_one_line_and_the_usage(tmp_path: Path) -> None:
    for args in (("--lang", "fr", "verify", "--bogus"), ("verify", "--bogus", "--lang", "fr")):
        done = run(tmp_path, *args)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert lines[0].startswith("utilisation\u00a0: truc-p2p")
        assert lines[-1] == "truc-p2p\u00a0: erreur\u00a0: arguments non reconnus\u00a0: --bogus"
        assert english_left(done.stderr, "fr") == []
    done = run(tmp_path, "--lang", "fr", "play", "--target", "zero")
    assert done.returncode == 2
    assert "argument --target\u00a0: valeur int incorrecte\u00a0: 'zero'" in done.stderr
    done = run(tmp_path, "--lang", "uk", "play", "--timeout", "-1")
    assert done.returncode == 2 and "аргумент --timeout: має бути" in done.stderr
    done = run(tmp_path, "--lang", "fr", "nosuchcommand")
    assert done.returncode == 2 and "choix incorrect\u00a0: 'nosuchcommand'" in done.stderr
    # the check can fail: the same error in English
    english = run(tmp_path, "verify", "--bogus")
    assert (
        english.stderr.strip().splitlines()[-1]
        == "truc-p2p: error: unrecognized arguments: --bogus"
    )


def test_a_usage_error_of_a_command_is_translated(tmp_path: Path) -> None:
    done = run(tmp_path, "--lang", "fr", "play", "--target", "0")
    assert done.returncode == 2
    assert done.stderr.strip() == "truc-p2p play: --target doit aller de 1 à 1000 points, pas 0"
    done = run(tmp_path, "--lang", "es", "verify")
    assert done.returncode == 2
    assert done.stderr.strip() == "truc-p2p verify: da un archivo de acta (o --match FILE)"


@pytest.mark.parametrize(
    ("bot", "english", "french"),
    [
        ("zz", "unknown bot 'zz'; choose from easy", "robot 'zz' inconnu\u00a0; choisissez parmi"),
        ("search:zz", "bad level 'zz' for the search", "niveau 'zz' inconnu pour le robot search"),
    ],
)
def test_a_bad_bot_name_is_one_translated_line(
    tmp_path: Path, bot: str, english: str, french: str
) -> None:
    done = run(tmp_path, "play", "--bot", bot)
    assert done.returncode == 2 and english in done.stderr.splitlines()[-1]
    done = run(tmp_path, "--lang", "fr", "play", "--bot", bot)
    assert done.returncode == 2 and done.stdout == ""
    assert french in done.stderr.splitlines()[-1] and english not in done.stderr


# -- verify's report ------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished() -> Pair:
    pair = Pair(
        deck="v2",
        ruleset=Ruleset(target=3),
        tag="i18n-verify",
        bots={P0: bot("random", 1), P1: bot("heuristic", 2)},
        early_redeals=(False, False),  # the hellos (and so the deals) it was written for
    )
    pair.finish()
    return pair


def _verify(
    tmp_path: Path, records: list[bytes], capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(records))
    code = main(["verify", str(path), *args])
    return code, capsys.readouterr().out


def _without_codes(text: str) -> str:
    """The report without its machine-readable ``[codes]`` (``[incomplete]``)."""
    return re.sub(r"\[[\w-]+\]", " ", text)


def _unfinished(pair: Pair) -> list[bytes]:
    records = pair.records[P0]
    return records[: transcript_types(records).index("v2action") + 2]


def _tampered(pair: Pair) -> list[bytes]:
    records = list(pair.records[P0])
    index = transcript_types(records).index("v2deck2")
    raw = bytearray(records[index])
    raw[200] ^= 1
    records[index] = bytes(raw)
    return records


@pytest.mark.parametrize(
    ("kind", "code", "status", "seen"),
    [
        (
            "complete",
            "fr",
            0,
            ("Équitable et complète\u00a0: alice et bob", "relevé\u00a0:", "VALIDE ("),
        ),
        ("complete", "uk", 0, ("Чесна й повна: alice і bob", "журнал:", "ДІЙСНИЙ (")),
        ("unfinished", "fr", 3, ("Inachevée\u00a0: le relevé s’arrête à la main 1", "INACHEVÉ")),
        ("unfinished", "uk", 3, ("Незавершена: журнал уривається в роздачі 1", "НЕЗАВЕРШЕНИЙ")),
        (
            "tampered",
            "fr",
            1,
            ("Ce fichier a été modifié après la partie", "NON VALIDE", "violation\u00a0:"),
        ),
        ("tampered", "uk", 1, ("Цей файл змінено після гри", "НЕДІЙСНИЙ", "порушення:")),
    ],
)
def test_the_verify_report_is_translated_and_its_json_is_not(
    finished: Pair,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    code: str,
    status: int,
    seen: tuple[str, ...],
) -> None:
    records = {
        "complete": finished.records[P1],
        "unfinished": _unfinished(finished),
        "tampered": _tampered(finished),
    }[kind]
    got, text = _verify(tmp_path, records, capsys, "--lang", code)
    assert got == status
    for words in seen:
        assert words in text, (words, text)
    if kind != "tampered":  # a violation quotes the verifier's technical detail as it is
        assert english_left(_without_codes(text), code) == [], text
    english_status, english = _verify(tmp_path, records, capsys)
    assert english_status == status and english != text
    assert set(english_left(english, code)) & {"transcript", "hands", "audit", "player"}
    _english_json_status, english_json = _verify(tmp_path, records, capsys, "--json")
    translated_json = _verify(tmp_path, records, capsys, "--lang", code, "--json")
    assert translated_json == (status, english_json)
    assert json.loads(english_json)["headline"] == english.splitlines()[0]


def test_the_english_report_is_the_verifiers_own_words(finished: Pair) -> None:
    """The command line renders ``VerifyReport``'s fields itself (the protocol stays
    language-neutral); in English the words are byte for byte ``summary()``'s, for
    every branch of the headline and the details."""
    from truc_p2p.protocol import verify_transcript

    base = verify_transcript(finished.records[P1])
    unfinished = verify_transcript(_unfinished(finished))
    tampered = verify_transcript(_tampered(finished))
    players = (PlayerInfo(name="ana", fingerprint="ab" * 32),)
    variants: list[VerifyReport] = [base, unfinished, tampered]
    for report in (base, unfinished, tampered):
        for deck in ("v1", "v2", None):
            for reason in ("target", "rest-won", "rest-refused", "odd"):
                variants.append(dataclasses.replace(report, deck=deck, reason=reason))
            variants.append(dataclasses.replace(report, deck=deck, audit="passed"))
            variants.append(dataclasses.replace(report, deck=deck, audit="failed"))
            variants.append(dataclasses.replace(report, deck=deck, error_message_no=None))
        if report.status != "complete":  # a complete game always has its score
            variants.append(dataclasses.replace(report, hands=0, score=None))
        variants.append(dataclasses.replace(report, culprit=1, players=players))
        variants.append(dataclasses.replace(report, culprit=None, error_message_no=None))
        variants.append(dataclasses.replace(report, local_secret_of=0, deck="v1"))
        variants.append(dataclasses.replace(report, ended_by="player 1 resigned at message 9"))
    for abort in ("quit", "timeout", "abandoned", "error", "incompatible", "cheat", "other"):
        for hands, score in ((0, None), (2, (1, 3))):
            variants.append(
                dataclasses.replace(
                    unfinished,
                    aborted_by=1,
                    abort_reason=abort,
                    hands=hands,
                    score=score,
                    ended_by=f"player 1 aborted at message 9: {abort} (why)",
                )
            )
    for code in ("torn", "corrupt", "incomplete"):
        variants.append(dataclasses.replace(unfinished, error_code=code, hands=0))
    variants.append(dataclasses.replace(base, resigned_by=0, reason="resigned"))
    variants.append(dataclasses.replace(base, resigned_by=1, reason="resigned", score=None))
    variants.append(
        VerifyReport(
            valid=False,
            messages=3,
            error="the local secret does not belong to this transcript",
            error_code="bad-secret",
        )
    )
    use_language("en")
    edited = 0
    for report in variants:
        if report.status == "violation" and report.error_code in EDITED:
            # the command line tells an edited file apart (issue 32): its own words
            assert verify_headline(report).startswith("This file was changed after the game")
            assert "changed after the game" in verify_summary(report)
            assert "does not verify" not in verify_summary(report)
            edited += 1
            continue
        assert verify_headline(report) == report.headline(), report
        assert verify_summary(report) == report.summary(), report
    assert edited
    # and the check can fail: another language says it differently
    use_language("fr")
    try:
        assert verify_summary(base) != base.summary()
    finally:
        use_language("en")


# -- identity errors, verify --match, the host's settings ------------------------------


def test_identity_errors_are_translated(tmp_path: Path) -> None:
    from truc_p2p import identity
    from truc_p2p.cli import _identity

    assert _identity.IDENTITY_ERRORS == identity.IDENTITY_ERRORS  # every kind has a msgid
    bad = tmp_path / "bad.key"
    bad.write_bytes(b"x" * 7)
    english = run(tmp_path, "identity", "--identity", bad)
    assert english.returncode == 2
    assert english.stderr.strip().endswith("is neither a PEM Ed25519 key nor 32 raw key bytes")
    french = run(tmp_path, "--lang", "fr", "identity", "--identity", bad)
    assert french.returncode == 2
    assert "n’est ni une clé Ed25519 PEM ni 32 octets de clé brute" in french.stderr
    missing = tmp_path / "no" / "such" / "dir"
    missing.parent.parent.write_text("a file, not a folder")
    french = run(tmp_path, "--lang", "fr", "play", "--identity", missing)
    assert "impossible de lire l’identité" in french.stderr, french.stderr


def test_a_rejected_match_record_is_translated_and_its_json_is_not(tmp_path: Path) -> None:
    record = tmp_path / "match-x.json"
    record.write_text(json.dumps({"format": "truc-p2p match 1", "games": 3, "played": [{}]}))
    english = run(tmp_path, "verify", "--match", record)
    assert english.stdout.strip() == "match record rejected: game 1: no transcript named"
    french = run(tmp_path, "--lang", "fr", "verify", "--match", record)
    assert french.returncode == english.returncode == 1
    assert "partie 1\u00a0: aucun relevé nommé" in french.stdout
    assert english_left(french.stdout) == []
    as_json = [
        run(tmp_path, *lang, "verify", "--match", record, "--json").stdout
        for lang in ((), ("--lang", "uk"))
    ]
    assert as_json[0] == as_json[1]
    assert json.loads(as_json[0])["error"] == "game 1: no transcript named"
    record.write_text("{}")
    assert (
        "pas une feuille de match (format 'truc-p2p match 1' attendu)"
        in run(tmp_path, "--lang", "fr", "verify", "--match", record).stdout
    )


@pytest.mark.parametrize(
    "fields",
    [
        {
            "target": 24,
            "ladder": "literal",
            "rest": "value",
            "audit": "game",
            "deck": "v2",
            "pipeline": True,
        },
        {"deck": "v1"},
        {"deck": "v2", "pipeline": False},
        {"pipeline": True},
        {"pipeline": False, "audit": "hand"},
    ],
)
def test_the_hosts_settings_in_words(fields: dict[str, object]) -> None:
    from truc_p2p.cli._settings_words import settings_words
    from truc_p2p.net._invite import HostSettings

    settings = HostSettings(**fields)  # type: ignore[arg-type]
    assert settings_words(settings, verbose=True) == settings.describe()
    use_language("fr")
    french = settings_words(settings, verbose=True)
    assert french != settings.describe()


def test_the_hosts_settings_in_a_players_words() -> None:
    """A joiner reads the points, what refusing "my rest" costs, an uncommon ladder
    and a match; the deck, its audit and its deal only with --verbose."""
    from truc_p2p.cli._settings_words import settings_words
    from truc_p2p.net._invite import HostSettings

    settings = HostSettings(
        target=12, ladder="literal", rest="game", audit="game", deck="v2", pipeline=True
    )
    assert settings_words(settings) == "to 12 points; refusing “my rest” loses the game"
    other = HostSettings(target=1, ladder="even", rest="value", match=3)
    assert settings_words(other) == (
        "to 1 point; refusing “my rest” costs only the points at stake; "
        "raises go 1, 2, 4, 6, 8…; match of 3 games"
    )
    assert "pipelined" in settings_words(settings, verbose=True)
    use_language("ca")
    catalan = settings_words(settings)
    assert "joc fora" in catalan and "12" in catalan and "deck" not in catalan
