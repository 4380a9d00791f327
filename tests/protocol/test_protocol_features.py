"""The hello features come from one table (:data:`truc_p2p.protocol._hello.FEATURES`).

Each row is on the session by name (whether our hello announces it, whether it is
agreed), our nonce announces exactly the rows turned on, and a feature is agreed
when both hellos announce it (early redeal cards also need deck v2).
"""

from __future__ import annotations

import itertools

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import NEED_DATA, Session, SessionOptions, decode_envelope
from truc_p2p.protocol._hello import FEATURES, Agreed, Announced, Feature
from truc_p2p.protocol._values import nonce_features
from truc_p2p.rules import Player

KEYS = (
    SigningKey.from_bytes(bytes(range(32))),
    SigningKey.from_bytes(bytes(range(1, 33))),
)


def test_every_feature_is_on_the_session_by_name() -> None:
    names = {name for name, value in vars(Session).items() if isinstance(value, Announced)}
    assert names == {f.announced for f in FEATURES}
    names = {name for name, value in vars(Session).items() if isinstance(value, Agreed)}
    assert names == {f.agreed for f in FEATURES}
    assert len({f.bit for f in FEATURES}) == len(FEATURES)
    for feature in FEATURES:
        assert getattr(Session, feature.agreed).__doc__ == feature.doc


def _pair(ours: dict[str, bool], theirs: dict[str, bool], deck: str) -> tuple[Session, Session]:
    """Two sessions after the hellos (the initiator has read the responder's)."""
    sides = tuple(
        Session(
            identity=KEYS[p],
            role=Player(p),
            secret=bytes([p + 1]) * 32,
            options=SessionOptions(deck=deck, **(ours if p == 0 else theirs)),
        )
        for p in (0, 1)
    )
    sides[1].receive_data(sides[0].data_to_send())
    assert sides[1].next_event() is NEED_DATA
    sides[0].receive_data(sides[1].data_to_send())
    sides[0].next_event()
    assert sides[0].game_id == sides[1].game_id != b""
    return sides[0], sides[1]


@pytest.mark.parametrize("deck", ["v1", "v2"])
@pytest.mark.parametrize("row", FEATURES, ids=lambda f: f.option)
def test_a_feature_is_agreed_when_both_hellos_announce_it(row: Feature, deck: str) -> None:
    for mine, peers in itertools.product((False, True), repeat=2):
        sides = _pair({row.option: mine}, {row.option: peers}, deck)
        agreed = mine and peers and (row.deck is None or row.deck == deck)
        for side, announced in zip(sides, (mine, peers), strict=True):
            assert getattr(side, row.announced) is announced
            assert getattr(side, row.agreed) is agreed
            assert bool(side._hello.features & row.bit) is announced
        hellos = [decode_envelope(raw) for raw in sides[0]._hello.hellos]
        masks = [nonce_features(env.payload["nonce"]) for env in hellos]
        assert masks == [sides[0]._hello.features, sides[1]._hello.features]


def test_turning_a_feature_off_after_the_hellos_ends_its_agreement() -> None:
    ours, theirs = _pair({}, {}, "v2")
    assert ours.rest_final and theirs.rest_final
    ours.rest_final_feature = False
    assert not ours.rest_final_feature and not ours.rest_final and theirs.rest_final
