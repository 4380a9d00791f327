"""The page's application: one :class:`PageApp` per Web Worker (see the package doc)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from truc_p2p.i18n import LANGUAGES, _, from_accept_language, use_language
from truc_p2p.protocol import encode_transcript, fingerprint

from ._feed import PageFeed
from ._kept import ENVELOPE_KEY, IDENTITY_KEY, NAME_KEY, forget_game, keep_game, kept_game
from ._keys import Key, KeyFileError, key_from_file, key_from_raw, key_to_file, raw_key
from ._lobby import Lobby
from ._out import Outbox, Output
from ._texts import app_texts
from ._wires import Meeting, Wires

if TYPE_CHECKING:
    from truc_p2p.net import GameOutcome, Invite
    from truc_p2p.rules import Action

    from ._autoplay import Autoplay
    from ._games import BotGame, NetGame, NetOptions, Restore
    from ._series import Linked

    Game = BotGame | NetGame

# What a game needs (the bots, the session's endings, the relay's handshake, the
# verifier) is imported when the first game starts, not at boot: the home screen
# comes first (WorkerGlue.warm imports it while the player reads it).

__all__ = ["PageApp"]

#: The longest name a player may give (as ``--name``).
MAX_NAME = 40


def _good_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.isprintable()


class PageApp:
    """The in-page truc-p2p: every call takes the time (seconds, any steady clock the
    worker keeps) and returns the outputs (:mod:`._out`)."""

    def __init__(
        self,
        *,
        randbytes: Callable[[int], bytes],
        stored: dict[str, Any] | None = None,
        name: str | None = None,
        site: str = "",
        relay: str | None = None,
        now: float = 0.0,
    ) -> None:
        self._randbytes = randbytes
        self._out = Outbox()
        self._now = now
        self.site = site
        #: The relay (``host:port``) a host registers with by default: the site's own.
        self.relay = relay
        stored = stored or {}
        self._stored = stored
        raw = stored.get(IDENTITY_KEY)
        key: Key | None = None
        if isinstance(raw, bytes | bytearray) and len(raw) == 32:
            key = key_from_raw(bytes(raw))
        if key is None:
            key = key_from_raw(randbytes(32))
            self._out.store(IDENTITY_KEY, raw_key(key))
        self.key = key
        kept = stored.get(NAME_KEY)
        #: The name the opponent sees (the player may change it; kept in IndexedDB);
        #: until the player gives one, "player-" and the key's first characters, in the
        #: page's language once the worker's hello says it (:meth:`_hello`).
        self.name: str = self._default_name()
        #: Whether the name is the player's own (given, kept or typed), not the default.
        self._named = False
        if name:
            self.name, self._named = name, True
        elif isinstance(kept, str) and _good_name(kept):
            self.name, self._named = kept, True
        self.feed = self._new_feed()
        self.game: Game | None = None
        self.envelopes: list[bytes] = []
        self.outcome: GameOutcome | None = None
        #: How peer games are played (deal options, clocks); ``None``: the defaults.
        self.net_options: NetOptions | None = None
        self._level = "easy"
        #: Whether the game's envelopes go to IndexedDB as they are made (a peer game).
        self._persist = False
        #: Linked games with a peer (wire.md 4.1): the match, or a single game and its
        #: rematches; ``None`` against the bot.
        self._linked: Linked | None = None
        #: Hosts (fingerprint) that turned our early cards down (wire.md 11.1): the
        #: page joins them again, and from then on, without proposing early cards.
        self._no_early: set[str] = set()
        #: The start panel's variants of the games against the bot (issue 42): the
        #: codes of :data:`truc_p2p.ui.VARIANTS` the player ticked.
        self.bot_variants: frozenset[str] = frozenset()
        #: A bot playing the page's player (``truc-p2p interop``'s browser adapter).
        self.autoplay: Autoplay | None = None
        #: The lobby's question going on (connect.md 2.2).
        self.lobby = Lobby(self._out, self._page)

    def _new_feed(self) -> PageFeed:
        feed = PageFeed(self.name, now=lambda: self._now, answers=self)
        feed.publisher = self._out
        return feed

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key.public_key())

    # -- the worker's calls --------------------------------------------------------

    def handle(self, message: str | dict[str, Any], now: float) -> list[Output]:
        """A message from the page (a JSON text, or a dict when it carries bytes)."""
        self._now = now
        if isinstance(message, str):
            try:
                message = json.loads(message)
            except ValueError:
                message = {}
        if isinstance(message, dict):
            self._dispatch(message)
        return self._done()

    def receive(self, socket: str, data: bytes, now: float) -> list[Output]:
        """Bytes from the relay WebSocket ``socket``."""
        self._now = now
        if self.lobby.owns(socket):
            self.lobby.data(bytes(data))
        elif self.game is not None:
            self.game.receive(socket, bytes(data), now)
        return self._done()

    def closed(self, socket: str, now: float) -> list[Output]:
        """The WebSocket ``socket`` closed (or never opened)."""
        self._now = now
        if self.lobby.owns(socket):
            self.lobby.down()
        elif self.game is not None:
            self.game.closed(socket, now)
        return self._done()

    def tick(self, now: float) -> list[Output]:
        """The timer asked for came (or any time later)."""
        self._now = now
        if self.game is not None:
            self.game.tick(now)
        return self._done()

    def _done(self) -> list[Output]:
        if self.autoplay is not None:
            self._autoplay(self.autoplay)
        timer = self.game.next_timer() if self.game is not None else None
        return self._out.take(timer)

    # -- the page's messages -------------------------------------------------------

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "hello":
            self._hello(message)
        elif kind == "bot":
            from truc_p2p.bots import LEVELS

            level = message.get("level")
            self._bot_series(message.get("variants"))
            self._start_bot(str(level) if level in LEVELS else self._level)
        elif kind == "host":
            self._host(message)
        elif kind == "join":
            self._join(message.get("invite"))
        elif kind == "lobby":
            self._lobby(message)
        elif kind == "verify":
            self._verify(message)
        elif kind == "name":
            self._rename(message.get("name"))
        elif kind == "identity_export":
            self._out.download("identity.pem", key_to_file(self.key))
        elif kind == "identity_import":
            self._import_key(message.get("data"))
        elif kind == "download":
            self._download()
        elif kind == "home":
            self._home()
        elif kind == "lang":
            self.feed.receive(message)
            self._app_texts()
        elif kind in ("act", "quit", "again", "level"):
            self.feed.receive(message)

    def _autoplay(self, auto: Autoplay) -> None:
        """Answer the page's player's turns with the bot, and start the next linked game."""
        while True:
            game = self.game
            side = game.side if game is not None else None
            if auto.next_game and self.outcome is not None:
                auto.next_game = False
                self.again(True)
                continue
            if side is None or side.turn is None or side.outcome is not None:
                return
            self.picked(auto.choose(side.session.game, side.turn.legal_actions))

    def _page(self, message: dict[str, Any]) -> None:
        self._out.publish(message)

    def _app_texts(self) -> None:
        self._page({"type": "app_texts", **app_texts()})

    def _hello(self, message: dict[str, Any]) -> None:
        """The worker is up: the language, the texts and who we are."""
        lang = message.get("lang")
        code = lang if lang in LANGUAGES else None
        if code is None and isinstance(lang, str):
            code = from_accept_language(lang)
        if code is not None:
            use_language(code)
        if not self._named:  # the default name in the player's language
            self.name = self._default_name()
        self.feed = self._new_feed()
        self.feed.publish_texts()
        self._app_texts()
        self._identity()
        self._resume_stored()

    def _default_name(self) -> str:
        name = _("player-{id}", id=self.fingerprint[:4])
        return name if _good_name(name) else f"player-{self.fingerprint[:4]}"

    def _identity(self) -> None:
        self._page({"type": "identity", "fingerprint": self.fingerprint, "name": self.name})

    def _rename(self, name: object) -> None:
        """The player's name for the next games (the one going on keeps its own)."""
        if isinstance(name, str) and _good_name(name.strip()):
            self.name, self._named = name.strip(), True
            self.feed.my_name = self.name  # the next game's table says it too
            self._out.store(NAME_KEY, self.name)
        self._identity()

    def _error(self, text: str) -> None:
        self._page({"type": "app_error", "text": text})

    # -- games ---------------------------------------------------------------------

    def _wires(self) -> Wires:
        return Wires(self.key, self.feed, self._randbytes, self._record, self._ended)

    def _record(self, envelope: bytes) -> None:
        self.envelopes.append(envelope)
        if self._persist:  # kept before the bytes that carry it leave (the outputs' order)
            self._out.store(ENVELOPE_KEY.format(len(self.envelopes) - 1), envelope)

    def _net_began(self, game: NetGame) -> None:
        """A peer game's session exists: keep what a reload needs to resume it."""
        keep_game(self._out, game, self.name, self.envelopes)
        self._persist = True

    def _forget_game(self) -> None:
        """The game is over (or given up): its keys leave IndexedDB."""
        if self._persist:
            self._persist = False
            forget_game(self._out, len(self.envelopes))

    def _resume_stored(self) -> None:
        """A reload during a peer game: resume it from what IndexedDB kept."""
        stored, self._stored = self._stored, {}
        kept = kept_game(stored)
        if kept is not None:
            relay, invite, restore = kept
            self._net(relay, invite, restore=restore)

    def _fresh_table(self) -> None:
        if self.game is not None:
            self.game.stop()
        self._forget_game()
        self.game = None
        self.envelopes = []
        self.outcome = None
        if self.feed.game_no > 1 or self.feed.state()["started"] is not None:
            linked = self._linked
            self.feed.new_game(self.feed.match_line if linked and linked.is_match else None)
        self._page({"type": "app", "screen": "table"})

    def _new_series(self) -> None:
        """A game chosen on the home screen: a new table, counting its games from 1
        (a game against another opponent is not "game 2" of the last one's)."""
        if self.game is not None:
            self.game.stop()
            self._page({"type": "new_game", "match_line": None})  # table.js: a clean table
            self._page({"type": "log_all", "lines": []})  # and no lines of the last game
        self.feed = self._new_feed()
        self.feed.publish_texts()

    def _bot_series(self, variants: object) -> None:
        """A new series against the bot with the ``variants`` ticked (a list of codes;
        anything else, or an unknown code: none): ``best3`` a match of three games
        counted as a match with a peer (:class:`~._series.Linked`), else a game and
        its rematches."""
        from truc_p2p.ui import VARIANTS

        chosen = variants if isinstance(variants, list) else []
        self.bot_variants = frozenset(v for v in chosen if isinstance(v, str) and v in VARIANTS)
        if "best3" in self.bot_variants:
            self._link(3)
        else:
            self._new_series()
            self._linked = None

    def _start_bot(self, level: str) -> None:
        from truc_p2p.protocol import Series
        from truc_p2p.rules import RestRefused, Ruleset

        from ._games import BotGame

        self._level = level
        linked = self._linked
        self.feed.match_games = linked.games if linked is not None else 1
        self._fresh_table()
        self.feed.level = level
        rest = RestRefused.VALUE if "value" in self.bot_variants else RestRefused.GAME
        game = BotGame(
            self._wires(),
            name=self.name,
            level=level,
            ruleset=Ruleset(rest_refused=rest),
            series=linked.series() if linked is not None else Series(),
        )
        self.game = game
        game.start()

    def _net(
        self,
        relay: str,
        invite: Invite | None,
        restore: Restore | None = None,
        claim_nonce: bytes | None = None,
    ) -> None:
        from dataclasses import replace

        from truc_p2p.net import GameSettings
        from truc_p2p.protocol import SessionOptions

        from ._games import NetGame

        self._fresh_table()
        linked = self._linked
        # our session: our name, the match, heartbeats and the clock in resume
        # (wire.md 4.1, 11.1, 13.1, 13.6)
        options = SessionOptions(name=self.name, heartbeat=True, resume_clock=True)
        if linked is not None and (linked.is_match or linked.after is not None):
            options = replace(options, series=linked.series())
        settings = GameSettings(session=options)
        if self.net_options is not None:  # the interop adapter's case
            settings = self.net_options.apply(settings)
        if invite is not None and invite.fingerprint.lower() in self._no_early:
            settings = replace(settings, session=replace(settings.session, early=False))
        if restore is not None:  # the restored session records only what comes next
            self.envelopes = list(restore.envelopes)
            self._persist = True
        self.feed.level = None
        game = NetGame(
            self._wires(),
            Meeting(relay, invite, self.site),
            settings=settings,
            out=self._out,
            now=self._now,
            restore=restore,
            began=self._net_began,
            number=len(linked.played) + 1 if linked is not None else 1,
        )
        if claim_nonce is not None:  # the next game of a host: the same relay code
            game.claim_nonce = claim_nonce
        self.game = game
        game.start()

    def _link(self, games: int) -> None:
        """A new series with a peer: a match of ``games``, or 1: a game and rematches."""
        from ._series import Linked

        self._new_series()
        self._linked = Linked(games=games)
        self.feed.match_games = games
        self.feed.match_line = None
        self.feed.match_cost = self._match_cost if games > 1 else None

    def _match_cost(self) -> tuple[str, str]:
        """Who wins the match if the player leaves it now, and the games score then
        (the leave question's, as the terminal's)."""
        from truc_p2p.rules import Player
        from truc_p2p.ui import Voice

        model = self.feed.model
        me = model.me
        wins = dict(self._linked.wins) if self._linked is not None else {p: 0 for p in Player}
        wins[me.other] += 1  # the game in play, given up
        return model.opp_name, Voice({me: _("you"), me.other: model.opp_name}, me).score(wins)

    def _host(self, message: dict[str, Any]) -> None:
        from truc_p2p.net import HostSettings, InviteError, parse_host_port

        relay = message.get("relay") or self.relay
        if isinstance(message.get("site"), str):
            self.site = message["site"]
        try:
            if not isinstance(relay, str):
                raise InviteError(_("no relay to host with"))
            parse_host_port(relay, what="relay")
        except (InviteError, ValueError) as exc:
            self._error(_("cannot host: {reason}", reason=str(exc)))
            return
        games = message.get("match")
        games = 1 if games is None else games
        try:
            HostSettings(match=games)  # the invite's own check: 1..99 games
        except InviteError as exc:
            self._error(_("cannot host: {reason}", reason=str(exc)))
            return
        assert isinstance(games, int)
        self._link(games)
        self._net(relay, None)

    def _join(self, text: object) -> None:
        if not isinstance(text, str):
            self._error(_("paste an invite link"))
            return
        text = text.strip()
        if "#join=" in text:  # the whole link: the invite rides in its fragment
            text = text.split("#join=", 1)[1]
        text = unquote(text)
        from truc_p2p.net import Invite, InviteError

        try:
            invite = Invite.parse(text)
        except InviteError as exc:
            self._error(_("not an invite: {reason}", reason=str(exc)))
            return
        if invite.relay is None or invite.code is None:
            self._error(_("this invite names no relay: a browser can only join through one"))
            return
        relay = f"{invite.relay[0]}:{invite.relay[1]}"
        if ":" in invite.relay[0]:
            relay = f"[{invite.relay[0]}]:{invite.relay[1]}"
        self._link(invite.settings.match or 1)
        self._net(relay, invite)

    # -- the lobby (connect.md 2.2) ------------------------------------------------

    def _lobby(self, message: dict[str, Any]) -> None:
        """Ask the relay (the host card's, by default the site's) for its open games."""
        self.lobby.ask(message.get("relay") or self.relay)

    def _ended(self, outcome: GameOutcome) -> None:
        from truc_p2p.net import End
        from truc_p2p.protocol import verify_transcript
        from truc_p2p.ui import final_message

        from ._games import NetGame

        game = self.game
        if isinstance(game, NetGame) and game.invite is not None and game.refused_early(outcome):
            key = game.invite.fingerprint.lower()
            if key not in self._no_early:  # once: join again without proposing them
                self._no_early.add(key)
                self.feed.notice(_("the host predates early cards: joining again without them"))
                self._net(game.relay, game.invite)
                return
        self.outcome = outcome
        if outcome.end is not End.CONNECTION_LOST:  # else a reload may still resume it
            self._forget_game()
        report: object = None
        if self.envelopes:
            report = verify_transcript(self.envelopes)
        name = self.transcript_name()

        def final() -> dict[str, Any]:
            message = final_message(outcome, report)
            message["transcript"] = name
            return message

        self.feed.finish(final(), retell=final)
        if self.autoplay is not None:
            winner = getattr(report, "winner", None)
            self.autoplay.game_over(
                outcome.end.value, None if winner is None else int(winner), name, self.transcript()
            )
        self._page({"type": "app", "screen": "table", "transcript": name})
        bot = self.game is not None and self.game.kind == "bot"
        if bot and (self._linked is None or not self._linked.is_match):
            self.feed.offer_again()
        elif self._linked is not None and outcome.end is not End.CONNECTION_LOST:
            follows, line = self._linked.count(outcome)
            if line is not None:
                self.feed.show_match(line(), line)
            if follows is not None:
                self.feed.offer_again(next_game=follows == "next")
            elif bot:  # the match against the bot is over: another one may be asked for
                self.feed.offer_again()

    # -- the table's answers (Answers) -----------------------------------------

    def picked(self, choice: Action | None) -> None:
        if self.game is not None:
            self.game.act(choice)

    def again(self, yes: bool) -> None:
        game = self.game
        if yes and game is not None and game.kind == "bot":
            linked = self._linked
            if linked is not None and (linked.winner is not None or linked.left is not None):
                self._bot_series(sorted(self.bot_variants))  # the next match
            self._start_bot(self.feed.level or self._level)
        elif yes and game is not None and game.kind == "net" and self._linked is not None:
            # the next linked game: a joiner dials the same invite again, a host
            # registers the same code again (wire.md 4.1's redial)
            last = game
            assert last.kind == "net"
            self._net(last.relay, last.invite, claim_nonce=last.claim_nonce)
        else:
            self._home()

    def level_chosen(self) -> None:
        self._start_bot(self.feed.level or self._level)

    def leave_now(self) -> bool:
        if self.game is None or self.outcome is not None:
            return False
        self.game.leave()
        return True

    def _home(self) -> None:
        if self.game is not None and self.outcome is None:
            self.game.leave()
        if self.game is not None:
            self.game.stop()
        self._page({"type": "app", "screen": "home"})

    # -- files -----------------------------------------------------------------

    def transcript(self) -> bytes:
        """The game's transcript, byte for byte the desktop's ``.truc`` file."""
        return encode_transcript(self.envelopes)

    def transcript_name(self) -> str:
        game_id = ""
        if self.game is not None and self.game.side is not None:
            game_id = self.game.side.session.game_id.hex()[:12]
        return f"game-{game_id or 'unstarted'}.truc"

    def _download(self) -> None:
        if not self.envelopes:
            self._error(_("no game to download yet"))
            return
        self._out.download(self.transcript_name(), self.transcript())

    def _verify(self, message: dict[str, Any]) -> None:
        data = message.get("data")
        if not isinstance(data, bytes | bytearray | memoryview):
            self._error(_("drop a .truc file to verify it"))
            return
        from truc_p2p.verdict import verify_bytes

        verdict, words = verify_bytes(bytes(data))
        self._page(
            {
                "type": "verdict",
                "name": str(message.get("name") or ""),
                "json": verdict,
                "status": verdict.get("status"),
                "headline": words.get("headline"),
                "summary": words.get("summary"),
            }
        )

    def _import_key(self, data: object) -> None:
        if not isinstance(data, bytes | bytearray | memoryview):
            self._error(_("choose an identity key file"))
            return
        try:
            key = key_from_file(bytes(data))
        except KeyFileError as exc:
            self._error(_("cannot use this key: {reason}", reason=str(exc)))
            return
        self.key = key
        self._out.store(IDENTITY_KEY, raw_key(key))
        self._identity()
