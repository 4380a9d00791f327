"""``truc-p2p site build``: the static web client as a mapping path -> bytes, and
writing it to a folder.

Theory of operation: :func:`site_files` gathers every file from its source (this
package's static files and table, the pinned downloads, the wheel made from this
package, the icons drawn here), then derives the files that describe the others:
``site.json`` (what boot.js loads), ``sw.js`` (which precaches the rest under a cache
named after the build) and ``manifest.json`` (SHA-256 and size of every file, the
version, the pins).  Nothing depends on the clock, the machine or the order of a
directory listing, so the same inputs give byte-identical files."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from typing import Any

import truc_p2p
from truc_p2p.site._archives import msgpack_zip, npm_files, package_files, wheel
from truc_p2p.site._fetch import Pin, SiteError, fetch, load_pins
from truc_p2p.site._icons import THEME, png_icon, svg_icon

__all__ = [
    "CONTENT_TYPES",
    "CSP",
    "MANIFEST",
    "SiteBuild",
    "build_site",
    "check_target",
    "site_files",
    "write_site",
]

#: The Content-Security-Policy of every page of the site, as a <meta> in each HTML
#: file and as a header where the server can send one (the header also covers the
#: worker, which a <meta> cannot).  'wasm-unsafe-eval' lets Pyodide compile its
#: WebAssembly and nothing else; no inline script, no eval, no other origin but the
#: relay's WebSocket (ws:/wss:, whose host the player chooses).
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)
#: The Content-Type a server must give the site's files (a browser refuses a module
#: script, or streaming WebAssembly compilation, of another type), by suffix.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".whl": "application/zip",
    ".zip": "application/zip",
}
MANIFEST = "manifest.json"
SERVICE_WORKER = "sw.js"
#: The web table's files the page shares with ``--web``.
_TABLE_FILES = ("table.js", "table.css")
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'


@dataclass(frozen=True, kw_only=True)
class SiteBuild:
    """A built site: every file by its path, and the manifest's fields."""

    files: dict[str, bytes]
    build: str
    version: str

    @property
    def manifest(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.files[MANIFEST])
        return parsed

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.files.values())


def _static_files(folders: Iterable[Path]) -> dict[str, bytes]:
    """The files of the first folder, then those of the next ones not already there."""
    files: dict[str, bytes] = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if path.is_file() and "__pycache__" not in relative and relative not in files:
                if path.name == "README.md":
                    continue
                files[relative] = path.read_bytes()
    return files


class _ScriptFinder(HTMLParser):
    """Finds what the CSP forbids in an HTML file: inline scripts and handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        handlers = sorted(n for n in names if n.startswith("on"))
        if handlers:
            self.problems.append(f"<{tag} {handlers[0]}=...> (an inline event handler)")
        if tag == "script":
            self._in_script = "src" not in names
        for name, value in attrs:
            if (
                value
                and name in ("href", "src")
                and value.strip().lower().startswith("javascript:")
            ):
                self.problems.append(f"<{tag} {name}='javascript:...'>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.problems.append("<script> with inline code")
            self._in_script = False


def harden_html(path: str, html: bytes, *, index: bool) -> bytes:
    """``html`` with the site's CSP <meta> (and, for the start page, the PWA's manifest
    link and service-worker registration) added where missing; :class:`SiteError`
    for an inline script, which the CSP would block."""
    text = html.decode("utf-8")
    finder = _ScriptFinder()
    finder.feed(text)
    if finder.problems:
        raise SiteError(f"{path}: {finder.problems[0]}: the site's CSP forbids inline script")
    additions = []
    if "Content-Security-Policy" not in text:
        additions.append(_CSP_META)
    if index:
        if 'rel="icon"' not in text:
            additions.append('<link rel="icon" href="icons/icon.svg" type="image/svg+xml">')
        if 'rel="manifest"' not in text:
            additions.append('<link rel="manifest" href="site.webmanifest">')
        if 'name="theme-color"' not in text:
            additions.append(f'<meta name="theme-color" content="{THEME}">')
        if "register-sw.js" not in text:
            additions.append('<script type="module" src="register-sw.js"></script>')
    if not additions:
        return html
    # after the charset (which must come first), else at the top of <head>
    head = re.search(r"<meta\s+charset=[^>]*>", text, re.IGNORECASE) or re.search(
        r"<head(\s[^>]*)?>", text, re.IGNORECASE
    )
    if head is None:
        raise SiteError(f"{path}: no <head> to put the site's CSP in")
    insert = "".join(f"\n{line}" for line in additions)
    return (text[: head.end()] + insert + text[head.end() :]).encode("utf-8")


def _webmanifest() -> bytes:
    icons = [
        {"src": "icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {
            "src": "icons/icon-512.png",
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
        {"src": "icons/icon.svg", "sizes": "any", "type": "image/svg+xml"},
    ]
    manifest = {
        "name": "truc-p2p",
        "short_name": "Truc",
        "description": "Le Truc, peer to peer, with a verifiable dealerless shuffle",
        "start_url": ".",
        "scope": ".",
        "display": "standalone",
        "background_color": THEME,
        "theme_color": THEME,
        "icons": icons,
    }
    return _json(manifest)


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _service_worker(build: str, files: Mapping[str, bytes]) -> bytes:
    template = resources.files("truc_p2p.site").joinpath("sw.template.js").read_text("utf-8")
    listing = {
        path: "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()
        for path, data in sorted(files.items())
    }
    body = json.dumps(listing, indent=2, sort_keys=True)
    return template.replace("__BUILD__", build).replace("__FILES__", body).encode()


#: Where the site's page takes the table's markup (``<!-- table -->``): from the
#: ``--web`` page, between its ``<!-- table: …`` and ``<!-- /table -->`` lines, so
#: the two pages show one table, written once.
TABLE_MARK = b"<!-- table -->\n"


def table_markup(web_index: bytes) -> bytes:
    """The table's markup in the ``--web`` page (``ui/_web/static/index.html``)."""
    start = web_index.index(b"<!-- table:")
    start = web_index.index(b"\n", start) + 1
    return web_index[start : web_index.index(b"<!-- /table -->", start)]


def _package_root() -> Path:
    return Path(truc_p2p.__file__).resolve().parent


def site_files(
    *,
    offline: bool = False,
    cache: Path | None = None,
    extra_static: Iterable[Path] = (),
    override_static: Iterable[Path] = (),
    pins: Mapping[str, Pin] | None = None,
) -> SiteBuild:
    """Every file of this build's site, in memory.  ``extra_static`` folders supply
    page files this package does not have; ``override_static`` folders replace the
    package's own (tests use them for stand-in pages)."""
    pins = dict(load_pins() if pins is None else pins)
    root = _package_root()
    version = truc_p2p.__version__
    static = _static_files(
        [
            *override_static,
            Path(str(resources.files("truc_p2p.site").joinpath("static"))),
            *extra_static,
        ]
    )
    files: dict[str, bytes] = {}
    for path, data in static.items():
        if path.endswith(".html"):
            data = harden_html(path, data, index=path == "index.html")
        files[path] = data
    table = root / "ui" / "_web" / "static"
    for name in _TABLE_FILES:
        files.setdefault(name, (table / name).read_bytes())
    if TABLE_MARK in files.get("index.html", b""):
        markup = table_markup((table / "index.html").read_bytes())
        files["index.html"] = files["index.html"].replace(TABLE_MARK, markup, 1)
    archives = []
    for _name, pin in sorted(pins.items()):
        data = fetch(pin, offline=offline, cache=cache)
        if pin.into.endswith(".zip"):
            files[pin.into] = msgpack_zip(data, pin)
            archives.append({"path": pin.into, "format": "zip"})
        else:
            files.update(npm_files(data, pin))
    wheel_path = f"py/truc_p2p-{version}-py3-none-any.whl"
    files[wheel_path] = wheel(
        "truc-p2p",
        version,
        package_files(root),
        summary="Peer-to-peer Le Truc (the site's copy, built by truc-p2p site build)",
    )
    archives.insert(0, {"path": wheel_path, "format": "wheel"})
    for archive in archives:
        archive["sha256"] = _sha256(files[archive["path"]])
    files["icons/icon-192.png"] = png_icon(192)
    files["icons/icon-512.png"] = png_icon(512)
    files["icons/icon.svg"] = svg_icon()
    files["site.webmanifest"] = _webmanifest()
    pyodide = pins["pyodide"].into
    files["site.json"] = _json({"version": version, "pyodide": f"{pyodide}/", "archives": archives})
    files.pop(SERVICE_WORKER, None)
    files.pop(MANIFEST, None)
    build = _sha256(_json({path: _sha256(data) for path, data in sorted(files.items())}))
    files[SERVICE_WORKER] = _service_worker(build, files)
    manifest = {
        "name": "truc-p2p site",
        "version": version,
        "build": build,
        "pins": {name: pin.as_json() for name, pin in sorted(pins.items())},
        "files": {
            path: {"sha256": _sha256(data), "size": len(data)}
            for path, data in sorted(files.items())
        },
    }
    files[MANIFEST] = _json(manifest)
    return SiteBuild(files=dict(sorted(files.items())), build=build, version=version)


def check_target(folder: Path) -> None:
    """:class:`SiteError` unless ``folder`` may receive a site: missing, empty, or
    holding an earlier build (its manifest.json)."""
    if folder.exists() and not folder.is_dir():
        raise SiteError(f"{folder} is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MANIFEST).is_file():
        raise SiteError(f"{folder} is not empty and holds no site (no {MANIFEST}): not touched")


def write_site(site: SiteBuild, folder: Path) -> None:
    """Write ``site`` into ``folder``: the files of an earlier build there that this one
    lacks are removed; a non-empty folder that holds no site is refused."""
    check_target(folder)
    old = folder / MANIFEST
    stale: set[str] = set()
    if old.is_file():
        try:
            stale = set(json.loads(old.read_bytes())["files"]) - set(site.files)
        except (ValueError, KeyError, TypeError):
            stale = set()
    for path, data in site.files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for path in sorted(stale):
        target = (folder / path).resolve()
        if folder.resolve() in target.parents and target.is_file():
            target.unlink()
    for directory in sorted(folder.rglob("*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            shutil.rmtree(directory)


def build_site(folder: Path, **options: Any) -> SiteBuild:
    """Build the site and write it into ``folder``."""
    site = site_files(**options)
    write_site(site, folder)
    return site
