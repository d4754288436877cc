"""Access tokens (short-lived JWT) and login sessions with rotating refresh tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import jwt
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox, random_token
from controlplane.db import utcnow
from controlplane.domain.accounts.models import LoginSession, RefreshToken, Role, User
from controlplane.errors import Forbidden, Unauthorized
from controlplane.realtime.invalidation import CacheInvalidation
from controlplane.settings import Settings

CLIENT = "client"
ADMIN = "admin"
# Validated access tokens are kept this long per process. Ending a session (logout, reuse, password reset) or
# blocking the account drops them on every process before that request answers (CacheInvalidation), so the
# lifetime only bounds what an unannounced change (a row edited by hand) leaves working.
SESSION_CACHE = "sessions"
SESSION_CACHE_SECONDS = 10.0


def session_tags(session_id: str | None = None, user_id: str | None = None) -> list[str]:
    """Tags of the sessions cache: a session, or every session of a user."""
    return [f"session:{session_id}"] if session_id else [f"user:{user_id}"]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: resolved from the access token on every authenticated request."""

    user_id: str
    username: str
    role: Role
    session_id: str


@dataclass(frozen=True, slots=True)
class _Checked:
    """An access token whose signature, session and account were checked (the sessions cache holds these)."""

    principal: Principal
    audience: str


class SessionService:
    def __init__(self, settings: Settings, box: SecretBox, invalidation: CacheInvalidation) -> None:
        self._settings = settings
        self._box = box
        self._invalidation = invalidation
        self._checked = invalidation.cache(SESSION_CACHE, SESSION_CACHE_SECONDS)

    def _access_token(self, session: LoginSession, user: User, now: datetime) -> str:
        claims = {
            "sub": user.id,
            "sid": session.id,
            "aud": session.audience,
            "iat": int(now.timestamp()),
            "exp": int((now + timedelta(minutes=self._settings.access_token_minutes)).timestamp()),
        }
        return jwt.encode(claims, self._box.signing_key, algorithm="HS256")

    async def _new_refresh_token(self, db: AsyncSession, session: LoginSession) -> str:
        token = f"{session.id}.{random_token()}"
        db.add(RefreshToken(token_hash=self._box.lookup_hash(token), session_id=session.id))
        await db.flush()
        return token

    async def start(
        self, db: AsyncSession, user: User, audience: str, remember: bool, ip: str | None
    ) -> tuple[str, str]:
        now = utcnow()
        days = self._settings.refresh_token_days_remember if remember else self._settings.refresh_token_days_session
        session = LoginSession(
            user_id=user.id,
            audience=audience,
            remember=remember,
            expires_at=now + timedelta(days=days),
            ip_address=ip,
        )
        db.add(session)
        user.last_login = now
        await db.flush()
        return self._access_token(session, user, now), await self._new_refresh_token(db, session)

    async def refresh(self, db: AsyncSession, token: str) -> tuple[str, str]:
        """Rotate: the presented token is spent; presenting a spent token again revokes the whole family."""
        now = utcnow()
        token_hash = self._box.lookup_hash(token)
        spent = await db.execute(
            update(RefreshToken)
            .where(RefreshToken.token_hash == token_hash, RefreshToken.used_at.is_(None))
            .values(used_at=now)
            .returning(RefreshToken.session_id)
        )
        session_id = spent.scalar_one_or_none()
        if session_id is None:
            known = await db.get(RefreshToken, token_hash)
            if known is not None:
                # The revocation must outlive the error answer, so commit it here rather than at the boundary.
                await self._revoke(db, known.session_id, "refresh_reused")
                await db.commit()
                await self._invalidation.announce(db.info)
                raise Unauthorized(
                    "La sesión fue revocada por seguridad. Inicie sesión de nuevo.", code="refresh_reused"
                )
            raise Unauthorized(code="invalid_refresh")
        session = await db.get(LoginSession, session_id)
        if session is None or session.revoked_at is not None or session.expires_at <= now:
            raise Unauthorized(code="session_ended")
        if session.user.blocked:
            raise Forbidden("Su cuenta está bloqueada.", code="account_blocked")
        return self._access_token(session, session.user, now), await self._new_refresh_token(db, session)

    async def end(self, db: AsyncSession, token: str | None, session_id: str | None = None) -> None:
        if token:
            known = await db.get(RefreshToken, self._box.lookup_hash(token))
            if known is not None:
                session_id = known.session_id
        if session_id:
            await self._revoke(db, session_id, "logout")

    async def end_all(self, db: AsyncSession, user_id: str, reason: str) -> None:
        self.forget(db, user_id=user_id)
        await db.execute(
            update(LoginSession)
            .where(LoginSession.user_id == user_id, LoginSession.revoked_at.is_(None))
            .values(revoked_at=utcnow(), revoked_reason=reason)
        )

    def forget(self, db: AsyncSession, session_id: str | None = None, user_id: str | None = None) -> None:
        """Checked tokens of a session (or of every session of a user) stop being trusted once `db` commits."""
        self._invalidation.stale(db, SESSION_CACHE, session_tags(session_id, user_id))

    async def _revoke(self, db: AsyncSession, session_id: str, reason: str) -> None:
        self.forget(db, session_id=session_id)
        await db.execute(
            update(LoginSession)
            .where(LoginSession.id == session_id, LoginSession.revoked_at.is_(None))
            .values(revoked_at=utcnow(), revoked_reason=reason)
        )

    async def resolve(self, db: AsyncSession, token: str, audience: str | None) -> Principal:
        """Check signature, expiry, audience (None = either area), the session and the account; 401/403 otherwise.

        A token that passed is remembered (SESSION_CACHE_SECONDS at most, never past its expiry or its session's):
        most requests then need neither the signature check nor the database."""
        checked: _Checked | None = self._checked.get(token)
        if checked is None:
            checked = await self._check(db, token)
        if audience is not None and checked.audience != audience:
            if audience == ADMIN:
                raise Forbidden("Esta sección es solo para el personal.", code="staff_only")
            raise Forbidden("Esta cuenta es de personal; use el panel de administración.", code="customer_only")
        return checked.principal

    async def _check(self, db: AsyncSession, token: str) -> _Checked:
        try:
            claims = jwt.decode(
                token,
                self._box.signing_key,
                algorithms=["HS256"],
                audience=[CLIENT, ADMIN],
                options={"require": ["exp", "sub", "sid", "aud"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise Unauthorized("La sesión expiró. Inicie sesión de nuevo.", code="token_expired") from exc
        except jwt.PyJWTError as exc:
            raise Unauthorized(code="invalid_token") from exc
        generation = self._invalidation.generation(db, self._checked)
        row = (
            await db.execute(
                select(LoginSession.revoked_at, LoginSession.expires_at, User.username, User.role, User.blocked)
                .join(User, User.id == LoginSession.user_id)
                .where(LoginSession.id == claims["sid"], LoginSession.user_id == claims["sub"])
            )
        ).one_or_none()
        if row is None or row.revoked_at is not None or row.expires_at <= utcnow():
            raise Unauthorized(code="session_ended")
        if row.blocked:
            raise Forbidden("Su cuenta está bloqueada.", code="account_blocked")
        principal = Principal(user_id=claims["sub"], username=row.username, role=row.role, session_id=claims["sid"])
        checked = _Checked(principal, claims["aud"])
        # Trusted until the token or its session expires, whichever comes first.
        until = min(float(claims["exp"]), row.expires_at.timestamp())
        tags = [*session_tags(session_id=principal.session_id), *session_tags(user_id=principal.user_id)]
        self._checked.put(token, checked, tags, generation, until)
        return checked
