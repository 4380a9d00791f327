"""vectors/wire_v2_pipelined.json."""

from wire_v2_more import pipelined as build

FILE = "wire_v2_pipelined.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
