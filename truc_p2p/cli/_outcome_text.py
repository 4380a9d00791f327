"""How a networked game ended, in the player's language.

The net layer stays language-neutral: a :class:`~truc_p2p.net.GameOutcome`
carries a ``kind`` and its ``facts`` (and ``message``, the English sentence of
the library and of ``--json``).  The command line, the terminal and the web
table render the same facts here through the catalogs.  The msgids are the
net layer's English templates (:data:`truc_p2p.net._outcome.KINDS`), marked for
extraction where they are written (one table), so English output stays the
library's and a new kind of ending is in the catalogs at once.

The peer's or the host's own words (an abort's detail), error texts from the
operating system and protocol explanations are quoted as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from truc_p2p.cli._i18n import _, ngettext
from truc_p2p.cli._verify_text import reason_word
from truc_p2p.net import _outcome as net_outcome

if TYPE_CHECKING:  # pragma: no cover
    from truc_p2p.net import GameOutcome

__all__ = ["KINDS", "WHERE", "outcome_text", "render_outcome"]

#: Each kind of ending: its msgid, or the singular and plural msgids of an
#: ``ngettext`` (chosen by the fact ``n``), and when it ended (the fact ``where``):
#: the net layer's English templates are the catalogs' msgids (one table, marked
#: there for extraction).
KINDS = net_outcome.KINDS
WHERE = net_outcome.WHERE


def render_outcome(kind: str, facts: Mapping[str, Any]) -> str:
    """The sentence of an ending of ``kind`` with ``facts``, in the language in use."""
    values = dict(facts)
    if "where" in values:
        values["where"] = _(WHERE[values["where"]], hand=values.get("hand"))
    if "peer" in values and values["peer"] is None:
        values["peer"] = _("opponent") if kind in ("won", "lost") else _("the opponent")
    for key in ("limit", "grace"):
        if isinstance(values.get(key), float):
            values[key] = f"{values[key]:g}"
    if kind in ("won", "lost"):
        values["reason"] = reason_word(values["reason"])
    if kind == "no-next-game":
        values["text"] = render_outcome(values["kind"], values["facts"])
    template = KINDS[kind]
    detail = values.pop("detail", None)
    if kind == "refused-busy" and isinstance(detail, str):
        # as net's shown_detail (the test of each kind holds them equal): an older
        # host's own "try again later" would say the advice twice
        detail = detail.removesuffix("try again later").rstrip("; ")
    if isinstance(template, tuple):
        n = values.pop("n")
        text = ngettext(template[0], template[1], n, **values)
    else:
        text = _(template, **values)
    if detail:
        text = _("{text}: {detail}", text=text, detail=detail)
    return text


def outcome_text(outcome: GameOutcome) -> str:
    """What happened, in the language in use (``outcome.message`` in English)."""
    kind = getattr(outcome, "kind", "")  # an outcome-like object may carry no kind
    if not kind:
        return outcome.message
    return render_outcome(kind, outcome.facts)
