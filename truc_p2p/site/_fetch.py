"""Download a pinned npm tarball into a cache (checked against its integrity hash) and
unpack its ``package/`` folder.  Standard library only (urllib, tarfile): no node needed.

The cache is ``$TRUC_P2P_SITE_CACHE`` or ``~/.cache/truc-p2p/site``.  A cached file is
checked again on every use; a file that does not match is never used.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.request
from pathlib import Path

from truc_p2p.site._pins import Pin

__all__ = ["CACHE_ENV", "IntegrityError", "cache_dir", "fetch", "unpack"]

CACHE_ENV = "TRUC_P2P_SITE_CACHE"
_MAX_TARBALL = 64 * 1024 * 1024


class IntegrityError(Exception):
    """A download (or a cached copy) does not match its pinned integrity hash."""


def cache_dir() -> Path:
    """Where downloads are kept."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "truc-p2p" / "site"


def _matches(data: bytes, integrity: str) -> bool:
    algo, _, want = integrity.partition("-")
    if algo not in ("sha512", "sha384", "sha256"):
        raise IntegrityError(f"unsupported integrity algorithm {algo!r}")
    return base64.b64encode(hashlib.new(algo, data).digest()).decode() == want


def fetch(pin: Pin, cache: Path | None = None, *, timeout: float = 60.0) -> Path:
    """The path of ``pin``'s tarball in the cache, downloaded first if needed;
    :class:`IntegrityError` if the bytes do not match, ``OSError`` if it cannot be fetched."""
    folder = cache or cache_dir()
    path = folder / pin.filename
    if path.is_file() and _matches(path.read_bytes(), pin.integrity):
        return path
    with urllib.request.urlopen(pin.url, timeout=timeout) as response:
        data = response.read(_MAX_TARBALL + 1)
    if len(data) > _MAX_TARBALL or not _matches(data, pin.integrity):
        raise IntegrityError(f"{pin.name}@{pin.version} from {pin.url} does not match its pin")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".part-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def unpack(tarball: Path, dest: Path) -> Path:
    """The tarball's ``package/`` folder copied as-is to ``dest`` (replaced if present).
    Only regular files and folders inside ``package/`` are taken (no links, no ``..``)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if not member.isfile() or len(parts) < 2 or parts[0] != "package" or ".." in parts:
                continue
            target = dest.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                with source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
    return dest
