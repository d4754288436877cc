"""Put the socket's push messages (realtime/messages.py) into the OpenAPI document as the `PushMessage` union.

The socket is not an HTTP route, so Litestar does not see its messages; msgspec writes their JSON schema, and this
adds it under components/schemas, reusing the components the document already has for the same structs (PeerView,
RoomView, ...). The web client's types are generated from the document (`make types`), pushes included.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Litestar
from litestar.openapi.spec import Components, Discriminator, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIType

from controlplane.realtime.messages import PushMessage

UNION = "PushMessage"
REF = "#/components/schemas/{name}"


def _schema(node: dict[str, Any]) -> Schema | Reference:
    """One msgspec JSON-schema node as Litestar's spec object (only the keywords msgspec writes for our structs)."""
    if "$ref" in node:
        return Reference(ref=node["$ref"])
    kind = node.get("type")
    discriminator = node.get("discriminator")
    return Schema(
        type=OpenAPIType(kind) if kind else None,
        title=node.get("title"),
        description=node.get("description"),
        properties={k: _schema(v) for k, v in node["properties"].items()} if "properties" in node else None,
        required=node.get("required"),
        items=_schema(node["items"]) if "items" in node else None,
        any_of=[_schema(n) for n in node["anyOf"]] if "anyOf" in node else None,
        enum=node.get("enum"),
        const=node.get("const"),
        format=node.get("format"),
        default=node.get("default"),
        additional_properties=_schema(node["additionalProperties"])
        if isinstance(node.get("additionalProperties"), dict)
        else None,
        discriminator=Discriminator(property_name=discriminator["propertyName"], mapping=discriminator["mapping"])
        if discriminator
        else None,
    )


def document_push_messages(app: Litestar) -> None:
    openapi = app.openapi_schema
    components = openapi.components or Components()
    openapi.components = components
    existing: dict[str, Any] = dict(components.schemas or {})
    (union,), found = msgspec.json.schema_components([PushMessage], ref_template=REF)
    for name, node in found.items():
        existing.setdefault(name, _schema(node))  # a struct Litestar documented already keeps its component
    existing[UNION] = _schema({**union, "title": UNION, "description": (PushMessage.__doc__ or "").strip() or None})
    components.schemas = existing
