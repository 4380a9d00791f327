"""The hellos: what ours announces and how the peer's is judged.

A :class:`Negotiation` is one session's part in the two hellos (wire.md sections
4, 4.1 and 8.1).  It owns what our hello proposes (the options map, the series,
early cards and the feature mask of our nonce), the peer's hello (its key,
features, name, fingerprint, coin and series), the two hellos' bytes and the game
id they make.  It signs and sends nothing: :meth:`Negotiation.hello` is the
payload of our hello and :meth:`Negotiation.take` judges a hello on the chain and
returns a :class:`Verdict` the session acts on (the answer it sends, the mismatch
it raises once the answer is out, the control plane it binds).

:data:`FEATURES` is the one table of the features a hello may announce: the bit,
the option that turns it on and the session property that says both hellos
agreed it.  The mask our nonce announces and every "agreed" answer come from it;
:class:`Announced` and :class:`Agreed` put its rows on the session by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

from truc_p2p.crypto import VerifyKey
from truc_p2p.protocol._errors import (
    PeerKeyMismatchError,
    RulesetMismatchError,
)
from truc_p2p.protocol._judge import hello_terms, hellos_agree
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_HEARTBEAT,
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
    FEATURE_RESUME_CLOCK,
    Series,
    coin_commitment,
    game_id_of,
    hello_nonce,
    nonce_features,
    series_of,
    session_options,
)
from truc_p2p.protocol._wire import (
    Envelope,
    fingerprint,
)
from truc_p2p.rules import (
    Player,
)

__all__ = [
    "FEATURES",
    "Agreed",
    "Announced",
    "Feature",
    "Negotiation",
    "Verdict",
    "announced_by",
    "feature_agreed",
]


@dataclass(frozen=True, kw_only=True)
class Feature:
    """A feature a hello may announce in its nonce (wire.md section 8.1)."""

    #: its bit in the nonce's mask (``FEATURE_*`` of :mod:`._values`)
    bit: int
    #: the :class:`~._options.SessionOptions` field that makes our hello announce it;
    #: the session's ``<option>_feature`` says whether ours does
    option: str
    #: the session property that says whether it is agreed
    agreed: str
    #: the deck version it needs besides both announcements, if any
    deck: str | None = None
    #: what the agreed feature means (the property's docstring)
    doc: str

    @property
    def announced(self) -> str:
        """The session attribute that says whether our hello announces it."""
        return f"{self.option}_feature"


#: The features, each agreed when both hellos announce it (and its deck is played).
FEATURES: tuple[Feature, ...] = (
    Feature(
        bit=FEATURE_RESIGN,
        option="resign",
        agreed="resign_agreed",
        doc="Both hellos announce resignation (wire.md section 8.1): :meth:`resign` may be used.",
    ),
    Feature(
        bit=FEATURE_REST_FINAL,
        option="rest_final",
        agreed="rest_final",
        doc="Whether the rest-final rule is agreed (both hellos announce it, wire.md "
        'section 6b): no pre-deal is owed while "my rest" decides the hand.',
    ),
    Feature(
        bit=FEATURE_EARLY_REDEAL,
        option="early_redeal",
        agreed="early_redeal",
        deck="v2",
        doc="Whether early redeal cards are agreed (both hellos announce them, wire.md "
        "section 6a): the non-dealer's shares for the dealer's redealt cards follow the "
        "``accept-redeal`` at once, in a ``v2redeal``.",
    ),
    Feature(
        bit=FEATURE_HEARTBEAT,
        option="heartbeat",
        agreed="heartbeats_agreed",
        doc="Whether both hellos announce heartbeats (wire.md sections 11.1 and 13.6): "
        "only then does the joiner send them.  ``False`` until the peer's hello.",
    ),
    Feature(
        bit=FEATURE_RESUME_CLOCK,
        option="resume_clock",
        agreed="resume_clock_agreed",
        doc="Whether both hellos announce the clock in resume (wire.md sections 11.1, "
        "13.1): our ``resume`` then carries ``left`` and ``away``, and the peer's must.",
    ),
)


_BY_BIT = {feature.bit: feature for feature in FEATURES}


def feature_agreed(bit: int, masks: Sequence[int], deck: str | None) -> bool:
    """Whether the feature ``bit`` is agreed: both hellos' feature ``masks`` announce
    it and ``deck`` is the one it needs, if any.  The session and the verifier judge
    it here alike."""
    need = _BY_BIT[bit].deck
    return len(masks) == 2 and all(mask & bit for mask in masks) and need in (None, deck)


def announced_by(options: SessionOptions) -> int:
    """The feature mask a hello made with ``options`` announces."""
    return sum(f.bit for f in FEATURES if getattr(options, f.option))


def _feature(field: str, name: str) -> Feature:
    """The row of :data:`FEATURES` whose ``field`` (``agreed`` or ``announced``) is ``name``."""
    for feature in FEATURES:
        if getattr(feature, field) == name:
            return feature
    raise TypeError(f"no hello feature has {field} {name!r}")


@dataclass(frozen=True)
class Verdict:
    """What the session does after :meth:`Negotiation.take`, in this order."""

    #: our hello's payload, to sign and send first (we are the responder)
    answer: dict[str, Any] | None = None
    #: the hellos make no one game: raised once the answer is out
    refusal: RulesetMismatchError | None = None
    #: both hellos are in: the game id is set, bind the control plane
    complete: bool = False


class Negotiation:
    """One session's hellos: what ours proposes and what the peer's says.

    ``coin`` is our coin (the initiator's hello carries its commitment, the
    responder's the coin itself); ``secret`` derives our hello nonce.
    ``expected_peer`` pins the peer's key fingerprint; ``accept_series`` (the
    responder's) decides whether the initiator's hello may link this game to
    another (``accept_series(series, peer_fingerprint)``, e.g. ``host --forever``
    taking a rematch of a game it played); without it the series must be ours.
    """

    def __init__(
        self,
        *,
        options: SessionOptions,
        me: Player,
        public: bytes,
        secret: bytes,
        coin: bytes,
        expected_peer: str | None,
        accept_series: Callable[[Series, str], bool] | None,
    ) -> None:
        self._settings = options
        self._me = me
        self._public = public
        self._secret = secret
        self._coin = coin
        self._expected_peer = expected_peer
        self._accept_series = accept_series
        mask = announced_by(options)
        self._announced = {f.bit: bool(mask & f.bit) for f in FEATURES}
        #: early cards (deck v2, wire.md section 6a): what we propose; after the
        #: hellos, what both agreed (negotiated down when the peer's hello lacks them)
        self.early = bool(options.early)
        #: what our hello proposed (``early`` may be negotiated down by the peer's hello)
        self.early_proposed = bool(options.early)
        #: the linked games this one belongs to (rematch, match; wire.md section 4.1)
        self.series = options.series
        #: the two hellos' bytes as they reached the chain, initiator's first
        self.hellos: list[bytes] = []
        #: the game id (wire.md section 4), ``b""`` until both hellos are in
        self.game_id = b""
        self.peer_key: VerifyKey | None = None
        self.peer_features = 0  # the mask the peer's nonce announces
        self.peer_name: str | None = None
        self.peer_fingerprint: str | None = None
        #: the series the peer's hello names (wire.md 4.1; ``None``: not yet, or malformed)
        self.peer_series: Series | None = None
        self.peer_coin = b""  # commitment (we are responder) or coin (initiator)

    # -- what our hello says ---------------------------------------------------------

    def announces(self, bit: int) -> bool:
        """Whether our hello announces the feature ``bit``."""
        return self._announced[bit]

    def announce(self, bit: int, on: bool) -> None:
        """Make our hello announce the feature ``bit`` or not (a later hello, or what
        :meth:`agreed` answers from now on)."""
        self._announced[bit] = on

    @property
    def features(self) -> int:
        """The feature mask our hello nonce announces (wire.md section 8.1)."""
        return sum(bit for bit, on in self._announced.items() if on)

    def agreed(self, bit: int) -> bool:
        """Whether the feature ``bit`` is agreed: both hellos announce it and the deck
        it needs, if any, is played.  ``False`` until the peer's hello."""
        return feature_agreed(bit, (self.features, self.peer_features), self._settings.deck)

    def options(self) -> dict[str, Any]:
        """The ``options`` map of our hello (wire.md sections 4 and 4.1)."""
        s = self._settings
        return session_options(s.audit, s.deck, bool(s.pipeline), self.early, self.series)

    def hello(self) -> dict[str, Any]:
        """The payload of our hello: the initiator commits to its coin, the responder
        shows its own."""
        return {
            "name": self._settings.name,
            "key": self._public,
            "nonce": hello_nonce(self._secret, self.features),
            "ruleset": dict(self._settings.ruleset.to_dict()),
            "options": self.options(),
            "coin": coin_commitment(self._coin) if self._me is Player.P0 else self._coin,
        }

    # -- a hello on the chain --------------------------------------------------------

    def take(self, env: Envelope, *, mine: bool) -> Verdict:
        """Take a hello now on the chain, ours or the (signature-checked) peer's.

        Raises :class:`PeerKeyMismatchError` for a key other than the pinned one
        (before anything is sent: an impostor learns nothing), ``malformed`` for a
        ruleset or options the verifier would refuse (:func:`~._judge.hello_terms`)
        and :class:`RulesetMismatchError` when the responder turned on early cards
        we did not propose.  A responder's answer and a mismatch of the two hellos
        (:func:`~._judge.hellos_agree`) come back in the verdict.
        """
        self.hellos.append(env.raw)
        if not mine:
            answer, refusal = self._judge(env)
            if answer is not None or refusal is not None:
                return Verdict(answer=answer, refusal=refusal)
        if len(self.hellos) < 2:
            return Verdict()
        self.game_id = game_id_of(self.hellos[0], self.hellos[1])
        return Verdict(complete=True)

    def _judge(self, env: Envelope) -> tuple[dict[str, Any] | None, RulesetMismatchError | None]:
        """The peer's hello: its facts, the series and early cards settled; our answer
        (we are the responder) and the mismatch, if any."""
        p = env.payload
        peer_fingerprint = fingerprint(p["key"])
        if self._expected_peer is not None and peer_fingerprint != self._expected_peer:
            raise PeerKeyMismatchError(
                f"peer key fingerprint {peer_fingerprint} is not the expected "
                f"{self._expected_peer}",
                message_no=env.seq,
            )
        self.peer_key = VerifyKey.from_bytes(p["key"])
        self.peer_features = nonce_features(p["nonce"])
        self.peer_name = p["name"]
        self.peer_fingerprint = peer_fingerprint
        self.peer_coin = p["coin"]
        # Malformed before any comparison, as the verifier judges it (one function).
        terms = hello_terms(p, message_no=env.seq)
        theirs, early, ours = terms.ruleset, terms.early, self._settings.ruleset
        theirs_series = self.peer_series = series_of(p["options"])
        answer = None
        if self._me is Player.P1:
            if (
                self._accept_series is not None
                and theirs_series is not None
                and theirs_series != self.series
                and self._accept_series(theirs_series, peer_fingerprint)
            ):
                self.series = theirs_series  # answered in our hello (wire.md 4.1)
            # Early cards are on when both propose them: we answer with the key only
            # if the initiator's hello has it (an old initiator never sees it).
            self.early = self.early and early
            # Answer first so the initiator sees our settings, then complain.
            answer = self.hello()
            agree = hellos_agree(p["options"], self.options(), rulesets=(theirs, ours))
        elif early and not self.early:
            raise RulesetMismatchError(
                "the responder turned on early cards, which we did not propose",
                message_no=env.seq,
            )
        else:
            agree = hellos_agree(self.options(), p["options"], rulesets=(ours, theirs))
            self.early = early  # negotiated down when the responder lacks it
        if agree:
            return answer, None
        return answer, RulesetMismatchError(
            f"peer proposes ruleset {theirs.to_dict()} options {p['options']}, "
            f"we use {ours.to_dict()} options {self.options()}",
            message_no=env.seq,
        )


class _Negotiating(Protocol):
    """What :class:`Announced` and :class:`Agreed` read: the session's negotiation."""

    @property
    def _hello(self) -> Negotiation: ...


class Announced:
    """A session attribute (``resign_feature``, ...): whether our hello announces
    the :data:`FEATURES` row whose ``announced`` is the attribute's name; settable."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._bit = _feature("announced", name).bit
        self.__doc__ = f"Whether our hello announces {name.removesuffix('_feature')}."

    @overload
    def __get__(self, session: None, owner: type[Any]) -> Announced: ...
    @overload
    def __get__(self, session: _Negotiating, owner: type[Any]) -> bool: ...
    def __get__(self, session: _Negotiating | None, owner: type[Any]) -> Announced | bool:
        if session is None:
            return self
        return session._hello.announces(self._bit)

    def __set__(self, session: _Negotiating, on: bool) -> None:
        session._hello.announce(self._bit, on)


class Agreed:
    """A session property (``resign_agreed``, ``rest_final``, ...): whether the
    :data:`FEATURES` row whose ``agreed`` is the property's name is agreed."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        feature = _feature("agreed", name)
        self._bit = feature.bit
        self.__doc__ = feature.doc

    @overload
    def __get__(self, session: None, owner: type[Any]) -> Agreed: ...
    @overload
    def __get__(self, session: _Negotiating, owner: type[Any]) -> bool: ...
    def __get__(self, session: _Negotiating | None, owner: type[Any]) -> Agreed | bool:
        if session is None:
            return self
        return session._hello.agreed(self._bit)
