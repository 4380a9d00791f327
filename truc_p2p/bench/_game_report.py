"""The text report of ``truc-p2p bench game``: :func:`report_lines` renders the
result of :func:`truc_p2p.bench._game.run` in the language in use, one part
per function (the headline, each deal's figures, the concurrency rows).
"""

from __future__ import annotations

from typing import Any

from truc_p2p.i18n import N_, _, ngettext

__all__ = ["DEALS", "report_lines"]

#: The names of the two deals in the text report (``--json`` keeps the keys).
DEALS = {"pipelined": N_("pipelined deal"), "classic": N_("classic deal")}


def report_lines(r: dict[str, Any]) -> list[str]:
    """The text report of :func:`~truc_p2p.bench._game.run`'s result, in the language
    in use: the headline, each deal's figures, one line per concurrency row."""
    lines = [_headline(r)]
    for name in ("pipelined", "classic"):
        lines.extend(_deal_lines(r, name))
    lines.extend(_concurrency_lines(r))
    return lines


def _headline(r: dict[str, Any]) -> str:
    return ngettext(
        "bench game: {n} heuristic-bot game to {target}, deck {deck}; CPU floor per hand "
        "per peer = deck {deck_ms} ms + signatures at {sign} / {verify} us",
        "bench game: {n} heuristic-bot games to {target}, deck {deck}; CPU floor per hand "
        "per peer = deck {deck_ms} ms + signatures at {sign} / {verify} us",
        r["games"],
        target=r["target"],
        deck=r["deck"],
        deck_ms=r["deck_floor_ms_per_hand"],
        sign=r["primitives_us"]["sign"],
        verify=r["primitives_us"]["verify"],
    )


def _deal_lines(r: dict[str, Any], name: str) -> list[str]:
    """The figures of one deal (``pipelined`` or ``classic``)."""
    lines: list[str] = []
    out = lines.append
    v = r[name]
    cpu, ratio = v["cpu_ms_per_hand"], v["cpu_ratio_to_floor"]
    out(
        "  "
        + ngettext(
            "{deal} ({n} hand played), per hand played: {messages} messages, {flights} "
            "flights, {deal_flights} deal flights ({critical} on the critical path, of "
            "which {forced} forced by fairness), {bytes} bytes",
            "{deal} ({n} hands played), per hand played: {messages} messages, {flights} "
            "flights, {deal_flights} deal flights ({critical} on the critical path, of "
            "which {forced} forced by fairness), {bytes} bytes",
            v["hands"],
            deal=_(DEALS[name]),
            messages=v["messages_per_hand"],
            flights=v["flights_per_hand"],
            deal_flights=v["deal_flights_per_hand"],
            critical=v["critical_deal_flights_per_hand"],
            forced=v["forced_deal_flights_per_hand"],
            bytes=f"{v['bytes_per_hand']:.0f}",
        )
    )
    if "unplayed_predeal" in v:
        lines.extend(_predeal_lines(r, v))
    out(
        "    "
        + _(
            "whole-game CPU per hand played: P0 {p0} ms, P1 {p1} ms, beside the deck alone "
            "{deck} ms (floor {floor} ms; ratio {ratio0} / {ratio1}); at {rtt} ms round "
            "trip: {wall_hand} ms per hand (model {model_hand} ms), {wall_game} s per game "
            "vs model {model_game} s ({times}x)",
            p0=cpu["P0"],
            p1=cpu["P1"],
            deck=r["deck_floor_ms_per_hand"],
            floor=v["cpu_floor_ms_per_hand_per_peer"],
            ratio0=ratio["P0"],
            ratio1=ratio["P1"],
            rtt=f"{r['rtt_ms']:g}",
            wall_hand=v["wall_ms_per_hand"],
            model_hand=v["model_ms_per_hand"],
            wall_game=v["wall_s_per_game"],
            model_game=v["model_s_per_game"],
            times=v["wall_to_model"],
        )
    )
    fc, old = v["flights_until_cards"], v["flights_until_cards_without_early"]
    out(
        "    "
        + ngettext(
            "flights until cards (median per hand, the non-dealer thinks {n} flight): "
            "dealer {dealer}, non-dealer {nondealer} (without early cards: dealer "
            "{old_dealer}, non-dealer {old_nondealer})",
            "flights until cards (median per hand, the non-dealer thinks {n} flights): "
            "dealer {dealer}, non-dealer {nondealer} (without early cards: dealer "
            "{old_dealer}, non-dealer {old_nondealer})",
            r["think_flights"],
            dealer=f"{fc['dealer']:g}",
            nondealer=f"{fc['nondealer']:g}",
            old_dealer=f"{old['dealer']:g}",
            old_nondealer=f"{old['nondealer']:g}",
        )
    )
    out(
        "    "
        + _(
            "over loopback TCP (no delay): {wall} ms per hand, {times}x the CPU floor of "
            "both peers ({floor} ms)",
            wall=v["loopback_ms_per_hand"],
            times=v["loopback_to_floor"],
            floor=f"{2 * v['cpu_floor_ms_per_hand_per_peer']:.1f}",
        )
    )
    return lines


def _predeal_lines(r: dict[str, Any], v: dict[str, Any]) -> list[str]:
    """The pipelined deal's pre-deal figures: a pre-deal message's cost, the unplayed
    pre-deal, what the rest-final rule saves."""
    lines: list[str] = []
    out = lines.append
    u, sv = v["unplayed_predeal"], v["rest_final_saves"]
    wa = sv["where_applied"]
    out(
        "    "
        + _(
            "a pre-deal message's deck work (both peers, timed here): v2deck1 "
            "{d1} ms, pre-dealt v2deck2 {d2} ms",
            d1=v["predeal_ms"]["v2deck1"],
            d2=v["predeal_ms"]["v2deck2"],
        )
    )
    out(
        "    "
        + _(
            "unplayed pre-deal (a hand dealt ahead that never opens), per game: "
            "{messages} messages, {bytes} bytes, {cpu} ms CPU (both peers)",
            messages=u["messages_per_game"],
            bytes=u["bytes_per_game"],
            cpu=u["cpu_ms_per_game_both_peers"],
        )
    )
    out(
        "    "
        + ngettext(
            'rest-final rule (no pre-deal once "my rest" decides the hand) saves per '
            "game: {messages} messages, {bytes} bytes, {cpu} ms CPU (both peers); it "
            "applied in {applied} of {n} game, saving there {where_messages} messages, "
            "{where_bytes} bytes, {where_cpu} ms CPU per game",
            'rest-final rule (no pre-deal once "my rest" decides the hand) saves per '
            "game: {messages} messages, {bytes} bytes, {cpu} ms CPU (both peers); it "
            "applied in {applied} of {n} games, saving there {where_messages} "
            "messages, {where_bytes} bytes, {where_cpu} ms CPU per game",
            r["games"],
            messages=sv["messages_per_game"],
            bytes=sv["bytes_per_game"],
            cpu=sv["cpu_ms_per_game_both_peers"],
            applied=sv["games_where_it_applied"],
            where_messages=wa["messages_per_game"],
            where_bytes=wa["bytes_per_game"],
            where_cpu=wa["cpu_ms_per_game_both_peers"],
        )
    )
    return lines


def _concurrency_lines(r: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    out = lines.append
    for row in r["concurrency"]:
        out(
            "  "
            + ngettext(
                "{games} game at once: {rate} games/s, {cpu} ms CPU per game ({per_hand} ms "
                "per hand, both peers); CPU busy {busy} of the wall time",
                "{games} games at once: {rate} games/s, {cpu} ms CPU per game ({per_hand} ms "
                "per hand, both peers); CPU busy {busy} of the wall time",
                row["games"],
                games=f"{row['games']:>4}",
                rate=row["games_per_s"],
                cpu=row["cpu_ms_per_game"],
                per_hand=row["cpu_ms_per_hand"],
                busy=f"{row['cpu_share']:.0%}",
            )
        )
    return lines
