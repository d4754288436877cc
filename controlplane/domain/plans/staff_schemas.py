"""Plans as the manager's Planes page reads and edits them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from controlplane.domain.staff_forms import Name


class StaffPlan(msgspec.Struct):
    id: str
    name: str
    description: str
    validity_hours: int
    price: str
    visible: bool
    sort_order: int
    created: datetime
    guest_pass: bool = False


class PlanInput(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    validity_hours: Annotated[int, msgspec.Meta(ge=1, le=24 * 365 * 10)]
    price: Annotated[str, msgspec.Meta(max_length=16)]
    description: Annotated[str, msgspec.Meta(max_length=2000)] = ""
    visible: bool = True
    sort_order: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] = 0
    guest_pass: bool = False  # a guest pass: at most GUEST_PASS_MAX_HOURS (staff.py)


class PlanPatch(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    name: Name | None = None
    validity_hours: Annotated[int, msgspec.Meta(ge=1, le=24 * 365 * 10)] | None = None
    price: Annotated[str, msgspec.Meta(max_length=16)] | None = None
    description: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    visible: bool | None = None
    sort_order: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] | None = None
    guest_pass: bool | None = None
