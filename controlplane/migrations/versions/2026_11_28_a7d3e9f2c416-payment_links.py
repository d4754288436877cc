"""payment links: a customer's shareable link to pay a plan for one of their peers without logging in, and the
invoices payers opened through each (docs/payments.md, "Payment links")

Revision ID: a7d3e9f2c416
Revises: b7d3e1f0a6c2
Create Date: 2026-11-28 06:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "a7d3e9f2c416"
down_revision: str | None = "b7d3e1f0a6c2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "payment_links",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("plan_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("token_enc", sa.Text(), nullable=False),
        sa.Column("created", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_payment_links_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["plan_id"], ["plans.id"], name=op.f("fk_payment_links_plan_id_plans"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_payment_links_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payment_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_payment_links_token_hash")),
    )
    op.create_index(op.f("ix_payment_links_user_id"), "payment_links", ["user_id"], unique=False)
    op.create_index(op.f("ix_payment_links_peer_id"), "payment_links", ["peer_id"], unique=False)
    op.create_table(
        "payment_link_invoices",
        sa.Column("invoice_id", sa.String(length=32), nullable=False),
        sa.Column("link_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["invoice_id"],
            ["invoices.id"],
            name=op.f("fk_payment_link_invoices_invoice_id_invoices"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["link_id"],
            ["payment_links.id"],
            name=op.f("fk_payment_link_invoices_link_id_payment_links"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("invoice_id", name=op.f("pk_payment_link_invoices")),
    )
    op.create_index(op.f("ix_payment_link_invoices_link_id"), "payment_link_invoices", ["link_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_payment_link_invoices_link_id"), table_name="payment_link_invoices")
    op.drop_table("payment_link_invoices")
    op.drop_index(op.f("ix_payment_links_peer_id"), table_name="payment_links")
    op.drop_index(op.f("ix_payment_links_user_id"), table_name="payment_links")
    op.drop_table("payment_links")
