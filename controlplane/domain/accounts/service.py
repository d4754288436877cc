"""Account rules: registration, login, password recovery, email verification and the customer's settings."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.captcha import CaptchaVerifier
from controlplane.crypto import SecretBox, random_token
from controlplane.db import transaction, utcnow
from controlplane.domain.accounts import schemas
from controlplane.domain.accounts.login_budget import AddressBudget, signed_in_from
from controlplane.domain.accounts.models import LinkPurpose, OneTimeLink, Role, User
from controlplane.domain.accounts.sessions import ADMIN, Principal, SessionService
from controlplane.domain.accounts.throttle import CaptchaGate, FailureThrottle
from controlplane.domain.switches.service import Switches
from controlplane.errors import BadRequest, Conflict, Forbidden, Invalid, NotFound, Unauthorized
from controlplane.passwords import Passwords, Priority
from controlplane.ratelimit import RateLimiter
from controlplane.settings import Settings

USERNAME_RE = re.compile(r"^[A-Za-z0-9._-]{3,32}$")
ALIAS_RE = re.compile(r"^[\w .-]{3,32}$")
EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$")
MIN_PASSWORD, MAX_PASSWORD = 8, 128
RESET_LINK_LIFETIME = timedelta(hours=1)
LOGIN_READS_AT_ONCE = 8
VERIFY_LINK_LIFETIME = timedelta(days=2)

CAPTCHA_REQUIRED = "Por favor, complete el captcha."
CAPTCHA_FAILED = "La verificación del captcha falló. Intente de nuevo."

RECOVERY_ANSWER = (
    "Si la cuenta existe y tiene un email verificado, le enviamos un enlace para restablecer la contraseña."
)


@dataclass(frozen=True, slots=True)
class Email:
    to: str
    subject: str
    body: str


def _check_password_strength(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Invalid(
            f"La contraseña debe tener entre {MIN_PASSWORD} y {MAX_PASSWORD} caracteres.",
            code="weak_password",
            fields={"password": "Longitud inválida."},
        )


def _normalize_email(email: str) -> str:
    email = email.strip()
    if not EMAIL_RE.match(email):
        raise Invalid("El email no es válido.", code="invalid_email", fields={"email": "Email inválido."})
    return email


def current_user_view(user: User, switches: Switches) -> schemas.CurrentUser:
    return schemas.CurrentUser(
        username=user.username,
        alias=user.alias,
        email=user.email,
        email_verified=user.email_verified,
        role=user.role.value,
        web_settings=schemas.WebSettings(allow_partys=switches.allow_partys, allow_email=switches.allow_email),
    )


class AccountService:
    def __init__(
        self,
        settings: Settings,
        box: SecretBox,
        passwords: Passwords,
        sessions: SessionService,
        limiter: RateLimiter,
        captcha: CaptchaVerifier,
        sessionmaker: async_sessionmaker[AsyncSession],
        read_sessionmaker: async_sessionmaker[AsyncSession],
    ) -> None:
        self._settings = settings
        self._sessionmaker = sessionmaker
        self._read_sessionmaker = read_sessionmaker
        self._throttle = FailureThrottle(limiter)
        self._captcha_gate = CaptchaGate(limiter)
        self._address_budget = AddressBudget(limiter)
        self._login_reads = asyncio.Semaphore(LOGIN_READS_AT_ONCE)
        self._box = box
        self._passwords = passwords
        self._sessions = sessions
        self._limiter = limiter
        self._captcha = captcha

    async def find_by_username(self, db: AsyncSession, username: str) -> User | None:
        return (
            await db.execute(select(User).where(User.username_key == username.strip().lower()))
        ).scalar_one_or_none()

    # --- registration -------------------------------------------------------------------------------------

    async def register(
        self, db: AsyncSession, data: schemas.RegisterRequest, switches: Switches, ip: str
    ) -> tuple[User, Email | None]:
        if not switches.allow_registration:
            raise Forbidden("El registro de nuevas cuentas está deshabilitado.", code="registration_closed")
        if self._captcha.enabled and not data.captcha_token:
            raise Invalid(CAPTCHA_REQUIRED, code="captcha_required")
        username = data.username.strip()
        if not username or not data.password:
            raise Invalid("El usuario y contraseña son obligatorios.", code="required")
        if not USERNAME_RE.match(username):
            raise Invalid(
                "El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo.",
                code="invalid_username",
                fields={"username": "Usuario inválido."},
            )
        _check_password_strength(data.password)
        email = _normalize_email(data.email) if (data.email and data.email.strip() and switches.allow_email) else None
        await self._limiter.hit(f"register:ip:{ip}", self._settings.rate_limits.register_per_address)
        if not await self._captcha.verify(data.captcha_token, ip):
            raise Invalid(CAPTCHA_FAILED, code="captcha_failed")
        # Hashed before the first query opens the transaction (on SQLite it takes the write lock): docs/security.md,
        # "Login storms".
        password_hash = await self._passwords.hash(data.password)
        if await self.find_by_username(db, username) is not None:
            raise Conflict("El nombre de usuario ya está en uso.", code="username_taken")
        user = User(username=username, username_key=username.lower(), password_hash=password_hash, email=email)
        db.add(user)
        try:
            await db.flush()
        except IntegrityError as exc:  # a concurrent registration of the same name won the race
            raise Conflict("El nombre de usuario ya está en uso.", code="username_taken") from exc
        mail = await self.verification_email(db, user) if email else None
        return user, mail

    async def verification_email(self, db: AsyncSession, user: User) -> Email:
        assert user.email
        token = await self._one_time_link(db, user, LinkPurpose.VERIFY_EMAIL, VERIFY_LINK_LIFETIME, user.email)
        link = f"{self._settings.client_url}/verify-email?token={token}"
        body = (
            f"Hola {user.username}:\n\nConfirme su email para poder recuperar la contraseña si la olvida:\n"
            f"{link}\n\nEl enlace vence en 48 horas. Si no creó esta cuenta, ignore este mensaje.\n\n"
            f"{self._settings.product_name}\n"
        )
        return Email(user.email, f"Confirme su email - {self._settings.product_name}", body)

    async def _one_time_link(
        self, db: AsyncSession, user: User, purpose: LinkPurpose, lifetime: timedelta, email: str | None
    ) -> str:
        now = utcnow()
        # A new link replaces older unused ones of the same purpose.
        await db.execute(
            update(OneTimeLink)
            .where(OneTimeLink.user_id == user.id, OneTimeLink.purpose == purpose, OneTimeLink.used_at.is_(None))
            .values(used_at=now)
        )
        token = random_token()
        db.add(
            OneTimeLink(
                token_hash=self._box.lookup_hash(token),
                user_id=user.id,
                purpose=purpose,
                email=email,
                expires_at=now + lifetime,
            )
        )
        await db.flush()
        return token

    async def _spend_link(self, db: AsyncSession, token: str, purpose: LinkPurpose) -> OneTimeLink:
        now = utcnow()
        link = await db.get(OneTimeLink, self._box.lookup_hash(token))
        if link is None or link.purpose != purpose or link.expires_at <= now:
            raise BadRequest("El enlace no es válido o ya venció.", code=f"{purpose.value}_token_invalid")
        spent = await db.execute(
            update(OneTimeLink)
            .where(OneTimeLink.token_hash == link.token_hash, OneTimeLink.used_at.is_(None))
            .values(used_at=now)
        )
        if spent.rowcount != 1:  # type: ignore[attr-defined]
            raise BadRequest("El enlace no es válido o ya venció.", code=f"{purpose.value}_token_invalid")
        return link

    async def verify_email(self, db: AsyncSession, token: str) -> None:
        link = await self._spend_link(db, token, LinkPurpose.VERIFY_EMAIL)
        user = await db.get(User, link.user_id)
        if user is None or user.email != link.email:
            raise BadRequest("El enlace no es válido o ya venció.", code="verify_email_token_invalid")
        user.email_verified = True

    # --- login ----------------------------------------------------------------------------------------------

    async def login(
        self, data: schemas.LoginRequest, audience: str, ip: str, user_agent: str | None = None
    ) -> tuple[str, str]:
        """Check a password and start a session. The hash is checked outside any transaction: a transaction held
        through it would keep a pooled connection (on SQLite, the one write lock) from everyone else for the length
        of the hash (docs/security.md, "Login storms"). Hashes queue: a returning customer first, then any existing
        account, then names nobody has (whose dummy hash still runs, so that they answer as slowly)."""
        username = data.username.strip()
        if not username or not data.password:
            raise Invalid("El usuario y contraseña son obligatorios.", code="required")
        limits = self._settings.rate_limits
        # Counted per area: wrong passwords on the customer login never slow a staff account's manager login.
        pair = f"login:{audience}:{username.lower()}:{ip}"
        account = f"login-captcha:{audience}:{username.lower()}"
        address = f"login:{audience}:ip:{ip}"
        await self._throttle.check(pair)
        # Read before the queue (the turn depends on it), a few at a time: a burst of logins must not take every
        # pooled connection from the other requests, nor (without a pool) open a connection each.
        async with self._login_reads, transaction(self._read_sessionmaker) as db:
            user = await self.find_by_username(db, username)
            if user is not None and user.role.is_staff != (audience == ADMIN):
                user = None  # each area knows only its own accounts
            # Asked for unknown names too, so that they take the same queries as known ones.
            returning = await signed_in_from(db, user.id if user else "", audience, ip) and user is not None
        priority = Priority.RETURNING if returning else Priority.KNOWN if user else Priority.UNKNOWN
        checked_hash = user.password_hash if user else None
        ask_captcha = await self._captcha_asked(account)
        # A returning customer is not counted against the address (docs/security.md, "Logins behind one address").
        refused = None if returning else await self._address_budget.start(address, limits.login_per_address)
        counted = not returning and refused is None
        checked = valid = False
        rehashed: str | None = None
        try:
            if refused is not None:
                if not self._captcha.enabled:
                    raise refused
                ask_captcha = True  # past the address's budget every try from it needs a solved captcha
            if ask_captcha:
                await self._check_captcha(data.captcha_token, ip)
            async with self._passwords.turn(priority):
                valid = await self._passwords.verify_in_turn(checked_hash, data.password)
                # Remade in the same turn: a second one would wait at the back of the queue again.
                rehashed = await self._passwords.rehash_in_turn(checked_hash, data.password) if valid else None
            checked = True
        finally:
            # Only failures spend the address's budget: a success, or a try never checked (asked for a captcha, no
            # turn in time, the caller gone), gives its place back.
            if counted and (valid or not checked):
                await self._address_budget.succeeded(address)
        if user is None or not valid:
            await self._throttle.failed(pair, limits.login_per_account)
            if not counted:
                await self._address_budget.failed_uncounted(address, limits.login_per_address)
            if self._captcha.enabled:
                await self._captcha_gate.failed(account, limits.login_captcha_per_account)
            raise Unauthorized(
                "Usuario o contraseña incorrectos.", code="invalid_credentials", extra={"success": False}
            )
        if user.blocked:
            raise Forbidden("Su cuenta está bloqueada. Contacte a soporte.", code="account_blocked")
        await self._throttle.succeeded(pair)
        await self._captcha_gate.succeeded(account)
        async with transaction(self._sessionmaker) as db:
            current = await db.get(User, user.id)
            # Changed (or blocked) while the hash was checked: the old password no longer opens the account.
            if current is None or current.password_hash != checked_hash:
                raise Unauthorized(
                    "Usuario o contraseña incorrectos.", code="invalid_credentials", extra={"success": False}
                )
            if current.blocked:
                raise Forbidden("Su cuenta está bloqueada. Contacte a soporte.", code="account_blocked")
            if rehashed:
                current.password_hash = rehashed
            return await self._sessions.start(db, current, audience, data.remember, ip, user_agent)

    async def _captcha_asked(self, account: str) -> bool:
        """Once an account's failures (from any address) reach the limit, a try needs a solved captcha; checked
        before the hash, so a refused try costs no hash. Without a captcha configured logins never ask for one."""
        if not self._captcha.enabled:
            return False
        return await self._captcha_gate.required(account, self._settings.rate_limits.login_captcha_per_account)

    async def _check_captcha(self, token: str, ip: str) -> None:
        if not token:
            raise Invalid(CAPTCHA_REQUIRED, code="captcha_required")
        if not await self._captcha.verify(token, ip):
            raise Invalid(CAPTCHA_FAILED, code="captcha_failed")

    # --- password recovery ----------------------------------------------------------------------------------

    async def request_recovery(self, db: AsyncSession, username: str, switches: Switches, ip: str) -> Email | None:
        """Same answer whatever happens; an email goes out only to an existing account's verified address."""
        if not switches.allow_password_recovery:
            raise Forbidden("La recuperación de contraseña está deshabilitada.", code="recovery_closed")
        username = username.strip()
        if not username:
            raise Invalid("El usuario es obligatorio.", code="required")
        limits = self._settings.rate_limits
        await self._limiter.hit(f"recovery:ip:{ip}", limits.recovery_per_address)
        await self._limiter.hit(f"recovery:user:{username.lower()}", limits.recovery_per_account)
        user = await self.find_by_username(db, username)
        if user is None or user.blocked or not user.email or not user.email_verified:
            return None
        return await self.password_reset_email(db, user)

    async def password_reset_email(self, db: AsyncSession, user: User) -> Email:
        """A fresh single-use reset link for `user`'s address (also sent by staff from the manager pages)."""
        assert user.email
        token = await self._one_time_link(db, user, LinkPurpose.PASSWORD_RESET, RESET_LINK_LIFETIME, user.email)
        link = f"{self._settings.client_url}/password-reset?token={token}"
        body = (
            f"Hola {user.username}:\n\nRecibimos una solicitud para restablecer su contraseña. Use este enlace "
            f"(vence en 1 hora y sirve una sola vez):\n{link}\n\nSi no la pidió, ignore este mensaje: su "
            f"contraseña no cambia.\n\n{self._settings.product_name}\n"
        )
        return Email(user.email, f"Restablecer contraseña - {self._settings.product_name}", body)

    async def reset_password(self, db: AsyncSession, token: str, password: str) -> None:
        _check_password_strength(password)
        link = await self._spend_link(db, token, LinkPurpose.PASSWORD_RESET)
        user = await db.get(User, link.user_id)
        if user is None or user.deleted_at is not None:
            raise BadRequest("El enlace no es válido o ya venció.", code="password_reset_token_invalid")
        user.password_hash = await self._passwords.hash(password)
        await self._sessions.end_all(db, user.id, "password_reset")

    # --- the customer's own settings ------------------------------------------------------------------------

    async def get_user(self, db: AsyncSession, user_id: str) -> User:
        user = await db.get(User, user_id)
        if user is None:
            raise NotFound()
        return user

    async def update_settings(
        self, db: AsyncSession, caller: Principal, data: schemas.SettingsPatch, switches: Switches, ip: str
    ) -> tuple[User, str, Email | None]:
        """Apply one change; returns the user, the success message and a verification email to send, if any."""
        wants = (
            data.email is not None,
            data.alias is not None,
            data.old_password is not None or data.new_password is not None,
        )
        if sum(wants) != 1:
            raise Invalid("Envíe un solo cambio: email, alias o contraseña.", code="one_change")
        if wants[2]:
            # Two hashes must not run inside the request's transaction (on SQLite it holds the one write lock). The
            # session check may have begun it, reading only: end it; the change opens short ones of its own.
            await db.rollback()
            user = await self._change_password(caller, data.old_password or "", data.new_password or "", ip)
            return user, "Contraseña cambiada correctamente.", None
        user = await self.get_user(db, caller.user_id)
        if data.email is not None:
            return user, *await self._change_email(db, user, data.email, switches)
        assert data.alias is not None
        return user, await self._change_alias(db, user, data.alias, switches), None

    async def _change_email(
        self, db: AsyncSession, user: User, email: str, switches: Switches
    ) -> tuple[str, Email | None]:
        if not switches.allow_email:
            raise Forbidden("El uso de email está deshabilitado.", code="email_disabled")
        if not email.strip():
            raise Invalid("El email no puede estar en blanco", code="blank", fields={"email": "Obligatorio."})
        email = _normalize_email(email)
        if user.email and email.lower() == user.email.lower():
            raise Invalid("El nuevo email no puede ser igual q el anterior", code="same_email")
        # Each change mails the new address: without a limit a session could mail anyone, as often as it liked.
        mails = self._settings.rate_limits.verification_emails_per_account
        await self._limiter.hit(f"verification-mail:{user.id}", mails)
        user.email = email
        user.email_verified = False
        return "Email modificado correctamente.", await self.verification_email(db, user)

    async def remove_email(self, db: AsyncSession, user_id: str, switches: Switches) -> User:
        if not switches.allow_email:
            raise Forbidden("El uso de email está deshabilitado.", code="email_disabled")
        user = await self.get_user(db, user_id)
        user.email = None
        user.email_verified = False
        return user

    async def _change_alias(self, db: AsyncSession, user: User, alias: str, switches: Switches) -> str:
        if not switches.allow_partys:
            raise Forbidden("Las salas están deshabilitadas.", code="partys_disabled")
        alias = alias.strip()
        if not alias:
            raise Invalid("El alias no puede estar en blanco", code="blank", fields={"alias": "Obligatorio."})
        if not ALIAS_RE.match(alias):
            raise Invalid(
                "El alias debe tener entre 3 y 32 caracteres: letras, números, espacios, punto o guion.",
                code="invalid_alias",
                fields={"alias": "Alias inválido."},
            )
        taken = await db.scalar(
            select(func.count()).select_from(User).where(User.alias_key == alias.lower(), User.id != user.id)
        )
        if taken:
            raise Conflict("Ese alias ya está en uso.", code="alias_taken")
        had_alias = user.alias is not None
        user.alias, user.alias_key = alias, alias.lower()
        try:
            await db.flush()
        except IntegrityError as exc:
            raise Conflict("Ese alias ya está en uso.", code="alias_taken") from exc
        return "Alias modificado correctamente." if had_alias else "Alias configurado correctamente."

    async def confirm_password(self, caller: Principal, password: str, field: str, ip: str) -> str:
        """The caller proves they know the account's password (changing it, closing other sessions, deleting the
        account); returns the hash checked, so the change can make sure it is still current. As the login does
        (docs/security.md, "Login storms"): the account is read in a short read-only transaction and the hash runs
        with no transaction open.

        Wrong passwords are counted per session and per address, never per account: a stolen session guessing waits
        (and so does its address), while the owner's own session, logged in afresh, still changes the password and
        closes the others (docs/security.md, "Settings"). One session cannot fill its address's allowance alone."""
        limits = self._settings.rate_limits
        per_session, per_address = f"password-check:session:{caller.session_id}", f"password-check:address:{ip}"
        await self._throttle.check(per_session)
        await self._throttle.check(per_address)
        async with self._passwords.turn():
            async with transaction(self._read_sessionmaker) as db:
                checked_hash = (await self.get_user(db, caller.user_id)).password_hash
            valid = await self._passwords.verify_in_turn(checked_hash, password)
        if not valid:
            await self._throttle.failed(per_session, limits.password_checks_per_session)
            await self._throttle.failed(per_address, limits.password_checks_per_address)
            raise Invalid("La contraseña actual no es correcta.", code="wrong_password", fields={field: "Incorrecta."})
        # The address's count stays: another account's right password from the same address must not clear it.
        await self._throttle.succeeded(per_session)
        return checked_hash

    # --- the owner's sessions --------------------------------------------------------------------------------

    async def close_session(self, db: AsyncSession, caller: Principal, session_id: str, password: str, ip: str) -> None:
        """'Cerrar esta sesión': the caller's own needs nothing more (it is a logout); another one needs the
        account's password, or a stolen session could close the owner's as fast as the owner logs in."""
        if session_id != caller.session_id:
            # Someone else's session, or none, answers 404 before any password is asked for or hashed.
            await self._sessions.require_open(db, caller, session_id)
            await self._confirm_for_sessions(db, caller, password, ip)
        await self._sessions.end_one(db, caller, session_id)

    async def close_other_sessions(self, db: AsyncSession, caller: Principal, password: str, ip: str) -> int:
        """'Cerrar las demás sesiones': every session of the account but the caller's ends (their tokens answer 401,
        their sockets close). Wrong passwords count for this session and address only, so a thief's guesses from
        another session never refuse it (docs/security.md, "Settings")."""
        await self._confirm_for_sessions(db, caller, password, ip)
        return await self._sessions.end_others(db, caller)

    async def _confirm_for_sessions(self, db: AsyncSession, caller: Principal, password: str, ip: str) -> None:
        if not password:
            raise Invalid("Escriba su contraseña para confirmar.", code="blank", fields={"password": "Obligatoria."})
        # The hash must not run inside the request's transaction (on SQLite it holds the one write lock); the
        # session check may have begun it, reading only: end it, as a password change does.
        await db.rollback()
        await self.confirm_password(caller, password, "password", ip)

    async def _change_password(self, caller: Principal, old: str, new: str, ip: str) -> User:
        """Both hashes run with no transaction open (confirm_password, then the new one), and a short transaction
        writes the new hash only if the stored one is still the one checked."""
        if not old or not new:
            raise Invalid("Las contraseñas no pueden estar en blanco.", code="blank")
        if old == new:
            raise Invalid("La nueva contraseña no puede ser igual a la anterior.", code="same_password")
        checked_hash = await self.confirm_password(caller, old, "old_password", ip)
        _check_password_strength(new)
        new_hash = await self._passwords.hash(new)
        async with transaction(self._sessionmaker) as db:
            user = await self.get_user(db, caller.user_id)
            if user.password_hash != checked_hash:
                # Changed (a reset, another change) while the hashes ran: the password checked is no longer current.
                raise Conflict(
                    "La contraseña cambió mientras se procesaba la solicitud. Intente de nuevo.",
                    code="password_changed_meanwhile",
                )
            user.password_hash = new_hash
            # Whoever else holds a session of this account (the reason to change a password) is signed out; the
            # caller's own session goes on (docs/security.md, sessions).
            await self._sessions.end_all(db, user.id, "password_changed", keep=caller.session_id)
            return user

    async def create_user(self, db: AsyncSession, username: str, password: str, role: Role) -> User:
        """For the command line and demo data: no captcha, no switches."""
        if not USERNAME_RE.match(username):
            raise Invalid("Usuario inválido.", code="invalid_username")
        _check_password_strength(password)
        if await self.find_by_username(db, username) is not None:
            raise Conflict("El nombre de usuario ya está en uso.", code="username_taken")
        user = User(
            username=username,
            username_key=username.lower(),
            role=role,
            password_hash=await self._passwords.hash(password),
        )
        db.add(user)
        await db.flush()
        return user
