"""Every npm package the page takes, pinned: name, version, tarball URL and npm's
``dist.integrity`` (sha512, base64).  One table, so it merges into the site build's own.

``vendor`` is the folder under the site's ``vendor/`` that receives the tarball's
``package/`` folder as-is (crypto.js imports ``./vendor/<vendor>/...``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CRYPTO_JS_PINS",
    "NOBLE_ED25519",
    "NOBLE_HASHES",
    "NOBLE_SECP256K1",
    "PYODIDE",
    "TINY_SECP256K1",
    "Pin",
]


@dataclass(frozen=True)
class Pin:
    """One npm tarball."""

    name: str
    version: str
    integrity: str
    vendor: str

    @property
    def url(self) -> str:
        """The registry's tarball URL (``@scope/pkg`` -> ``.../@scope/pkg/-/pkg-1.0.0.tgz``)."""
        base = self.name.rsplit("/", 1)[-1]
        return f"https://registry.npmjs.org/{self.name}/-/{base}-{self.version}.tgz"

    @property
    def filename(self) -> str:
        """The tarball's name in a download cache."""
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


NOBLE_SECP256K1 = Pin(
    "@noble/secp256k1",
    "3.2.0",
    "sha512-Z3ZAWOTxJ0EuTuZTi7Y69iK7GgrLHh8sgm45lVDhg/b3Nk1TpAiKhick2KkZisHuupeepSkyIydN/J459SdX1w==",
    "noble-secp256k1",
)
NOBLE_ED25519 = Pin(
    "@noble/ed25519",
    "3.2.0",
    "sha512-criDgRlnUA09hchYrTy/JUWPIEap5rZxQe6wDWzRx51oWWpDRcUpuNzlgPxDJaOK6AsW9c0wKcj3rKRv6t+bPQ==",
    "noble-ed25519",
)
NOBLE_HASHES = Pin(
    "@noble/hashes",
    "2.4.0",
    "sha512-X5XaVWZIBCT7HHZGm5I7ZQXDwLG+bGXuSrMQAW+7Zvl87h1kmc1ZB1VSRJcpUfoUrGQp4Fkoxm5kZ+Ms+aW+eA==",
    "noble-hashes",
)
PYODIDE = Pin(
    "pyodide",
    "314.0.8",
    "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ==",
    "pyodide",
)


#: libsecp256k1 compiled to WebAssembly: crypto.js loads its ``lib/secp256k1.wasm``
#: (and none of its JavaScript, which needs a bundler).
TINY_SECP256K1 = Pin(
    "tiny-secp256k1",
    "2.2.4",
    "sha512-FoDTcToPqZE454Q04hH9o2EhxWsm7pOSpicyHkgTwKhdKWdsTUuqfP5MLq3g+VjAtl2vSx6JpXGdwA2qpYkI0Q==",
    "tiny-secp256k1",
)

#: What ``static/crypto.js`` loads: secp256k1 from tiny-secp256k1's WASM, Ed25519 from noble.
#: (``NOBLE_SECP256K1`` is only measured against it, by ``benchmarks/crypto_backends.py``.)
CRYPTO_JS_PINS: tuple[Pin, ...] = (TINY_SECP256K1, NOBLE_ED25519, NOBLE_HASHES)
