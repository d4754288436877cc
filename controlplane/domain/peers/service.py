"""Peer rules: listing, configuration files, mirror links, key rotation, moving between servers, expiry."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal, Protocol, cast

import msgspec
from sqlalchemy import bindparam, case, func, inspect, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox, random_token
from controlplane.db import after_commit, transaction, utcnow
from controlplane.domain.accounts.living import lock_living_account
from controlplane.domain.guest_passes.rules import is_guest_peer
from controlplane.domain.peers import operations, schemas
from controlplane.domain.peers.config_file import DISCOVERY_ROUTES, FULL_TUNNEL, ClientConfig, UnsafeValue, render
from controlplane.domain.peers.errors import PeerInactive, PeerNotFound
from controlplane.domain.peers.lists import PEER_LIST_SECONDS, PEER_LISTS, peer_tag, user_tag
from controlplane.domain.peers.models import ONE_PEER, Peer, PlanHistory
from controlplane.domain.peers.operations import change_server
from controlplane.domain.peers.operations.base import server_label
from controlplane.domain.servers.addresses import allocate
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_in_sync, is_online, online_clause
from controlplane.domain.versions import DELETED, version_of_flushed
from controlplane.errors import Conflict, Invalid
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import NodeOperations
from controlplane.ratelimit import RateLimiter
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub
from controlplane.realtime.invalidation import CacheInvalidation
from controlplane.wgkeys import generate_keypair, generate_preshared_key

log = logging.getLogger(__name__)
PEER_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
# The configuration's field each refused value came from, by the server's own column name (for the operator's log).
_SERVER_FIELD = {
    "dns": "dns",
    "endpoint_host": "address",
    "endpoint_port": "port",
    "server_public_key": "public_key",
    "allowed_ips": "tunnel_subnet",  # a guest's split tunnel lists every server's
}
MISCONFIGURED = (
    "El servidor de este peer tiene un error de configuración: avise a soporte o cambie el peer de servidor."
)
INACTIVE_DOWNLOAD = "No se puede descargar la configuración de un peer inactivo"
ADDRESS_RETRIES = 5


class RoomHooks(Protocol):
    """What the room service does when a peer changes server or is deleted (RoomService)."""

    async def peer_moved(self, db: AsyncSession, peer: Peer, old_server_id: str) -> None: ...

    async def peer_deleting(self, db: AsyncSession, peer: Peer) -> None: ...

    async def peer_renamed(self, db: AsyncSession, peer: Peer) -> None: ...


PEER_NAME_RULE = "El nombre del peer debe tener entre 1 y 32 caracteres: letras, números, guion o guion bajo."
NAME_TAKEN = "Ya tiene un peer con ese nombre."


def validate_peer_name(name: str, field: str = "peer") -> str:
    """The peer name rule (docs/api.md, "Plans and invoices"); `field`: the body field the name came in."""
    name = name.strip()
    if not PEER_NAME_RE.match(name):
        raise Invalid(PEER_NAME_RULE, code="invalid_peer_name", fields={field: "Nombre inválido."})
    return name


def disabled_reason(peer: Peer) -> Literal["admin", "expired"] | None:
    if peer.active:
        return None
    return "admin" if peer.disabled_by_staff else "expired"


def running_operation(peer: Peer) -> schemas.RunningOperation | None:
    """The operation the peer waits for, as its owner reads it (docs/api.md, "Peer operations"): its module says
    where it happens and what the owner reads meanwhile."""
    if peer.pending_operation_id is None or peer.pending_kind is None or peer.pending_since is None:
        return None
    operation = operations.by_kind(peer.pending_kind)
    if operation is not None and operation.running is not None:
        where, message = operation.running(peer)
    else:
        where, message = peer.server, f"Operación en curso en {server_label(peer.server)}…"
    return schemas.RunningOperation(
        kind=cast(schemas.OperationKindName, peer.pending_kind),
        server=schemas.ServerName(id=where.id, name=where.name, ubication=where.ubication),
        since=peer.pending_since,
        message=message,
    )


def server_offline(server: Server) -> str:
    """What an offline server means for the peer, and the way out (the client names the recommended server)."""
    return (
        f"El servidor {server_label(server)} no responde: este peer no tiene conexión hasta que vuelva. Si no puede"
        " esperar, muévalo a otro servidor en línea y descargue de nuevo la configuración."
    )


def last_outcome(peer: Peer) -> schemas.OperationOutcome | None:
    if peer.outcome_kind is None or peer.outcome_message is None or peer.outcome_at is None:
        return None
    return schemas.OperationOutcome(
        kind=cast(Literal["create", "regenerate", "change_server"], peer.outcome_kind),
        ok=bool(peer.outcome_ok),
        message=peer.outcome_message,
        at=peer.outcome_at,
    )


def _room_ref(peer: Peer) -> schemas.RoomRef | None:
    """The peer's room. A peer made in this transaction has no membership loaded (and none to load)."""
    if "membership" in inspect(peer).unloaded or peer.membership is None:
        return None
    return schemas.RoomRef(id=peer.membership.room.id, name=peer.membership.room.name)


async def _room_routes(db: AsyncSession, server: Server) -> tuple[str, ...]:
    """A split tunnel's AllowedIPs: every server's tunnel subnet (room mates on other servers come over the
    backbone), the peer's own server's first, the others by age so that a new server only appends; then LAN
    discovery (config_file.DISCOVERY_ROUTES)."""
    others = await db.scalars(
        select(Server.tunnel_subnet).where(Server.id != server.id).order_by(Server.created, Server.id)
    )
    subnets = dict.fromkeys([server.tunnel_subnet, *others])  # unique by the servers' own check; kept in order
    return (*subnets, *DISCOVERY_ROUTES)


_OWNED = ONE_PEER.where(Peer.id == bindparam("peer_id"), Peer.user_id == bindparam("user_id"))
_OWNED_LOCKED = _OWNED.with_for_update(of=Peer)


async def owned_peer(db: AsyncSession, user_id: str, peer_id: str, *, lock: bool = False) -> Peer:
    """The user's own peer; anyone else's answers exactly like a missing one."""
    found = await db.execute(_OWNED_LOCKED if lock else _OWNED, {"peer_id": peer_id, "user_id": user_id})
    peer = found.unique().scalar_one_or_none()
    if peer is None:
        raise PeerNotFound()
    return peer


class PeerService:
    def __init__(
        self,
        box: SecretBox,
        nodes: NodeOperations,
        hub: PushHub,
        client_url: str,
        invalidation: CacheInvalidation,
        rooms: RoomHooks,
        read_sessionmaker: async_sessionmaker[AsyncSession],
    ) -> None:
        self._box = box
        self._nodes = nodes
        self._hub = hub
        self._client_url = client_url
        # Customers' lists, by user id; emptied by whatever changes them (domain/peers/lists.py).
        self._invalidation = invalidation
        self._lists = invalidation.cache(PEER_LISTS, PEER_LIST_SECONDS)
        self._rooms = rooms
        self._read_sessionmaker = read_sessionmaker  # a list not cached is read in a transaction of its own

    # What the operation modules (domain/peers/operations/) use to start and settle: the secrets' box, the one door
    # to the nodes and the room service's hooks.
    @property
    def box(self) -> SecretBox:
        return self._box

    @property
    def nodes(self) -> NodeOperations:
        return self._nodes

    @property
    def room_hooks(self) -> RoomHooks:
        return self._rooms

    # --- reading --------------------------------------------------------------------------------------------

    def view(self, peer: Peer) -> schemas.PeerView:
        """The peer as its owner sees it; its changes must be flushed first (domain/versions.py)."""
        server = peer.server
        return schemas.PeerView(
            id=peer.id,
            name=peer.name,
            active=peer.active,
            created=peer.created,
            expiration_date=peer.expiration_date,
            manual_payment=peer.manual_payment,
            plans_history=[
                schemas.PlanHistoryItem(plan_name=h.plan_name, plan_price=f"{h.plan_price:.2f}", created=h.created)
                for h in peer.plans_history
            ],
            server=schemas.PeerServer(
                id=server.id,
                name=server.name,
                address=server.address,
                active=server.active,
                ubication=server.ubication,
                allow_partys=server.hosts_rooms,  # a disabled server hosts no rooms (docs/api.md)
                online=is_online(server),
                in_sync=is_in_sync(server),
            ),
            mirror_link=self.mirror_link(peer),
            party=_room_ref(peer),
            address=peer.address,
            processing=peer.pending_operation_id is not None,
            version=version_of_flushed(peer),
            disabled_reason=disabled_reason(peer),
            shared_config_warning=peer.shared_config_warned_at is not None,
            mirror_binding=peer.mirror_device_binding,
            mirror_bound=peer.mirror_device_hash is not None,
            operation=running_operation(peer),
            last_outcome=last_outcome(peer),
            server_notice=(server_offline(server) if server.active and not is_online(server) else None),
            **operations.view_fields(peer),
        )

    def mirror_link(self, peer: Peer) -> str:
        return f"{self._client_url}/mirror/{self._box.decrypt(peer.mirror_token_enc)}"

    async def list_json_for(self, user_id: str) -> bytes:
        """The customer's peers (a JSON array of PeerView), as `GET /accounts/peers` answers them; served from this
        process's cache, encoded, while nothing they show has changed (and then without a database session at all:
        docs/benchmarks.md, "Peer list")."""
        cached: bytes | None = self._lists.get(user_id)
        if cached is not None:
            return cached
        async with transaction(self._read_sessionmaker) as db:
            generation = self._invalidation.generation(db, self._lists)
            peers = await db.execute(select(Peer).where(Peer.user_id == user_id).order_by(Peer.created, Peer.name))
            views = [self.view(p) for p in peers.scalars()]
        body = msgspec.json.encode(views)
        self._lists.put(user_id, body, [user_tag(user_id), *(peer_tag(v.id) for v in views)], generation)
        return body

    async def owned(self, db: AsyncSession, user_id: str, peer_id: str, *, lock: bool = False) -> Peer:
        return await owned_peer(db, user_id, peer_id, lock=lock)

    async def by_id(self, db: AsyncSession, peer_id: str) -> Peer:
        """Any user's peer: for staff and jobs only."""
        peer = await db.get(Peer, peer_id)
        if peer is None:
            raise PeerNotFound()
        return peer

    async def config_text(self, db: AsyncSession, peer: Peer) -> str:
        """The peer's wg-quick file (docs/api.md). A guest pass's peer gets a split tunnel: only the service's
        tunnel subnets and LAN discovery enter it, and no DNS line, so the guest keeps their own internet
        (docs/rooms.md, "Guest pass peers")."""
        if not peer.active:
            raise PeerInactive(INACTIVE_DOWNLOAD)
        server = peer.server
        if not server.public_key:
            raise Conflict(
                "El servidor del peer aún no está listo. Intente de nuevo en unos minutos.", code="server_not_ready"
            )
        allowed_ips, dns = FULL_TUNNEL, server.dns
        if await is_guest_peer(db, peer.id):
            allowed_ips, dns = await _room_routes(db, server), ""
        try:
            return render(
                ClientConfig(
                    private_key=self._box.decrypt(peer.private_key_enc),
                    address=peer.address,
                    dns=dns,
                    server_public_key=server.public_key,
                    preshared_key=self._box.decrypt(peer.preshared_key_enc),
                    endpoint_host=server.address,
                    endpoint_port=server.port,
                    allowed_ips=allowed_ips,
                )
            )
        except UnsafeValue as refused:
            # Never a configuration with a line the template did not write (docs/security.md, "Third round"): the
            # customer hears that the server is at fault, the operator which server and field to fix.
            field = _SERVER_FIELD.get(refused.field, f"peer.{refused.field}")
            log.error(
                "server %s: control character in its %s, configurations refused until staff correct it",
                server.id,
                field,
                extra={"code": "server_misconfigured", "server_id": server.id, "field": field, "peer_id": peer.id},
            )
            raise Conflict(MISCONFIGURED, code="server_misconfigured") from None

    async def by_mirror_token(self, db: AsyncSession, token: str) -> Peer | None:
        peer = (
            await db.execute(select(Peer).where(Peer.mirror_token_hash == self._box.lookup_hash(token)))
        ).scalar_one_or_none()
        return peer if peer is not None and peer.active else None

    async def available_servers(self, db: AsyncSession, user_id: str, peer_id: str) -> list[schemas.ServerOption]:
        """The servers the peer may move to, with their load; the least loaded one that can take the peer as it is
        comes out `recommended` (docs/api.md, "Servers for a peer")."""
        peer = await self.owned(db, user_id, peer_id)
        counts = (
            select(Peer.server_id, func.count().label("n")).where(Peer.active.is_(True)).group_by(Peer.server_id)
        ).subquery()
        rows = (
            await db.execute(
                select(Server, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.server_id == Server.id)
                .where(Server.active.is_(True), Server.id != peer.server_id)
                .order_by(Server.name)
            )
        ).all()
        options = [
            schemas.ServerOption(
                id=s.id,
                address=s.address,
                name=s.name,
                active=s.active,
                ubication=s.ubication,
                allow_partys=s.allow_partys,
                online=is_online(s),
                in_sync=is_in_sync(s),
                peers=n,
                # The node's latest report; an offline node's last figures would be stale.
                connected_peers=s.stats_peers_connected if is_online(s) else 0,
            )
            for s, n in rows
        ]
        in_room = _room_ref(peer) is not None
        fits = [
            (n / max(s.capacity, 1), option.connected_peers, option.name, option)
            for (s, n), option in zip(rows, options, strict=True)
            # Online (a move elsewhere is refused), with room left, and hosting rooms if the peer is in one (a
            # move to a server without rooms takes it out of its room).
            if option.online and n < s.capacity and (s.hosts_rooms or not in_room)
        ]
        if fits:
            min(fits, key=lambda fit: fit[:3])[3].recommended = True
        return options

    # --- customer operations ----------------------------------------------------------------------------------

    async def operate(
        self, db: AsyncSession, limiter: RateLimiter, user_id: str, peer_id: str, request: object
    ) -> operations.Done | operations.Accepted:
        """A customer's operation on their peer (`PATCH /accounts/peers/{id}`), run by its module."""
        operation = operations.by_request(request)
        assert operation.start is not None  # every module with a request starts
        return await operation.start(operations.Context(self, limiter), db, user_id, peer_id, request)

    async def change_server(self, db: AsyncSession, user_id: str, peer_id: str, server_id: str | None) -> Peer:
        """Staff's move of a customer's peer: the customer's own (operations/change_server.py)."""
        return await change_server.move(self, db, user_id, peer_id, server_id)

    async def active_owned(self, db: AsyncSession, user_id: str, peer_id: str) -> Peer:
        """The user's own active peer, locked."""
        peer = await self.owned(db, user_id, peer_id, lock=True)
        if not peer.active:
            raise PeerInactive()
        return peer

    async def claim(self, db: AsyncSession, user_id: str, peer_id: str) -> Peer:
        """The user's own active peer, locked, with no operation running: one about to start one."""
        peer = await self.active_owned(db, user_id, peer_id)
        if peer.pending_operation_id is not None:
            raise Conflict("Ya hay una operación en curso para este peer.", code="peer_busy")
        return peer

    async def rename(
        self, db: AsyncSession, user_id: str, peer_id: str, name: str, taken_message: str = NAME_TAKEN
    ) -> Peer:
        """Synchronous, for the owner or staff: a new name under the peer name rule, free among the account's peers
        without regard to case. Only a label: the node never sees it, so it works on a disabled peer or during an
        operation. The account's row is locked first, as `create` does, so two renames (or a purchase creating a
        peer) cannot both take one name."""
        name = validate_peer_name(name, "name")
        await lock_living_account(db, user_id)
        peer = await self.owned(db, user_id, peer_id, lock=True)
        if name == peer.name:
            return peer
        taken = await db.scalar(
            select(func.count())
            .select_from(Peer)
            .where(Peer.user_id == user_id, Peer.id != peer.id, func.lower(Peer.name) == name.lower())
        )
        if taken:
            raise Conflict(taken_message, code="peer_name_taken", fields={"name": "Ya existe."})
        peer.name = name
        await db.flush()
        # The owner's other pages, and every member of its room (they see its name in the room's list).
        self._push_after_commit(db, user_id, messages.UpdatedPeer(data=self.view(peer)))
        await self._rooms.peer_renamed(db, peer)
        return peer

    # --- creation, plans, expiry (payments and admins) ---------------------------------------------------------

    async def create(
        self,
        db: AsyncSession,
        user_id: str,
        name: str,
        *,
        server: Server | None = None,
        expiration_date: datetime | None = None,
        plan: tuple[str | None, str, Decimal] | None = None,
    ) -> Peer:
        """A new peer with fresh keys on `server` (or the active server with the most room), for an account that
        still exists: staff cannot give a deleted account a peer, nor can a payment settling as it is deleted."""
        name = validate_peer_name(name)
        await lock_living_account(db, user_id)
        taken = await db.scalar(
            select(func.count()).select_from(Peer).where(Peer.user_id == user_id, func.lower(Peer.name) == name.lower())
        )
        if taken:
            raise Conflict(NAME_TAKEN, code="peer_name_taken")
        server = server or await self.roomiest_server(db)
        peer = Peer(user_id=user_id, name=name, expiration_date=expiration_date, server_id=server.id, plans_history=[])
        peer.server = server
        self._set_keys(peer)
        self.new_mirror_token(peer)
        await self.place(db, peer, server)
        if plan is not None:
            plan_id, plan_name, price = plan
            peer.plans_history.append(PlanHistory(plan_id=plan_id, plan_name=plan_name, plan_price=price))
            await db.flush()
        await self._nodes.change(
            db, server.id, OperationKind.CREATE, NodeChange.peer_added(peer.id), user_id=user_id, peer=peer
        )
        return peer

    async def roomiest_server(self, db: AsyncSession) -> Server:
        counts = (
            select(Peer.server_id, func.count().label("n")).where(Peer.active.is_(True)).group_by(Peer.server_id)
        ).subquery()
        free = Server.capacity - func.coalesce(counts.c.n, 0)
        # A server whose agent is not connected (a new one not installed yet, one that went down) would leave the
        # customer's new peer waiting: servers seen recently come first, the others only when none is.
        seen_recently = case((online_clause(), 0), else_=1)
        row = (
            await db.execute(
                select(Server)
                .outerjoin(counts, counts.c.server_id == Server.id)
                .where(Server.active.is_(True), free > 0)
                .order_by(seen_recently, free.desc(), Server.name)
                .limit(1)
            )
        ).scalar_one_or_none()
        if row is None:
            raise Conflict("No hay servidores disponibles temporalmente.", code="no_server_available")
        return row

    async def set_active(
        self, db: AsyncSession, peer: Peer, active: bool, message: str | None = None, by_staff: bool = False
    ) -> None:
        """Disable (the node drops the peer; downloads refused) or enable again (the node adds it back).

        `by_staff`: staff's own switch. Staff disabling marks the peer so payments do not bring it back; staff
        enabling clears the mark. The expiry job and payments pass False."""
        if by_staff:
            peer.disabled_by_staff = not active
        if peer.active == active:
            return
        await self.cancel_pending(db, peer, "cancelled: el peer se deshabilitó o habilitó mientras tanto")
        peer.active = active
        delta = NodeChange.peer_added(peer.id) if active else NodeChange.peer_removed(peer.public_key)
        kind = OperationKind.ENABLE if active else OperationKind.DISABLE
        await self._nodes.change(db, peer.server_id, kind, delta, user_id=peer.user_id, peer=peer)
        if message:
            self._push_after_commit(
                db, peer.user_id, messages.InfoPush(message=message, data=messages.Subject(peer.id))
            )

    async def delete(self, db: AsyncSession, peer: Peer) -> None:
        """Delete a peer: it leaves its room first (nodes and users hear of it), its node drops its key, and the
        owner hears `deleted_peer` once the node confirms. Its tunnel address is free from this commit on."""
        await self.cancel_pending(db, peer, "cancelled: el peer se borró mientras tanto")
        await self._rooms.peer_deleting(db, peer)
        removal = NodeChange.peer_removed(peer.public_key)
        await self._nodes.change(db, peer.server_id, OperationKind.REMOVE, removal, user_id=peer.user_id, peer=peer)
        await db.delete(peer)
        await db.flush()

    async def add_plan(
        self, db: AsyncSession, peer: Peer, plan_id: str | None, name: str, price: Decimal, validity_hours: int
    ) -> None:
        """Extend from the later of now and the current expiration and record it in plans_history; an expired peer
        comes back, one staff disabled does not (docs/security.md). A peer without expiration keeps none (it is
        already unlimited); the row is still kept."""
        if peer.expiration_date is not None:
            peer.expiration_date = max(utcnow(), peer.expiration_date) + timedelta(hours=validity_hours)
        await db.refresh(peer, ["plans_history"])
        peer.plans_history.append(PlanHistory(plan_id=plan_id, plan_name=name, plan_price=price))
        await db.flush()
        if not peer.active and not peer.disabled_by_staff:
            await self.set_active(db, peer, True)

    async def expire_due(self, db: AsyncSession) -> int:
        """Disable every active peer whose expiration passed (the expiry job).

        The job lease keeps runs apart only while a run is shorter than the lease; on a slow machine two processes
        can overlap, so the rows are locked (PostgreSQL; SQLite writers are serialized anyway) and a row another
        run holds is skipped: it is that run's to disable."""
        due = await db.execute(
            select(Peer)
            .where(Peer.active.is_(True), Peer.expiration_date.is_not(None), Peer.expiration_date <= utcnow())
            .with_for_update(skip_locked=True, of=Peer)
        )
        peers = list(due.scalars())
        for peer in peers:
            await self.set_active(db, peer, False)
        return len(peers)

    # --- helpers ------------------------------------------------------------------------------------------------

    def _set_keys(self, peer: Peer) -> None:
        private, public = generate_keypair()
        peer.private_key_enc = self._box.encrypt(private)
        peer.public_key = public
        peer.preshared_key_enc = self._box.encrypt(generate_preshared_key())

    def new_mirror_token(self, peer: Peer) -> None:
        token = random_token()
        peer.mirror_token_hash = self._box.lookup_hash(token)
        peer.mirror_token_enc = self._box.encrypt(token)

    async def place(self, db: AsyncSession, peer: Peer, server: Server, *, pending: bool = False) -> None:
        """Give the peer the lowest free address on `server` (as its placement, or as its pending one); addresses
        held by pending moves count as taken. The server row's lock orders concurrent picks on one server; the
        unique constraints are the last word."""
        await db.execute(select(Server.id).where(Server.id == server.id).with_for_update())
        for _ in range(ADDRESS_RETRIES):
            used = (
                (
                    await db.execute(
                        select(Peer.address)
                        .where(Peer.server_id == server.id, Peer.id != peer.id)
                        .union_all(
                            select(Peer.pending_address).where(
                                Peer.pending_server_id == server.id,
                                Peer.pending_address.is_not(None),
                                Peer.id != peer.id,
                            )
                        )
                    )
                )
                .scalars()
                .all()
            )
            address = allocate(server.tunnel_subnet, [a for a in used if a])
            if pending:
                peer.pending_server_id, peer.pending_address = server.id, address
                peer.pending_server = server
            else:
                peer.address, peer.server_id, peer.server = address, server.id, server
            try:
                async with db.begin_nested():
                    db.add(peer)
                    await db.flush()
                return
            except IntegrityError:
                continue
        raise Conflict("No se pudo asignar una dirección. Intente de nuevo.", code="address_conflict")

    # --- make before break (docs/operations.md) -----------------------------------------------------------------

    async def cancel_pending(self, db: AsyncSession, peer: Peer, reason: str) -> None:
        """End the peer's pending move or key rotation as failed (its owner is told; the node is set back), before
        something else changes the peer: the pending state must never outlive its operation."""
        if peer.pending_server_id is not None and peer.pending_operation_id is not None:
            await self._nodes.finish(db, peer.pending_operation_id, reason)

    async def cancel_moves_to(self, db: AsyncSession, server_id: str) -> None:
        """The server was disabled: moves still waiting for it end as cancelled, so no peer lands on a server out of
        service (its owner is told; the peer stays where it is)."""
        rows = await db.execute(
            select(Peer)
            .where(Peer.pending_server_id == server_id, Peer.server_id != server_id)
            .order_by(Peer.id)
            .with_for_update(of=Peer)
        )
        for peer in rows.scalars().all():
            await self.cancel_pending(db, peer, "cancelled: el servidor de destino se deshabilitó")

    def _push_after_commit(self, db: AsyncSession, user_id: str, push: messages.PushMessage) -> None:
        after_commit(db, lambda: self._hub.push(user_id, push))

    async def operation_ended(self, db: AsyncSession, operation: NodeOperation, peer: Peer | None) -> None:
        """The outcome of an operation: settled by its module (which says what the owner is told), then pushed to
        the owner's browsers once it is committed."""
        user_id = operation.user_id
        if peer is None:
            if user_id is not None and operation.status is OperationStatus.OK and operation.peer_id is not None:
                gone = messages.ref(operation.peer_id, DELETED)  # the peer is gone
                self._push_after_commit(db, user_id, messages.DeletedPeer(data=gone))
            return
        module = operations.by_kind(operation.kind.value)
        told = await module.ended(self, db, operation, peer) if module is not None and module.ended else None
        if user_id is None:
            return
        if told is not None:
            # Kept on the peer: a poll or a reload says what this push says (docs/api.md, "Peer operations").
            peer.outcome_kind, peer.outcome_ok = operation.kind.value, operation.status is OperationStatus.OK
            peer.outcome_message, peer.outcome_at = told, utcnow()
            await db.flush()
        if "plans_history" in inspect(peer).unloaded:  # a peer loaded by a query has them (selectin) already
            await db.refresh(peer, ["plans_history"])
        if "membership" in inspect(peer).unloaded:
            await db.refresh(peer, ["membership"])
        await db.flush()  # the view carries the version of what it shows (domain/versions.py)
        view = self.view(peer)
        if operation.batch_id is not None:
            # Part of a batch that tells its owner one result for all its peers (a room move, domain/rooms/
            # move_all.py): the list gets the peer as it now is, the words come once, from the batch.
            self._push_after_commit(db, user_id, messages.UpdatedPeer(data=view))
            return
        if operation.status is OperationStatus.OK:
            if operation.kind is OperationKind.CREATE:
                done: messages.PushMessage = messages.CreatedPeer(message=told, data=view)
            else:
                done = messages.UpdatedPeer(message=told, data=view)
            self._push_after_commit(db, user_id, done)
            return
        if operation.kind not in (OperationKind.DISABLE, OperationKind.ENABLE):
            # A switch stands whatever its node said: the database is the truth, and the node converges to it (the
            # agent resyncs after an error, a node that was down gets a snapshot), so there is no failure to tell
            # (docs/operations.md, "What the customer is told").
            message = told or "Hubo un error al realizar la operación."
            self._push_after_commit(db, user_id, messages.ErrorPush(message=message, data=messages.Subject(peer.id)))
        # The busy flag is cleared either way: send the peer too, so the list shows its current state.
        self._push_after_commit(db, user_id, messages.UpdatedPeer(data=view))
