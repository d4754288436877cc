"""room members' presence: the latest handshake their server reported, and whether it counted as online

Revision ID: b7e3c1f0a9d2
Revises: 5d1c0a7e4b21
Create Date: 2026-11-25 02:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b7e3c1f0a9d2"
down_revision: str | None = "5d1c0a7e4b21"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("party_members", schema=None) as batch_op:
        batch_op.add_column(sa.Column("handshake_at", sa.BigInteger(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("online", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("party_members", schema=None) as batch_op:
        batch_op.drop_column("online")
        batch_op.drop_column("handshake_at")
