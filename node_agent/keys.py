"""The node's WireGuard key pair: made on first start in the state directory (0600), never sent anywhere."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

PRIVATE_KEY_FILE = "private.key"


def generate_private_key() -> str:
    raw = X25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return base64.b64encode(raw).decode()


def public_key_of(private_key: str) -> str:
    key = X25519PrivateKey.from_private_bytes(base64.b64decode(private_key))
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def load_or_create_private_key(state_dir: Path) -> str:
    """Return the node private key, creating it (mode 0600, atomically) when the state dir has none."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = state_dir / PRIVATE_KEY_FILE
    if path.exists():
        value = path.read_text().strip()
        if len(base64.b64decode(value)) != 32:
            raise ValueError(f"{path} does not hold a WireGuard private key")
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)  # someone loosened it: the key must stay private
        return value
    value = generate_private_key()
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(value + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)  # a crash never leaves a half-written key behind
    return value
