"""The accounts' parts for their controllers (domain/accounts/controllers.py): accounts, sessions, the manager's
users and account deletion."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.accounts.deletion import AccountDeletion
from controlplane.domain.accounts.service import AccountService
from controlplane.domain.accounts.sessions import SessionService
from controlplane.domain.accounts.staff import StaffUsers


async def provide_accounts(request: Request[Any, Any, Any]) -> AccountService:
    return services_of(request).accounts


async def provide_sessions(request: Request[Any, Any, Any]) -> SessionService:
    return services_of(request).sessions


async def provide_staff_users(request: Request[Any, Any, Any]) -> StaffUsers:
    return services_of(request).staff_users


async def provide_deletion(request: Request[Any, Any, Any]) -> AccountDeletion:
    return services_of(request).deletion


Accounts = Part[AccountService]
Sessions = Part[SessionService]
StaffUsersDep = Part[StaffUsers]
Deletion = Part[AccountDeletion]

ACCOUNTS = {"accounts": Provide(provide_accounts), "sessions": Provide(provide_sessions)}
CUSTOMER_ACCOUNTS = {
    "accounts": after_customer(provide_accounts),
    "sessions": after_customer(provide_sessions),
    "deletion": after_customer(provide_deletion),
}
STAFF_USERS = {"staff_users": Provide(provide_staff_users)}
