"""How request bodies are read: hostile JSON is invalid input, and bodies follow the documented types strictly.

Litestar decodes JSON bodies leniently (msgspec `strict=False`): `0` passes for `false` and `"5"` for `5`, so a
client could switch a gateway off with `0`. Its decoder also lets a 10 000-deep document or bytes that are not UTF-8
escape as `RecursionError` / `UnicodeDecodeError` (a 500). Here the body is first decoded strictly into the
handler's own body type; what fails is 422 like any other invalid input (docs/security.md, "hostile input").
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import SerializationException, ValidationException
from litestar.handlers import HTTPRouteHandler

NOT_JSON = "malformed JSON"  # errors.http_error_handler answers invalid_json for it


@cache
def _body_decoders(handler: HTTPRouteHandler) -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]] | None:
    """(strict, lenient) decoders of the handler's body type."""
    body = handler.parsed_fn_signature.parameters.get("data")
    if body is None:
        return None
    try:
        return msgspec.json.Decoder(body.annotation, strict=True), msgspec.json.Decoder(body.annotation, strict=False)
    except (TypeError, ValueError):  # a type msgspec cannot decode on its own: Litestar's checks stay
        return None


class StrictJSONRequest(Request[Any, Any, Any]):
    async def json(self) -> Any:
        body = await self.body()
        try:
            decoders = _body_decoders(self.route_handler) if body else None
            if decoders is not None:
                self._refuse_lenient_values(body, *decoders)
            return await super().json()
        except (msgspec.DecodeError, RecursionError, UnicodeDecodeError) as exc:
            raise SerializationException(f"{NOT_JSON}: {type(exc).__name__}") from exc

    @staticmethod
    def _refuse_lenient_values(
        body: bytes, strict: msgspec.json.Decoder[Any], lenient: msgspec.json.Decoder[Any]
    ) -> None:
        """Refuse what only the lenient reading accepts (`0` for `false`). A body wrong either way (a missing field)
        is left to Litestar, which reports it after authentication as before: a caller without a session still
        hears 401 first."""
        try:
            strict.decode(body)
        except msgspec.ValidationError as exc:
            try:
                lenient.decode(body)
            except msgspec.ValidationError:
                return
            raise ValidationException(detail=str(exc)) from exc
