"""Admin endpoints for servers and their agents (the manager's Servidores page)."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import DB, Audit
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.servers.dependencies import SERVER_ADMIN, ServerAdminDep
from controlplane.domain.servers.service import ServerInput, ServerPatch
from controlplane.domain.servers.status import ServerCreated, ServerStatus
from controlplane.field_names import changes_text


class AdminServerController(Controller):
    path = "/api/admin/servers"
    tags = ["admin"]
    dependencies = SERVER_ADMIN

    @get("/", operation_id="adminListServers", guards=[admin_or_support])
    async def list_servers(self, server_admin: ServerAdminDep, db: DB) -> list[ServerStatus]:
        return await server_admin.all(db)

    @get("/{server_id:str}", operation_id="adminGetServer", guards=[admin_or_support])
    async def read(self, server_admin: ServerAdminDep, db: DB, server_id: FromPath[str]) -> ServerStatus:
        return await server_admin.read(db, server_id)

    @post(
        "/", status_code=201, operation_id="adminCreateServer", guards=[admin_only],
        opt=audited(AuditAction.SERVER_CREATE),
    )  # fmt: skip
    async def create_server(
        self, server_admin: ServerAdminDep, db: DB, audit: Audit, data: JSONBody[ServerInput]
    ) -> ServerCreated:
        server, created = await server_admin.create(db, data)
        audit.note(
            "server", server.id,
            f"Servidor {server.name} ({server.address}:{server.port}, subred {server.tunnel_subnet})",
        )  # fmt: skip
        return created

    @patch(
        "/{server_id:str}",
        operation_id="adminUpdateServer",
        guards=[admin_only],
        opt=audited(AuditAction.SERVER_UPDATE),
    )
    async def update(
        self, server_admin: ServerAdminDep, db: DB, audit: Audit, server_id: FromPath[str], data: JSONBody[ServerPatch]
    ) -> ServerStatus:
        server, changes = await server_admin.update(db, server_id, data)
        audit.note("server", server.id, f"{server.name}: {changes_text(changes)}")
        return await server_admin.status(db, server)

    @post(
        "/{server_id:str}/credential", status_code=201, operation_id="adminReissueCredential", guards=[admin_only],
        opt=audited(AuditAction.SERVER_CREDENTIAL_REISSUE),
    )  # fmt: skip
    async def reissue(
        self, server_admin: ServerAdminDep, db: DB, audit: Audit, server_id: FromPath[str]
    ) -> ServerCreated:
        """A new credential; the old one is refused from now on and the agent's open stream ends."""
        server, created = await server_admin.reissue_credential(db, server_id)
        audit.note("server", server.id, f"Nueva credencial para {server.name}")
        return created

    @delete(
        "/{server_id:str}/credential", status_code=200, operation_id="adminRevokeCredential", guards=[admin_only],
        opt=audited(AuditAction.SERVER_CREDENTIAL_REVOKE),
    )  # fmt: skip
    async def revoke(
        self, server_admin: ServerAdminDep, db: DB, audit: Audit, server_id: FromPath[str]
    ) -> ServerStatus:
        server = await server_admin.revoke_credential(db, server_id)
        audit.note("server", server.id, f"Credencial revocada: {server.name}")
        return await server_admin.status(db, server)
