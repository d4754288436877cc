"""Node agent: the daemon on each VPN server that applies the control plane's desired state to WireGuard."""

__version__ = "0.1.0"
