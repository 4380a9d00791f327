"""``protocol_spec/interop.md`` names the cases, variables and clocks the runner uses."""

from __future__ import annotations

from pathlib import Path

from truc_p2p.interop import CASE_NAMES, DEFAULT_CASE_TIMEOUT, SLOW_THINK
from truc_p2p.interop._judge_case import LAST_WORDS
from truc_p2p.interop._runner import LINGER, LINK_FRAME
from truc_p2p.interop.peer import UNSUPPORTED

SPEC = (Path(__file__).resolve().parents[2] / "protocol_spec" / "interop.md").read_text()
TEXT = " ".join(SPEC.split())


def test_the_spec_has_a_row_per_case_in_the_runners_order() -> None:
    section = SPEC.split("## 4. The cases")[1].split("## 5.")[0]
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| `")]
    assert [r.strip("`") for r in rows] == list(CASE_NAMES)
    assert len(CASE_NAMES) == 13


def test_the_spec_gives_the_clocks_and_the_exit_status() -> None:
    assert f"**{DEFAULT_CASE_TIMEOUT:g} s**" in TEXT
    assert f"**{LINGER:g} s** to finish" in TEXT
    assert f"thinks **{SLOW_THINK:g} s** once" in TEXT
    assert f"runner's {LINK_FRAME}th envelope" in TEXT
    assert f"exited **{UNSUPPORTED}**" in TEXT
    assert f"at most **{LAST_WORDS}** characters" in TEXT


def test_the_spec_names_every_variable_the_reference_peer_reads() -> None:
    source = (Path(__file__).resolve().parents[2] / "truc_p2p" / "interop" / "peer.py").read_text()
    for name in ("TRUC_CASE", "TRUC_ROLE", "TRUC_PORT", "TRUC_INVITE", "TRUC_OUT", "TRUC_NAME",
                 "TRUC_HEARTBEAT"):  # fmt: skip
        assert f'"{name}"' in source
        assert f"`{name}`" in SPEC
