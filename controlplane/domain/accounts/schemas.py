"""Request and response bodies of the account and session endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

# Caps stop oversized input at decoding; the contract's messages for blank fields come from the service
# (docs/contract.md#validation).
Username = Annotated[str, msgspec.Meta(max_length=64)]
Password = Annotated[str, msgspec.Meta(max_length=256)]
Email = Annotated[str, msgspec.Meta(max_length=254)]
Token = Annotated[str, msgspec.Meta(max_length=512)]


class Request(msgspec.Struct, forbid_unknown_fields=True):
    pass


CaptchaToken = Annotated[str, msgspec.Meta(max_length=8192)]


class LoginRequest(Request):
    username: Username
    password: Password
    remember: bool = False
    # Needed only once the account's failures ask for it (answer 422 `captcha_required`), when a captcha is set.
    captcha_token: CaptchaToken = ""


class LoginResponse(msgspec.Struct):
    access: str
    refresh: str
    message: str
    success: bool = True


class RefreshRequest(Request):
    refresh: Token


class TokenPair(msgspec.Struct):
    access: str
    refresh: str


class LogoutRequest(Request):
    refresh: Token | None = None


class RegisterRequest(Request):
    username: Username
    password: Password
    captcha_token: CaptchaToken = ""
    email: Email | None = None


class SuccessResponse(msgspec.Struct):
    success: bool
    message: str


class RecoveryRequest(Request):
    username: Username


class PasswordResetRequest(Request):
    token: Token
    password: Password


class VerifyEmailRequest(Request):
    token: Token


class WebSettings(msgspec.Struct):
    allow_partys: bool
    allow_email: bool


class CurrentUser(msgspec.Struct):
    username: str
    alias: str | None
    email: str | None
    web_settings: WebSettings
    email_verified: bool = False
    role: str = "customer"


class DeleteAccountRequest(Request):
    """The account's own password confirms deleting it."""

    password: Password


class SettingsPatch(Request):
    """Exactly one change per call: email, alias, or a password change."""

    email: Email | None = None
    alias: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    old_password: Password | None = None
    new_password: Password | None = None


class SettingsResult(CurrentUser):
    """The updated user (it replaces the client's copy) plus the success message to show."""

    message: str = ""


def settings_result(user: CurrentUser, message: str) -> SettingsResult:
    return SettingsResult(**msgspec.structs.asdict(user), message=message)


class SessionView(msgspec.Struct):
    """One open session of the caller's account, as the owner's list of sessions shows it."""

    id: str
    device: str | None  # the user agent of its last login or token refresh
    address: str | None  # the address of its last login or token refresh
    created: datetime
    last_used: datetime  # its login or its last token refresh (about every 15 minutes while in use)
    current: bool  # the session making this request


class CloseSessionRequest(Request):
    """Closing another session needs the account's password (a stolen session must not close the owner's); closing
    the caller's own does not."""

    password: Password = ""


class CloseOthersRequest(Request):
    password: Password


class SessionsClosed(msgspec.Struct):
    success: bool
    message: str
    closed: int  # how many sessions ended
