"""``truc-p2p site check URL|DIR``: does a deployed site hold exactly this build?

It reads the target's manifest.json and every file this build has, hashes what it
got, and reports each difference in one line: a manifest that is not this build's, a
file missing, added, or whose bytes differ from this build's (tampered or stale)."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truc_p2p.site._build import MANIFEST, SiteBuild
from truc_p2p.site._fetch import TIMEOUT, SiteError

__all__ = ["CheckReport", "check_site", "reader_for"]

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True, kw_only=True)
class CheckReport:
    """What ``site check`` found: one line per difference, and how many files it read."""

    differences: tuple[str, ...]
    checked: int

    @property
    def identical(self) -> bool:
        return not self.differences


def reader_for(target: str) -> Reader:
    """A function path -> bytes (``None`` for a missing file) over a URL or a folder;
    :class:`SiteError` for a target that cannot be read at all."""
    scheme = urllib.parse.urlsplit(target).scheme.lower()
    if scheme in ("http", "https"):
        base = target if target.endswith("/") else target + "/"
        return lambda path: _read_url(urllib.parse.urljoin(base, urllib.parse.quote(path)))
    if scheme and len(scheme) > 1:
        raise SiteError(f"{target}: not an http(s) URL nor a folder")
    folder = Path(target)
    if not folder.is_dir():
        raise SiteError(f"{target}: no such folder")
    return lambda path: _read_file(folder, path)


def _read_file(folder: Path, path: str) -> bytes | None:
    try:
        return (folder / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        raise SiteError(f"{folder / path}: {exc.strerror or exc}") from None


def _read_url(url: str) -> bytes | None:
    request = urllib.request.Request(url, headers={"User-Agent": "truc-p2p site check"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return None
        raise SiteError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise SiteError(f"{url}: unreachable: {reason}") from None


def _their_manifest(read: Reader) -> dict[str, Any]:
    raw = read(MANIFEST)
    if raw is None:
        raise SiteError(f"no {MANIFEST} there: not a truc-p2p site")
    try:
        manifest = json.loads(raw)
        files = manifest["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise SiteError(f"its {MANIFEST} is not a site manifest") from None
    parsed: dict[str, Any] = manifest
    return parsed


def check_site(read: Reader, expected: SiteBuild) -> CheckReport:
    """Compare the site that ``read`` reads with ``expected``, this build."""
    ours = expected.manifest
    theirs = _their_manifest(read)
    lines: list[str] = []
    for key in ("version", "build"):
        if theirs.get(key) != ours[key]:
            lines.append(f"{MANIFEST}: {key} {theirs.get(key)!r}, this build's is {ours[key]!r}")
    if theirs.get("pins") != ours["pins"]:
        lines.append(f"{MANIFEST}: other pinned downloads than this build's")
    their_files: dict[str, Any] = theirs["files"]
    for path in sorted(set(their_files) - set(ours["files"])):
        lines.append(f"{path}: in its manifest, not in this build")
    checked = 0
    for path, entry in sorted(ours["files"].items()):
        data = read(path)
        checked += 1
        if data is None:
            lines.append(f"{path}: missing")
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != entry["sha256"]:
            lines.append(
                f"{path}: differs from this build ({len(data)} bytes, sha256 {digest[:16]}..., "
                f"this build's {entry['sha256'][:16]}...)"
            )
        listed = their_files.get(path)
        if listed is None:
            lines.append(f"{path}: not in its manifest")
        elif not isinstance(listed, dict) or listed.get("sha256") != digest:
            lines.append(f"{path}: its manifest gives another hash than the file served")
    if read(MANIFEST) != expected.files[MANIFEST] and not lines:
        lines.append(f"{MANIFEST}: differs from this build's")
    return CheckReport(differences=tuple(lines), checked=checked)
