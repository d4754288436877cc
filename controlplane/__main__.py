"""Command line: python -m controlplane serve | migrate | create-admin | demo."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys

from controlplane.observability.logs import configure_logging
from controlplane.settings import Settings


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
        from controlplane.http_server import uvicorn_server

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
