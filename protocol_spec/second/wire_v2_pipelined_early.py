"""vectors/wire_v2_pipelined_early.json."""

from wire_v2_more import pipelined_early as build

FILE = "wire_v2_pipelined_early.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
