"""The long-lived parts the app is made of, built once from the settings and shared by every request."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from controlplane.captcha import CaptchaVerifier
from controlplane.crypto import SecretBox
from controlplane.db import create_engine, create_read_sessionmaker, create_sessionmaker, session_class_of
from controlplane.domain.accounts.deletion import AccountDeletion
from controlplane.domain.accounts.service import AccountService
from controlplane.domain.accounts.sessions import SessionService
from controlplane.domain.accounts.staff import StaffUsers
from controlplane.domain.audit.service import AuditLog
from controlplane.domain.guest_passes.service import GuestPassService
from controlplane.domain.invoices.service import InvoiceService
from controlplane.domain.paylinks.service import PaymentLinkService
from controlplane.domain.peers.devices import SharedConfigWatch
from controlplane.domain.peers.lists import watch_peer_lists
from controlplane.domain.peers.reminders import ExpiryReminders
from controlplane.domain.peers.service import PeerService
from controlplane.domain.rooms.lobby import Lobby
from controlplane.domain.rooms.move_all import RoomMoves
from controlplane.domain.rooms.service import RoomService
from controlplane.domain.servers.service import ServerService
from controlplane.domain.switches.service import SwitchService
from controlplane.domain.usage.meter import UsageMeter
from controlplane.mail import Mailer
from controlplane.nodes.agent_sessions import AgentSessions
from controlplane.nodes.operations import NodeOperations
from controlplane.nodes.registry import AgentRegistry
from controlplane.nodes.send_ahead import SendAhead
from controlplane.observability.metrics import ControlPlaneMetrics
from controlplane.passwords import Passwords
from controlplane.payments import build_gateways
from controlplane.ratelimit import MemoryRateLimiter, RateLimiter, RedisRateLimiter
from controlplane.realtime.bus import EventBus
from controlplane.realtime.handshakes import HandshakeChecks
from controlplane.realtime.hub import PushHub
from controlplane.realtime.invalidation import CacheInvalidation
from controlplane.realtime.slots import MemorySocketSlots, RedisSocketSlots, SocketSlots
from controlplane.realtime.topics import NODE_CHANGED
from controlplane.settings import Settings


@dataclass
class Services:
    settings: Settings
    box: SecretBox
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    # For transactions that only read (GET requests): no write lock on SQLite.
    read_sessionmaker: async_sessionmaker[AsyncSession]
    redis: Redis | None
    http: httpx.AsyncClient
    limiter: RateLimiter
    passwords: Passwords
    mailer: Mailer
    switches: SwitchService
    sessions: SessionService
    accounts: AccountService
    bus: EventBus
    invalidation: CacheInvalidation
    hub: PushHub
    socket_slots: SocketSlots
    handshakes: HandshakeChecks
    agents: AgentRegistry
    operations: NodeOperations
    # What agents' streams read and write (nodes/servicer.py carries their messages).
    agent_sessions: AgentSessions
    servers: ServerService
    peers: PeerService
    # Two devices on one peer, from the endpoints agents report (domain/peers/devices.py).
    devices: SharedConfigWatch
    metrics: ControlPlaneMetrics
    invoices: InvoiceService
    rooms: RoomService
    # The owner's "move my peers in the room there" and its one result (domain/rooms/move_all.py).
    room_moves: RoomMoves
    payment_links: PaymentLinkService
    guest_passes: GuestPassService
    audit: AuditLog
    staff_users: StaffUsers
    deletion: AccountDeletion
    reminders: ExpiryReminders

    async def start(self) -> None:
        await self.bus.start()

    async def close(self) -> None:
        await self.bus.stop()
        await self.socket_slots.close()
        await self.http.aclose()
        if self.redis is not None:
            await self.redis.aclose()
        await self.engine.dispose()


def build_services(settings: Settings) -> Services:
    box = SecretBox.from_file(settings.secret_key_file)
    engine = create_engine(settings.database_url, pooled=settings.database_pool)
    sessionmaker = create_sessionmaker(engine)
    read_sessionmaker = create_read_sessionmaker(engine, session_class_of(sessionmaker))
    # A Redis that does not answer must not hang requests (limiter, publish): give up connecting after 3 s.
    redis = Redis.from_url(settings.redis_url, socket_connect_timeout=3) if settings.redis_url else None
    http = httpx.AsyncClient(headers={"User-Agent": f"{settings.product_name} control plane"})
    limiter: RateLimiter = RedisRateLimiter(redis, settings.redis_prefix) if redis is not None else MemoryRateLimiter()
    passwords = Passwords(settings.password_hashing)
    bus = EventBus(redis, settings.redis_prefix)
    invalidation = CacheInvalidation(bus, session_class_of(sessionmaker))
    hub = PushHub(bus)
    sessions = SessionService(settings, box, invalidation, hub, read_sessionmaker)
    captcha = CaptchaVerifier(settings.captcha_secret, settings.captcha_verify_url, settings.captcha_site_key, http)
    agents = AgentRegistry()
    metrics = ControlPlaneMetrics(hub, agents, read_sessionmaker)
    operations = NodeOperations(
        bus, settings.operation_timeout_seconds, metrics.record_operation_outcome, SendAhead(box, agents)
    )
    rooms = RoomService(box, operations, hub, limiter, max_members=settings.room_max_members)
    peers = PeerService(box, operations, hub, settings.client_url, invalidation, rooms, read_sessionmaker)
    servers = ServerService(box)
    devices = SharedConfigWatch(hub, peers.view)
    # Who reacts to what, in one place (docs/architecture.md): a node's news wakes the stream that carries it;
    # an ended operation is told to the peer's owner and to the room's users.
    bus.subscribe(NODE_CHANGED, agents.on_node_changed)
    operations.on_outcome(peers.operation_ended)
    operations.on_outcome(rooms.operation_ended)
    # After both: a room move's one result counts its peers' moves as settled (domain/rooms/move_all.py).
    room_moves = RoomMoves(rooms, peers, hub)
    operations.on_outcome(room_moves.operation_ended)
    watch_peer_lists(invalidation, session_class_of(sessionmaker))
    invoices = InvoiceService(
        sessionmaker, build_gateways(settings, http, box), peers, hub, settings, metrics.record_payment
    )
    payment_links = PaymentLinkService(box, invoices, settings.client_url)
    # Registers the guest_pass invoices' fulfilment with the invoice machine.
    guest_passes = GuestPassService(box, invoices, peers, rooms, settings.client_url)
    accounts = AccountService(settings, box, passwords, sessions, limiter, captcha, sessionmaker, read_sessionmaker)
    mailer = Mailer(settings.smtp_url, settings.mail_from, settings.secret_key_file.parent / "outbox")
    switches = SwitchService(read_sessionmaker)
    deletion = AccountDeletion(accounts, sessions, peers, rooms)
    return Services(
        settings=settings,
        box=box,
        engine=engine,
        sessionmaker=sessionmaker,
        read_sessionmaker=read_sessionmaker,
        redis=redis,
        http=http,
        limiter=limiter,
        passwords=passwords,
        mailer=mailer,
        switches=switches,
        sessions=sessions,
        accounts=accounts,
        bus=bus,
        invalidation=invalidation,
        hub=hub,
        socket_slots=RedisSocketSlots(redis, settings.redis_prefix) if redis is not None else MemorySocketSlots(),
        handshakes=HandshakeChecks(sessions, read_sessionmaker),
        agents=agents,
        operations=operations,
        agent_sessions=AgentSessions(
            sessionmaker,
            read_sessionmaker,
            box,
            servers,
            operations,
            hub,
            presence=rooms.record_presence,
            endpoints=devices.record,
            usage=UsageMeter(),
            status=rooms.server_status_changed,
            lobby=Lobby(hub, rooms.view).record,
        ),
        servers=servers,
        peers=peers,
        devices=devices,
        metrics=metrics,
        invoices=invoices,
        rooms=rooms,
        room_moves=room_moves,
        payment_links=payment_links,
        guest_passes=guest_passes,
        audit=AuditLog(hub),
        staff_users=StaffUsers(accounts, sessions, deletion),
        deletion=deletion,
        reminders=ExpiryReminders(mailer, switches, settings),
    )
