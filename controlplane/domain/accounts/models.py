"""Accounts, login sessions (refresh-token families) and single-use links."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import Boolean, Enum, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from controlplane.db import Base, UTCDateTime, new_id, utcnow


def enum_values(enum_type: type[enum.Enum]) -> list[str]:
    """Store enum values ("customer"), not member names, so the database reads like the API."""
    return [str(member.value) for member in enum_type]


class Role(enum.StrEnum):
    CUSTOMER = "customer"
    SUPPORT = "support"
    ADMIN = "admin"

    @property
    def is_staff(self) -> bool:
        return self is not Role.CUSTOMER


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    username: Mapped[str] = mapped_column(String(32))
    # Lower-cased copy carrying the unique constraint: usernames are unique without regard to case.
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[Role] = mapped_column(
        Enum(Role, native_enum=False, length=16, values_callable=enum_values), default=Role.CUSTOMER
    )
    email: Mapped[str | None] = mapped_column(String(254), default=None)
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    alias: Mapped[str | None] = mapped_column(String(32), default=None)
    alias_key: Mapped[str | None] = mapped_column(String(32), unique=True, default=None)
    blocked: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_login: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # Set when the account was deleted: the row stays (invoices and the audit log point at it) with its personal data
    # gone (domain/accounts/deletion.py, docs/security.md "Deleting an account").
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class LoginSession(Base):
    """One login: the family of refresh tokens that rotate from it. Revoking it ends every token of the family."""

    __tablename__ = "login_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    audience: Mapped[str] = mapped_column(String(8))
    remember: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    revoked_reason: Mapped[str | None] = mapped_column(String(32), default=None)
    # Where and on what it was last used (the owner's list of sessions): the address and user agent of the login,
    # then of each token refresh. Emptied when the account is deleted.
    ip_address: Mapped[str | None] = mapped_column(String(64), default=None)
    user_agent: Mapped[str | None] = mapped_column(String(255), default=None)
    last_used: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)

    user: Mapped[User] = relationship(lazy="joined")


class RefreshToken(Base):
    __tablename__ = "refresh_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("login_sessions.id", ondelete="CASCADE"), index=True)
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class LinkPurpose(enum.StrEnum):
    PASSWORD_RESET = "password_reset"  # noqa: S105 - a purpose name, not a password
    VERIFY_EMAIL = "verify_email"


class OneTimeLink(Base):
    """A single-use, expiring secret sent by email (password reset, email verification)."""

    __tablename__ = "one_time_links"
    __table_args__ = (Index("ix_one_time_links_user_purpose", "user_id", "purpose"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    purpose: Mapped[LinkPurpose] = mapped_column(
        Enum(LinkPurpose, native_enum=False, length=16, values_callable=enum_values)
    )
    email: Mapped[str | None] = mapped_column(String(254), default=None)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
