"""The secret key kept outside the database: encrypts secrets at rest and signs access tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

log = logging.getLogger(__name__)


class KeyFileError(RuntimeError):
    pass


class SecretBox:
    """Encrypts private keys, preshared keys and gateway secrets; derives the token signing key."""

    def __init__(self, master_key: bytes) -> None:
        if len(master_key) != 32:
            raise KeyFileError("the secret key must be 32 bytes")
        self._fernet = Fernet(base64.urlsafe_b64encode(self._derive(master_key, b"encrypt-at-rest")))
        self.signing_key = self._derive(master_key, b"access-token-signing")
        self._hash_key = self._derive(master_key, b"lookup-hash")

    @staticmethod
    def _derive(master: bytes, purpose: bytes) -> bytes:
        return hmac.new(master, purpose, hashlib.sha256).digest()

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken as exc:
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
