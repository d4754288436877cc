"""The secret key kept outside the database: encrypts secrets at rest and signs access tokens."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

log = logging.getLogger(__name__)


class KeyFileError(RuntimeError):
    pass


# Prefix of the current at-rest format: AES-256-GCM, "v2:" + base64(96-bit random nonce | ciphertext | tag).
# Older values are Fernet tokens (they start with "gAAAAA") and are still read. AES-GCM because a control plane
# restart decrypts every active peer's preshared key to build the nodes' full states: Fernet (AES-CBC + HMAC,
# several Python layers per call) cost ~15 us a value, 1.5 s of CPU for 100 000 peers; one AEAD call ~2 us.
AEAD_PREFIX = "v2:"
_NONCE_BYTES = 12


class SecretBox:
    """Encrypts private keys, preshared keys and gateway secrets; derives the token signing key."""

    def __init__(self, master_key: bytes) -> None:
        if len(master_key) != 32:
            raise KeyFileError("the secret key must be 32 bytes")
        self._aead = AESGCM(self._derive(master_key, b"encrypt-at-rest-aes-gcm"))
        self._fernet = Fernet(base64.urlsafe_b64encode(self._derive(master_key, b"encrypt-at-rest")))
        self.signing_key = self._derive(master_key, b"access-token-signing")
        self._hash_key = self._derive(master_key, b"lookup-hash")

    @staticmethod
    def _derive(master: bytes, purpose: bytes) -> bytes:
        return hmac.new(master, purpose, hashlib.sha256).digest()

    def encrypt(self, plaintext: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, plaintext.encode(), None)
        return AEAD_PREFIX + binascii.b2a_base64(nonce + sealed, newline=False).decode()

    def decrypt(self, token: str) -> str:
        try:
            if token.startswith(AEAD_PREFIX):
                raw = binascii.a2b_base64(token[len(AEAD_PREFIX) :], strict_mode=True)
                return self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], None).decode()
            return self._fernet.decrypt(token.encode()).decode()
        except (InvalidTag, InvalidToken, ValueError, binascii.Error) as exc:
            raise KeyFileError("a secret in the database does not match the key file") from exc

    def lookup_hash(self, secret: str) -> str:
        """Keyed hash for secrets looked up by value (refresh tokens, reset links, mirror tokens)."""
        return hmac.new(self._hash_key, secret.encode(), hashlib.sha256).hexdigest()

    @classmethod
    def from_file(cls, path: Path) -> SecretBox:
        """Load the key file, creating it (mode 0600) on first run; refuse one that others can read."""
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode() + "\n")
            log.info("created a new secret key file at %s", path)
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise KeyFileError(f"{path} is readable by other users (mode {mode:o}); run: chmod 600 {path}")
        try:
            key = base64.urlsafe_b64decode(path.read_text().strip())
        except ValueError as exc:
            raise KeyFileError(f"{path} does not hold a base64 key") from exc
        return cls(key)


def random_token(nbytes: int = 32) -> str:
    """URL-safe random secret; 32 bytes = 256 bits."""
    return secrets.token_urlsafe(nbytes)
