"""rooms keep one name: the tables and columns called "party" take the code's name, "room"

The wire keeps the contract's "partys" (docs/glossary.md); the database is inside the house and follows the code.

Revision ID: 3f6b2a9c1d70
Revises: 6a2d4e8f1c37
Create Date: 2026-11-26 01:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "3f6b2a9c1d70"
down_revision: str | None = "6a2d4e8f1c37"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = [("partys", "rooms"), ("party_members", "room_members")]
COLUMNS = [("room_members", "party_id", "room_id"), ("node_operations", "party_id", "room_id")]
# Constraints by their names under controlplane/db.py's naming convention: (table after the rename, old, new).
CONSTRAINTS = [
    ("rooms", "pk_partys", "pk_rooms"),
    ("rooms", "uq_partys_name_key", "uq_rooms_name_key"),
    ("rooms", "fk_partys_owner_id_users", "fk_rooms_owner_id_users"),
    ("room_members", "pk_party_members", "pk_room_members"),
    ("room_members", "fk_party_members_party_id_partys", "fk_room_members_room_id_rooms"),
    ("room_members", "fk_party_members_peer_id_peers", "fk_room_members_peer_id_peers"),
]
# (table after the rename, column after the rename, old index, new index)
INDEXES = [
    ("rooms", "owner_id", "ix_partys_owner_id", "ix_rooms_owner_id"),
    ("room_members", "room_id", "ix_party_members_party_id", "ix_room_members_room_id"),
    ("node_operations", "room_id", "ix_node_operations_party_id", "ix_node_operations_room_id"),
]


def _rename_names(*, forward: bool) -> None:
    """Constraint and index names follow the tables. SQLite cannot rename either: its indexes are made anew, and
    the constraint names written inside its table definitions stay as they were (nothing reads them by name)."""
    if op.get_bind().dialect.name == "postgresql":
        for table, old, new in CONSTRAINTS:
            before, after = (old, new) if forward else (new, old)
            op.execute(f"ALTER TABLE {table} RENAME CONSTRAINT {before} TO {after}")
        for _table, _column, old, new in INDEXES:
            before, after = (old, new) if forward else (new, old)
            op.execute(f"ALTER INDEX {before} RENAME TO {after}")
        return
    for table, column, old, new in INDEXES:
        before, after = (old, new) if forward else (new, old)
        op.drop_index(before, table_name=table)
        op.create_index(after, table, [column])


def upgrade() -> None:
    for old, new in TABLES:
        op.rename_table(old, new)
    for table, old, new in COLUMNS:
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
    _rename_names(forward=True)


def downgrade() -> None:
    _rename_names(forward=False)
    for table, old, new in COLUMNS:
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {new} TO {old}")
    for old, new in TABLES:
        op.rename_table(new, old)
