"""The text report of ``truc-p2p bench deck``: :func:`report_lines` renders the
result of :func:`truc_p2p.bench._deck.run` in the language in use."""

from __future__ import annotations

from typing import Any

from truc_p2p.bench._text import pad, widest
from truc_p2p.i18n import N_, _, ngettext

__all__ = ["ROLES", "STEPS", "report_lines"]


#: The names of the roles and steps in the text report (``--json`` keeps the keys).
ROLES = {"dealer": N_("dealer"), "nondealer": N_("non-dealer"), "either": N_("either player")}
STEPS = {"show": N_("show")}


def report_lines(result: dict[str, Any]) -> list[str]:
    """The text report of :func:`run`'s result, in the language in use; the role
    and step names are padded to the widest, so the columns stay aligned."""
    v1, v2 = result["v1"], result["v2"]
    roles = {key: _(text) for key, text in ROLES.items()}
    role_width = widest(roles.values(), 10)
    steps = {key: _(STEPS.get(key, key)) for key in v2["steps"]}
    step_width = widest(steps.values(), 5)

    def role(key: str) -> str:
        return pad(roles[key], role_width)

    lines = [
        ngettext(
            "deck bench: {n} hand, process CPU time, medians",
            "deck bench: {n} hands, process CPU time, medians",
            result["hands"],
        ),
        "",
        f"v1  {v1['group']}",
    ]
    for r in ("dealer", "nondealer"):
        lines.append(
            "  "
            + _(
                "{role} hand {hand} ms  floor {floor} ms  ratio {ratio}  (old floor {old} ms)",
                role=role(r),
                hand=f"{v1['hand_ms'][r]:7.2f}",
                floor=f"{v1['floor_ms'][r]:7.2f}",
                ratio=f"{v1['ratio'][r]:.2f}",
                old=f"{v1['old_floor_ms'][r]:.2f}",
            )
        )
    lines.append(
        "  "
        + ngettext(
            "audit {audit} ms (floor {floor}); {bytes} bytes per hand; soundness none "
            "(audit); {n} hidden card revealed",
            "audit {audit} ms (floor {floor}); {bytes} bytes per hand; soundness none "
            "(audit); {n} hidden cards revealed",
            v1["hidden_cards_revealed"],
            audit=f"{v1['verifier_ms']:.2f}",
            floor=f"{v1['verifier_floor_ms']:.2f}",
            bytes=v1["bytes_per_hand"],
        )
    )
    lines += ["", f"v2  {v2['group']}"]
    for s, d in v2["steps"].items():
        lines.append(
            "  "
            + _(
                "{step} {sender} prove {prove} ms (floor {prove_floor})  verify {verify} ms "
                "(floor {verify_floor})  {bytes} bytes  {bits} bits",
                step=pad(steps[s], step_width),
                sender=role(d["sender"]),
                prove=f"{d['prove_ms']:7.2f}",
                prove_floor=f"{d['prove_floor_ms']:6.2f}",
                verify=f"{d['verify_ms']:7.2f}",
                verify_floor=f"{d['verify_floor_ms']:6.2f}",
                bytes=f"{d['bytes']:6}",
                bits=d["soundness_bits"],
            )
        )
    for r in ("dealer", "nondealer"):
        lines.append(
            "  "
            + _(
                "{role} hand {hand} ms  floor {floor} ms  ratio {ratio}  (curve operations "
                "alone {curve} ms)",
                role=role(r),
                hand=f"{v2['hand_ms'][r]:7.2f}",
                floor=f"{v2['hand_floor_ms'][r]:7.2f}",
                ratio=f"{v2['ratio'][r]:.2f}",
                curve=f"{v2['hand_curve_floor_ms'][r]:.2f}",
            )
        )
    lines.append(
        "  "
        + _(
            "verifier {verifier} ms (floor {floor}); {bytes} bytes per hand; 0 hidden cards "
            "revealed",
            verifier=f"{v2['verifier_ms']:.2f}",
            floor=f"{v2['verifier_floor_ms']:.2f}",
            bytes=v2["bytes_per_hand"],
        )
    )
    b = result["budget_ms"]
    lines.append(
        "  "
        + _(
            "budget: peer <= {peer} ms ({peer_verdict}), stretch <= {stretch} ms "
            "({stretch_verdict})",
            peer=f"{b['peer']:.0f}",
            peer_verdict=_("ok") if result["ok"] else _("OVER"),
            stretch=f"{b['peer_stretch']:.0f}",
            stretch_verdict=_("ok") if result["stretch_ok"] else _("over"),
        )
    )
    return lines
