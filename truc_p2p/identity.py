"""The local player's long-lived Ed25519 identity key.

A friend pins your key through its fingerprint (printed by ``truc-p2p
identity`` and carried in every invite), so the key must survive between
games: it lives in one file, written with mode 0600, by default in the
user's data directory (``$XDG_DATA_HOME/truc-p2p/identity.key`` or
``~/.local/share/truc-p2p/identity.key``).  The file is PEM (PKCS#8,
unencrypted); a file holding the 32 raw private bytes is accepted too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from truc_p2p.crypto import BadKeyError, KeyTypeError, SigningKey
from truc_p2p.protocol import fingerprint

__all__ = [
    "GAMES_ENV",
    "IDENTITY_ERRORS",
    "Identity",
    "IdentityError",
    "default_data_dir",
    "default_games_dir",
    "default_identity_path",
    "load_identity",
    "load_or_create_identity",
    "permissions_warning",
    "write_private_file",
]

_RAW_KEY_SIZE = 32
#: A PEM Ed25519 key is about 120 bytes; anything much larger is not a key file.
_MAX_KEY_FILE = 64 * 1024


#: The English sentence of each kind of :class:`IdentityError`, filled with its
#: ``values`` (the command line shows the same in the player's language).
IDENTITY_ERRORS: dict[str, str] = {
    "no-home-empty": "no place for your identity key: HOME is empty and XDG_DATA_HOME is "
    "not set; set one of them or pass --identity FILE",
    "no-home-relative": "no place for your identity key: HOME is not an absolute path "
    "({home}) and XDG_DATA_HOME is not set; set one of them or pass --identity FILE",
    "cannot-read": "cannot read identity {path}: {reason}",
    "not-pem": "{path} is not an unencrypted PEM private key: {reason}",
    "not-ed25519": "{path} holds a {type}, not an Ed25519 key",
    "not-a-key": "{path} is neither a PEM Ed25519 key nor 32 raw key bytes",
    "cannot-create": "cannot create identity {path}: {reason}",
}


class IdentityError(Exception):
    """The identity file cannot be read, parsed or written: a ``kind`` of
    :data:`IDENTITY_ERRORS` and its ``values``; ``str()`` is the English sentence."""

    def __init__(self, kind: str, /, **values: object) -> None:
        template = IDENTITY_ERRORS.get(kind)
        super().__init__(template.format(**values) if template is not None else kind)
        self.kind = kind if template is not None else ""
        self.values = values


@dataclass(frozen=True)
class Identity:
    """A private key, where it is stored, and whether this call created it."""

    key: SigningKey
    path: Path | None
    created: bool = False

    @property
    def fingerprint(self) -> str:
        """Hex fingerprint of the public key (what invites pin)."""
        return fingerprint(self.key.public_key())

    @classmethod
    def ephemeral(cls) -> Identity:
        """A fresh key kept in memory only (for local games against a bot)."""
        return cls(SigningKey.generate(), None, created=True)


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/truc-p2p``, else ``~/.local/share/truc-p2p``: one person's
    identity key and game history, wherever the commands are run from.

    Following the XDG base directory spec, a relative ``XDG_DATA_HOME`` is
    ignored.  Raises :class:`IdentityError` when there is no usable home
    directory (``HOME`` empty or relative, or unset with no password entry)
    rather than falling back to ``/.local/share`` or the current directory.
    """
    base = os.environ.get("XDG_DATA_HOME") or ""
    if os.path.isabs(base):
        return Path(base) / "truc-p2p"
    home = os.environ.get("HOME")
    if home is None:
        try:
            home = str(Path.home())  # the password database
        except (RuntimeError, KeyError, OSError):
            home = ""
    if not os.path.isabs(home):
        if not home:
            raise IdentityError("no-home-empty")
        raise IdentityError("no-home-relative", home=repr(home))
    return Path(home) / ".local" / "share" / "truc-p2p"


def default_identity_path() -> Path:
    """``$XDG_DATA_HOME/truc-p2p/identity.key``, else ``~/.local/share/truc-p2p/identity.key``
    (:func:`default_data_dir`)."""
    return default_data_dir() / "identity.key"


#: The environment variable naming the games folder (a relative path is taken
#: from the current folder, as ``--out`` is).
GAMES_ENV = "TRUC_P2P_GAMES"


def default_games_dir() -> Path:
    """Where the commands write transcripts and ``games`` reads them: ``$TRUC_P2P_GAMES``
    when set, else ``games`` in :func:`default_data_dir` (one history per person,
    not one per folder the commands were run from)."""
    chosen = os.environ.get(GAMES_ENV) or ""
    if chosen:
        return Path(chosen)
    return default_data_dir() / "games"


def write_private_file(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 (never overwriting) and write ``data`` to it.

    If writing fails (a full disk...), the partly written file is removed, so
    a later run never finds half a key.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:  # a file is in the way of the directory
        raise NotADirectoryError(
            errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent)
        ) from None
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise


def _read_small_file(path: Path) -> bytes:
    """The bytes of a regular file of at most :data:`_MAX_KEY_FILE` bytes (a device or a
    pipe is refused at once, never read endlessly or waited on)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        data = f.read(_MAX_KEY_FILE + 1)
    if len(data) > _MAX_KEY_FILE:
        raise ValueError(f"larger than {_MAX_KEY_FILE} bytes, not a key file")
    return data


def load_identity(path: str | os.PathLike[str]) -> Identity:
    """Read an identity file (PEM or 32 raw bytes); :class:`IdentityError` on failure."""
    p = Path(path)
    try:
        data = _read_small_file(p)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise IdentityError("cannot-read", path=p, reason=reason) from None
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = SigningKey.from_pem(data)
        except KeyTypeError as exc:
            raise IdentityError("not-ed25519", path=p, type=exc.key_type) from None
        except BadKeyError as exc:
            raise IdentityError("not-pem", path=p, reason=exc) from None
    elif len(data) == _RAW_KEY_SIZE:
        key = SigningKey.from_bytes(data)
    else:
        raise IdentityError("not-a-key", path=p)
    return Identity(key, p)


def load_or_create_identity(path: str | os.PathLike[str] | None = None) -> Identity:
    """Load the identity at ``path`` (default :func:`default_identity_path`), creating it
    with a fresh key and mode 0600 when the file does not exist.

    Every failure (no home directory, unreadable or invalid file, cannot
    create it) is an :class:`IdentityError` with a one-line reason.
    """
    p = Path(path) if path is not None else default_identity_path()
    if p.exists():
        return load_identity(p)
    key = SigningKey.generate()
    pem = key.to_pem()
    try:
        write_private_file(p, pem)
    except FileExistsError:  # created concurrently: use that one
        return load_identity(p)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise IdentityError("cannot-create", path=p, reason=reason) from None
    return Identity(key, p, created=True)


def permissions_warning(path: Path) -> str | None:
    """A warning if other users may read the identity file, else ``None``."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return f"warning: {path} is readable by other users (mode {mode & 0o777:o}); chmod 600 it"
    return None
