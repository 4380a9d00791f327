"""Choosing the language: ``--lang`` anywhere, the environment, ``languages``, an
unknown code; and a whole bot game in French with no English left on the screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from helpers.cli import ROOT, run
from helpers.i18n import (
    TRANSLATED,
    english_left,
)

from truc_p2p.i18n import (
    LANGUAGES,
    UnknownLanguage,
    from_accept_language,
    from_environment,
    normalize,
    resolve,
)

KEYS = ["?"] + ["1", "a", "n"] * 400


def test_normalize_locale_names() -> None:
    assert normalize("fr_FR.UTF-8") == "fr"
    assert normalize("gd_GB.UTF-8@euro") == "gd"
    assert normalize("pt-BR") == "pt"
    assert normalize("UK") == "uk"
    assert normalize("C.UTF-8") is None and normalize("POSIX") is None and normalize("") is None


@pytest.mark.parametrize(
    ("environ", "code"),
    [
        ({}, None),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, "es"),
        ({"LC_MESSAGES": "es_ES.UTF-8", "LC_ALL": "uk_UA.UTF-8"}, "uk"),
        ({"LC_ALL": "uk_UA.UTF-8", "LANGUAGE": "de:gd:fr"}, "gd"),
        ({"LANGUAGE": "", "LANG": "is_IS.UTF-8"}, "is"),  # empty counts as unset
        ({"LANG": "de_DE.UTF-8"}, None),  # a language the game does not speak: English
        ({"LANG": "C.UTF-8", "LANGUAGE": ""}, None),
    ],
)
def test_environment_in_gettexts_order(environ: dict[str, str], code: str | None) -> None:
    assert from_environment(environ) == code
    assert resolve(None, environ) == (code or "en")


def test_option_beats_environment_and_unknown_codes_are_refused() -> None:
    assert resolve("ES", {"LANG": "fr_FR.UTF-8"}) == "es"
    assert resolve("fr_CA", {}) == "fr"
    with pytest.raises(UnknownLanguage, match="unknown language 'xx'"):
        resolve("xx", {})


def test_accept_language() -> None:
    assert from_accept_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == "fr"
    assert from_accept_language("de-DE,de;q=0.9,uk;q=0.8,es;q=0.7") == "uk"
    assert from_accept_language("en;q=0.2, gu") == "gu"
    assert from_accept_language("es;q=0, ca;q=0.5") == "ca"
    assert from_accept_language("de, ja") is None and from_accept_language("") is None


def _total() -> int:
    with (ROOT / "truc_p2p" / "locale" / "truc_p2p.pot").open("rb") as f:
        return sum(1 for m in read_po(f) if m.id)


def test_languages_json_reports_completeness(tmp_path: Path) -> None:
    done = run(tmp_path, "languages", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["code"]: row for row in json.loads(done.stdout)}
    assert list(rows) == list(LANGUAGES)
    total = _total()
    assert total > 250
    for code, row in rows.items():
        assert row["total"] == total and row["name"] == LANGUAGES[code]
        assert 0 <= row["translated"] <= total
        assert row["complete"] is (row["translated"] == total)
    assert all(row["complete"] for row in rows.values()), rows  # all ten, at 100 %
    # the JSON stays language-neutral: the same bytes in every language
    assert run(tmp_path, "--lang", "uk", "languages", "--json").stdout == done.stdout


def test_lang_before_or_after_the_command_and_from_the_environment(tmp_path: Path) -> None:
    def chosen(*args: str) -> str:
        done = run(tmp_path, *args)
        assert done.returncode == 0, done.stderr
        return next(line.split()[1] for line in done.stdout.splitlines() if line[0] == "*")

    assert chosen("languages") == "en"
    assert chosen("--lang", "fr", "languages") == "fr"
    assert chosen("languages", "--lang", "es") == "es"
    assert chosen("languages", "--lang=gd") == "gd"
    done = run(tmp_path, "--lang", "fr", "languages")
    assert "289/289 messages (100 %)" in done.stdout or "messages (100 %)" in done.stdout


def test_language_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGUAGE")
    monkeypatch.setenv("LC_ALL", "es_ES.UTF-8")
    done = run(tmp_path, "languages")
    assert "* es" in done.stdout and "mensajes" in done.stdout


@pytest.mark.parametrize("where", ["before", "after"])
def test_unknown_language_is_one_clear_line_and_exit_2(tmp_path: Path, where: str) -> None:
    args = ["--lang", "xx", "play"] if where == "before" else ["play", "--lang", "xx"]
    done = run(tmp_path, *args)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown language 'xx'" in lines[0] and "fr" in lines[0]


def test_unknown_language_is_said_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANGUAGE", "fr_FR")
    done = run(tmp_path, "--lang", "xx", "play")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1
    assert lines[0].startswith("truc-p2p: langue inconnue 'xx'") and "uk" in lines[0]
    monkeypatch.setenv("LANGUAGE", "pt_BR")  # a language the game does not speak: English
    done = run(tmp_path, "play", "--lang=xx")
    assert done.stderr.startswith("truc-p2p: unknown language 'xx'; choose one of: en, fr")


# -- no English left on the screens ---------------------------------------------------


#: Words each language shows in the bot game (the first hand of the text, the
#: co-signed result, the transcript line).
SEEN = {
    "fr": ("Le Truc à deux, en bref", "vous jouez", "main 1", "résultat cosigné", "relevé\u00a0:"),
    "es": ("mano 1", "acta:"),
    "ca": ("mà 1", "acta:"),
    "oc": ("man 1", "registre"),
    "gd": ("làmh 1", "clàr:"),
    "is": ("hönd 1", "leikskrá:"),
    "et": ("käsi 1", "mängulogi:"),
    "gu": ("હાથ 1", "ટ્રાન્સક્રિપ્ટ:"),
    "uk": ("роздача 1", "журнал:"),
}


@pytest.mark.slow
@pytest.mark.parametrize("code", TRANSLATED)
def test_a_whole_bot_game_shows_no_english(tmp_path: Path, code: str) -> None:
    """A whole game at the terminal, to its last lines (the transcript and how to
    verify it), has no English word the language's catalog does not use itself."""
    stdin = "\n".join(KEYS) + "\n"
    done = run(tmp_path, "play", "--lang", code, "--bot", "random", "--seed", "1", stdin=stdin)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    screen = done.stdout
    for seen in SEEN[code]:
        assert seen in screen, (code, seen)
    assert english_left(screen, code) == []
    assert english_left(done.stderr, code) == []
    # the check can fail: the same game in English is caught
    english = run(tmp_path, "play", "--bot", "random", "--seed", "1", stdin=stdin).stdout
    caught = set(english_left(english, code))
    assert {"hand", "trick", "your", "wins"} <= caught
    assert {"transcript", "with"} <= caught  # the last lines are checked too


@pytest.mark.slow
def test_json_output_is_language_neutral(tmp_path: Path) -> None:
    stdin = "\n".join(KEYS) + "\n"
    args = ("play", "--lang", "fr", "--bot", "random", "--seed", "2", "--out", "g")
    done = run(tmp_path, *args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    transcript = next((tmp_path / "g").glob("*.truc"))
    for command in (
        ("verify", "--json", str(transcript)),
        ("games", "--json", "g"),
        ("games", "--json", "no-such-folder"),
    ):
        english = run(tmp_path, *command)
        for code in ("fr", "es", "uk"):
            other = run(tmp_path, "--lang", code, *command)
            assert (other.returncode, other.stdout) == (english.returncode, english.stdout), command
    assert "no such folder" in run(tmp_path, "games", "--json", "no-such-folder").stdout


def test_a_host_stopped_before_anyone_joined_says_so_in_french(tmp_path: Path) -> None:
    """The net layer's endings (here: nobody came) reach the terminal in the language."""
    import signal

    from helpers.cli import start_host

    host = start_host(tmp_path, "--lang", "fr", "--bot", "random", "--identity", "h.key")
    host.proc.send_signal(signal.SIGINT)
    _status, _out, err = host.finish()
    last = err.strip().splitlines()[-1]
    assert last == "partie inachevée\u00a0: arrêté avant que quelqu’un ne rejoigne", err
    assert english_left(last) == []


def test_a_resigned_game_at_the_terminal_in_french(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--lang", "fr", "--bot", "random", "--seed", "1", stdin="q\n")
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-4:])
    assert "abandonné" in tail, tail
    assert english_left(tail) == []
