"""Control plane of the VPN service: HTTP API, agent gRPC server, scheduled jobs and the web UI."""
