"""Decoding errors from msgspec become Spanish messages naming the field as the forms do, and a text for under it."""

from __future__ import annotations

import pytest

from controlplane.errors import _spanish_validation


@pytest.mark.parametrize(
    ("detail", "message", "fields"),
    [
        ("Object missing required field `username`", "Usuario: campo obligatorio.", {"username": "Campo obligatorio."}),
        ("Object contains unknown field `x`", "El campo 'x' no está permitido.", {"x": "Campo no permitido."}),
        (
            "Expected `str` of length <= 64 - at `$.alias`",
            "Alias: es demasiado largo (máximo 64 caracteres).",
            {"alias": "Es demasiado largo (máximo 64 caracteres)."},
        ),
        (
            "Expected `str` of length >= 1 - at `$.name`",
            "Nombre: no puede estar vacío.",
            {"name": "No puede estar vacío."},
        ),
        (
            "Expected `int` <= 65535 - at `$.port`",
            "Puerto: debe ser como máximo 65535.",
            {"port": "Debe ser como máximo 65535."},
        ),
        (
            "Expected `int` >= 1 - at `$.validity_hours`",
            "Validez (horas): debe ser como mínimo 1.",
            {"validity_hours": "Debe ser como mínimo 1."},
        ),
        ("Expected `str`, got `int` - at `$.alias`", "Alias: debe ser un texto.", {"alias": "Debe ser un texto."}),
        (
            "Expected `str` matching regex '^[a-z]+$' - at `$.interface_name`",
            "Interfaz: el formato no es válido.",
            {"interface_name": "El formato no es válido."},
        ),
        # A field the table does not name keeps its API name rather than a guess.
        (
            "Expected `bool`, got `int` - at `$.turbo`",
            "turbo: debe ser verdadero o falso.",
            {"turbo": "Debe ser verdadero o falso."},
        ),
    ],
)
def test_decode_errors_are_translated(detail: str, message: str, fields: dict[str, str]) -> None:
    assert _spanish_validation(detail) == (message, fields)


def test_no_message_keeps_the_old_code_like_form() -> None:
    """The manager once read "Valor inválido en 'name'"; no decode error may say that again."""
    message, _ = _spanish_validation("Expected `str` of length <= 64 - at `$.name`")
    assert "Valor inválido" not in message and "'name'" not in message
