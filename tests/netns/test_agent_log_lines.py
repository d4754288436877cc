"""The real agent's log cannot be forged and holds none of its secrets, even when what it logs comes from the other
end (docs/security.md, "Logs"). A control plane ends the agent's first connection with a gRPC error whose details
carry line breaks of every kind, text shaped like the agent's own log lines, the agent's credential and a preshared
key; the agent logs the error as it always does ("control plane unreachable (...)"), reconnects and applies a full
state. Its whole DEBUG log must then be one record per line, every line at the margin a record of its own, and the
autouse scan (tests/netns/conftest.py) finds no credential and nothing key-shaped but the node's public key.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
from pathlib import Path

import grpc
from agent_fake_control import FakeControlPlane, serve
from agent_process import AgentProcess
from netns import Namespace, unique_name

from protos import agent_pb2

CREDENTIAL = "node-credential-" + base64.b16encode(os.urandom(8)).decode()
FORGED = "2026-01-01 00:00:00,000 INFO node_agent.agent: full state 99 applied"
BREAKS = ["\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]
# How every record of the agent begins (node_agent/logs.py FORMAT); a traceback's lines begin with a tab.
RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: ")


async def test_a_control_plane_error_carrying_forged_lines_and_secrets_stays_one_redacted_line(
    make_namespace: type[Namespace], tmp_path: Path
) -> None:
    ns = make_namespace("log")
    interface = unique_name("wgl")
    psk = base64.b64encode(os.urandom(32)).decode()
    details = "".join(f"{brk}{FORGED}" for brk in BREAKS)
    details = f"nodo rechazado, credential={CREDENTIAL} PresharedKey = {psk}{details}"
    state = agent_pb2.FullState(
        serial=1, interface=agent_pb2.InterfaceSpec(name=interface, listen_port=51830, addresses=["10.9.0.1/24"])
    )
    control = FakeControlPlane(lambda: agent_pb2.FullState.FromString(state.SerializeToString()), CREDENTIAL)
    control.aborts.append((grpc.StatusCode.UNAVAILABLE, details))
    target = f"unix:{tmp_path / 'control.sock'}"
    agent = AgentProcess(
        ns, tmp_path, control_url=target, node_id="node-log", credential=CREDENTIAL, interface=interface
    )
    async with serve(control, target):
        agent.start()
        try:
            session = await control.next_session(within=60)  # the second connection: reconnected after the error
            result = await session.result("op-1", within=60)  # the first full state served
            assert result.ok, result.error
        finally:
            assert await asyncio.to_thread(agent.stop) == 0

    log = agent.log()
    assert "control plane unreachable (UNAVAILABLE" in log, "the error was not logged, so nothing was tested"
    lines = log.splitlines()  # Python splits at every break above, \x85 and U+2028 included
    stray = [line for line in lines if not (RECORD.match(line) or line.startswith("\t"))]
    assert not stray, f"lines that are no record of the agent's: {stray[:3]}"
    assert not any(line.startswith(FORGED) for line in lines)
    error_line = next(line for line in lines if "control plane unreachable" in line)
    for brk in ("\\n", "\\r", "\\x0b", "\\x0c", "\\x1c", "\\x85", "\\u2028", "\\u2029"):
        assert brk + FORGED in error_line  # written as escapes, inside the one line
    assert "credential=[redacted]" in error_line and "PresharedKey = [redacted]" in error_line
    assert psk not in log
    assert any(" DEBUG " in line for line in lines)  # the autouse scan reads debug lines too
