"""The installed package never needs numpy (a test-only dependency, issue 31).

Every module of ``truc_p2p`` is imported in a fresh interpreter where
``import numpy`` fails, as on a machine that installed the game alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_PROBE = """
import importlib, pkgutil, sys
sys.modules["numpy"] = None  # any "import numpy" now raises ImportError
package = importlib.import_module(sys.argv[1])
names = [
    m.name
    for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not m.name.endswith(".__main__")  # that one runs the program
    and m.name != "truc_p2p.crypto._js"  # the page's backend: imports only in Pyodide
]
failed = []
for name in names:
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print(len(names))
print("\\n".join(failed))
"""


def _probe(package: str, path: Path | None = None) -> tuple[int, list[str]]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, package],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    count, *failed = done.stdout.splitlines()
    return int(count), [line for line in failed if line]


@pytest.mark.slow
def test_every_module_imports_without_numpy() -> None:
    count, failed = _probe("truc_p2p")
    assert count > 50  # the walk found the package's modules
    assert failed == []


def test_the_probe_reports_a_module_that_needs_numpy(tmp_path: Path) -> None:
    package = tmp_path / "numpy_probe_pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plain.py").write_text("import json\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "trainer.py").write_text("import numpy as np\n")
    count, failed = _probe("numpy_probe_pkg", tmp_path)
    assert count == 3
    assert len(failed) == 1 and failed[0].startswith("numpy_probe_pkg.sub.trainer: ")
