"""peer operation state: the running operation's kind and start, and the last outcome the owner was told, kept on
the peer so that the customer's view (a poll, a reload) tells what the push told (docs/api.md, "Peer operations")

Revision ID: 5e7a9c3b2d14
Revises: 8c4e2f7a1b95
Create Date: 2026-11-28 02:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "5e7a9c3b2d14"
down_revision: str | None = "8c4e2f7a1b95"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pending_kind", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("pending_since", controlplane.db.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("outcome_kind", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("outcome_ok", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("outcome_message", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("outcome_at", controlplane.db.UTCDateTime(timezone=True), nullable=True))
    # A peer busy at the upgrade keeps its flag; its kind is read from its operation.
    op.execute(
        "UPDATE peers SET pending_kind = (SELECT kind FROM node_operations WHERE node_operations.id ="
        " peers.pending_operation_id), pending_since = (SELECT created FROM node_operations WHERE"
        " node_operations.id = peers.pending_operation_id) WHERE pending_operation_id IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.drop_column("outcome_at")
        batch_op.drop_column("outcome_message")
        batch_op.drop_column("outcome_ok")
        batch_op.drop_column("outcome_kind")
        batch_op.drop_column("pending_since")
        batch_op.drop_column("pending_kind")
