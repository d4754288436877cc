"""Decoding errors from msgspec become Spanish messages naming the field."""

from __future__ import annotations

import pytest

from controlplane.errors import _spanish_validation


@pytest.mark.parametrize(
    ("detail", "message", "fields"),
    [
        (
            "Object missing required field `username`",
            "Falta el campo obligatorio 'username'.",
            {"username": "Campo obligatorio."},
        ),
        ("Object contains unknown field `x`", "El campo 'x' no está permitido.", {"x": "Campo no permitido."}),
        (
            "Expected `str` of length <= 64 - at `$.alias`",
            "Valor inválido en 'alias': El valor es demasiado largo.",
            {"alias": "El valor es demasiado largo."},
        ),
        (
            "Expected `int` <= 65535 - at `$.port`",
            "Valor inválido en 'port': El valor está fuera del rango permitido.",
            {"port": "El valor está fuera del rango permitido."},
        ),
        (
            "Expected `str`, got `int` - at `$.alias`",
            "Valor inválido en 'alias': El tipo del valor no es válido.",
            {"alias": "El tipo del valor no es válido."},
        ),
    ],
)
def test_decode_errors_are_translated(detail: str, message: str, fields: dict[str, str]) -> None:
    assert _spanish_validation(detail) == (message, fields)
