"""guest passes: plans marked as guest passes, and the passes room owners buy for friends (docs/payments.md,
"Guest passes")

Revision ID: c5f1a8d27e90
Revises: e4b81c07d9a5
Create Date: 2026-11-28 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "c5f1a8d27e90"
down_revision: str | None = "e4b81c07d9a5"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("plans") as batch:
        batch.add_column(sa.Column("guest_pass", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "guest_passes",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("buyer_id", sa.String(length=32), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=True),
        sa.Column("room_name", sa.String(length=32), nullable=False),
        sa.Column("invoice_id", sa.String(length=32), nullable=False),
        sa.Column("plan_name", sa.String(length=64), nullable=False),
        sa.Column("hours", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("token_enc", sa.Text(), nullable=False),
        sa.Column("created", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("paid_at", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("claim_by", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("claimed_at", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("guest_id", sa.String(length=32), nullable=True),
        sa.Column("guest_alias", sa.String(length=64), nullable=True),
        sa.Column("peer_id", sa.String(length=32), nullable=True),
        sa.Column("ends_at", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["buyer_id"], ["users.id"], name=op.f("fk_guest_passes_buyer_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_guest_passes_room_id_rooms"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["invoice_id"], ["invoices.id"], name=op.f("fk_guest_passes_invoice_id_invoices"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["guest_id"], ["users.id"], name=op.f("fk_guest_passes_guest_id_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_guest_passes_peer_id_peers"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_guest_passes")),
        sa.UniqueConstraint("invoice_id", name=op.f("uq_guest_passes_invoice_id")),
        sa.UniqueConstraint("peer_id", name=op.f("uq_guest_passes_peer_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_guest_passes_token_hash")),
    )
    op.create_index(op.f("ix_guest_passes_buyer_id"), "guest_passes", ["buyer_id"], unique=False)
    op.create_index(op.f("ix_guest_passes_room_id"), "guest_passes", ["room_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_guest_passes_room_id"), table_name="guest_passes")
    op.drop_index(op.f("ix_guest_passes_buyer_id"), table_name="guest_passes")
    op.drop_table("guest_passes")
    with op.batch_alter_table("plans") as batch:
        batch.drop_column("guest_pass")
