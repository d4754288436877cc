"""Account and session endpoints: login, registration, tokens, recovery and the customer's settings."""

from __future__ import annotations

from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.background_tasks import BackgroundTask
from litestar.params import JSONBody

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    STAFF,
    Accounts,
    ClientIP,
    Customer,
    Deletion,
    Limiter,
    MailerDep,
    Sessions,
    SettingsDep,
    Staff,
    SwitchesDep,
    bearer_token,
    not_in_maintenance,
)
from controlplane.domain.accounts import schemas
from controlplane.domain.accounts.service import RECOVERY_ANSWER, Email, current_user_view
from controlplane.domain.accounts.sessions import ADMIN, CLIENT
from controlplane.domain.manager.access import SUPPORT
from controlplane.errors import Unauthorized
from controlplane.mail import Mailer
from controlplane.ratelimit import RateLimiter
from controlplane.settings import Settings


def _mail_task(mailer: Mailer, mail: Email | None) -> BackgroundTask | None:
    """Mail goes out after the response (and so after the commit): a slow SMTP server never holds a request."""
    return BackgroundTask(mailer.send, mail.to, mail.subject, mail.body) if mail else None


async def _count_token_attempt(limiter: RateLimiter, settings: Settings, ip: str) -> None:
    """Secret tokens (reset and verification links, refresh tokens) presented from one address are counted."""
    await limiter.hit(f"tokens:ip:{ip}", settings.rate_limits.tokens_per_address)


class ClientAuthController(Controller):
    path = "/api/client"
    tags = ["accounts"]
    guards = [not_in_maintenance]

    @post("/login", status_code=200, operation_id="clientLogin", opt={"errors": (401, 403, 429)})
    async def login(
        self, accounts: Accounts, ip: ClientIP, data: JSONBody[schemas.LoginRequest]
    ) -> schemas.LoginResponse:
        # No request transaction (no `db`): the service opens short ones around the password check.
        access, refresh = await accounts.login(data, CLIENT, ip)
        return schemas.LoginResponse(access=access, refresh=refresh, message="Sesión iniciada correctamente.")

    @put("/register", status_code=201, operation_id="clientRegister", opt={"errors": (403, 409, 429)})
    async def register(
        self,
        accounts: Accounts,
        mailer: MailerDep,
        db: DB,
        switches: SwitchesDep,
        ip: ClientIP,
        data: JSONBody[schemas.RegisterRequest],
    ) -> Response[schemas.SuccessResponse]:
        _, mail = await accounts.register(db, data, switches, ip)
        message = "Registro Completado."
        if mail:
            message += " Le enviamos un email de verificación."
        return Response(
            schemas.SuccessResponse(success=True, message=message),
            status_code=201,
            background=_mail_task(mailer, mail),
        )

    @get("/verify-token", operation_id="clientVerifyToken", dependencies=CUSTOMER)
    async def verify_token(
        self, accounts: Accounts, db: DB, switches: SwitchesDep, customer: Customer
    ) -> schemas.CurrentUser:
        return current_user_view(await accounts.get_user(db, customer.user_id), switches)

    @post("/password-recovery", status_code=200, operation_id="clientPasswordRecovery", opt={"errors": (403, 429)})
    async def password_recovery(
        self,
        accounts: Accounts,
        mailer: MailerDep,
        db: DB,
        switches: SwitchesDep,
        ip: ClientIP,
        data: JSONBody[schemas.RecoveryRequest],
    ) -> Response[schemas.SuccessResponse]:
        mail = await accounts.request_recovery(db, data.username, switches, ip)
        return Response(
            schemas.SuccessResponse(success=True, message=RECOVERY_ANSWER),
            background=_mail_task(mailer, mail),
        )

    @post("/password-reset", status_code=200, operation_id="clientPasswordReset", opt={"errors": (400, 429)})
    async def password_reset(
        self,
        accounts: Accounts,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        ip: ClientIP,
        data: JSONBody[schemas.PasswordResetRequest],
    ) -> schemas.SuccessResponse:
        await _count_token_attempt(limiter, settings, ip)
        await accounts.reset_password(db, data.token, data.password)
        return schemas.SuccessResponse(success=True, message="Contraseña restablecida. Ya puede iniciar sesión.")

    @post("/verify-email", status_code=200, operation_id="clientVerifyEmail", opt={"errors": (400, 429)})
    async def verify_email(
        self,
        accounts: Accounts,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        ip: ClientIP,
        data: JSONBody[schemas.VerifyEmailRequest],
    ) -> schemas.SuccessResponse:
        await _count_token_attempt(limiter, settings, ip)
        await accounts.verify_email(db, data.token)
        return schemas.SuccessResponse(success=True, message="Email verificado correctamente.")


class SessionController(Controller):
    """Token refresh and logout serve both areas (the refresh token knows its own audience)."""

    path = "/api"
    tags = ["accounts"]

    @post("/refresh-token", status_code=200, operation_id="refreshToken", opt={"errors": (401, 403, 429)})
    async def refresh(
        self,
        sessions: Sessions,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        ip: ClientIP,
        data: JSONBody[schemas.RefreshRequest],
    ) -> schemas.TokenPair:
        await _count_token_attempt(limiter, settings, ip)
        access, refresh = await sessions.refresh(db, data.refresh)
        return schemas.TokenPair(access=access, refresh=refresh)

    @post("/logout", status_code=200, operation_id="logout")
    async def logout(
        self, sessions: Sessions, db: DB, request: Request, data: JSONBody[schemas.LogoutRequest | None] = None
    ) -> schemas.SuccessResponse:
        """Ends the session named by the refresh token in the body or, without one, by the bearer access token."""
        try:
            access: str | None = bearer_token(request)
        except Unauthorized:
            access = None
        await sessions.end(db, data.refresh if data else None, access)
        return schemas.SuccessResponse(success=True, message="Sesión cerrada.")


class SettingsController(Controller):
    path = "/api/client/settings"
    tags = ["accounts"]
    guards = [not_in_maintenance]
    dependencies = CUSTOMER

    @get("/", operation_id="getSettings")
    async def read(self, accounts: Accounts, db: DB, switches: SwitchesDep, customer: Customer) -> schemas.CurrentUser:
        return current_user_view(await accounts.get_user(db, customer.user_id), switches)

    # 429: verification emails and wrong current passwords are throttled per account, and a password change
    # waits for a hashing turn (docs/security.md, "Settings", "Password hashing").
    @patch("/", operation_id="updateSettings", opt={"errors": (400, 409, 429)})
    async def update(
        self,
        accounts: Accounts,
        mailer: MailerDep,
        db: DB,
        switches: SwitchesDep,
        customer: Customer,
        data: JSONBody[schemas.SettingsPatch],
    ) -> Response[schemas.SettingsResult]:
        user, message, mail = await accounts.update_settings(db, customer, data, switches)
        return Response(
            schemas.settings_result(current_user_view(user, switches), message),
            background=_mail_task(mailer, mail),
        )

    @delete("/", status_code=200, operation_id="removeEmail")
    async def remove_email(
        self, accounts: Accounts, db: DB, switches: SwitchesDep, customer: Customer
    ) -> schemas.SettingsResult:
        user = await accounts.remove_email(db, customer.user_id, switches)
        return schemas.settings_result(current_user_view(user, switches), "Email eliminado correctamente")

    @post("/delete-account", status_code=200, operation_id="deleteAccount", opt={"errors": (429,)})
    async def delete_account(
        self, deletion: Deletion, db: DB, customer: Customer, data: JSONBody[schemas.DeleteAccountRequest]
    ) -> schemas.SuccessResponse:
        """Deletes the caller's own account (docs/security.md, "Deleting an account"): peers, owned rooms and every
        session go; invoices stay for accounting."""
        await deletion.delete_own(db, customer, data.password)
        return schemas.SuccessResponse(success=True, message="Cuenta eliminada. Gracias por usar el servicio.")


class AdminAuthController(Controller):
    path = "/api/admin"
    tags = ["admin"]

    @post("/login", status_code=200, operation_id="adminLogin", opt={"errors": (401, 403, 429)})
    async def login(
        self, accounts: Accounts, ip: ClientIP, data: JSONBody[schemas.LoginRequest]
    ) -> schemas.LoginResponse:
        access, refresh = await accounts.login(data, ADMIN, ip)
        return schemas.LoginResponse(access=access, refresh=refresh, message="Sesión iniciada correctamente.")

    @get("/verify-token", operation_id="adminVerifyToken", dependencies=STAFF, opt=SUPPORT)
    async def verify_token(
        self, accounts: Accounts, db: DB, switches: SwitchesDep, staff: Staff
    ) -> schemas.CurrentUser:
        return current_user_view(await accounts.get_user(db, staff.user_id), switches)
