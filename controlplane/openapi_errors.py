"""Make the OpenAPI document tell the truth about error answers.

Litestar documents a 400 with its own `{status_code, detail, extra}` body for every handler with parameters; ours
answers 422 with `{message, code, fields?}` (errors.py) and also 401/403/404/409/413/429/503 depending on what the
handler depends on. This walks the registered handlers once, after the app is built, and documents exactly that, so
the fuzzing suite (tests/api/test_fuzz_openapi.py) can hold every answer to the schema.

What a handler answers is read from what it declares: a `customer` parameter or a staff role guard (401, 403), the
customer area's maintenance hook (503), a request body (413, 422), path parameters (404); anything else it may
answer goes in `opt={"errors": (...)}` on the handler.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.spec import (
    Components,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.openapi.spec.security_scheme import SecurityScheme
from litestar.routes import HTTPRoute

from controlplane.dependencies import RESOLVES_CUSTOMER, customer_area
from controlplane.domain.accounts.guards import ROLE_GUARDS

ERROR_SCHEMA = "ErrorBody"
BEARER = "bearer"

DESCRIPTIONS = {
    400: "Solicitud inválida (p. ej. un enlace de un solo uso ya usado o vencido)",
    401: "Sin sesión, o sesión inválida o expirada",
    403: "No permitido para esta cuenta (cliente/personal, bloqueada, solo administradores)",
    404: "No existe o no es suyo",
    409: "Choca con el estado actual (peer inactivo, ocupado, nombre tomado...)",
    410: "Ya no sirve (un enlace de pago anulado o vencido)",
    413: "Cuerpo demasiado grande",
    422: "Datos inválidos; `fields` dice qué campo",
    429: "Demasiados intentos; ver `Retry-After`",
    502: "La pasarela de pago no responde; se reintentará",
    503: "Mantenimiento (`code: maintenance`) o servicio no disponible",
}


def _error_schema() -> Schema:
    return Schema(
        type=OpenAPIType.OBJECT,
        required=["message", "code"],
        properties={
            "message": Schema(type=OpenAPIType.STRING, description="Texto en español para personas"),
            "code": Schema(type=OpenAPIType.STRING, description="Código estable, snake_case"),
            "fields": Schema(
                type=OpenAPIType.OBJECT,
                additional_properties=Schema(type=OpenAPIType.STRING),
                description="Campo -> mensaje, en errores de validación",
            ),
        },
        description="Toda respuesta de error JSON",
    )


MUTATING = {"POST", "PUT", "PATCH", "DELETE"}


def authenticated(handler: HTTPRouteHandler) -> bool:
    """Called with an access token: a customer's (the `customer` parameter) or the staff's (a role guard)."""
    guards = handler.resolve_guards()
    customer = "customer" in handler.parsed_fn_signature.parameters or handler.opt.get(RESOLVES_CUSTOMER, False)
    return customer or any(g in guards for g in ROLE_GUARDS)


def error_statuses(handler: HTTPRouteHandler, path_params: set[str]) -> set[int]:
    params = set(handler.parsed_fn_signature.parameters)
    path_has_params = bool(path_params)
    statuses: set[int] = set(handler.opt.get("errors", ()))
    if authenticated(handler):
        statuses |= {401, 403}
    if handler.resolve_before_request() is customer_area and not handler.opt.get("maintenance_exempt"):
        statuses.add(503)
    if "data" in params:
        statuses |= {413, 422}
    if path_has_params:
        statuses.add(404)
    if not handler.opt.get("loose_query"):
        statuses.add(422)  # every query string is checked: undeclared or badly written parameters (query_params.py)
    if handler.http_methods & MUTATING:
        statuses |= {404, 409}  # a change may name something that is gone, or clash with the current state
    if "db" in params:
        statuses.add(503)  # the database unreachable for a while (errors.unreachable_handler)
    return statuses


def document_errors(app: Litestar) -> None:
    openapi = app.openapi_schema
    components = openapi.components or Components()
    openapi.components = components
    components.schemas = {**(components.schemas or {}), ERROR_SCHEMA: _error_schema()}
    components.security_schemes = {
        **(components.security_schemes or {}),
        BEARER: SecurityScheme(type="http", scheme="bearer", bearer_format="JWT"),
    }
    error_ref = Reference(ref=f"#/components/schemas/{ERROR_SCHEMA}")
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        path_item = (openapi.paths or {}).get(route.path_format or "/")
        if path_item is None:
            continue
        for handler in route.route_handlers:
            if not handler.resolve_include_in_schema():
                continue
            for method in handler.http_methods:
                operation: Operation | None = getattr(path_item, method.lower(), None)
                if operation is None:
                    continue
                statuses = error_statuses(handler, set(route.path_parameters))
                responses: dict[str, Any] = dict(operation.responses or {})
                if 400 not in statuses:
                    responses.pop("400", None)  # Litestar's own validation body, which we never send
                for status in sorted(statuses):
                    responses[str(status)] = OpenAPIResponse(
                        description=DESCRIPTIONS.get(status, "Error"),
                        content={"application/json": OpenAPIMediaType(schema=error_ref)},
                    )
                operation.responses = responses
                data = handler.parsed_fn_signature.parameters.get("data")
                body = operation.request_body
                if isinstance(body, RequestBody) and data is not None and data.has_default:
                    body.required = False  # e.g. logout: the body is optional
                if authenticated(handler):
                    operation.security = [{BEARER: []}]
