"""The package's parts and the imports allowed between them: :data:`EDGES`.

A part is a top-level module or package of ``truc_p2p`` (``rules``, ``net``,
``__main__``; the package's own ``__init__`` is the part ``__init__``).  A part may
import only the parts :data:`EDGES` lists for it, and only their public names:
``truc_p2p.deck.v2._side`` is private to ``deck`` (a name starting with ``_`` below
the part's top), while what ``deck/__init__`` re-exports is public (``ui`` and
``history`` list theirs in ``__all__`` and load each on first use, PEP 562, so
start-up stays light).  The edges form no circle, and no circle of imports runs
inside a part either (an import only a type checker reads, under
``if TYPE_CHECKING:``, aside).

``tests/test_layering.py`` checks every import in the package against this table,
at module level and inside functions, and imports by string too (a whole string
naming a module of the package, as ``importlib.import_module`` and ``__import__``
take, or a lazy table holds); it fails on a part that is not in it.

This module imports nothing: it is data, read by the test and by whoever wants
to know where a new module goes.
"""

from __future__ import annotations

__all__ = [
    "CRYPTO_LIBRARIES",
    "CRYPTO_LIBRARY_USERS",
    "EDGES",
    "PAGE_NET",
    "PURE",
    "REACH_EXCEPTIONS",
]

#: Each part -> the parts it may import.  A new edge is a decision written here.
EDGES: dict[str, frozenset[str]] = {
    # the package's version; this table; terminal-safe text
    "__init__": frozenset(),
    "_layers": frozenset(),
    "_text": frozenset(),
    # the texts' language (gettext catalogs) and glyphs: standard library only
    "i18n": frozenset(),
    # the one seam for secp256k1 and Ed25519 (native or the page's JS)
    "crypto": frozenset(),
    # the rules engine: pure, standard library only
    "rules": frozenset(),
    # mental poker (ElGamal on secp256k1); its deal positions come from rules
    "deck": frozenset({"__init__", "crypto", "rules"}),
    # the sans-IO session and the offline verifier
    "protocol": frozenset({"__init__", "_text", "crypto", "deck", "rules"}),
    # transcript files; the long-term key on disk
    "transcript": frozenset({"protocol"}),
    "identity": frozenset({"crypto", "protocol"}),
    # cheat evidence bundles
    "evidence": frozenset({"protocol", "transcript"}),
    # the verifier's verdict in words (verify, the end screens, the site's verify page)
    "verdict": frozenset({"evidence", "i18n", "protocol", "transcript"}),
    # strategies: on the public rules interface only
    "bots": frozenset({"rules"}),
    # two sessions and two bots in memory (the demo, tests)
    "memory_pair": frozenset({"bots", "crypto", "protocol", "rules"}),
    # the trio transport, relay and lobby
    "net": frozenset(
        {
            "__init__",
            "_text",
            "bots",
            "crypto",
            "evidence",
            "identity",
            "protocol",
            "rules",
            "transcript",
        }
    ),
    # presentation: table model, texts, terminal, web
    "ui": frozenset({"bots", "i18n", "net", "protocol", "rules", "verdict"}),
    # the in-page game (a Web Worker): no trio, no I/O, no clock
    "page": frozenset({"bots", "crypto", "i18n", "net", "protocol", "rules", "ui", "verdict"}),
    # saved games: records, the games list, replay steps and pages, export, matches
    "history": frozenset({"i18n", "identity", "protocol", "rules", "transcript", "ui"}),
    # the bench sub-commands' measurements
    "bench": frozenset(
        {"bots", "crypto", "deck", "i18n", "memory_pair", "net", "protocol", "rules"}
    ),
    # the interop runner (net, the verifier, bots), a command of cli's; its browser
    # adapter bridges TCP with the page's own sans-IO relay handshake
    "interop": frozenset(
        {"_text", "bots", "crypto", "net", "page", "protocol", "rules", "transcript"}
    ),
    # the static web client: its build (pinned downloads, wheel) and check
    "site": frozenset({"__init__"}),
    # the commands
    "cli": frozenset(
        {
            "__init__",
            "bench",
            "bots",
            "crypto",
            "evidence",
            "history",
            "i18n",
            "identity",
            "interop",
            "memory_pair",
            "net",
            "protocol",
            "rules",
            "site",
            "transcript",
            "ui",
            "verdict",
        }
    ),
    # ``python -m truc_p2p``
    "__main__": frozenset({"cli"}),
}

#: Parts that do no I/O, read no clock and draw no global randomness (sans-IO).
PURE: tuple[str, ...] = ("rules", "deck", "protocol", "page")

#: The native crypto libraries: only :data:`CRYPTO_LIBRARY_USERS` import them, everything
#: else goes through the seam, ``truc_p2p.crypto`` (so the page can run it on its JS backend).
CRYPTO_LIBRARIES: tuple[str, ...] = ("coincurve", "cryptography")

#: The modules (each with everything below it) that may import :data:`CRYPTO_LIBRARIES`.
CRYPTO_LIBRARY_USERS: dict[str, str] = {
    "truc_p2p.crypto._native": "the seam's native backend",
    "truc_p2p.deck.legacy_v1": "deck v1 (P-256 through OpenSSL) runs natively only, "
    "importing cryptography on first use",
    "truc_p2p.bench": "the deck benchmark names the native libraries it measures",
    "truc_p2p.net._nostr": "Nostr's BIP-340 Schnorr keys (the desktop's lobby on Nostr "
    "relays, connect.md section 10): no deck or envelope signature, and not in the page",
}

#: Reaches into another part's private modules allowed anyway: the private module's
#: dotted name (it and everything below it) -> (the parts that may import it, why).
_DECK_BENCH = (
    frozenset({"cli", "bench"}),
    "the deck benchmark times the deck's internals one by one (group operations, "
    "proofs, each step), which are no API",
)
#: The trio-free modules of ``net`` the page may use (``tests/test_layering.py`` imports
#: ``truc_p2p.page`` and checks that no other part of ``net``, nor trio, was loaded).
PAGE_NET: tuple[str, ...] = (
    "truc_p2p.net._clocks",
    "truc_p2p.net._gate",
    "truc_p2p.net._invite",
    "truc_p2p.net._listing",
    "truc_p2p.net._net_events",
    "truc_p2p.net._outcome",
    "truc_p2p.net._play_endings",
    "truc_p2p.net._relay_wire",
)

REACH_EXCEPTIONS: dict[str, tuple[frozenset[str], str]] = {
    **{
        f"truc_p2p.deck.{name}": _DECK_BENCH
        for name in (
            "legacy_v1._group",
            "legacy_v1._steps",
            "v2._derive",
            "v2._ec",
            "v2._hand",
            "v2._proofs",
            "v2._side",
        )
    },
    "truc_p2p.bots._bench": (
        frozenset({"cli", "bench"}),
        "the bench sub-command drives the bots' own measurement loop",
    ),
    "truc_p2p.bots._exploit": (
        frozenset({"cli", "bench"}),
        "the bench sub-command lists the exploiting opponents it measures against",
    ),
    "truc_p2p.net._invite": (
        frozenset({"cli"}),
        "the lobby command parses host:port as the network layer does (cli/net being moved)",
    ),
    "truc_p2p.net._relay_wire": (
        frozenset({"cli", "page"}),
        "the lobby command reports a relay's protocol error by type (cli/net being moved)",
    ),
    **{
        name: (
            frozenset({"page"}),
            "the page runs the trio loop's own trio-free parts: the frame gate, the "
            "outcomes and the endings",
        )
        for name in (
            "truc_p2p.net._gate",
            "truc_p2p.net._listing",
            "truc_p2p.net._outcome",
            "truc_p2p.net._play_endings",
        )
    },
    "truc_p2p.protocol._values": (
        frozenset({"cli", "history"}),
        "a game's record tells own hellos by their nonce (nonce_is_from)",
    ),
    "truc_p2p.protocol._wire": (
        frozenset({"cli"}),
        "verify reports the transcript's framed size (FRAME_HEADER)",
    ),
}
