"""Stateful property test of the room life cycle (hypothesis RuleBasedStateMachine) on the real database.

Three customers with peers on three servers (two allow rooms, one does not) create rooms, join them with the right
or a wrong password, leave, remove others' peers ('Expulsar'), regenerate passwords, delete rooms and move their
peers, all through the customer HTTP API; admins disable and enable peers, switch servers' rooms off and on and
disable and enable servers (admin API), the expiry job expires peers, peers are deleted (PeerService.delete); a
model agent per server applies the operations' deltas in serial order (or fails some) and reconnects for a full
snapshot.

The machine keeps its own model of the rooms (owner, name, password, members) and predicts every answer: success,
or one of the documented refusals that apply (a room the caller cannot see answers only 404 party_not_found).
After every step:
- the database holds exactly the model's rooms; a peer is in at most one room; every member is on a server that
  allows rooms; nobody owns more than 5 rooms; no room is empty; names are unique regardless of case and blanks;
- each customer lists exactly the rooms they own and the rooms one of their peers is in, each as the database has
  it (members, owner alias, password for the owner only, processing while a node operation is pending), their
  peers show their room; every other room answers 404 to them;
- a node that applied every delta holds exactly its snapshot (peers, rooms, backbone), and the snapshot gives each
  node every room with a member on it, with all its members' addresses, and a backbone to exactly the other
  room-enabled nodes; after a reconnect every node holds it;
- when no node operation is pending, no room is processing and no peer is busy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule
from sqlalchemy import func, select

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.schemas import PeerView
from controlplane.domain.rooms.errors import RoomNotFound
from controlplane.domain.rooms.models import Room as StoredRoom
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.rooms.operations.create import MAX_OWNED, NAME_MAX
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from controlplane.wgkeys import generate_keypair
from node_agent.state import normalize_address
from tests.api.conftest import _empty_database
from tests.api.factories import PASSWORD, bearer, login
from tests.api.stateful import ModelAgents, ServicesMachine, machine_client, machine_services, run_machine, server_input

ROOMS = "/api/client/network/partys"
CUSTOMERS = (("ana", "Ana"), ("beto", "Beto"), ("caro", "Caro"))
# Servers 0 and 1 allow rooms, server 2 does not (until an admin switches it on).
ROOMS_ALLOWED = (True, True, False)
# Each customer's first peers: (customer, server).
FIRST_PEERS = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 0), (2, 1))
# Room names, some alike but for case and blanks, one too long, one blank, some whose case folding is not lower().
NAMES = (
    "Sala",
    "SALA",
    "LAN Viernes",
    " lan   viernes ",
    "Straße",
    "STRASSE",
    "İzmir",
    "İ" * 20,
    "x" * (NAME_MAX + 1),
    "   ",
)
# How a guest types the name it was told: as shown, in capitals, in lower case, with extra blanks.
NAME_VARIANTS = ("as_shown", "upper", "lower", "blanks")
PASSWORDS = ("right", "right", "right", "swapcase", "previous", "wrong")
CLIENT_ADDRESSES = 13  # in each server's /28


def room_key(name: str) -> str:
    """What makes two room names the same one: case and runs of blanks do not count."""
    return " ".join(name.split()).casefold()


@dataclass
class Room:
    owner: int
    name: str
    password: str
    members: set[str] = field(default_factory=set)
    previous_passwords: list[str] = field(default_factory=list)


@dataclass
class Customer:
    id: str
    alias: str
    headers: dict[str, str]


class RoomLifeCycle(ServicesMachine):
    def __init__(self, services: Services, loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient) -> None:
        super().__init__(services, loop)
        self.client = client
        self.customers: list[Customer] = []
        self.admin: dict[str, str] = {}
        self.servers: list[str] = []
        self.allows: dict[str, bool] = {}  # allow_partys
        self.active: dict[str, bool] = {}
        self.peers: list[str] = []  # every peer ever made (deleted ones too: calls on them must answer 404)
        self.peer_owner: dict[str, int] = {}
        self.rooms: dict[str, Room] = {}  # the model: rooms that exist
        # Accepted moves waiting for their node: membership follows a move only once it commits (docs/operations.md).
        self.moving: dict[str, str] = {}  # peer id -> target server id
        self.room_ids: list[str] = []  # every room ever made
        self.names_of: dict[str, str] = {}  # every room's last name (deleted ones too)
        self.agents = ModelAgents(services)
        self.peer_names = 0

    @initialize()
    def world(self) -> None:
        async def build() -> None:
            await _empty_database(self.services)
            async with transaction(self.services.sessionmaker) as db:
                for username, alias in CUSTOMERS:
                    user = await self.services.accounts.create_user(db, username, PASSWORD, Role.CUSTOMER)
                    user.alias, user.alias_key = alias, alias.lower()
                    self.customers.append(Customer(user.id, alias, {}))
                await self.services.accounts.create_user(db, "jefa", PASSWORD, Role.ADMIN)
                for n, allowed in enumerate(ROOMS_ALLOWED):
                    server, _ = await self.services.servers.create(
                        db, server_input(n, allow_partys=allowed, subnet_bits=28)
                    )
                    server.public_key = generate_keypair()[1]  # as if its agent had connected once
                    self.servers.append(server.id)
                    self.allows[server.id], self.active[server.id] = allowed, True
            for user, server in FIRST_PEERS:
                await self._new_peer(user, server)
            for server_id in self.servers:
                await self.agents.connect(server_id)
            for customer, (username, _) in zip(self.customers, CUSTOMERS, strict=True):
                customer.headers = bearer(await login(self.client, username))
            self.admin = bearer(await login(self.client, "jefa", admin=True))
            # Every walk starts with one room across both room-enabled servers: Ana's, with Beto as a guest.
            created = await self.client.post(
                ROOMS, json={"name": "Sala de Ana", "peer": self.peers[0]}, headers=self.customers[0].headers
            )
            assert created.status_code == 201, created.text
            room = created.json()["data"]
            self.rooms[room["id"]] = Room(0, "Sala de Ana", room["password"], {self.peers[0]})
            self.room_ids.append(room["id"])
            self.names_of[room["id"]] = "Sala de Ana"
            joined = await self.client.patch(
                ROOMS,
                json={"operation": "join", "name": "sala de ana", "password": room["password"], "peer": self.peers[3]},
                headers=self.customers[1].headers,
            )
            assert joined.status_code == 200, joined.text
            self.rooms[room["id"]].members.add(self.peers[3])

        self.run(build())

    async def _new_peer(self, user: int, server: int) -> str:
        self.peer_names += 1
        async with transaction(self.services.sessionmaker) as db:
            target = await db.get(Server, self.servers[server])
            peer = await self.services.peers.create(db, self.customers[user].id, f"p{self.peer_names}", server=target)
        self.peers.append(peer.id)
        self.peer_owner[peer.id] = user
        return peer.id

    # --- reading the world ------------------------------------------------------------------------------------

    async def _peers(self) -> dict[str, Peer]:
        async with self.services.sessionmaker() as db:
            return {p.id: p for p in (await db.execute(select(Peer))).scalars()}

    def _hosts(self, server_id: str) -> bool:
        """Rooms may use the server: it allows them and is enabled."""
        return self.allows[server_id] and self.active[server_id]

    def _room_of(self, peer_id: str) -> str | None:
        return next((rid for rid, room in self.rooms.items() if peer_id in room.members), None)

    def _visible(self, user: int, room_id: str) -> bool:
        room = self.rooms.get(room_id)
        return room is not None and (room.owner == user or any(self.peer_owner[p] == user for p in room.members))

    # Choices are drawn from lists in creation order, never in id order: ids are random, and a replayed walk must
    # make the same choices (hypothesis checks that it does).

    def _draw_peer(self, data: st.DataObject, likely: Iterable[str]) -> str:
        """Mostly one of `likely` (what a customer would pick), sometimes any peer ever made (others', deleted)."""
        likely = set(likely)
        if likely and data.draw(st.integers(0, 3), label="likely peer"):
            return data.draw(st.sampled_from([p for p in self.peers if p in likely]), label="peer")
        return data.draw(st.sampled_from(self.peers), label="any peer")

    def _draw_room(self, data: st.DataObject) -> str:
        """Mostly a room that exists, sometimes one deleted since."""
        if self.rooms and data.draw(st.integers(0, 3), label="existing room"):
            return data.draw(st.sampled_from([r for r in self.room_ids if r in self.rooms]), label="room")
        return data.draw(st.sampled_from(self.room_ids), label="any room")

    def _free_for_rooms(self, user: int, peers: dict[str, Peer]) -> list[str]:
        """The user's peers that may enter a room."""
        return [
            p.id
            for p in peers.values()
            if self.peer_owner[p.id] == user and p.active and self._hosts(p.server_id) and self._room_of(p.id) is None
        ]

    def _free_peer_refusals(self, user: int, peer_id: str, peers: dict[str, Peer]) -> set[str]:
        """Why a peer may not enter a room (empty: it may)."""
        peer = peers.get(peer_id)
        if peer is None or self.peer_owner[peer_id] != user:
            return {"peer_not_found"}
        refusals = set()
        if not peer.active:
            refusals.add("peer_inactive")
        if not self._hosts(peer.server_id):
            refusals.add("server_without_partys")
        if self._room_of(peer_id) is not None:
            refusals.add("peer_in_party")
        return refusals

    def _answer(self, call: str, answer: Any, refusals: set[str], success: int = 200) -> dict[str, Any]:
        """The call succeeded if no rule refuses it; otherwise it answered one of the refusals that apply."""
        body: dict[str, Any] = answer.json()
        if not refusals:
            assert answer.status_code == success, f"{call}: expected success, got {answer.status_code} {body}"
        else:
            assert answer.status_code >= 400, f"{call}: expected one of {sorted(refusals)}, got {body}"
            assert body.get("code") in refusals, f"{call}: expected one of {sorted(refusals)}, got {body}"
        return body

    def _remove_member(self, room_id: str, peer_id: str) -> None:
        room = self.rooms[room_id]
        room.members.discard(peer_id)
        if not room.members:  # a room left empty is deleted
            del self.rooms[room_id]

    # --- customers ----------------------------------------------------------------------------------------------

    @rule(data=st.data(), user=st.integers(0, 2), name=st.sampled_from(NAMES))
    def create_room(self, data: st.DataObject, user: int, name: str) -> None:
        async def go() -> None:
            peers = await self._peers()
            await self._create(user, self._draw_peer(data, self._free_for_rooms(user, peers)), name, peers)

        self.run(go())

    @rule(user=st.integers(0, 2))
    def create_rooms_up_to_the_limit(self, user: int) -> None:
        """A keen owner: rooms with new peers until the sixth is refused (walks seldom get there one by one)."""

        async def go() -> None:
            for n in range(MAX_OWNED + 1 - sum(room.owner == user for room in self.rooms.values())):
                peers = await self._peers()
                free = self._free_for_rooms(user, peers)
                if not free:
                    used = [sum(p.server_id == s for p in peers.values()) for s in self.servers]
                    roomy = [n for n, s in enumerate(self.servers) if self._hosts(s) and used[n] < CLIENT_ADDRESSES]
                    if not roomy:
                        return
                    free = [await self._new_peer(user, roomy[0])]
                    peers = await self._peers()
                await self._create(user, free[0], f"Sala {self.peer_names}-{n}", peers)

        self.run(go())

    async def _create(self, user: int, peer_id: str, name: str, peers: dict[str, Peer]) -> None:
        refusals = self._free_peer_refusals(user, peer_id, peers)
        shown = " ".join(name.split())
        if sum(room.owner == user for room in self.rooms.values()) >= MAX_OWNED:
            refusals.add("party_limit")
        if not shown:
            refusals.add("party_name_required")
        elif len(shown) > NAME_MAX:
            refusals.add("party_name_too_long")
        elif room_key(shown) in {room_key(room.name) for room in self.rooms.values()}:
            refusals.add("party_name_taken")
        headers = self.customers[user].headers
        answer = await self.client.post(ROOMS, json={"name": name, "peer": peer_id}, headers=headers)
        body = self._answer("create", answer, refusals, success=201)
        if not refusals:
            room = body["data"]
            assert room["name"] == shown
            self.rooms[room["id"]] = Room(user, shown, room["password"], {peer_id})
            self.room_ids.append(room["id"])
            self.names_of[room["id"]] = shown

    @rule(
        data=st.data(),
        user=st.integers(0, 2),
        password=st.sampled_from(PASSWORDS),
        variant=st.sampled_from(NAME_VARIANTS),
    )
    def join_room(self, data: st.DataObject, user: int, password: str, variant: str) -> None:
        room_id = self._draw_room(data)
        told = self.rooms.get(room_id) or Room(0, self.names_of[room_id], "")
        name = {
            "as_shown": told.name,
            "upper": told.name.upper(),
            "lower": told.name.lower(),
            "blanks": f"  {told.name.replace(' ', '   ')} ",
        }[variant]
        typed = {
            "right": told.password or "abcdefghjkmn",
            "swapcase": (told.password or "abcdefghjkmn").swapcase(),
            "previous": told.previous_passwords[-1] if told.previous_passwords else "contraseña-vieja",
            "wrong": "abcdefghjkmn",
        }[password]

        async def go() -> None:
            peers = await self._peers()
            peer_id = self._draw_peer(data, self._free_for_rooms(user, peers))
            found = [rid for rid, r in self.rooms.items() if room_key(r.name) == room_key(name)]
            if not found or typed != self.rooms[found[0]].password:
                refusals = {"party_credentials_invalid"}
            else:
                refusals = self._free_peer_refusals(user, peer_id, peers)
            answer = await self.client.patch(
                ROOMS,
                json={"operation": "join", "name": name, "password": typed, "peer": peer_id},
                headers=self.customers[user].headers,
            )
            body = self._answer("join", answer, refusals)
            if not refusals:
                assert body["data"]["id"] == found[0]
                self.rooms[found[0]].members.add(peer_id)

        self.run(go())

    @rule(data=st.data(), user=st.integers(0, 2), kick=st.booleans())
    def take_peer_out(self, data: st.DataObject, user: int, kick: bool) -> None:
        """'leave' (a peer of one's own) or 'remove_peer' (the owner's 'Expulsar'; a guest only its own)."""
        room_id = self._draw_room(data)
        peer_id = self._draw_peer(data, self.rooms[room_id].members if room_id in self.rooms else ())

        async def go() -> None:
            refusals: set[str] = set()
            if not self._visible(user, room_id):
                refusals = {"party_not_found"}
            elif peer_id not in self.rooms[room_id].members:
                refusals = {"peer_not_found"}
            elif self.peer_owner[peer_id] != user:
                owner = self.rooms[room_id].owner == user
                refusals = set() if kick and owner else {"party_owner_only"} if kick else {"peer_not_found"}
            answer = await self.client.patch(
                f"{ROOMS}/{room_id}",
                json={"operation": "remove_peer" if kick else "leave", "peer": peer_id},
                headers=self.customers[user].headers,
            )
            body = self._answer("remove_peer" if kick else "leave", answer, refusals)
            if not refusals:
                self._remove_member(room_id, peer_id)
                # The answer carries the room only while the caller still sees it.
                assert ("data" in body) == self._visible(user, room_id), body

        self.run(go())

    @rule(data=st.data(), user=st.integers(0, 2), delete=st.booleans())
    def owner_only(self, data: st.DataObject, user: int, delete: bool) -> None:
        """Regenerate the password or delete the room: the owner may, a guest is refused, anyone else gets 404."""
        room_id = self._draw_room(data)
        call = "delete" if delete else "regenerate_password"

        async def go() -> None:
            refusals: set[str] = set()
            if not self._visible(user, room_id):
                refusals = {"party_not_found"}
            elif self.rooms[room_id].owner != user:
                refusals = {"party_owner_only"}
            headers = self.customers[user].headers
            if delete:
                answer = await self.client.delete(f"{ROOMS}/{room_id}", headers=headers)
            else:
                answer = await self.client.patch(f"{ROOMS}/{room_id}", json={"operation": call}, headers=headers)
            body = self._answer(call, answer, refusals)
            if refusals:
                return
            if delete:
                del self.rooms[room_id]
            else:
                room = self.rooms[room_id]
                room.previous_passwords.append(room.password)
                room.password = body["password"]
                assert body["data"]["password"] == room.password

        self.run(go())

    @rule(data=st.data(), server=st.integers(0, 2))
    def change_server(self, data: st.DataObject, server: int) -> None:
        """The owner moves a peer (mostly one in a room) to another server, with or without rooms."""
        peer_id = self._draw_peer(data, [p for room in self.rooms.values() for p in room.members])
        target = self.servers[server]

        async def go() -> None:
            peers = await self._peers()
            found = peers.get(peer_id)
            refusals: set[str] = set()
            if found is None:
                refusals = {"peer_not_found"}
            else:
                if not found.active:
                    refusals.add("peer_inactive")
                if found.pending_operation_id is not None:
                    refusals.add("peer_busy")
                if found.server_id == target:
                    refusals.add("same_server")
                if sum(p.server_id == target for p in peers.values()) >= CLIENT_ADDRESSES:
                    refusals.add("subnet_full")
                if not self.active[target]:
                    refusals.add("server_inactive")
            answer = await self.client.patch(
                f"/api/client/accounts/peers/{peer_id}",
                json={"operation": "change_server", "server": target},
                headers=self.customers[self.peer_owner[peer_id]].headers,
            )
            self._answer("change_server", answer, refusals, success=202)
            if not refusals:
                self.moving[peer_id] = target

        self.run(go())

    # --- admins, jobs and payments ------------------------------------------------------------------------------

    @rule(data=st.data(), change=st.sampled_from(["new", "disable", "enable", "expire", "delete"]))
    def peer_changes(self, data: st.DataObject, change: str) -> None:
        """A payment makes a peer; an admin disables or enables one (admin API); the expiry job expires one; a peer
        is deleted (PeerService.delete). Membership survives all but deletion."""
        peer_id = self._draw_peer(data, [p for room in self.rooms.values() for p in room.members])

        async def go() -> None:
            peers = await self._peers()
            if change == "new":
                user, server = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))
                if sum(p.server_id == self.servers[server] for p in peers.values()) < CLIENT_ADDRESSES:
                    await self._new_peer(user, server)
            elif change in ("disable", "enable"):
                answer = await self.client.patch(
                    f"/api/admin/peers/{peer_id}", json={"active": change == "enable"}, headers=self.admin
                )
                self._answer(f"admin {change}s", answer, set() if peer_id in peers else {"peer_not_found"})
            elif change == "expire" and peer_id in peers:
                async with transaction(self.services.sessionmaker) as db:
                    found = await db.get(Peer, peer_id)
                    assert found is not None
                    found.expiration_date = utcnow() - timedelta(seconds=1)
                async with transaction(self.services.sessionmaker) as db:
                    await self.services.peers.expire_due(db)
            elif change == "delete" and peer_id in peers:
                async with transaction(self.services.sessionmaker) as db:
                    found = await db.get(Peer, peer_id)
                    assert found is not None
                    await self.services.peers.delete(db, found)
                room_id = self._room_of(peer_id)
                if room_id is not None:
                    self._remove_member(room_id, peer_id)

        self.run(go())

    @rule(server=st.integers(0, 2), change=st.sampled_from(["rooms on", "rooms on", "rooms off", "disable", "enable"]))
    def admin_changes_server(self, server: int, change: str) -> None:
        """An admin switches a server's rooms on (mostly) or off, or disables or enables the server: a server that no
        longer hosts rooms sees its peers leave them."""
        server_id = self.servers[server]
        body = {"allow_partys": change == "rooms on"} if change.startswith("rooms") else {"active": change == "enable"}

        async def go() -> None:
            answer = await self.client.patch(f"/api/admin/servers/{server_id}", json=body, headers=self.admin)
            self._answer(f"admin {change}", answer, set())
            self.allows[server_id] = body.get("allow_partys", self.allows[server_id])
            self.active[server_id] = body.get("active", self.active[server_id])
            if not self._hosts(server_id):
                here = {p.id for p in (await self._peers()).values() if p.server_id == server_id}
                for room_id in list(self.rooms):
                    for peer_id in self.rooms[room_id].members & here:
                        self._remove_member(room_id, peer_id)

        self.run(go())

    # --- the agents ---------------------------------------------------------------------------------------------

    @rule(server=st.integers(0, 2), action=st.sampled_from(["apply", "apply", "fail one", "reconnect"]))
    def agent(self, server: int, action: str) -> None:
        """A node applies its pending deltas in serial order (the first failing, maybe), or reconnects."""
        if action == "reconnect":
            self.run(self.agents.connect(self.servers[server]))
        else:
            self.run(self.agents.apply_pending(self.servers[server], fail_first=action == "fail one"))
        self.run(self._settle_moves())

    async def _settle_moves(self) -> None:
        """Moves that ended: a committed one to a server without rooms took its peer out of its room (a failed or
        cancelled one changed nothing)."""
        peers = await self._peers()
        for peer_id, target in list(self.moving.items()):
            found = peers.get(peer_id)
            if found is not None and found.pending_server_id is not None:
                continue  # still pending
            del self.moving[peer_id]
            room_id = self._room_of(peer_id)
            if found is not None and found.server_id == target and room_id is not None and not self._hosts(target):
                self._remove_member(room_id, peer_id)

    # --- invariants ---------------------------------------------------------------------------------------------

    @invariant()
    def the_database_holds_the_model_and_the_rules(self) -> None:
        if not self.servers:
            return

        async def check() -> None:
            async with self.services.sessionmaker() as db:
                stored_rooms = {p.id: p for p in (await db.execute(select(StoredRoom))).scalars()}
                rows = (
                    await db.execute(
                        select(RoomMember.room_id, RoomMember.peer_id, Server.allow_partys & Server.active)
                        .join(Peer, Peer.id == RoomMember.peer_id)
                        .join(Server, Server.id == Peer.server_id)
                    )
                ).all()
            members: dict[str, set[str]] = {}
            for room_id, peer_id, allowed in rows:
                assert allowed, "a room member sits on a server without rooms (or disabled)"
                members.setdefault(room_id, set()).add(peer_id)
            assert len({peer_id for _, peer_id, _ in rows}) == len(rows), "a peer is in two rooms"
            assert all(members.get(pid) for pid in stored_rooms), "an empty room exists"
            owners = [p.owner_id for p in stored_rooms.values()]
            assert all(owners.count(owner) <= MAX_OWNED for owner in owners), "someone owns more than 5 rooms"
            keys = [room_key(p.name) for p in stored_rooms.values()]
            assert len(set(keys)) == len(keys), f"two rooms share a name: {sorted(keys)}"
            assert set(stored_rooms) == set(self.rooms), "the rooms differ from the model"
            for room_id, room in self.rooms.items():
                stored = stored_rooms[room_id]
                assert stored.owner_id == self.customers[room.owner].id
                assert stored.name == room.name
                assert self.services.rooms.password_of(stored) == room.password
                assert members[room_id] == room.members, f"room {room.name}: members differ from the model"

        self.run(check())

    @invariant()
    def each_customer_sees_exactly_their_rooms(self) -> None:
        if not self.servers:
            return

        async def check() -> None:
            async with self.services.sessionmaker() as db:
                peers = {p.id: p for p in (await db.execute(select(Peer))).scalars()}
                busy = set(
                    (
                        await db.execute(
                            select(NodeOperation.room_id).where(NodeOperation.status == OperationStatus.PENDING)
                        )
                    ).scalars()
                )
            aliases = {n: c.alias for n, c in enumerate(self.customers)}
            for user, customer in enumerate(self.customers):
                answer = await self.client.get(ROOMS, headers=customer.headers)
                assert answer.status_code == 200, answer.text
                lists = answer.json()
                owned = [v["id"] for v in lists["owned_partys"]]
                guest = [v["id"] for v in lists["guest_partys"]]
                assert set(owned) == {rid for rid, r in self.rooms.items() if r.owner == user}
                assert set(guest) == {rid for rid in self.rooms if self._visible(user, rid)} - set(owned)
                for view in lists["owned_partys"] + lists["guest_partys"]:
                    room = self.rooms[view["id"]]
                    assert view["name"] == room.name and view["user"] == aliases[room.owner]
                    assert view["password"] == (room.password if room.owner == user else None)
                    assert view["processing"] == (view["id"] in busy)
                    shown = {(p["id"], p["name"], p["user"], p["private_ip"]) for p in view["peers"]}
                    assert shown == {
                        (pid, peers[pid].name, aliases[self.peer_owner[pid]], peers[pid].address)
                        for pid in room.members
                    }, f"{customer.alias} sees room {room.name} unlike the database"
                async with self.services.sessionmaker() as db:
                    listed = await self.services.peers.list_json_for(customer.id)  # what GET .../peers answers
                    for peer in msgspec.json.decode(listed, type=list[PeerView]):
                        room_id = self._room_of(peer.id)
                        expected = (room_id, self.rooms[room_id].name) if room_id else None
                        assert (peer.party and (peer.party.id, peer.party.name)) == expected, f"peer {peer.name}: room"
                    # Anyone else's room (or a gone one) answers exactly like a missing one.
                    for room_id in self.room_ids:
                        if not self._visible(user, room_id):
                            with pytest.raises(RoomNotFound):
                                await self.services.rooms.visible(db, customer.id, room_id)

        self.run(check())

    @invariant()
    def nodes_enforce_the_rooms(self) -> None:
        """Each snapshot gives its node every room with a member on it, with all its members' addresses (who may
        reach whom), and a backbone to exactly the other room-enabled nodes; a node that kept up holds it."""
        if not self.servers:
            return

        async def check() -> None:
            snapshots = await self.agents.snapshots()
            peers = await self._peers()
            for server_id, (server, desired) in snapshots.items():
                expected = {
                    room_id: frozenset(normalize_address(peers[p].address) for p in room.members)
                    for room_id, room in self.rooms.items()
                    if any(peers[p].server_id == server_id for p in room.members)
                }
                assert {rid: r.members for rid, r in desired.rooms.items()} == expected, (
                    f"node {server.name} would enforce the wrong rooms"
                )
                assert desired.backbone is not None and desired.backbone.enabled == server.hosts_rooms
                neighbours = {s.public_key for s, _ in snapshots.values() if s.hosts_rooms and s.id != server_id}
                held = {p.public_key for p in desired.backbone.peers}
                assert held == (neighbours if server.hosts_rooms else set()), f"{server.name}: wrong backbone"
            await self.agents.assert_caught_up_nodes_hold_their_snapshot(snapshots)

        self.run(check())

    @invariant()
    def an_idle_system_has_no_busy_peer(self) -> None:
        """(Nor a busy room: a room is shown processing exactly while one of its operations is pending, above.)"""
        if self.servers:
            self.run(self._assert_idle_means_free())

    async def _assert_idle_means_free(self, *, must_be_idle: bool = False) -> None:
        async with self.services.sessionmaker() as db:
            pending = await db.scalar(
                select(func.count()).select_from(NodeOperation).where(NodeOperation.status == OperationStatus.PENDING)
            )
            assert not (must_be_idle and pending), "operations still pending after every node reconnected"
            if not pending:
                busy = (await db.execute(select(Peer.name).where(Peer.pending_operation_id.is_not(None)))).scalars()
                assert not list(busy), "a peer is busy with nothing pending"

    def teardown(self) -> None:
        if not self.servers:
            return
        # Everyone reconnects: afterwards every node holds its desired state and nothing is busy.
        # Twice: a move the first round confirms queues work for other nodes (the old node's removal, the room).
        for _ in range(2):
            for server_id in self.servers:
                self.run(self.agents.connect(server_id))
            self.run(self._settle_moves())
        assert set(self.run(self.agents.caught_up())) == set(self.servers)
        self.nodes_enforce_the_rooms()
        self.run(self._assert_idle_means_free(must_be_idle=True))
        self.each_customer_sees_exactly_their_rooms()  # none processing any more


def test_room_life_cycle_keeps_its_invariants(database_url: str, tmp_path: Path) -> None:
    with machine_services(database_url, tmp_path) as (services, loop), machine_client(services, loop) as client:
        run_machine(lambda: RoomLifeCycle(services, loop, client), examples=10, steps=20)
