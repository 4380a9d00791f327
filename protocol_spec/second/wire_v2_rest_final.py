"""vectors/wire_v2_rest_final.json."""

from wire_v2_more import rest_final as build

FILE = "wire_v2_rest_final.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
