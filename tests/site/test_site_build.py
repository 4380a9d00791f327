"""``truc-p2p site build``: the layout of SITE.md, a manifest that tells the truth, the
same bytes from the same inputs, pinned downloads checked before use, archives that a
Python can use, a CSP in every page, icons that are PNGs."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

import pytest
from helpers.cli import command

import truc_p2p
from truc_p2p import __version__
from truc_p2p.site import CSP, Pin, SiteBuild, SiteError, cache_dir, fetch, load_pins
from truc_p2p.site._build import TABLE_MARK, harden_html, table_markup

WHEEL = f"py/truc_p2p-{__version__}-py3-none-any.whl"
#: SITE.md's layout (the page engineer's and the seam's files come with their branches).
LAYOUT = (
    "index.html",
    "boot.js",
    "crypto.js",
    "sw.js",
    "register-sw.js",
    "site.webmanifest",
    "site.json",
    "icons/icon-192.png",
    "icons/icon-512.png",
    "icons/icon.svg",
    "table.js",
    "table.css",
    "vendor/pyodide/pyodide.mjs",
    "vendor/pyodide/pyodide.asm.mjs",
    "vendor/pyodide/pyodide.asm.wasm",
    "vendor/pyodide/python_stdlib.zip",
    "vendor/pyodide/pyodide-lock.json",
    "vendor/noble-secp256k1/index.js",
    "vendor/noble-ed25519/index.js",
    "vendor/noble-hashes/sha2.js",
    WHEEL,
    "py/msgpack-1.2.4.zip",
)
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_folder_holds_the_layout_and_what_the_manifest_lists(
    site: SiteBuild, site_dir: Path
) -> None:
    on_disk = _tree(site_dir)
    assert set(LAYOUT) <= set(on_disk)
    manifest = json.loads(on_disk["manifest.json"])
    assert set(manifest["files"]) == set(on_disk) - {"manifest.json"}
    for path, entry in manifest["files"].items():
        assert entry == {
            "sha256": hashlib.sha256(on_disk[path]).hexdigest(),
            "size": len(on_disk[path]),
        }, path
    assert manifest["version"] == __version__
    assert manifest["build"] == site.build and len(site.build) == 64
    assert manifest["pins"] == {name: pin.as_json() for name, pin in load_pins().items()}
    # each npm pin as npm's dist.integrity, msgpack's as PyPI's sha256
    assert manifest["pins"]["pyodide"]["integrity"].startswith("sha512-74Wq1kXOC+CC")
    assert (
        manifest["pins"]["msgpack"]["integrity"]
        == "sha256-"
        + base64.b64encode(
            bytes.fromhex("475c44e12f2a5de766a8448783f149c9b33f3f49b88953c6cd739a77d93c732c")
        ).decode()
    )


def test_site_json_lists_the_python_archives_with_their_hashes(site: SiteBuild) -> None:
    loaded = json.loads(site.files["site.json"])
    assert loaded["version"] == __version__
    assert loaded["pyodide"] == "vendor/pyodide/"
    assert [a["path"] for a in loaded["archives"]] == [WHEEL, "py/msgpack-1.2.4.zip"]
    for archive in loaded["archives"]:
        assert archive["sha256"] == hashlib.sha256(site.files[archive["path"]]).hexdigest()
        assert archive["format"] in ("wheel", "zip")


def test_the_service_worker_precaches_every_file_under_the_builds_name(
    site: SiteBuild,
) -> None:
    text = site.files["sw.js"].decode()
    assert f'const BUILD = "{site.build}";' in text
    listing = json.loads(text.split("const FILES = ", 1)[1].split(";\n", 1)[0])
    assert set(listing) == set(site.files) - {"sw.js", "manifest.json"}
    for path, integrity in listing.items():
        digest = base64.b64encode(hashlib.sha256(site.files[path]).digest()).decode()
        assert integrity == f"sha256-{digest}", path


@pytest.mark.slow  # two more builds, in processes
def test_the_same_inputs_give_the_same_bytes(site: SiteBuild, tmp_path: Path) -> None:
    from helpers.site import stand_in_site

    again = stand_in_site(offline=True)
    assert again.files == site.files
    # and the command, in two processes with other hash seeds, time zones and folders
    folders = []
    for seed in ("1", "2"):
        folder = tmp_path / f"out{seed}"
        environment = {**os.environ, "PYTHONHASHSEED": seed, "TZ": f"UTC+{seed}"}
        done = subprocess.run(
            [*command("site", "build", "--offline", folder)],
            capture_output=True,
            text=True,
            env=environment,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith(f"wrote the site into {folder}: ")
        folders.append(_tree(folder))
    assert folders[0] == folders[1]
    # built without the stand-in page, the rest is the same
    assert folders[0]["py/msgpack-1.2.4.zip"] == site.files["py/msgpack-1.2.4.zip"]
    assert folders[0][WHEEL] == site.files[WHEEL]


def test_a_change_of_one_input_changes_the_build(site: SiteBuild, tmp_path: Path) -> None:
    from helpers.site import STAND_IN_MISSING, STAND_IN_PAGE

    from truc_p2p.site import site_files

    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "verify.html").write_text("<html><head></head><body>x</body></html>")
    other = site_files(
        override_static=[STAND_IN_PAGE], extra_static=[STAND_IN_MISSING, extra], offline=True
    )
    assert other.build != site.build
    assert other.files["sw.js"] != site.files["sw.js"]
    assert other.files["manifest.json"] != site.files["manifest.json"]
    # written over the other build, this one leaves none of the other's files behind
    from truc_p2p.site import write_site

    folder = tmp_path / "site"
    write_site(other, folder)
    assert (folder / "verify.html").is_file()
    write_site(site, folder)
    assert _tree(folder) == site.files


def test_the_wheel_is_a_valid_wheel_of_this_package(site: SiteBuild) -> None:
    archive = zipfile.ZipFile(io.BytesIO(site.files[WHEEL]))
    names = archive.namelist()
    info = f"truc_p2p-{__version__}.dist-info"
    assert f"{info}/METADATA" in names and f"{info}/WHEEL" in names
    assert "Tag: py3-none-any" in archive.read(f"{info}/WHEEL").decode()
    assert f"Version: {__version__}" in archive.read(f"{info}/METADATA").decode()
    record = archive.read(f"{info}/RECORD").decode().splitlines()
    listed = {line.split(",")[0]: line.split(",")[1:] for line in record}
    assert set(listed) == set(names)
    for name, (digest, size) in listed.items():
        if name.endswith("RECORD"):
            continue
        data = archive.read(name)
        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, size) == (f"sha256={want}", str(len(data))), name
    for needed in (
        "truc_p2p/__init__.py",
        "truc_p2p/rules/_game.py",
        "truc_p2p/protocol/__init__.py",
        "truc_p2p/bots/cfr_opening.bin",
        "truc_p2p/bots/round_table.bin",
        "truc_p2p/bots/round_redeal.bin",
        "truc_p2p/locale/fr/LC_MESSAGES/truc_p2p.mo",
    ):
        assert needed in names, needed
    # the score classes' tables stay out (3 MB); their absence means the points table
    assert not [n for n in names if "round_score_" in n or n.endswith("round_classes.json")]
    assert not [n for n in names if n.endswith((".po", ".pot", ".pyc"))]
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in archive.infolist())


def test_the_wheel_and_msgpack_import_from_their_zips_on_sys_path(
    site: SiteBuild, tmp_path: Path
) -> None:
    """Put whole on sys.path as boot.js does (zipimport), in a Python that has neither
    (msgpack's C extension left out, as in Pyodide): the rules engine plays, msgpack
    packs with its fallback, and the package's data files (a language's catalogue, a
    bot's table) are read from the wheel."""
    zips = []
    for path in (WHEEL, "py/msgpack-1.2.4.zip"):
        zips.append(tmp_path / path.rsplit("/", 1)[1])
        zips[-1].write_bytes(site.files[path])
    probe = (
        "import sys; sys.path[:0] = sys.argv[1:];"
        "import msgpack, truc_p2p.rules;"
        "assert truc_p2p.rules.__file__.startswith(sys.argv[1]), truc_p2p.rules.__file__;"
        "assert msgpack.Packer.__module__ == 'msgpack.fallback';"
        "from importlib import resources; from truc_p2p import i18n;"
        "assert resources.files('truc_p2p.bots').joinpath('cfr_opening.bin').read_bytes();"
        # the page's strongest plays the solved round's points table at every score
        "from truc_p2p.bots._round_table import load_table, table_for;"
        "assert load_table() is not None;"
        "assert table_for((11, 11), 0, 1, 12) is load_table();"
        # and the table with the redeal, as the desktop's does far from the end
        "from truc_p2p.bots._round_table import load_redeal_table;"
        "assert load_redeal_table() is not None;"
        "assert i18n.load('fr').gettext('play the computer') != 'play the computer';"
        "print(msgpack.unpackb(msgpack.packb({'a': [1, b'x']})), msgpack.version)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe, *map(str, zips)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'a': [1, b'x']} (1, 2, 4)"
    names = zipfile.ZipFile(io.BytesIO(site.files["py/msgpack-1.2.4.zip"])).namelist()
    assert sorted(names) == [
        "msgpack/COPYING",
        "msgpack/__init__.py",
        "msgpack/exceptions.py",
        "msgpack/ext.py",
        "msgpack/fallback.py",
    ]


def test_every_page_carries_the_csp_and_no_inline_script(site: SiteBuild) -> None:
    pages = [path for path in site.files if path.endswith(".html")]
    assert "index.html" in pages
    for path in pages:
        assert CSP_META in site.files[path].decode(), path
    index = site.files["index.html"].decode()
    assert '<link rel="manifest" href="site.webmanifest">' in index
    assert '<script type="module" src="register-sw.js"></script>' in index


def test_the_build_adds_the_csp_and_refuses_inline_script() -> None:
    bare = b'<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>'
    hardened = harden_html("verify.html", bare, index=False).decode()
    assert hardened.index(CSP_META) > hardened.index('<meta charset="utf-8">')
    assert "register-sw.js" not in hardened
    assert harden_html("x.html", hardened.encode(), index=False) == hardened.encode()
    for bad, says in (
        (b"<head></head><script>alert(1)</script>", "inline code"),
        (b'<head></head><button onclick="go()">go</button>', "onclick"),
        (b'<head></head><a href="javascript:go()">go</a>', "javascript:"),
    ):
        with pytest.raises(SiteError, match=says):
            harden_html("x.html", bad, index=False)
    # a script from a file is what the CSP allows
    harden_html("x.html", b'<head></head><script src="a.js"></script>', index=False)


def test_the_pwa_manifest_and_its_icons(site: SiteBuild) -> None:
    manifest = json.loads(site.files["site.webmanifest"])
    assert manifest["name"] == "truc-p2p" and manifest["short_name"]
    assert manifest["start_url"] == "." and manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#")
    for icon in manifest["icons"]:
        assert icon["src"] in site.files
    for size in (192, 512):
        png = site.files[f"icons/icon-{size}.png"]
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (size, size)
        pixels = zlib.decompress(_idat(png))
        row = 1 + 3 * size

        def at(
            x: float, y: float, pixels: bytes = pixels, size: int = size, row: int = row
        ) -> bytes:
            return pixels[int(y * size) * row + 1 + 3 * int(x * size) :][:3]

        assert at(0.02, 0.02) == bytes.fromhex("1b5e3b")  # the cloth
        assert at(0.5, 0.5) == bytes.fromhex("e0a81e")  # the gold coin
        assert at(0.35, 0.3) == bytes.fromhex("fbf7ec")  # the card
    svg = ElementTree.fromstring(site.files["icons/icon.svg"])
    assert svg.tag.endswith("svg") and len(list(svg)) == 3


def _idat(png: bytes) -> bytes:
    data, at = b"", 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return data


def _pin(url: str, data: bytes, name: str = "thing") -> Pin:
    return Pin(
        name=name,
        version="1.0",
        url=url,
        algorithm="sha512",
        digest=hashlib.sha512(data).digest(),
        into="vendor/thing",
    )


def test_a_download_is_checked_before_use_and_cached(tmp_path: Path) -> None:
    source = tmp_path / "thing.tgz"
    source.write_bytes(b"the real bytes")
    pin = _pin(source.as_uri(), b"the real bytes")
    cache = tmp_path / "cache"
    with pytest.raises(SiteError, match=r"^thing 1.0 is not in the cache .* \(--offline\)$"):
        fetch(pin, offline=True, cache=cache)
    assert fetch(pin, cache=cache) == b"the real bytes"
    source.write_bytes(b"changed upstream")
    assert fetch(pin, offline=True, cache=cache) == b"the real bytes"
    # a corrupted cache is not used: offline it says so, online it downloads again
    (cached,) = cache.iterdir()
    cached.write_bytes(b"corrupted")
    with pytest.raises(SiteError, match="is corrupted in the cache"):
        fetch(pin, offline=True, cache=cache)
    with pytest.raises(SiteError) as mismatch:
        fetch(pin, cache=cache)
    assert str(mismatch.value).startswith(f"{source.as_uri()}: hash mismatch: got sha512-")
    assert "\n" not in str(mismatch.value)
    assert cached.read_bytes() == b"corrupted"  # nothing unchecked was written


def test_no_network_is_one_line(tmp_path: Path) -> None:
    pin = _pin("http://127.0.0.1:9/pyodide.tgz", b"x")
    with pytest.raises(
        SiteError, match=r"^cannot download http://127.0.0.1:9/pyodide.tgz \(no network\?\)"
    ):
        fetch(pin, cache=tmp_path)


def test_the_command_says_one_line_with_an_empty_cache_offline(tmp_path: Path) -> None:
    environment = {**os.environ, "TRUC_P2P_SITE_CACHE": str(tmp_path / "empty")}
    done = subprocess.run(
        command("site", "build", "--offline", tmp_path / "out"),
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr == ""
    (line,) = done.stdout.splitlines()
    assert line.startswith("truc-p2p site: ") and "(--offline)" in line
    assert not (tmp_path / "out").exists()


def test_the_cache_is_in_home_or_where_the_environment_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TRUC_P2P_SITE_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path
    monkeypatch.delenv("TRUC_P2P_SITE_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "truc-p2p" / "site"


def test_a_folder_that_holds_something_else_is_not_touched(site: SiteBuild, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    done = subprocess.run(
        command("site", "build", "--offline", tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "is not empty and holds no site" in done.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_sites_page_takes_the_table_from_the_web_page() -> None:
    """One table, written once: the site's index.html marks where the build puts the
    --web page's table markup, and holds no copy of it."""
    package = Path(truc_p2p.__file__).resolve().parent
    web = (package / "ui" / "_web" / "static" / "index.html").read_bytes()
    page = (package / "site" / "static" / "index.html").read_bytes()
    markup = table_markup(web)
    for part in (b'id="scoreboard"', b'id="my-hand"', b'id="final"', b'id="app-share"'):
        assert part in markup, part
    assert page.count(TABLE_MARK) == 1 and b'id="scoreboard"' not in page
