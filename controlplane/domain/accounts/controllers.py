"""Account and session endpoints: login, registration, tokens, recovery and the customer's settings; for the staff,
their own session and the manager's Usuarios page (`/api/admin/users`)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.background_tasks import BackgroundTask
from litestar.params import FromPath, JSONBody, QueryParameter

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    Audit,
    ClientIP,
    Customer,
    Limiter,
    MailerDep,
    SettingsDep,
    Staff,
    SwitchesDep,
    bearer_token,
    customer_area,
)
from controlplane.domain.accounts import schemas, staff_schemas
from controlplane.domain.accounts.dependencies import (
    ACCOUNTS,
    CUSTOMER_ACCOUNTS,
    STAFF_USERS,
    Accounts,
    Deletion,
    Sessions,
    StaffUsersDep,
)
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.accounts.service import RECOVERY_ANSWER, Email, current_user_view
from controlplane.domain.accounts.sessions import ADMIN, CLIENT
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.staff_forms import Done, Page, PageSize, Search
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
    before_request = staticmethod(customer_area)
    dependencies = ACCOUNTS

    @post("/login", status_code=200, operation_id="clientLogin", opt={"errors": (401, 403, 429)})
    async def login(
        self, request: Request, accounts: Accounts, ip: ClientIP, data: JSONBody[schemas.LoginRequest]
    ) -> schemas.LoginResponse:
        # No request transaction (no `db`): the service opens short ones around the password check.
        access, refresh = await accounts.login(data, CLIENT, ip, request.headers.get("user-agent"))
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

    @get("/verify-token", operation_id="clientVerifyToken", dependencies={**CUSTOMER, **CUSTOMER_ACCOUNTS})
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
    dependencies = ACCOUNTS

    @post("/refresh-token", status_code=200, operation_id="refreshToken", opt={"errors": (401, 403, 429)})
    async def refresh(
        self,
        request: Request,
        sessions: Sessions,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        ip: ClientIP,
        data: JSONBody[schemas.RefreshRequest],
    ) -> schemas.TokenPair:
        await _count_token_attempt(limiter, settings, ip)
        access, refresh = await sessions.refresh(db, data.refresh, ip, request.headers.get("user-agent"))
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
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_ACCOUNTS}

    @get("/", operation_id="getSettings")
    async def read(self, accounts: Accounts, db: DB, switches: SwitchesDep, customer: Customer) -> schemas.CurrentUser:
        return current_user_view(await accounts.get_user(db, customer.user_id), switches)

    # 429: verification emails are throttled per account, wrong current passwords per session and address, and a
    # password change waits for a hashing turn (docs/security.md, "Settings", "Password hashing").
    @patch("/", operation_id="updateSettings", opt={"errors": (400, 409, 429)})
    async def update(
        self,
        accounts: Accounts,
        mailer: MailerDep,
        db: DB,
        switches: SwitchesDep,
        customer: Customer,
        ip: ClientIP,
        data: JSONBody[schemas.SettingsPatch],
    ) -> Response[schemas.SettingsResult]:
        user, message, mail = await accounts.update_settings(db, customer, data, switches, ip)
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
        self,
        deletion: Deletion,
        db: DB,
        customer: Customer,
        ip: ClientIP,
        data: JSONBody[schemas.DeleteAccountRequest],
    ) -> schemas.SuccessResponse:
        """Deletes the caller's own account (docs/security.md, "Deleting an account"): peers, owned rooms and every
        session go; invoices stay for accounting."""
        await deletion.delete_own(db, customer, data.password, ip)
        return schemas.SuccessResponse(success=True, message="Cuenta eliminada. Gracias por usar el servicio.")


class OwnSessionsController(Controller):
    """The account's open sessions, for its owner: see them, close one, close all but this one (docs/api.md,
    "Sessions")."""

    path = "/api/client/sessions"
    tags = ["accounts"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_ACCOUNTS}

    @get("/", operation_id="listSessions")
    async def list_sessions(self, sessions: Sessions, db: DB, customer: Customer) -> list[schemas.SessionView]:
        return await sessions.list_of(db, customer)

    # 429: wrong passwords are throttled per session and address (docs/security.md, "Settings").
    @delete("/{session_id:str}", status_code=200, operation_id="closeSession", opt={"errors": (404, 429)})
    async def close(
        self,
        accounts: Accounts,
        db: DB,
        customer: Customer,
        ip: ClientIP,
        session_id: FromPath[str],
        data: JSONBody[schemas.CloseSessionRequest | None] = None,
    ) -> schemas.SuccessResponse:
        await accounts.close_session(db, customer, session_id, data.password if data else "", ip)
        return schemas.SuccessResponse(success=True, message="Sesión cerrada.")

    @post("/close-others", status_code=200, operation_id="closeOtherSessions", opt={"errors": (429,)})
    async def close_others(
        self, accounts: Accounts, db: DB, customer: Customer, ip: ClientIP, data: JSONBody[schemas.CloseOthersRequest]
    ) -> schemas.SessionsClosed:
        closed = await accounts.close_other_sessions(db, customer, data.password, ip)
        message = "Se cerraron las demás sesiones." if closed else "No había otras sesiones abiertas."
        return schemas.SessionsClosed(success=True, message=message, closed=closed)


class AdminAuthController(Controller):
    path = "/api/admin"
    tags = ["admin"]
    dependencies = ACCOUNTS

    @post("/login", status_code=200, operation_id="adminLogin", opt={"errors": (401, 403, 429)})
    async def login(
        self, request: Request, accounts: Accounts, ip: ClientIP, data: JSONBody[schemas.LoginRequest]
    ) -> schemas.LoginResponse:
        access, refresh = await accounts.login(data, ADMIN, ip, request.headers.get("user-agent"))
        return schemas.LoginResponse(access=access, refresh=refresh, message="Sesión iniciada correctamente.")

    @get("/verify-token", operation_id="adminVerifyToken", guards=[admin_or_support])
    async def verify_token(
        self, accounts: Accounts, db: DB, switches: SwitchesDep, staff: Staff
    ) -> schemas.CurrentUser:
        return current_user_view(await accounts.get_user(db, staff.user_id), switches)


class AdminUserController(Controller):
    path = "/api/admin/users"
    tags = ["admin"]
    dependencies = STAFF_USERS

    @get("/", operation_id="adminSearchUsers", guards=[admin_or_support])
    async def search(
        self,
        staff_users: StaffUsersDep,
        db: DB,
        q: Search = "",
        blocked: Annotated[bool | None, QueryParameter()] = None,
        role: Annotated[str, QueryParameter(max_length=16)] = "",
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> staff_schemas.UserPage:
        return await staff_users.search(db, q, blocked, role, page, page_size)

    @get("/{user_id:str}", operation_id="adminGetUser", guards=[admin_or_support])
    async def read(self, staff_users: StaffUsersDep, db: DB, user_id: FromPath[str]) -> staff_schemas.UserDetail:
        return await staff_users.detail(db, user_id)

    @patch(
        "/{user_id:str}", operation_id="adminUpdateUser", guards=[admin_or_support],
        opt=audited(AuditAction.USER_BLOCK, AuditAction.USER_UNBLOCK),
    )  # fmt: skip
    async def update(
        self, staff_users: StaffUsersDep, db: DB, audit: Audit, user_id: FromPath[str],
        data: JSONBody[staff_schemas.UserPatch],
    ) -> staff_schemas.UserRow:  # fmt: skip
        row = await staff_users.set_blocked(db, user_id, data.blocked)
        action = AuditAction.USER_BLOCK if data.blocked else AuditAction.USER_UNBLOCK
        text = "bloqueado; sesiones cerradas" if data.blocked else "desbloqueado"
        audit.note("user", row.id, f"Usuario {row.username} {text}", action)
        return row

    @delete(
        "/{user_id:str}", status_code=200, operation_id="adminDeleteUser", guards=[admin_only],
        opt=audited(AuditAction.USER_DELETE),
    )  # fmt: skip
    async def delete_user(
        self, staff_users: StaffUsersDep, db: DB, audit: Audit, user_id: FromPath[str]
    ) -> staff_schemas.UserRow:
        """Admins only: the account's peers, owned rooms and sessions go, its invoices stay (docs/security.md)."""
        username, row = await staff_users.delete(db, user_id)
        audit.note("user", row.id, f"Cuenta {username} eliminada; peers y sesiones cerrados")
        return row

    @post(
        "/{user_id:str}/password-reset",
        status_code=200,
        operation_id="adminSendPasswordReset",
        guards=[admin_or_support],
        opt=audited(AuditAction.USER_PASSWORD_RESET),
    )
    async def password_reset(
        self, staff_users: StaffUsersDep, mailer: MailerDep, db: DB, audit: Audit, user_id: FromPath[str]
    ) -> Response[Done]:
        user, mail = await staff_users.password_reset_email(db, user_id)
        audit.note("user", user.id, f"Enlace de restablecimiento enviado a {user.username}")
        done = Done(success=True, message=f"Enlace para restablecer la contraseña enviado a {user.email}.")
        return Response(done, background=_mail_task(mailer, mail))

    @post(
        "/{user_id:str}/verification",
        status_code=200,
        operation_id="adminResendVerification",
        guards=[admin_or_support],
        opt=audited(AuditAction.USER_VERIFICATION),
    )
    async def verification(
        self, staff_users: StaffUsersDep, mailer: MailerDep, db: DB, audit: Audit, user_id: FromPath[str]
    ) -> Response[Done]:
        user, mail = await staff_users.verification_email(db, user_id)
        audit.note("user", user.id, f"Verificación de email reenviada a {user.username}")
        done = Done(success=True, message=f"Email de verificación enviado a {user.email}.")
        return Response(done, background=_mail_task(mailer, mail))
