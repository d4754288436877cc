"""room members' round trips: the latest median ICMP echo time from the member's server to its device, when and by
which server it was measured (docs/rooms.md, "What is measured, and the limits")

Revision ID: 9d2e6b4a1f73
Revises: c5f1a8d27e90
Create Date: 2026-11-28 09:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9d2e6b4a1f73"
down_revision: str | None = "c5f1a8d27e90"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("room_members") as batch:
        batch.add_column(sa.Column("rtt_us", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rtt_at", sa.Float(), server_default="0", nullable=False))
        batch.add_column(sa.Column("rtt_server", sa.String(length=32), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("room_members") as batch:
        batch.drop_column("rtt_server")
        batch.drop_column("rtt_at")
        batch.drop_column("rtt_us")
