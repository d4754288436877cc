from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AgentMessage(_message.Message):
    __slots__ = ("hello", "result", "stats", "keepalive", "discovery")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    DISCOVERY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    result: OperationResult
    stats: StatsReport
    keepalive: Keepalive
    discovery: DiscoveryReport
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., result: _Optional[_Union[OperationResult, _Mapping]] = ..., stats: _Optional[_Union[StatsReport, _Mapping]] = ..., keepalive: _Optional[_Union[Keepalive, _Mapping]] = ..., discovery: _Optional[_Union[DiscoveryReport, _Mapping]] = ...) -> None: ...

class ControlMessage(_message.Message):
    __slots__ = ("full_state", "delta", "keepalive", "refused", "in_sync")
    FULL_STATE_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    IN_SYNC_FIELD_NUMBER: _ClassVar[int]
    full_state: FullState
    delta: Delta
    keepalive: Keepalive
    refused: Refused
    in_sync: InSync
    def __init__(self, full_state: _Optional[_Union[FullState, _Mapping]] = ..., delta: _Optional[_Union[Delta, _Mapping]] = ..., keepalive: _Optional[_Union[Keepalive, _Mapping]] = ..., refused: _Optional[_Union[Refused, _Mapping]] = ..., in_sync: _Optional[_Union[InSync, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("node_id", "credential", "agent_version", "backend", "applied_serial", "public_key", "resume")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    APPLIED_SERIAL_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    credential: str
    agent_version: str
    backend: str
    applied_serial: int
    public_key: str
    resume: bool
    def __init__(self, node_id: _Optional[str] = ..., credential: _Optional[str] = ..., agent_version: _Optional[str] = ..., backend: _Optional[str] = ..., applied_serial: _Optional[int] = ..., public_key: _Optional[str] = ..., resume: _Optional[bool] = ...) -> None: ...

class InterfaceSpec(_message.Message):
    __slots__ = ("name", "listen_port", "addresses", "mtu")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LISTEN_PORT_FIELD_NUMBER: _ClassVar[int]
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    MTU_FIELD_NUMBER: _ClassVar[int]
    name: str
    listen_port: int
    addresses: _containers.RepeatedScalarFieldContainer[str]
    mtu: int
    def __init__(self, name: _Optional[str] = ..., listen_port: _Optional[int] = ..., addresses: _Optional[_Iterable[str]] = ..., mtu: _Optional[int] = ...) -> None: ...

class PeerSpec(_message.Message):
    __slots__ = ("public_key", "preshared_key", "allowed_ips", "room_only")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    PRESHARED_KEY_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_IPS_FIELD_NUMBER: _ClassVar[int]
    ROOM_ONLY_FIELD_NUMBER: _ClassVar[int]
    public_key: str
    preshared_key: str
    allowed_ips: _containers.RepeatedScalarFieldContainer[str]
    room_only: bool
    def __init__(self, public_key: _Optional[str] = ..., preshared_key: _Optional[str] = ..., allowed_ips: _Optional[_Iterable[str]] = ..., room_only: _Optional[bool] = ...) -> None: ...

class RoomSpec(_message.Message):
    __slots__ = ("id", "members")
    ID_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    id: str
    members: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., members: _Optional[_Iterable[str]] = ...) -> None: ...

class BackbonePeer(_message.Message):
    __slots__ = ("node_id", "public_key", "endpoint", "allowed_ips")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_IPS_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    public_key: str
    endpoint: str
    allowed_ips: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, node_id: _Optional[str] = ..., public_key: _Optional[str] = ..., endpoint: _Optional[str] = ..., allowed_ips: _Optional[_Iterable[str]] = ...) -> None: ...

class BackboneSpec(_message.Message):
    __slots__ = ("name", "listen_port", "addresses", "peers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LISTEN_PORT_FIELD_NUMBER: _ClassVar[int]
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    PEERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    listen_port: int
    addresses: _containers.RepeatedScalarFieldContainer[str]
    peers: _containers.RepeatedCompositeFieldContainer[BackbonePeer]
    def __init__(self, name: _Optional[str] = ..., listen_port: _Optional[int] = ..., addresses: _Optional[_Iterable[str]] = ..., peers: _Optional[_Iterable[_Union[BackbonePeer, _Mapping]]] = ...) -> None: ...

class FullState(_message.Message):
    __slots__ = ("serial", "interface", "peers", "rooms", "backbone", "operation_id")
    SERIAL_FIELD_NUMBER: _ClassVar[int]
    INTERFACE_FIELD_NUMBER: _ClassVar[int]
    PEERS_FIELD_NUMBER: _ClassVar[int]
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    BACKBONE_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    serial: int
    interface: InterfaceSpec
    peers: _containers.RepeatedCompositeFieldContainer[PeerSpec]
    rooms: _containers.RepeatedCompositeFieldContainer[RoomSpec]
    backbone: BackboneSpec
    operation_id: str
    def __init__(self, serial: _Optional[int] = ..., interface: _Optional[_Union[InterfaceSpec, _Mapping]] = ..., peers: _Optional[_Iterable[_Union[PeerSpec, _Mapping]]] = ..., rooms: _Optional[_Iterable[_Union[RoomSpec, _Mapping]]] = ..., backbone: _Optional[_Union[BackboneSpec, _Mapping]] = ..., operation_id: _Optional[str] = ...) -> None: ...

class InSync(_message.Message):
    __slots__ = ("serial",)
    SERIAL_FIELD_NUMBER: _ClassVar[int]
    serial: int
    def __init__(self, serial: _Optional[int] = ...) -> None: ...

class Delta(_message.Message):
    __slots__ = ("operation_id", "serial", "upsert_peers", "remove_peers", "upsert_rooms", "remove_rooms", "backbone")
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SERIAL_FIELD_NUMBER: _ClassVar[int]
    UPSERT_PEERS_FIELD_NUMBER: _ClassVar[int]
    REMOVE_PEERS_FIELD_NUMBER: _ClassVar[int]
    UPSERT_ROOMS_FIELD_NUMBER: _ClassVar[int]
    REMOVE_ROOMS_FIELD_NUMBER: _ClassVar[int]
    BACKBONE_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    serial: int
    upsert_peers: _containers.RepeatedCompositeFieldContainer[PeerSpec]
    remove_peers: _containers.RepeatedScalarFieldContainer[str]
    upsert_rooms: _containers.RepeatedCompositeFieldContainer[RoomSpec]
    remove_rooms: _containers.RepeatedScalarFieldContainer[str]
    backbone: BackboneSpec
    def __init__(self, operation_id: _Optional[str] = ..., serial: _Optional[int] = ..., upsert_peers: _Optional[_Iterable[_Union[PeerSpec, _Mapping]]] = ..., remove_peers: _Optional[_Iterable[str]] = ..., upsert_rooms: _Optional[_Iterable[_Union[RoomSpec, _Mapping]]] = ..., remove_rooms: _Optional[_Iterable[str]] = ..., backbone: _Optional[_Union[BackboneSpec, _Mapping]] = ...) -> None: ...

class OperationResult(_message.Message):
    __slots__ = ("operation_id", "serial", "ok", "error")
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SERIAL_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    serial: int
    ok: bool
    error: str
    def __init__(self, operation_id: _Optional[str] = ..., serial: _Optional[int] = ..., ok: _Optional[bool] = ..., error: _Optional[str] = ...) -> None: ...

class PeerStats(_message.Message):
    __slots__ = ("public_key", "latest_handshake", "rx_bytes", "tx_bytes", "endpoint", "rtt_us")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    LATEST_HANDSHAKE_FIELD_NUMBER: _ClassVar[int]
    RX_BYTES_FIELD_NUMBER: _ClassVar[int]
    TX_BYTES_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    RTT_US_FIELD_NUMBER: _ClassVar[int]
    public_key: str
    latest_handshake: int
    rx_bytes: int
    tx_bytes: int
    endpoint: str
    rtt_us: int
    def __init__(self, public_key: _Optional[str] = ..., latest_handshake: _Optional[int] = ..., rx_bytes: _Optional[int] = ..., tx_bytes: _Optional[int] = ..., endpoint: _Optional[str] = ..., rtt_us: _Optional[int] = ...) -> None: ...

class StatsReport(_message.Message):
    __slots__ = ("serial", "peers", "totals", "complete", "continued")
    SERIAL_FIELD_NUMBER: _ClassVar[int]
    PEERS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    CONTINUED_FIELD_NUMBER: _ClassVar[int]
    serial: int
    peers: _containers.RepeatedCompositeFieldContainer[PeerStats]
    totals: StatsTotals
    complete: bool
    continued: bool
    def __init__(self, serial: _Optional[int] = ..., peers: _Optional[_Iterable[_Union[PeerStats, _Mapping]]] = ..., totals: _Optional[_Union[StatsTotals, _Mapping]] = ..., complete: _Optional[bool] = ..., continued: _Optional[bool] = ...) -> None: ...

class StatsTotals(_message.Message):
    __slots__ = ("peers", "peers_connected", "rx_bytes", "tx_bytes")
    PEERS_FIELD_NUMBER: _ClassVar[int]
    PEERS_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    RX_BYTES_FIELD_NUMBER: _ClassVar[int]
    TX_BYTES_FIELD_NUMBER: _ClassVar[int]
    peers: int
    peers_connected: int
    rx_bytes: int
    tx_bytes: int
    def __init__(self, peers: _Optional[int] = ..., peers_connected: _Optional[int] = ..., rx_bytes: _Optional[int] = ..., tx_bytes: _Optional[int] = ...) -> None: ...

class DiscoveryReport(_message.Message):
    __slots__ = ("games", "senders")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SENDERS_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[DiscoveredGame]
    senders: _containers.RepeatedCompositeFieldContainer[DiscoverySender]
    def __init__(self, games: _Optional[_Iterable[_Union[DiscoveredGame, _Mapping]]] = ..., senders: _Optional[_Iterable[_Union[DiscoverySender, _Mapping]]] = ...) -> None: ...

class DiscoveredGame(_message.Message):
    __slots__ = ("sender", "key", "game", "name", "port", "players", "max_players", "detail", "seconds_ago")
    SENDER_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SECONDS_AGO_FIELD_NUMBER: _ClassVar[int]
    sender: str
    key: str
    game: str
    name: str
    port: int
    players: int
    max_players: int
    detail: str
    seconds_ago: int
    def __init__(self, sender: _Optional[str] = ..., key: _Optional[str] = ..., game: _Optional[str] = ..., name: _Optional[str] = ..., port: _Optional[int] = ..., players: _Optional[int] = ..., max_players: _Optional[int] = ..., detail: _Optional[str] = ..., seconds_ago: _Optional[int] = ...) -> None: ...

class DiscoverySender(_message.Message):
    __slots__ = ("address", "packets", "seconds_ago")
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PACKETS_FIELD_NUMBER: _ClassVar[int]
    SECONDS_AGO_FIELD_NUMBER: _ClassVar[int]
    address: str
    packets: int
    seconds_ago: int
    def __init__(self, address: _Optional[str] = ..., packets: _Optional[int] = ..., seconds_ago: _Optional[int] = ...) -> None: ...

class Keepalive(_message.Message):
    __slots__ = ("sent_at_ms",)
    SENT_AT_MS_FIELD_NUMBER: _ClassVar[int]
    sent_at_ms: int
    def __init__(self, sent_at_ms: _Optional[int] = ...) -> None: ...

class Refused(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
