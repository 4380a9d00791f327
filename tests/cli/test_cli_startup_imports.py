"""``verify`` starts light: no presentation layer, only the verdict's words and i18n."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from truc_p2p.cli import main
main(sys.argv[1:])
print("LOADED", ",".join(sorted(m for m in sys.modules if m.startswith("truc_p2p."))))
"""
#: Packages and modules ``verify`` has no use for.
UNUSED = ("truc_p2p.ui", "truc_p2p.history", "truc_p2p.bench", "truc_p2p.bots", "truc_p2p.net")


def test_verify_loads_no_ui_history_bench_bot_or_net(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "verify", str(tmp_path / "missing.truc")],
        capture_output=True,
        text=True,
    )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("LOADED ")]
    loaded = line.removeprefix("LOADED ").split(",")
    assert "truc_p2p.verdict._words" in loaded  # the probe sees what verify loads
    assert [m for m in loaded if m.startswith(UNUSED)] == []
