"""A host's settings in a player's words (a joiner's first lines, the lobby), and the
one sentence when a joiner asked for another match length."""

from __future__ import annotations

from truc_p2p.i18n import _
from truc_p2p.net import HostSettings
from truc_p2p.ui import rules_words

__all__ = ["match_differs", "settings_words"]


def match_differs(host: str, games: int) -> str:
    """The one sentence a joiner gets when it asked for another match length than
    the host's ``games`` (1: a single game): what the host plays and what to type."""
    if games == 1:
        return _("{host} plays a single game: join without --match", host=host)
    return _("{host} plays a match of {n} games: join with --match {n}", host=host, n=games)


def settings_words(settings: HostSettings, *, verbose: bool = False) -> str:
    """A host's settings in a player's words, in the language in use: the points to
    play to, what refusing "my rest" costs, an uncommon raise ladder, a match; how
    the deck is dealt and audited only with ``verbose``, in the technical words
    (``HostSettings.describe()`` in English)."""
    if verbose:
        return _technical_settings_words(settings)
    return rules_words(
        target=settings.target, rest=settings.rest, ladder=settings.ladder, match=settings.match
    )


def _technical_settings_words(settings: HostSettings) -> str:
    parts = []
    if settings.target is not None:
        parts.append(_("to {target}", target=settings.target))
    if settings.ladder is not None:
        parts.append(_("ladder {ladder}", ladder=settings.ladder))
    if settings.rest is not None:
        parts.append(_("refused rest: {rest}", rest=settings.rest))
    if settings.audit is not None:
        parts.append(_("audit {audit}", audit=settings.audit))
    if settings.deck is not None:
        if settings.pipeline is None:
            parts.append(_("deck {deck}", deck=settings.deck))
        elif settings.pipeline:
            parts.append(_("deck {deck} pipelined", deck=settings.deck))
        else:
            parts.append(_("deck {deck} classic", deck=settings.deck))
    elif settings.pipeline is not None:
        parts.append(_("pipelined deal") if settings.pipeline else _("classic deal"))
    if settings.match is not None and settings.match > 1:
        parts.append(_("match of {n} games", n=settings.match))
    return ", ".join(parts)
