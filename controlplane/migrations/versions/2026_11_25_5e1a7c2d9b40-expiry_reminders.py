"""expiry reminders: one row per reminder email (72 h, 24 h) per peer expiration date, the claim that sends it once

Revision ID: 5e1a7c2d9b40
Revises: 00ea7638afa6
Create Date: 2026-11-25 01:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "5e1a7c2d9b40"
down_revision: str | None = "00ea7638afa6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "expiry_reminders",
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("expiration_date", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("sent_at", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_expiry_reminders_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("peer_id", "kind", "expiration_date", name=op.f("pk_expiry_reminders")),
    )


def downgrade() -> None:
    op.drop_table("expiry_reminders")
