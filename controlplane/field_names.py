"""The Spanish names of the API's fields, for the texts people read: a 422's message and an audit entry's summary.

One table so a refused value and the audit line of an accepted one call a field the same way, and the same way as
the manager's form labels. A field not listed is shown by its API name (a developer's mistake, not a person's)."""

from __future__ import annotations

FIELD_NAMES: dict[str, str] = {
    # accounts
    "username": "Usuario",
    "password": "Contraseña",
    "email": "Email",
    "alias": "Alias",
    "blocked": "Bloqueado",
    "current_password": "Contraseña actual",
    "new_password": "Contraseña nueva",
    "refresh": "Token de renovación",
    "captcha_token": "Captcha",
    # servers
    "name": "Nombre",
    "address": "Dirección",
    "port": "Puerto",
    "tunnel_subnet": "Subred del túnel",
    "ubication": "Ubicación",
    "active": "Activo",
    "allow_partys": "Salas",
    "dns": "DNS",
    "capacity": "Capacidad",
    "interface_name": "Interfaz",
    "backbone_endpoint": "Endpoint del backbone",
    "backbone_port": "Puerto del backbone",
    # plans
    "validity_hours": "Validez (horas)",
    "price": "Precio",
    "description": "Descripción",
    "visible": "Visible",
    "sort_order": "Orden",
    # announcements and releases
    "message": "Mensaje",
    "version": "Versión",
    "url": "URL",
    # peers and invoices
    "server": "Servidor",
    "plan": "Plan",
    "days": "Días",
    "manual_payment": "Pago manual",
    "note": "Nota",
    # switches
    "maintenance": "Modo mantenimiento",
    "allow_registration": "Registro de cuentas",
    "allow_password_recovery": "Recuperación de contraseña",
    "show_landing": "Página de inicio pública",
    "allow_email": "Email",
    "allow_payments_qvapay": "Pagos con QvaPay",
    "allow_payments_remesita": "Pagos con Remesita",
    # query strings
    "q": "Búsqueda",
    "page": "Página",
    "page_size": "Tamaño de página",
    "range": "Periodo",
    "period": "Periodo",
    "active_only": "Solo activos",
    "since": "Desde",
    "until": "Hasta",
}


def field_name(path: str) -> str:
    """`name` -> "Nombre"; a nested path (`items[0].name`) is named by its last part."""
    last = path.rsplit(".", 1)[-1].split("[", 1)[0]
    return FIELD_NAMES.get(last, last)


def value_text(value: object) -> str:
    if value is True:
        return "sí"
    if value is False:
        return "no"
    if value is None or value == "":
        return "(vacío)"
    return str(value)


def changes_text(changes: dict[str, object]) -> str:
    """What an edit changed, for its audit entry: "Precio → 2.00, Visible → no" (the arrow: the new value)."""
    return ", ".join(f"{field_name(k)} → {value_text(v)}" for k, v in changes.items()) or "sin cambios"
