"""The hellos: what ours announces and how the peer's is judged.

The options and the feature mask our hello proposes, what both hellos agreed
(resignation, rest-final, early redeal cards, heartbeats), and the peer's hello:
its key, name, ruleset, options and series (wire.md sections 4, 4.1 and 8.1).
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PublicKey,
)

from truc_p2p.protocol._errors import (
    PeerKeyMismatchError,
    RulesetMismatchError,
)
from truc_p2p.protocol._judge import hello_terms, hellos_agree
from truc_p2p.protocol._messages import (
    MessageType,
)
from truc_p2p.protocol._session_core import SessionCore
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_HEARTBEAT,
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
    FEATURE_RESUME_CLOCK,
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

__all__ = ["HelloNegotiation"]


class HelloNegotiation(SessionCore):
    """The negotiation layer of a session: the hellos both players sign."""

    def _options(self) -> dict[str, Any]:
        return session_options(self.audit_mode, self.deck, self.pipeline, self.early, self.series)

    def _hello_payload(self, coin: bytes) -> dict[str, Any]:
        return {
            "name": self.name,
            "key": self._public,
            "nonce": hello_nonce(self._secret, self._features()),
            "ruleset": dict(self.ruleset.to_dict()),
            "options": self._options(),
            "coin": coin,
        }

    def _features(self) -> int:
        """The feature mask our hello nonce announces (wire.md section 8.1)."""
        mask = FEATURE_RESIGN if self.resign_feature else 0
        mask |= FEATURE_REST_FINAL if self.rest_final_feature else 0
        mask |= FEATURE_EARLY_REDEAL if self.early_redeal_feature else 0
        mask |= FEATURE_RESUME_CLOCK if self.resume_clock_feature else 0
        return mask | (FEATURE_HEARTBEAT if self.heartbeat_feature else 0)

    @property
    def resume_clock_agreed(self) -> bool:
        """Whether both hellos announce the clock in resume (wire.md sections 11.1,
        13.1): our ``resume`` then carries ``left`` and ``away``, and the peer's must."""
        return self.resume_clock_feature and bool(self._peer_features & FEATURE_RESUME_CLOCK)

    @property
    def heartbeats_agreed(self) -> bool:
        """Whether both hellos announce heartbeats (wire.md sections 11.1 and 13.6):
        only then does the joiner send them.  ``False`` until the peer's hello."""
        return self.heartbeat_feature and bool(self._peer_features & FEATURE_HEARTBEAT)

    @property
    def rest_final(self) -> bool:
        """Whether the rest-final rule is agreed (both hellos announce it, wire.md
        section 6b): no pre-deal is owed while "my rest" decides the hand."""
        return self.rest_final_feature and bool(self._peer_features & FEATURE_REST_FINAL)

    @property
    def early_redeal(self) -> bool:
        """Whether early redeal cards are agreed (both hellos announce them, wire.md
        section 6a): the non-dealer's shares for the dealer's redealt cards follow the
        ``accept-redeal`` at once, in a ``v2redeal``."""
        return (
            self.deck == "v2"
            and self.early_redeal_feature
            and bool(self._peer_features & FEATURE_EARLY_REDEAL)
        )

    @property
    def resign_agreed(self) -> bool:
        """Both hellos announce resignation (wire.md section 8.1): :meth:`resign` may be used."""
        return self.resign_feature and bool(self._peer_features & FEATURE_RESIGN)

    def _on_hello(self, env: Envelope, mine: bool) -> None:
        self._hellos.append(env.raw)
        if not mine:
            p = env.payload
            peer_fingerprint = fingerprint(p["key"])
            if self._expected_peer is not None and peer_fingerprint != self._expected_peer:
                # Checked before anything else is sent: an impostor learns nothing.
                raise PeerKeyMismatchError(
                    f"peer key fingerprint {peer_fingerprint} is not the expected "
                    f"{self._expected_peer}",
                    message_no=env.seq,
                )
            self._peer_key = Ed25519PublicKey.from_public_bytes(p["key"])
            self._peer_features = nonce_features(p["nonce"])
            self.peer_name = p["name"]
            self.peer_fingerprint = peer_fingerprint
            self._peer_coin = p["coin"]
            # Malformed before any comparison, as the verifier judges it (one function).
            terms = hello_terms(p, message_no=env.seq)
            theirs, early = terms.ruleset, terms.early
            theirs_series = self.peer_series = series_of(p["options"])
            if (
                self.me is Player.P1
                and self._accept_series is not None
                and theirs_series is not None
                and theirs_series != self.series
                and self._accept_series(theirs_series, peer_fingerprint)
            ):
                self.series = theirs_series  # answered in our hello (wire.md 4.1)
            if self.me is Player.P1:
                # Early cards are on when both propose them: we answer with the key only
                # if the initiator's hello has it (an old initiator never sees it).
                self.early = self.early and early
                # Answer first so the initiator sees our settings, then complain.
                self._advance()
                self._emit(MessageType.HELLO, self._hello_payload(self._coin))
                agree = hellos_agree(p["options"], self._options(), rulesets=(theirs, self.ruleset))
            elif early and not self.early:
                raise RulesetMismatchError(
                    "the responder turned on early cards, which we did not propose",
                    message_no=env.seq,
                )
            else:
                agree = hellos_agree(self._options(), p["options"], rulesets=(self.ruleset, theirs))
                self.early = early  # negotiated down when the responder lacks it
            if not agree:
                raise RulesetMismatchError(
                    f"peer proposes ruleset {theirs.to_dict()} options {p['options']}, "
                    f"we use {self.ruleset.to_dict()} options {self._options()}",
                    message_no=env.seq,
                )
            if self.me is Player.P1:
                return
        self._advance()
        if len(self._hellos) == 2:
            self.game_id = game_id_of(self._hellos[0], self._hellos[1])
            assert self._peer_key is not None
            self._control.bind(self.game_id, self._peer_key, clock=self.resume_clock_agreed)
            if self.me is Player.P0:
                self._emit(MessageType.COIN, {"coin": self._coin})
