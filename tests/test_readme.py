"""The README stays what a newcomer needs first: short, its first commands the demo
and the tests, every link to a file of the repository alive; the rest is in docs/,
every page of which is in the site's navigation (``.ci/run`` checks the links inside
docs/ with ``mkdocs build --strict``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 250


def test_its_first_commands_are_the_demo_and_the_tests() -> None:
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].endswith(".venv/bin/truc-p2p demo"), block
    assert block[1].endswith(".venv/bin/python -m pytest -q"), block
    assert "pip install -q -e '.[test]'" in block[1]


def test_every_link_to_a_file_resolves() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10, local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []


def test_every_docs_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages and pages <= set(re.findall(r"([\w-]+\.md)", nav)), pages
