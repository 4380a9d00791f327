"""vectors/wire_v2_early.json."""

from wire_v2_more import early as build

FILE = "wire_v2_early.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
