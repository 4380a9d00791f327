"""The backend chosen at import (see the package's docstring)."""

from __future__ import annotations

import os
import sys

from truc_p2p.crypto._errors import BACKEND_ENV

__all__ = ["NAME", "impl"]


def _choose() -> str:
    forced = os.environ.get(BACKEND_ENV, "")
    if forced in ("native", "js"):
        return forced
    return "js" if sys.platform == "emscripten" else "native"


NAME = _choose()
if NAME == "js":
    from truc_p2p.crypto import _js as impl
else:
    from truc_p2p.crypto import _native as impl  # type: ignore[no-redef]
