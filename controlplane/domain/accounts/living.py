"""The check that an account still exists before anything is made for it (a purchase, a peer), done so that a
deletion committing at the same moment cannot slip between the check and the write (docs/security.md, "Deleting an
account").

The account's row is read `FOR UPDATE`, as the deletion reads it: on PostgreSQL whichever of the two comes second
waits for the first to commit and then sees what it did (a purchase after a deletion is refused; a purchase that
came first is an invoice from before the deletion, kept like any other). SQLite ignores `FOR UPDATE`, but there
every writing transaction begins `IMMEDIATE` (controlplane/db.py) and so runs after the other has committed.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts.models import User
from controlplane.errors import Conflict


class AccountDeleted(Conflict):
    code = "account_deleted"
    message = "La cuenta fue eliminada."


async def lock_living_account(db: AsyncSession, user_id: str) -> User:
    """The account's row, locked until `db`'s transaction ends; 409 `account_deleted` once it was deleted (or is
    gone). `populate_existing`: a copy read earlier in the same session must not hide a deletion committed since."""
    query = select(User).where(User.id == user_id).with_for_update().execution_options(populate_existing=True)
    user = (await db.execute(query)).scalar_one_or_none()
    if user is None or user.deleted_at is not None:
        raise AccountDeleted()
    return user
