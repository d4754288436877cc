"""How query strings are read: strictly, as the OpenAPI document describes them, for every documented route.

Litestar ignores query parameters a handler does not declare and reads values leniently (`1` for `true`, `0.5` for a
date: a Unix timestamp). A caller's typo (`?pagesize=50`) then silently does something else than asked. Here, before
the handler runs, a parameter the operation does not declare, a repeated one, or a value not written as its type is
written (integers as digits, booleans as `true`/`false`, dates as ISO 8601) answers 422 `invalid` with a Spanish
message naming the parameter; ranges and lengths (`page_size` at most 200...) are then checked by Litestar from the
declared constraints, which the document shows too (docs/api.md, "Query strings").

Routes that third parties or other programs call with query strings we do not choose keep the lenient reading:
payment gateways' notifications and returns, and the mirror link (`opt={"loose_query": True}`); so do the routes
outside the document (the web client's files, health checks, metrics).
"""

from __future__ import annotations

import re
import types
import typing
from datetime import date, datetime
from functools import cache
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.handlers import HTTPRouteHandler
from litestar.routes import HTTPRoute

from controlplane.errors import Invalid
from controlplane.field_names import field_name

LOOSE_QUERY = {"loose_query": True}  # opt of a handler whose callers may add query parameters of their own

_INTEGER = re.compile(r"-?[0-9]+")


@cache
def _declared(app: Litestar, handler: HTTPRouteHandler) -> dict[str, type[Any] | None]:
    """The handler's query parameters (by the name callers send) and the type each one's value must have."""
    declared: dict[str, type[Any] | None] = {}
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for mapped, kwargs_model in route.route_handler_map.values():
            if mapped is not handler:
                continue
            for param in kwargs_model.expected_query_params:
                field = handler.parsed_fn_signature.parameters.get(param.field_name)
                declared[param.field_alias] = _value_type(field.annotation) if field is not None else None
    return declared


def _value_type(annotation: Any) -> type[Any] | None:
    """`int` for `int`, `int | None`, `Annotated[int, ...]`; None when the value is text (or anything else)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = kinds[0] if len(kinds) == 1 else None
    return annotation if annotation in (bool, int, datetime, date) else None


def _well_written(value: str, kind: type[Any] | None) -> bool:
    if kind is bool:
        return value in ("true", "false")
    if kind is int:
        return bool(_INTEGER.fullmatch(value))
    if kind in (datetime, date):
        try:
            msgspec.convert(value, kind, strict=True)
        except msgspec.ValidationError:
            return False
    return True


def _refuse(name: str, message: str, field: str) -> Invalid:
    return Invalid(message, fields={name: field})


EXPECTED = {bool: "true o false", int: "un número entero", datetime: "una fecha ISO 8601", date: "una fecha ISO 8601"}


async def strict_query(request: Request[Any, Any, Any]) -> None:
    """`before_request` hook of the app: refuse a query string the operation does not document."""
    handler = request.route_handler
    if not isinstance(handler, HTTPRouteHandler) or handler.opt.get("loose_query"):
        return
    if not handler.resolve_include_in_schema():
        return
    declared = _declared(request.app, handler)
    seen: set[str] = set()
    for name, value in request.query_params.multi_items():
        if name not in declared:
            raise _refuse(name, f"El parámetro '{name}' no está permitido.", "Parámetro no permitido.")
        if name in seen:
            raise _refuse(name, f"El parámetro '{name}' aparece más de una vez.", "Parámetro repetido.")
        seen.add(name)
        kind = declared[name]
        if kind is not None and not _well_written(value, kind):
            text = f"Debe ser {EXPECTED[kind]}."
            raise _refuse(name, f"{field_name(name)}: debe ser {EXPECTED[kind]}.", text)
