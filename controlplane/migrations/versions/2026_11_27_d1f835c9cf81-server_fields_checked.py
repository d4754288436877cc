"""servers' fields checked: no control character left where customers' files and the install steps take them

A server's `dns` and `address` went verbatim into every customer's WireGuard file, so a line break stored there
could add a `PostUp = ...` line that wg-quick runs as root (docs/security.md, "Third round"). The API now checks
them; this looks at the rows written before:

- a value with a control character (line breaks, NUL, U+2028...) is cut at the first one: what came before is what
  the admin meant, what came after is what could have been injected. A value left empty takes a safe stand-in:
  `dns` the default `1.1.1.1`, `address` the reserved `direccion-invalida.invalid` (never resolves: the server's
  customers cannot connect until staff correct it, and the manager shows why), `name` `servidor-<id>`;
- a value that still breaks the new rules (`dns` not IP addresses and search domains, `address` or
  `backbone_endpoint` not a host name or IP) is left as it is (it holds no control character, so it cannot add a
  line) and reported, for staff to correct in the manager, which will not save it again as it is.

Every change and every report is a WARNING of `controlplane.migrations` with the server id and the field. Nothing to
undo: the downgrade leaves the values as they are.

Revision ID: d1f835c9cf81
Revises: 3f6b2a9c1d70
Create Date: 2026-11-27 23:00:00.000000
"""

import ipaddress
import logging
import re
import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d1f835c9cf81"
down_revision: str | None = "3f6b2a9c1d70"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("controlplane.migrations")

# A copy of controlplane/domain/servers/fields.py as it is today: a migration must not change later.
HOST_NAME = re.compile(
    r"(?=.{1,253}\.?\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)
CONTROL = frozenset({"Cc", "Cf", "Zl", "Zp"})
FIELDS = ("name", "ubication", "address", "dns", "backbone_endpoint")
STAND_IN = {"dns": "1.1.1.1", "address": "direccion-invalida.invalid", "ubication": "", "backbone_endpoint": ""}


def _cut(value: str) -> str:
    for index, char in enumerate(value):
        if unicodedata.category(char) in CONTROL:
            return value[:index].strip()
    return value


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return "%" not in value


def _is_host_name(value: str) -> bool:
    return HOST_NAME.fullmatch(value) is not None and not value.rstrip(".").rsplit(".", 1)[-1].isdigit()


def _follows_rules(field: str, value: str) -> bool:
    if field == "dns":
        entries = [entry.strip() for entry in value.split(",")]
        return all(_is_ip(e) or _is_host_name(e) for e in entries) and any(_is_ip(e) for e in entries)
    if field == "address":
        return _is_ip(value) or _is_host_name(value)
    if field == "backbone_endpoint":
        return value == "" or _is_ip(value) or _is_host_name(value)
    return True


def upgrade() -> None:
    servers = sa.table("servers", sa.column("id", sa.String), *(sa.column(field, sa.String) for field in FIELDS))
    bind = op.get_bind()
    rows = bind.execute(sa.select(servers).order_by(servers.c.id)).mappings().all()
    names = {row["name"] for row in rows}
    for row in rows:
        changes: dict[str, str] = {}
        for field in FIELDS:
            value = row[field]
            cut = _cut(value)
            if cut != value:
                if field == "name":
                    cut = cut if cut and cut not in names else f"servidor-{row['id'][:8]}"
                    names.add(cut)
                elif not cut:
                    cut = STAND_IN[field]
                changes[field] = cut
                log.warning(
                    "server %s: its %s held a control character, cut at it: now %r",
                    row["id"],
                    field,
                    cut,
                    extra={"server_id": row["id"], "field": field},
                )
            if not _follows_rules(field, cut):
                log.warning(
                    "server %s: its %s %r is not what the field takes (docs/api.md, servers): correct it in the "
                    "manager",
                    row["id"],
                    field,
                    cut,
                    extra={"server_id": row["id"], "field": field},
                )
        if changes:
            bind.execute(servers.update().where(servers.c.id == row["id"]).values(**changes))


def downgrade() -> None:
    """The cut values stay: the text after a control character is not kept anywhere to put back."""
