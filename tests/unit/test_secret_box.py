"""The at-rest encryption of secrets: the current format, values written by earlier versions, refusals."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

import pytest
from cryptography.fernet import Fernet

from controlplane.crypto import AEAD_PREFIX, KeyFileError, SecretBox

MASTER = bytes(range(32))
PSK = base64.b64encode(os.urandom(32)).decode()


def test_a_secret_comes_back_and_is_not_stored_in_plain_text() -> None:
    box = SecretBox(MASTER)
    sealed = box.encrypt(PSK)
    assert sealed.startswith(AEAD_PREFIX)
    assert PSK not in sealed and PSK.encode().hex() not in sealed
    assert box.decrypt(sealed) == PSK


def test_the_same_secret_seals_differently_each_time() -> None:
    box = SecretBox(MASTER)
    assert box.encrypt(PSK) != box.encrypt(PSK)


def test_values_written_by_earlier_versions_still_decrypt() -> None:
    # Earlier versions stored Fernet tokens under a key derived from the same key file.
    derived = hmac.new(MASTER, b"encrypt-at-rest", hashlib.sha256).digest()
    old = Fernet(base64.urlsafe_b64encode(derived)).encrypt(PSK.encode()).decode()
    assert SecretBox(MASTER).decrypt(old) == PSK


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_value_is_refused(damage: str) -> None:
    box = SecretBox(MASTER)
    sealed = box.encrypt(PSK)
    raw = bytearray(base64.b64decode(sealed[len(AEAD_PREFIX) :]))
    if damage == "flip":
        raw[-1] ^= 1
        bad = AEAD_PREFIX + base64.b64encode(bytes(raw)).decode()
    elif damage == "truncate":
        bad = AEAD_PREFIX + base64.b64encode(bytes(raw[:10])).decode()
    else:
        bad = AEAD_PREFIX + "not base64 at all!"
    with pytest.raises(KeyFileError):
        box.decrypt(bad)


def test_another_key_file_cannot_read_the_secrets() -> None:
    sealed = SecretBox(MASTER).encrypt(PSK)
    with pytest.raises(KeyFileError):
        SecretBox(bytes(32)).decrypt(sealed)
