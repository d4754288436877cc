"""Settings pointing at both fake gateways: shipped code, shared with the demo (controlplane/demo/gateways.py)."""

from controlplane.demo.gateways import gateway_settings

__all__ = ["gateway_settings"]
