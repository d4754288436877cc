"""Public configuration and the status check: what the web client reads before anything else."""

from __future__ import annotations

import msgspec
from litestar import Controller, get, patch
from litestar.params import JSONBody

from controlplane.dependencies import DB, Audit, SettingsDep, SwitchesDep
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.switches.dependencies import SWITCHES, SwitchServiceDep
from controlplane.domain.switches.service import Switches
from controlplane.errors import Invalid
from controlplane.field_names import changes_text


class Captcha(msgspec.Struct):
    provider: str
    site_key: str


class PublicConfig(msgspec.Struct):
    maintenance: bool
    allow_registration: bool
    allow_password_recovery: bool
    show_landing: bool
    allow_payments_qvapay: bool
    allow_payments_remesita: bool
    allow_email: bool
    allow_partys: bool
    product_name: str
    support_url: str
    client_url: str
    captcha: Captcha | None


class Status(msgspec.Struct):
    maintenance: bool


class PublicConfigController(Controller):
    path = "/api/client"
    tags = ["config"]

    @get("/", operation_id="getPublicConfig", opt={"maintenance_exempt": True}, cache_control=None)
    async def public_config(self, settings: SettingsDep, switches: SwitchesDep) -> PublicConfig:
        captcha = Captcha(settings.captcha_provider, settings.captcha_site_key) if settings.captcha_enabled else None
        return PublicConfig(
            **msgspec.structs.asdict(switches),
            product_name=settings.product_name,
            support_url=settings.support_url,
            client_url=settings.client_url,
            captcha=captcha,
        )

    @get("/status", operation_id="getStatus", opt={"maintenance_exempt": True})
    async def status(self, switches: SwitchesDep) -> Status:
        return Status(maintenance=switches.maintenance)


class SwitchesPatch(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    maintenance: bool | None = None
    allow_registration: bool | None = None
    allow_password_recovery: bool | None = None
    show_landing: bool | None = None
    allow_email: bool | None = None
    allow_partys: bool | None = None
    allow_payments_qvapay: bool | None = None
    allow_payments_remesita: bool | None = None


class AdminSwitchesController(Controller):
    path = "/api/admin/switches"
    tags = ["admin"]
    dependencies = SWITCHES

    @get("/", operation_id="adminGetSwitches", guards=[admin_or_support])
    async def read(self, switches: SwitchesDep) -> Switches:
        return switches

    @patch("/", operation_id="adminUpdateSwitches", guards=[admin_only], opt=audited(AuditAction.SWITCHES_UPDATE))
    async def update(
        self, switch_service: SwitchServiceDep, db: DB, audit: Audit, data: JSONBody[SwitchesPatch]
    ) -> Switches:
        changes = {k: v for k, v in msgspec.structs.asdict(data).items() if v is not None}
        if not changes:
            raise Invalid("Indique al menos un interruptor.", code="nothing_to_change")
        switches = await switch_service.update(db, changes)
        summary = changes_text(changes)
        audit.note("switches", None, summary)
        return switches
