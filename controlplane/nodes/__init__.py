"""Node operations end to end (docs/architecture.md): what a node should hold and how a change reaches it.

- `changes.py`: `NodeChange`, the typed delta a domain service asks for;
- `models.py`: the operation record (`NodeOperation`) and its outcome;
- `operations.py`: `NodeOperations`, the one door in: `change()` queues a change with the node's next serial,
  `finish()` ends it when the agent answers, and the outcome handlers registered in controlplane/services.py hear it;
- `desired_state.py`: the full state and the delta messages sent to agents, read from the database;
- `backbone.py`: the tunnels between room-enabled nodes;
- `agent_sessions.py`: what an agent's stream writes (admission, liveness, stats), so the servicer writes no SQL;
- `registry.py` and `servicer.py`: the connected agents and the gRPC endpoint they talk to (protos/agent.proto).
"""
