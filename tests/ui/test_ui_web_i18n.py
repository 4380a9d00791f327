"""The web table in another language: the page's fixed texts and the table's texts
under a catalog, the browser's ``Accept-Language``, and the language menu."""

from __future__ import annotations

import json
from typing import Any

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import Request, TextMessage

from truc_p2p.i18n import LANGUAGES, current, use_language
from truc_p2p.rules import Card, Game, Player
from truc_p2p.ui._web import WebPlayer, table_state
from truc_p2p.ui._web._server import bind_table, serve_table
from truc_p2p.ui._web._view import page_texts

#: Texts that read the same in French (the title and names).
SAME = {"title"}


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def publish(self, message: dict[str, Any]) -> None:
        json.dumps(message)
        self.messages.append(message)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


def _strings(texts: dict[str, Any]) -> dict[str, str]:
    flat = {k: v for k, v in texts.items() if isinstance(v, str) and k != "lang"}
    flat.update({f"not_now.{k}": v for k, v in texts["not_now"].items()})
    return flat


def test_page_texts_in_french() -> None:
    english = _strings(page_texts())
    use_language("fr")
    texts = page_texts()
    french = _strings(texts)
    assert french.keys() == english.keys()
    same = {k for k in english if french[k] == english[k]}
    assert same == SAME, f"left in English: {same - SAME}"
    assert texts["help_button"] == "? règles et touches"
    assert texts["help"].startswith("Le Truc à deux, en bref")
    # French typography: no-break spaces inside « » and before ? : ;
    assert (
        texts["not_now"]["r"]
        == "vous ne pouvez pas demander «\u00a02 de plus\u00a0?\u00a0» maintenant"
    )
    # the language menu: every language in its own name, French chosen
    assert texts["lang"] == "fr"
    assert [(x["code"], x["name"]) for x in texts["languages"]] == list(LANGUAGES.items())
    # placeholders the page fills are still there
    assert "{time}" in texts["disconnected"] and "{name}" in texts["you"]


def _to_lead() -> Game:
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: [Card.from_str(t) for t in ("7S", "9H", "AD")]})
    return game


def test_table_texts_in_french() -> None:
    game = _to_lead()
    legal = tuple(game.legal_actions())
    english = table_state(game, Player.P0, legal=legal, turn=1)
    use_language("fr")
    state = table_state(game, Player.P0, legal=legal, turn=1)
    labels = {b["kind"]: b["label"].replace("\u00a0", " ") for b in state["buttons"]}
    assert labels["raise"].startswith("« 2 de plus ? »")
    assert labels["rest"] == "« mon reste »" and labels["fold"] == "se coucher"
    assert state["status"] != english["status"] and state["status"].startswith("à vous")
    assert "vous 0" in state["score_line"]
    # what the page acts on stays language-neutral
    assert [b["action"] for b in state["buttons"]] == [b["action"] for b in english["buttons"]]
    assert [c["action"] for c in state["hand"]] == [c["action"] for c in english["hand"]]


def test_the_browser_language_unless_one_was_chosen() -> None:
    player = WebPlayer("alice")
    player.greet("de-DE,de;q=0.9,es;q=0.8")
    assert current() == "es"
    assert player.snapshot()[0]["copy"] == "copiar"
    pinned = WebPlayer("bob", lang_pinned=True)  # --lang was given
    use_language("fr")
    pinned.greet("es")
    assert current() == "fr"


def test_the_language_menu_rerenders_the_page() -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player.receive({"type": "lang", "lang": "es"})
    assert current() == "es" and player.lang_pinned
    texts = page.of("texts")[-1]
    assert texts["lang"] == "es" and texts["help_button"] == "? reglas y teclas"
    state = page.of("state")[-1]
    assert (
        state["texts"]["leave_confirm"] == "¿Parar e irte? Todavía no ha empezado ninguna partida."
    )
    # a later page keeps the chosen language, whatever its browser asks
    player.greet("fr")
    assert current() == "es"
    # nonsense is ignored
    before = len(page.messages)
    player.receive({"type": "lang", "lang": "xx"})
    player.receive({"type": "lang", "lang": 3})
    assert len(page.messages) == before and current() == "es"


class GreetedTable:
    """A table that records the browser's languages before its snapshot is taken."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def greet(self, accept_language: str) -> None:
        self.heard.append(accept_language)

    def snapshot(self) -> list[dict[str, Any]]:
        return [{"type": "texts", "heard": list(self.heard)}]

    def receive(self, message: dict[str, Any]) -> None:
        pass


async def test_the_server_hands_the_browser_languages_to_the_table() -> None:
    table = GreetedTable()
    async with serve_table(table, await bind_table(0)) as server:
        host = f"127.0.0.1:{server.port}"
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        async with stream:
            ws = WSConnection(ConnectionType.CLIENT)
            headers = [(b"Origin", f"http://{host}".encode()), (b"Accept-Language", b"gd, en")]
            target = f"/ws?token={server.token}"
            await stream.send_all(ws.send(Request(host=host, target=target, extra_headers=headers)))
            with trio.fail_after(5):
                while True:
                    ws.receive_data(await stream.receive_some(65536))
                    texts = [e for e in ws.events() if isinstance(e, TextMessage)]
                    if texts:
                        break
    assert json.loads(texts[0].data) == {"type": "texts", "heard": ["gd, en"]}
