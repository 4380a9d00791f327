"""The texts of the page's own screens (home, host, join, verify, identity), in the
language in use, through the same catalogs as every other text."""

from __future__ import annotations

from typing import Any

from truc_p2p.i18n import _

__all__ = ["app_texts"]


def app_texts() -> dict[str, Any]:
    """Every fixed text of the page's screens, by key (``app.js`` places them)."""
    return {
        "loading": _("loading the game…"),
        "title": _("Le Truc — truc-p2p"),
        "tagline": _("Play Le Truc peer to peer: every card is proven, every move is signed."),
        "play_bot": _("play the computer"),
        "host": _("host a game"),
        "host_text": _("Get a link to send to a friend; the game starts when they open it."),
        "relay": _("relay"),
        # the host's choice: one game (and rematches) or a match (wire.md 4.1)
        "single_game": _("single game"),
        **{f"match_{n}": _("match of {n} games", n=n) for n in (3, 5)},
        "join": _("join a game"),
        "join_text": _("Paste the invite link a friend sent you."),
        "invite_placeholder": _("invite link"),
        "join_button": _("join"),
        "lobby": _("open games"),
        "lobby_refresh": _("refresh"),
        "lobby_empty": _("no open games"),
        "verify": _("verify a game"),
        "verify_text": _("Drop a .truc transcript here, or choose one, to check it."),
        "choose_file": _("choose a file"),
        "verifier_report": _("verifier report"),
        "identity": _("your identity"),
        "identity_text": _("Your key stays in this browser. Export it to keep it safe."),
        "fingerprint": _("fingerprint"),
        "name": _("your name shown to the opponent"),
        "export_key": _("export the key"),
        "import_key": _("import a key"),
        "download": _("download the transcript"),
        "home": _("home"),
        "share_link": _("share"),
    }
