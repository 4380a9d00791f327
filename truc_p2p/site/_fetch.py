"""The site's downloads: pinned in ``pins.json``, fetched over HTTPS with urllib, checked
against their integrity hash before a byte is used, and cached by that hash.

A cached file is named after its pinned hash and checked again on every read, so a
corrupted cache is noticed (and fetched again unless offline)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["Pin", "SiteError", "cache_dir", "fetch", "load_pins"]

#: How long one download may stall before the build says the network is gone.
TIMEOUT = 60.0


class SiteError(Exception):
    """A site build or check that cannot go on: the message is one line for the user."""


@dataclass(frozen=True, kw_only=True)
class Pin:
    """One pinned download: its name in ``pins.json``, version, URL and hash."""

    name: str
    version: str
    url: str
    algorithm: str  # "sha512" (npm's dist.integrity) or "sha256" (PyPI)
    digest: bytes
    into: str
    take: tuple[str, ...] = ()
    license: str | None = None

    @property
    def integrity(self) -> str:
        """The hash as a Subresource Integrity string (``sha512-<base64>``)."""
        return f"{self.algorithm}-{base64.b64encode(self.digest).decode()}"

    def as_json(self) -> dict[str, str]:
        return {"version": self.version, "url": self.url, "integrity": self.integrity}


def load_pins() -> dict[str, Pin]:
    """The downloads of ``pins.json``, by name."""
    raw = json.loads(resources.files("truc_p2p.site").joinpath("pins.json").read_text("utf-8"))
    return {name: _pin(name, entry) for name, entry in raw["downloads"].items()}


def _pin(name: str, entry: dict[str, Any]) -> Pin:
    if "integrity" in entry:
        algorithm, _, value = entry["integrity"].partition("-")
        digest = base64.b64decode(value, validate=True)
    else:
        algorithm, digest = "sha256", bytes.fromhex(entry["sha256"])
    if algorithm not in ("sha256", "sha512"):
        raise SiteError(f"pins.json: {name}: unknown hash {algorithm!r}")
    return Pin(
        name=name,
        version=entry["version"],
        url=entry["url"],
        algorithm=algorithm,
        digest=digest,
        into=entry["into"],
        take=tuple(entry.get("take", ())),
        license=entry.get("license"),
    )


def cache_dir() -> Path:
    """``$TRUC_P2P_SITE_CACHE``, else ``~/.cache/truc-p2p/site``."""
    override = os.environ.get("TRUC_P2P_SITE_CACHE")
    if override:
        return Path(override)
    return Path.home() / ".cache" / "truc-p2p" / "site"


def _matches(pin: Pin, data: bytes) -> bool:
    return hashlib.new(pin.algorithm, data).digest() == pin.digest


def fetch(pin: Pin, *, offline: bool = False, cache: Path | None = None) -> bytes:
    """The bytes of ``pin``: from the cache, else downloaded (unless ``offline``), and
    always matching the pinned hash; :class:`SiteError` otherwise."""
    folder = cache if cache is not None else cache_dir()
    path = folder / f"{pin.name}-{pin.version}-{pin.digest.hex()[:16]}{_suffix(pin.url)}"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    except OSError as exc:
        raise SiteError(f"cannot read the cache {path}: {exc.strerror or exc}") from None
    if data is not None and _matches(pin, data):
        return data
    if offline:
        state = "not in" if data is None else "corrupted in"
        raise SiteError(f"{pin.name} {pin.version} is {state} the cache {folder} (--offline)")
    data = _download(pin)
    if not _matches(pin, data):
        got = base64.b64encode(hashlib.new(pin.algorithm, data).digest()).decode()
        raise SiteError(
            f"{pin.url}: hash mismatch: got {pin.algorithm}-{got}, pinned {pin.integrity}"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # each process its own partial file (test workers build at once), then one rename
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as exc:
        raise SiteError(f"cannot write the cache {folder}: {exc.strerror or exc}") from None
    return data


def _suffix(url: str) -> str:
    name = url.rsplit("/", 1)[-1]
    return ".tar.gz" if name.endswith(".tar.gz") else os.path.splitext(name)[1]


def _download(pin: Pin) -> bytes:
    request = urllib.request.Request(pin.url, headers={"User-Agent": "truc-p2p site build"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        raise SiteError(f"cannot download {pin.url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise SiteError(f"cannot download {pin.url} (no network?): {reason}") from None
