"""vectors/wire_v2_early_redeal.json."""

from wire_v2_more import early_redeal as build

FILE = "wire_v2_early_redeal.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
