"""Demo data for `make run`: loaded once, into an empty database, so that a newcomer has something to click.

The customer gets an active peer on the demo server (its config downloads, the simulated node reports traffic for
it), a room with that peer, and the home shows an announcement and a client release. Gateway switches are on, so a
purchase goes to the fake gateways' payment pages (docs/deployment.md, "The demo").
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

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
DEMO_SERVER = "Demo 1"  # its name when loaded; admins may rename it (the demo finds it by SERVER_ID_FILE)
SERVER_ID_FILE = "demo-server-id"  # in the var folder: the demo server's id, written when the demo data is loaded
SIMULATED_ADDRESS = "vpn-demo.example.org"  # the simulated node's endpoint: nobody answers there
DEMO_PLANS = [
    ("Mensual", 30 * 24, Decimal("5.00"), "Un dispositivo. Todos los servidores. Salas para jugar en LAN"),
    ("Trimestral", 90 * 24, Decimal("13.50"), "Un dispositivo. Todos los servidores. Ahorra un 10%"),
    ("Anual", 365 * 24, Decimal("48.00"), "Un dispositivo. Todos los servidores. Ahorra un 20%"),
]


async def load_demo(services: Services, var_dir: Path) -> bool:
    """Load the demo data into an empty database and remember the demo server's id in the var folder; False (and
    nothing written) when the database already has users."""
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
        await services.rooms.create(db, customer.id, "Partida del viernes", peer.id)
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
    _remember_server(var_dir, server.id)  # after the commit: never the id of a server that was rolled back
    return True


@dataclass(frozen=True)
class DemoServer:
    """The demo's own server as this start found it; `credential` is its node's fresh one."""

    id: str
    name: str
    tunnel_subnet: str
    credential: str


async def demo_server(services: Services, var_dir: Path, address: str) -> DemoServer | None:
    """The demo's own server, pointed at the node that runs this time (the real agent's veth address or the
    simulated node's example name), with a fresh credential for that node (reissued on every start, so none is
    stored). Found by the id remembered in the var folder when the demo data was loaded, so an admin may rename it
    in the manager; else by its original name (a database loaded before the id was remembered), and remembered
    from then on. None when neither finds it (a server cannot be deleted in the manager, only in the database)."""
    path = var_dir / SERVER_ID_FILE
    remembered = path.read_text().strip() if path.is_file() else ""
    async with services.sessionmaker.begin() as db:
        server = await db.get(Server, remembered) if remembered else None
        if server is None:
            server = (await db.execute(select(Server).where(Server.name == DEMO_SERVER))).scalar_one_or_none()
        if server is None:
            return None
        server.address = address
        found = DemoServer(
            server.id, server.name, server.tunnel_subnet, await services.servers.reissue_credential(db, server.id)
        )
    if found.id != remembered:
        _remember_server(var_dir, found.id)
    return found


def _remember_server(var_dir: Path, server_id: str) -> None:
    var_dir.mkdir(parents=True, exist_ok=True)
    (var_dir / SERVER_ID_FILE).write_text(server_id + "\n")


class Login(enum.Enum):
    """What became of a demo account since the demo data was loaded."""

    UNTOUCHED = "untouched"  # its published password still opens it
    CHANGED = "changed"  # its password was changed (in Ajustes, by a reset, by an admin)
    BLOCKED = "blocked"
    GONE = "gone"  # deleted (its row keeps no username)


async def login_states(services: Services) -> dict[str, Login]:
    """Each demo account's state by username. The stored hash is checked against the published password, one
    argon2 verification an account, with no transaction open (as a login checks it)."""
    states = {}
    for username, password in (DEMO_CUSTOMER, DEMO_ADMIN):
        async with services.read_sessionmaker.begin() as db:
            user = await services.accounts.find_by_username(db, username)
        if user is None or user.deleted_at is not None:
            states[username] = Login.GONE
        elif not await services.passwords.verify(user.password_hash, password):
            states[username] = Login.CHANGED
        else:
            states[username] = Login.BLOCKED if user.blocked else Login.UNTOUCHED
    return states


def logins(settings: Settings, states: Mapping[str, Login]) -> str:
    """The start-up lines with the demo logins: a password is shown only while it still opens its account."""
    lines = []
    for label, path, (username, password) in (
        ("Cliente:       ", "/login           ", DEMO_CUSTOMER),
        ("Administración:", "/manager/login   ", DEMO_ADMIN),
    ):
        what = {
            Login.UNTOUCHED: f"contraseña '{password}'",
            Login.CHANGED: "contraseña cambiada por usted (ya no es la de la demostración)",
            Login.BLOCKED: f"contraseña '{password}', pero la cuenta está bloqueada",
            Login.GONE: "la cuenta ya no existe",
        }[states[username]]
        lines.append(f"  {label} {settings.client_url}{path} usuario '{username}', {what}")
    return "\n".join(lines)
