"""The browser tests' node agents: the demo's simulated node without traffic (controlplane/demo/node.py).

The browser layer checks what a customer sees (the push arriving, the toast, the list updating); the real agent's
WireGuard work is covered by tests/netns.
"""

from __future__ import annotations

from controlplane.demo.node import run_simulated_node


async def run_scripted_agent(target: str, node_id: str, credential: str) -> None:
    await run_simulated_node(target, node_id, credential, version="browser-tests")
