"""Every table of the control plane, imported in one place so that metadata (and Alembic) sees them all."""

from controlplane.db import Base
from controlplane.domain.accounts.models import LoginSession, OneTimeLink, RefreshToken, User
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.domain.audit.models import AuditEntry
from controlplane.domain.guest_passes.models import GuestPass
from controlplane.domain.invoices.models import Invoice
from controlplane.domain.paylinks.models import PaymentLink, PaymentLinkInvoice
from controlplane.domain.peers.models import ExpiryReminder, Peer, PlanHistory
from controlplane.domain.plans.models import Plan
from controlplane.domain.rooms.models import Room, RoomGame, RoomMember
from controlplane.domain.servers.models import Server
from controlplane.domain.switches.models import Switch
from controlplane.domain.usage.models import PeerUsageDay, PeerUsageHour, ServerUsageDay, ServerUsageHour, UsageCounter
from controlplane.jobs.models import JobLease
from controlplane.nodes.models import NodeOperation

__all__ = [
    "Announcement",
    "AuditEntry",
    "Base",
    "ClientRelease",
    "ExpiryReminder",
    "GuestPass",
    "Invoice",
    "JobLease",
    "LoginSession",
    "NodeOperation",
    "OneTimeLink",
    "PaymentLink",
    "PaymentLinkInvoice",
    "Peer",
    "PeerUsageDay",
    "PeerUsageHour",
    "Plan",
    "PlanHistory",
    "RefreshToken",
    "Room",
    "RoomGame",
    "RoomMember",
    "Server",
    "ServerUsageDay",
    "ServerUsageHour",
    "Switch",
    "UsageCounter",
    "User",
]
