"""Moved to controlplane/domain/accounts/staff.py; services.py still imports StaffUsers from here."""

from __future__ import annotations

from controlplane.domain.accounts.staff import StaffUsers

__all__ = ["StaffUsers"]
