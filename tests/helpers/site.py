"""A site folder for tests that run the page's JavaScript under node: crypto.js and the
pinned npm packages it imports (downloaded once into the cache, checked, unpacked), and
optionally Pyodide."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from truc_p2p.site import _fetch, _pins

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "truc_p2p" / "site" / "static"
TESTS = ROOT / "tests" / "site"


def node() -> str | None:
    """The ``node`` program, if it is installed and runs."""
    path = shutil.which("node")
    if path is None:
        return None
    try:
        subprocess.run([path, "--version"], capture_output=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return path


def site_dir(dest: Path, *, pyodide: bool = False) -> Path:
    """``dest`` laid out as the site's build lays it out, as far as crypto.js needs:
    ``crypto.js`` and ``vendor/<package>/`` for each pin (and Pyodide if asked)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(STATIC / "crypto.js", dest / "crypto.js")
    pins = (*_pins.CRYPTO_JS_PINS, *((_pins.PYODIDE,) if pyodide else ()))
    for pin in pins:
        _fetch.unpack(_fetch.fetch(pin), dest / "vendor" / pin.vendor)
    return dest
