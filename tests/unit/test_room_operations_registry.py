"""The room operations' registry (domain/rooms/operations/): a room operation cannot be added and forgotten."""

from __future__ import annotations

import importlib
import pkgutil
import re
import typing
from pathlib import Path

from controlplane.domain.peers import operations as peer_operations
from controlplane.domain.rooms import operations
from controlplane.domain.rooms.operations.base import RoomOperation
from controlplane.nodes.models import OperationKind

ROOMS = Path(operations.__file__).parent.parent
# Modules of the package that are not operations: what they all share, and how their node operations end.
NOT_OPERATIONS = {"base", "node_answered"}
# Node operation kinds nobody waits for: the backbone is refreshed in the background, no user hears it end.
NOBODYS = {OperationKind.BACKBONE}


def test_every_room_operation_module_is_registered() -> None:
    """A module in operations/ that declares a RoomOperation is listed in OPERATIONS."""
    registered = {id(op) for op in operations.OPERATIONS}
    for info in pkgutil.iter_modules(operations.__path__):
        if info.name in NOT_OPERATIONS:
            continue
        module = importlib.import_module(f"{operations.__name__}.{info.name}")
        declared = [value for value in vars(module).values() if isinstance(value, RoomOperation)]
        assert declared, f"operations/{info.name}.py declares no RoomOperation"
        for op in declared:
            assert id(op) in registered, f"{op.name} (operations/{info.name}.py) is missing from OPERATIONS"


def test_every_kind_a_room_queues_has_an_ending() -> None:
    """Every node operation kind the rooms' code queues (declared by a module, or spelled anywhere in the package)
    has its ending registered, so a node's answer for it reaches the room's users."""
    declared = {op.kind for op in operations.OPERATIONS if op.kind is not None}
    spelled = {
        OperationKind[name]
        for path in ROOMS.rglob("*.py")
        for name in re.findall(r"OperationKind\.([A-Z_]+)", path.read_text(encoding="utf-8"))
    }
    # A peer's own kinds end in its peer module; the rooms may watch them end (move_all.py counts its moves).
    peers_own = {kind for kind in OperationKind if peer_operations.by_kind(kind.value) is not None}
    assert declared, "no room operation queues a node change"
    for kind in declared | (spelled - peers_own):
        assert operations.ending(kind) is not None, f"node operations of kind {kind} end with no room module"


def test_every_node_operation_kind_ends_somewhere() -> None:
    """A new kind of node operation belongs to a peer module or to the rooms, or is named as nobody's."""
    for kind in OperationKind:
        owners = [
            name
            for name, found in (
                ("peers", peer_operations.by_kind(kind.value)),
                ("rooms", operations.ending(kind)),
            )
            if found is not None
        ]
        assert owners or kind in NOBODYS, f"node operations of kind {kind} end with no module"


def test_every_room_request_variant_has_a_module_that_starts_it() -> None:
    for variant in typing.get_args(operations.RoomOperationRequest):
        op = operations.by_request(variant())
        assert op.request is variant and op.start is not None
        assert variant.__struct_config__.tag == op.name  # the wire's `operation` is the module's name
