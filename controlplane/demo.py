"""Demo data for `make run`: loaded once, into an empty database, so that a newcomer has something to click."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from controlplane.domain.accounts.models import Role, User
from controlplane.domain.plans.service import add_plan
from controlplane.domain.servers.service import ServerInput
from controlplane.services import build_services
from controlplane.settings import Settings

DEMO_ADMIN = ("admin", "admin-demo-1234")
DEMO_CUSTOMER = ("cliente", "cliente-demo-1234")
DEMO_PLANS = [
    ("Mensual", 30 * 24, Decimal("5.00"), "Un dispositivo. Todos los servidores. Salas para jugar en LAN"),
    ("Trimestral", 90 * 24, Decimal("13.50"), "Un dispositivo. Todos los servidores. Ahorra un 10%"),
    ("Anual", 365 * 24, Decimal("48.00"), "Un dispositivo. Todos los servidores. Ahorra un 20%"),
]


async def load_demo(settings: Settings) -> str:
    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            if await db.scalar(select(func.count()).select_from(User)):
                return "La base de datos ya tiene datos: no se cargó la demostración."
            await services.accounts.create_user(db, *DEMO_ADMIN, Role.ADMIN)
            await services.accounts.create_user(db, *DEMO_CUSTOMER, Role.CUSTOMER)
            for order, (name, hours, price, description) in enumerate(DEMO_PLANS):
                await add_plan(db, name, hours, price, description, sort_order=order)
            # Gateways with credentials in the environment (real ones, or the fakes of tests/fakes/run_gateways.py)
            # are switched on, so purchases can be tried at once.
            gateways = services.invoices.gateways
            configured = {f"allow_payments_{name}": True for name, g in gateways.items() if g.configured}
            if configured:
                await services.switches.update(db, configured)
            server, credential = await services.servers.create(
                db,
                ServerInput(
                    name="Demo 1",
                    address="vpn-demo.example.org",
                    tunnel_subnet="10.8.0.0/24",
                    ubication="La Habana",
                    allow_partys=True,
                ),
            )
    finally:
        await services.close()
    return (
        "Datos de demostración cargados.\n"
        f"  Cliente:        {settings.client_url}/login            usuario '{DEMO_CUSTOMER[0]}', "
        f"contraseña '{DEMO_CUSTOMER[1]}'\n"
        f"  Administración: {settings.client_url}/manager/login    usuario '{DEMO_ADMIN[0]}', "
        f"contraseña '{DEMO_ADMIN[1]}'\n"
        f"  Servidor 'Demo 1' (id {server.id}): conecte un agente con VPN_NODE_ID={server.id} "
        f"VPN_NODE_CREDENTIAL={credential} VPN_NODE_CONTROL_URL={settings.grpc_public_url}"
    )
