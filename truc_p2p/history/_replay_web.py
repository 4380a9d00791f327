"""``truc-p2p replay --web FILE``: the replay's steps on a page in the browser.

The web table's server (:mod:`truc_p2p.ui._web._server`: loopback, token, Host and
Origin checks) serves ``replay.html``; the page gets every step at once as
one JSON message and steps through them itself (next / previous step and
hand, jump to a hand, the arrow keys).  The steps are exactly those of the
terminal (:mod:`._replay_steps`): only cards that were played, and in the replay of
one's own transcript one's own hand.
"""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Callable, Sequence
from typing import Any

from truc_p2p.history._record import GameFile
from truc_p2p.history._replay_steps import Replay, ReplayStep, build_replay
from truc_p2p.i18n import LANGUAGES, _, current, from_accept_language, use_language
from truc_p2p.protocol import CardsDealt
from truc_p2p.ui import card_json

__all__ = ["PageLanguage", "ReplayTable", "Review", "menu_json", "replay_json", "serve_replay"]

#: The review of a game (``truc-p2p review``'s result, :func:`truc_p2p.cli._review.review_json`,
#: in the language in use), or ``None`` when the game is not the reader's.  The command
#: passes it in: the review is the bots' (the solved round), which history does not import.
Review = Callable[[GameFile], "dict[str, Any] | None"]


class PageLanguage:
    """The language of the replay, history and lobby pages: the browser's
    (``Accept-Language``) unless ``--lang`` was given (``pinned``) or the page's
    language menu chose one.  The catalog is the process's: these commands only
    serve the page."""

    def __init__(self, pinned: bool = False) -> None:
        self.pinned = pinned

    def greet(self, accept_language: str) -> None:
        """A page connects (before its snapshot): speak its browser's language."""
        code = from_accept_language(accept_language)
        if not self.pinned and code is not None and code != current():
            use_language(code)

    def choose(self, message: dict[str, Any]) -> bool:
        """The page's menu (``{"type": "lang", "lang": CODE}``): whether it switched."""
        code = message.get("lang")
        if message.get("type") != "lang" or not isinstance(code, str) or code not in LANGUAGES:
            return False
        use_language(code)
        self.pinned = True
        return True


def menu_json() -> dict[str, Any]:
    """The language menu, as the table's: the language in use and every language in
    its own name."""
    return {
        "lang": current(),
        "label": _("language"),
        "languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
    }


def _step_json(step: ReplayStep) -> dict[str, Any]:
    v = step.view
    last = v.last_trick
    return {
        "hand": step.hand + 1,
        "kind": step.kind,
        "lines": list(step.lines),
        "proof": step.proof,
        "message": step.message,
        "scores": v.scores,
        "score_line": v.score_line,
        "worth": v.worth,
        "rest_on": v.rest_on,
        "dealer": v.dealer,
        "me_name": v.me_name,
        "opp_name": v.opp_name,
        "held": step.held,
        "mine": [card_json(c) for c in step.mine],
        "table": [{"by": by, **card_json(c)} for by, c in v.table],
        "last_trick": None
        if last is None
        else {
            "no": last.no + 1,
            "winner": last.winner,
            "text": last.text,
            "cards": [{"by": by, **card_json(c)} for by, c in last.cards],
        },
        "tricks_line": v.tricks_line,
        "hand_result": v.hand_result.text if v.hand_result is not None else None,
    }


def replay_json(replay: Replay, review: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole replay as the page's one message (``review``: the game's review, shown
    under the replay: :data:`Review`)."""
    return {
        "review": review,
        "type": "replay",
        "header": list(replay.header),
        "hands": replay.hands,
        "valid": replay.valid,
        # the replay of the reader's own transcript: its seat is "you", as on the table
        "own": replay.voice.me is not None,
        "labels": {
            "next": _("next ▶"),
            "previous": _("◀ previous"),
            "next_hand": _("next hand ⏭"),
            "previous_hand": _("⏮ previous hand"),
            "hand": _("hand"),
            "hands": _("hands"),
            "step": _("step {i} of {n}"),
            "hand_of": _("hand {hand} of {hands}"),
            "verifier": _("verifier"),
            "table": _("on the table"),
            "last_trick": _("last trick"),
            "dealer": _("dealer"),
            "you": _("you"),
        },
        "steps": [_step_json(s) for s in replay.steps],
        "menu": menu_json(),
    }


class ReplayTable:
    """What the server shows: the replay, sent once to every page, in the page's
    language (``rebuild`` tells the replay again in another one)."""

    def __init__(
        self,
        replay: Replay,
        rebuild: Callable[[], Replay] | None = None,
        *,
        lang_pinned: bool = False,
        review: Callable[[], dict[str, Any] | None] | None = None,
    ) -> None:
        self.rebuild = rebuild
        self.review = review
        self.language = PageLanguage(lang_pinned)
        self.server: Any = None
        self._messages = {current(): replay_json(replay, self._review())}

    def _review(self) -> dict[str, Any] | None:
        return None if self.review is None else self.review()

    @property
    def message(self) -> dict[str, Any]:
        """The replay in the language now in use."""
        code = current()
        if code not in self._messages:
            if self.rebuild is None:
                return next(iter(self._messages.values()))
            self._messages[code] = replay_json(self.rebuild(), self._review())
        return self._messages[code]

    def greet(self, accept_language: str) -> None:
        self.language.greet(accept_language)

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.message]

    def receive(self, message: dict[str, Any]) -> None:
        """The page steps through the replay itself; its language menu is answered
        with the replay in that language."""
        if self.language.choose(message) and self.server is not None:
            self.server.publish(self.message)


def serve_page(table: Any, *, command: str, page: str, title: str, port: int, browser: bool) -> int:
    """Serve ``table`` and print the URL of ``page`` (after ``title``) until Ctrl-C
    (or SIGTERM, SIGHUP); 0, or 2 when the port cannot be bound.  ``table`` may take
    the running server in a ``server`` attribute, to push answers to its pages."""
    import signal

    import trio

    from truc_p2p.ui import bind_table, serve_table

    async def main() -> int:
        try:
            listeners = await bind_table(port)
        except OSError as exc:
            print(
                _(
                    "truc-p2p {command}: cannot serve the page on port {port}: {reason}",
                    command=command,
                    port=port,
                    reason=exc.strerror or exc,
                ),
                file=sys.stderr,
            )
            return 2
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async with serve_table(table, listeners) as server:
                if hasattr(table, "server"):
                    table.server = server
                url = server.url.replace("/?token=", f"/{page}?token=")
                print(_("{title}: {url}", title=title, url=url), flush=True)
                print(_("(Ctrl-C stops it)"), file=sys.stderr, flush=True)
                if browser:
                    webbrowser.open(url)
                async for _signum in signals:
                    break
        return 0

    return trio.run(main)


def serve_replay(
    record: GameFile,
    replay: Replay,
    *,
    port: int,
    browser: bool,
    lang_pinned: bool = False,
    ascii: bool = False,
    own: Sequence[CardsDealt] | None = None,
    review: Review | None = None,
) -> int:
    """``replay --web``: the replay page until Ctrl-C (``lang_pinned``: ``--lang`` was
    given, the browser's language does not decide; ``own``: the owner's cards, as
    ``replay`` was built with; ``review``: the game's review under the replay)."""
    return serve_page(
        ReplayTable(
            replay,
            lambda: build_replay(record, ascii=ascii, own=own),
            lang_pinned=lang_pinned,
            review=None if review is None else lambda: review(record),
        ),
        command="replay",
        page="replay.html",
        title=_("replay of {file}", file=record.path),
        port=port,
        browser=browser,
    )
