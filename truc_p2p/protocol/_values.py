"""Values both players derive the same way, outside any session state.

Local random values from the session secret (wire.md section 9), the hello's
options, the coin flip, the game id, the signed result payload and a host's
signed refusal.  Pure functions: the session, the verifier and the vectors
all call them.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from truc_p2p._text import printable
from truc_p2p.crypto import SigningKey
from truc_p2p.protocol._errors import LocalProtocolError
from truc_p2p.protocol._messages import DECK_VERSIONS, REFUSE_REASONS, MessageType
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._wire import GENESIS, frame, public_key_bytes, sign_envelope
from truc_p2p.rules import Game, Outcome, Phase, Player

__all__ = [
    "AUDIT_MODES",
    "EARLY_DEFAULT",
    "FEATURE_EARLY_REDEAL",
    "FEATURE_HEARTBEAT",
    "FEATURE_RESIGN",
    "FEATURE_REST_FINAL",
    "FEATURE_RESUME_CLOCK",
    "FEATURE_TAG",
    "PIPELINE_DEFAULT",
    "SERIES_KEYS",
    "Series",
    "coin_commitment",
    "deck_of_options",
    "first_dealer_from_coins",
    "game_id_of",
    "hello_nonce",
    "local_seed",
    "local_seed_v2",
    "local_value",
    "nonce_features",
    "nonce_is_from",
    "parse_options",
    "refusal",
    "resignable",
    "result_payload",
    "series_of",
    "session_options",
    "without_early",
]

AUDIT_MODES = ("game", "hand")
#: Whether deck v2 sessions pipeline the deal unless told otherwise.
PIPELINE_DEFAULT = True
#: Whether deck v2 sessions propose early cards (wire.md section 6a) unless told otherwise.
EARLY_DEFAULT = True
_COIN_TAG = b"truc-p2p/v1/coin"
_GAME_TAG = b"truc-p2p/v1/game"
#: Features a hello announces in the last 8 bytes of its nonce (wire.md section 8.1):
#: this tag, then a 32-bit big-endian mask.  Old peers treat the nonce as opaque
#: random bytes, so announcing a feature never breaks them.
FEATURE_TAG = b"trc\x01"
#: The feature bit of resignation (wire.md section 8.1): ``abort`` reason ``resign``.
FEATURE_RESIGN = 1
#: The feature bit of the rest-final rule (wire.md section 6b): with the pipelined
#: deal, no pre-deal message is owed while "my rest" decides the hand.
FEATURE_REST_FINAL = 2
#: The feature bit of early redeal cards (wire.md section 6a): after an accepted redeal
#: the non-dealer sends its shares for the dealer's new cards at once, in ``v2redeal``,
#: and decides afterwards.
FEATURE_EARLY_REDEAL = 4
#: The feature bit of heartbeats (wire.md sections 11.1 and 13.6): the sender drops
#: zero-length frames and answers them.  A joiner sends heartbeats only to a host
#: whose hello announces this bit (and its own hello does too).
FEATURE_HEARTBEAT = 8
#: The feature bit of the clock in resume (wire.md sections 11.1, 13.1): each
#: ``resume`` carries, after ``nonce`` and ``echo``, the time its sender's turn clock
#: left the player it times (``left``, ms or nil) and the time away it counted
#: (``away``, ms), so a side that restarted shows the real time left.
FEATURE_RESUME_CLOCK = 16


def local_value(secret: bytes, label: bytes) -> bytes:
    """A local random value derived from the session secret (wire.md section 9)."""
    return hmac.new(secret, b"truc-p2p/v1/local/" + label, hashlib.sha256).digest()


def local_seed(secret: bytes, hand: int) -> bytes:
    """The deck seed of ``hand`` derived from the session secret."""
    return local_value(secret, b"seed" + hand.to_bytes(4, "big"))


def local_seed_v2(secret: bytes, hand: int) -> bytes:
    """The deck v2 seed of ``hand`` (never revealed: nothing is audited in v2)."""
    return local_value(secret, b"v2seed" + hand.to_bytes(4, "big"))


def hello_nonce(secret: bytes, features: int) -> bytes:
    """The hello nonce (wire.md sections 4 and 9): 32 bytes derived from the secret,
    or, when the sender announces ``features``, 24 of them, the tag and the mask."""
    nonce = local_value(secret, b"nonce")
    if not features:
        return nonce
    return nonce[:24] + FEATURE_TAG + features.to_bytes(4, "big")


def nonce_features(nonce: bytes) -> int:
    """The feature mask a hello nonce announces (0 for a nonce without the tag)."""
    if len(nonce) != 32 or nonce[24:28] != FEATURE_TAG:
        return 0
    return int.from_bytes(nonce[28:], "big")


def nonce_is_from(nonce: bytes, secret: bytes) -> bool:
    """Whether ``secret`` derives this hello nonce, whatever features it announces."""
    derived = local_value(secret, b"nonce")
    return nonce == derived or (nonce_features(nonce) != 0 and nonce[:24] == derived[:24])


#: The hello options of a game that follows another (wire.md section 4.1), after the others.
SERIES_KEYS = ("match", "prev", "dealer")
#: The longest match (``--match N``) a hello may name.
MAX_MATCH = 99


@dataclass(frozen=True, kw_only=True)
class Series:
    """Where a game sits among linked games (wire.md section 4.1).

    ``match`` is the number of games of a match (*partie liée*, first to win
    ceil(match / 2)), 1 outside a match.  ``prev`` is the game id of the game
    this one follows (a rematch, or the previous game of the match) and
    ``dealer`` the first dealer of this game: the player who did not deal first
    in the previous game.  Without ``prev`` the coins draw the first dealer.
    """

    match: int = 1
    prev: bytes | None = None
    dealer: Player | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.match <= MAX_MATCH:
            raise LocalProtocolError(f"a match is 1 to {MAX_MATCH} games, not {self.match}")
        if (self.prev is None) != (self.dealer is None):
            raise LocalProtocolError("prev and dealer go together")
        if self.prev is not None and len(self.prev) != 32:
            raise LocalProtocolError("prev is a 32-byte game id")

    def options(self) -> dict[str, Any]:
        """The hello option keys: each absent when off, so a first single game's
        hello is the same as before linked games existed."""
        out: dict[str, Any] = {}
        if self.match > 1:
            out["match"] = self.match
        if self.prev is not None:
            assert self.dealer is not None
            out["prev"] = self.prev
            out["dealer"] = int(self.dealer)
        return out


def series_of(options: dict[str, Any]) -> Series | None:
    """The :class:`Series` a hello's ``options`` name, ``None`` if malformed."""
    match = options.get("match", 1)
    prev = options.get("prev")
    dealer = options.get("dealer")
    if type(match) is not int or ("match" in options and match < 2):
        return None
    if prev is not None and not isinstance(prev, bytes):
        return None
    if dealer is not None and (type(dealer) is not int or dealer not in (0, 1)):
        return None
    try:
        return Series(match=match, prev=prev, dealer=None if dealer is None else Player(dealer))
    except LocalProtocolError:
        return None


def session_options(
    audit: str,
    deck: str,
    pipeline: bool = False,
    early: bool = False,
    series: Series | None = None,
) -> dict[str, Any]:
    """The hello's ``options``: v1 hellos keep their original shape (no ``deck`` key);
    deck v2 adds ``"pipeline": true`` for the pipelined deal and ``"early": true`` for
    early cards, in that key order, each absent when off; then the keys of linked
    games (``match``, ``prev``, ``dealer``, wire.md section 4.1), absent for a single game."""
    extra = series.options() if series is not None else {}
    if deck == "v1":
        return {"audit": audit, **extra}
    options: dict[str, Any] = {"audit": audit, "deck": deck}
    if pipeline:
        options["pipeline"] = True
    if early:
        options["early"] = True
    return {**options, **extra}


def deck_of_options(options: dict[str, Any]) -> str | None:
    """The deck version a hello's ``options`` name (v1 when absent), ``None`` if malformed."""
    parsed = parse_options(options)
    return parsed[1] if parsed is not None else None


def parse_options(options: dict[str, Any]) -> tuple[str, str, bool, bool] | None:
    """(audit, deck, pipeline, early) of a hello's ``options``, ``None`` if malformed:
    an unknown key, a value other than those listed (a flag is ``true``: ``nil``,
    ``1`` or a string is malformed), ``false`` spelled out, or a deck v2 option
    with deck v1.  The session and the verifier both judge by it
    (:func:`~._judge.check_options`)."""
    audit = options.get("audit")
    deck = options.get("deck", "v1")
    pipeline = options.get("pipeline", False)
    early = options.get("early", False)
    if type(audit) is not str or audit not in AUDIT_MODES:
        return None
    if type(deck) is not str or deck not in DECK_VERSIONS:
        return None
    if type(pipeline) is not bool or type(early) is not bool:
        return None
    if (pipeline or early) and deck != "v2":
        return None
    series = series_of(options)
    if series is None or options != session_options(audit, deck, pipeline, early, series):
        return None
    return audit, deck, pipeline is True, early is True


def without_early(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` without the ``early`` key: the part both hellos must agree on
    (early cards are negotiated down, wire.md section 4)."""
    return {k: v for k, v in options.items() if k != "early"}


def coin_commitment(coin: bytes) -> bytes:
    """The initiator's commitment to its coin, sent in its hello."""
    return hashlib.sha256(_COIN_TAG + coin).digest()


def first_dealer_from_coins(initiator_coin: bytes, responder_coin: bytes) -> Player:
    """Both coins decide the first dealer: the low bit of a hash of both."""
    digest = hashlib.sha256(_COIN_TAG + b"/draw" + initiator_coin + responder_coin).digest()
    return Player(digest[0] & 1)


def game_id_of(hello_initiator: bytes, hello_responder: bytes) -> bytes:
    """The game id: SHA-256 over a tag and both raw hello envelopes."""
    return hashlib.sha256(_GAME_TAG + hello_initiator + hello_responder).digest()


def result_payload(outcome: Outcome, *, hands: int, chain: bytes) -> dict[str, Any]:
    """The payload both players sign in their ``result`` messages."""
    return {
        "winner": int(outcome.winner),
        "scores": list(outcome.scores),
        "reason": outcome.reason.value,
        "hands": hands,
        "chain": chain,
    }


#: Stages in which nobody may resign (wire.md section 8): before the coin, and once the
#: game is decided (the audit and the result are due) or over.
_NO_RESIGN = frozenset(
    {
        Stage.HELLO_INITIATOR,
        Stage.HELLO_RESPONDER,
        Stage.COIN,
        Stage.REVEAL_FIRST,
        Stage.REVEAL_SECOND,
        Stage.RESULT_FIRST,
        Stage.RESULT_SECOND,
        Stage.DONE,
        Stage.ABORTED,
        Stage.ERROR,
    }
)


def resignable(stage: Stage, game: Game | None) -> bool:
    """Whether a player may resign at this point of the chain: the coin is flipped,
    the game is not decided, and no reveal or result is due.  The session and the
    verifier ask it about the chain *before* the ``resign``."""
    return game is not None and game.phase is not Phase.OVER and stage not in _NO_RESIGN


def refusal(identity: SigningKey, reason: str, detail: str = "") -> bytes:
    """A host's signed ``refuse`` (framed), for a connection it will not serve.

    Outside any game: empty game id, sequence 0, sender 1 (the host is the
    responder).  The joiner checks the key against the invite's fingerprint.
    """
    if reason not in REFUSE_REASONS:
        raise LocalProtocolError(f"refuse reason must be one of {', '.join(REFUSE_REASONS)}")
    detail = printable(detail, 200)
    payload = {"key": public_key_bytes(identity.public_key()), "reason": reason, "detail": detail}
    raw = sign_envelope(
        identity,
        game_id=b"",
        seq=0,
        prev=GENESIS,
        sender=1,
        type=MessageType.REFUSE,
        payload=payload,
    )
    return frame(raw)
