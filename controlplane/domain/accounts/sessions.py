"""Access tokens (short-lived JWT) and login sessions with rotating refresh tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import jwt
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox, random_token
from controlplane.db import after_commit, run_after_commit, transaction, utcnow
from controlplane.domain.accounts import schemas
from controlplane.domain.accounts.models import LoginSession, RefreshToken, Role, User
from controlplane.errors import DomainError, Forbidden, NotFound, Unauthorized
from controlplane.realtime.hub import PushHub
from controlplane.realtime.invalidation import CacheInvalidation
from controlplane.settings import Settings

CLIENT = "client"
ADMIN = "admin"
# Validated access tokens are kept this long per process. Ending a session (logout, reuse, password reset or
# change) or blocking the account drops them on every process before that request answers (CacheInvalidation), so
# the lifetime only bounds what an unannounced change (a row edited by hand) leaves working.
SESSION_CACHE = "sessions"
SESSION_CACHE_SECONDS = 10.0
USER_AGENT_KEPT = 255  # characters of a device's user agent the session keeps (the column's width)


class SessionNotFound(NotFound):
    code = "session_not_found"
    message = "Sesión no encontrada."


def device_of(user_agent: str | None) -> str | None:
    """What the session remembers of the device: its user agent, cut to the column's width."""
    return user_agent[:USER_AGENT_KEPT] if user_agent else None


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
    valid_until: float  # epoch seconds: the token's expiry or its session's, whichever comes first


@dataclass(frozen=True, slots=True)
class _Checked:
    """An access token whose signature, session and account were checked (the sessions cache holds these)."""

    principal: Principal
    audience: str


# What a token's check reads: its session and the account (built once; compiling it per check showed in profiles).
_SESSION_ROWS = select(
    LoginSession.id,
    LoginSession.user_id,
    LoginSession.revoked_at,
    LoginSession.expires_at,
    User.username,
    User.role,
    User.blocked,
).join(User, User.id == LoginSession.user_id)


class SessionService:
    def __init__(
        self,
        settings: Settings,
        box: SecretBox,
        invalidation: CacheInvalidation,
        hub: PushHub,
        read_sessionmaker: async_sessionmaker[AsyncSession],
    ) -> None:
        self._settings = settings
        self._read_sessionmaker = read_sessionmaker  # a token not remembered is checked in a transaction of its own
        self._box = box
        self._invalidation = invalidation
        self._hub = hub
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
        self,
        db: AsyncSession,
        user: User,
        audience: str,
        remember: bool,
        ip: str | None,
        user_agent: str | None = None,
    ) -> tuple[str, str]:
        now = utcnow()
        days = self._settings.refresh_token_days_remember if remember else self._settings.refresh_token_days_session
        session = LoginSession(
            user_id=user.id,
            audience=audience,
            remember=remember,
            expires_at=now + timedelta(days=days),
            ip_address=ip,
            user_agent=device_of(user_agent),
            last_used=now,
        )
        db.add(session)
        user.last_login = now
        await db.flush()
        return self._access_token(session, user, now), await self._new_refresh_token(db, session)

    async def refresh(
        self, db: AsyncSession, token: str, ip: str | None = None, user_agent: str | None = None
    ) -> tuple[str, str]:
        """Rotate: the presented token is spent; presenting a spent token again revokes the whole family. The session
        notes when, where from and on what device it was last used (the owner's list of sessions)."""
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
                # The revocation must outlive the error answer, so commit it here rather than at the boundary
                # (and run what follows a commit: other processes told, the session's sockets closed).
                await self._revoke(db, known.session_id, "refresh_reused")
                await db.commit()
                await run_after_commit(db)
                raise Unauthorized(
                    "La sesión fue revocada por seguridad. Inicie sesión de nuevo.", code="refresh_reused"
                )
            raise Unauthorized(code="invalid_refresh")
        session = await db.get(LoginSession, session_id)
        # Blocking also ends the sessions: say why before saying that they ended (the login page shows it).
        if session is not None and session.user.blocked:
            raise Forbidden("Su cuenta está bloqueada.", code="account_blocked")
        if session is None or session.revoked_at is not None or session.expires_at <= now:
            raise Unauthorized(code="session_ended")
        session.last_used = now
        if ip is not None:
            session.ip_address = ip
        if user_agent:
            session.user_agent = device_of(user_agent)
        return self._access_token(session, session.user, now), await self._new_refresh_token(db, session)

    # --- the owner's list of sessions ------------------------------------------------------------------------

    async def list_of(self, db: AsyncSession, caller: Principal) -> list[schemas.SessionView]:
        """The caller's account's open sessions, the most recently used first, the caller's own marked."""
        rows = await db.execute(
            select(LoginSession)
            .where(
                LoginSession.user_id == caller.user_id,
                LoginSession.revoked_at.is_(None),
                LoginSession.expires_at > utcnow(),
            )
            .order_by(func.coalesce(LoginSession.last_used, LoginSession.created).desc(), LoginSession.id)
        )
        return [
            schemas.SessionView(
                id=session.id,
                device=session.user_agent,
                address=session.ip_address,
                created=session.created,
                last_used=session.last_used or session.created,
                current=session.id == caller.session_id,
            )
            for session in rows.scalars()
        ]

    @staticmethod
    def _open_of(caller: Principal, session_id: str) -> list[Any]:
        return [
            LoginSession.id == session_id,
            LoginSession.user_id == caller.user_id,
            LoginSession.revoked_at.is_(None),
            LoginSession.expires_at > utcnow(),
        ]

    async def require_open(self, db: AsyncSession, caller: Principal, session_id: str) -> None:
        """404 `session_not_found` unless `session_id` is an open session of the caller's account: another
        account's, or one already ended, answers like a missing one."""
        if await db.scalar(select(LoginSession.id).where(*self._open_of(caller, session_id))) is None:
            raise SessionNotFound()

    async def end_one(self, db: AsyncSession, caller: Principal, session_id: str) -> None:
        """End one open session of the caller's account (404 `session_not_found` otherwise, as `require_open`)."""
        ended = await db.execute(
            update(LoginSession)
            .where(*self._open_of(caller, session_id))
            .values(revoked_at=utcnow(), revoked_reason="closed_by_owner")
            .returning(LoginSession.id)
        )
        if ended.scalar_one_or_none() is None:
            raise SessionNotFound()
        self._ended(db, caller.user_id, session_id=session_id)

    async def end_others(self, db: AsyncSession, caller: Principal) -> int:
        """End every session of the caller's account but the caller's own; returns how many ended."""
        ended = await db.execute(
            update(LoginSession)
            .where(
                LoginSession.user_id == caller.user_id,
                LoginSession.id != caller.session_id,
                LoginSession.revoked_at.is_(None),
                LoginSession.expires_at > utcnow(),
            )
            .values(revoked_at=utcnow(), revoked_reason="others_closed")
            .returning(LoginSession.id)
        )
        count = len(ended.all())
        self._ended(db, caller.user_id, keep=caller.session_id)
        return count

    async def forget_devices(self, db: AsyncSession, user_id: str) -> None:
        """A deleted account's sessions keep no address, device or refresh token (docs/security.md, "Deleting an
        account"): the rows stay ended, with their dates, and nothing that says where the person was."""
        sessions = select(LoginSession.id).where(LoginSession.user_id == user_id).scalar_subquery()
        await db.execute(delete(RefreshToken).where(RefreshToken.session_id.in_(sessions)))
        await db.execute(
            update(LoginSession).where(LoginSession.user_id == user_id).values(ip_address=None, user_agent=None)
        )

    async def end(self, db: AsyncSession, refresh: str | None, access: str | None = None) -> None:
        """Logout: the session the refresh token belongs to, or else the one the access token was issued for (the
        web client holds only that one after a reload without 'Recordarme'). An expired access token still names
        its session: holding it is proof enough to end it."""
        session_id = None
        if refresh:
            known = await db.get(RefreshToken, self._box.lookup_hash(refresh))
            session_id = known.session_id if known is not None else None
        if session_id is None and access:
            session_id = self._session_named_by(access)
        if session_id:
            await self._revoke(db, session_id, "logout")

    def _decode(self, token: str, verify_exp: bool = True) -> dict[str, Any]:
        """An access token's claims, its signature and audience checked (and its expiry, unless told not to)."""
        return jwt.decode(
            token,
            self._box.signing_key,
            algorithms=["HS256"],
            audience=[CLIENT, ADMIN],
            options={"require": ["exp", "sub", "sid", "aud"], "verify_exp": verify_exp},
        )

    def _session_named_by(self, access: str) -> str | None:
        try:
            claims = self._decode(access, verify_exp=False)
        except jwt.PyJWTError:
            return None
        return str(claims["sid"])

    async def end_all(self, db: AsyncSession, user_id: str, reason: str, keep: str | None = None) -> None:
        """End every session of the user (but `keep`, the caller's own, when given)."""
        query = update(LoginSession).where(LoginSession.user_id == user_id, LoginSession.revoked_at.is_(None))
        if keep is not None:
            query = query.where(LoginSession.id != keep)
        await db.execute(query.values(revoked_at=utcnow(), revoked_reason=reason))
        self._ended(db, user_id, keep=keep)

    def _ended(self, db: AsyncSession, user_id: str, session_id: str | None = None, keep: str | None = None) -> None:
        """Once `db` commits, the ended sessions' tokens stop being trusted and their open sockets are closed, on
        every process: the one place every way a session ends goes through (docs/security.md, sessions)."""
        self.forget(db, session_id=session_id, user_id=user_id)
        after_commit(db, lambda: self._hub.end_sessions(user_id, session_id=session_id, keep=keep))

    def forget(self, db: AsyncSession, session_id: str | None = None, user_id: str | None = None) -> None:
        """Checked tokens of a session (or of every session of a user) stop being trusted once `db` commits."""
        self._invalidation.stale(db, SESSION_CACHE, session_tags(session_id, user_id))

    async def _revoke(self, db: AsyncSession, session_id: str, reason: str) -> None:
        ended = await db.execute(
            update(LoginSession)
            .where(LoginSession.id == session_id, LoginSession.revoked_at.is_(None))
            .values(revoked_at=utcnow(), revoked_reason=reason)
            .returning(LoginSession.user_id)
        )
        user_id = ended.scalar_one_or_none()
        if user_id is not None:
            self._ended(db, user_id, session_id=session_id)

    async def resolve(self, token: str, audience: str | None) -> Principal:
        """Check signature, expiry, audience (None = either area), the session and the account; 401/403 otherwise.

        A token that passed is remembered (SESSION_CACHE_SECONDS at most, never past its expiry or its session's):
        most requests then need neither the signature check nor the database, not even a session object (one is
        opened only for a token not remembered: docs/benchmarks.md, "Peer list")."""
        checked: _Checked | None = self._checked.get(token)
        if checked is None:
            async with transaction(self._read_sessionmaker) as db:
                checked = await self._check(db, token)
        if audience is not None and checked.audience != audience:
            if audience == ADMIN:
                raise Forbidden("Esta sección es solo para el personal.", code="staff_only")
            raise Forbidden("Esta cuenta es de personal; use el panel de administración.", code="customer_only")
        return checked.principal

    async def _check(self, db: AsyncSession, token: str) -> _Checked:
        claims = self._claims(token)
        generation = self._invalidation.generation(db, self._checked)
        row = (
            await db.execute(
                _SESSION_ROWS.where(LoginSession.id == claims["sid"], LoginSession.user_id == claims["sub"])
            )
        ).one_or_none()
        return self._remember(token, claims, row, generation)

    async def resolve_many(self, db: AsyncSession, tokens: list[str]) -> dict[str, Principal | DomainError]:
        """`resolve` (either area) for many tokens at once: the ones not remembered are checked with one query.

        For a reconnect storm (docs/benchmarks.md, "Reconnect storms"): after a restart thousands of sockets
        arrive within seconds, none of their tokens cached; one query per socket was a third of a handshake's CPU."""
        out: dict[str, Principal | DomainError] = {}
        claims_of: dict[str, dict[str, Any]] = {}
        for token in tokens:
            checked: _Checked | None = self._checked.get(token)
            if checked is not None:
                out[token] = checked.principal
                continue
            try:
                claims_of[token] = self._claims(token)
            except DomainError as refused:
                out[token] = refused
        if not claims_of:
            return out
        generation = self._invalidation.generation(db, self._checked)
        session_ids = {claims["sid"] for claims in claims_of.values()}
        rows = {row.id: row for row in await db.execute(_SESSION_ROWS.where(LoginSession.id.in_(session_ids)))}
        for token, claims in claims_of.items():
            row = rows.get(claims["sid"])
            try:
                out[token] = self._remember(
                    token, claims, row if row and row.user_id == claims["sub"] else None, generation
                ).principal
            except DomainError as refused:
                out[token] = refused
        return out

    def _claims(self, token: str) -> dict[str, Any]:
        try:
            return self._decode(token)
        except jwt.ExpiredSignatureError as exc:
            raise Unauthorized("La sesión expiró. Inicie sesión de nuevo.", code="token_expired") from exc
        except jwt.PyJWTError as exc:
            raise Unauthorized(code="invalid_token") from exc

    def _remember(self, token: str, claims: dict[str, Any], row: Any, generation: int) -> _Checked:
        """The verdict on a token whose session row was read (None: no such session of that user); a token that
        passed is cached."""
        # Blocking also ends the sessions: say why before saying that they ended (the login page shows it).
        if row is not None and row.blocked:
            raise Forbidden("Su cuenta está bloqueada.", code="account_blocked")
        if row is None or row.revoked_at is not None or row.expires_at <= utcnow():
            raise Unauthorized(code="session_ended")
        # Trusted until the token or its session expires, whichever comes first.
        until = min(float(claims["exp"]), row.expires_at.timestamp())
        principal = Principal(
            user_id=claims["sub"], username=row.username, role=row.role, session_id=claims["sid"], valid_until=until
        )
        checked = _Checked(principal, claims["aud"])
        tags = [*session_tags(session_id=principal.session_id), *session_tags(user_id=principal.user_id)]
        self._checked.put(token, checked, tags, generation, until)
        return checked
