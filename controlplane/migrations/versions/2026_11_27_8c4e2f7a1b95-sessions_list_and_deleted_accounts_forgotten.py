"""sessions list and deleted accounts forgotten: login sessions keep the device (user agent) and when they were last
used, for the owner's list of sessions; deleted accounts lose the login addresses and refresh tokens they kept

Revision ID: 8c4e2f7a1b95
Revises: d1f835c9cf81
Create Date: 2026-11-27 23:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "8c4e2f7a1b95"
down_revision: str | None = "d1f835c9cf81"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DELETED_ACCOUNTS_SESSIONS = (
    "SELECT login_sessions.id FROM login_sessions JOIN users ON users.id = login_sessions.user_id "
    "WHERE users.deleted_at IS NOT NULL"
)


def upgrade() -> None:
    with op.batch_alter_table("login_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("user_agent", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("last_used", controlplane.db.UTCDateTime(timezone=True), nullable=True))
    # Accounts deleted before this revision kept where they had logged in from (docs/security.md, "Deleting an
    # account"): the same erasure the deletion now does.
    op.execute(f"DELETE FROM refresh_tokens WHERE session_id IN ({DELETED_ACCOUNTS_SESSIONS})")  # noqa: S608
    op.execute(f"UPDATE login_sessions SET ip_address = NULL WHERE id IN ({DELETED_ACCOUNTS_SESSIONS})")  # noqa: S608


def downgrade() -> None:
    with op.batch_alter_table("login_sessions", schema=None) as batch_op:
        batch_op.drop_column("last_used")
        batch_op.drop_column("user_agent")
