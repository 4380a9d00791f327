"""The translators' side of the catalogs, with Babel (``pip install -e '.[test]'``).

    python tools/i18n.py extract        # source -> truc_p2p/locale/truc_p2p.pot
    python tools/i18n.py update         # .pot -> every <lang>/LC_MESSAGES/truc_p2p.po
    python tools/i18n.py init CODE      # a new language's .po (add CODE to LANGUAGES too)
    python tools/i18n.py compile        # every .po -> its .mo (committed, shipped)
    python tools/i18n.py all            # extract, update, compile

The program itself never needs Babel: it reads the compiled ``.mo`` files with
the standard library (see ``truc_p2p/i18n/_catalog.py`` for why this design).
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "truc_p2p" / "locale"
DOMAIN = "truc_p2p"
VERSION = "0.1.0"
POT = LOCALE / f"{DOMAIN}.pot"
#: The calls that mark a message: _("..."), ngettext("...", "...", n), N_("..."),
#: Np_("...", "...") (a plural pair marked, not translated, where it is written).
KEYWORDS = ["-k", "_", "-k", "ngettext:1,2", "-k", "N_", "-k", "Np_:1,2"]
#: The plural rules translators and gettext teams use (Babel's newest CLDR data gives
#: French, Spanish and Catalan a third form for millions, which no tool expects).
PLURAL_FORMS = {
    "fr": "nplurals=2; plural=(n > 1);",
    "oc": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "ca": "nplurals=2; plural=(n != 1);",
}


def _babel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract(output: Path = POT) -> None:
    """Every marked message of the package into ``output`` (a ``.pot``)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    os.chdir(ROOT)  # locations relative to the repository: truc_p2p/ui/_texts.py
    _babel(
        "extract",
        "-F",
        str(ROOT / "babel.cfg"),
        "--no-default-keywords",
        *KEYWORDS,
        "--add-location=file",
        "--add-comments=Translators:",  # a "# Translators: ..." comment says what a word means
        "--sort-by-file",
        "--ignore-dirs=.* __pycache__",  # not the default ._*: ui/_web holds the web table
        "--project=truc-p2p",
        "--copyright-holder=truc-p2p authors",
        "--msgid-bugs-address=https://github.com/truc-p2p/truc-p2p/issues",
        "-o",
        str(output),
        "--version=" + VERSION,
        "truc_p2p",
    )


def po_files() -> list[Path]:
    return sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def update() -> None:
    """Merge the template into every catalog; messages gone from the source go too."""
    _babel(
        "update",
        "-i",
        str(POT),
        "-d",
        str(LOCALE),
        "-D",
        DOMAIN,
        "--no-fuzzy-matching",
        "--ignore-obsolete",
    )


def init(code: str) -> None:
    """A new catalog for language ``code``, its plural rule from Babel's CLDR data."""
    _babel("init", "-i", str(POT), "-d", str(LOCALE), "-D", DOMAIN, "-l", code)
    rule = PLURAL_FORMS.get(code)
    if rule is not None:
        po = LOCALE / code / "LC_MESSAGES" / f"{DOMAIN}.po"
        header = f'"Plural-Forms: {rule}\\n"\n'
        text = re.sub(
            r'"Plural-Forms:.*?\\n"\n', lambda _m: header, po.read_text(), count=1, flags=re.S
        )
        forms = int(rule.split(";")[0].split("=")[1])
        text = re.sub(r'msgstr\[(\d+)\] ""\n', lambda m: "" if int(m[1]) >= forms else m[0], text)
        po.write_text(text)


def mo_bytes(po: Path) -> bytes:
    """``po`` compiled (fuzzy and empty translations left out: they show English)."""
    with po.open("rb") as f:
        catalog = read_po(f)
    for message in list(catalog):
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and not all(forms):
            # Babel keeps a plural message whose forms are all empty: gettext would show
            # an empty text, so leave it out (English shows instead), like msgfmt does
            catalog.delete(message.id)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def compile_all() -> None:
    for po in po_files():
        po.with_suffix(".mo").write_bytes(mo_bytes(po))


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("extract", "update", "init", "compile", "all"):
        print(__doc__, file=sys.stderr)
        return 2
    command = argv[0]
    if command == "init":
        if len(argv) != 2:
            print("usage: python tools/i18n.py init CODE", file=sys.stderr)
            return 2
        init(argv[1])
        return 0
    if command in ("extract", "all"):
        extract()
    if command in ("update", "all"):
        update()
    if command in ("compile", "all"):
        compile_all()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
