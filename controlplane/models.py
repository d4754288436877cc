"""Every table of the control plane, imported in one place so that metadata (and Alembic) sees them all."""

from controlplane.db import Base
from controlplane.domain.accounts.models import LoginSession, OneTimeLink, RefreshToken, User
from controlplane.domain.switches.models import Switch

__all__ = ["Base", "LoginSession", "OneTimeLink", "RefreshToken", "Switch", "User"]
