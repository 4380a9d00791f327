"""The repository's scripts outside the installed package (``tools/``, ``benchmarks/``),
imported by path for the tests that check them, without touching ``sys.path``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str) -> ModuleType:
    """The module of the script at ``relative`` (e.g. ``"tools/cfr_train.py"``), loaded
    once per test process under its file's name."""
    path = ROOT / relative
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__ or "") == path:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
