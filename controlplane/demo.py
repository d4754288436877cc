"""Demo data for `make run`: loaded once, into an empty database, so that a newcomer has something to click."""

from __future__ import annotations

from sqlalchemy import func, select

from controlplane.domain.accounts.models import Role, User
from controlplane.services import build_services
from controlplane.settings import Settings

DEMO_ADMIN = ("admin", "admin-demo-1234")
DEMO_CUSTOMER = ("cliente", "cliente-demo-1234")


async def load_demo(settings: Settings) -> str:
    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            if await db.scalar(select(func.count()).select_from(User)):
                return "La base de datos ya tiene datos: no se cargó la demostración."
            await services.accounts.create_user(db, *DEMO_ADMIN, Role.ADMIN)
            await services.accounts.create_user(db, *DEMO_CUSTOMER, Role.CUSTOMER)
    finally:
        await services.close()
    return (
        "Datos de demostración cargados.\n"
        f"  Cliente:        {settings.client_url}/login            usuario '{DEMO_CUSTOMER[0]}', "
        f"contraseña '{DEMO_CUSTOMER[1]}'\n"
        f"  Administración: {settings.client_url}/manager/login    usuario '{DEMO_ADMIN[0]}', "
        f"contraseña '{DEMO_ADMIN[1]}'"
    )
