"""A listed game in a player's words, and the lobby's filter: what the relay's lobby
(:mod:`._lobby`), the Nostr relays' (:mod:`._nostr_lobby`) and the lobby page
(:mod:`._lobby_web`) all show and take."""

from __future__ import annotations

from dataclasses import replace

from truc_p2p.i18n import _, ngettext
from truc_p2p.net import HostSettings, InviteError, LobbyFilter, LobbyGame

__all__ = ["describe_game", "game_words", "lobby_filter", "waiting_words"]


def describe_game(game: LobbyGame) -> str:
    """One line for a person: name, the game in a player's words, how long the host
    has waited, the start of its key."""
    return _(
        "{name}  {game}  {waited}  key {fp}…",
        name=game.listing.name,
        game=game_words(game),
        waited=waiting_words(game.waiting),
        fp=game.listing.fingerprint[:16],
    )


def game_words(game: LobbyGame) -> str:
    """The listed game's rules in a player's words (the points, a refused "my rest",
    a match), as the joiner's first lines say them."""
    from truc_p2p.cli._settings_words import settings_words

    try:
        settings = HostSettings.from_fields(game.listing.fields)
    except InviteError:
        settings = HostSettings()
    words = settings_words(replace(settings, match=game.listing.match))
    if game.listing.match == 1:
        words = "; ".join(w for w in (words, _("single game")) if w)
    return words


def waiting_words(seconds: int) -> str:
    """How long the host has waited, in seconds, minutes or hours."""
    if seconds < 60:
        return ngettext("waiting for {n} second", "waiting for {n} seconds", seconds)
    if seconds < 3600:
        return ngettext("waiting for {n} minute", "waiting for {n} minutes", seconds // 60)
    return ngettext("waiting for {n} hour", "waiting for {n} hours", seconds // 3600)


def lobby_filter(name: str, fingerprint: str) -> LobbyFilter:
    """``--name`` and ``--fingerprint`` as a filter (a fingerprint may be given in
    any case, with colons or spaces); :class:`ListingError` if unusable."""
    fp = "".join(c for c in fingerprint.lower() if c not in ": ")
    return LobbyFilter(name=name.strip(), fingerprint=fp)
