"""Domain exceptions raised by services, and their one mapping to HTTP answers."""

from __future__ import annotations

import logging
import re
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from sqlalchemy import exc as sa_exc

from controlplane.field_names import field_name
from controlplane.observability.logs import bounded_path

log = logging.getLogger(__name__)


class DomainError(Exception):
    """An error a person can act on: a Spanish message, a stable code and an HTTP status."""

    status_code = 400
    code = "bad_request"
    message = "Solicitud inválida."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        fields: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.message = message or self.message
        self.code = code or self.code
        self.fields = fields
        self.headers = headers
        self.extra = extra or {}
        super().__init__(self.message)


class Invalid(DomainError):
    status_code = 422
    code = "invalid"
    message = "Datos inválidos."


class BadRequest(DomainError):
    status_code = 400
    code = "bad_request"


class Unauthorized(DomainError):
    status_code = 401
    code = "unauthorized"
    message = "Sesión inválida o expirada. Inicie sesión de nuevo."


class Forbidden(DomainError):
    status_code = 403
    code = "forbidden"
    message = "No tiene permiso para realizar esta acción."


class NotFound(DomainError):
    status_code = 404
    code = "not_found"
    message = "No encontrado."


class Conflict(DomainError):
    status_code = 409
    code = "conflict"
    message = "La operación entra en conflicto con el estado actual."


class TooManyRequests(DomainError):
    status_code = 429
    code = "too_many_requests"
    message = "Demasiados intentos. Intente de nuevo en unos minutos."

    def __init__(self, retry_after: int, message: str | None = None) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after))})


class Maintenance(DomainError):
    status_code = 503
    code = "maintenance"
    message = "El servicio está en mantenimiento. Intente más tarde."


class Unavailable(DomainError):
    status_code = 503
    code = "unavailable"
    message = "El servicio no está disponible en este momento. Intente más tarde."


def error_body(message: str, code: str, fields: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message, "code": code, **extra}
    if fields:
        body["fields"] = fields
    return body


def _json(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response[Any]:
    return Response(content=body, status_code=status, media_type=MediaType.JSON, headers=headers)


def domain_error_handler(_: Request[Any, Any, Any], exc: DomainError) -> Response[Any]:
    return _json(exc.status_code, error_body(exc.message, exc.code, exc.fields, **exc.extra), exc.headers)


_FIELD = re.compile(r"at `\$\.([A-Za-z0-9_.\[\]]+)`")
# A body that is a tagged union on `operation` (the peer and room operations) names an operation none of its
# variants has: answered as the handlers' own refusal was before the union (docs/api.md).
_UNKNOWN_OPERATION = re.compile(r"^Invalid value .* - at `\$\.operation`$")
_MISSING = re.compile(r"missing required field `([^`]+)`")
_UNKNOWN = re.compile(r"unknown field `([^`]+)`")
_LENGTH = re.compile(r"of length (<=|>=) (\d+)")
_RANGE = re.compile(r"Expected `\w+` (<=|>=|<|>) (-?[\d.]+)")
_TYPE = re.compile(r"Expected `(\w+)(?: \| null)?`(?:,| -|$)")  # an optional field is "`bool | null`"
_RANGE_WORDS = {"<=": "como máximo", ">=": "como mínimo", "<": "menor que", ">": "mayor que"}
_TYPE_WORDS = {
    "int": "Debe ser un número entero.",
    "float": "Debe ser un número.",
    "str": "Debe ser un texto.",
    "bool": "Debe ser verdadero o falso.",
    "array": "Debe ser una lista.",
    "object": "Debe ser un objeto.",
}


def _problem(detail: str) -> str:
    """What is wrong with a value, in a sentence that fits under its input."""
    if m := _LENGTH.search(detail):
        limit = int(m.group(2))
        if m.group(1) == "<=":
            return f"Es demasiado largo (máximo {limit} caracteres)."
        return "No puede estar vacío." if limit == 1 else f"Es demasiado corto (mínimo {limit} caracteres)."
    if m := _RANGE.search(detail):
        return f"Debe ser {_RANGE_WORDS[m.group(1)]} {m.group(2)}."
    if "matching regex" in detail:
        return "El formato no es válido."
    if m := _TYPE.search(detail):
        return _TYPE_WORDS.get(m.group(1), "El tipo del valor no es válido.")
    return "El valor no es válido."


def _spanish_validation(detail: str) -> tuple[str, dict[str, str]]:
    """Translate msgspec's decode errors into a Spanish message naming the field as people know it ("Puerto: debe
    ser como máximo 65535."), plus `fields` so a form shows the text under the input."""
    if m := _MISSING.search(detail):
        field = m.group(1)
        return f"{field_name(field)}: campo obligatorio.", {field: "Campo obligatorio."}
    if m := _UNKNOWN.search(detail):
        field = m.group(1)
        return f"El campo '{field}' no está permitido.", {field: "Campo no permitido."}
    if "JSON" in detail or "malformed" in detail.lower() or "truncated" in detail.lower():
        return "El cuerpo de la solicitud no es JSON válido.", {}
    field_match = _FIELD.search(detail)
    text = _problem(detail)
    if field_match:
        field = field_match.group(1)
        return f"{field_name(field)}: {text[0].lower()}{text[1:]}", {field: text}
    return f"Datos inválidos: {text[0].lower()}{text[1:]}", {}


def validation_handler(_: Request[Any, Any, Any], exc: ValidationException) -> Response[Any]:
    """The first decoding error, in Spanish, naming its field (Litestar puts the field in `key`)."""
    items = [i for i in exc.extra if isinstance(i, dict)] if isinstance(exc.extra, list) else []
    detail = str(exc.detail)
    if items:
        detail = str(items[0].get("message", ""))
        if items[0].get("key") and "`$." not in detail:
            detail += f" - at `$.{items[0]['key']}`"
    if _UNKNOWN_OPERATION.match(detail):
        return _json(422, error_body("Operación desconocida.", "unknown_operation", {"operation": "Desconocida."}))
    message, fields = _spanish_validation(detail)
    return _json(422, error_body(message, "invalid", fields))


_HTTP_MESSAGES = {
    400: ("bad_request", "Solicitud inválida."),
    401: ("unauthorized", "Sesión inválida o expirada. Inicie sesión de nuevo."),
    403: ("forbidden", "No tiene permiso para realizar esta acción."),
    404: ("not_found", "No encontrado."),
    405: ("method_not_allowed", "Método no permitido."),
    413: ("payload_too_large", "La solicitud es demasiado grande."),
    415: ("unsupported_media_type", "Tipo de contenido no soportado."),
    429: ("too_many_requests", "Demasiados intentos. Intente de nuevo en unos minutos."),
}


_UNDECODABLE = ("json", "malformed", "truncated", "utf-8", "decode")


def http_error_handler(_: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    # Litestar turns a body it cannot decode into a bare 400; for the client that is invalid input like any other.
    if exc.status_code == 400 and any(word in str(exc.detail).lower() for word in _UNDECODABLE):
        return _json(422, error_body("El cuerpo de la solicitud no es JSON válido.", "invalid_json"))
    code, message = _HTTP_MESSAGES.get(exc.status_code, ("error", "Hubo un error al realizar la solicitud"))
    return _json(exc.status_code, error_body(message, code), getattr(exc, "headers", None))


# The database (or its network) went away: the request could not be served, nothing was half-written (the
# transaction never committed). Tell the person to retry, not that we broke.
UNREACHABLE: tuple[type[BaseException], ...] = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
    ConnectionError,
    TimeoutError,
)


def unreachable_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    # The driver's own first line ("database is locked", "connection refused"...) tells an operator which; never
    # str(exc), which quotes the statement and its parameters.
    orig = getattr(exc, "orig", None)
    reason = f"{type(exc).__name__} ({str(orig).splitlines()[0][:120]})" if orig is not None and str(orig) else ""
    log.warning(
        "database unreachable on %s %s: %s",
        request.method,
        bounded_path(request.url.path),
        reason or type(exc).__name__,
    )
    return _json(503, error_body(Unavailable.message, Unavailable.code), {"Retry-After": "5"})


_REFUSED_VALUE = ("CharacterNotInRepertoire", "UntranslatableCharacter", "NumericValueOutOfRange")


def unstorable_input_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The database refused a value the request carried (PostgreSQL: a NUL character, an out-of-range number)."""
    if not isinstance(exc, sa_exc.DataError) and not any(name in str(exc) for name in _REFUSED_VALUE):
        return internal_error_handler(request, exc)
    log.info("database refused input on %s %s: %s", request.method, bounded_path(request.url.path), type(exc).__name__)
    return _json(422, error_body("Datos inválidos: el valor contiene caracteres no permitidos.", "invalid"))


def internal_error_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, bounded_path(request.url.path), exc_info=exc)
    return _json(
        HTTP_500_INTERNAL_SERVER_ERROR,
        error_body("Hubo un error al realizar la operación.", "internal_error"),
    )


EXCEPTION_HANDLERS: dict[Any, Any] = {
    DomainError: domain_error_handler,
    ValidationException: validation_handler,
    NotFoundException: http_error_handler,
    MethodNotAllowedException: http_error_handler,
    HTTPException: http_error_handler,
    **dict.fromkeys(UNREACHABLE, unreachable_handler),
    sa_exc.DBAPIError: unstorable_input_handler,
    Exception: internal_error_handler,
}
