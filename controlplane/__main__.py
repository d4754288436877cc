"""Command line: python -m controlplane serve | migrate | create-admin | demo."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys

import uvicorn

from controlplane.observability.logs import configure_logging
from controlplane.settings import Settings

# How long an idle HTTP connection stays open. Longer than the proxy in front keeps its idle connections to us
# (packaging/nginx-vpn.conf: 60 s) and than HTTP clients' usual 5 s: whoever closes an idle connection must be the
# side that would reuse it, or a request sent as the other side closes is lost (a POST is not retried). uvicorn's
# default, 5 s, is httpx's too: most likely how a benchmark's login storm lost one login. docs/deployment.md,
# "Idle connections".
HTTP_KEEPALIVE_SECONDS = 75


def uvicorn_server(settings: Settings) -> uvicorn.Server:
    from controlplane.app import create_app
    from controlplane.realtime.server_socket import LeanWebSocketProtocol

    host, _, port = settings.http_bind.rpartition(":")
    # The address to open, which links and the live socket's origin check follow (docs/deployment.md, client URL).
    print(f"Cliente web: {settings.client_url}", flush=True)
    config = uvicorn.Config(
        create_app(settings),
        host=host.strip("[]") or "127.0.0.1",
        port=int(port),
        log_level=settings.log_level.lower(),
        log_config=None,  # keep the handlers configure_logging set (text or JSON, with request ids)
        access_log=False,  # http_observer writes one access line per request, with its request id
        proxy_headers=False,
        timeout_keep_alive=HTTP_KEEPALIVE_SECONDS,
        ws_max_size=64 * 1024,
        # No per-socket compression (docs/benchmarks.md, "Reconnect storms"): a pair of zlib streams per socket cost
        # about 45 kB of its ~80, for pushes of a few hundred bytes; compressing beside secrets is a risk too.
        ws_per_message_deflate=False,
        # uvicorn's own protocol keeping less per open socket (controlplane/realtime/server_socket.py).
        ws=LeanWebSocketProtocol,
    )
    return uvicorn.Server(config)


def _migrate(settings: Settings) -> None:
    from controlplane.migrate import upgrade

    upgrade(settings.database_url)
    print("Base de datos al día.")


async def _create_admin(settings: Settings, username: str, password: str, role: str) -> None:
    from controlplane.domain.accounts.models import Role
    from controlplane.services import build_services

    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            await services.accounts.create_user(db, username, password, Role(role))
    finally:
        await services.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controlplane", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="serve the API, the web client, the agent gRPC server and the jobs")
    sub.add_parser("migrate", help="apply database migrations")
    admin = sub.add_parser("create-admin", help="create a staff account (password asked, or VPN_ADMIN_PASSWORD)")
    admin.add_argument("username")
    admin.add_argument("--role", choices=["admin", "support"], default="admin")
    sub.add_parser(
        "demo",
        help="the demo (`make run`): demo data the first time, fake gateways, a simulated node, then serve; "
        "refused when the settings look like production",
    )
    args = parser.parse_args(argv)

    settings = Settings.from_env()
    configure_logging(settings.log_format, settings.log_level)
    if args.command == "demo":
        from controlplane.demo.run import ProductionRefused, run_demo

        try:
            run_demo()
        except ProductionRefused as refused:
            print(f"La demostración no arranca: estos ajustes parecen de producción.\n{refused}", file=sys.stderr)
            return 2
        return 0
    if args.command == "serve":
        uvicorn_server(settings).run()
    elif args.command == "migrate":
        _migrate(settings)
    elif args.command == "create-admin":
        password = os.environ.get("VPN_ADMIN_PASSWORD") or getpass.getpass("Contraseña: ")
        asyncio.run(_create_admin(settings, args.username, password, args.role))
        print(f"Cuenta {args.role} '{args.username}' creada.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
