"""Log set-up for the node agent: one record, one line, no secret (docs/security.md, "Logs").

Every line, whoever logs it (our code, grpc, pyroute2, asyncio), goes through one formatter that:

- escapes control characters (C0, DEL, C1, U+2028/U+2029) in the message, so text that came from elsewhere (a
  control plane's refusal, gRPC error details, an interface name) cannot start a line of its own; a traceback
  follows on lines that begin with a tab, so only a record starts at the margin;
- removes the agent's own secrets: its credential and its node private key (base64 and the UAPI's hex), which it
  registers at start, and anything written in the shapes a WireGuard secret travels in (UAPI `private_key=` and
  `preshared_key=` lines, wg-quick's `PrivateKey =`/`PresharedKey =`, `credential=`, `Bearer ...`).

The control plane has its own formatter (controlplane/observability/logs.py); the agent does not import the
control plane (the two meet only in protos/), so the escaping rule is written here again, the same rule.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import sys

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REDACTED = "[redacted]"

# A viewer or collector may break a line at any of these, so an input carrying one could forge a line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# The shapes a secret travels in: the UAPI (`private_key=<64 hex>`, `preshared_key=<64 hex>`), wg(8)/wg-quick
# configuration (`PrivateKey = <base64>`, `PresharedKey = <base64>`), a message's text form (`preshared_key:
# "<base64>"`), a credential passed as a field, a bearer header. The value ends where a field would.
_VALUE = r"[^\s\"',;)\]}]+"
_SHAPES = (
    re.compile(r"(?i)\b((?:private_?key|preshared_?key|credential|secret)[\"']?\s*[=:]\s*[\"']?)" + _VALUE),
    re.compile(r"(?i)\b(bearer\s+)" + _VALUE),
)


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def escape(text: str) -> str:
    """One line: control characters written as escapes (\\n, \\x85, \\u2028)."""
    return _CONTROL.sub(_escaped, text)


class Redactor:
    """The secrets this agent knows, and the shapes any secret travels in."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()

    def add(self, secret: str) -> None:
        """Never write `secret`; a WireGuard key is also hidden in its hex (UAPI) form."""
        if len(secret) < 8:  # too short to be a secret worth the name, and would blank common words
            return
        self._secrets.add(secret)
        try:
            raw = base64.b64decode(secret, validate=True)
        except (binascii.Error, ValueError):
            return
        if len(raw) == 32:
            self._secrets.add(raw.hex())

    def __call__(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        for shape in _SHAPES:
            text = shape.sub(r"\1" + REDACTED, text)
        return text


class AgentFormatter(logging.Formatter):
    """`time LEVEL logger: message`, escaped and redacted; a traceback on tab-led lines below it."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__(FORMAT)
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        # Redacted before escaping: a secret's shape is read in the text as written (`\nPresharedKey = ...`).
        record.message = escape(self._redact(record.getMessage()))
        record.asctime = self.formatTime(record, self.datefmt)
        line = self.formatMessage(record)
        blocks = []
        if record.exc_info:
            blocks.append(self.formatException(record.exc_info))
        if record.stack_info:
            blocks.append(self.formatStack(record.stack_info))
        for block in blocks:
            line += "".join("\n\t" + escape(self._redact(part)) for part in block.splitlines())
        return line


# The one redactor of this process: `configure_logging` installs it, the agent adds its secrets as it learns them.
secrets = Redactor()


def configure_logging(level: str = "INFO") -> None:
    """Replace whatever handlers there were with one on stderr through AgentFormatter (systemd's journal reads it).
    Libraries' debug output can dump whole netlink or gRPC messages, keys included: they stay at WARNING."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(AgentFormatter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("pyroute2", "grpc", "asyncio"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
