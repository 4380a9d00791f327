"""The site of tests/site and benchmarks/site_load.py: built once with the stand-in
page of tests/site/fixtures (in place of the package's own page), and
served from disk by a tiny static server that sends the site's CSP as a header too."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from truc_p2p.site import CONTENT_TYPES, CSP, SiteBuild, site_files

FIXTURES = Path(__file__).resolve().parents[1] / "site" / "fixtures"
#: The stand-in page (index.html, app.js, worker.js): it replaces the package's own.
STAND_IN_PAGE = FIXTURES / "page"
#: Stand-ins for what another branch brings (crypto.js), used only while it is missing.
STAND_IN_MISSING = FIXTURES / "missing"


def stand_in_site(**options: Any) -> SiteBuild:
    """This build's site with the stand-in page in place of the package's own (the
    page's index.html, app.js and worker.js; the rest is the build's)."""
    return site_files(override_static=[STAND_IN_PAGE], extra_static=[STAND_IN_MISSING], **options)


class _Handler(http.server.SimpleHTTPRequestHandler):
    def guess_type(self, path: str | os.PathLike[str]) -> str:
        return CONTENT_TYPES.get(Path(path).suffix) or super().guess_type(path)

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def copyfile(self, source: Any, outputfile: Any) -> None:
        data = source.read()
        tally = getattr(self.server, "tally", None)
        if tally is not None:
            tally["requests"] = tally.get("requests", 0) + 1
            tally["bytes"] = tally.get("bytes", 0) + len(data)
            path = self.path.split("?", 1)[0].lstrip("/") or "index.html"
            tally[f"/{path}"] = tally.get(f"/{path}", 0) + 1
        outputfile.write(data)


@contextlib.contextmanager
def serve_folder(folder: Path, tally: dict[str, int] | None = None) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a secure context, so the service worker runs);
    yields its base URL, ending in ``/``.  ``tally`` counts the requests and bytes
    served (what crossed the network)."""
    handler = functools.partial(_Handler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.tally = tally  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# -- the page's crypto.js under node (tests/site/test_site_crypto.py) ----------------------

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "truc_p2p" / "site" / "static"
TESTS = ROOT / "tests" / "site"
#: The pins crypto.js needs (pins.json names), and Pyodide's for running the package.
CRYPTO_PINS = ("tiny-secp256k1", "noble-ed25519", "noble-hashes")


def node() -> str | None:
    """The ``node`` program, if it is installed and runs."""
    import shutil
    import subprocess

    path = shutil.which("node")
    if path is None:
        return None
    try:
        subprocess.run([path, "--version"], capture_output=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return path


def crypto_site(dest: Path, *, pyodide: bool = False) -> Path:
    """``dest`` laid out as the site build lays out what crypto.js needs: ``crypto.js``
    and the pinned npm packages under ``vendor/`` (Pyodide's too if asked), fetched
    through the build's own cache and checks."""
    from truc_p2p.site import fetch, load_pins
    from truc_p2p.site._archives import npm_files

    pins = load_pins()
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "crypto.js").write_bytes((STATIC / "crypto.js").read_bytes())
    for name in (*CRYPTO_PINS, *(("pyodide",) if pyodide else ())):
        for path, data in npm_files(fetch(pins[name]), pins[name]).items():
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return dest
