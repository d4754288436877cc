"""Every action the audit log records. The manager shows each by a Spanish label kept beside this list
(webui/src/features/manager/audit-actions.ts); tests/unit/test_audit_actions.py fails when the two drift."""

from __future__ import annotations

import enum


class AuditAction(enum.StrEnum):
    USER_BLOCK = "user.block"
    USER_UNBLOCK = "user.unblock"
    USER_DELETE = "user.delete"
    USER_PASSWORD_RESET = "user.password_reset"  # noqa: S105 - an action name, not a password
    USER_VERIFICATION = "user.verification"
    SERVER_CREATE = "server.create"
    SERVER_UPDATE = "server.update"
    SERVER_CREDENTIAL_REISSUE = "server.credential_reissue"
    SERVER_CREDENTIAL_REVOKE = "server.credential_revoke"
    PEER_CREATE = "peer.create"
    PEER_UPDATE = "peer.update"
    PEER_MOVE = "peer.move"
    PEER_EXTEND = "peer.extend"
    PEER_RENAME = "peer.rename"
    PLAN_CREATE = "plan.create"
    PLAN_UPDATE = "plan.update"
    ANNOUNCEMENT_CREATE = "announcement.create"
    ANNOUNCEMENT_UPDATE = "announcement.update"
    ANNOUNCEMENT_DELETE = "announcement.delete"
    RELEASE_CREATE = "release.create"
    RELEASE_DELETE = "release.delete"
    INVOICE_MANUAL_PAYMENT = "invoice.manual_payment"
    SWITCHES_UPDATE = "switches.update"
