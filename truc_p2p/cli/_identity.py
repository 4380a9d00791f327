"""``truc-p2p identity``: create or show the local Ed25519 identity and its fingerprint."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import N_, _
from truc_p2p.identity import (
    IdentityError,
    default_identity_path,
    load_or_create_identity,
    permissions_warning,
)

#: :data:`truc_p2p.identity.IDENTITY_ERRORS` as msgids (a test keeps them equal).
IDENTITY_ERRORS: dict[str, str] = {
    "no-home-empty": N_(
        "no place for your identity key: HOME is empty and XDG_DATA_HOME is "
        "not set; set one of them or pass --identity FILE"
    ),
    "no-home-relative": N_(
        "no place for your identity key: HOME is not an absolute path "
        "({home}) and XDG_DATA_HOME is not set; set one of them or pass --identity FILE"
    ),
    "cannot-read": N_("cannot read identity {path}: {reason}"),
    "not-pem": N_("{path} is not an unencrypted PEM private key: {reason}"),
    "not-ed25519": N_("{path} holds a {type}, not an Ed25519 key"),
    "not-a-key": N_("{path} is neither a PEM Ed25519 key nor 32 raw key bytes"),
    "cannot-create": N_("cannot create identity {path}: {reason}"),
}


def identity_error_text(exc: IdentityError) -> str:
    """Why the identity key cannot be used, in the language in use."""
    template = IDENTITY_ERRORS.get(exc.kind)
    return _(template, **exc.values) if template is not None else str(exc)


def _default_shown() -> str:
    """The default identity path for ``--help`` (never raises; ``%`` escaped for argparse)."""
    try:
        shown = str(default_identity_path())
    except IdentityError:
        shown = "$XDG_DATA_HOME/truc-p2p/identity.key or ~/.local/share/truc-p2p/identity.key"
    return shown.replace("%", "%%")


def add_identity_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--identity",
        metavar="FILE",
        default=None,
        help=_("identity key file, created if missing (default {path})", path=_default_shown()),
    )


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "identity",
        help=_(COMMAND_HELP["identity"]),
        description=_(
            "Create (mode 0600) or show the Ed25519 key that identifies you to "
            "other players, and print its fingerprint: invites carry it, and a joiner "
            "refuses a host whose key does not match."
        ),
    )
    add_identity_arg(parser)
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    parser.set_defaults(func=_identity)


def _identity(args: argparse.Namespace) -> int:
    try:
        ident = load_or_create_identity(args.identity)
    except IdentityError as exc:
        print(f"truc-p2p identity: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    assert ident.path is not None
    if args.json:
        print(
            json.dumps(
                {
                    "path": str(ident.path),
                    "created": ident.created,
                    "fingerprint": ident.fingerprint,
                }
            )
        )
    else:
        state = _("created now") if ident.created else _("existing")
        rows = [(_("identity:"), f"{ident.path} ({state})"), (_("fingerprint:"), ident.fingerprint)]
        width = max(13, *(len(label) + 1 for label, _value in rows))
        for label, value in rows:
            print(f"{label:<{width}}{value}")
    warning = permissions_warning(ident.path)
    if warning:
        print(warning, file=sys.stderr)
    return 0
