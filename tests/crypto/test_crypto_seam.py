"""truc_p2p.crypto, the seam, on its native backend: our key classes give what
``cryptography`` gives (signatures, public keys, PEM files), bad input gets a typed
error, and the point functions keep libsecp256k1's answers (crypto.js is checked
against these in tests/site)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from truc_p2p import crypto
from truc_p2p.identity import IdentityError, load_identity

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def test_signing_keys_match_cryptography_byte_for_byte() -> None:
    for seed in (bytes(32), bytes(range(32)), os.urandom(32)):
        ours, theirs = (
            crypto.SigningKey.from_bytes(seed),
            Ed25519PrivateKey.from_private_bytes(seed),
        )
        public = theirs.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        assert ours.public_key().to_bytes() == public
        assert ours.sign(b"body") == theirs.sign(b"body")
        assert ours.to_bytes() == seed
        pem = theirs.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        assert ours.to_pem() == pem
        assert crypto.SigningKey.from_pem(pem).to_bytes() == seed
        assert seed.hex() not in repr(ours)


def test_verify_takes_good_signatures_and_raises_a_typed_error_on_bad_ones() -> None:
    key = crypto.SigningKey.generate()
    public = crypto.VerifyKey.from_bytes(key.public_key().to_bytes())
    assert public == key.public_key() and hash(public) == hash(key.public_key())
    sig = key.sign(b"message")
    public.verify(sig, b"message")
    with pytest.raises(crypto.BadSignatureError):
        public.verify(sig, b"messagE")
    with pytest.raises(crypto.BadSignatureError):
        public.verify(sig[:-1] + bytes([sig[-1] ^ 1]), b"message")
    with pytest.raises(crypto.BadSignatureError):  # 32 bytes that are no point: taken, never valid
        crypto.VerifyKey.from_bytes(b"\xff" * 32).verify(sig, b"message")


@pytest.mark.parametrize("raw", [b"", bytes(31), bytes(33), "00" * 32, None])
def test_keys_of_the_wrong_size_or_type_are_a_bad_key_error(raw: object) -> None:
    with pytest.raises(crypto.BadKeyError):
        crypto.VerifyKey.from_bytes(raw)
    with pytest.raises(crypto.BadKeyError):
        crypto.SigningKey.from_bytes(raw)
    assert issubclass(crypto.BadKeyError, ValueError)


def test_pem_of_another_algorithm_names_it(tmp_path: Path) -> None:
    keys = {
        "RSAPrivateKey": rsa.generate_private_key(65537, 1024),
        "EllipticCurvePrivateKey": ec.generate_private_key(ec.SECP256R1()),
    }
    for name, key in keys.items():
        for form in (PrivateFormat.PKCS8, PrivateFormat.TraditionalOpenSSL):
            pem = key.private_bytes(Encoding.PEM, form, NoEncryption())
            with pytest.raises(crypto.KeyTypeError) as caught:
                crypto.SigningKey.from_pem(pem)
            assert caught.value.key_type == name
            path = tmp_path / "id.key"
            path.write_bytes(pem)
            with pytest.raises(IdentityError) as refused:
                load_identity(path)
            assert refused.value.kind == "not-ed25519" and refused.value.values["type"] == name


def test_encrypted_or_broken_pem_is_a_bad_key(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    encrypted = key.private_bytes(
        Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"secret")
    )
    good = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    for pem in (encrypted, good[:40], good.replace(b"MC4", b"!C4"), good[:30] + good[-30:]):
        with pytest.raises(crypto.BadKeyError):
            crypto.SigningKey.from_pem(pem)
        path = tmp_path / "id.key"
        path.write_bytes(pem)
        with pytest.raises(IdentityError) as refused:
            load_identity(path)
        assert refused.value.kind == "not-pem"


def test_points_decode_only_canonical_encodings_and_sums_may_vanish() -> None:
    g = crypto.gmul(1)
    raw = crypto.encode(g)
    assert crypto.decode(raw) is not None and crypto.encode(crypto.decode(raw)) == raw
    p = 2**256 - 2**32 - 977
    for bad in (b"\x04" + raw[1:], raw[:-1], b"\x02" + p.to_bytes(32, "big"), bytes(33)):
        with pytest.raises(ValueError):
            crypto.decode(bad)
    assert crypto.add([g, crypto.neg(g)]) is None
    assert crypto.encode(crypto.add([g, g]) or g) == crypto.encode(crypto.gmul(2))
    assert crypto.encode(crypto.mul(g, N - 1)) == crypto.encode(crypto.neg(g))


@pytest.mark.parametrize("forced", ["native", "", "other"])
def test_the_backend_is_native_here_and_can_be_forced(forced: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from truc_p2p import crypto; print(crypto.backend())"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, crypto.BACKEND_ENV: forced},
    )
    assert done.stdout.strip() == "native"


def test_forcing_js_outside_pyodide_fails_at_import() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import truc_p2p.crypto"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, crypto.BACKEND_ENV: "js"},
    )
    assert done.returncode != 0 and "runs only in Pyodide" in done.stderr
