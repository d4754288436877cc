"""The node agent's log lines: one line per record whatever a message holds, and none of the agent's secrets (its
credential, its private key in base64 or hex, a preshared key in any shape it travels in) at any level. The real
agent's whole log is scanned in the netns layer (tests/netns/agent_process.py, test_agent_log_lines.py)."""

from __future__ import annotations

import base64
import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from node_agent.keys import generate_private_key
from node_agent.logs import AgentFormatter, Redactor, configure_logging, escape

FORGED = "2026-01-01 00:00:00,000 INFO node_agent: full state 9 applied"
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00", "\x1b"]
CREDENTIAL = "node-credential-" + os.urandom(8).hex()


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO, Redactor]]:
    stream, redactor = io.StringIO(), Redactor()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(AgentFormatter(redactor))
    logger = logging.getLogger("test.node_agent")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    yield logger, stream, redactor
    logger.handlers[:] = []


@pytest.mark.parametrize("brk", BREAKS, ids=[repr(b) for b in BREAKS])
def test_no_field_can_start_a_line_of_its_own(logged: tuple[logging.Logger, io.StringIO, Redactor], brk: str) -> None:
    logger, stream, _ = logged
    logger.error("control plane refused this node (%s)", f"bad_credential{brk}{FORGED}")
    logger.debug("interface %s", f"wg0{brk}{FORGED}")
    lines = stream.getvalue().splitlines()  # splits at every break a viewer may use, \x85 and U+2028 included
    assert len(lines) == 2, lines
    assert all(" node_agent: full state" not in line.split(": ", 1)[0] for line in lines)
    assert all(line.startswith(("20", "19")) for line in lines)  # every line begins with its own timestamp
    assert escape(brk) in lines[0]


def test_a_traceback_follows_on_tab_led_lines_and_cannot_forge_one(
    logged: tuple[logging.Logger, io.StringIO, Redactor],
) -> None:
    logger, stream, _ = logged
    try:
        raise RuntimeError(f"stream ended\n{FORGED}")
    except RuntimeError:
        logger.exception("session failed")
    first, *rest = stream.getvalue().splitlines()
    assert first.endswith("session failed")
    assert rest and all(line.startswith("\t") for line in rest)
    assert f"\t{FORGED}" in rest  # the exception's text goes on, but never at the margin


def test_the_agents_own_secrets_never_reach_a_line_at_any_level(
    logged: tuple[logging.Logger, io.StringIO, Redactor],
) -> None:
    logger, stream, redactor = logged
    private_key = generate_private_key()
    redactor.add(CREDENTIAL)
    redactor.add(private_key)
    hex_key = base64.b64decode(private_key).hex()
    for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR):
        logger.log(level, "hello with %s", CREDENTIAL)
        logger.log(level, "key %s / uapi %s", private_key, hex_key)
    text = stream.getvalue()
    assert CREDENTIAL not in text and private_key not in text and hex_key not in text
    assert text.count("[redacted]") == 12
    assert "DEBUG" in text  # debug lines went through the same formatter


def test_secrets_in_the_shapes_wireguard_writes_them_are_hidden_without_being_known(
    logged: tuple[logging.Logger, io.StringIO, Redactor],
) -> None:
    logger, stream, _ = logged
    psk, other_private = generate_private_key(), generate_private_key()
    psk_hex = base64.b64decode(psk).hex()
    logger.debug("uapi set: private_key=%s\npreshared_key=%s\n", base64.b64decode(other_private).hex(), psk_hex)
    logger.debug("config:\n[Interface]\nPrivateKey = %s\n[Peer]\nPresharedKey = %s", other_private, psk)
    logger.debug('peer spec { public_key: "x" preshared_key: "%s" }', psk)
    logger.debug("hello credential=%s, Authorization: Bearer %s", "abc123def456", "tok-123456789")
    text = stream.getvalue()
    for secret in (psk, psk_hex, other_private, base64.b64decode(other_private).hex(), "abc123def456", "tok-123456789"):
        assert secret not in text
    assert len(text.splitlines()) == 4  # and still one line each


def test_public_keys_and_ordinary_words_stay_readable(logged: tuple[logging.Logger, io.StringIO, Redactor]) -> None:
    logger, stream, redactor = logged
    redactor.add("short")  # too short to be a real secret: not blanked everywhere
    public = base64.b64encode(os.urandom(32)).decode()
    logger.info("node public key %s; a short word", public)
    assert public in stream.getvalue() and "short word" in stream.getvalue()


def test_configure_logging_keeps_chatty_libraries_at_warning_even_at_debug() -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure_logging("DEBUG")
        assert root.level == logging.DEBUG
        assert isinstance(root.handlers[0].formatter, AgentFormatter)
        for name in ("pyroute2", "grpc", "asyncio"):
            assert logging.getLogger(name).level == logging.WARNING
    finally:
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])


def test_the_agent_log_module_does_not_import_the_control_plane() -> None:
    """The agent and the control plane meet only in protos/: a node installs no control plane code."""
    code = "import sys, node_agent.__main__; print(sorted(m for m in sys.modules if m.startswith('controlplane')))"
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
