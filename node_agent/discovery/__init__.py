"""Recognizing LAN game and service announcements in the discovery traffic a node relays for its rooms
(docs/agent-protocol.md, "Discovery report"). Summaries only leave the node, never packets."""
