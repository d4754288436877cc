"""room names compare by Unicode case folding (and blanks collapsed); the key column fits a folded name

Revision ID: 00ea7638afa6
Revises: 7b9f52cfc886
Create Date: 2026-11-21 08:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "00ea7638afa6"
down_revision: str | None = "7b9f52cfc886"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _key(name: str) -> str:
    # A copy of controlplane.domain.partys.service.name_key as it is today: a migration must not change later.
    return " ".join(name.split()).casefold()


def upgrade() -> None:
    with op.batch_alter_table("partys", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(length=32), type_=sa.String(length=96))
    partys = sa.table(
        "partys", sa.column("id", sa.String), sa.column("name", sa.String), sa.column("name_key", sa.String)
    )
    bind = op.get_bind()
    rows = bind.execute(sa.select(partys.c.id, partys.c.name, partys.c.name_key).order_by(partys.c.id)).all()
    taken = {key for _, _, key in rows}
    for party_id, name, old in rows:
        new = _key(name)
        # Two old rooms that fold to one name (e.g. 'Straße' and 'STRASSE'): the second keeps its old key.
        if new != old and new not in taken:
            bind.execute(partys.update().where(partys.c.id == party_id).values(name_key=new))
            taken.discard(old)
            taken.add(new)


def downgrade() -> None:
    # Nothing to undo: the older code reads and writes a wider column just as well, and narrowing it back could not
    # hold the keys that folding lengthened.
    pass
