"""The site's icons, drawn at build time: a card on the green cloth with a gold coin
(the suit of oros), as PNG (written with zlib, no imaging library) and as SVG."""

from __future__ import annotations

import struct
import zlib

__all__ = ["THEME", "png_icon", "svg_icon"]

#: The cloth's green: the PWA's theme colour and the icon's background.
THEME = "#1b5e3b"
_CLOTH = (0x1B, 0x5E, 0x3B)
_CARD = (0xFB, 0xF7, 0xEC)
_EDGE = (0x9A, 0x8F, 0x78)
_GOLD = (0xE0, 0xA8, 0x1E)
_RING = (0xA6, 0x6E, 0x0C)

# the drawing in units of the icon's side (0..1): a portrait card with round corners
# inside the maskable safe zone (the central 80%), a coin at its centre
_CARD_BOX = (0.27, 0.17, 0.73, 0.83)
_CORNER = 0.06
_BORDER = 0.012
_COIN = 0.14
_COIN_RING = 0.025


def _colour(x: float, y: float) -> tuple[int, int, int]:
    left, top, right, bottom = _CARD_BOX
    # distance outside the card's rounded rectangle (negative inside)
    cx = min(max(x, left + _CORNER), right - _CORNER)
    cy = min(max(y, top + _CORNER), bottom - _CORNER)
    outside = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 - _CORNER
    if outside > 0:
        return _CLOTH
    if outside > -_BORDER:
        return _EDGE
    coin = ((x - 0.5) ** 2 + (y - 0.5) ** 2) ** 0.5
    if coin <= _COIN - _COIN_RING:
        return _GOLD
    if coin <= _COIN:
        return _RING
    return _CARD


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_icon(size: int) -> bytes:
    """The icon as a ``size`` x ``size`` RGB PNG."""
    rows = bytearray()
    scale = 1.0 / size
    for row in range(size):
        rows.append(0)  # filter: none
        y = (row + 0.5) * scale
        for column in range(size):
            rows.extend(_colour((column + 0.5) * scale, y))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + _chunk(b"IEND", b"")
    )


def svg_icon() -> bytes:
    """The same drawing as a scalable SVG (100 x 100 user units)."""

    def hex_of(rgb: tuple[int, int, int]) -> str:
        return "#{:02x}{:02x}{:02x}".format(*rgb)

    left, top, right, bottom = (v * 100 for v in _CARD_BOX)
    half = _BORDER * 50
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect width="100" height="100" fill="{THEME}"/>'
        f'<rect x="{left + half:g}" y="{top + half:g}" width="{right - left - 2 * half:g}" '
        f'height="{bottom - top - 2 * half:g}" rx="{_CORNER * 100 - half:g}" '
        f'fill="{hex_of(_CARD)}" stroke="{hex_of(_EDGE)}" stroke-width="{2 * half:g}"/>'
        f'<circle cx="50" cy="50" r="{(_COIN - _COIN_RING / 2) * 100:g}" '
        f'fill="{hex_of(_GOLD)}" stroke="{hex_of(_RING)}" stroke-width="{_COIN_RING * 100:g}"/>'
        "</svg>\n"
    ).encode()
