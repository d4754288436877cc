"""What every manager page shares: the searchable lists' query parameters, the plain answer of a write, and how
an edit form is read and summed up for the audit log. Each domain's own staff shapes live beside it
(domain/<domain>/staff_schemas.py)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.params import QueryParameter

from controlplane.errors import Invalid
from controlplane.field_names import changes_text as changes_text  # the controllers' one name for it

# Query parameters shared by the searchable lists.
Page = Annotated[int, QueryParameter(ge=1, le=100_000)]
PageSize = Annotated[int, QueryParameter(ge=1, le=200)]
Search = Annotated[str, QueryParameter(max_length=100)]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class Done(msgspec.Struct):
    success: bool
    message: str


def required_text(value: str, field: str, label: str) -> str:
    value = value.strip()
    if not value:
        raise Invalid(f"{label} es obligatorio.", code="required", fields={field: "Campo obligatorio."})
    return value


def changes_of(patch: msgspec.Struct) -> dict[str, Any]:
    """The fields a PATCH body sets (None: left as it is)."""
    return {k: v for k, v in msgspec.structs.asdict(patch).items() if v is not None}
