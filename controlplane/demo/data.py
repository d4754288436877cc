"""Demo data for `make run`: loaded once, into an empty database, so that a newcomer has something to click.

The customer gets an active peer on the demo server (its config downloads, the simulated node reports traffic for
it), a room with that peer, and the home shows an announcement and a client release. Gateway switches are on, so a
purchase goes to the fake gateways' payment pages (docs/deployment.md, "The demo").
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import func, select

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.domain.plans.service import add_plan
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput
from controlplane.services import Services
from controlplane.settings import Settings

DEMO_ADMIN = ("admin", "admin-demo-1234")
DEMO_CUSTOMER = ("cliente", "cliente-demo-1234")
DEMO_SERVER = "Demo 1"
SIMULATED_ADDRESS = "vpn-demo.example.org"  # the simulated node's endpoint: nobody answers there
DEMO_PLANS = [
    ("Mensual", 30 * 24, Decimal("5.00"), "Un dispositivo. Todos los servidores. Salas para jugar en LAN"),
    ("Trimestral", 90 * 24, Decimal("13.50"), "Un dispositivo. Todos los servidores. Ahorra un 10%"),
    ("Anual", 365 * 24, Decimal("48.00"), "Un dispositivo. Todos los servidores. Ahorra un 20%"),
]


async def load_demo(services: Services) -> bool:
    """Load the demo data into an empty database; False (and nothing written) when it already has users."""
    async with services.sessionmaker.begin() as db:
        if await db.scalar(select(func.count()).select_from(User)):
            return False
        await services.accounts.create_user(db, *DEMO_ADMIN, Role.ADMIN)
        customer = await services.accounts.create_user(db, *DEMO_CUSTOMER, Role.CUSTOMER)
        # Rooms show members by alias and ask for one first.
        customer.alias, customer.alias_key = "Cliente demo", "cliente demo"
        plan_ids = [
            (await add_plan(db, name, hours, price, description, sort_order=order)).id
            for order, (name, hours, price, description) in enumerate(DEMO_PLANS)
        ]
        gateways = services.invoices.gateways
        configured = {f"allow_payments_{name}": True for name, g in gateways.items() if g.configured}
        if configured:
            await services.switches.update(db, configured)
        server, _ = await services.servers.create(
            db,
            ServerInput(
                name=DEMO_SERVER,
                address=SIMULATED_ADDRESS,
                tunnel_subnet="10.8.0.0/24",
                ubication="La Habana",
                allow_partys=True,
            ),
        )
        name, hours, price, _ = DEMO_PLANS[0]
        peer = await services.peers.create(
            db,
            customer.id,
            "movil",
            server=server,
            expiration_date=utcnow() + timedelta(hours=hours),
            plan=(plan_ids[0], name, price),
        )
        await services.partys.create(db, customer.id, "Partida del viernes", peer.id)
        db.add(
            Announcement(
                name="Bienvenida",
                message=(
                    "Esto es una demostración: el servidor solo funciona en esta máquina y los pagos van a "
                    "pasarelas de prueba."
                ),
            )
        )
        db.add(ClientRelease(version="1.0.0", url="https://example.org/descargas/conector-1.0.0.zip"))
    return True


async def demo_node_credential(services: Services) -> tuple[str, str]:
    """The demo server's id and a fresh credential for its node (reissued on every start, so none is stored)."""
    async with services.sessionmaker.begin() as db:
        server = (await db.execute(select(Server).where(Server.name == DEMO_SERVER))).scalar_one()
        return server.id, await services.servers.reissue_credential(db, server.id)


async def set_demo_endpoint(services: Services, address: str) -> str:
    """Point the demo server's endpoint at the node that runs this time (the real agent's veth address or the
    simulated node's example name); returns its tunnel subnet."""
    async with services.sessionmaker.begin() as db:
        server = (await db.execute(select(Server).where(Server.name == DEMO_SERVER))).scalar_one()
        server.address = address
        return server.tunnel_subnet


def logins(settings: Settings) -> str:
    return (
        f"  Cliente:        {settings.client_url}/login            usuario '{DEMO_CUSTOMER[0]}', "
        f"contraseña '{DEMO_CUSTOMER[1]}'\n"
        f"  Administración: {settings.client_url}/manager/login    usuario '{DEMO_ADMIN[0]}', "
        f"contraseña '{DEMO_ADMIN[1]}'"
    )
