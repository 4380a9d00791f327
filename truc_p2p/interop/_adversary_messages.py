"""The adversarial cases of the messages (wire.md §4, §6, §7, §8, §11.1, §13.1):
hello and coin, the deck and action payloads, aborts, the co-signed result, resumes
and the early-cards fallback.  Data tables, and one small builder per section;
:mod:`._adversary` lists them in the spec's order.
"""

from __future__ import annotations

from truc_p2p.interop._misbehave import (
    ACT,
    COIN,
    DECK,
    FALLBACK,
    HELLO,
    REFUSE,
    RESULT,
    RESUME,
    Expect,
    Misbehave,
    Mutator,
    abort_with,
    lie,
)
from truc_p2p.interop._mutators import (
    ChangeFields,
    ChangePayload,
    abort_behind_own,
    abort_instead,
    abort_other_chain,
    chain_hash,
    close,
    flip_mid,
    illegal_act,
    in_payload,
    resign,
    resume_foreign_key,
    resume_lacks_own,
    resume_other_chain,
    resume_other_game,
    toggle,
)

__all__ = ["message_cases"]

#: W §4: (name, change, code, what) of the runner's hello in answer to the peer's.
_HELLO: tuple[tuple[str, ChangePayload, str, str], ...] = (
    (
        "ruleset-target",
        lambda p: p["ruleset"].__setitem__("target", 24),
        "ruleset-mismatch",
        "another target",
    ),
    (
        "ruleset-ladder",
        lambda p: p["ruleset"].__setitem__("ladder", "zz"),
        "malformed",
        "an unknown ladder",
    ),
    (
        "options-classic",
        lambda p: p["options"].pop("pipeline", None),
        "ruleset-mismatch",
        "no pipelined deal",
    ),
    (
        "options-early-false",
        lambda p: p["options"].__setitem__("early", False),
        "malformed",
        "early false spelled out",
    ),
    (
        "options-unknown",
        lambda p: p["options"].__setitem__("zz", True),
        "malformed",
        "an unknown option",
    ),
)

#: deck_v2.md §7: (name, change, what) of the runner's first deck message.
_DECK: tuple[tuple[str, ChangePayload, str], ...] = (
    (
        "deck-proof-bit",
        lambda p: p.__setitem__("proof", flip_mid(p["proof"])),
        "a bit of its proof flipped",
    ),
    (
        "deck-pok-bit",
        lambda p: p.__setitem__("pok", flip_mid(p["pok"])),
        "a bit of its key proof flipped",
    ),
    (
        "deck-key-bit",
        lambda p: p.__setitem__("key", flip_mid(p["key"])),
        "a bit of its key flipped",
    ),
    (
        "deck-duplicate-entry",
        lambda p: p.__setitem__("deck", [p["deck"][1], *p["deck"][1:]]),
        "its first deck entry a copy of the second",
    ),
    (
        "deck-swapped-entries",
        lambda p: p.__setitem__("deck", [p["deck"][1], p["deck"][0], *p["deck"][2:]]),
        "two deck entries swapped",
    ),
    (
        "deck-bad-point",
        lambda p: p.__setitem__("deck", [b"\x05" + p["deck"][0][1:], *p["deck"][1:]]),
        "a deck entry that is no point",
    ),
    (
        "deck-proof-short",
        lambda p: p.__setitem__("proof", p["proof"][:-1]),
        "a proof one byte short",
    ),
)

#: W §8: (name, reason, detail, code) of an abort in place of the runner's coin.
_ABORTS = (
    ("abort-unknown-reason", "bored", "x", "malformed"),
    ("abort-detail-too-long", "error", "x" * 201, "malformed"),
    ("abort-detail-control", "error", "bad\x07bell", "malformed"),
    ("abort-resign-before-coin", "resign", "", "unexpected-message"),
)

#: W §7: (name, change, what) of the runner's co-signed result.
_RESULTS: tuple[tuple[str, ChangePayload, str], ...] = (
    ("hands", lambda p: p.__setitem__("hands", p["hands"] + 1), "one hand more"),
    ("winner", lambda p: p.__setitem__("winner", 1 - p["winner"]), "the other winner"),
)

#: W §13.1: (name, change, what) of the runner's resume when it dials: refused.
_RESUMES: tuple[tuple[str, ChangeFields, str], ...] = (
    (
        "resume-bad-clock-left",
        in_payload(lambda p: p.__setitem__("left", 86_400_001)),
        "left beyond 86 400 000",
    ),
    ("resume-bad-clock-away", in_payload(lambda p: p.__setitem__("away", -1)), "a negative away"),
    ("resume-clock-float", in_payload(lambda p: p.__setitem__("away", 1.5)), "a float away"),
    ("resume-clock-nil-away", in_payload(lambda p: p.__setitem__("away", None)), "a nil away"),
    ("resume-clock-missing", in_payload(lambda p: p.pop("away", None)), "no away"),
    ("resume-clock-str", in_payload(lambda p: p.__setitem__("left", "5")), "left as a string"),
    (
        "resume-echo-not-empty",
        in_payload(lambda p: p.__setitem__("echo", bytes(16))),
        "a non-empty echo",
    ),
    (
        "resume-short-nonce",
        in_payload(lambda p: p.__setitem__("nonce", bytes(15))),
        "a 15-byte nonce",
    ),
    ("resume-unknown-key", in_payload(lambda p: p.__setitem__("zz", 1)), "an unknown key"),
    ("resume-other-game", resume_other_game, "another game's id"),
    ("resume-wrong-seat", lambda f: f.__setitem__(4, 1 - f[4]), "the peer's seat as sender"),
    ("resume-lacks-own", resume_lacks_own, "have 0 (only a dialer judges bad-sequence)"),
)

#: W §13.1: (name, change, expect, what) of the runner's answer when it listens.
_ANSWERS: tuple[tuple[str, ChangeFields, Expect, str], ...] = (
    (
        "answer-wrong-echo",
        in_payload(lambda p: p.__setitem__("echo", bytes(16))),
        REFUSE,
        "an echo that is not the dialer's nonce",
    ),
    (
        "answer-bad-clock-left",
        in_payload(lambda p: p.__setitem__("left", 86_400_001)),
        REFUSE,
        "left beyond 86 400 000",
    ),
    ("answer-other-game", resume_other_game, REFUSE, "another game's id"),
    (
        "answer-broken-chain",
        resume_other_chain,
        lie("broken-chain"),
        "a prev of another chain",
    ),
    (
        "answer-lacks-own",
        resume_lacks_own,
        lie("bad-sequence"),
        "have 0: it claims to lack its own envelopes",
    ),
)

#: W §11.1: (name, mutator, what) of a host that predates early cards.
_FALLBACKS: tuple[tuple[str, Mutator, str], ...] = (
    ("close", close, "closes the connection instead of its hello"),
    (
        "malformed",
        abort_instead("error", "malformed at message 0: early"),
        "a malformed abort",
    ),
    (
        "incompatible",
        abort_instead("incompatible", "ruleset-mismatch at message 0: early"),
        "an incompatible abort",
    ),
)


def _hello_and_coin() -> list[Misbehave]:
    """W §4: hello and coin."""
    return [
        Misbehave(
            "wire-4.4-coin-does-not-open",
            "H5",
            "the runner's coin is not the one its hello committed to",
            COIN,
            resign(in_payload(lambda p: p.__setitem__("coin", chain_hash(p["coin"])))),
            abort_with("cheat"),
        ),
        Misbehave(
            "wire-4.4-coin-short",
            "H5",
            "the runner's coin has 31 bytes",
            COIN,
            resign(in_payload(lambda p: p.__setitem__("coin", p["coin"][:31]))),
            abort_with("malformed"),
        ),
    ] + [
        Misbehave(
            f"wire-4-hello-{name}",
            "H2" if code == "ruleset-mismatch" else "H3",
            f"the runner answers the peer's hello with {what}",
            HELLO,
            resign(in_payload(change)),
            abort_with(code),
            roles=("join",),
        )
        for name, change, code, what in _HELLO
    ]


def _deck_and_action() -> list[Misbehave]:
    """W §3, §6a and deck_v2.md §7: deck and action payloads."""
    deck = [
        Misbehave(
            "wire-6a-deck-wrong-hand",
            "M4",
            "the runner's first deck message names hand 1",
            DECK,
            resign(in_payload(lambda p: p.__setitem__("hand", 1))),
            abort_with("malformed"),
        ),
        Misbehave(
            "wire-6a-deck-extra-shares",
            "S8",
            "the runner's first deck message carries shares",
            DECK,
            resign(in_payload(lambda p: p.__setitem__("shares", [bytes(33)]))),
            abort_with("malformed"),
        ),
    ]
    deck += [
        Misbehave(
            f"deck-7-{name}",
            "S6",
            f"the runner's first deck message with {what}, signed",
            DECK,
            resign(in_payload(change)),
            abort_with("malformed" if name == "deck-proof-short" else "cheat"),
        )
        for name, change, what in _DECK
    ]
    deck += [
        Misbehave(
            "wire-6a-action-unknown-act",
            "M1",
            "the runner's first action names an unknown act",
            ACT,
            resign(in_payload(lambda p: p.__setitem__("act", "dance"))),
            abort_with("malformed"),
        ),
        Misbehave(
            "wire-6a-action-pos-out-of-range",
            "M3",
            "the runner's first action carries pos 99",
            ACT,
            resign(in_payload(lambda p: p.__setitem__("pos", 99))),
            abort_with("malformed"),
        ),
    ]
    return deck


def _aborts() -> list[Misbehave]:
    """W §8: aborts, and where one may chain (R3: back to k only over the receiver's
    messages)."""
    return [
        Misbehave(
            f"wire-8-{name}",
            "R4" if code == "malformed" else "R7",
            f"an abort {reason!r} in place of the runner's coin",
            COIN,
            abort_instead(reason, detail),
            abort_with(code),
        )
        for name, reason, detail, code in _ABORTS
    ] + [
        Misbehave(
            "wire-8-abort-behind-its-own",
            "R3",
            "an abort in place of the runner's first action, at the place of the runner's "
            "previous envelope (over a message of its own)",
            ACT,
            abort_behind_own,
            abort_with("bad-sequence"),
        ),
        Misbehave(
            "wire-8-abort-broken-chain",
            "R3",
            "an abort in place of the runner's first action, its prev of another chain",
            ACT,
            resign(abort_other_chain),
            abort_with("broken-chain"),
        ),
    ]


def _legality() -> list[Misbehave]:
    """W §6, §6a, §6b: the action's legality, redeal shares and open."""
    return [
        Misbehave(
            "wire-6a-action-illegal",
            "S2",
            "the runner's first action is one its rules engine cannot allow then",
            ACT,
            resign(in_payload(illegal_act)),
            abort_with("illegal-move"),
        ),
        Misbehave(
            "wire-6a-action-redeal-shares-out-of-place",
            "S5",
            "the runner's first action with redeal shares where none are due (or without "
            "them where they are)",
            ACT,
            resign(in_payload(toggle("shares"))),
            abort_with("malformed"),
        ),
        Misbehave(
            "wire-6b-action-open-out-of-place",
            "S9",
            "the runner's first action with open where it is not due (or without it where it is)",
            ACT,
            resign(in_payload(toggle("open"))),
            abort_with("malformed"),
        ),
    ]


def _results() -> list[Misbehave]:
    """W §7: the co-signed result."""
    return [
        Misbehave(
            f"wire-7-result-mismatch-{name}",
            "R1",
            f"the runner's result names {what} than the game",
            RESULT,
            resign(in_payload(change)),
            abort_with("result-mismatch"),
        )
        for name, change, what in _RESULTS
    ]


def _resumes() -> list[Misbehave]:
    """W §13.1: resumes.  From the dialer (the runner joins, the peer listens):
    refused; from the listener (the peer dials): the answer."""
    dialer = [
        Misbehave(
            f"wire-13.1-{name}",
            "N20" if "clock" in name else "N3",
            f"the runner's resume (it dials) with {what}: the connection only is refused",
            RESUME,
            resign(change),
            REFUSE,
        )
        for name, change, what in _RESUMES
    ]
    dialer += [
        Misbehave(
            "wire-13.1-resume-broken-chain",
            "N5",
            "the runner's resume (it dials) says have 1 with a prev of another chain",
            RESUME,
            resign(resume_other_chain),
            lie("broken-chain"),
        ),
        Misbehave(
            "wire-13.1-resume-foreign-key",
            "N3",
            "the runner's resume signed by a stranger: refused",
            RESUME,
            resume_foreign_key,
            REFUSE,
        ),
        Misbehave(
            "wire-13.1-resume-garbage",
            "N4",
            "a frame of garbage in place of the runner's resume: refused",
            RESUME,
            lambda raw, ctx: [bytes(100)],
            REFUSE,
        ),
    ]
    return dialer + [
        Misbehave(
            f"wire-13.1-{name}",
            "N5" if expect.kind == "abort" else "N3",
            f"the runner's resume answer (it listens) with {what}",
            RESUME,
            resign(change),
            expect,
            roles=("join",),
        )
        for name, change, expect, what in _ANSWERS
    ]


def _fallbacks() -> list[Misbehave]:
    """W §11.1, C §1.1: the early-cards fallback, a SHOULD (wire.md §11.1's table)."""
    return [
        Misbehave(
            f"wire-11.1-early-fallback-{name}",
            "N17",
            f"the runner (a host that predates early cards) {what}: the peer dials again "
            "without proposing them",
            HELLO,
            mut,
            FALLBACK,
            roles=("join",),
            level="should",
        )
        for name, mut, what in _FALLBACKS
    ]


def message_cases() -> list[Misbehave]:
    """The cases of wire.md §4 to §13.1 past the envelope, in the spec's order."""
    return (
        _hello_and_coin()
        + _deck_and_action()
        + _aborts()
        + _legality()
        + _results()
        + _resumes()
        + _fallbacks()
    )
