"""WireGuard backends: kernel (netlink) and userspace (wireguard-go over UAPI) behind one interface."""

from __future__ import annotations

from node_agent.backends.base import Backend, BackendError, PeerStat


def make_backend(kind: str, interface_name: str, netns: str | None = None) -> Backend:
    """Build the backend named in the config ("kernel" or "userspace")."""
    if kind == "userspace":
        from node_agent.backends.userspace import UserspaceBackend

        return UserspaceBackend(interface_name, netns=netns)
    if kind == "kernel":
        from node_agent.backends.kernel import KernelBackend

        return KernelBackend(interface_name, netns=netns)
    raise ValueError(f"unknown backend {kind!r}")


__all__ = ["Backend", "BackendError", "PeerStat", "make_backend"]
