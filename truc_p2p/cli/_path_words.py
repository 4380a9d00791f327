"""How a connection to the peer came, in the words of ``host`` and ``join``: the
kind of path (connect.md §4), a new connection's line, and why this path ("direct:
refused; punched: timed out after 3 s; via TURN ...", connect.md §4.1)."""

from __future__ import annotations

from typing import Any

from truc_p2p.i18n import N_, _

__all__ = ["connected_line", "path_line", "path_word", "tries_line"]


#: How a peer was reached (``on_path``'s path).
_PATHS = {
    "direct": N_("direct"),
    "punched": N_("punched"),
    "turn": N_("TURN"),
    "relayed": N_("relayed"),
}

#: What became of a path (``PathTry.result``), said after its name.
_RESULTS = {
    "refused": N_("refused"),
    "closed": N_("closed at once"),
    "unreachable": N_("unreachable"),
    "failed": N_("failed"),
    "not-used": N_("not used"),
    "no-answer-yet": N_("no answer yet"),
}


def path_word(path: str) -> str:
    return _(_PATHS[path]) if path in _PATHS else path


def path_line(path: str, peer: str) -> str:
    """The host's line on a new connection."""
    return _("connection from {peer} ({path} path)", peer=peer, path=path_word(path))


def tries_line(tries: list[dict[str, Any]]) -> str:
    """Why this path (connect.md §4.1): "direct: refused; punched: timed out after 3 s;
    via TURN 198.18.0.5:49152" — each failed kind of path, then the one taken."""
    parts = []
    for t in tries:
        name = path_word(str(t["path"]))
        result, seconds, via = t["result"], t.get("seconds"), t.get("via")
        if result == "won" and t["path"] == "relayed" and via:
            parts.append(_("via the relay {address}", address=via))
        elif result == "won":
            parts.append(
                _("via {path} {address}", path=name, address=via)
                if via
                else _("took the {path} path", path=name)
            )
        elif result == "timed-out":
            parts.append(
                _("{path}: timed out after {seconds} s", path=name, seconds=f"{seconds or 0:g}")
            )
        else:
            word = _(_RESULTS[result]) if result in _RESULTS else str(result)
            parts.append(_("{path}: {result}", path=name, result=word))
    line = parts[0] if parts else ""
    for part in parts[1:]:
        line = _("{earlier}; {next}", earlier=line, next=part)
    return line


def connected_line(path: str, *, again: bool) -> str:
    """The joiner's line on its (re)connection."""
    if again:
        return _("reconnected ({path} path)", path=path_word(path))
    return _("connected ({path} path)", path=path_word(path))
