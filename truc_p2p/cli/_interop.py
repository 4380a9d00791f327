"""``truc-p2p interop``: the command lives in :mod:`truc_p2p.interop`."""

from truc_p2p.interop._command import register

__all__ = ["register"]
