"""`python -m node_agent`: load the configuration once, then run the agent until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from node_agent import logs
from node_agent.agent import NodeAgent
from node_agent.client import ControlClient
from node_agent.config import ConfigError, load_config
from node_agent.metrics import AgentMetrics

log = logging.getLogger("node_agent")


async def _run() -> None:
    config = load_config()
    # Whatever prints them by mistake, the credential and the node's private key never reach a line.
    logs.secrets.add(config.credential)
    logs.configure_logging(config.log_level)
    log.info("starting: %s", config)
    agent = NodeAgent(config)
    logs.secrets.add(agent.private_key)
    log.info("node public key %s", agent.public_key)
    metrics = AgentMetrics()
    metrics.track_relay(agent.firewall.read_relay_counters, agent.relay_limits)
    if config.metrics_bind:
        metrics.serve(config.metrics_bind)
    client = ControlClient(config, agent, metrics=metrics)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, client.stop)
    try:
        await client.run_forever()
    finally:
        await agent.close()
        log.info("stopped")


def main() -> int:
    logs.configure_logging("INFO")
    try:
        asyncio.run(_run())
    except ConfigError as exc:
        print(f"vpn-node-agent: configuration error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
