"""The site's archives, made byte for byte the same from the same inputs: this
package's own wheel (written from its installed files, no pip, no network), msgpack's
pure-Python modules from its pinned sdist, and the npm tarballs' ``package/`` folders.

Every zip entry gets the same date (1980-01-01), mode and compression and the entries
are sorted, so only the files' bytes decide the archive's."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from truc_p2p.site._fetch import Pin, SiteError

__all__ = ["deterministic_zip", "msgpack_zip", "npm_files", "package_files", "wheel"]

_EPOCH = (1980, 1, 1, 0, 0, 0)
#: What the page's Python needs of this package besides its modules: the compiled
#: catalogs (ten languages), the CFR bot's table and the solved round's points table
#: (``strongest``: without it the page's strongest played the CFR bot, weaker than the
#: desktop's; about 1 MB) and the round solved with the redeal (290 KB: its
#: difference to the points table), so the page's ``strongest`` asks and answers
#: redeals as the desktop's does.  The score classes' tables (3 MB more, for a gain
#: no benchmark could measure: docs/bots.md) stay out, and the page's ``strongest``
#: plays the points table (and the redeal table) at every score.  The translators'
#: .po/.pot files and the web table's static files (copied to the site's root
#: instead) stay out.
_DATA_SUFFIXES = (".mo",)
_DATA_FILES = (
    "py.typed",
    "bots/cfr_opening.bin",
    "bots/round_table.bin",
    "bots/round_redeal.bin",
)
#: Of an npm package, what a browser may load (scripts, their metadata, the licence).
_NPM_SUFFIXES = (".js", ".mjs", ".json")


def deterministic_zip(files: Mapping[str, bytes]) -> bytes:
    """A zip of ``files`` (archive path -> bytes) that depends on nothing else."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3  # unix, whatever this machine is
            archive.writestr(info, files[name], compresslevel=9)
    return out.getvalue()


def package_files(root: Path) -> dict[str, bytes]:
    """This package's files the page needs, by their path in a wheel (``truc_p2p/...``)."""
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if "__pycache__" in relative.split("/") or not path.is_file():
            continue
        if path.suffix == ".py" or path.suffix in _DATA_SUFFIXES or relative in _DATA_FILES:
            files[f"{root.name}/{relative}"] = path.read_bytes()
    return files


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def wheel(name: str, version: str, files: Mapping[str, bytes], *, summary: str = "") -> bytes:
    """A ``py3-none-any`` wheel of ``files`` with its METADATA, WHEEL and RECORD."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    contents = dict(files)
    contents[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
    ).encode()
    contents[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: truc-p2p site build\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n"
    )
    top = sorted({path.split("/", 1)[0] for path in files})
    contents[f"{info}/top_level.txt"] = "".join(f"{t}\n" for t in top).encode()
    record = [
        f"{path},{_record_hash(data)},{len(data)}\n" for path, data in sorted(contents.items())
    ]
    record.append(f"{info}/RECORD,,\n")
    contents[f"{info}/RECORD"] = "".join(record).encode()
    return deterministic_zip(contents)


def _members(tarball: bytes, pin: Pin) -> Iterable[tuple[str, bytes]]:
    """Each regular file of a .tgz / .tar.gz: (path without its top folder, bytes)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                _top, _, inner = member.name.partition("/")
                extracted = archive.extractfile(member)
                if not inner or extracted is None or ".." in inner.split("/"):
                    continue
                yield inner, extracted.read()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SiteError(f"{pin.name} {pin.version}: unreadable archive: {exc}") from None


def npm_files(tarball: bytes, pin: Pin) -> dict[str, bytes]:
    """An npm tarball's ``package/`` files under the pin's folder: only ``take`` when the
    pin names files, else its scripts, JSON and licence."""
    found: dict[str, bytes] = {}
    kept: set[str] = set()
    for inner, data in _members(tarball, pin):
        if pin.take:
            keep = inner in pin.take
        else:
            keep = inner.endswith(_NPM_SUFFIXES) or inner.upper().startswith("LICENSE")
        if keep:
            found[f"{pin.into}/{inner}"] = data
            kept.add(inner)
    missing = sorted(set(pin.take) - kept)
    if missing:
        raise SiteError(f"{pin.name} {pin.version}: missing from its archive: {missing}")
    return found


def msgpack_zip(sdist: bytes, pin: Pin) -> bytes:
    """msgpack's pure-Python modules (it falls back to ``fallback.py`` when its C
    extension is missing, as in Pyodide), and its licence, as a zip for site-packages."""
    wanted = {*pin.take, *((pin.license,) if pin.license else ())}
    found = {inner: data for inner, data in _members(sdist, pin) if inner in wanted}
    missing = sorted(wanted - set(found))
    if missing:
        raise SiteError(f"{pin.name} {pin.version}: missing from its sdist: {missing}")
    files = {path: found[path] for path in pin.take}
    if pin.license:
        files[f"msgpack/{pin.license}"] = found[pin.license]
    return deterministic_zip(files)
