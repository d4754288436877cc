"""What to do about a connection the control plane never answered: gRPC's error, read for the few causes an operator
meets when setting a node up (issue 31: "no error names its fix"), turned into the setting to change.

The patterns are gRPC's own wording (grpcio with BoringSSL, as of 1.66-1.7x), checked against a real nginx and real
TLS servers in tests/netns/test_agent_errors.py; an unknown error gets no hint rather than a wrong one."""

from __future__ import annotations

from node_agent.config import AgentConfig

SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def connection_hint(details: str, config: AgentConfig) -> str:
    """The fix for the error `details`, naming the setting; "" when the error says nothing this module knows."""
    ca = f"tls_ca ({config.tls_ca})" if config.tls_ca else "tls_ca"
    if "http1.x server" in details or "Failed parsing HTTP/2" in details:
        if config.tls_ca is None:
            return (
                f"{config.control_url} did not answer as plaintext gRPC; a TLS port (nginx's 7443) needs tls_ca in "
                f'agent.toml: tls_ca = "{SYSTEM_BUNDLE}" for a public certificate (Let\'s Encrypt), or the CA file of '
                "a private one; otherwise check the port"
            )
        return (
            f"{config.control_url} answered as an HTTP/1 server, not gRPC: check the port (nginx serves agents on 7443)"
        )
    if "CERTIFICATE_VERIFY_FAILED" in details:
        return (
            f"the control plane's certificate is not signed by a CA in {ca}: behind nginx with a public certificate "
            f'(Let\'s Encrypt) use tls_ca = "{SYSTEM_BUNDLE}"; with a private or self-signed one, copy the CA that '
            "signed it to the node (VPN_AGENT_TLS_CA on the control plane puts it in the install steps)"
        )
    if "WRONG_VERSION_NUMBER" in details:
        return (
            f"{config.control_url} answers without TLS although {ca} is set: dial the TLS port (nginx's 7443), or "
            "remove tls_ca for plaintext (loopback or a private link only)"
        )
    if "Hostname Verification" in details or "Peer name" in details:
        host = config.control_url.rpartition(":")[0]
        return (
            f"the control plane's certificate does not name {host}: set control_url to the name it was issued for "
            "(VPN_GRPC_PUBLIC_URL on the control plane)"
        )
    if "status: 502" in details or "status: 504" in details:
        return (
            "the proxy in front (nginx) could not reach the control plane: is vpn-controlplane running, and is "
            "VPN_GRPC_BIND the address in nginx's upstream vpn_grpc?"
        )
    return ""
